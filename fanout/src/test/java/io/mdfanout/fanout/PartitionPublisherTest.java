package io.mdfanout.fanout;

import io.aeron.ExclusivePublication;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import io.mdfanout.fanout.snapshot.SnapshotCounters;
import io.mdfanout.fanout.snapshot.SnapshotPublisher;
import io.mdfanout.fanout.state.PartitionState;
import io.mdfanout.fanout.state.PartitionStateCounters;
import io.mdfanout.sbe.AddOrderEncoder;
import io.mdfanout.sbe.GapReason;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.PacketHeaderEncoder;
import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventEncoder;
import io.mdfanout.testing.AllocationWindows;
import io.mdfanout.wire.PartitionRings;
import io.mdfanout.wire.PreciseEpochNanoClock;
import io.mdfanout.wire.RingSetHeader;
import org.agrona.CloseHelper;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Drives a {@link PartitionPublisher} on the test thread against a real embedded media driver, so
 * batching, back pressure and allocation are deterministic to observe.
 */
final class PartitionPublisherTest
{
    private static final String MULTICAST = "aeron:udp?endpoint=224.0.1.41:41001|interface=127.0.0.1";
    private static final String MULTICAST_PUBLICATION = MULTICAST + "|mtu=8192|term-length=1m";
    private static final String IPC = "aeron:ipc?term-length=64k";
    private static final String IPC_LARGE_TERM = "aeron:ipc?term-length=1m";
    private static final int STREAM_ID = 2001;
    private static final int PARTITION = 3;
    private static final long INSTRUMENT = 7;
    private static final long NO_HEARTBEAT_NS = TimeUnit.SECONDS.toNanos(1000);

    @TempDir
    Path ringDirectory;

    private final List<Throwable> errors = new ArrayList<>();
    private final TestMessages messages = new TestMessages();
    private final CountersManager countersManager = TestCounters.newManager();
    private final PacketCollector collector = new PacketCollector();
    private TestAeron testAeron;
    private PartitionRings.MappedRing mappedRing;
    private RingBuffer ring;
    private ExclusivePublication publication;
    private Subscription subscription;
    private PartitionPublisher publisher;

    @BeforeEach
    void setUp()
    {
        testAeron = new TestAeron();
    }

    @AfterEach
    void tearDown()
    {
        CloseHelper.closeAll(subscription, publication, testAeron, mappedRing);
        assertEquals(List.of(), errors);
    }

    private void start(final String publicationChannel, final String subscriptionChannel, final int ringCapacity,
        final long heartbeatIntervalNs)
    {
        mappedRing = PartitionRings.create(ringDirectory, PARTITION, ringCapacity);
        ring = mappedRing.ring();
        publication = testAeron.aeron.addExclusivePublication(publicationChannel, STREAM_ID);
        if (null != subscriptionChannel)
        {
            subscription = testAeron.aeron.addSubscription(subscriptionChannel, STREAM_ID);
            awaitCondition(() -> publication.isConnected() && subscription.isConnected(), "connection");
        }
        publisher = new PartitionPublisher(PARTITION, ring, publication, new PartitionCounters(countersManager, PARTITION),
            heartbeatIntervalNs, 1024, new PreciseEpochNanoClock(), SystemNanoClock.INSTANCE, errors::add);
        publisher.onStart();
    }

