package io.mdfanout.tools.dbn;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The DBN export's proof: a generated session of every template is encoded to DBN, plain and zstd-compressed,
 * read back by Databento's own decoder (databento-dbn, through scripts/dbn/read_dbn.py into pandas), and every
 * MBO record's fields, and the other records' key fields, must equal what was fed. Needs the venv that
 * {@code make dbn-tools} creates; without it the test fails, saying so.
 */
class DbnEncoderTest
{
    private static final LocalDate SESSION_DATE = LocalDate.of(2024, 3, 15);
    private static final int EVENTS = 6_000;

    @TempDir
    Path tempDir;

    @Test
    void databentoDecoderReadsBackWhatWasFedPlainAndZstd() throws Exception
    {
        for (final boolean zstd : new boolean[]{false, true})
        {
            final Path file = tempDir.resolve(zstd ? "session.dbn.zst" : "session.dbn");
            final DbnOptions options = new DbnOptions().sessionDate(SESSION_DATE).zstd(zstd);
            final DbnScenario scenario;
            final DbnStats stats;
            try (DbnEncoder encoder = DbnEncoder.open(options, file))
            {
                scenario = new DbnScenario(midnight(), encoder);
                scenario.run(EVENTS);
                stats = encoder.stats();
            }
            assertTrue(scenario.messages > EVENTS, "messages fed: " + scenario.messages);
            assertEquals(scenario.mbo.size(), stats.mboRecords());

            final Map<String, Object> summary = readBack(file);
            assertEquals(zstd ? "zstd" : "none", summary.get("compression"));
            assertMetadata(scenario, summary);
            assertRecords(scenario, summary);
        }
    }

    @Test
    void mboOnlyFileDeclaresTheMboSchema() throws Exception
    {
        final Path file = tempDir.resolve("mbo-only.dbn");
        final DbnOptions options = new DbnOptions().sessionDate(SESSION_DATE).definitions(false).status(false)
            .imbalance(false);
        final DbnScenario scenario;
        try (DbnEncoder encoder = DbnEncoder.open(options, file))
        {
            scenario = new DbnScenario(midnight(), encoder);
            scenario.run(1_000);
        }
        final Map<String, Object> summary = readBack(file);
        assertEquals("mbo", metadata(summary).get("schema"), "schema MBO when only MBO records were written");
        assertEquals(Map.of("MBOMsg", (long)scenario.mbo.size()), summary.get("counts"));
        assertMbo(scenario.mbo, columns(summary, "MBOMsg"));
    }

    @Test
    void timeRangeKeepsOnlyRecordsInsideIt() throws Exception
    {
        final Path all = tempDir.resolve("all.dbn");
        final DbnScenario full;
        try (DbnEncoder encoder = DbnEncoder.open(new DbnOptions().sessionDate(SESSION_DATE), all))
        {
            full = new DbnScenario(midnight(), encoder);
            full.run(2_000);
        }
        final long start = full.mbo.get(full.mbo.size() / 3).tsEvent;
        final long end = full.mbo.get(2 * full.mbo.size() / 3).tsEvent;

        final Path part = tempDir.resolve("part.dbn");
        try (DbnEncoder encoder = DbnEncoder.open(new DbnOptions().sessionDate(SESSION_DATE).timeRange(start, end), part))
        {
            new DbnScenario(midnight(), encoder).run(2_000);
        }
        final List<DbnScenario.Mbo> expected = new ArrayList<>();
        for (final DbnScenario.Mbo m : full.mbo)
        {
            if (m.tsEvent >= start && m.tsEvent < end)
            {
                expected.add(m);
            }
        }
        final Map<String, Object> summary = readBack(part);
        assertEquals(start, metadata(summary).get("start"));
        assertEquals(end, metadata(summary).get("end"));
        assertMbo(expected, columns(summary, "MBOMsg"));
    }

    @Test
    void comparisonCatchesACorruptedPrice() throws Exception
    {
        final Path file = tempDir.resolve("corrupt.dbn");
        final DbnScenario scenario;
        try (DbnEncoder encoder = DbnEncoder.open(new DbnOptions().sessionDate(SESSION_DATE), file))
        {
            scenario = new DbnScenario(midnight(), encoder);
            scenario.run(500);
        }
        final Map<String, Object> columns = columns(readBack(file), "MBOMsg");
        assertMbo(scenario.mbo, columns);

        scenario.mbo.get(scenario.mbo.size() / 2).price += 1;
        final AssertionFailedError error = assertThrows(AssertionFailedError.class, () -> assertMbo(scenario.mbo, columns));
        assertTrue(error.getMessage().contains("price"), error.getMessage());
    }

    @Test
    void convertsPricesAndTimes()
    {
        assertEquals(1_234_500_000_000L, DbnEncoder.toDbnPrice(12_345_000L));
        assertEquals(Dbn.UNDEF_PRICE, DbnEncoder.toDbnPrice(Long.MIN_VALUE));
        final DbnOptions options = new DbnOptions().sessionDate(SESSION_DATE);
        assertEquals(14, Dbn.lengthWords(Dbn.MBO_SIZE));
        // 2024-03-15 is daylight time: midnight in New York is 04:00 UTC
        assertEquals(1_710_475_200_000_000_000L, midnight());
        assertEquals(LocalDate.of(2024, 3, 15), options.sessionDate());
    }

    // ----- comparisons -----

