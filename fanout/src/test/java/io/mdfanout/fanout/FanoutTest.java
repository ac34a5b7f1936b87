package io.mdfanout.fanout;

import io.aeron.Aeron;
import io.aeron.Subscription;
import io.mdfanout.wire.PartitionRings;
import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.wire.Partitioning;
import io.mdfanout.wire.RingSetHeader;
import org.agrona.CloseHelper;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.File;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** The whole fanout on its own threads with an embedded driver, received over UDP multicast on loopback. */
final class FanoutTest
{
    private static final String CHANNEL = "aeron:udp?endpoint=224.0.1.41:41011|interface=127.0.0.1|mtu=8192";
    private static final String SUBSCRIPTION_CHANNEL = "aeron:udp?endpoint=224.0.1.41:41011|interface=127.0.0.1";
    private static final int STREAM_ID_BASE = 2100;

    @TempDir
    Path ringDirectory;

    private final List<Throwable> errors = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void tearDown()
    {
        for (int i = closeables.size() - 1; i >= 0; i--)
        {
            CloseHelper.quietClose(closeables.get(i));
        }
        assertEquals(List.of(), errors);
    }

    private FanoutConfig config(final int partitions)
    {
        return new FanoutConfig()
            .ringDirectory(ringDirectory)
            .partitionCount(partitions)
            .channel(CHANNEL)
            .streamIdBase(STREAM_ID_BASE)
            .termLength(1024 * 1024)
            .heartbeatIntervalNs(TimeUnit.MILLISECONDS.toNanos(50))
            .ringWaitTimeoutNs(TimeUnit.SECONDS.toNanos(5))
            .errorHandler(errors::add);
    }

    private RingBuffer createRing(final int partition)
    {
        final PartitionRings.MappedRing ring = PartitionRings.create(ringDirectory, partition, 256 * 1024);
        closeables.add(ring);
        return ring.ring();
    }

    /** Subscribe to partition 0's incremental and snapshot streams; the returned task polls both into the collectors. */
    private static Runnable partitionZeroPoller(
        final Aeron aeron, final String channel, final PacketCollector incrementals, final PacketCollector snapshots)
    {
        final Subscription incrementalStream = aeron.addSubscription(channel, Partitioning.streamId(STREAM_ID_BASE, 0));
        final Subscription snapshotStream = aeron.addSubscription(channel,
            Partitioning.snapshotStreamId(Partitioning.defaultSnapshotStreamIdBase(STREAM_ID_BASE), 0));
        return () ->
        {
            incrementalStream.poll(incrementals, 100);
            snapshotStream.poll(snapshots, 100);
        };
    }

    /**
     * Subscribe to partition 0's streams on {@link #INVOKER_TEST_CHANNEL}, write 20 AddOrders to its ring and wait
     * until all 20 arrived, the first packet at stream sequence 1.
     *
     * @return what polls both streams into the collectors.
     */
    private Runnable publishTwentyAddOrders(
        final Fanout fanout, final RingBuffer ring, final PacketCollector incrementals, final PacketCollector snapshots)
    {
        final Aeron aeron = TestAeron.connect(fanout.aeronDirectoryName());
        closeables.add(aeron);
        final Runnable poll = partitionZeroPoller(aeron, INVOKER_TEST_CHANNEL, incrementals, snapshots);
        awaitCondition(() -> fanout.isConnected(0), poll, "subscriber connected");
        final TestMessages messages = new TestMessages();
        for (int id = 1; id <= 20; id++)
        {
            assertTrue(messages.writeAddOrder(ring, id, 5));
        }
        awaitCondition(() -> incrementals.messageCount() == 20, poll, "20 messages");
        assertEquals(1, incrementals.packets.get(0).streamSequence());
        return poll;
    }

    private static void awaitCondition(final BooleanSupplier condition, final Runnable work, final String what)
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

    private static final String SOURCE_TEST_CHANNEL = "aeron:udp?endpoint=224.0.1.67:40607|interface=127.0.0.1";

