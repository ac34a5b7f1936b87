package io.mdfanout.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The whole chain as users run it: the simulator, the feed handler, the fanout (with its own
 * embedded media driver) and two subscriber processes (each with its own media driver, so each
 * really receives the UDP multicast), all separate JVMs talking over loopback multicast and
 * shared-memory ring buffers.
 * <p>
 * The expected output is derived independently, in this JVM, from the simulator's generator with
 * the same seed: every normalized message must arrive at each subscriber exactly once, in stream
 * order per partition, byte for byte equal to what the oracle builds from the generated fields, and
 * each subscriber's books must equal a reference book built directly from the generated events.
 */
class EndToEndTest
{
    private static final long MESSAGES = Long.getLong("e2e.messages", 1_000_000L);
    private static final int RATE = Integer.getInteger("e2e.rate", 150_000);
    private static final int PARTITIONS = 4;
    private static final int SYMBOLS = 200;
    private static final long SEED = 20261121L;
    private static final String FEED_GROUP = "239.255.45.1";
    private static final String FEED_PORT = "45100";
    private static final String CHANNEL = "aeron:udp?endpoint=224.0.1.45:45000|interface=127.0.0.1|mtu=8192";
    private static final String STREAM_ID_BASE = "4500";
    private static final int SUBSCRIBERS = 2;

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void everyMessageArrivesExactlyOnceInOrderAtTwoSubscriberProcessesWithCorrectBooks(@TempDir final Path dir)
        throws Exception
    {
        final Path ringDir = Path.of("/dev/shm", "mdfanout-e2e-" + ProcessHandle.current().pid());
        final List<ChainProcess> processes = new ArrayList<>();
        boolean passed = false;
        try
        {
            processes.add(ChainProcess.start("feed-handler", dir, "feed-handler",
                "--group", FEED_GROUP, "--port", FEED_PORT, "--interface", "127.0.0.1",
                "--ring-dir", ringDir.toString(), "--partitions", Integer.toString(PARTITIONS),
                "--stats-interval-s", "5"));
            processes.add(ChainProcess.start("fanout", dir, "fanout",
                "--ring-dir", ringDir.toString(), "--partitions", Integer.toString(PARTITIONS),
                "--channel", CHANNEL, "--stream-id-base", STREAM_ID_BASE, "--stats-interval-s", "5"));

            final List<ChainProcess> subscribers = new ArrayList<>();
            for (int i = 1; i <= SUBSCRIBERS; i++)
            {
                final ChainProcess subscriber = ChainProcess.start("subscriber-" + i, dir, "record",
                    "--channel", CHANNEL, "--stream-id-base", STREAM_ID_BASE,
                    "--partitions", Integer.toString(PARTITIONS),
                    "--out", dir.resolve("subscriber-" + i + ".bin").toString(),
                    "--books-out", dir.resolve("subscriber-" + i + ".books").toString(),
                    "--ready-file", dir.resolve("subscriber-" + i + ".ready").toString(),
                    "--until-end-of-messages", "--timeout-s", "600");
                subscribers.add(subscriber);
                processes.add(subscriber);
            }

            for (int i = 1; i <= SUBSCRIBERS; i++)
            {
                awaitFile(dir.resolve("subscriber-" + i + ".ready"), processes, 120);
            }

            final ChainProcess simulator = ChainProcess.start("simulator", dir, "simulator",
                "--group", FEED_GROUP, "--port", FEED_PORT, "--interface", "127.0.0.1",
                "--seed", Long.toString(SEED), "--symbols", Integer.toString(SYMBOLS),
                "--messages", Long.toString(MESSAGES), "--rate", Integer.toString(RATE),
                "--stats-interval-s", "5");
            processes.add(simulator);
            assertEquals(0, simulator.waitFor(10, TimeUnit.MINUTES), "simulator exit code");

            for (final ChainProcess subscriber : subscribers)
            {
                assertEquals(0, subscriber.waitFor(5, TimeUnit.MINUTES),
                    subscriber.name() + " exit code (0 = saw END_OF_MESSAGES on every partition, no gap, nothing malformed)");
            }

            final ExpectedStreams expected = ExpectedStreams.generate(SEED, SYMBOLS, MESSAGES, PARTITIONS);
            for (int i = 1; i <= SUBSCRIBERS; i++)
            {
                final long verified = expected.verifyRecording(dir.resolve("subscriber-" + i + ".bin"), "subscriber-" + i);
                assertTrue(verified > MESSAGES * 9 / 10, "the normalized feed carries most of the session");
                assertEquals(expected.books(), Files.readString(dir.resolve("subscriber-" + i + ".books")),
                    "subscriber-" + i + " books equal the reference book built from the generated session");
            }
            passed = true;
        }
        finally
        {
            for (int i = processes.size() - 1; i >= 0; i--)
            {
                final ChainProcess process = processes.get(i);
                if (process.isAlive())
                {
                    process.stop();
                }
            }
            if (!passed)
            {
                processes.forEach(process -> System.err.println(process.logTail()));
            }
            deleteRecursively(ringDir);
        }
    }

    private static void awaitFile(final Path file, final List<ChainProcess> processes, final int timeoutSeconds)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (!Files.exists(file))
        {
            for (final ChainProcess process : processes)
            {
                if (!process.isAlive())
                {
                    fail(process.name() + " exited early");
                }
            }
            if (System.nanoTime() > deadline)
            {
                fail("timed out waiting for " + file);
            }
            Thread.sleep(50);
        }
    }

    private static void deleteRecursively(final Path dir) throws IOException
    {
        if (Files.exists(dir))
        {
            try (Stream<Path> paths = Files.walk(dir))
            {
                paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

}
