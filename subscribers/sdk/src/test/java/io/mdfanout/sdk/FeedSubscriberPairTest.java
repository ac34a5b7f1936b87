package io.mdfanout.sdk;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A subscriber of a pair over real Aeron: two sides (each a partition's incremental and snapshot streams on a
 * channel of its own) carrying the same chain of exchange sequences, each losing packets of its own; what one side
 * lacks is taken from the other and each message reaches the listener once, in order; a span both lack is one gap,
 * recovered from the other side's snapshot; a side that disagrees is refused loudly and never mixed in; one side's
 * silence is not staleness, both sides' is.
 */
class FeedSubscriberPairTest
{
    private static final int PARTITION = 0;
    private static final long[] INSTRUMENTS = { 1, 2, 3, 5, 8 };

    @RegisterExtension
    static final TestMedia media = TestMedia.perClass();

    private static String channel(final int port)
    {
        return TestMedia.channel("224.0.1.75", port);
    }

    private static FeedSubscriber pair(
        final PartitionFeed sideA, final PartitionFeed sideB, final MarketDataListener listener,
        final FeedSubscriber.Context options)
    {
        return new FeedSubscriber(options.aeron(media.aeron()).channel(sideA.channel).streamIdBase(sideA.streamIdBase)
            .pairChannel(sideB.channel).pairStreamIdBase(sideB.streamIdBase)
            .partitionCount(1).partitions(new int[]{ PARTITION }).listener(listener));
    }

    private static void pollUntil(final BooleanSupplier condition, final FeedSubscriber subscriber)
    {
        TestMedia.pollUntil(TimeUnit.SECONDS.toNanos(10), condition, subscriber);
    }

    private static void assertDeliveredOnceInOrder(final List<byte[]> messages, final RecordingListener listener)
    {
        assertEquals(messages.size(), listener.raw.size(), "messages delivered");
        for (int i = 0; i < messages.size(); i++)
        {
            if (!Arrays.equals(messages.get(i), listener.raw.get(i)))
            {
                fail("message " + (i + 1) + " differs");
            }
            assertEquals(i + 1, listener.sequences.get(i), "a pair's sequence is the chain position");
        }
    }

    @Test
    void aMessageOneSideLacksIsTakenFromTheOtherAndEachIsDeliveredOnce()
    {
        final List<byte[]> messages = MarketScript.generate(7, 2000, INSTRUMENTS, true);
        final RecordingListener listener = new RecordingListener();
        final Set<Integer> lostByA = Set.of(10, 11, 50, 200);
        final Set<Integer> lostByB = Set.of(30, 100, 101, 350);
        try (PartitionFeed sideA = new PartitionFeed(media, channel(40801), 2200, PARTITION);
            PartitionFeed sideB = new PartitionFeed(media, channel(40803), 2300, PARTITION);
            FeedSubscriber subscriber = pair(sideA, sideB, listener,
                new FeedSubscriber.Context().arbitrationWaitNs(TimeUnit.SECONDS.toNanos(10))))
        {
            TestMedia.awaitConnected(subscriber, sideA.incremental.publication(), sideB.incremental.publication());
            sideA.incremental.send(messages, 5, lostByA::contains); // side A first: its packets after a loss wait
            sideB.incremental.send(messages, 5, lostByB::contains);
            pollUntil(() -> subscriber.expectedSequence(PARTITION) == 2001 &&
                subscriber.counters().sideDuplicates(0) + subscriber.counters().sideDuplicates(1) == 2000 - 40,
                subscriber);

            assertDeliveredOnceInOrder(messages, listener);
            final SubscriberCounters counters = subscriber.counters();
            assertEquals(2000, counters.sideMessages(0) + counters.sideMessages(1));
            assertTrue(counters.sideMessages(1) >= 20, "side B delivered what side A lacked: " + counters);
            assertTrue(counters.sideMessages(0) >= 20, "side A delivered what side B lacked: " + counters);
            assertEquals(0, counters.gaps());
            assertEquals(0, counters.staleEvents());
            assertFalse(subscriber.isStale(PARTITION));
        }
    }