    /**
     * Issue 26, source liveness: over a ring set whose header the test heartbeats as a feed handler would, every
     * partition's heartbeats and the fanout's source metrics say LIVE; when the heartbeat stops (a feed handler
     * dead or stopped by a signal: its rings just go quiet) they say FEED_HANDLER_DOWN within the source timeout,
     * and LIVE again once it resumes.
     */
    @Test
    void heartbeatsAndMetricsFollowTheFeedHandlersHeartbeat()
    {
        final RingSetHeader producer = RingSetHeader.openForProducer(ringDirectory);
        closeables.add(producer);
        producer.layout(2, 256 * 1024);
        for (int partition = 0; partition < 2; partition++)
        {
            closeables.add(PartitionRings.create(ringDirectory, partition, 2, 256 * 1024, 1));
        }
        producer.generation(1);
        // The feed handler's duty cycle, as far as the header goes: a heartbeat every 50 ms while it lives.
        final java.util.concurrent.atomic.AtomicBoolean feedHandlerAlive = new java.util.concurrent.atomic.AtomicBoolean(true);
        final java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
        final Thread feedHandler = new Thread(() ->
        {
            while (running.get())
            {
                if (feedHandlerAlive.get())
                {
                    producer.heartbeat(System.currentTimeMillis(), 34_200_000_000_000L, RingSetHeader.SOURCE_LIVE);
                }
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }, "test-feed-handler");
        feedHandler.start();
        closeables.add(() ->
        {
            running.set(false);
            feedHandler.join();
        });
        final org.agrona.concurrent.status.CountersManager countersManager = TestCounters.newManager();
        final Fanout fanout = new Fanout(config(2).channel(SOURCE_TEST_CHANNEL + "|mtu=8192")
            .countersManager(countersManager).sourceTimeoutNs(TimeUnit.MILLISECONDS.toNanos(300)));
        closeables.add(fanout);
        final Aeron aeron = TestAeron.connect(fanout.aeronDirectoryName());
        closeables.add(aeron);
        final Subscription partitionOne = aeron.addSubscription(SOURCE_TEST_CHANNEL, Partitioning.streamId(STREAM_ID_BASE, 1));
        final PacketCollector collector = new PacketCollector();
        final Runnable work = () -> partitionOne.poll(collector, 100);
        final SourceCounters source = fanout.sourceCounters();

        awaitCondition(() -> lastSourceStatus(collector) == SourceStatus.LIVE &&
            SourceStatus.LIVE.value() == source.status().get(), work, "live announced");
        assertEquals(34_200_000_000_000L, collector.heartbeats.get(collector.heartbeats.size() - 1).lastExchangeTimestamp());
        assertNull(fanout.notReadyReason(), "ready: the source live, every ring read");

        feedHandlerAlive.set(false);
        final long stoppedNs = System.nanoTime();
        awaitCondition(() -> lastSourceStatus(collector) == SourceStatus.FEED_HANDLER_DOWN &&
            SourceStatus.FEED_HANDLER_DOWN.value() == source.status().get(), work, "feed handler down announced");
        assertTrue(System.nanoTime() - stoppedNs < TimeUnit.SECONDS.toNanos(2), "well inside a subscriber's silent timeout");
        assertTrue(source.heartbeatAgeMs().get() > 300, "age " + source.heartbeatAgeMs().get());
        assertTrue(collector.heartbeats.get(collector.heartbeats.size() - 1).sourceHeartbeatAgeMs() > 300);
        assertEquals(1, source.downEvents().get());
        assertEquals("source FEED_HANDLER_DOWN", fanout.notReadyReason());

        feedHandlerAlive.set(true);
        awaitCondition(() -> lastSourceStatus(collector) == SourceStatus.LIVE &&
            SourceStatus.LIVE.value() == source.status().get(), work, "live again");
        assertEquals(1, source.downEvents().get());
        assertNull(fanout.notReadyReason(), "ready again");
        fanout.close();
        assertEquals("closed", fanout.notReadyReason());
    }

    private static SourceStatus lastSourceStatus(final PacketCollector collector)
    {
        return collector.heartbeats.isEmpty() ? null : collector.heartbeats.get(collector.heartbeats.size() - 1).sourceStatus();
    }

    private static final String SNAPSHOT_TEST_CHANNEL = "aeron:udp?endpoint=224.0.1.63:40603|interface=127.0.0.1";
    private static final String INVOKER_TEST_CHANNEL = "aeron:udp?endpoint=224.0.1.65:40605|interface=127.0.0.1";

    /**
     * --driver-threading invoker: the embedded driver and the Aeron client run on the publisher thread
     * (no driver thread at all); messages and snapshots still flow, and other clients of the driver
     * (this test's subscriber) are served.
     */
    @Test
    void withTheDriverInvokedByThePublisherThreadMessagesAndSnapshotsFlow()
    {
        final RingBuffer ring = createRing(0);
        final FanoutConfig config = config(1).channel(INVOKER_TEST_CHANNEL + "|mtu=8192")
            .driverThreadingMode(io.aeron.driver.ThreadingMode.INVOKER)
            .snapshotIntervalNs(TimeUnit.MILLISECONDS.toNanos(10)).maxOrders(1024);
        assertEquals(List.of(Fanout.PUBLISHER_THREAD), Fanout.busyThreads(config));
        final Fanout fanout = new Fanout(config);
        closeables.add(fanout);
        assertEquals(io.aeron.driver.ThreadingMode.INVOKER, fanout.driverThreadingMode());
        final PacketCollector incrementalCollector = new PacketCollector();
        final PacketCollector snapshotCollector = new PacketCollector();
        final Runnable poll = publishTwentyAddOrders(fanout, ring, incrementalCollector, snapshotCollector);
        awaitCondition(() -> snapshotCollector.packets.stream().anyMatch(
            (p) -> p.messages().stream().anyMatch((m) -> m[2] == 43)), poll, "a complete snapshot");
        final SnapshotReader.Snapshot snapshot =
            SnapshotReader.read(snapshotCollector.packets, snapshotCollector.packets.get(0).sessionId()).get(0);
        assertEquals(20, snapshot.model.orders.size());
    }

    @Test
    void invokerDriverThreadingNeedsTheSharedPublisherThreadAndTheEmbeddedDriver()
    {
        final IllegalArgumentException dedicated = org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> config(1)
                .driverThreadingMode(io.aeron.driver.ThreadingMode.INVOKER).threading(FanoutThreading.DEDICATED)
                .validate());
        assertTrue(dedicated.getMessage().contains("--threading shared"), dedicated.getMessage());
    }

