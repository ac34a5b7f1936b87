package io.mdfanout.tools.dbn;

import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Objects;

/**
 * Configuration of a {@link DbnEncoder}: the schema written, what the DBN metadata says and how SBE times become DBN
 * times. Fluent setters; only {@link #sessionDate(LocalDate)} has no default, because ITCH timestamps are nanoseconds
 * since midnight of a day the messages do not carry.
 */
public final class DbnOptions
{
    /** Time zone of ITCH timestamps: Nasdaq counts nanoseconds since midnight US/Eastern. */
    public static final ZoneId DEFAULT_ZONE = ZoneId.of(io.mdfanout.wire.Defaults.EXCHANGE_ZONE);
    /** zstd level when none is given: zstd's own default, a good ratio at a high speed. */
    public static final int DEFAULT_ZSTD_LEVEL = 3;

    private String dataset = "XNAS.ITCH";
    private int publisherId = Dbn.PUBLISHER_XNAS_ITCH;
    private LocalDate sessionDate;
    private ZoneId zone = DEFAULT_ZONE;
    private long startEpochNs = 0;
    private long endEpochNs = Long.MAX_VALUE;
    private boolean zstd;
    private int zstdLevel = DEFAULT_ZSTD_LEVEL;
    private DbnSchema schema = DbnSchema.MBO;
    /** Null: the schema's default (written with MBO, not with a derived schema). */
    private Boolean definitions;
    private Boolean status;
    private Boolean imbalance;
    private Path spoolDirectory;

    /**
     * Dataset written in the metadata (at most 15 ASCII characters).
     *
     * @param dataset e.g. {@code XNAS.ITCH}.
     * @return this.
     */
    public DbnOptions dataset(final String dataset)
    {
        if (dataset.length() >= Dbn.DATASET_CSTR_LEN || !isAscii(dataset))
        {
            throw new IllegalArgumentException("dataset must be ASCII and shorter than 16 characters: " + dataset);
        }
        this.dataset = dataset;
        return this;
    }

    /**
     * @return the dataset.
     */
    public String dataset()
    {
        return dataset;
    }

    /**
     * Databento publisher id written in every record header; 2 is XNAS.ITCH.
     *
     * @param publisherId the id (u16).
     * @return this.
     */
    public DbnOptions publisherId(final int publisherId)
    {
        if (publisherId < 0 || publisherId > 0xFFFF)
        {
            throw new IllegalArgumentException("publisher id must be a u16: " + publisherId);
        }
        this.publisherId = publisherId;
        return this;
    }

    /**
     * @return the publisher id.
     */
    public int publisherId()
    {
        return publisherId;
    }

    /**
     * The trading day the session was recorded on: ITCH timestamps count from its midnight in {@link #zone()}.
     *
     * @param sessionDate the trading day.
     * @return this.
     */
    public DbnOptions sessionDate(final LocalDate sessionDate)
    {
        this.sessionDate = Objects.requireNonNull(sessionDate, "sessionDate");
        return this;
    }

    /**
     * @return the trading day, null until set.
     */
    public LocalDate sessionDate()
    {
        return sessionDate;
    }

    /**
     * Zone of the midnight ITCH timestamps count from.
     *
     * @param zone the zone, {@link #DEFAULT_ZONE} unless set.
     * @return this.
     */
    public DbnOptions zone(final ZoneId zone)
    {
        this.zone = Objects.requireNonNull(zone, "zone");
        return this;
    }

    /**
     * @return the zone.
     */
    public ZoneId zone()
    {
        return zone;
    }

    /**
     * Time range to write, by {@code ts_event} (epoch nanoseconds): records outside are not written, but the
     * messages still update the encoder's order state so that a later cancel or fill knows its order. The metadata's
     * start and end are this range (narrowed to the records written when left open).
     *
     * @param startEpochNs first ts_event written, inclusive; 0 for none.
     * @param endEpochNs   end, exclusive; {@link Long#MAX_VALUE} for none.
     * @return this.
     */
    public DbnOptions timeRange(final long startEpochNs, final long endEpochNs)
    {
        if (startEpochNs < 0 || endEpochNs <= startEpochNs)
        {
            throw new IllegalArgumentException("empty or negative time range: " + startEpochNs + ".." + endEpochNs);
        }
        this.startEpochNs = startEpochNs;
        this.endEpochNs = endEpochNs;
        return this;
    }

    /**
     * @return first ts_event written, 0 when open.
     */
    public long startEpochNs()
    {
        return startEpochNs;
    }

