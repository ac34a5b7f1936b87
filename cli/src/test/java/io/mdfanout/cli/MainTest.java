package io.mdfanout.cli;

import io.mdfanout.wire.BuildInfo;
import io.mdfanout.wire.ExitCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The entry point's promises to every role: one --version, one exit code table, shell completion. */
class MainTest
{
    @TempDir
    Path dir;

    @Test
    void everyRoleReportsItsNameVersionAndRevision()
    {
        final CommandLine commandLine = new CommandLine(new Main());
        assertTrue(commandLine.getSubcommands().size() >= 14, commandLine.getSubcommands().keySet().toString());
        for (final String role : commandLine.getSubcommands().keySet())
        {
            if ("help".equals(role) || "generate-completion".equals(role))
            {
                continue;
            }
            final Run run = run(role, "--version");
            assertEquals(ExitCodes.OK, run.code, role + ": " + run.err);
            assertEquals("mdfanout " + role + " " + BuildInfo.version() + " (git " + BuildInfo.revision() + ")\n",
                run.out, role);
        }
        assertEquals("mdfanout " + BuildInfo.version() + " (git " + BuildInfo.revision() + ")\n", run("--version").out);
    }

    @Test
    void everyRolesHelpListsTheOneExitCodeTable()
    {
        for (final String role : new String[] {"simulator", "feed-handler", "replay", "fanout", "media-driver",
            "tail", "book", "check", "stats", "record", "error-stat"})
        {
            final Run run = run(role, "--help");
            assertEquals(ExitCodes.OK, run.code, role);
            for (final String line : new String[] {ExitCodes.HELP_OK, ExitCodes.HELP_FAILURE, ExitCodes.HELP_USAGE,
                ExitCodes.HELP_DATA_LOSS, ExitCodes.HELP_TIMEOUT})
            {
                final String[] codeAndText = line.split(":", 2);
                assertTrue(run.out.contains("  " + codeAndText[0] + "   " + codeAndText[1]), role + ": " + run.out);
            }
        }
    }

    @Test
    void eachClassOfFailureHasItsCodeOnEveryRole()
    {
        // usage: picocli's own, for an option no role has
        for (final String role : new String[] {"fanout", "feed-handler", "simulator", "tail", "record", "replay"})
        {
            assertEquals(ExitCodes.USAGE, run(role, "--no-such-option").code, role);
        }
        // configuration: a value out of range
        assertEquals(ExitCodes.CONFIG, run("fanout", "--partitions", "0").code);
        assertEquals(ExitCodes.CONFIG, run("feed-handler", "--ring-dir", dir.toString(), "--partitions", "0").code);
        assertEquals(ExitCodes.CONFIG, run("simulator", "--symbols", "0").code);
        assertEquals(ExitCodes.CONFIG, run("tail", "--partitions", "0").code);
        assertEquals(ExitCodes.CONFIG, run("record", "--timeout-s", "-1").code);
        assertEquals(ExitCodes.CONFIG, run("check", "--duration-s", "0").code);
        // configuration: a missing file
        assertEquals(ExitCodes.CONFIG, run("replay", "--file", dir.resolve("missing.itch").toString(),
            "--ring-dir", dir.resolve("rings").toString()).code);
        assertEquals(ExitCodes.CONFIG, run("error-stat", dir.resolve("missing-errors.dat").toString()).code);
    }

    @Test
    void theMediaDriversOldThreadingNameStillWorksAndWarns()
    {
        // --threading meant the driver's threads here and the publishers' threads in the fanout; now --driver-threading
        // is the driver's everywhere. A bad --cpus stops the start before anything is made.
        final Run run = run("media-driver", "--aeron-dir", dir.resolve("aeron").toString(), "--threading", "dedicated",
            "--term-length-bytes", "1000");
        assertEquals(ExitCodes.CONFIG, run.code, run.err);
        assertTrue(run.err.startsWith("media-driver: --threading is deprecated, use --driver-threading\n"), run.err);
        assertEquals(ExitCodes.USAGE, run("fanout", "--driver-threading", "sideways").code);
    }

    @Test
    void completionCoversEveryRole()
    {
        final Run run = run("generate-completion");
        assertEquals(ExitCodes.OK, run.code, run.err);
        assertTrue(run.out.startsWith("#!/usr/bin/env bash"), run.out);
        for (final String role : new String[] {"simulator", "feed-handler", "fanout", "tail", "record", "error-stat"})
        {
            assertTrue(run.out.contains(role), role);
        }
        assertTrue(run.out.contains("--ring-dir"), "options are completed too");
    }

    private static Run run(final String... args)
    {
        final PrintStream out = System.out;
        final PrintStream err = System.err;
        final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        try
        {
            System.setOut(new PrintStream(outBytes, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(errBytes, true, StandardCharsets.UTF_8));
            final int code = Main.execute(args);
            return new Run(code, outBytes.toString(StandardCharsets.UTF_8), errBytes.toString(StandardCharsets.UTF_8));
        }
        finally
        {
            System.setOut(out);
            System.setErr(err);
        }
    }

    private record Run(int code, String out, String err)
    {
    }
}
