package io.mdfanout.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The derived DBN schemas against a second implementation of their rules. A whole simulated session goes through
 * the chain (simulator, feed handler, fanout) into the archive, as in {@link ArchiveTest}; {@code mdfanout export}
 * writes it as mbo and in every derived schema (mbp-1, mbp-10, tbbo, trades, ohlcv-1s, ohlcv-1m);
 * scripts/dbn/recompute.py (Python, databento-dbn) rebuilds books, prints, MBP and bars from the MBO file alone, from
 * the documented rules and with its own code, and compares them record by record with the derived files. Any
 * difference fails the test, the first ones printed; so does a comparison of nothing.
 */
class ExportDerivedTest
{
    private static final long MESSAGES = 200_000L;
    private static final int RATE = 40_000;
    private static final int PARTITIONS = 4;
    private static final int SYMBOLS = 50;
    private static final long SEED = 38001L;
    private static final String CHANNEL = "aeron:udp?endpoint=224.0.1.231:38000|interface=127.0.0.1|mtu=8192";
    private static final String CONTROL = "aeron:udp?endpoint=localhost:38010";
    private static final int STREAM_ID_BASE = 3800;
    private static final Path DBN_PYTHON = Path.of(System.getProperty("user.home"), ".cache", "mdfanout", "dbn-venv",
        "bin", "python");
    private static final Path RECOMPUTE = Path.of("..", "scripts", "dbn", "recompute.py").toAbsolutePath().normalize();
    private static final List<String> DERIVED = List.of("mbp-1", "mbp-10", "tbbo", "trades", "ohlcv-1s", "ohlcv-1m");
    private static final Pattern SUMMARY = Pattern.compile(
        "recompute: mbo=(\\d+) events=(\\d+) prints=(\\d+) unknown-orders=(\\d+) .* differences=(\\d+)");
    private static final Pattern SCHEMA = Pattern.compile(
        "recompute: (\\S+) recomputed=(\\d+) exported=(\\d+) compared=(\\d+) differences=(\\d+)");

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void everyDerivedSchemaOfAWholeSessionEqualsWhatASecondImplementationRecomputesFromItsMbo(@TempDir final Path dir)
        throws Exception
    {
        assertTrue(Files.isExecutable(DBN_PYTHON), "Databento's decoder is installed: `make dbn-tools` (" + DBN_PYTHON + ")");
        try (ChainHarness chain = new ChainHarness(dir, "export-derived", PARTITIONS, CHANNEL, STREAM_ID_BASE))
        {
            chain.feedHandler("--group", "239.255.38.1", "--port", "38100", "--interface", "127.0.0.1");
            chain.fanout();
            final ChainProcess archive = ArchiveTest.archive(chain, dir, "archive", dir.resolve("archive"), CONTROL, 19438);
            final List<ChainProcess> live = chain.recorders(1);
            final ChainProcess simulator = chain.simulator(
                "--group", "239.255.38.1", "--port", "38100", "--interface", "127.0.0.1",
                "--seed", Long.toString(SEED), "--symbols", Integer.toString(SYMBOLS),
                "--messages", Long.toString(MESSAGES), "--rate", Integer.toString(RATE));
            assertEquals(0, simulator.waitFor(10, TimeUnit.MINUTES), "simulator exit code");
            // The live subscriber saw End of Messages on every partition: the archive has the whole session
            assertEquals(0, live.get(0).waitFor(5, TimeUnit.MINUTES), "live subscriber exit code");

            final List<String> command = new ArrayList<>(List.of(DBN_PYTHON.toString(), RECOMPUTE.toString(),
                export(chain, dir, "mbo").toString()));
            for (final String schema : DERIVED)
            {
                command.add(schema + "=" + export(chain, dir, schema));
            }

            final long started = System.nanoTime();
            final Process recompute = new ProcessBuilder(command).redirectErrorStream(true).start();
            final String output = new String(recompute.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(recompute.waitFor(5, TimeUnit.MINUTES), "recompute.py finished: " + output);
            final long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
            System.out.print(output);
            assertEquals(0, recompute.exitValue(), "the recomputed records equal the exported ones:\n" + output);

            final Matcher summary = SUMMARY.matcher(output);
            assertTrue(summary.find(), "the summary line: " + output);
            final long mboRecords = Long.parseLong(summary.group(1));
            final long prints = Long.parseLong(summary.group(3));
            assertEquals(0L, Long.parseLong(summary.group(4)), "every order the MBO file cancels it added: " + output);
            assertEquals(0L, Long.parseLong(summary.group(5)), output);
            assertTrue(mboRecords > MESSAGES / 2, "the MBO file holds the session: " + mboRecords);
            assertTrue(prints > 1_000, "prints: " + prints);
            final Map<String, Long> compared = new LinkedHashMap<>();
            final Matcher schemas = SCHEMA.matcher(output);
            while (schemas.find())
            {
                assertEquals(schemas.group(3), schemas.group(4), "every exported record compared: " + schemas.group());
                assertEquals("0", schemas.group(5), schemas.group());
                compared.put(schemas.group(1), Long.parseLong(schemas.group(4)));
            }
            assertEquals(DERIVED, List.copyOf(compared.keySet()), "each derived schema compared: " + output);
            assertTrue(compared.get("mbp-10") > 10_000 && compared.get("ohlcv-1m") > 1_000,
                "compared something: " + compared);
            for (final long count : compared.values())
            {
                assertTrue(count > 1_000, "each schema compared records: " + compared);
            }
            System.out.println("export-derived: " + MESSAGES + " messages (seed " + SEED + ", " + SYMBOLS + " symbols, " +
                PARTITIONS + " partitions), " + mboRecords + " MBO records, " + prints + " prints: records equal to " +
                "those recompute.py made from the MBO file, per schema " + compared + " (recompute.py: " + seconds + " s)");
            assertEquals(0, archive.stop(), "archive stopped on SIGTERM");
            chain.passed();
        }
    }

    /** One export of the whole session (the newest the archive holds) in a schema. */
    private static Path export(final ChainHarness chain, final Path dir, final String schema) throws Exception
    {
        final Path file = dir.resolve(schema + ".dbn.zst");
        final ChainProcess export = chain.start("export-" + schema, "export", "--channel", CHANNEL,
            "--stream-id-base", Integer.toString(STREAM_ID_BASE), "--partitions", Integer.toString(PARTITIONS),
            "--archive-control-channel", CONTROL, "--schema", schema, "--zstd", "--out", file.toString());
        assertEquals(0, export.waitFor(5, TimeUnit.MINUTES), "export --schema " + schema + ": " + export.logTail());
        final String line = export.lastLineContaining("export: " + file);
        if (line.isEmpty())
        {
            fail("export --schema " + schema + " said nothing of " + file + ": " + export.logTail());
        }
        System.out.println(line);
        return file;
    }
}
