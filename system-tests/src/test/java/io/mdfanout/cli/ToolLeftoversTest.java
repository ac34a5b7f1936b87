package io.mdfanout.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Issue 36: a subscriber tool killed with SIGKILL leaves its embedded media driver's directory (some 50 MiB) in
 * java.io.tmpdir; the next tool started there deletes it. A tool on a channel where nothing publishes says so, and
 * SIGTERM stops it with exit code 0 and its own directory removed.
 */
class ToolLeftoversTest
{
    private static final String CHANNEL = "aeron:udp?endpoint=224.0.1.49:42949|interface=127.0.0.1|mtu=8192";

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void theNextToolReclaimsTheDirectoryOfOneKilledWithSigkill(@TempDir final Path dir) throws Exception
    {
        final Path tmp = Files.createDirectories(dir.resolve("tmp"));
        final List<String> jvmArgs = List.of("-Djava.io.tmpdir=" + tmp);
        final String[] stats = {"stats", "--channel", CHANNEL, "--stream-id-base", "4950", "--partitions", "1"};
        try (ChainProcess first = ChainProcess.start("stats-1", dir, jvmArgs, stats))
        {
            final Path left = awaitDriverDirectory(tmp, first);
            first.kill9();
            assertTrue(Files.isDirectory(left), "SIGKILL left " + left);
            // A tool reclaims a dead tool's directory only once that driver's heartbeat is stale (Aeron's driver
            // timeout, 10 s): a pid that is gone here may be a live tool of another pid namespace sharing the
            // directory. This test once passed only by killing the tool before its driver's first heartbeat; with the
            // roles' JVMs starting faster it did not, so it waits as a tool started after a real crash would.
            final long staleDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (isDriverActive(left))
            {
                assertTrue(System.nanoTime() < staleDeadline, "the dead driver's heartbeat never went stale");
                Thread.sleep(200);
            }

            try (ChainProcess second = ChainProcess.start("stats-2", dir, jvmArgs, stats))
            {
                final Path own = awaitDriverDirectory(tmp, second);
                assertFalse(Files.exists(left), "the next tool deleted " + left);

                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (second.lastLineContaining("stats: no publisher on " + CHANNEL + " stream 4950 after").isEmpty())
                {
                    if (System.nanoTime() > deadline || !second.isAlive())
                    {
                        fail("no 'no publisher' line\n" + second.logTail());
                    }
                    Thread.sleep(100);
                }
                assertTrue(second.lastLineContaining("messages/s=").contains("noPublisher=1"), second.logTail());

                assertEquals(0, second.stop(), "stats stopped on SIGTERM\n" + second.logTail());
                assertFalse(Files.exists(own), "a stopped tool removes its own directory " + own);
            }
        }
    }

    private static boolean isDriverActive(final Path driverDirectory)
    {
        try
        {
            return io.aeron.CommonContext.isDriverActive(driverDirectory.toFile(), 10_000, (message) -> { });
        }
        catch (final RuntimeException ex)
        {
            return false; // a CnC file never initialised: no driver
        }
    }

    /** The tool's embedded driver directory, {@code mdfanout-tools-<pid>-<nanos>}, once its CnC file is there. */
    private static Path awaitDriverDirectory(final Path tmp, final ChainProcess tool)
        throws IOException, InterruptedException
    {
        final String prefix = "mdfanout-tools-" + tool.pid() + "-";
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline)
        {
            try (Stream<Path> entries = Files.list(tmp))
            {
                final Optional<Path> found = entries
                    .filter((path) -> path.getFileName().toString().startsWith(prefix))
                    .filter((path) -> Files.exists(path.resolve("cnc.dat")))
                    .findFirst();
                if (found.isPresent())
                {
                    return found.get();
                }
            }
            if (!tool.isAlive())
            {
                fail(tool.name() + " exited\n" + tool.logTail());
            }
            Thread.sleep(50);
        }
        return fail("no driver directory " + prefix + "* in " + tmp + "\n" + tool.logTail());
    }
}
