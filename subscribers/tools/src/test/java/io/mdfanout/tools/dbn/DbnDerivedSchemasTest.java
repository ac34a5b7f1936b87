package io.mdfanout.tools.dbn;

import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SystemEventCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The derived schemas of the DBN export: a session written by hand (adds, executions printable and not, a cancel,
 * a replace, a delete, a non-cross trade, crosses with and without shares, across second and minute boundaries) is
 * exported in each of mbp-1, mbp-10, tbbo, trades, ohlcv-1s and ohlcv-1m, read back by Databento's decoder
 * (databento-dbn through scripts/dbn/read_dbn.py), and every field of every record must equal the one listed here,
 * worked out by hand from the rules of docs/WIRE.md "Derived streams" and the mapping of docs/EXPORT.md. Needs the
 * venv of {@code make dbn-tools}.
 */
class DbnDerivedSchemasTest
{
    private static final LocalDate SESSION_DATE = LocalDate.of(2024, 3, 15);
    private static final long MS = 1_000_000L;
    private static final long OPEN = (9 * 3600 + 30 * 60) * 1_000_000_000L;    // 09:30:00
    private static final long SECOND = 1_000_000_000L;
    private static final long MINUTE = 60 * SECOND;
    private static final long[][] NONE = {};

    @TempDir
    Path tempDir;

    /** A derived record as the file must hold it; prices as Price4 mantissas, 0 shares for an empty level. */
    private static final class Rec
    {
        long instrumentId;
        long exchangeTime;
        long tsRecv;
        long sequence;
        String action;
        String side;
        long price;
        long size;
        long flags;
        long depth;
        long[][] bids = NONE;
        long[][] asks = NONE;
        long open;
        long high;
        long low;
        long close;
    }

    /** What each schema must hold for the session, filled in as it is fed. */
    private final Map<DbnSchema, List<Rec>> expected = new EnumMap<>(DbnSchema.class);

    @Test
    void eachDerivedSchemaOfAHandWrittenSessionReadsBackAsListed() throws Exception
    {
        for (final DbnSchema schema : DbnSchema.values())
        {
            if (!schema.isDerived())
            {
                continue;
            }
            final Path file = tempDir.resolve(schema + ".dbn");
            final DbnStats stats;
            try (DbnEncoder encoder = DbnEncoder.open(new DbnOptions().schema(schema).sessionDate(SESSION_DATE), file))
            {
                expected.clear();
                session(new DerivedFeed(encoder, midnight()));
                stats = encoder.stats();
            }
            final List<Rec> want = expected.getOrDefault(schema, List.of());
            assertTrue(want.size() >= 3, schema + ": the session gives records");
            assertEquals(want.size(), stats.derivedRecords(), schema + ": records counted");

            final Map<String, Object> summary = DbnReadBack.read(file, tempDir);
            final Map<String, Object> metadata = DbnReadBack.metadata(summary);
            assertEquals(schema.databentoName(), metadata.get("schema"), "the metadata names the schema");
            assertEquals(List.of("AAPL", "MSFT"), metadata.get("symbols"), schema + ": symbols");
            final String type = 0 != schema.barSeconds() ? "OHLCVMsg" : DbnSchema.TRADES == schema ? "TradeMsg" :
                DbnSchema.MBP_10 == schema ? "MBP10Msg" : "MBP1Msg";
            assertEquals(Map.of(type, (long)want.size()), summary.get("counts"), schema + ": one record type only");
            assertRecords(schema, want, DbnReadBack.columns(summary, type));
        }
    }

