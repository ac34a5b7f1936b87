package io.mdfanout.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The whole chain as users run it: the simulator, the feed handler, the fanout (with its own
 * embedded media driver) and two subscriber processes (each with its own media driver, so each
 * really receives the UDP multicast), all separate JVMs talking over loopback multicast and
 * shared-memory ring buffers.
 * <p>
 * The expected output is derived independently, in this JVM, from the simulator's generator with
 * the same seed ({@link ExpectedStreams}): every normalized message must arrive at each subscriber
 * exactly once, in stream order per partition, byte for byte equal to what the oracle builds from
 * the generated fields, and each subscriber's books must equal a reference book built directly from
 * the generated events.
 */
class EndToEndTest
{
    private static final long MESSAGES = Long.getLong("e2e.messages", 1_000_000L);
    private static final int RATE = Integer.getInteger("e2e.rate", 150_000);
    private static final int PARTITIONS = 4;
    private static final int SYMBOLS = 200;
    private static final long SEED = 20261121L;
    private static final String CHANNEL = "aeron:udp?endpoint=224.0.1.45:45000|interface=127.0.0.1|mtu=8192";
    private static final int SUBSCRIBERS = 2;

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void everyMessageArrivesExactlyOnceInOrderAtTwoSubscriberProcessesWithCorrectBooks(@TempDir final Path dir)
        throws Exception
    {
        try (ChainHarness chain = new ChainHarness(dir, "e2e", PARTITIONS, CHANNEL, 4500))
        {
            chain.feedHandler("--group", "239.255.45.1", "--port", "45100", "--interface", "127.0.0.1");
            chain.fanout();
            final List<ChainProcess> subscribers = chain.recorders(SUBSCRIBERS);

            final ChainProcess simulator = chain.simulator(
                "--group", "239.255.45.1", "--port", "45100", "--interface", "127.0.0.1",
                "--seed", Long.toString(SEED), "--symbols", Integer.toString(SYMBOLS),
                "--messages", Long.toString(MESSAGES), "--rate", Integer.toString(RATE));
            assertEquals(0, simulator.waitFor(10, TimeUnit.MINUTES), "simulator exit code");
            for (final ChainProcess subscriber : subscribers)
            {
                assertEquals(0, subscriber.waitFor(5, TimeUnit.MINUTES),
                    subscriber.name() + " exit code (0 = saw END_OF_MESSAGES on every partition, no gap, nothing malformed)");
            }

            final ExpectedStreams expected = ExpectedStreams.generate(SEED, SYMBOLS, MESSAGES, PARTITIONS);
            for (int i = 1; i <= SUBSCRIBERS; i++)
            {
                final long verified = expected.verifyRecording(chain.recording(i), "subscriber-" + i);
                assertTrue(verified > MESSAGES * 9 / 10, "the normalized feed carries most of the session");
                assertEquals(expected.books(), Files.readString(chain.books(i)),
                    "subscriber-" + i + " books equal the reference book built from the generated session");
            }
            chain.passed();
        }
    }
}