    @Test
    void aSpanBothSidesLackIsOneGapRecoveredFromTheOtherSidesSnapshot()
    {
        final List<byte[]> messages = MarketScript.generate(8, 2000, INSTRUMENTS, true);
        final BookAndEventListener listener = new BookAndEventListener();
        final Set<Integer> lostByBoth = Set.of(100); // messages 501..505
        try (PartitionFeed sideA = new PartitionFeed(media, channel(40805), 2400, PARTITION);
            PartitionFeed sideB = new PartitionFeed(media, channel(40807), 2500, PARTITION);
            FeedSubscriber subscriber = pair(sideA, sideB, listener,
                new FeedSubscriber.Context().arbitrationWaitNs(TimeUnit.MILLISECONDS.toNanos(50))))
        {
            TestMedia.awaitConnected(subscriber, sideA.incremental.publication(), sideB.incremental.publication());
            sideA.incremental.send(messages.subList(0, 1000), 5, lostByBoth::contains);
            sideB.incremental.send(messages.subList(0, 1000), 5, lostByBoth::contains);
            pollUntil(() -> subscriber.expectedSequence(PARTITION) == 1001 && subscriber.isStale(PARTITION), subscriber);
            assertEquals(List.of("STALE 0 GAP 506"), listener.events, "one gap, after the wait for the other side");
            assertEquals(1, subscriber.counters().gaps());

            final MarketScript.State reference = MarketScript.stateAfter(messages, 1000);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            long snapshotId = 100;
            while (subscriber.isStale(PARTITION))
            {
                // Side B's snapshot stream only: a pair recovers from either side's.
                sideB.snapshots.trySend(StreamPublisher.snapshot(
                    PARTITION, snapshotId++, sideB.incremental.sessionId(), reference, 1000), 4, i -> false);
                TestMedia.pollFor(100, subscriber);
                if (System.nanoTime() > deadline)
                {
                    fail("not recovered; counters: " + subscriber.counters());
                }
            }

            sideA.incremental.send(messages.subList(1000, 2000), 5);
            sideB.incremental.send(messages.subList(1000, 2000), 5);
            pollUntil(() -> subscriber.expectedSequence(PARTITION) == 2001, subscriber);

            assertEquals(MarketScript.stateAfter(messages, messages.size()).dump(), listener.books.dump());
            assertTrue(listener.clean(), "nothing applied twice");
            final SubscriberCounters counters = subscriber.counters();
            assertEquals(1, counters.staleEvents(StaleReason.GAP));
            assertEquals(1, counters.staleEvents());
            assertEquals(1, counters.snapshotsApplied());
            assertEquals(1, counters.recoveries());
            assertEquals("STALE 0 GAP 506", listener.events.get(0));
            assertTrue(listener.events.get(listener.events.size() - 1).matches("RECOVERED 0 \\d+ 1000"),
                "recovered from a snapshot at chain position 1000: " + listener.events);
        }
    }