    @Test
    void theGeneratedSessionOfEveryTemplateReadsBackInEachDerivedSchemaAndItsSnapshotReplacesABook() throws Exception
    {
        for (final DbnSchema schema : DbnSchema.values())
        {
            if (!schema.isDerived())
            {
                continue;
            }
            final Path file = tempDir.resolve("scenario." + schema + ".dbn.zst");
            final DbnStats stats;
            try (DbnEncoder encoder = DbnEncoder.open(
                new DbnOptions().schema(schema).sessionDate(SESSION_DATE).zstd(true), file))
            {
                new DbnScenario(midnight(), encoder).run(3_000);
                stats = encoder.stats();
            }
            // About three seconds of exchange time: bars of 1 s for each instrument, and of 1 min those of partition 0
            // (the scenario sends market-wide messages, End of Messages too, on partition 0 only: partition 1's last
            // bars never close)
            assertTrue(stats.derivedRecords() > (DbnSchema.OHLCV_1M == schema ? 1 : DbnSchema.OHLCV_1S == schema ? 10 :
                100), schema + ": " + stats);
            final Map<String, Object> summary = DbnReadBack.read(file, tempDir);
            assertEquals(schema.databentoName(), DbnReadBack.metadata(summary).get("schema"));
            assertEquals(List.of("AAPL", "MSFT", "QQQ", "TSLA", "ZVZZT"), DbnReadBack.metadata(summary).get("symbols"));
            final String type = 0 != schema.barSeconds() ? "OHLCVMsg" : DbnSchema.TRADES == schema ? "TradeMsg" :
                DbnSchema.MBP_10 == schema ? "MBP10Msg" : "MBP1Msg";
            assertEquals(Map.of(type, stats.derivedRecords()), summary.get("counts"), schema + ": one record type");
            if (DbnSchema.MBP_1 != schema && DbnSchema.MBP_10 != schema)
            {
                continue;
            }
            // The snapshot of partition 0 restores instrument 2's book as it was (nothing to send) and leaves out 4,
            // whose book empties: one record R, flagged as the snapshot's, its levels empty
            final Map<String, Object> columns = DbnReadBack.columns(summary, type);
            final List<Integer> clears = new ArrayList<>();
            for (int i = 0; i < DbnReadBack.column(columns, "action").size(); i++)
            {
                if ("R".equals(DbnReadBack.text(columns, "action", i)))
                {
                    clears.add(i);
                }
            }
            assertEquals(1, clears.size(), schema + ": records R " + clears);
            final int i = clears.get(0);
            assertEquals(4L, DbnReadBack.at(columns, "instrument_id", i));
            assertEquals(Dbn.F_SNAPSHOT | Dbn.F_BAD_TS_RECV | Dbn.F_LAST, DbnReadBack.at(columns, "flags", i));
            assertEquals("N", DbnReadBack.text(columns, "side", i));
            assertEquals(Dbn.UNDEF_PRICE, DbnReadBack.at(columns, "price", i));
            assertEquals(0L, DbnReadBack.at(columns, "size", i));
            for (int level = 0; level < (DbnSchema.MBP_10 == schema ? 10 : 1); level++)
            {
                assertLevel(columns, i, level, "bid", NONE, schema + " R ");
                assertLevel(columns, i, level, "ask", NONE, schema + " R ");
            }
        }
    }

    @Test
    void optionsThatDoNotApplyToADerivedSchemaAreRefusedNamingTheChoices()
    {
        final IllegalArgumentException unknown =
            assertThrows(IllegalArgumentException.class, () -> DbnSchema.fromName("mbp10"));
        assertEquals("unknown schema 'mbp10': one of mbo, mbp-1, mbp-10, tbbo, trades, ohlcv-1s, ohlcv-1m",
            unknown.getMessage());
        assertEquals(DbnSchema.OHLCV_1M, DbnSchema.fromName(" OHLCV-1m "));

        final DbnOptions options = new DbnOptions().schema(DbnSchema.TRADES).sessionDate(SESSION_DATE).status(true);
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> DbnEncoder.open(options, tempDir.resolve("refused.dbn")));
        assertTrue(refused.getMessage().contains("go into an mbo export only: a trades file holds trades records " +
            "only (schemas: mbo, mbp-1,"), refused.getMessage());

