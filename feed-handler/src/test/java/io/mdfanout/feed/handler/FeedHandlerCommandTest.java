package io.mdfanout.feed.handler;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Wrong configuration is a one-line error and exit code 2, never a stack trace or a started feed. */
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
        assertEquals(2, run("--ring-dir", ringDir, "--group", "10.0.0.1"));
        assertEquals(2, run("--ring-dir", ringDir, "--group", "239.255.43.5", "--port", "70000"));
        assertEquals(2, run("--ring-dir", ringDir, "--group", "239.255.43.5", "--interface", "10.255.255.254"));
        assertEquals(2, run("--ring-dir", ringDir, "--group", "239.255.43.5", "--ring-capacity-bytes", "1000"));
        assertEquals(2, run("--ring-dir", ringDir, "--group", "239.255.43.5", "--partitions", "0"));
        assertEquals(2, run("--ring-dir", ringDir, "--group", "239.255.43.5", "--idle-strategy", "spin"));
        assertEquals(2, run("--ring-dir", ringDir, "--group", "239.255.43.5", "--session", "ELEVENCHARS"));
    }

    @Test
    void helpWorks()
    {
        assertEquals(0, run("--help"));
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
