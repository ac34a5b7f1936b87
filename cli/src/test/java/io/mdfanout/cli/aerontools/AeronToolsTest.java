package io.mdfanout.cli.aerontools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launcher's side of the image's Aeron tools: which tool a command runs, which directory and arguments it
 * passes on, what it says without a directory. (The tools themselves run against a real driver in the image's
 * smoke test, scripts/image/smoke-test.sh: aeron-all is not on this module's class path, by design.)
 */
class AeronToolsTest
{
    @TempDir
    Path root;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(final String envAeronDir, final String... args)
    {
        return AeronTools.run(args, envAeronDir, List.of(root.toFile()),
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private Path driverDir(final String name) throws IOException
    {
        final Path dir = Files.createDirectories(root.resolve(name));
        Files.write(dir.resolve(AeronTools.CNC_FILE), new byte[64]);
        return dir;
    }

    @Test
    void commandNamesPickTheTool()
    {
        assertSame(AeronTools.Tool.AERON_STAT, AeronTools.Tool.byCommand("/opt/aeron/bin/aeron-stat"));
        assertSame(AeronTools.Tool.ERROR_STAT, AeronTools.Tool.byCommand("aeron-error-stat"));
        assertSame(AeronTools.Tool.LOSS_STAT, AeronTools.Tool.byCommand("/opt/aeron/bin/aeron-loss-stat"));
        assertSame(AeronTools.Tool.BACKLOG_STAT, AeronTools.Tool.byCommand("aeron-backlog-stat"));
        assertNull(AeronTools.Tool.byCommand("aeron-stats"));
        assertEquals("io.aeron.samples.AeronStat", AeronTools.Tool.AERON_STAT.className);
        assertEquals("io.aeron.samples.BacklogStat", AeronTools.Tool.BACKLOG_STAT.className);
    }

    @Test
    void firstArgumentIsTheDirectoryUnlessItIsAToolArgument()
    {
        final AeronTools.Tool stat = AeronTools.Tool.AERON_STAT;
        AeronTools.Invocation invocation = AeronTools.resolve(stat, new String[]{"/dev/shm/aeron-a", "watch=false"}, "/env");
        assertEquals("/dev/shm/aeron-a", invocation.aeronDir());
        assertArrayEquals(new String[]{"watch=false"}, invocation.toolArgs());

        invocation = AeronTools.resolve(stat, new String[]{"watch=false", "type=0"}, "/dev/shm/aeron-env");
        assertEquals("/dev/shm/aeron-env", invocation.aeronDir());
        assertArrayEquals(new String[]{"watch=false", "type=0"}, invocation.toolArgs());

        invocation = AeronTools.resolve(stat, new String[]{"-Dx"}, null);
        assertNull(invocation.aeronDir());
        assertArrayEquals(new String[]{"-Dx"}, invocation.toolArgs());

        assertNull(AeronTools.resolve(stat, new String[0], " ").aeronDir());
    }

    @Test
    void withoutADirectoryItFailsListingTheDriversItFinds() throws IOException
    {
        final Path a = driverDir("aeron-feed-a");
        final Path b = driverDir("mdfanout-fanout-1234");
        Files.createDirectories(root.resolve("aeron-stale"));   // no cnc.dat: no driver

        assertEquals(AeronTools.USAGE, run(null, "/opt/aeron/bin/aeron-stat"));
        final String text = err.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("aeron-stat: no Aeron directory: give it as the first argument or in AERON_DIR"), text);
        assertTrue(text.contains("usage: aeron-stat [AERON_DIR] [name=value...]"), text);
        assertTrue(text.contains("  " + a.toFile().getAbsolutePath() + "\n  " + b.toFile().getAbsolutePath() + "\n"), text);
        assertTrue(!text.contains("aeron-stale"), text);
        assertEquals(List.of(a.toFile().getAbsolutePath(), b.toFile().getAbsolutePath()),
            AeronTools.driverDirectories(List.of(root.toFile(), root.toFile(), new File(root.toFile(), "missing"))));
    }

    @Test
    void aDirectoryWithoutADriverIsRefused() throws IOException
    {
        driverDir("aeron-feed-a");
        assertEquals(AeronTools.FAILED, run(null, "aeron-error-stat", root.resolve("aeron-gone").toString()));
        final String text = err.toString(StandardCharsets.UTF_8);
        assertTrue(text.startsWith("aeron-error-stat: no media driver at " + root.resolve("aeron-gone") + " (no cnc.dat there)"),
            text);
        assertTrue(text.contains("aeron-feed-a"), text);
    }

    @Test
    void noDriversFoundSaysWhereItLooked()
    {
        assertEquals(AeronTools.USAGE, run("", "aeron-loss-stat"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("no media driver directories (with cnc.dat) under " + root),
            err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void helpPrintsUsageAndTheToolsArguments() throws IOException
    {
        driverDir("aeron-feed-a");
        assertEquals(0, run(null, "aeron-stat", "--help"));
        final String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("Aeron's io.aeron.samples.AeronStat:"), text);
        assertTrue(text.contains("watch=false"), text);
        assertTrue(text.contains("aeron-feed-a"), text);
    }

    @Test
    void anUnknownCommandIsAUsageError()
    {
        assertEquals(AeronTools.USAGE, run(null, "aeron-foo"));
        assertEquals(AeronTools.USAGE, run(null));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("usage: aeron-stat|aeron-error-stat|"));
    }

    @Test
    void theToolRunsWithAeronDirSetFromTheEnvironment() throws IOException
    {
        // aeron-all is not on this class path (it never is outside /opt/aeron): the launcher gets as far as
        // looking the tool up, with aeron.dir set, and says what is missing.
        final Path dir = driverDir("aeron-feed-b");
        assertEquals(AeronTools.FAILED, run(dir.toString(), "aeron-backlog-stat"));
        assertEquals(dir.toString(), System.getProperty("aeron.dir"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains(
            "aeron-backlog-stat: io.aeron.samples.BacklogStat is not on the class path (aeron-all.jar missing?)"),
            err.toString(StandardCharsets.UTF_8));
    }
}
