package io.mdfanout.feed.handler;

import io.mdfanout.feed.glimpse.GlimpseClientConfig;
import io.mdfanout.wire.ConfigurationException;
import io.mdfanout.wire.ExitCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The GLIMPSE password from a file (a mounted Kubernetes Secret) or the environment, so that it is not on the
 * command line where ps and the pod spec show it; --glimpse-password still works, alone.
 */
class GlimpsePasswordTest
{
    @TempDir
    Path dir;

    private int run(final String... args)
    {
        return new CommandLine(new FeedHandlerCommand()).execute(args);
    }

    @Test
    void theFileGivesThePasswordUpToItsFirstLineEnd() throws IOException
    {
        final Path file = Files.writeString(dir.resolve("password"), "s3cret\r\n", StandardCharsets.US_ASCII);
        assertEquals("s3cret", GlimpseClientConfig.resolvePassword(null, file, null));
        assertEquals("s3cret", GlimpseClientConfig.resolvePassword(
            null, Files.writeString(dir.resolve("bare"), "s3cret", StandardCharsets.US_ASCII), null));
    }

    @Test
    void eachSourceAloneAndNoneGiveTheirPassword()
    {
        assertEquals("fromargv", GlimpseClientConfig.resolvePassword("fromargv", null, null));
        assertEquals("fromenv", GlimpseClientConfig.resolvePassword(null, null, "fromenv"));
        assertEquals(GlimpseClientConfig.DEFAULT_PASSWORD, GlimpseClientConfig.resolvePassword(null, null, null));
        assertEquals(GlimpseClientConfig.DEFAULT_PASSWORD, GlimpseClientConfig.resolvePassword("", null, ""));
    }

    @Test
    void aMissingFileIsAConfigurationErrorNamingTheFile()
    {
        final Path missing = dir.resolve("no-such-password");
        final ConfigurationException ex = assertThrows(ConfigurationException.class,
            () -> GlimpseClientConfig.resolvePassword(null, missing, null));
        assertTrue(ex.getMessage().contains(missing.toString()), ex.getMessage());
        assertEquals(ExitCodes.CONFIG, ExitCodes.of(ex));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", dir.toString(), "--group", "239.255.43.11", "--port", "43011",
            "--glimpse", "127.0.0.1:26410", "--glimpse-password-file", missing.toString()));
    }

    @Test
    void twoSourcesAreRefused() throws IOException
    {
        final Path file = Files.writeString(dir.resolve("password"), "s3cret\n", StandardCharsets.US_ASCII);
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> GlimpseClientConfig.resolvePassword("fromargv", file, null));
        assertTrue(ex.getMessage().contains("--glimpse-password --glimpse-password-file"), ex.getMessage());
        assertFalse(ex.getMessage().contains("s3cret") || ex.getMessage().contains("fromargv"), ex.getMessage());
        assertThrows(IllegalArgumentException.class, () -> GlimpseClientConfig.resolvePassword(null, file, "fromenv"));
        assertThrows(IllegalArgumentException.class, () -> GlimpseClientConfig.resolvePassword("fromargv", null, "x"));
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", dir.toString(), "--group", "239.255.43.11", "--port", "43011",
            "--glimpse", "127.0.0.1:26410", "--glimpse-password", "fromargv",
            "--glimpse-password-file", file.toString()));
    }

    @Test
    void aPasswordFromTheFileIsValidatedLikeTheArgument() throws IOException
    {
        final Path tooLong = Files.writeString(dir.resolve("long"), "elevenchars\n", StandardCharsets.US_ASCII);
        assertEquals(ExitCodes.CONFIG, run("--ring-dir", dir.toString(), "--group", "239.255.43.11", "--port", "43011",
            "--glimpse", "127.0.0.1:26410", "--glimpse-password-file", tooLong.toString()));
        // A readable, valid file passes the configuration: the start then fails on a GLIMPSE server that hangs up (1).
        final Path good = Files.writeString(dir.resolve("good"), "s3cret\n", StandardCharsets.US_ASCII);
        try (HangUpServer glimpse = new HangUpServer())
        {
            assertEquals(ExitCodes.FAILURE, run("--ring-dir", dir.resolve("rings").toString(), "--group",
                "239.255.43.11", "--port", "43011", "--glimpse", "127.0.0.1:" + glimpse.port(),
                "--glimpse-password-file", good.toString()));
        }
    }
}
