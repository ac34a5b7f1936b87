package io.mdfanout.fanout;

import io.aeron.ExclusivePublication;
import io.aeron.Subscription;
import io.mdfanout.fanout.snapshot.SnapshotCounters;
import io.mdfanout.fanout.snapshot.SnapshotPublisher;
import io.mdfanout.fanout.state.PartitionState;
import io.mdfanout.fanout.state.PartitionStateCounters;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.wire.PartitionRings;
import io.mdfanout.wire.Partitioning;
import io.mdfanout.wire.PreciseEpochNanoClock;
import org.agrona.CloseHelper;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.agrona.concurrent.status.CountersManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The partition state and its snapshot stream end to end on the test thread: real ring, real
 * embedded media driver, multicast on loopback, both streams subscribed and decoded. A snapshot
 * plus the incrementals after each instrument's lastStreamSequence must rebuild exactly the state
 * the whole incremental stream builds.
 */
final class SnapshotStreamTest
{
    private static final String CHANNEL = "aeron:udp?endpoint=224.0.1.61:40601|interface=127.0.0.1";
    private static final String PUBLICATION_CHANNEL = CHANNEL + "|mtu=8192|term-length=1m";
    private static final int PARTITION = 1;
    private static final int STREAM_ID = Partitioning.streamId(3000, PARTITION);
    private static final int SNAPSHOT_STREAM_ID =
        Partitioning.snapshotStreamId(Partitioning.defaultSnapshotStreamIdBase(3000), PARTITION);
    private static final int MAX_ORDERS = 4096;
    private static final long NO_HEARTBEAT_NS = TimeUnit.SECONDS.toNanos(1000);

    @TempDir
    Path directory;

    private final List<Throwable> errors = new ArrayList<>();
    private final StateMessages messages = new StateMessages();
    private final CountersManager countersManager = TestCounters.newManager();
    private final PacketCollector incrementals = new PacketCollector();
    private final PacketCollector snapshotPackets = new PacketCollector();
    private final BookModel fullModel = new BookModel();
    private final List<long[]> liveOrders = new ArrayList<>(); // {orderId, instrumentId}
    private final Random random = new Random(42);
    private TestAeron testAeron;
    private PartitionRings.MappedRing mappedRing;
    private RingBuffer ring;
    private Subscription subscription;
    private Subscription snapshotSubscription;
    private ExclusivePublication publication;
    private ExclusivePublication snapshotPublication;
    private PartitionState state;
    private PartitionPublisher publisher;
    private long nextOrderId = 1;
    private long written;

    @BeforeEach
    void setUp()
    {
        testAeron = new TestAeron();
        mappedRing = PartitionRings.create(directory, PARTITION, 1024 * 1024);
        ring = mappedRing.ring();
    }

    @AfterEach
    void tearDown()
    {
        CloseHelper.closeAll(subscription, snapshotSubscription, publication, snapshotPublication, state, testAeron,
            mappedRing);
        assertEquals(List.of(), errors);
    }

    private void startPublisher(final boolean subscribeToSnapshots, final int bytesPerCycle)
    {
        publication = testAeron.aeron.addExclusivePublication(PUBLICATION_CHANNEL, STREAM_ID);
        snapshotPublication = testAeron.aeron.addExclusivePublication(PUBLICATION_CHANNEL, SNAPSHOT_STREAM_ID);
        if (null == subscription)
        {
            subscription = testAeron.aeron.addSubscription(CHANNEL, STREAM_ID);
            if (subscribeToSnapshots)
            {
                snapshotSubscription = testAeron.aeron.addSubscription(CHANNEL, SNAPSHOT_STREAM_ID);
            }
        }
        awaitCondition(() -> publication.isConnected() &&
            (!subscribeToSnapshots || snapshotPublication.isConnected()), "connection");
        state = PartitionState.open(directory.resolve("state"), PARTITION, MAX_ORDERS,
            new PartitionStateCounters(countersManager, PARTITION), errors::add);
        final SnapshotPublisher snapshots = new SnapshotPublisher(PARTITION, state, snapshotPublication,
            publication.sessionId(), new SnapshotCounters(countersManager, PARTITION), TimeUnit.MILLISECONDS.toNanos(1),
            bytesPerCycle, new PreciseEpochNanoClock(), errors::add);
        publisher = new PartitionPublisher(PARTITION, ring, publication, new PartitionCounters(countersManager, PARTITION),
            NO_HEARTBEAT_NS, 1024, new PreciseEpochNanoClock(), SystemNanoClock.INSTANCE, errors::add, state, snapshots);
        publisher.onStart();
    }

