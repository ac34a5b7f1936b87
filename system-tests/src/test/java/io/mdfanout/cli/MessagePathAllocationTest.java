package io.mdfanout.cli;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.mdfanout.fanout.PartitionCounters;
import io.mdfanout.fanout.PartitionPublisher;
import io.mdfanout.feed.handler.FeedHandlerCounters;
import io.mdfanout.feed.handler.InMemoryCounters;
import io.mdfanout.feed.handler.LineArbiter;
import io.mdfanout.feed.normalize.ItchNormalizer;
import io.mdfanout.feed.normalize.NormalizerCounters;
import io.mdfanout.feed.sim.ItchEvent;
import io.mdfanout.feed.sim.MoldUdp64Packetizer;
import io.mdfanout.feed.sim.SessionConfig;
import io.mdfanout.feed.sim.SessionGenerator;
import io.mdfanout.feed.sim.SimulatorCounters;
import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.book.BookCounters;
import io.mdfanout.sdk.book.OrderBooks;
import io.mdfanout.testing.AllocationWindows;
import io.mdfanout.wire.Partitioning;
import io.mdfanout.wire.PreciseEpochNanoClock;
import org.agrona.CloseHelper;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.agrona.concurrent.status.CountersManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The message path from the feed handler's packet processing to the subscriber's books, driven on
 * this one thread with the real classes: MoldUDP64 packets made by the simulator -> sequencing,
 * ITCH decoding and normalization -> partition ring buffers -> partition publishers (batching,
 * packet header, offer) -> Aeron UDP multicast through a real embedded media driver -> the SDK's
 * subscriber (validation, sequencing, decoding) -> order books. After a fixed warm-up (for the
 * JIT), a fixed window of the session must allocate nothing at all on this thread.
 */