    /**
     * A fanout closed (its state file left as is) and started again on the same ring and state dir:
     * the state is resumed, the stream continues from the next sequence in a new session, and the
     * new session's first snapshot carries the state.
     */
    @Test
    void aRestartedFanoutResumesItsStateContinuesTheStreamInANewSessionAndServesSnapshots()
    {
        final RingBuffer ring = createRing(0);
        final FanoutConfig config = config(1).channel(SNAPSHOT_TEST_CHANNEL + "|mtu=8192")
            .snapshotIntervalNs(TimeUnit.MILLISECONDS.toNanos(10)).maxOrders(1024);
        final TestMessages messages = new TestMessages();
        for (int id = 1; id <= 50; id++)
        {
            assertTrue(messages.writeAddOrder(ring, id, 5));
        }
        final Fanout first = new Fanout(config);
        assertEquals("state=fresh", first.stateDescription());
        awaitCondition(() -> first.stateCounters(0).ordersInState().get() == 50, () -> { }, "orders applied");
        final int firstSession = first.sessionId(0);
        first.close();

        final Fanout second = new Fanout(config);
        closeables.add(second);
        assertEquals("state=resumed(p0 seq=51)", second.stateDescription());
        assertNotEquals(firstSession, second.sessionId(0));
        final Aeron aeron = TestAeron.connect(second.aeronDirectoryName());
        closeables.add(aeron);
        final PacketCollector incrementalCollector = new PacketCollector();
        final PacketCollector snapshotCollector = new PacketCollector();
        final Runnable poll = partitionZeroPoller(aeron, SNAPSHOT_TEST_CHANNEL, incrementalCollector, snapshotCollector);
        awaitCondition(() -> second.isConnected(0), poll, "subscriber connected");
        assertTrue(messages.writeAddOrder(ring, 51, 5));
        awaitCondition(() -> incrementalCollector.messageCount() == 1, poll, "message after restart");
        assertEquals(51, incrementalCollector.packets.get(0).streamSequence(), "the stream continues");
        assertEquals(second.sessionId(0), incrementalCollector.packets.get(0).sessionId());

        awaitCondition(() -> snapshotCollector.packets.stream().anyMatch(
            (p) -> p.messages().stream().anyMatch((m) -> m[2] == 43)), poll, "a complete snapshot");
        final int snapshotSession = snapshotCollector.packets.get(0).sessionId();
        final SnapshotReader.Snapshot snapshot = SnapshotReader.read(snapshotCollector.packets, snapshotSession).get(0);
        assertEquals(second.sessionId(0), snapshot.incrementalSessionId);
        assertEquals(51, snapshot.model.orders.size());
        assertEquals(51, snapshot.beginLastStreamSequence);
        assertEquals(0, second.stateCounters(0).stateResets().get());
    }