    private void awaitCondition(final BooleanSupplier condition, final String what)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean())
        {
            dutyCycle();
            if (System.nanoTime() > deadlineNs)
            {
                fail("timed out waiting for " + what);
            }
            Thread.yield();
        }
    }

    private void dutyCycle()
    {
        if (null != publisher)
        {
            publisher.doWork();
        }
        if (null != subscription)
        {
            subscription.poll(incrementals, 100);
        }
        if (null != snapshotSubscription)
        {
            snapshotSubscription.poll(snapshotPackets, 100);
        }
    }

    private void write()
    {
        assertTrue(messages.writeTo(ring));
        fullModel.apply(messages.bytes());
        written++;
    }

    private void writeInitialState(final int instruments, final int orders)
    {
        messages.systemEvent(SystemEventCode.START_OF_MESSAGES); write();
        messages.systemEvent(SystemEventCode.START_OF_MARKET_HOURS); write();
        for (int id = 1; id <= instruments; id++)
        {
            messages.directory(id * 2, "SYM" + id); write();
        }
        messages.tradingStatus(4, false); write();
        for (int i = 0; i < orders; i++)
        {
            writeAdd(2 * (1 + random.nextInt(instruments)));
        }
    }

    private void writeAdd(final long instrumentId)
    {
        final long orderId = nextOrderId++;
        if (random.nextBoolean())
        {
            messages.addOrder(instrumentId, orderId, random.nextBoolean(), 1000 + random.nextInt(50), 100 + random.nextInt(900));
        }
        else
        {
            messages.addOrderAttributed(instrumentId, orderId, random.nextBoolean(), 1000 + random.nextInt(50), 100, "MPID");
        }
        write();
        liveOrders.add(new long[]{orderId, instrumentId});
    }

    /** One random book update: add, execute, cancel, delete, replace, trade or a state message. */
    private void writeRandomUpdate(final int instruments)
    {
        final int kind = random.nextInt(8);
        if (liveOrders.isEmpty() || kind == 0)
        {
            writeAdd(2 * (1 + random.nextInt(instruments)));
            return;
        }
        final int index = random.nextInt(liveOrders.size());
        final long[] order = liveOrders.get(index);
        switch (kind)
        {
            case 1 -> messages.executed(order[1], order[0], 50);
            case 2 -> messages.cancel(order[1], order[0], 30);
            case 3 -> messages.executedWithPrice(order[1], order[0], 1000);
            case 4 ->
            {
                messages.delete(order[1], order[0]);
                liveOrders.remove(index);
            }
            case 5 ->
            {
                final long newId = nextOrderId++;
                messages.replace(order[1], order[0], newId, 1020, 77);
                order[0] = newId;
            }
            case 6 -> messages.tradingStatus(order[1], random.nextBoolean());
            default -> messages.trade(order[1]);
        }
        write();
    }

    @Test
    void aSnapshotSpreadOverCyclesWhileRecordsArrivePlusTheLaterIncrementalsIsTheState()
    {
        startPublisher(true, 400);
        final int instruments = 40;
        writeInitialState(instruments, 600);
        awaitCondition(() -> incrementals.messageCount() == written, "initial state published");
        // Snapshots started so far saw no updates while they were captured (and some may still be
        // in flight to the subscription): the one to check must start after the updates do.
        final long lastIdBeforeUpdates = publisher.snapshots().snapshotId();

        // Keep updating the books between duty cycles until a snapshot started meanwhile completes.
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<SnapshotReader.Snapshot> snapshots;
        do
        {
            writeRandomUpdate(instruments);
            dutyCycle();
            snapshots = SnapshotReader.read(snapshotPackets.packets, snapshotPublication.sessionId());
            assertTrue(System.nanoTime() < deadlineNs, "timed out waiting for a snapshot");
        }
        while (snapshots.isEmpty() || snapshots.get(snapshots.size() - 1).snapshotId <= lastIdBeforeUpdates);
        awaitCondition(() -> incrementals.messageCount() == written, "all incrementals");

        final SnapshotReader.Snapshot snapshot = snapshots.get(snapshots.size() - 1);
        assertEquals(PARTITION, snapshot.partitionId);
        assertEquals(publication.sessionId(), snapshot.incrementalSessionId);
        assertTrue(snapshot.packets > 3, "spread over packets: " + snapshot.packets);
        assertTrue(snapshot.distinctInstrumentSequences() > 3,
            "records were applied between instruments: " + snapshot.distinctInstrumentSequences());
        assertTrue(snapshot.instruments.size() >= instruments - 2, "instruments: " + snapshot.instruments.size());
        assertEquals(fullModel.toString(),
            SnapshotReader.rebuild(snapshot, incrementals.packets, publication.sessionId()).toString());
        for (int i = 0; i < snapshots.size() - 1; i++)
        {
            assertEquals(i + 1, snapshots.get(i).snapshotId, "snapshot ids count up");
        }
        final SnapshotCounters counters = publisher.snapshots().counters();
        assertTrue(counters.completed().get() >= snapshots.size());
        assertTrue(counters.messagesSent().get() > 0 && counters.bytesSent().get() > 0);
        assertEquals(0, counters.abandoned().get());
    }

    @Test
    void sendsNoSnapshotWhileNobodySubscribesToTheSnapshotStream()
    {
        startPublisher(false, 65536);
        writeInitialState(3, 10);
        awaitCondition(() -> incrementals.messageCount() == written, "published");
        final SnapshotCounters counters = publisher.snapshots().counters();
        awaitCondition(() -> counters.skipped().get() >= 3, "skipped snapshots");
        assertEquals(0, counters.started().get());
        assertEquals(0, counters.messagesSent().get());
    }

    /**
     * The process dies after applying records but before the ring head moved (the ring's bytes are
     * put back as they were before the drain): the restarted publisher skips them, continues the
     * sequence in a new publication, and its first snapshot is the state.
     */
    @Test
    void afterARestartTheStreamContinuesInANewPublicationAndTheFirstSnapshotIsTheState()
    {
        startPublisher(true, 65536);
        final int instruments = 10;
        writeInitialState(instruments, 200);
        final long firstRun = written;
        final byte[] ringBeforeDrain = new byte[ring.capacity() + RingBufferDescriptor.TRAILER_LENGTH];
        ring.buffer().getBytes(0, ringBeforeDrain);
        awaitCondition(() -> incrementals.messageCount() == firstRun, "first run published");
        final int firstSession = publication.sessionId();
        assertEquals(firstRun, state.lastAppliedStreamSequence());

        // kill -9: the publications and the state mapping go without any further store; the ring
        // head had not been moved for the last drain.
        CloseHelper.closeAll(publication, snapshotPublication, state);
        publisher = null; // dead with its process: nothing may run it while the new one connects
        ring.buffer().putBytes(0, ringBeforeDrain);
        assertTrue(ring.size() > 0, "records back in the ring");

        startPublisher(true, 65536);
        assertTrue(state.wasResumed());
        assertNotEquals(firstSession, publication.sessionId(), "a new publication");
        assertEquals(firstRun + 1, publisher.nextStreamSequence(), "continues the stream");
        awaitCondition(() -> ring.size() == 0, "old records consumed");
        assertEquals(firstRun, state.counters().recordsSkippedAfterRestart().get(), "applied records skipped");
        assertEquals(firstRun, state.lastAppliedStreamSequence());

        for (int i = 0; i < 100; i++)
        {
            writeRandomUpdate(instruments);
        }
        final long total = written;
        awaitCondition(() -> incrementals.messageCount() == total, "second run published");
        final List<PacketCollector.Packet> secondRun = incrementals.packets.stream()
            .filter((p) -> p.sessionId() == publication.sessionId()).toList();
        assertEquals(firstRun + 1, secondRun.get(0).streamSequence());

        awaitCondition(() -> !SnapshotReader.read(snapshotPackets.packets, snapshotPublication.sessionId()).isEmpty(),
            "first snapshot of the new publication");
        final SnapshotReader.Snapshot first =
            SnapshotReader.read(snapshotPackets.packets, snapshotPublication.sessionId()).get(0);
        assertEquals(1, first.snapshotId);
        assertEquals(publication.sessionId(), first.incrementalSessionId);
        assertEquals(fullModel.toString(),
            SnapshotReader.rebuild(first, incrementals.packets, publication.sessionId()).toString());
    }
}