    private void awaitCondition(final BooleanSupplier condition, final String what)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean())
        {
            if (null != publisher)
            {
                publisher.doWork();
            }
            if (null != subscription)
            {
                subscription.poll(collector, 100);
            }
            if (System.nanoTime() > deadlineNs)
            {
                fail("timed out waiting for " + what);
            }
            Thread.yield();
        }
    }

    private void assertReceivedInOrder(final long firstId, final long lastId, final long firstSequence)
    {
        assertEquals(List.of(), collector.errors);
        final List<byte[]> received = collector.messages();
        assertEquals(lastId - firstId + 1, received.size());
        for (long id = firstId; id <= lastId; id++)
        {
            assertArrayEquals(messages.addOrderBytes(id, INSTRUMENT), received.get((int)(id - firstId)), "message " + id);
        }
        long expectedSequence = firstSequence;
        for (final PacketCollector.Packet packet : collector.packets)
        {
            assertEquals(expectedSequence, packet.streamSequence());
            assertEquals(PARTITION, packet.partitionId());
            assertTrue(packet.length() <= publication.maxPayloadLength());
            expectedSequence += packet.messages().size();
        }
    }

    @Test
    void packsQueuedMessagesIntoFullPacketsOverMulticast()
    {
        start(MULTICAST_PUBLICATION, MULTICAST, 1024 * 1024, NO_HEARTBEAT_NS);
        final int count = 1000;
        for (int id = 1; id <= count; id++)
        {
            assertTrue(messages.writeAddOrder(ring, id, INSTRUMENT));
        }

        final long beforeNs = System.currentTimeMillis() * 1_000_000L;
        awaitCondition(() -> collector.messageCount() == count, "all messages");
        final long afterNs = (System.currentTimeMillis() + 1) * 1_000_000L;

        assertReceivedInOrder(1, count, 1);
        final int perFullPacket = (publication.maxPayloadLength() - PartitionPublisher.PACKET_HEADER_LENGTH) /
            TestMessages.ADD_ORDER_LENGTH;
        assertEquals(perFullPacket, collector.packets.get(0).messages().size(), "first packet is full");
        assertEquals((count + perFullPacket - 1) / perFullPacket, collector.packets.size());
        for (final PacketCollector.Packet packet : collector.packets)
        {
            assertTrue(packet.sendingTime() >= beforeNs - TimeUnit.SECONDS.toNanos(1) && packet.sendingTime() <= afterNs,
                "sending time is epoch nanos");
        }

        final PartitionCounters counters = publisher.counters();
        assertEquals(count, counters.recordsRead().get());
        assertEquals(count, counters.messagesPublished().get());
        assertEquals(collector.packets.size(), counters.packetsPublished().get());
        assertEquals(perFullPacket, counters.maxMessagesPerPacket().get());
        assertEquals(count + 1, counters.nextStreamSequence().get());
        assertEquals(0, counters.invalidRecords().get());
    }

    @Test
    void sendsASingleMessageAloneWithoutWaitingForMore()
    {
        start(MULTICAST_PUBLICATION, MULTICAST, 64 * 1024, NO_HEARTBEAT_NS);
        for (int id = 1; id <= 3; id++)
        {
            assertTrue(messages.writeAddOrder(ring, id, INSTRUMENT));
            final int expected = id;
            awaitCondition(() -> collector.messageCount() == expected, "message " + id);
            assertEquals(id, collector.packets.size(), "one packet per message");
            assertEquals(0, ring.size(), "ring drained");
        }
        assertReceivedInOrder(1, 3, 1);
        assertEquals(1, publisher.counters().maxMessagesPerPacket().get());
    }

    @Test
    void sendsHeartbeatsWhenIdleCarryingTheNextSequence()
    {
        start(MULTICAST_PUBLICATION, MULTICAST, 64 * 1024, TimeUnit.MILLISECONDS.toNanos(20));
        awaitCondition(() -> !collector.heartbeats.isEmpty(), "first heartbeat");
        final PacketCollector.Heartbeat first = collector.heartbeats.get(0);
        assertEquals(1, first.nextStreamSequence());
        assertEquals(PARTITION, first.partitionId());
        assertEquals(PartitionPublisher.HEARTBEAT_LENGTH, first.length(), "heartbeat travels alone");

        for (int id = 1; id <= 3; id++)
        {
            assertTrue(messages.writeAddOrder(ring, id, INSTRUMENT));
        }
        awaitCondition(() -> collector.messageCount() == 3, "messages");
        final int heartbeatsBefore = collector.heartbeats.size();
        awaitCondition(() -> collector.heartbeats.size() > heartbeatsBefore, "heartbeat after messages");
        assertEquals(4, collector.heartbeats.get(collector.heartbeats.size() - 1).nextStreamSequence());
        assertReceivedInOrder(1, 3, 1);
        assertEquals(collector.heartbeats.size(), publisher.counters().heartbeats().get());
    }

    /**
     * Issue 26: an idle ring looks the same whether the market is quiet or the feed handler is dead, so every
     * heartbeat says how the source is, and a change of it goes out at once, not an interval later.
     */
    @Test
    void heartbeatsCarryTheSourceStatusAndEveryChangeGoesOutAtOnce()
    {
        start(MULTICAST_PUBLICATION, MULTICAST, 64 * 1024, NO_HEARTBEAT_NS);
        final Path setDirectory = ringDirectory.resolve("set");
        try (RingSetHeader producer = RingSetHeader.openForProducer(setDirectory);
            RingSetHeader consumer = RingSetHeader.openExisting(setDirectory))
        {
            final CachedEpochClock clock = new CachedEpochClock();
            clock.update(1_700_000_000_000L);
            final long exchangeTime = 34_200_000_000_000L;
            producer.heartbeat(clock.time(), exchangeTime, RingSetHeader.SOURCE_LIVE);
            publisher.monitorSource(new SourceMonitor(consumer, clock, 500, null));

            awaitCondition(() -> collector.heartbeats.size() == 1, "the source's status announced at once");
            final PacketCollector.Heartbeat live = collector.heartbeats.get(0);
            assertEquals(SourceStatus.LIVE, live.sourceStatus());
            assertEquals(0, live.sourceHeartbeatAgeMs());
            assertEquals(exchangeTime, live.lastExchangeTimestamp());
            assertEquals(1, live.nextStreamSequence());
            assertEquals(PartitionPublisher.HEARTBEAT_LENGTH, live.length());

            for (int id = 1; id <= 3; id++)
            {
                assertTrue(messages.writeAddOrder(ring, id, INSTRUMENT));
            }
            awaitCondition(() -> collector.messageCount() == 3, "messages");
            assertEquals(1, collector.heartbeats.size(), "no change, no heartbeat: the interval is 1000 s");

            clock.advance(501); // the feed handler stopped heartbeating
            awaitCondition(() -> collector.heartbeats.size() == 2, "the source announced down at once");
            final PacketCollector.Heartbeat down = collector.heartbeats.get(1);
            assertEquals(SourceStatus.FEED_HANDLER_DOWN, down.sourceStatus());
            assertEquals(501, down.sourceHeartbeatAgeMs());
            assertEquals(4, down.nextStreamSequence());

            producer.heartbeat(clock.time(), exchangeTime + 1, RingSetHeader.SOURCE_LIVE);
            awaitCondition(() -> collector.heartbeats.size() == 3, "the source announced live again at once");
            assertEquals(SourceStatus.LIVE, collector.heartbeats.get(2).sourceStatus());
            assertEquals(exchangeTime + 1, collector.heartbeats.get(2).lastExchangeTimestamp());

            final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
            while (System.nanoTime() < deadlineNs)
            {
                publisher.doWork();
                subscription.poll(collector, 100);
            }
            assertEquals(3, collector.heartbeats.size(), "nothing more while nothing changes");
            assertReceivedInOrder(1, 3, 1);
        }
    }

    @Test
    void heartbeatsWithoutAMonitorSayTheSourceIsUnknown()
    {
        start(MULTICAST_PUBLICATION, MULTICAST, 64 * 1024, TimeUnit.MILLISECONDS.toNanos(20));
        awaitCondition(() -> !collector.heartbeats.isEmpty(), "first heartbeat");
        assertEquals(SourceStatus.UNKNOWN, collector.heartbeats.get(0).sourceStatus());
        assertEquals(io.mdfanout.sbe.HeartbeatDecoder.sourceHeartbeatAgeNullValue(),
            collector.heartbeats.get(0).sourceHeartbeatAgeMs());
    }

    @Test
    void countsMessagesDroppedWhileNobodyIsConnectedAndStillAdvancesTheSequence()
    {
        start(MULTICAST_PUBLICATION, null, 64 * 1024, NO_HEARTBEAT_NS);
        for (int id = 1; id <= 5; id++)
        {
            assertTrue(messages.writeAddOrder(ring, id, INSTRUMENT));
        }
        publisher.doWork();

        final PartitionCounters counters = publisher.counters();
        assertEquals(5, counters.notConnectedDropped().get());
        assertEquals(0, counters.messagesPublished().get());
        assertEquals(6, publisher.nextStreamSequence());
        assertEquals(0, ring.size(), "not buffered for nobody");

        subscription = testAeron.aeron.addSubscription(MULTICAST, STREAM_ID);
        awaitCondition(() -> publication.isConnected() && subscription.isConnected(), "late joiner");
        assertTrue(messages.writeAddOrder(ring, 6, INSTRUMENT));
        awaitCondition(() -> collector.messageCount() == 1, "message after join");
        assertEquals(6, collector.packets.get(0).streamSequence(), "joiner sees where it joined");
        assertArrayEquals(messages.addOrderBytes(6, INSTRUMENT), collector.packets.get(0).messages().get(0));
    }

    @Test
    void countsAndSkipsInvalidRecordsAndDeliversTheValidOnesAroundThem()
    {
        start(MULTICAST_PUBLICATION, MULTICAST, 64 * 1024, NO_HEARTBEAT_NS);
        final UnsafeBuffer buffer = messages.buffer;

        assertTrue(messages.writeAddOrder(ring, 1, INSTRUMENT));
        int length = messages.addOrder(2, INSTRUMENT);
        assertTrue(ring.write(99, buffer, 0, length), "unknown type id");
        assertTrue(ring.write(PacketHeaderEncoder.TEMPLATE_ID, buffer, 0, length), "transport template");
        assertTrue(ring.write(SystemEventEncoder.TEMPLATE_ID, buffer, 0, length), "type id disagrees with header");
        assertTrue(ring.write(AddOrderEncoder.TEMPLATE_ID, buffer, 0, length + 4), "length disagrees with header");
        assertTrue(ring.write(AddOrderEncoder.TEMPLATE_ID, buffer, 0, 4), "shorter than a header");
        buffer.putShort(4, (short)999, java.nio.ByteOrder.LITTLE_ENDIAN); // schema id
        assertTrue(ring.write(AddOrderEncoder.TEMPLATE_ID, buffer, 0, length), "foreign schema");
        length = messages.addOrder(2, INSTRUMENT);
        buffer.putShort(0, (short)(AddOrderEncoder.BLOCK_LENGTH - 4), java.nio.ByteOrder.LITTLE_ENDIAN);
        assertTrue(ring.write(AddOrderEncoder.TEMPLATE_ID, buffer, 0, length - 4), "block shorter than the schema's");
        assertTrue(messages.writeAddOrder(ring, 2, INSTRUMENT));

        awaitCondition(() -> collector.messageCount() == 2, "valid messages");
        publisher.doWork();
        assertReceivedInOrder(1, 2, 1);
        assertEquals(7, publisher.counters().invalidRecords().get());
        assertEquals(9, publisher.counters().recordsRead().get());
        assertEquals(2, publisher.counters().messagesPublished().get());
        assertEquals(MessageHeaderEncoder.ENCODED_LENGTH + AddOrderEncoder.BLOCK_LENGTH, TestMessages.ADD_ORDER_LENGTH);
    }

    @Test
    void holdsThePacketUnderBackPressureSoTheRingFillsAndLosesNothing()
    {
        final int ringCapacity = 64 * 1024;
        start(IPC, IPC, ringCapacity, NO_HEARTBEAT_NS);
        final PartitionCounters counters = publisher.counters();
        final int total = 5000;

        // Phase 1: the subscriber does not poll; write as fast as the ring takes it.
        long nextId = 1;
        boolean ringFull = false;
        for (int i = 0; i < 1_000_000 && !(ringFull && publisher.hasPendingPacket()); i++)
        {
            if (messages.writeAddOrder(ring, nextId, INSTRUMENT))
            {
                nextId++;
                ringFull = false;
            }
            else
            {
                ringFull = true;
            }
            publisher.doWork();
        }
        assertTrue(publisher.hasPendingPacket(), "a packet is held for retry");
        assertTrue(counters.backPressureEvents().get() >= 1, "back pressure counted");
        assertFalse(messages.writeAddOrder(ring, nextId, INSTRUMENT), "the bounded ring is full");
        assertTrue(ring.size() > ringCapacity - 256, "the ring, not another buffer, holds the backlog");

        final long readWhileBlocked = counters.recordsRead().get();
        for (int i = 0; i < 1000; i++)
        {
            publisher.doWork();
        }
        assertEquals(readWhileBlocked, counters.recordsRead().get(), "nothing read from the ring while back pressured");
        assertTrue(publisher.hasPendingPacket());
        assertTrue(nextId < total, "test needs more messages than the ring and the window hold");

        // Phase 2: the subscriber polls again; the rest of the messages follow.
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (collector.messageCount() < total)
        {
            if (nextId <= total && messages.writeAddOrder(ring, nextId, INSTRUMENT))
            {
                nextId++;
            }
            publisher.doWork();
            subscription.poll(collector, 100);
            assertTrue(System.nanoTime() < deadlineNs, "timed out draining");
        }
        assertReceivedInOrder(1, total, 1);
        assertEquals(0, counters.notConnectedDropped().get());
        assertEquals(total, counters.messagesPublished().get());
    }

    /**
     * Issue 37: the identity both sides of a pair share is the exchange's. Every packet says where the partition's
     * chain of exchange sequences stood before its first message, every heartbeat where it stands after the last packet:
     * the session's first message starts it from 0, a gap notice moves it to the gap's end, and an exchange snapshot's
     * messages (exchange sequence 0) leave it where it is.
     */
    @Test
    void packetsAndHeartbeatsCarryThePartitionsChainOfExchangeSequences()
    {
        start(MULTICAST_PUBLICATION, MULTICAST, 64 * 1024, TimeUnit.MILLISECONDS.toNanos(20));
        publisher.describeFeed(4);
        awaitCondition(() -> !collector.heartbeats.isEmpty(), "first heartbeat");
        assertEquals(0, publisher.counters().chainPosition().get(), "no chain known yet");
        final PacketCollector.Heartbeat first = collector.heartbeats.get(0);
        assertEquals(PartitionPublisher.UNKNOWN_CHAIN, first.lastExchangeSequence(), "nothing sent yet");
        assertEquals(4, first.partitionCount());
        assertEquals("", first.exchangeSession().trim(), "no ring set header: no session to tell");

        final StateMessages feed = new StateMessages();
        write(feed.nextExchangeSequence(1).systemEvent(SystemEventCode.START_OF_MESSAGES)); // the session's first
        write(feed.nextExchangeSequence(5).addOrder(INSTRUMENT, 1, true, 100, 10)); // 2..4 went to other partitions
        awaitCondition(() -> collector.messageCount() == 2, "the session's start");
        assertEquals(1, collector.packets.size());
        assertEquals(0, collector.packets.get(0).previousExchangeSequence(), "nothing before the session's first");
        assertEquals(5, publisher.chainPosition());

        write(feed.nextExchangeSequence(9).addOrder(INSTRUMENT, 2, true, 100, 10));
        awaitCondition(() -> collector.messageCount() == 3, "a message");
        assertEquals(5, collector.packets.get(1).previousExchangeSequence(), "6..8 were other partitions'");

        write(feed.gapNotice(10, 30, GapReason.UNRECOVERED));
        write(feed.nextExchangeSequence(31).addOrder(INSTRUMENT, 3, true, 100, 10));
        awaitCondition(() -> collector.messageCount() == 5, "a gap notice and a message");
        assertEquals(9, collector.packets.get(2).previousExchangeSequence());
        assertEquals(31, publisher.chainPosition(), "past the gap's end");

        write(feed.addOrder(INSTRUMENT, 4, true, 100, 10).asLoadedSnapshotMessage());
        assertEquals(31, publisher.chainPosition());
        write(feed.nextExchangeSequence(40).addOrder(INSTRUMENT, 5, true, 100, 10));
        awaitCondition(() -> collector.messageCount() == 7, "an exchange snapshot's message and a message");
        assertEquals(31, collector.packets.get(3).previousExchangeSequence(), "sequence 0 is no link of the chain");
        assertEquals(40, publisher.chainPosition());
        assertEquals(40, publisher.counters().chainPosition().get(), "the gauge: the chain as sent");

        final int heartbeatsBefore = collector.heartbeats.size();
        awaitCondition(() -> collector.heartbeats.size() > heartbeatsBefore, "a heartbeat after the packets");
        assertEquals(40, collector.heartbeats.get(collector.heartbeats.size() - 1).lastExchangeSequence(),
            "the next packet's previousExchangeSequence");
    }

    /**
     * A publication that starts on a partition mid-session (its feed handler joined late, or loaded the exchange's
     * snapshot) cannot say what came before its first message; a resumed state can, for a restarted fanout.
     */
    @Test
    void theChainIsUnknownBeforeAMidSessionFirstMessageAndResumedFromTheStateAfterARestart()
    {
        mappedRing = PartitionRings.create(ringDirectory, PARTITION, 64 * 1024);
        ring = mappedRing.ring();
        publication = testAeron.aeron.addExclusivePublication(MULTICAST_PUBLICATION, STREAM_ID);
        subscription = testAeron.aeron.addSubscription(MULTICAST, STREAM_ID);
        awaitCondition(() -> publication.isConnected() && subscription.isConnected(), "connection");
        final Path stateDirectory = ringDirectory.resolve("state");
        final StateMessages feed = new StateMessages();
        PartitionState state = PartitionState.open(stateDirectory, PARTITION, 4096,
            new PartitionStateCounters(countersManager, PARTITION), errors::add);
        try
        {
            publisher = statefulPublisher(state);
            // A feed handler that joined from the exchange's snapshot (GLIMPSE) writes its state first, at exchange
            // sequence 0: that says nothing of the chain either (it once said 0, linking the first message after the
            // snapshot to the session's start: a subscriber of a pair whose other side lagged skipped what lay between).
            write(feed.addOrder(INSTRUMENT, 9, true, 100, 10).asLoadedSnapshotMessage());
            awaitCondition(() -> collector.messageCount() == 1, "the exchange snapshot's message");
            assertEquals(PartitionPublisher.UNKNOWN_CHAIN, publisher.chainPosition(), "no chain from a snapshot");
            write(feed.nextExchangeSequence(1000).addOrder(INSTRUMENT, 1, true, 100, 10));
            write(feed.nextExchangeSequence(1003).addOrder(INSTRUMENT, 2, true, 100, 10));
            awaitCondition(() -> collector.messageCount() == 3, "two messages");
            assertEquals(PartitionPublisher.UNKNOWN_CHAIN, collector.packets.get(0).previousExchangeSequence(),
                "the snapshot's packet");
            assertEquals(PartitionPublisher.UNKNOWN_CHAIN, collector.packets.get(1).previousExchangeSequence(),
                "joined mid-session: what came before 1000 is not known here");
            write(feed.gapNotice(1004, 1010, GapReason.UNRECOVERED));
            awaitCondition(() -> collector.messageCount() == 4, "a gap notice");
            assertEquals(1003, collector.packets.get(collector.packets.size() - 1).previousExchangeSequence());
            assertEquals(1010, state.lastExchangeSequence(), "the state's chain is past the gap's end too");
            state.close();

            state = PartitionState.open(stateDirectory, PARTITION, 4096,
                new PartitionStateCounters(countersManager, PARTITION), errors::add);
            assertTrue(state.wasResumed());
            publisher = statefulPublisher(state);
            assertEquals(1010, publisher.chainPosition(), "a restarted fanout's chain is its state's");
            write(feed.nextExchangeSequence(1012).addOrder(INSTRUMENT, 3, true, 100, 10));
            awaitCondition(() -> collector.messageCount() == 5, "a message after the restart");
            assertEquals(1010, collector.packets.get(collector.packets.size() - 1).previousExchangeSequence());
        }
        finally
        {
            CloseHelper.close(state);
        }
    }

    private PartitionPublisher statefulPublisher(final PartitionState state)
    {
        final PartitionPublisher statefulPublisher = new PartitionPublisher(PARTITION, ring, publication,
            new PartitionCounters(countersManager, PARTITION), NO_HEARTBEAT_NS, 1024, new PreciseEpochNanoClock(),
            SystemNanoClock.INSTANCE, errors::add, state, null);
        statefulPublisher.onStart();
        return statefulPublisher;
    }

    private void write(final StateMessages message)
    {
        assertTrue(message.writeTo(ring), "ring full");
    }

    @Test
    void steadyStateDutyCycleAllocatesNothing() throws Exception
    {
        start(IPC_LARGE_TERM, IPC_LARGE_TERM, 64 * 1024, NO_HEARTBEAT_NS);
        final long[] received = new long[1];
        final FragmentHandler countingHandler = (buffer, offset, length, header) -> received[0]++;

        // Warm up until the JIT has settled (compilation and deoptimisation can re-materialise
        // scalar-replaced objects on the heap), then require a whole window to allocate nothing.
        allocatedBytes();
        for (int window = 0; window < 10; window++)
        {
            final long windowStart = allocatedBytes();
            runDutyCycles(50_000, countingHandler);
            if (allocatedBytes() == windowStart && window >= 2)
            {
                break;
            }
        }

        final long sentBeforeWindow = publisher.counters().messagesPublished().get();
        AllocationWindows.assertOneWindowAllocatesNothing("by 50,000 steady-state duty cycles",
            AllocationWindows.WINDOWS, () -> runDutyCycles(50_000, countingHandler));

        assertTrue(received[0] > 0);
        // The ring refuses writes whenever the driver has not yet moved the IPC publication limit
        // (back pressure), so the window publishes fewer than it attempted, but it must publish.
        assertTrue(publisher.counters().messagesPublished().get() - sentBeforeWindow > 1000);
    }

    /** A heartbeat each duty cycle, each announcing a changed source status: the liveness path allocates nothing. */
    @Test
    void sourceStatusHeartbeatsAllocateNothing() throws Exception
    {
        start(IPC_LARGE_TERM, IPC_LARGE_TERM, 64 * 1024, NO_HEARTBEAT_NS);
        final CachedNanoClock nanoClock = new CachedNanoClock();
        publisher = new PartitionPublisher(PARTITION, ring, publication, new PartitionCounters(countersManager, PARTITION),
            NO_HEARTBEAT_NS, 1024, new PreciseEpochNanoClock(), nanoClock, errors::add);
        final Path setDirectory = ringDirectory.resolve("set");
        try (RingSetHeader producer = RingSetHeader.openForProducer(setDirectory);
            RingSetHeader consumer = RingSetHeader.openExisting(setDirectory);
            SourceCounters sourceCounters = new SourceCounters(countersManager))
        {
            final CachedEpochClock clock = new CachedEpochClock();
            clock.update(1_700_000_000_000L);
            publisher.monitorSource(new SourceMonitor(consumer, clock, 500, sourceCounters));
            publisher.onStart();
            final long[] received = new long[1];
            final FragmentHandler countingHandler = (buffer, offset, length, header) -> received[0]++;
            final AllocationWindows.Window flips = () ->
            {
                for (int i = 0; i < 10_000; i++)
                {
                    producer.heartbeat(clock.time(), i,
                        (i & 1) == 0 ? RingSetHeader.SOURCE_LIVE : RingSetHeader.SOURCE_LINES_SILENT);
                    nanoClock.advance(SourceMonitor.CHECK_INTERVAL_NS);
                    while (publication.availableWindow() < 4096)
                    {
                        // IPC: wait for the driver to move the publication limit, so every heartbeat is accepted
                        subscription.poll(countingHandler, 100);
                        Thread.yield();
                    }
                    publisher.doWork();
                    subscription.poll(countingHandler, 100);
                }
            };

            allocatedBytes();
            for (int window = 0; window < 10; window++)
            {
                final long windowStart = allocatedBytes();
                flips.run();
                if (allocatedBytes() == windowStart && window >= 2)
                {
                    break;
                }
            }
            final long heartbeatsBefore = publisher.counters().heartbeats().get();
            AllocationWindows.assertOneWindowAllocatesNothing(
                "by 10,000 duty cycles announcing a changed source status", AllocationWindows.WINDOWS, flips);
            // Nearly one a cycle: an offer refused at a term's end (admin action) is not retried once the status flips back.
            final long heartbeatsSent = publisher.counters().heartbeats().get() - heartbeatsBefore;
            assertTrue(heartbeatsSent > 9_000, "heartbeats sent in the window: " + heartbeatsSent);
            assertTrue(received[0] > 0);
            assertTrue(sourceCounters.downEvents().get() > 5_000, "every flip to lines silent counted");
        }
    }

    /**
     * The whole duty cycle of issue 4: ring drain, state apply (add, then delete, so the state stays
     * bounded), packet send and snapshot emission of a standing book every cycle, both streams polled.
     */
    @Test
    void steadyStateWithStateAndSnapshotsAllocatesNothing() throws Exception
    {
        mappedRing = PartitionRings.create(ringDirectory, PARTITION, 64 * 1024);
        ring = mappedRing.ring();
        publication = testAeron.aeron.addExclusivePublication(IPC_LARGE_TERM, STREAM_ID);
        subscription = testAeron.aeron.addSubscription(IPC_LARGE_TERM, STREAM_ID);
        final ExclusivePublication snapshotPublication = testAeron.aeron.addExclusivePublication(IPC_LARGE_TERM, STREAM_ID + 1);
        final Subscription snapshotSubscription = testAeron.aeron.addSubscription(IPC_LARGE_TERM, STREAM_ID + 1);
        final PartitionState state = PartitionState.open(ringDirectory.resolve("state"), PARTITION, 4096,
            new PartitionStateCounters(countersManager, PARTITION), errors::add);
        try
        {
            awaitCondition(() -> publication.isConnected() && snapshotPublication.isConnected(), "connection");
            final SnapshotPublisher snapshots = new SnapshotPublisher(PARTITION, state, snapshotPublication,
                publication.sessionId(), new SnapshotCounters(countersManager, PARTITION), 1, 4096,
                new PreciseEpochNanoClock(), errors::add);
            publisher = new PartitionPublisher(PARTITION, ring, publication,
                new PartitionCounters(countersManager, PARTITION), NO_HEARTBEAT_NS, 1024, new PreciseEpochNanoClock(),
                SystemNanoClock.INSTANCE, errors::add, state, snapshots);
            publisher.onStart();

            final StateMessages updates = new StateMessages();
            for (int i = 1; i <= 200; i++)
            {
                updates.addOrder(1 + i % 20, 1_000_000_000L + i, i % 2 == 0, 100 + i, 100).writeTo(ring);
            }
            final long[] received = new long[1];
            final FragmentHandler countingHandler = (buffer, offset, length, header) -> received[0]++;
            final long[] nextId = {1};
            final Runnable cycles = () ->
            {
                for (int i = 0; i < 20_000; i++)
                {
                    final long id = nextId[0]++;
                    while (!updates.addOrder(1 + id % 20, id, true, 100, 10).writeTo(ring))
                    {
                        publisher.doWork(); // ring full (IPC back pressure): let the publisher catch up
                        subscription.poll(countingHandler, 100);
                    }
                    while (!updates.delete(1 + id % 20, id).writeTo(ring))
                    {
                        publisher.doWork();
                        subscription.poll(countingHandler, 100);
                    }
                    publisher.doWork();
                    subscription.poll(countingHandler, 100);
                    snapshotSubscription.poll(countingHandler, 100);
                }
            };

            allocatedBytes();
            for (int window = 0; window < 10; window++)
            {
                final long windowStart = allocatedBytes();
                cycles.run();
                if (allocatedBytes() == windowStart && window >= 2)
                {
                    break;
                }
            }
            final long snapshotMessagesBefore = snapshots.counters().messagesSent().get();
            final long appliedBefore = state.lastAppliedStreamSequence();
            AllocationWindows.assertOneWindowAllocatesNothing(
                "by drain + apply + send + snapshot over 20,000 cycles", AllocationWindows.WINDOWS, cycles::run);
            assertTrue(snapshots.counters().messagesSent().get() - snapshotMessagesBefore > 1000, "snapshots were sent");
            assertTrue(state.lastAppliedStreamSequence() - appliedBefore > 1000, "records were applied");
            while (ring.size() > 0 || publisher.hasPendingPacket())
            {
                publisher.doWork();
                subscription.poll(countingHandler, 100);
            }
            assertEquals(200, state.orderCount());
        }
        finally
        {
            CloseHelper.closeAll(snapshotSubscription, snapshotPublication, state);
        }
    }

    private void runDutyCycles(final int iterations, final FragmentHandler handler)
    {
        long id = 1;
        for (int i = 0; i < iterations; i++)
        {
            for (int j = 0; j < 3; j++)
            {
                messages.writeAddOrder(ring, id++, INSTRUMENT);
            }
            publisher.doWork();
            subscription.poll(handler, 100);
        }
        while (ring.size() > 0 || publisher.hasPendingPacket())
        {
            publisher.doWork();
            subscription.poll(handler, 100);
        }
    }

    private static long allocatedBytes()
    {
        return AllocationWindows.allocatedBytes();
    }
}