        // Turned off, or left to the default, they are simply not written
        final DbnOptions off = new DbnOptions().schema(DbnSchema.TBBO).definitions(false);
        off.validate();
        assertTrue(!off.definitions() && !off.status() && !off.imbalance());
        final DbnOptions mbo = new DbnOptions();
        assertTrue(mbo.definitions() && mbo.status() && mbo.imbalance());
    }

    // ----- the session -----

    /**
     * Instrument 1 (AAPL) gets a book and every kind of event; instrument 2 (MSFT) a cross only. Prices are Price4
     * mantissas: 100_000 is 10.0000. Each message is followed by what it gives in each schema.
     */
    private void session(final DerivedFeed feed)
    {
        feed.at(OPEN).systemEvent(SystemEventCode.START_OF_MARKET_HOURS);
        feed.directory(1, "AAPL");
        feed.directory(2, "MSFT");

        feed.at(OPEN + 100 * MS).add(1, 1, Side.BUY, 100, 100_000);
        book(feed, "A", "B", 100_000, 100, 0, levels(100_000, 100, 1), NONE, true, true);

        feed.at(OPEN + 200 * MS).add(1, 2, Side.SELL, 200, 100_100);
        book(feed, "A", "A", 100_100, 200, 0, levels(100_000, 100, 1), levels(100_100, 200, 1), true, true);

        // A second level: MBP-10 only
        feed.at(OPEN + 300 * MS).add(1, 3, Side.BUY, 50, 99_900);
        book(feed, "A", "B", 99_900, 50, 1, levels(100_000, 100, 1, 99_900, 50, 1), levels(100_100, 200, 1), false, true);

        feed.at(OPEN + 400 * MS).add(1, 4, Side.BUY, 30, 100_000);
        book(feed, "A", "B", 100_000, 30, 0, levels(100_000, 130, 2, 99_900, 50, 1), levels(100_100, 200, 1), true, true);

        // An execution: the print (a seller aggressed the bid), against the book before it, then the book change
        feed.at(OPEN + 500 * MS).executed(1, 1, 40);
        print(feed, 1, "A", 100_000, 40, 0, levels(100_000, 130, 2, 99_900, 50, 1), levels(100_100, 200, 1));
        book(feed, "C", "B", 100_000, 40, 0, levels(100_000, 90, 2, 99_900, 50, 1), levels(100_100, 200, 1), true, true);

        // Into the next second: the 1 s bar of 09:30:00 closes first (one print)
        feed.at(OPEN + SECOND + 200 * MS);
        bar(DbnSchema.OHLCV_1S, 1, OPEN, 100_000, 100_000, 100_000, 100_000, 40);
        feed.executedWithPrice(1, 2, 50, 100_050, true);
        print(feed, 1, "B", 100_050, 50, 0, levels(100_000, 90, 2, 99_900, 50, 1), levels(100_100, 200, 1));
        book(feed, "C", "A", 100_100, 50, 0, levels(100_000, 90, 2, 99_900, 50, 1), levels(100_100, 150, 1), true, true);

        // Not printable: the book changes, nothing prints
        feed.at(OPEN + SECOND + 300 * MS).executedWithPrice(1, 2, 10, 100_100, false);
        book(feed, "C", "A", 100_100, 10, 0, levels(100_000, 90, 2, 99_900, 50, 1), levels(100_100, 140, 1), true, true);

        // The second level goes: MBP-10 only, at depth 1
        feed.at(OPEN + SECOND + 400 * MS).cancel(1, 3, 50);
        book(feed, "C", "B", 99_900, 50, 1, levels(100_000, 90, 2), levels(100_100, 140, 1), false, true);

        // A replace to a better price: one record, the new order's
        feed.at(OPEN + SECOND + 500 * MS).replace(1, 4, 5, 60, 100_020);
        book(feed, "A", "B", 100_020, 60, 0, levels(100_020, 60, 1, 100_000, 60, 1), levels(100_100, 140, 1), true,
            true);

        // A non-cross trade: a print without an aggressor, the book as it is
        feed.at(OPEN + SECOND + 600 * MS).trade(1, 25, 100_030);
        print(feed, 1, "N", 100_030, 25, 0, levels(100_020, 60, 1, 100_000, 60, 1), levels(100_100, 140, 1));

        // A cross without shares prints nothing; one with shares prints, on an instrument without a book
        feed.at(OPEN + SECOND + 700 * MS).cross(1, 0, 100_000);
        feed.at(OPEN + SECOND + 800 * MS).cross(2, 1_000, 500_000);
        print(feed, 2, "N", 500_000, 1_000, 0, NONE, NONE);

        // The next minute: the 1 s bars of 09:30:01 and the 1 min bars of 09:30 close, in the order of first prints
        feed.at(OPEN + MINUTE + 500 * MS);
        bar(DbnSchema.OHLCV_1S, 1, OPEN + SECOND, 100_050, 100_050, 100_030, 100_030, 75);
        bar(DbnSchema.OHLCV_1S, 2, OPEN + SECOND, 500_000, 500_000, 500_000, 500_000, 1_000);
        bar(DbnSchema.OHLCV_1M, 1, OPEN, 100_000, 100_050, 100_000, 100_030, 115);
        bar(DbnSchema.OHLCV_1M, 2, OPEN, 500_000, 500_000, 500_000, 500_000, 1_000);
        feed.delete(1, 5);
        book(feed, "C", "B", 100_020, 60, 0, levels(100_000, 60, 1), levels(100_100, 140, 1), true, true);

        // The last bid executes: the side empties
        feed.at(OPEN + MINUTE + 600 * MS).executed(1, 1, 60);
        print(feed, 1, "A", 100_000, 60, 0, levels(100_000, 60, 1), levels(100_100, 140, 1));
        book(feed, "C", "B", 100_000, 60, 0, NONE, levels(100_100, 140, 1), true, true);

        // End of messages: the clock closes the 1 s bar of 09:31:00, the event the 1 min bar of 09:31
        feed.at(OPEN + MINUTE + SECOND);
        bar(DbnSchema.OHLCV_1S, 1, OPEN + MINUTE, 100_000, 100_000, 100_000, 100_000, 60);
        bar(DbnSchema.OHLCV_1M, 1, OPEN + MINUTE, 100_000, 100_000, 100_000, 100_000, 60);
        feed.systemEvent(SystemEventCode.END_OF_MESSAGES);
    }

    /** Price levels: {price, shares, orders} triples, best first. */
    private static long[][] levels(final long... triples)
    {
        final long[][] levels = new long[triples.length / 3][];
        for (int i = 0; i < levels.length; i++)
        {
            levels[i] = new long[]{triples[3 * i], triples[3 * i + 1], triples[3 * i + 2]};
        }
        return levels;
    }

    /** A book change of instrument 1 by the message just fed: an MBP-1 record when the top changed, an MBP-10 one. */
    private void book(
        final DerivedFeed feed,
        final String action,
        final String side,
        final long price,
        final long size,
        final long depth,
        final long[][] bids,
        final long[][] asks,
        final boolean top,
        final boolean ten)
    {
        if (top)
        {
            last(DbnSchema.MBP_1, feed);
            add(DbnSchema.MBP_1, rec(feed, 1, action, side, price, size, depth, bids, asks));
        }
        if (ten)
        {
            last(DbnSchema.MBP_10, feed);
            add(DbnSchema.MBP_10, rec(feed, 1, action, side, price, size, depth, bids, asks));
        }
    }

    /** A print by the message just fed, with the book it traded against, in the four schemas that have trades. */
    private void print(
        final DerivedFeed feed,
        final long instrumentId,
        final String side,
        final long price,
        final long size,
        final long depth,
        final long[][] bids,
        final long[][] asks)
    {
        for (final DbnSchema schema : new DbnSchema[]{DbnSchema.MBP_1, DbnSchema.MBP_10, DbnSchema.TBBO, DbnSchema.TRADES})
        {
            add(schema, rec(feed, instrumentId, "T", side, price, size, depth, bids, asks));
        }
    }

    /** The previous record of the schema was not the last of the message's event when this one follows it. */
    private void last(final DbnSchema schema, final DerivedFeed feed)
    {
        final List<Rec> records = expected.get(schema);
        if (null != records && !records.isEmpty())
        {
            final Rec previous = records.get(records.size() - 1);
            if (previous.sequence == feed.sequence() && previous.instrumentId == 1)
            {
                previous.flags &= ~Dbn.F_LAST;
            }
        }
    }

    private Rec rec(
        final DerivedFeed feed,
        final long instrumentId,
        final String action,
        final String side,
        final long price,
        final long size,
        final long depth,
        final long[][] bids,
        final long[][] asks)
    {
        final Rec rec = new Rec();
        rec.instrumentId = instrumentId;
        rec.exchangeTime = feed.tsRecv() - DerivedFeed.TS_RECV_DELAY - midnight();
        rec.tsRecv = feed.tsRecv();
        rec.sequence = feed.sequence();
        rec.action = action;
        rec.side = side;
        rec.price = price;
        rec.size = size;
        rec.flags = Dbn.F_LAST;
        rec.depth = depth;
        rec.bids = bids;
        rec.asks = asks;
        return rec;
    }

    private void bar(
        final DbnSchema schema,
        final long instrumentId,
        final long start,
        final long open,
        final long high,
        final long low,
        final long close,
        final long volume)
    {
        final Rec rec = new Rec();
        rec.instrumentId = instrumentId;
        rec.exchangeTime = start;
        rec.open = open;
        rec.high = high;
        rec.low = low;
        rec.close = close;
        rec.size = volume;
        add(schema, rec);
    }

    private void add(final DbnSchema schema, final Rec rec)
    {
        expected.computeIfAbsent(schema, k -> new ArrayList<>()).add(rec);
    }

    // ----- comparison -----

    private static void assertRecords(final DbnSchema schema, final List<Rec> want, final Map<String, Object> columns)
    {
        for (int i = 0; i < want.size(); i++)
        {
            final Rec r = want.get(i);
            final String where = schema + " record " + i + " ";
            assertEquals(schema.rtype(), DbnReadBack.at(columns, "rtype", i), where + "rtype");
            assertEquals(Dbn.PUBLISHER_XNAS_ITCH, DbnReadBack.at(columns, "publisher_id", i), where + "publisher_id");
            assertEquals(r.instrumentId, DbnReadBack.at(columns, "instrument_id", i), where + "instrument_id");
            assertEquals(midnight() + r.exchangeTime, DbnReadBack.at(columns, "ts_event", i), where + "ts_event");
            if (0 != schema.barSeconds())
            {
                assertEquals(r.open * DbnEncoder.PRICE4_TO_DBN, DbnReadBack.at(columns, "open", i), where + "open");
                assertEquals(r.high * DbnEncoder.PRICE4_TO_DBN, DbnReadBack.at(columns, "high", i), where + "high");
                assertEquals(r.low * DbnEncoder.PRICE4_TO_DBN, DbnReadBack.at(columns, "low", i), where + "low");
                assertEquals(r.close * DbnEncoder.PRICE4_TO_DBN, DbnReadBack.at(columns, "close", i), where + "close");
                assertEquals(r.size, DbnReadBack.at(columns, "volume", i), where + "volume");
                continue;
            }
            assertEquals(r.tsRecv, DbnReadBack.at(columns, "ts_recv", i), where + "ts_recv");
            assertEquals(r.sequence, DbnReadBack.at(columns, "sequence", i), where + "sequence");
            assertEquals(r.action, DbnReadBack.text(columns, "action", i), where + "action");
            assertEquals(r.side, DbnReadBack.text(columns, "side", i), where + "side");
            assertEquals(r.price * DbnEncoder.PRICE4_TO_DBN, DbnReadBack.at(columns, "price", i), where + "price");
            assertEquals(r.size, DbnReadBack.at(columns, "size", i), where + "size");
            assertEquals(r.flags, DbnReadBack.at(columns, "flags", i), where + "flags");
            assertEquals(r.depth, DbnReadBack.at(columns, "depth", i), where + "depth");
            assertEquals(0L, DbnReadBack.at(columns, "ts_in_delta", i), where + "ts_in_delta");
            final int depth = DbnSchema.MBP_10 == schema ? 10 : DbnSchema.TRADES == schema ? 0 : 1;
            for (int level = 0; level < depth; level++)
            {
                assertLevel(columns, i, level, "bid", r.bids, where);
                assertLevel(columns, i, level, "ask", r.asks, where);
            }
        }
    }

    private static void assertLevel(
        final Map<String, Object> columns, final int i, final int level, final String side, final long[][] levels,
        final String where)
    {
        final String suffix = String.format("_%02d", level);
        final boolean present = level < levels.length;
        assertEquals(present ? levels[level][0] * DbnEncoder.PRICE4_TO_DBN : Dbn.UNDEF_PRICE,
            DbnReadBack.at(columns, side + "_px" + suffix, i), where + side + "_px" + suffix);
        assertEquals(present ? levels[level][1] : 0, DbnReadBack.at(columns, side + "_sz" + suffix, i),
            where + side + "_sz" + suffix);
        assertEquals(present ? levels[level][2] : 0, DbnReadBack.at(columns, side + "_ct" + suffix, i),
            where + side + "_ct" + suffix);
    }

    private static long midnight()
    {
        return SESSION_DATE.atStartOfDay(DbnOptions.DEFAULT_ZONE).toEpochSecond() * 1_000_000_000L;
    }
}