    /**
     * @return end of the range, exclusive; {@link Long#MAX_VALUE} when open.
     */
    public long endEpochNs()
    {
        return endEpochNs;
    }

    /**
     * Compress the whole file (metadata included) as one zstd frame, as Databento's {@code .dbn.zst} files are.
     *
     * @param zstd true to compress.
     * @return this.
     */
    public DbnOptions zstd(final boolean zstd)
    {
        this.zstd = zstd;
        return this;
    }

    /**
     * @return whether the output is zstd-compressed.
     */
    public boolean zstd()
    {
        return zstd;
    }

    /**
     * zstd compression level.
     *
     * @param level 1 (fast) to 22 (small).
     * @return this.
     */
    public DbnOptions zstdLevel(final int level)
    {
        if (level < 1 || level > 22)
        {
            throw new IllegalArgumentException("zstd level must be 1..22: " + level);
        }
        this.zstdLevel = level;
        return this;
    }

    /**
     * @return the zstd level.
     */
    public int zstdLevel()
    {
        return zstdLevel;
    }

    /**
     * The schema written: {@link DbnSchema#MBO} (the default; with definitions, status and imbalance records unless
     * turned off) or one derived from it, whose file holds that schema's records only and names it in its metadata.
     *
     * @param schema the schema.
     * @return this.
     */
    public DbnOptions schema(final DbnSchema schema)
    {
        this.schema = Objects.requireNonNull(schema, "schema");
        return this;
    }

    /**
     * @return the schema written.
     */
    public DbnSchema schema()
    {
        return schema;
    }

    /**
     * Whether InstrumentDirectory messages are written as {@code InstrumentDefMsg} records: by default with
     * {@link DbnSchema#MBO}, never with a derived schema (a file of one schema holds that schema's records only).
     *
     * @param definitions true to write them.
     * @return this.
     */
    public DbnOptions definitions(final boolean definitions)
    {
        this.definitions = definitions;
        return this;
    }

    /**
     * @return whether definitions are written.
     */
    public boolean definitions()
    {
        return !schema.isDerived() && (null == definitions || definitions);
    }

    /**
     * Whether trading status, Reg SHO, operational halt, system event and MWCB breach messages are written as
     * {@code StatusMsg} records: by default with {@link DbnSchema#MBO}, never with a derived schema.
     *
     * @param status true to write them.
     * @return this.
     */
    public DbnOptions status(final boolean status)
    {
        this.status = status;
        return this;
    }

    /**
     * @return whether status records are written.
     */
    public boolean status()
    {
        return !schema.isDerived() && (null == status || status);
    }

    /**
     * Whether NOII (Imbalance) messages are written as {@code ImbalanceMsg} records: by default with
     * {@link DbnSchema#MBO}, never with a derived schema.
     *
     * @param imbalance true to write them.
     * @return this.
     */
    public DbnOptions imbalance(final boolean imbalance)
    {
        this.imbalance = imbalance;
        return this;
    }

    /**
     * @return whether imbalance records are written.
     */
    public boolean imbalance()
    {
        return !schema.isDerived() && (null == imbalance || imbalance);
    }

    /**
     * Checks that the options go together: definitions, status and imbalance records asked for (set true) with a
     * derived schema cannot be written, since such a file holds its schema's records only.
     *
     * @throws IllegalArgumentException naming the options that do not apply.
     */
    public void validate()
    {
        if (schema.isDerived() && (Boolean.TRUE.equals(definitions) || Boolean.TRUE.equals(status) ||
            Boolean.TRUE.equals(imbalance)))
        {
            throw new IllegalArgumentException("definition, status and imbalance records go into an mbo export " +
                "only: a " + schema + " file holds " + schema + " records only (schemas: " + DbnSchema.names() + ")");
        }
    }

    /**
     * Directory of the spool file the records wait in until the metadata (which lists every symbol) can be
     * written: next to the output is best, the records are copied once more at the end.
     *
     * @param spoolDirectory the directory; the JVM's temporary directory unless set.
     * @return this.
     */
    public DbnOptions spoolDirectory(final Path spoolDirectory)
    {
        this.spoolDirectory = spoolDirectory;
        return this;
    }

    /**
     * @return the spool directory, null for the JVM's temporary directory.
     */
    public Path spoolDirectory()
    {
        return spoolDirectory;
    }

    static boolean isAscii(final String value)
    {
        for (int i = 0; i < value.length(); i++)
        {
            if (value.charAt(i) > 127)
            {
                return false;
            }
        }
        return true;
    }
}
