package io.mdfanout.fanout;

import io.aeron.Aeron;
import io.aeron.Subscription;
import io.mdfanout.wire.PartitionRings;
import io.mdfanout.wire.Partitioning;
import io.mdfanout.wire.RingSetHeader;
import org.agrona.CloseHelper;
import org.agrona.IoUtil;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The fanout follows the ring directory's generations (issue 26): rings replaced by the feed handler,
 * or a whole ring directory emptied and made again under it, are noticed, published in new
 * publications from a reset state; options that disagree with the rings are refused naming both values.
 */
final class FanoutGenerationTest
{
    private static final String CHANNEL = "aeron:udp?endpoint=224.0.1.171:41711|interface=127.0.0.1|mtu=8192";
    private static final String SUBSCRIPTION_CHANNEL = "aeron:udp?endpoint=224.0.1.171:41711|interface=127.0.0.1";
    private static final int STREAM_ID_BASE = 7100;
    private static final int CAPACITY = 64 * 1024;

    @TempDir
    Path dir;

    private final List<Throwable> errors = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void tearDown()
    {
        for (int i = closeables.size() - 1; i >= 0; i--)
        {
            CloseHelper.quietClose(closeables.get(i));
        }
    }

    private Path ringDirectory()
    {
        return dir.resolve("rings");
    }

    private FanoutConfig config(final int partitions)
    {
        return new FanoutConfig()
            .ringDirectory(ringDirectory())
            .stateDirectory(dir.resolve("state"))
            .partitionCount(partitions)
            .channel(CHANNEL)
            .streamIdBase(STREAM_ID_BASE)
            .termLength(1024 * 1024)
            .statePretouch(false)
            .maxOrders(1024)
            .heartbeatIntervalNs(TimeUnit.MILLISECONDS.toNanos(50))
            .ringWaitTimeoutNs(TimeUnit.SECONDS.toNanos(5))
            .errorHandler(errors::add);
    }

    /** What a feed handler does for a new generation: ring files first, then the header's generation. */
    private RingBuffer[] generation(final RingSetHeader header, final int partitions, final long generation)
    {
        header.layout(partitions, CAPACITY);
        final RingBuffer[] rings = new RingBuffer[partitions];
        for (int p = 0; p < partitions; p++)
        {
            final PartitionRings.MappedRing ring = PartitionRings.create(ringDirectory(), p, partitions, CAPACITY, generation);
            closeables.add(ring);
            rings[p] = ring.ring();
        }
        header.generation(generation);
        return rings;
    }

    private RingSetHeader header()
    {
        final RingSetHeader header = RingSetHeader.openForProducer(ringDirectory());
        closeables.add(header);
        return header;
    }

    @Test
    void aNewGenerationIsFollowedInNewPublicationsFromAResetState()
    {
        final RingSetHeader header = header();
        final RingBuffer[] first = generation(header, 1, 100);
        final Fanout fanout = new Fanout(config(1));
        closeables.add(fanout);
        final Aeron aeron = TestAeron.connect(fanout.aeronDirectoryName());
        closeables.add(aeron);
        final Subscription subscription =
            aeron.addSubscription(SUBSCRIPTION_CHANNEL, Partitioning.streamId(STREAM_ID_BASE, 0));
        final PacketCollector collector = new PacketCollector();
        final Runnable poll = () -> subscription.poll(collector, 100);
        await(() -> fanout.isConnected(0), poll, "connected");

        final TestMessages messages = new TestMessages();
        for (int id = 1; id <= 50; id++)
        {
            assertTrue(messages.writeAddOrder(first[0], id, 2));
        }
        await(() -> collector.messageCount() == 50, poll, "the first generation's messages");
        final int firstSession = fanout.sessionId(0);
        assertEquals(100, fanout.generation());

        final RingBuffer[] second = generation(header, 1, 200);
        await(() -> 1 == fanout.generationChanges(), poll, "the new generation followed");
        assertEquals(200, fanout.generation());
        assertNotEquals(firstSession, fanout.sessionId(0), "published in a new publication");
        assertEquals(1, fanout.stateCounters(0).stateResets().get(), "from a reset state");

        for (int id = 1; id <= 20; id++)
        {
            assertTrue(messages.writeAddOrder(second[0], 1000 + id, 2));
        }
        await(() -> collector.messageCount() == 70, poll, "the second generation's messages");
        assertTrue(errors.stream().allMatch(e -> e.getMessage().contains("state reset")), errors.toString());
    }

    @Test
    void aRingDirectoryEmptiedAndMadeAgainUnderARunningFanoutIsFollowed()
    {
        final RingSetHeader header = header();
        generation(header, 1, 100);
        final Fanout fanout = new Fanout(config(1));
        closeables.add(fanout);

        // A new pod's feed handler on an emptied /dev/shm: every file is new, the header included.
        for (final AutoCloseable closeable : closeables.subList(0, closeables.size() - 1))
        {
            CloseHelper.quietClose(closeable);
        }
        IoUtil.delete(ringDirectory().toFile(), false);
        final RingSetHeader fresh = RingSetHeader.openForProducer(ringDirectory());
        closeables.add(fresh);
        final RingBuffer[] rings = generation(fresh, 1, 300);
        await(() -> 1 == fanout.generationChanges(), () -> {}, "the new header found and followed");
        assertEquals(300, fanout.generation());
        assertTrue(new TestMessages().writeAddOrder(rings[0], 1, 2));
        await(() -> 1 == fanout.counters(0).recordsRead().get(), () -> {}, "the new rings read");
    }

    @Test
    void aFanoutWhosePartitionsDisagreeWithTheRingsIsRefusedNamingBothValues()
    {
        generation(header(), 4, 100);
        final IllegalArgumentException refused =
            assertThrows(IllegalArgumentException.class, () -> new Fanout(config(2)));
        assertEquals("--partitions 2 disagrees with the rings in " + ringDirectory() + ": they have 4 partitions " +
            "(the feed handler's --partitions); start the fanout with --partitions 4", refused.getMessage());
    }

    @Test
    void aRingFileOfAnotherLayoutIsRefused() throws Exception
    {
        java.nio.file.Files.createDirectories(ringDirectory());
        java.nio.file.Files.write(PartitionRings.ringFile(ringDirectory(), 0), new byte[CAPACITY + 768]);
        final IllegalStateException refused = assertThrows(IllegalStateException.class, () -> new Fanout(config(1)));
        assertTrue(refused.getMessage().contains("has another layout"), refused.getMessage());
    }

    private static void await(final BooleanSupplier condition, final Runnable work, final String what)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean())
        {
            work.run();
            if (System.nanoTime() > deadlineNs)
            {
                fail("timed out waiting for " + what);
            }
            Thread.yield();
        }
    }
}
