package io.mdfanout.tools;

import io.mdfanout.wire.ExitCodes;
import io.mdfanout.wire.RoleErrorLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ErrorStatCommandTest
{
    @TempDir
    Path dir;

    @Test
    void printsEachDistinctErrorWithItsCount()
    {
        final RoleErrorLog log = RoleErrorLog.open(dir, "tail", null, new PrintStream(new ByteArrayOutputStream()));
        final IllegalStateException error = new IllegalStateException("listener threw");
        log.onError(error);
        log.onError(error);
        log.close();

        final ErrorStatCommand command = new ErrorStatCommand();
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        command.stdout = new PrintStream(out, true);
        assertEquals(0, new CommandLine(command).execute(log.file().toString()));
        final String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.startsWith("***\n2 observations from "), text);
        assertTrue(text.contains("java.lang.IllegalStateException: listener threw"), text);
        assertTrue(text.endsWith("\n1 distinct errors observed.\n"), text);
    }

    @Test
    void aMissingFileIsOneLineAndExitOne()
    {
        final ErrorStatCommand command = new ErrorStatCommand();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        command.stderr = new PrintStream(err, true);
        final Path missing = dir.resolve("absent-errors.dat");
        assertEquals(ExitCodes.CONFIG, new CommandLine(command).execute(missing.toString()));
        assertEquals("error-stat: " + missing + ": no error log file " + missing + "\n",
            err.toString(StandardCharsets.UTF_8));
    }
}