    private static void assertMetadata(final DbnScenario scenario, final Map<String, Object> summary)
    {
        final Map<String, Object> metadata = metadata(summary);
        assertEquals(3L, metadata.get("version"));
        assertEquals("XNAS.ITCH", metadata.get("dataset"));
        assertEquals(null, metadata.get("schema"), "mixed records: no single schema");
        assertEquals("raw_symbol", String.valueOf(metadata.get("stype_in")).toLowerCase());
        assertEquals("instrument_id", String.valueOf(metadata.get("stype_out")).toLowerCase());
        assertEquals(scenario.firstTsEvent, metadata.get("start"));
        assertEquals(scenario.lastTsEvent + 1, metadata.get("end"));
        assertEquals(List.of("AAPL", "MSFT", "QQQ", "TSLA", "ZVZZT"), metadata.get("symbols"));
        @SuppressWarnings("unchecked")
        final Map<String, Object> mappings = (Map<String, Object>)metadata.get("mappings");
        for (int id = 1; id <= DbnScenario.INSTRUMENTS; id++)
        {
            assertEquals(List.of(List.of("2024-03-15", "2024-03-16", Integer.toString(id))),
                mappings.get(DbnScenario.SYMBOLS[id]), DbnScenario.SYMBOLS[id]);
        }
    }

    private static void assertRecords(final DbnScenario scenario, final Map<String, Object> summary)
    {
        final Map<String, Object> counts = cast(summary.get("counts"));
        assertEquals((long)scenario.mbo.size(), counts.get("MBOMsg"), "MBO records");
        assertEquals((long)scenario.status.size(), counts.get("StatusMsg"), "status records");
        assertEquals((long)scenario.definitions.size(), counts.get("InstrumentDefMsg"), "definition records");
        assertEquals((long)scenario.imbalance.size(), counts.get("ImbalanceMsg"), "imbalance records");
        assertEquals(scenario.mbo.size() + scenario.status.size() + scenario.definitions.size() + scenario.imbalance.size(),
            ((Long)summary.get("records")).intValue(), "every record is of a known type");

        assertMbo(scenario.mbo, columns(summary, "MBOMsg"));

        final Map<String, Object> status = columns(summary, "StatusMsg");
        for (int i = 0; i < scenario.status.size(); i++)
        {
            final long[] s = scenario.status.get(i);
            assertArrayEquals(s, new long[]{at(status, "instrument_id", i), at(status, "action", i), at(status, "reason", i)},
                "status record " + i);
        }

        final Map<String, Object> definitions = columns(summary, "InstrumentDefMsg");
        for (int i = 0; i < scenario.definitions.size(); i++)
        {
            final long id = scenario.definitions.get(i);
            assertEquals(id, at(definitions, "instrument_id", i));
            assertEquals(id, at(definitions, "raw_instrument_id", i));
            assertEquals(DbnScenario.SYMBOLS[(int)id], column(definitions, "raw_symbol").get(i));
            assertEquals("K", column(definitions, "instrument_class").get(i));
            assertEquals(100L, at(definitions, "min_lot_size_round_lot", i));
            assertEquals("XNAS", column(definitions, "exchange").get(i));
        }

        final Map<String, Object> imbalance = columns(summary, "ImbalanceMsg");
        for (int i = 0; i < scenario.imbalance.size(); i++)
        {
            final long[] m = scenario.imbalance.get(i);
            assertEquals(m[0], at(imbalance, "instrument_id", i));
            assertEquals(m[1], at(imbalance, "ref_price", i));
            assertEquals(1_000L, at(imbalance, "paired_qty", i));
            assertEquals("B", column(imbalance, "side").get(i));
        }
    }

    static void assertMbo(final List<DbnScenario.Mbo> expected, final Map<String, Object> columns)
    {
        assertEquals(expected.size(), column(columns, "order_id").size(), "MBO record count");
        for (int i = 0; i < expected.size(); i++)
        {
            final DbnScenario.Mbo m = expected.get(i);
            final String where = "MBO record " + i + " ";
            assertEquals(m.tsEvent, at(columns, "ts_event", i), where + "ts_event");
            assertEquals(m.tsRecv, at(columns, "ts_recv", i), where + "ts_recv");
            assertEquals(m.instrumentId, at(columns, "instrument_id", i), where + "instrument_id");
            assertEquals(m.action, column(columns, "action").get(i), where + "action");
            assertEquals(m.side, column(columns, "side").get(i), where + "side");
            assertEquals(m.price, at(columns, "price", i), where + "price");
            assertEquals(m.size, at(columns, "size", i), where + "size");
            assertEquals(m.orderId, at(columns, "order_id", i), where + "order_id");
            assertEquals(m.flags, at(columns, "flags", i), where + "flags");
            assertEquals(m.channel, at(columns, "channel_id", i), where + "channel_id");
            assertEquals(m.sequence, at(columns, "sequence", i), where + "sequence");
            assertEquals(Dbn.PUBLISHER_XNAS_ITCH, at(columns, "publisher_id", i), where + "publisher_id");
            assertEquals(0L, at(columns, "ts_in_delta", i), where + "ts_in_delta");
        }
    }

    // ----- the reader -----

    private Map<String, Object> readBack(final Path file) throws IOException, InterruptedException
    {
        return DbnReadBack.read(file, tempDir);
    }

    private static long midnight()
    {
        return SESSION_DATE.atStartOfDay(DbnOptions.DEFAULT_ZONE).toEpochSecond() * 1_000_000_000L;
    }

    private static Map<String, Object> metadata(final Map<String, Object> summary)
    {
        return DbnReadBack.metadata(summary);
    }

    private static Map<String, Object> columns(final Map<String, Object> summary, final String type)
    {
        return DbnReadBack.columns(summary, type);
    }

    private static List<Object> column(final Map<String, Object> columns, final String name)
    {
        return DbnReadBack.column(columns, name);
    }

    private static long at(final Map<String, Object> columns, final String name, final int index)
    {
        return DbnReadBack.at(columns, name, index);
    }

    private static Map<String, Object> cast(final Object value)
    {
        return DbnReadBack.cast(value);
    }
}
