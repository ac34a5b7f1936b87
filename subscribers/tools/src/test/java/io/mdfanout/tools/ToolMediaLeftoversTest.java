package io.mdfanout.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A tool's embedded driver directory left by a process that died (kill -9) is deleted by the next tool that starts
 * one; a running process's directory and anything this project did not name are left alone (issue 36).
 */
class ToolMediaLeftoversTest
{
    @Test
    void reclaimsOnlyTheDirectoriesOfDeadTools(@TempDir final Path parent) throws Exception
    {
        final Process exited = new ProcessBuilder("true").start();
        assertTrue(exited.waitFor(10, TimeUnit.SECONDS));
        final Process running = new ProcessBuilder("sleep", "60").start();
        try
        {
            final Path dead = directory(parent, ToolMedia.EMBEDDED_DIR_PREFIX + exited.pid() + "-1");
            final Path alive = directory(parent, ToolMedia.EMBEDDED_DIR_PREFIX + running.pid() + "-2");
            final Path own = directory(parent, ToolMedia.EMBEDDED_DIR_PREFIX + ProcessHandle.current().pid() + "-3");
            final Path notOurs = directory(parent, ToolMedia.EMBEDDED_DIR_PREFIX + "test-4");
            final Path other = directory(parent, "aeron-" + exited.pid());

            final List<File> reclaimed = ToolMedia.reclaimLeftovers(parent.toFile());

            assertEquals(List.of(dead.toFile()), reclaimed);
            assertTrue(Files.notExists(dead));
            for (final Path kept : List.of(alive, own, notOurs, other))
            {
                assertTrue(Files.isDirectory(kept), kept + " kept");
            }
        }
        finally
        {
            running.destroyForcibly();
        }
    }

    @Test
    void ownerPidIsParsedFromTheName()
    {
        assertEquals(1234L, ToolMedia.ownerPid("mdfanout-tools-1234-5678"));
        assertEquals(-1L, ToolMedia.ownerPid("mdfanout-tools-test-5678"));
        assertEquals(-1L, ToolMedia.ownerPid("mdfanout-tools-"));
    }

    private static Path directory(final Path parent, final String name) throws IOException
    {
        final Path dir = Files.createDirectories(parent.resolve(name));
        Files.write(dir.resolve("cnc.dat"), new byte[0]);
        return dir;
    }
}
