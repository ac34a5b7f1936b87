package io.mdfanout.cli;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.mdfanout.fanout.PartitionCounters;
import io.mdfanout.fanout.PartitionPublisher;
import io.mdfanout.fanout.derived.DerivedCounters;
import io.mdfanout.fanout.derived.DerivedPublisher;
import io.mdfanout.fanout.derived.PartitionDerivation;
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
import io.mdfanout.sbe.BestBidOfferDecoder;
import io.mdfanout.sbe.TradePrintDecoder;
import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.book.BookCounters;
import io.mdfanout.sdk.book.OrderBooks;
import io.mdfanout.testing.AllocationWindows;
import io.mdfanout.wire.FeedStream;
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
 * subscriber (validation, sequencing, decoding) -> order books. Each partition publisher also derives the four
 * derived streams (BBO, MBP-10, trades, bars: a {@link PartitionDerivation} reading each MBO packet back into books and
 * publishing what it derives, without snapshots), and a BBO subscriber and a trades subscriber read theirs on the same
 * thread. After a fixed warm-up (for the JIT), a fixed window of the session must allocate nothing at all on this
 * thread.
 */
class MessagePathAllocationTest
{
    private static final int PARTITIONS = 2;
    private static final int MESSAGES = 600_000;
    private static final int WARM_UP_SESSIONS = 3;
    private static final int MEASURED_WINDOWS = 4;
    private static final String CHANNEL = "aeron:udp?endpoint=224.0.1.47:45200|interface=127.0.0.1|mtu=8192";
    private static final int STREAM_ID_BASE = 4700;
    private static final FeedStream[] DERIVED = {FeedStream.BBO, FeedStream.DEPTH, FeedStream.TRADES, FeedStream.BARS};

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
            // The derived streams: every message the fanout derived for BBO and trades reached their subscribers.
            for (final FeedStream stream : new FeedStream[] {FeedStream.BBO, FeedStream.TRADES})
            {
                final FeedSubscriber derivedSubscriber = measured.derivedSubscriber(stream);
                assertEquals(measured.derivedMessages(stream), derivedSubscriber.counters().messages(),
                    "every " + stream.streamName() + " message derived reached its subscriber");
                assertEquals(0, derivedSubscriber.counters().gaps(), stream.streamName() + " gaps");
                assertEquals(0, derivedSubscriber.counters().malformed(), stream.streamName() + " malformed");
            }
            assertTrue(measured.derivedListener.bestBidOffers > MESSAGES / 20,
                "BBO messages reached the BBO subscriber: " + measured.derivedListener.bestBidOffers);
            assertTrue(measured.derivedListener.tradePrints > MESSAGES / 100,
                "trade prints reached the trades subscriber: " + measured.derivedListener.tradePrints);
            for (final FeedStream stream : DERIVED)
            {
                assertTrue(measured.derivedMessages(stream) > 0, stream.streamName() + " messages were derived");
                assertEquals(0, measured.derivedCounter(stream, DerivedCounters::backPressureDropped),
                    stream.streamName() + " messages dropped under back pressure");
                assertEquals(0, measured.derivedCounter(stream, DerivedCounters::publicationErrors),
                    stream.streamName() + " publication errors");
            }
            return allocated;
        }
    }

    /** One feed handler -> rings -> fanout -> subscriber chain on the test thread. */
    private static final class Chain implements AutoCloseable
    {
        final ExclusivePublication[] publications = new ExclusivePublication[PARTITIONS];
        final PartitionPublisher[] publishers = new PartitionPublisher[PARTITIONS];
        /** [partition][derived stream]: the derived streams' publications and counters. */
        final ExclusivePublication[][] derivedPublications = new ExclusivePublication[PARTITIONS][DERIVED.length];
        final DerivedCounters[][] derivedCounters = new DerivedCounters[PARTITIONS][DERIVED.length];
        final ItchNormalizer normalizer;
        final LineArbiter processor;
        final OrderBooks books;
        final FeedSubscriber subscriber;
        /** A BBO subscriber and a trades subscriber, [0] and [1], on this thread too. */
        final FeedSubscriber[] derivedSubscribers = new FeedSubscriber[2];
        final DerivedListener derivedListener = new DerivedListener();
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
                // As the fanout wires them with --derived-streams bbo,mbp-10,trades,ohlcv (without snapshots).
                final DerivedPublisher[] derivedPublishers = new DerivedPublisher[DERIVED.length];
                for (int i = 0; i < DERIVED.length; i++)
                {
                    derivedPublications[p][i] = aeron.addExclusivePublication(
                        CHANNEL, Partitioning.streamId(DERIVED[i].base(streamIdBase), p));
                    derivedCounters[p][i] = new DerivedCounters(counters, p, DERIVED[i]);
                    derivedPublishers[i] = new DerivedPublisher(p, DERIVED[i], derivedPublications[p][i],
                        derivedCounters[p][i], TimeUnit.MILLISECONDS.toNanos(250), new PreciseEpochNanoClock(),
                        Throwable::printStackTrace);
                }
                publishers[p].derive(new PartitionDerivation(p, derivedPublishers, Throwable::printStackTrace));
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
            derivedSubscribers[0] = new FeedSubscriber(new FeedSubscriber.Context().aeron(aeron).channel(CHANNEL)
                .streamIdBase(streamIdBase).stream(FeedStream.BBO).partitionCount(PARTITIONS).listener(derivedListener));
            derivedSubscribers[1] = new FeedSubscriber(new FeedSubscriber.Context().aeron(aeron).channel(CHANNEL)
                .streamIdBase(streamIdBase).stream(FeedStream.TRADES).partitionCount(PARTITIONS)
                .listener(derivedListener));

            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!(allConnected() && allConnected(publications) && allConnected(derivedPublication(FeedStream.BBO)) &&
                allConnected(derivedPublication(FeedStream.TRADES))) && System.nanoTime() < deadline)
            {
                drain(this);
                Thread.onSpinWait();
            }
            // Both ends must see each other: a publication that has not yet had the receiver's status
            // message reports NOT_CONNECTED and the fanout drops the packet, by design.
            assertTrue(allConnected() && allConnected(publications), "every partition stream connected");
            assertTrue(allConnected(derivedPublication(FeedStream.BBO)) &&
                allConnected(derivedPublication(FeedStream.TRADES)), "every BBO and trades partition stream connected");
        }

        private boolean allConnected()
        {
            return subscriber.isConnected() && derivedSubscribers[0].isConnected() && derivedSubscribers[1].isConnected();
        }

        private ExclusivePublication[] derivedPublication(final FeedStream stream)
        {
            final ExclusivePublication[] streamPublications = new ExclusivePublication[PARTITIONS];
            for (int p = 0; p < PARTITIONS; p++)
            {
                streamPublications[p] = derivedPublications[p][indexOf(stream)];
            }
            return streamPublications;
        }

        FeedSubscriber derivedSubscriber(final FeedStream stream)
        {
            return derivedSubscribers[FeedStream.BBO == stream ? 0 : 1];
        }

        /** Messages the fanout sequenced on a derived stream, over every partition (SystemEvents passed on included). */
        long derivedMessages(final FeedStream stream)
        {
            return derivedCounter(stream, DerivedCounters::messages);
        }

        long derivedCounter(
            final FeedStream stream,
            final java.util.function.Function<DerivedCounters, org.agrona.concurrent.status.AtomicCounter> counter)
        {
            long total = 0;
            for (int p = 0; p < PARTITIONS; p++)
            {
                total += counter.apply(derivedCounters[p][indexOf(stream)]).get();
            }
            return total;
        }

        private static int indexOf(final FeedStream stream)
        {
            for (int i = 0; i < DERIVED.length; i++) // no allocation: run inside the measured window
            {
                if (DERIVED[i] == stream)
                {
                    return i;
                }
            }
            throw new IllegalArgumentException(stream.streamName());
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
                drain(chain);
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
                drain(this);
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while ((subscriber.counters().messages() < normalizer.counters().ringRecordsWritten().get() ||
                derivedSubscribers[0].counters().messages() < derivedMessages(FeedStream.BBO) ||
                derivedSubscribers[1].counters().messages() < derivedMessages(FeedStream.TRADES)) &&
                System.nanoTime() < deadline)
            {
                drain(this);
            }
        }

        public void close()
        {
            CloseHelper.quietClose(subscriber);
            CloseHelper.quietCloseAll(derivedSubscribers);
            for (final ExclusivePublication publication : publications)
            {
                CloseHelper.quietClose(publication);
            }
            for (final ExclusivePublication[] partitionPublications : derivedPublications)
            {
                CloseHelper.quietCloseAll(partitionPublications);
            }
            for (final PartitionPublisher publisher : publishers)
            {
                assertTrue(null == publisher || !publisher.hasGenerationChanged(), "the generation held");
            }
            ringSet.close();
            org.agrona.IoUtil.delete(ringSetDir.toFile(), true);
        }
    }

    /** Publish what the rings hold and let the subscribers take what has arrived, until nothing moves. */
    private static void drain(final Chain chain)
    {
        int work;
        do
        {
            work = 0;
            for (final PartitionPublisher publisher : chain.publishers)
            {
                work += publisher.doWork();
            }
            work += chain.subscriber.poll(64);
            for (final FeedSubscriber derivedSubscriber : chain.derivedSubscribers)
            {
                work += derivedSubscriber.poll(64);
            }
        }
        while (work > 0);
    }

    /** The derived subscribers' application: counts what they deliver. */
    private static final class DerivedListener implements MarketDataListener
    {
        long bestBidOffers;
        long tradePrints;

        public void onBestBidOffer(final MessageContext context, final BestBidOfferDecoder message)
        {
            bestBidOffers++;
        }

        public void onTradePrint(final MessageContext context, final TradePrintDecoder message)
        {
            tradePrints++;
        }
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
