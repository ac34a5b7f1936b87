package io.mdfanout.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The {@code media-driver} role as the chart runs it with {@code mediaDriver.standalone}: a driver
 * process of its own, the fanout publishing through it with {@code --aeron-dir}, a subscriber in
 * another process receiving the session, books exact; and on SIGTERM the driver removes its
 * directory.
 */
class StandaloneMediaDriverTest
{
    private static final long SEED = 7L;
    private static final int SYMBOLS = 50;
    private static final long MESSAGES = 60_000;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void theFanoutPublishesThroughAStandaloneDriverProcess(@TempDir final Path dir) throws Exception
    {
        final String channel = "aeron:udp?endpoint=224.0.1.111:47000|interface=127.0.0.1|mtu=8192";
        final Path aeronDir = Path.of("/dev/shm", "mdfanout-test-driver-" + ProcessHandle.current().pid());
        try (ChainHarness chain = new ChainHarness(dir, "driver", 2, channel, 4700))
        {
            final ChainProcess driver = chain.start("media-driver", "media-driver", "--aeron-dir", aeronDir.toString(),
                "--driver-threading", "shared", "--term-length-bytes", "1048576");
            awaitFile(aeronDir.resolve("cnc.dat"), driver);
            chain.feedHandler("--group", "239.255.47.1", "--port", "47100", "--interface", "127.0.0.1");
            final ChainProcess fanout = chain.fanout("--aeron-dir", aeronDir.toString());
            final List<ChainProcess> subscribers = chain.recorders(1);

            final ChainProcess simulator = chain.simulator(
                "--group", "239.255.47.1", "--port", "47100", "--interface", "127.0.0.1",
                "--seed", Long.toString(SEED), "--symbols", Integer.toString(SYMBOLS),
                "--messages", Long.toString(MESSAGES), "--rate", "50000");
            assertEquals(0, simulator.waitFor(2, TimeUnit.MINUTES), "simulator exit code");
            assertEquals(0, subscribers.get(0).waitFor(2, TimeUnit.MINUTES), "subscriber exit code");

            final ExpectedStreams expected = ExpectedStreams.generate(SEED, SYMBOLS, MESSAGES, 2);
            expected.verifyRecording(chain.recording(1), "subscriber-1");
            assertEquals(expected.books(), Files.readString(chain.books(1)), "books through the standalone driver");
            assertTrue(fanout.lastLineContaining("fanout: running").contains("aeronDir=" + aeronDir),
                fanout.lastLineContaining("fanout: running"));

            // SIGTERM: a clean stop, exit code 0 (not the JVM's 143).
            assertEquals(0, fanout.stop(), "fanout stopped on SIGTERM");
            assertEquals(0, driver.stop(), "media-driver stopped on SIGTERM");
            assertTrue(driver.lastLineContaining("media-driver: stopped").length() > 0, driver.logTail());
            assertFalse(Files.exists(aeronDir), "the driver removed its directory");
            chain.passed();
        }
        finally
        {
            if (Files.exists(aeronDir)) // a failed run: do not leave the driver's files in /dev/shm
            {
                try (var paths = Files.walk(aeronDir))
                {
                    paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
                }
            }
        }
    }

    private static void awaitFile(final Path file, final ChainProcess process) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.exists(file))
        {
            if (!process.isAlive() || System.nanoTime() > deadline)
            {
                fail("the media driver did not create " + file + "\n" + process.logTail());
            }
            Thread.sleep(50);
        }
    }
}
