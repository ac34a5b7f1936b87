package io.mdfanout.feed.handler;

import io.mdfanout.wire.ExitCodes;
import io.mdfanout.wire.RoleErrorLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Wrong configuration is a one-line error and exit code 3 (ExitCodes.CONFIG), never a stack trace or a started feed. */
class FeedHandlerCommandTest
{
    @TempDir
    Path dir;

    private int run(final String... args)
    {
        return new CommandLine(new FeedHandlerCommand()).execute(args);
    }

    @Test
    void wrongConfigurationExitsWithTwo()
    {
        final String ringDir = dir.toString();
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", "10.0.0.1"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", "239.255.43.5", "--port", "70000"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", "239.255.43.5", "--interface", "10.255.255.254"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", "239.255.43.5", "--ring-capacity-bytes", "1000"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", "239.255.43.5", "--partitions", "0"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", "239.255.43.5", "--idle-strategy", "nap"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", "239.255.43.5", "--idle-max-park-us", "0"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", "239.255.43.5", "--idle-max-park-us", "2000000"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", "239.255.43.5", "--session", "ELEVENCHARS"));
    }

    @Test
    void wrongRecoveryConfigurationExitsWithTwo()
    {
        final String ringDir = dir.toString();
        final String g = "239.255.46.7";
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", g, "--group-b", "10.0.0.1", "--port-b", "46007"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", g, "--group-b", "239.255.46.9"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", g, "--port-b", "46009"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", g, "--port", "46007",
            "--group-b", g, "--port-b", "46007"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", g, "--group-b", "239.255.46.9", "--port-b", "46009",
            "--interface-b", "10.255.255.254"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", g, "--retransmit-server", "localhost"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", g, "--retransmit-server", "127.0.0.1:0"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", g, "--retransmit-server", "127.0.0.1:x"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", g, "--gap-wait-ms", "-1"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", g, "--retransmit-timeout-ms", "0"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", g,
            "--recovery-silence-budget-ms", "10", "--retransmit-timeout-ms", "50"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", g, "--max-outstanding-requests", "0"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", g, "--max-requests-per-second", "0"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", g, "--max-held-messages", "0"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", g, "--max-held-messages", "100000000"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", ringDir, "--group", g, "--line-silence-ms", "0"));
    }

    @Test
    void recoveryValidationMessagesAreOneLine()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> new FeedHandlerConfig().retransmitServer("127.0.0.1:70000").validate());
        assertTrue(ex.getMessage().contains("retransmit server port"), ex.getMessage());
        assertFalse(ex.getMessage().contains("\n"));
        new FeedHandlerConfig().groupB("239.255.46.9").portB(46009).retransmitServer("127.0.0.1:46101").validate();
    }

    @Test
    void helpWorks()
    {
        assertEquals(0, run("--help"));
    }

    @Test
    void aFailedStartIsRecordedInTheErrorLogInTheRingDirectory() throws Exception
    {
        try (HangUpServer glimpse = new HangUpServer())
        {
            assertEquals(1, run("--ring-dir", dir.toString(), "--group", "239.255.43.9", "--port", "43009",
                "--glimpse", "127.0.0.1:" + glimpse.port()));
        }

        final Path errorLog = RoleErrorLog.file(dir, "feed-handler");
        assertTrue(Files.isRegularFile(errorLog), errorLog.toString());
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(1, RoleErrorLog.read(errorLog, new PrintStream(out, true)));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("GLIMPSE: cannot load the snapshot"), out.toString());
    }

    @Test
    void configValidationMessages()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> new FeedHandlerConfig().ringCapacity(3000).validate());
        assertTrue(ex.getMessage().contains("power of two"), ex.getMessage());
        new FeedHandlerConfig().validate();
    }
}