class MessagePathAllocationTest
{
    private static final int PARTITIONS = 2;
    private static final int MESSAGES = 600_000;
    private static final int WARM_UP_SESSIONS = 3;
    private static final int MEASURED_WINDOWS = 4;
    private static final String CHANNEL = "aeron:udp?endpoint=224.0.1.47:45200|interface=127.0.0.1|mtu=8192";
    private static final int STREAM_ID_BASE = 4700;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void feedHandlerToRingToFanoutToSubscriberAllocatesNothingInSteadyState(@TempDir final Path dir) throws Exception
    {
        final Packets packets = Packets.generate();

        final MediaDriver.Context driverContext = new MediaDriver.Context()
            .aeronDirectoryName(dir.resolve("aeron").toString())
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new BackoffIdleStrategy())
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .socketRcvbufLength(2 * 1024 * 1024)
            .socketSndbufLength(2 * 1024 * 1024)
            .initialWindowLength(2 * 1024 * 1024);
        try (MediaDriver driver = MediaDriver.launchEmbedded(driverContext);
            Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName())))
        {
            // Warm-up: the whole session, several times, through other chains, so that every path, the
            // end of the trading day included, has run and the JIT has settled (its one-off work, such
            // as deoptimizing and recompiling a method, can allocate on this thread).
            for (int round = 0; round < WARM_UP_SESSIONS; round++)
            {
                try (Chain warmUp = new Chain(aeron, STREAM_ID_BASE + 10 * (round + 1)))
                {
                    warmUp.run(packets, 0, packets.count);
                }
            }

            // Measured: the same session again through a fresh chain. Its start of day (system events
            // and the stock directory, where the subscriber creates each instrument's pre-sized book)
            // runs before the window opens; the rest of the day, its close included, is measured.
            //
            // Up to MEASURED_WINDOWS identical windows, each through a fresh chain; one must allocate
            // nothing (AllocationWindows says why: the JIT's one-off allocations). Every window replays
            // the same session through a new chain, so code that allocates per message, per packet or
            // per session allocates in every window and still fails here.
            final int[] window = { 0 };
            AllocationWindows.assertOneMeasuredWindowAllocatesNothing(
                "on the message path over 95% of a " + MESSAGES + "-message session of " + packets.count +
                " MoldUDP64 packets", MEASURED_WINDOWS,
                () -> measureWindow(aeron, packets, STREAM_ID_BASE + 100 + 10 * window[0]++));
        }
    }

    /** Replay the session through a fresh chain and return what its steady part allocated on this thread. */
    private static long measureWindow(final Aeron aeron, final Packets packets, final int streamIdBase)
    {
        try (Chain measured = new Chain(aeron, streamIdBase))
        {
            final int startOfDayPackets = packets.count / 20;
            measured.run(packets, 0, startOfDayPackets);
            AllocationWindows.allocatedBytes();
            final long before = AllocationWindows.allocatedBytes();
            measured.run(packets, startOfDayPackets, packets.count);
            final long allocated = AllocationWindows.allocatedBytes() - before;

            final long expectedMessages = measured.normalizer.counters().ringRecordsWritten().get();
            assertTrue(expectedMessages > MESSAGES * 9L / 10, "the session was normalized");
            assertEquals(expectedMessages, measured.subscriber.counters().messages(),
                "every normalized message reached the subscriber");
            assertEquals(0, measured.subscriber.counters().gaps());
            assertEquals(0, measured.subscriber.counters().malformed());
            assertTrue(measured.books.book(1) != null, "books were built");
            return allocated;
        }
    }

    /** One feed handler -> rings -> fanout -> subscriber chain on the test thread. */
    private static final class Chain implements AutoCloseable
    {
        final ExclusivePublication[] publications = new ExclusivePublication[PARTITIONS];
        final PartitionPublisher[] publishers = new PartitionPublisher[PARTITIONS];
        final ItchNormalizer normalizer;
        final LineArbiter processor;
        final OrderBooks books;
        final FeedSubscriber subscriber;
        final java.nio.file.Path ringSetDir;
        final io.mdfanout.wire.RingSetHeader ringSet;
        static final long GENERATION = 7;

        Chain(final Aeron aeron, final int streamIdBase)
        {
            try
            {
                ringSetDir = java.nio.file.Files.createTempDirectory("allocation-rings");
            }
            catch (final java.io.IOException ex)
            {
                throw new java.io.UncheckedIOException(ex);
            }
            ringSet = io.mdfanout.wire.RingSetHeader.openForProducer(ringSetDir);
            ringSet.layout(PARTITIONS, 1 << 20);
            ringSet.generation(GENERATION);
            final CountersManager counters = new InMemoryCounters(256).countersManager();
            final RingBuffer[] rings = new RingBuffer[PARTITIONS];
            for (int p = 0; p < PARTITIONS; p++)
            {
                rings[p] = new OneToOneRingBuffer(new UnsafeBuffer(
                    ByteBuffer.allocateDirect((1 << 20) + RingBufferDescriptor.TRAILER_LENGTH)));
                publications[p] = aeron.addExclusivePublication(CHANNEL, Partitioning.streamId(streamIdBase, p));
                publishers[p] = new PartitionPublisher(p, rings[p], publications[p], new PartitionCounters(counters, p),
                    TimeUnit.MILLISECONDS.toNanos(250), 1024, new PreciseEpochNanoClock(), new SystemNanoClock(),
                    Throwable::printStackTrace);
                // As the fanout runs them: each duty cycle checks the ring set's generation.
                publishers[p].followGeneration(ringSet, GENERATION);
                publishers[p].onStart();
            }
            // In production the fanout drains the rings on its own thread; here one thread does both,
            // so while the feed handler waits for ring space it runs the consumers instead of idling.
            normalizer = new ItchNormalizer(
                rings, new DrainWhileRingFull(this), new NormalizerCounters(counters, "feed-handler", PARTITIONS));
            processor = LineArbiter.singleLine(null, normalizer, new FeedHandlerCounters(counters, "feed-handler"),
                new io.mdfanout.feed.handler.ArbitrationCounters(counters, "feed-handler"));
            // Pre-sized as a production subscriber would be: growth is allowed but is not steady state.
            books = new OrderBooks(1 << 20, 256, new BookCounters(counters, "books"));
            subscriber = new FeedSubscriber(new FeedSubscriber.Context()
                .aeron(aeron).channel(CHANNEL).streamIdBase(streamIdBase).partitionCount(PARTITIONS).listener(books));

            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!(subscriber.isConnected() && allConnected(publications)) && System.nanoTime() < deadline)
            {
                drain(publishers, subscriber);
                Thread.onSpinWait();
            }
            // Both ends must see each other: a publication that has not yet had the receiver's status
            // message reports NOT_CONNECTED and the fanout drops the packet, by design.
            assertTrue(subscriber.isConnected() && allConnected(publications), "every partition stream connected");
        }

        /** The feed handler's ring-full wait: publish and receive so that space frees up. */
        private static final class DrainWhileRingFull implements IdleStrategy
        {
            private final Chain chain;

            DrainWhileRingFull(final Chain chain)
            {
                this.chain = chain;
            }

            public void idle(final int workCount)
            {
                idle();
            }

            public void idle()
            {
                drain(chain.publishers, chain.subscriber);
            }

            public void reset()
            {
            }
        }

        private static boolean allConnected(final ExclusivePublication[] publications)
        {
            for (final ExclusivePublication publication : publications)
            {
                if (!publication.isConnected())
                {
                    return false;
                }
            }
            return true;
        }

        /** Feed packets [from, to) through the chain and return once the subscriber has every message. */
        void run(final Packets packets, final int from, final int to)
        {
            for (int i = from; i < to; i++)
            {
                final int offset = packets.offsets[i];
                processor.onDatagram(packets.buffer, offset, packets.offsets[i + 1] - offset);
                drain(publishers, subscriber);
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (subscriber.counters().messages() < normalizer.counters().ringRecordsWritten().get() &&
                System.nanoTime() < deadline)
            {
                drain(publishers, subscriber);
            }
        }

        public void close()
        {
            CloseHelper.quietClose(subscriber);
            for (final ExclusivePublication publication : publications)
            {
                CloseHelper.quietClose(publication);
            }
            for (final PartitionPublisher publisher : publishers)
            {
                assertTrue(null == publisher || !publisher.hasGenerationChanged(), "the generation held");
            }
            ringSet.close();
            org.agrona.IoUtil.delete(ringSetDir.toFile(), true);
        }
    }

    /** Publish what the rings hold and let the subscriber take what has arrived, until nothing moves. */
    private static void drain(final PartitionPublisher[] publishers, final FeedSubscriber subscriber)
    {
        int work;
        do
        {
            work = 0;
            for (final PartitionPublisher publisher : publishers)
            {
                work += publisher.doWork();
            }
            work += subscriber.poll(64);
        }
        while (work > 0);
    }

    /** A simulated session, cut into MoldUDP64 packets before the test so that generating is not measured. */
    private static final class Packets
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(32 << 20);
        int[] offsets = new int[1 << 16];
        int count;

        static Packets generate()
        {
            final Packets packets = new Packets();
            final MoldUdp64Packetizer packetizer = new MoldUdp64Packetizer("ALLOCTEST", 1400,
                TimeUnit.SECONDS.toNanos(1), new SystemNanoClock(),
                (buffer, offset, length) -> packets.add(buffer, offset, length),
                new SimulatorCounters(new InMemoryCounters(64).countersManager()));
            final SessionGenerator generator = new SessionGenerator(7, new SessionConfig().symbols(64).messageCount(MESSAGES));
            final ItchEvent event = new ItchEvent();
            while (generator.next(event))
            {
                packetizer.append(event);
            }
            packetizer.flush();
            return packets;
        }

        private void add(final org.agrona.DirectBuffer packet, final int offset, final int length)
        {
            if (count + 2 > offsets.length)
            {
                offsets = java.util.Arrays.copyOf(offsets, offsets.length * 2);
            }
            final int start = offsets[count];
            buffer.putBytes(start, packet, offset, length);
            offsets[count + 1] = start + length;
            count++;
        }
    }
}