    @Test
    void aSpanBothSidesLoseInTheBacklogANewerSnapshotHoldsIsNoSecondGap()
    {
        // CI, PairTest: a stopped subscriber, still catching up its backlog after recovering from a snapshot newer
        // than what it had read, lost a span both sides lacked below that snapshot: it was stale again for a stretch
        // the snapshot held, and recovered again. Such a span lacks nothing.
        final List<byte[]> messages = MarketScript.generate(10, 2000, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        try (PartitionFeed sideA = new PartitionFeed(media, channel(40821), 3200, PARTITION);
            PartitionFeed sideB = new PartitionFeed(media, channel(40823), 3300, PARTITION);
            FeedSubscriber subscriber = pair(sideA, sideB, listener,
                new FeedSubscriber.Context().arbitrationWaitNs(TimeUnit.MILLISECONDS.toNanos(50))))
        {
            TestMedia.awaitConnected(subscriber, sideA.incremental.publication(), sideB.incremental.publication());
            final Set<Integer> first = Set.of(20); // messages 101..105
            sideA.incremental.send(messages.subList(0, 200), 5, first::contains);
            sideB.incremental.send(messages.subList(0, 200), 5, first::contains);
            pollUntil(() -> subscriber.expectedSequence(PARTITION) == 201 && subscriber.isStale(PARTITION), subscriber);
            assertEquals(List.of("STALE 0 GAP 106"), listener.events);

            final MarketScript.State at1500 = MarketScript.stateAfter(messages, 1500);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            long snapshotId = 100;
            while (subscriber.isStale(PARTITION))
            {
                sideA.snapshots.trySend(StreamPublisher.snapshot(
                    PARTITION, snapshotId++, sideA.incremental.sessionId(), at1500, 1500), 4, i -> false);
                TestMedia.pollFor(100, subscriber);
                if (System.nanoTime() > deadline)
                {
                    fail("not recovered; counters: " + subscriber.counters());
                }
            }
            final Set<Integer> second = Set.of(60); // messages 501..505, which the snapshot holds
            sideA.incremental.send(messages.subList(200, 2000), 5, second::contains);
            sideB.incremental.send(messages.subList(200, 2000), 5, second::contains);
            pollUntil(() -> subscriber.expectedSequence(PARTITION) == 2001, subscriber);
            TestMedia.pollFor(100, subscriber); // past the arbitration wait

            assertEquals(MarketScript.stateAfter(messages, messages.size()).dump(), listener.books.dump());
            assertTrue(listener.clean(), "nothing applied twice");
            final List<String> staleAndRecovered = listener.events.stream()
                .filter(event -> event.startsWith("STALE") || event.startsWith("RECOVERED")).toList();
            assertEquals(2, staleAndRecovered.size(), "stale once, recovered once: " + listener.events);
            assertTrue(staleAndRecovered.get(1).matches("RECOVERED 0 \\d+ 1500"), listener.events.toString());
            final SubscriberCounters counters = subscriber.counters();
            assertEquals(1, counters.gaps(), "the covered span is no gap: " + counters);
            assertEquals(1, counters.staleEvents());
            assertEquals(1, counters.snapshotsApplied());
            assertFalse(subscriber.isStale(PARTITION));
        }
    }

    @Test
    void aSideThatAnnouncesAnotherPartitionCountIsRefusedLoudlyAndTheOtherServesAlone()
    {
        final List<byte[]> messages = MarketScript.generate(9, 1000, INSTRUMENTS, true);
        final RecordingListener listener = new RecordingListener();
        final List<Throwable> errors = new ArrayList<>();
        try (PartitionFeed sideA = new PartitionFeed(media, channel(40809), 2600, PARTITION);
            PartitionFeed sideB = new PartitionFeed(media, channel(40811), 2700, PARTITION);
            FeedSubscriber subscriber = pair(sideA, sideB, listener,
                new FeedSubscriber.Context().errorHandler(errors::add)))
        {
            TestMedia.awaitConnected(subscriber, sideA.incremental.publication(), sideB.incremental.publication());
            sideA.incremental.chainHeartbeat(1, "DAY1");
            sideB.incremental.chainHeartbeat(3, "DAY1");
            sideA.incremental.send(messages, 5);
            sideB.incremental.send(messages, 5);
            pollUntil(() -> subscriber.expectedSequence(PARTITION) == 1001 &&
                subscriber.counters().sideRefused(1) == 1 + 200, subscriber);

            assertDeliveredOnceInOrder(messages, listener);
            assertTrue(subscriber.isSideRefused(PARTITION, 1));
            assertFalse(subscriber.isSideRefused(PARTITION, 0));
            assertEquals(0, subscriber.counters().sideMessages(1), "nothing of side B mixed in");
            assertEquals(1, errors.size(), "reported once: " + errors);
            assertEquals("side B of partition 0 refused: it announces 3 partitions, the feed has 1; its messages are " +
                "dropped while it disagrees (docs/SDK.md, pairs)", errors.get(0).getMessage());
            assertEquals(0, subscriber.counters().staleEvents());
        }
    }

    @Test
    void aSideOfAnotherExchangeSessionIsRefused()
    {
        final List<byte[]> messages = MarketScript.generate(10, 500, INSTRUMENTS, false);
        final RecordingListener listener = new RecordingListener();
        final List<Throwable> errors = new ArrayList<>();
        try (PartitionFeed sideA = new PartitionFeed(media, channel(40813), 2800, PARTITION);
            PartitionFeed sideB = new PartitionFeed(media, channel(40815), 2900, PARTITION);
            FeedSubscriber subscriber = pair(sideA, sideB, listener,
                new FeedSubscriber.Context().errorHandler(errors::add)))
        {
            TestMedia.awaitConnected(subscriber, sideA.incremental.publication(), sideB.incremental.publication());
            sideA.incremental.chainHeartbeat(1, "DAY1");
            pollUntil(() -> subscriber.counters().heartbeats() == 1, subscriber);
            sideB.incremental.chainHeartbeat(1, "DAY2");
            sideA.incremental.send(messages, 5);
            sideB.incremental.send(messages, 5);
            pollUntil(() -> subscriber.expectedSequence(PARTITION) == 501 &&
                subscriber.counters().sideRefused(1) == 1 + 100, subscriber);

            assertDeliveredOnceInOrder(messages, listener);
            assertEquals(0, subscriber.counters().sideMessages(1));
            assertEquals(1, errors.size(), "reported once: " + errors);
            assertTrue(errors.get(0).getMessage().contains("another exchange session"), errors.get(0).getMessage());

            sideB.incremental.chainHeartbeat(1, "DAY1");
            pollUntil(() -> !subscriber.isSideRefused(PARTITION, 1), subscriber);
            assertEquals(2, errors.size());
            assertEquals("side B of partition 0 agrees again: its messages are taken", errors.get(1).getMessage());
        }
    }

    @Test
    void aSideOfASchemaVersionWithoutTheChainIsRefusedUntilItPublishesOneWithIt()
    {
        final List<byte[]> messages = MarketScript.generate(12, 500, INSTRUMENTS, false);
        final RecordingListener listener = new RecordingListener();
        final List<Throwable> errors = new ArrayList<>();
        try (PartitionFeed sideA = new PartitionFeed(media, channel(40817), 3000, PARTITION);
            PartitionFeed sideB = new PartitionFeed(media, channel(40819), 3100, PARTITION);
            FeedSubscriber subscriber = pair(sideA, sideB, listener,
                new FeedSubscriber.Context().errorHandler(errors::add)))
        {
            TestMedia.awaitConnected(subscriber, sideA.incremental.publication(), sideB.incremental.publication());
            sideA.incremental.chainHeartbeat(1, "DAY1");
            // Side B runs a fanout from before the pair's schema (version 1): its heartbeat carries no chain.
            final PacketWriter old = new PacketWriter();
            TestMedia.offer(sideB.incremental.publication(), old.buffer(), old.heartbeatOfVersionOne(PARTITION, 1, 1));
            pollUntil(() -> subscriber.isSideRefused(PARTITION, 1), subscriber);
            sideA.incremental.send(messages, 5);
            pollUntil(() -> subscriber.expectedSequence(PARTITION) == 501, subscriber);

            assertDeliveredOnceInOrder(messages, listener);
            assertFalse(subscriber.isSideRefused(PARTITION, 0));
            assertEquals(0, subscriber.counters().sideMessages(1), "nothing of side B mixed in");
            assertEquals(1, subscriber.counters().sideRefused(1));
            assertEquals(1, errors.size(), "reported once: " + errors);
            assertEquals("side B of partition 0 refused: it publishes a schema version before 4, without the chain of " +
                "exchange sequences a pair is arbitrated by (docs/UPGRADING.md); its messages are dropped while it " +
                "disagrees (docs/SDK.md, pairs)", errors.get(0).getMessage());
            assertEquals(0, subscriber.counters().staleEvents());
            assertEquals(0, subscriber.counters().malformed(), "an older version is valid, not malformed");

            // Side B upgraded: its heartbeat of version 4 is taken again.
            sideB.incremental.chainHeartbeat(1, "DAY1");
            pollUntil(() -> !subscriber.isSideRefused(PARTITION, 1), subscriber);
            assertEquals(2, errors.size());
            assertEquals("side B of partition 0 agrees again: its messages are taken", errors.get(1).getMessage());
        }
    }

    @Test
    void oneSideSilentIsNotStaleAndBothSidesSilentIs()
    {
        final List<byte[]> messages = MarketScript.generate(11, 1500, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        try (PartitionFeed sideA = new PartitionFeed(media, channel(40817), 3000, PARTITION);
            PartitionFeed sideB = new PartitionFeed(media, channel(40819), 3100, PARTITION);
            FeedSubscriber subscriber = pair(sideA, sideB, listener,
                new FeedSubscriber.Context().silentTimeoutNs(TimeUnit.MILLISECONDS.toNanos(300))))
        {
            TestMedia.awaitConnected(subscriber, sideA.incremental.publication(), sideB.incremental.publication());
            sideA.incremental.send(messages.subList(0, 1000), 5);
            sideB.incremental.send(messages.subList(0, 1000), 5);
            pollUntil(() -> subscriber.expectedSequence(PARTITION) == 1001, subscriber);

            // Side A stops; side B goes on, heartbeating while it has nothing to send.
            for (int i = 1000; i < 1500; i += 50)
            {
                sideB.incremental.send(messages.subList(i, i + 50), 5);
                sideB.incremental.chainHeartbeat(1, "");
                TestMedia.pollFor(60, subscriber);
            }
            pollUntil(() -> subscriber.expectedSequence(PARTITION) == 1501, subscriber);
            assertTrue(subscriber.isSideSilent(PARTITION, 0), "side A is silent");
            assertFalse(subscriber.isSideSilent(PARTITION, 1));
            assertEquals(1, subscriber.counters().sideSilentPartitions(0));
            assertFalse(subscriber.isStale(PARTITION), "side B serves the partition");
            assertEquals(List.of(), listener.events);

            pollUntil(() -> subscriber.isStale(PARTITION), subscriber); // now neither side says anything
            assertEquals(List.of("SILENT 0", "STALE 0 SILENT 1501"), listener.events);
        }
    }
}