    /**
     * The benchmark-only --no-state-upkeep: every message is still published, in sequence, but none is applied to the
     * state and no snapshot is offered, so a benchmark measures what the upkeep costs.
     */
    @Test
    void withoutStateUpkeepEveryMessageIsPublishedAndNoneApplied()
    {
        final RingBuffer ring = createRing(0);
        final FanoutConfig config = config(1).channel(INVOKER_TEST_CHANNEL + "|mtu=8192")
            .snapshotIntervalNs(TimeUnit.MILLISECONDS.toNanos(10)).maxOrders(1024).stateUpkeep(false);
        final Fanout fanout = new Fanout(config);
        closeables.add(fanout);
        final PacketCollector incrementalCollector = new PacketCollector();
        final PacketCollector snapshotCollector = new PacketCollector();
        final Runnable poll = publishTwentyAddOrders(fanout, ring, incrementalCollector, snapshotCollector);
        final long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200); // 20 snapshot intervals
        while (System.nanoTime() < until)
        {
            poll.run();
        }
        assertEquals(0, fanout.stateCounters(0).ordersInState().get(), "no message applied");
        assertTrue(snapshotCollector.packets.isEmpty(), "no snapshot offered");
    }

    @Test
    void aNewRingResetsTheState() throws Exception
    {
        final PartitionRings.MappedRing oldRing = PartitionRings.create(ringDirectory, 0, 64 * 1024);
        final TestMessages messages = new TestMessages();
        for (int id = 1; id <= 10; id++)
        {
            assertTrue(messages.writeAddOrder(oldRing.ring(), id, 5));
        }
        final FanoutConfig config = config(1).channel(SNAPSHOT_TEST_CHANNEL + "|mtu=8192").maxOrders(1024);
        final Fanout first = new Fanout(config);
        awaitCondition(() -> first.stateCounters(0).ordersInState().get() == 10, () -> { }, "orders applied");
        first.close();
        oldRing.close();
        java.nio.file.Files.delete(PartitionRings.ringFile(ringDirectory, 0));

        createRing(0); // the feed handler restarted with fresh rings
        final Fanout second = new Fanout(config);
        closeables.add(second);
        assertEquals(1, second.stateCounters(0).stateResets().get());
        assertEquals(0, second.stateCounters(0).ordersInState().get());
        assertEquals("state=fresh", second.stateDescription());
        assertEquals(1, errors.size());
        assertTrue(errors.get(0).getMessage().contains("the ring is new"), errors.get(0).getMessage());
        errors.clear();
    }

    @Test
    void rejectsInvalidStateAndSnapshotOptionsWithOneLine()
    {
        final IllegalArgumentException overlap = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> config(4).snapshotStreamIdBase(STREAM_ID_BASE + 2).validate());
        assertTrue(overlap.getMessage().contains("overlap"), overlap.getMessage());
        config(4).snapshotStreamIdBase(STREAM_ID_BASE + 2).snapshotChannel(SNAPSHOT_TEST_CHANNEL).validate();
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> config(1).maxOrders(0).validate());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> config(1).snapshotIntervalNs(-1).validate());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> config(1).snapshotBytesPerCycle(0).validate());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> config(1).snapshotChannel("udp://nonsense").validate());
        assertEquals(ringDirectory.resolve("fanout-state"), config(1).resolvedStateDirectory());
    }

    @ParameterizedTest
    @EnumSource(FanoutThreading.class)
    void publishesEachPartitionOnItsOwnStream(final FanoutThreading threading)
    {
        final RingBuffer ring0 = createRing(0);
        final RingBuffer ring1 = createRing(1);
        final Fanout fanout = new Fanout(config(2).threading(threading));
        closeables.add(fanout);
        final Aeron aeron = TestAeron.connect(fanout.aeronDirectoryName());
        closeables.add(aeron);
        final Subscription sub0 = aeron.addSubscription(SUBSCRIPTION_CHANNEL, Partitioning.streamId(STREAM_ID_BASE, 0));
        final Subscription sub1 = aeron.addSubscription(SUBSCRIPTION_CHANNEL, Partitioning.streamId(STREAM_ID_BASE, 1));
        final PacketCollector collector0 = new PacketCollector();
        final PacketCollector collector1 = new PacketCollector();
        final Runnable poll = () ->
        {
            sub0.poll(collector0, 100);
            sub1.poll(collector1, 100);
        };
        awaitCondition(() -> fanout.isConnected(0) && fanout.isConnected(1), poll, "subscribers connected");

        final TestMessages messages = new TestMessages();
        final int count0 = 500;
        final int count1 = 300;
        for (int id = 1; id <= Math.max(count0, count1); id++)
        {
            if (id <= count0)
            {
                assertTrue(messages.writeAddOrder(ring0, id, 2));
            }
            if (id <= count1)
            {
                assertTrue(messages.writeAddOrder(ring1, 10_000 + id, 3));
            }
        }
        awaitCondition(
            () -> collector0.messageCount() == count0 && collector1.messageCount() == count1, poll, "all messages");

        assertStream(collector0, Partitioning.streamId(STREAM_ID_BASE, 0), 0, messages, 1, count0, 2);
        assertStream(collector1, Partitioning.streamId(STREAM_ID_BASE, 1), 1, messages, 10_001, count1, 3);
        assertEquals(count0, fanout.counters(0).messagesPublished().get());
        assertEquals(count1, fanout.counters(1).messagesPublished().get());
        assertEquals(0, fanout.dutyCycleErrors().get());
        assertFalse(fanout.hasFailed());

        awaitCondition(() -> !collector1.heartbeats.isEmpty() &&
            collector1.heartbeats.get(collector1.heartbeats.size() - 1).nextStreamSequence() == count1 + 1,
            poll, "heartbeat with the next sequence");
    }

    /**
     * Each packet's sendingTime is the wall clock to microseconds, as subscribers' delivery latency needs: never
     * before its message was written to the ring, never after it was received. A clock sampled from
     * System.currentTimeMillis() lags by up to a millisecond and fails the first bound.
     */
    @Test
    void stampsEachPacketWithTheWallClockToTheMicrosecond()
    {
        final RingBuffer ring = createRing(0);
        final Fanout fanout = new Fanout(config(1));
        closeables.add(fanout);
        final Aeron aeron = TestAeron.connect(fanout.aeronDirectoryName());
        closeables.add(aeron);
        final Subscription subscription =
            aeron.addSubscription(SUBSCRIPTION_CHANNEL, Partitioning.streamId(STREAM_ID_BASE, 0));
        final PacketCollector collector = new PacketCollector();
        final Runnable poll = () -> subscription.poll(collector, 100);
        awaitCondition(() -> fanout.isConnected(0), poll, "subscriber connected");

        final TestMessages messages = new TestMessages();
        final long toleranceNs = TimeUnit.MICROSECONDS.toNanos(100);
        for (int id = 1; id <= 20; id++)
        {
            final long writtenNs = wallClockNs();
            assertTrue(messages.writeAddOrder(ring, id, 2));
            final int expected = id;
            awaitCondition(() -> collector.messageCount() == expected, poll, "message " + id);
            final long receivedNs = wallClockNs();

            final long sendingTime = collector.packets.get(collector.packets.size() - 1).sendingTime();
            assertTrue(sendingTime >= writtenNs - toleranceNs && sendingTime <= receivedNs + toleranceNs,
                "message " + id + ": sendingTime " + sendingTime + " outside [" + writtenNs + ", " + receivedNs +
                "] +- " + toleranceNs + " ns");
        }
    }

    private static long wallClockNs()
    {
        final Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    private static void assertStream(
        final PacketCollector collector,
        final int streamId,
        final int partition,
        final TestMessages messages,
        final long firstId,
        final int count,
        final long instrumentId)
    {
        assertEquals(List.of(), collector.errors);
        long expectedSequence = 1;
        long id = firstId;
        for (final PacketCollector.Packet packet : collector.packets)
        {
            assertEquals(streamId, packet.streamId());
            assertEquals(partition, packet.partitionId());
            assertEquals(expectedSequence, packet.streamSequence());
            for (final byte[] message : packet.messages())
            {
                assertArrayEquals(messages.addOrderBytes(id++, instrumentId), message);
            }
            expectedSequence += packet.messages().size();
        }
        assertEquals(count + 1, expectedSequence);
        for (final PacketCollector.Heartbeat heartbeat : collector.heartbeats)
        {
            assertEquals(partition, heartbeat.partitionId());
        }
    }

    @Test
    void failsClearlyWhenTheRingsDoNotAppear()
    {
        createRing(0); // partition 1 is missing
        final IllegalStateException ex = assertThrows(IllegalStateException.class,
            () -> new Fanout(config(2).ringWaitTimeoutNs(TimeUnit.MILLISECONDS.toNanos(200))));
        assertTrue(ex.getMessage().contains("partition-1.ring"), ex.getMessage());
        assertTrue(ex.getMessage().contains("--ring-dir"), ex.getMessage());
    }

    @Test
    void waitsForTheFeedHandlerToCreateTheRings() throws Exception
    {
        final Thread creator = new Thread(() ->
        {
            try
            {
                Thread.sleep(300);
                createRing(0);
            }
            catch (final InterruptedException ignore)
            {
                Thread.currentThread().interrupt();
            }
        });
        creator.start();
        final Fanout fanout = new Fanout(config(1));
        closeables.add(fanout);
        creator.join();
        assertEquals(1, fanout.partitionCount());
    }

    @Test
    void rejectsInvalidConfiguration()
    {
        assertThrows(IllegalArgumentException.class, () -> new Fanout(config(0)));
        assertThrows(IllegalArgumentException.class, () -> new Fanout(config(1).termLength(1000)));
        assertThrows(IllegalArgumentException.class, () -> new Fanout(config(1).channel("udp://nope")));
        assertThrows(IllegalArgumentException.class, () -> new Fanout(config(1).heartbeatIntervalNs(0)));
    }

    @Test
    void closeStopsEverythingAndDeletesTheEmbeddedDriverDirectory()
    {
        createRing(0);
        final Fanout fanout = new Fanout(config(1));
        final File aeronDirectory = new File(fanout.aeronDirectoryName());
        assertTrue(aeronDirectory.exists());
        assertTrue(fanout.channel().contains("term-length=1048576"), fanout.channel());
        assertTrue(fanout.channel().contains("fc=max"), "multicast flow control is stated: " + fanout.channel());
        assertEquals(Fanout.embeddedDriverDirectory(ringDirectory.resolve("fanout-state")), aeronDirectory.getPath(),
            "the driver directory is named after the state directory, so a restart after kill -9 reuses it");
        fanout.close();
        assertFalse(aeronDirectory.exists(), "embedded driver directory deleted");
        fanout.close(); // idempotent
    }

    @Test
    void aSecondFanoutOnTheSameStateDirectoryIsRefusedWithOneLine()
    {
        createRing(0);
        final Fanout first = new Fanout(config(1));
        closeables.add(first);
        final IllegalStateException refused = assertThrows(IllegalStateException.class, () -> new Fanout(config(1)));
        assertTrue(refused.getMessage().contains("another fanout is running on state directory"), refused.getMessage());
        first.close();
        new Fanout(config(1)).close(); // the lock went with the first one
    }

    @Test
    void aChannelThatNamesItsOwnFlowControlKeepsIt()
    {
        createRing(0);
        final Fanout fanout = new Fanout(config(1).channel(CHANNEL + "|fc=min"));
        closeables.add(fanout);
        assertTrue(fanout.channel().contains("fc=min") && !fanout.channel().contains("fc=max"), fanout.channel());
    }

    @Test
    void runsOnAnExternalDriver()
    {
        final RingBuffer ring = createRing(0);
        final TestAeron external = new TestAeron();
        closeables.add(external);
        final Fanout fanout = new Fanout(config(1).aeronDirectoryName(external.directory()));
        closeables.add(fanout);
        final Subscription subscription = external.aeron.addSubscription(SUBSCRIPTION_CHANNEL, STREAM_ID_BASE);
        final PacketCollector collector = new PacketCollector();
        awaitCondition(() -> fanout.isConnected(0), () -> subscription.poll(collector, 10), "connection");
        final TestMessages messages = new TestMessages();
        assertTrue(messages.writeAddOrder(ring, 1, 4));
        awaitCondition(() -> collector.messageCount() == 1, () -> subscription.poll(collector, 10), "message");
        assertArrayEquals(messages.addOrderBytes(1, 4), collector.packets.get(0).messages().get(0));
        fanout.close();
        assertTrue(external.directoryExists(), "an external driver's directory is left alone");
    }
}
