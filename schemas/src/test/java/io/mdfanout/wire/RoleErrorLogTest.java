package io.mdfanout.wire;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.errors.ErrorLogReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.MappedByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RoleErrorLogTest
{
    @TempDir
    Path dir;

    @Test
    void anErrorLoggedTwiceAppearsOnceWithCountTwo()
    {
        final List<String> lines = new ArrayList<>();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final Path file = dir.resolve("feed-handler" + RoleErrorLog.FILE_SUFFIX);
        try (RoleErrorLog log = new RoleErrorLog(file, "feed-handler", RoleErrorLog.DEFAULT_LENGTH,
            (ex) -> lines.add("feed-handler: error: " + ex), new PrintStream(err, true), System::currentTimeMillis))
        {
            assertFalse(Files.exists(file), "made on the first error only");
            final IllegalStateException error = new IllegalStateException("ring full");
            log.onError(error);
            log.onError(error);
            log.onError(new IllegalArgumentException("other"));
            assertEquals(3, log.observations());
        }

        // The role's one line per observation, unchanged.
        assertEquals(List.of("feed-handler: error: java.lang.IllegalStateException: ring full",
            "feed-handler: error: java.lang.IllegalStateException: ring full",
            "feed-handler: error: java.lang.IllegalArgumentException: other"), lines);
        // And once, where the file is.
        assertEquals("feed-handler: error log: " + file + " (mdfanout error-stat " + file + ")\n",
            err.toString(StandardCharsets.UTF_8));

        final List<String> errors = new ArrayList<>();
        final List<Integer> counts = new ArrayList<>();
        final MappedByteBuffer buffer = IoUtil.mapExistingFile(file.toFile(), "test");
        try
        {
            assertEquals(2, ErrorLogReader.read(new UnsafeBuffer(buffer), (count, first, last, encoded) ->
            {
                counts.add(count);
                errors.add(encoded);
            }));
        }
        finally
        {
            IoUtil.unmap(buffer);
        }
        assertEquals(List.of(2, 1), counts);
        assertTrue(errors.get(0).startsWith("java.lang.IllegalStateException: ring full"), errors.get(0));
        assertTrue(errors.get(0).contains("at io.mdfanout.wire.RoleErrorLogTest"), "with its stack trace");

        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(2, RoleErrorLog.read(file, new PrintStream(out, true)));
        final String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.startsWith("***\n2 observations from "), text);
        assertTrue(text.endsWith("\n2 distinct errors observed.\n"), text);
    }

    @Test
    void theFileIsReadableAfterTheProcessDied() throws Exception
    {
        final String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        final Process process = new ProcessBuilder(java, "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"),
            Crasher.class.getName(), dir.toString())
            .redirectErrorStream(true)
            .start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(Crasher.EXIT, process.exitValue(), output);

        final Path file = dir.resolve("crasher-" + process.pid() + RoleErrorLog.FILE_SUFFIX);
        assertTrue(output.contains("crasher: error log: " + file), output);
        final List<Integer> counts = new ArrayList<>();
        final List<String> errors = new ArrayList<>();
        final MappedByteBuffer buffer = IoUtil.mapExistingFile(file.toFile(), "test");
        try
        {
            assertEquals(1, ErrorLogReader.read(new UnsafeBuffer(buffer), (count, first, last, encoded) ->
            {
                counts.add(count);
                errors.add(encoded);
            }));
        }
        finally
        {
            IoUtil.unmap(buffer);
        }
        assertEquals(List.of(2), counts);
        assertTrue(errors.get(0).startsWith("java.lang.IllegalStateException: before the crash"), errors.get(0));
    }

    @Test
    void aSecondInstanceWithTheSameNameKeepsTheFirstOnesErrors()
    {
        final Path file = dir.resolve("fanout" + RoleErrorLog.FILE_SUFFIX);
        final PrintStream quiet = new PrintStream(new ByteArrayOutputStream());
        try (RoleErrorLog first = new RoleErrorLog(file, "fanout", 64 * 1024, null, quiet, System::currentTimeMillis))
        {
            first.onError(new IllegalStateException("first"));
        }
        try (RoleErrorLog second = new RoleErrorLog(file, "fanout", 64 * 1024, null, quiet, System::currentTimeMillis))
        {
            second.onError(new IllegalStateException("second"));
        }
        final ByteArrayOutputStream prev = new ByteArrayOutputStream();
        assertEquals(1, RoleErrorLog.read(file.resolveSibling(file.getFileName() + ".prev"), new PrintStream(prev)));
        assertTrue(prev.toString(StandardCharsets.UTF_8).contains("IllegalStateException: first"));
    }

    @Test
    void aFileThatCannotBeMadeLeavesTheOneLine() throws Exception
    {
        final Path notADirectory = Files.createFile(dir.resolve("plain"));
        final List<String> lines = new ArrayList<>();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final RoleErrorLog log = new RoleErrorLog(notADirectory.resolve("x" + RoleErrorLog.FILE_SUFFIX), "replay",
            RoleErrorLog.DEFAULT_LENGTH, (ex) -> lines.add(ex.getMessage()), new PrintStream(err, true),
            System::currentTimeMillis);
        log.onError(new IllegalStateException("a"));
        log.onError(new IllegalStateException("b"));
        assertEquals(List.of("a", "b"), lines);
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("replay: cannot make the error log "));
        assertEquals(1, err.toString(StandardCharsets.UTF_8).split("\n").length, "said once");
    }

    /** Logs one error twice and dies without closing anything, as a crash would. */
    public static final class Crasher
    {
        static final int EXIT = 17;

        public static void main(final String[] args)
        {
            final RoleErrorLog log = RoleErrorLog.open(new File(args[0]).toPath(), "crasher", null);
            final IllegalStateException error = new IllegalStateException("before the crash");
            log.onError(error);
            log.onError(error);
            Runtime.getRuntime().halt(EXIT);
        }
    }
}
