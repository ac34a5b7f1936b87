package io.mdfanout.tools.dbn;

import io.mdfanout.wire.FeedStream;

import java.util.Locale;

/**
 * The DBN schemas an export can write, by Databento's names, each with the record type its file holds and, for a
 * schema derived from MBO, the derived streams of the SDK's {@code Derivation} it is made of. The rules of what a
 * BBO, ten levels, a print or a bar is are the derivation's (docs/WIRE.md, "Derived streams"); a schema here only
 * says which of its messages become which DBN record (docs/EXPORT.md, "Derived schemas").
 */
public enum DbnSchema
{
    /** Order by order: every order-book event (the export's original schema; with the reference records). */
    MBO("mbo", Dbn.SCHEMA_MBO, Dbn.RTYPE_MBO, Dbn.MBO_SIZE, 0),
    /** The best bid and offer on each change, and each trade with the BBO it traded against ({@code Mbp1Msg}). */
    MBP_1("mbp-1", Dbn.SCHEMA_MBP_1, Dbn.RTYPE_MBP_1, Dbn.MBP1_SIZE, 0, FeedStream.BBO, FeedStream.TRADES),
    /** Ten levels a side on each change within them, and each trade with them ({@code Mbp10Msg}). */
    MBP_10("mbp-10", Dbn.SCHEMA_MBP_10, Dbn.RTYPE_MBP_10, Dbn.MBP10_SIZE, 0, FeedStream.DEPTH, FeedStream.TRADES),
    /**
     * Each trade with the BBO just before it: {@code Mbp1Msg} records; DBN version 3 carries them under the MBP-1
     * record type (version 4 has one of its own).
     */
    TBBO("tbbo", Dbn.SCHEMA_TBBO, Dbn.RTYPE_MBP_1, Dbn.MBP1_SIZE, 0, FeedStream.BBO, FeedStream.TRADES),
    /** Each trade ({@code TradeMsg}). */
    TRADES("trades", Dbn.SCHEMA_TRADES, Dbn.RTYPE_MBP_0, Dbn.TRADE_SIZE, 0, FeedStream.TRADES),
    /** OHLCV bars of one second ({@code OhlcvMsg}). */
    OHLCV_1S("ohlcv-1s", Dbn.SCHEMA_OHLCV_1S, Dbn.RTYPE_OHLCV_1S, Dbn.OHLCV_SIZE, 1, FeedStream.BARS),
    /** OHLCV bars of one minute ({@code OhlcvMsg}). */
    OHLCV_1M("ohlcv-1m", Dbn.SCHEMA_OHLCV_1M, Dbn.RTYPE_OHLCV_1M, Dbn.OHLCV_SIZE, 60, FeedStream.BARS);

    private static final DbnSchema[] VALUES = values();

    private final String databentoName;
    private final int id;
    private final int rtype;
    private final int recordSize;
    private final int barSeconds;
    private final FeedStream[] streams;

    DbnSchema(
        final String databentoName,
        final int id,
        final int rtype,
        final int recordSize,
        final int barSeconds,
        final FeedStream... streams)
    {
        this.databentoName = databentoName;
        this.id = id;
        this.rtype = rtype;
        this.recordSize = recordSize;
        this.barSeconds = barSeconds;
        this.streams = streams;
    }

    /** @return Databento's name of the schema, as {@code --schema} takes it: {@code mbp-10}. */
    public String databentoName()
    {
        return databentoName;
    }

    /** @return the schema's id in the DBN metadata. */
    public int id()
    {
        return id;
    }

    /** @return the record type every record of such a file has. */
    public int rtype()
    {
        return rtype;
    }

    /** @return the size of that record. */
    public int recordSize()
    {
        return recordSize;
    }

    /** @return the bar interval in seconds of an OHLCV schema; 0 for the others. */
    public int barSeconds()
    {
        return barSeconds;
    }

    /** @return true for every schema but MBO: its records come from the SDK's derivation. */
    public boolean isDerived()
    {
        return this != MBO;
    }

    /** @return the derived streams the schema is made of (none for MBO); a copy. */
    public FeedStream[] streams()
    {
        return streams.clone();
    }

    /** {@inheritDoc} */
    public String toString()
    {
        return databentoName;
    }

    /**
     * The schema of a Databento name.
     *
     * @param name e.g. {@code mbp-10} (case and surrounding blanks do not matter).
     * @return the schema.
     * @throws IllegalArgumentException naming the valid choices, for any other name.
     */
    public static DbnSchema fromName(final String name)
    {
        final String wanted = null == name ? "" : name.trim().toLowerCase(Locale.ROOT);
        for (final DbnSchema schema : VALUES)
        {
            if (schema.databentoName.equals(wanted))
            {
                return schema;
            }
        }
        throw new IllegalArgumentException("unknown schema '" + name + "': one of " + names());
    }

    /** @return the schemas' names, comma separated, in the order of the enum: {@code mbo, mbp-1, ...}. */
    public static String names()
    {
        final StringBuilder names = new StringBuilder();
        for (final DbnSchema schema : VALUES)
        {
            names.append(names.length() == 0 ? "" : ", ").append(schema.databentoName);
        }
        return names.toString();
    }
}
