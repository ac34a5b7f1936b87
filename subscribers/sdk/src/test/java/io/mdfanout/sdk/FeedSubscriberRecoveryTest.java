package io.mdfanout.sdk;

import io.mdfanout.sbe.GapNoticeEncoder;
import io.mdfanout.sbe.GapReason;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.SnapshotBeginEncoder;
import io.mdfanout.wire.MarketSession;
import io.mdfanout.wire.WireFormat;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Recovery over real Aeron multicast: late join, gaps, snapshot loss, recovery buffer overflow, a
 * new publisher session and the per-instrument replay filter, each ending with books identical to
 * an independent reference (and to a subscriber that saw everything), plus liveness.
 */
class FeedSubscriberRecoveryTest
{
    private static final int PARTITION = 0;
    private static final long[] INSTRUMENTS = { 1, 2, 3, 5, 8 };

    @RegisterExtension
    static final TestMedia media = TestMedia.perClass();

    private static String channel(final int port)
    {
        return TestMedia.channel("224.0.1.71", port);
    }

    private static FeedSubscriber subscriber(
        final String channel, final int streamIdBase, final MarketDataListener listener,
        final FeedSubscriber.Context options)
    {
        return new FeedSubscriber(options.aeron(media.aeron()).channel(channel).streamIdBase(streamIdBase)
            .partitions(new int[]{ PARTITION }).listener(listener));
    }

    private static void pollUntil(final BooleanSupplier condition, final FeedSubscriber... subscribers)
    {
        TestMedia.pollUntil(TimeUnit.SECONDS.toNanos(10), condition, subscribers);
    }

    private static void pollFor(final long millis, final FeedSubscriber... subscribers)
    {
        TestMedia.pollFor(millis, subscribers);
    }

    /** Like a fanout: publish a snapshot (a fresh one each time) every 100 ms until the subscriber is live. */
    private static void snapshotUntilRecovered(
        final StreamPublisher snapshots, final FeedSubscriber subscriber, final LongFunction<List<byte[]>> snapshot)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long snapshotId = 100;
        while (subscriber.isStale(PARTITION))
        {
            snapshots.trySend(snapshot.apply(snapshotId++), 4, i -> false);
            pollFor(100, subscriber);
            if (System.nanoTime() > deadline)
            {
                fail("not recovered; counters: " + subscriber.counters());
            }
        }
    }

    @Test
    void lateJoinerRecoversToTheBooksOfAFullSubscriber()
    {
        final List<byte[]> messages = MarketScript.generate(1, 3000, INSTRUMENTS, true);
        final BookAndEventListener fullListener = new BookAndEventListener();
        final BookAndEventListener lateListener = new BookAndEventListener();
        try (PartitionFeed feed = new PartitionFeed(media, channel(40701), 2100, PARTITION);
            FeedSubscriber full = subscriber(feed.channel, feed.streamIdBase, fullListener, new FeedSubscriber.Context()))
        {
            TestMedia.awaitConnected(full, feed.incremental.publication());
            feed.incremental.send(messages.subList(0, 1500), 5);
            pollUntil(() -> full.expectedSequence(PARTITION) == 1501, full);

            try (FeedSubscriber late = subscriber(feed.channel, feed.streamIdBase, lateListener, new FeedSubscriber.Context()))
            {
                pollUntil(late::isConnected, full, late);
                feed.incremental.send(messages.subList(1500, 2000), 5);
                pollUntil(() -> late.expectedSequence(PARTITION) == 2001 && full.expectedSequence(PARTITION) == 2001,
                    full, late);
                assertTrue(late.isStale(PARTITION));
                assertEquals(List.of("STALE 0 LATE_JOIN 1501"), lateListener.events);
                assertTrue(lateListener.books.dump().isEmpty(), "nothing delivered while stale");
                assertEquals(1, late.counters().stalePartitions(), "a gauge of partitions stale now");
                assertEquals(1, late.counters().recoveringPartitions());
                assertEquals(MarketSession.UNKNOWN, late.marketSession(PARTITION), "joined after the start of messages");
                assertEquals(MarketSession.PRE_SESSION, full.marketSession(PARTITION));
                assertEquals(0, full.counters().stalePartitions());

                final MarketScript.State reference = MarketScript.stateAfter(messages, 2000);
                snapshotUntilRecovered(feed.snapshots, late,
                    id -> StreamPublisher.snapshot(PARTITION, id, feed.incremental.sessionId(), reference, 2000));

                assertEquals(MarketSession.PRE_SESSION, late.marketSession(PARTITION),
                    "the snapshot's last System Event, restored by the recovery");
                assertEquals(0, late.counters().stalePartitions(), "recovered: stale no more");
                assertEquals(0, late.counters().recoveringPartitions());

                feed.incremental.send(messages.subList(2000, 3000), 5);
                pollUntil(() -> late.expectedSequence(PARTITION) == 3001 && full.expectedSequence(PARTITION) == 3001,
                    full, late);

                final MarketScript.State all = MarketScript.stateAfter(messages, messages.size());
                assertFalse(all.dump().isEmpty());
                assertEquals(all.dump(), fullListener.books.dump());
                assertEquals(fullListener.books.dump(), lateListener.books.dump());
                assertEquals("SYM5", lateListener.books.directory().symbol(5));
                assertTrue(lateListener.clean(), "late books applied nothing twice");
                assertEquals("STALE 0 LATE_JOIN 1501", lateListener.events.get(0));
                assertEquals("RECOVERED 0 " + lateListener.events.get(1).split(" ")[2] + " 2000",
                    lateListener.events.get(lateListener.events.size() - 1));
                assertEquals(1, late.counters().recoveries());
                assertEquals(1, late.counters().staleEvents(StaleReason.LATE_JOIN));
                assertTrue(lateListener.snapshotMessages > 0);
                assertEquals(List.of(), fullListener.events);
                assertEquals(0, full.counters().staleEvents());
                assertEquals(MarketSession.ENDED, late.marketSession(PARTITION), "end of messages, live");
                assertEquals(MarketSession.ENDED, full.marketSession(PARTITION));
            }
        }
    }

    @Test
    void aLateJoinerRecoveredFromAStateThatLacksExchangeMessagesIsStaleWithTheExchangeGap()
    {
        final List<byte[]> messages = MarketScript.generate(3, 2000, INSTRUMENTS, true);
        final BookAndEventListener listener = new BookAndEventListener();
        try (PartitionFeed feed = new PartitionFeed(media, channel(40719), 3000, PARTITION);
            FeedSubscriber late = subscriber(feed.channel, feed.streamIdBase, listener, new FeedSubscriber.Context()))
        {
            TestMedia.awaitConnected(late, feed.incremental.publication());
            feed.incremental.nextSequence(1501);   // joins late: 1..1500 happened before, the GapNotice among them
            feed.incremental.send(messages.subList(1500, 1600), 5);
            pollUntil(() -> late.expectedSequence(PARTITION) == 1601, late);

            // The fanout's state lacks exchange messages 700..799 (its feed handler declared them lost): its
            // snapshots' SnapshotBegin says so (schema version 3).
            final MarketScript.State reference = MarketScript.stateAfter(messages, 1600);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            long snapshotId = 100;
            while (late.counters().recoveringPartitions() > 0 && System.nanoTime() < deadline)
            {
                final List<byte[]> snapshot = StreamPublisher.snapshot(
                    PARTITION, snapshotId++, feed.incremental.sessionId(), reference, 1600);
                new SnapshotBeginEncoder().wrap(new UnsafeBuffer(snapshot.get(0)), WireFormat.HEADER_LENGTH)
                    .unrecoveredFromSequence(700).unrecoveredToSequence(799);
                feed.snapshots.trySend(snapshot, 4, i -> false);
                pollFor(100, late);
            }
            assertEquals(0, late.counters().recoveringPartitions(), "the snapshot was applied: " + listener.events);
            assertTrue(late.hasExchangeGap(PARTITION), "the books it recovered lack what the fanout's state lacks");
            assertTrue(late.isStale(PARTITION), "so the partition stays stale after the recovery");
            assertEquals(1, late.counters().exchangeGapPartitions());
            assertEquals("STALE 0 LATE_JOIN 1501", listener.events.get(0));
            assertTrue(listener.events.contains("STALE 0 EXCHANGE_GAP 1600"), "said, with its own reason: " +
                listener.events);
            assertTrue(listener.events.get(listener.events.size() - 1).startsWith("RECOVERED 0 "), listener.events.toString());
        }
    }

    @Test
    void aSnapshotOfAnOlderFanoutWhoseSnapshotBeginIsVersionTwoStillRecovers()
    {
        final List<byte[]> messages = MarketScript.generate(4, 2000, INSTRUMENTS, true);
        final BookAndEventListener listener = new BookAndEventListener();
        try (PartitionFeed feed = new PartitionFeed(media, channel(40721), 3100, PARTITION);
            FeedSubscriber late = subscriber(feed.channel, feed.streamIdBase, listener, new FeedSubscriber.Context()))
        {
            TestMedia.awaitConnected(late, feed.incremental.publication());
            feed.incremental.nextSequence(1501);
            feed.incremental.send(messages.subList(1500, 1600), 5);
            pollUntil(() -> late.expectedSequence(PARTITION) == 1601, late);

            final MarketScript.State reference = MarketScript.stateAfter(messages, 1600);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            long snapshotId = 100;
            while (late.isStale(PARTITION) && System.nanoTime() < deadline)
            {
                final List<byte[]> snapshot = new java.util.ArrayList<>(StreamPublisher.snapshot(
                    PARTITION, snapshotId++, feed.incremental.sessionId(), reference, 1600));
                // What a version-2 fanout writes: the SnapshotBegin's block ends before the version-3 fields.
                final byte[] v2 = java.util.Arrays.copyOf(
                    snapshot.get(0), WireFormat.HEADER_LENGTH + WireFormat.SNAPSHOT_BEGIN_V2_BLOCK_LENGTH);
                new MessageHeaderEncoder().wrap(new UnsafeBuffer(v2), 0)
                    .blockLength(WireFormat.SNAPSHOT_BEGIN_V2_BLOCK_LENGTH).version(2);
                snapshot.set(0, v2);
                feed.snapshots.trySend(snapshot, 4, i -> false);
                pollFor(100, late);
            }
            assertFalse(late.isStale(PARTITION), "recovered from the older snapshot: " + listener.events +
                " malformed=" + late.counters().malformedSnapshotPackets());
            assertFalse(late.hasExchangeGap(PARTITION), "its missing gap fields read as nothing lost");
            assertEquals(MarketScript.stateAfter(messages, 1600).dump(), listener.books.dump());
        }
    }

    @Test
    void filterDeliversEachInstrumentOnlyWhatItsSnapshotLacks()
    {
        final List<byte[]> messages = MarketScript.generate(2, 3000, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        try (PartitionFeed feed = new PartitionFeed(media, channel(40703), 2200, PARTITION);
            FeedSubscriber late = subscriber(feed.channel, feed.streamIdBase, listener, new FeedSubscriber.Context()))
        {
            TestMedia.awaitConnected(late, feed.incremental.publication());
            feed.incremental.nextSequence(1501);   // joins late: 1..1500 happened before
            feed.incremental.send(messages.subList(1500, 2000), 5);
            pollUntil(() -> late.expectedSequence(PARTITION) == 2001, late);

            // Instrument 2 was copied at 1600, everything else at 1900: the replay must give
            // instrument 2 its messages 1601..2000 and the others only 1901..2000.
            final MarketScript.State at1600 = MarketScript.stateAfter(messages, 1600);
            final MarketScript.State at1900 = at1600.copy();
            at1900.applyAll(messages, 1600, 1900);
            snapshotUntilRecovered(feed.snapshots, late, id -> StreamPublisher.snapshot(
                PARTITION, id, feed.incremental.sessionId(), at1600, 1600, at1900, 1900, Set.of(2L)));

            feed.incremental.send(messages.subList(2000, 3000), 5);
            pollUntil(() -> late.expectedSequence(PARTITION) == 3001, late);

            final MarketScript.State all = MarketScript.stateAfter(messages, messages.size());
            assertEquals(all.dump(), listener.books.dump());
            assertTrue(listener.clean());
            assertTrue(late.counters().filteredMessages() > 0);
            assertEquals("RECOVERED 0 " + listener.events.get(1).split(" ")[2] + " 1600",
                listener.events.get(listener.events.size() - 1));
        }
    }

    @Test
    void gapWhileLiveRecovers()
    {
        final List<byte[]> messages = MarketScript.generate(3, 2000, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        try (PartitionFeed feed = new PartitionFeed(media, channel(40705), 2300, PARTITION);
            FeedSubscriber subscriber = subscriber(feed.channel, feed.streamIdBase, listener, new FeedSubscriber.Context()))
        {
            TestMedia.awaitConnected(subscriber, feed.incremental.publication());
            feed.incremental.send(messages.subList(0, 1000), 5, packet -> packet == 120);   // 601..605 lost
            pollUntil(() -> subscriber.expectedSequence(PARTITION) == 1001, subscriber);
            assertEquals(List.of("STALE 0 GAP 606"), listener.events);

            final MarketScript.State at1000 = MarketScript.stateAfter(messages, 1000);
            snapshotUntilRecovered(feed.snapshots, subscriber,
                id -> StreamPublisher.snapshot(PARTITION, id, feed.incremental.sessionId(), at1000, 1000));
            feed.incremental.send(messages.subList(1000, 2000), 5);
            pollUntil(() -> subscriber.expectedSequence(PARTITION) == 2001, subscriber);

            final MarketScript.State all = MarketScript.stateAfter(messages, messages.size());
            assertEquals(all.dump(), listener.books.dump());
            assertTrue(listener.clean());
            assertEquals(1, subscriber.counters().recoveries());
            assertEquals(1, subscriber.counters().staleEvents(StaleReason.GAP));
        }
    }

    @Test
    void aLossInTheBacklogANewerSnapshotAlreadyHoldsIsNoGap()
    {
        // A subscriber catching up a backlog recovers from a snapshot newer than what it has read: a span its stream
        // then loses at or below that snapshot lacks nothing, and is not a second stale period (CI, PairTest).
        final List<byte[]> messages = MarketScript.generate(9, 2000, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        try (PartitionFeed feed = new PartitionFeed(media, channel(40727), 2300, PARTITION);
            FeedSubscriber subscriber = subscriber(feed.channel, feed.streamIdBase, listener, new FeedSubscriber.Context()))
        {
            TestMedia.awaitConnected(subscriber, feed.incremental.publication());
            feed.incremental.send(messages.subList(0, 200), 5, packet -> packet == 20);   // 101..105 lost
            pollUntil(() -> subscriber.expectedSequence(PARTITION) == 201, subscriber);
            assertEquals(List.of("STALE 0 GAP 106"), listener.events);

            final MarketScript.State at1500 = MarketScript.stateAfter(messages, 1500);
            snapshotUntilRecovered(feed.snapshots, subscriber,
                id -> StreamPublisher.snapshot(PARTITION, id, feed.incremental.sessionId(), at1500, 1500));
            final long filteredBefore = subscriber.counters().filteredMessages();
            feed.incremental.send(messages.subList(200, 2000), 5, packet -> packet == 60); // 501..505 lost: covered
            pollUntil(() -> subscriber.expectedSequence(PARTITION) == 2001, subscriber);

            assertEquals(MarketScript.stateAfter(messages, messages.size()).dump(), listener.books.dump());
            assertTrue(listener.clean(), "nothing applied twice");
            final List<String> staleAndRecovered = listener.events.stream()
                .filter(event -> event.startsWith("STALE") || event.startsWith("RECOVERED")).toList();
            assertEquals(2, staleAndRecovered.size(), "stale once, recovered once: " + listener.events);
            assertTrue(staleAndRecovered.get(1).matches("RECOVERED 0 \\d+ 1500"), listener.events.toString());
            final SubscriberCounters counters = subscriber.counters();
            assertEquals(1, counters.gaps(), "the covered loss is no gap: " + counters);
            assertEquals(1, counters.staleEvents());
            assertEquals(1, counters.recoveries());
            assertEquals(1300, counters.filteredMessages() - filteredBefore,
                "201..1500 skipped: read and filtered, or lost and covered: " + counters);
            assertFalse(subscriber.isStale(PARTITION));
        }
    }

    @Test
    void aGapTakesTheRecoveryThroughItsStatesBackToLive()
    {
        final List<byte[]> messages = MarketScript.generate(6, 400, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        try (PartitionFeed feed = new PartitionFeed(media, channel(40717), 2900, PARTITION);
            FeedSubscriber subscriber = subscriber(feed.channel, feed.streamIdBase, listener, new FeedSubscriber.Context()))
        {
            TestMedia.awaitConnected(subscriber, feed.incremental.publication());
            assertEquals(PartitionRecovery.State.LIVE, subscriber.recoveryState(PARTITION));

            feed.incremental.send(messages.subList(0, 200), 5, packet -> packet == 10);   // 51..55 lost
            pollUntil(() -> subscriber.expectedSequence(PARTITION) == 201, subscriber);
            pollUntil(() -> PartitionRecovery.State.AWAIT_SNAPSHOT == subscriber.recoveryState(PARTITION), subscriber);
            assertTrue(subscriber.isRecovering(PARTITION), "every state but LIVE holds the incrementals back");
            assertEquals(List.of("STALE 0 GAP 56"), listener.events);

            final MarketScript.State at200 = MarketScript.stateAfter(messages, 200);
            snapshotUntilRecovered(feed.snapshots, subscriber,
                id -> StreamPublisher.snapshot(PARTITION, id, feed.incremental.sessionId(), at200, 200));
            assertEquals(PartitionRecovery.State.LIVE, subscriber.recoveryState(PARTITION));
            assertFalse(subscriber.isRecovering(PARTITION));
            assertEquals(MarketScript.stateAfter(messages, 200).dump(), listener.books.dump());
            // The applied snapshot said what it covers: the instruments above its last one, through sequence 200.
            assertEquals(1, listener.snapshotEnds.size(), listener.snapshotEnds.toString());
            final String[] end = listener.snapshotEnds.get(0).split(" ");
            assertEquals("0", end[0]);
            assertTrue(Long.parseLong(end[2]) > 1, "covered from above the snapshot's instruments: " + end[2]);
            assertEquals("200", end[3]);
        }
    }

    @Test
    void snapshotLossAbandonsTheAttemptAndTheNextSnapshotRecovers()
    {
        final List<byte[]> messages = MarketScript.generate(4, 1500, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        try (PartitionFeed feed = new PartitionFeed(media, channel(40707), 2400, PARTITION);
            FeedSubscriber late = subscriber(feed.channel, feed.streamIdBase, listener, new FeedSubscriber.Context()))
        {
            TestMedia.awaitConnected(late, feed.incremental.publication());
            feed.incremental.nextSequence(501);
            feed.incremental.send(messages.subList(500, 1000), 5);
            pollUntil(() -> late.expectedSequence(PARTITION) == 1001, late);

            final MarketScript.State at1000 = MarketScript.stateAfter(messages, 1000);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!feed.snapshots.trySend(
                StreamPublisher.snapshot(PARTITION, 1, feed.incremental.sessionId(), at1000, 1000), 4, p -> p == 2))
            {
                pollFor(20, late);
                assertTrue(System.nanoTime() < deadline, "snapshot stream never subscribed");
            }
            pollUntil(() -> late.counters().snapshotGaps() == 1, late);
            pollFor(50, late);
            assertTrue(late.isStale(PARTITION));
            assertEquals(1, late.counters().recoveryAttemptsAbandoned());
            assertEquals("BEGIN 0 1 1000", listener.events.get(1));

            snapshotUntilRecovered(feed.snapshots, late,
                id -> StreamPublisher.snapshot(PARTITION, id, feed.incremental.sessionId(), at1000, 1000));
            feed.incremental.send(messages.subList(1000, 1500), 5);
            pollUntil(() -> late.expectedSequence(PARTITION) == 1501, late);

            final MarketScript.State all = MarketScript.stateAfter(messages, messages.size());
            assertEquals(all.dump(), listener.books.dump());
            assertTrue(listener.clean());
            assertEquals(1, late.counters().recoveries());
        }
    }

    @Test
    void bufferOverflowIsCountedAndALaterSnapshotRecovers()
    {
        final List<byte[]> messages = MarketScript.generate(5, 8000, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        final FeedSubscriber.Context options = new FeedSubscriber.Context()
            .recoveryBufferBytes(FeedSubscriber.Context.MIN_RECOVERY_BUFFER_BYTES);
        try (PartitionFeed feed = new PartitionFeed(media, channel(40709), 2500, PARTITION);
            FeedSubscriber late = subscriber(feed.channel, feed.streamIdBase, listener, options))
        {
            TestMedia.awaitConnected(late, feed.incremental.publication());
            feed.incremental.nextSequence(1001);
            for (int from = 1000; from < 7000; from += 500)
            {
                feed.incremental.send(messages.subList(from, from + 500), 5);
                final long next = from + 501;
                pollUntil(() -> late.expectedSequence(PARTITION) == next, late);
            }
            assertTrue(late.counters().recoveryBufferOverflows() > 0);
            assertTrue(listener.events.contains("STALE 0 RECOVERY_BUFFER_OVERFLOW " +
                listener.events.get(listener.events.size() - 1).split(" ")[3]));

            // A snapshot from before the buffer's restart point cannot be used.
            final MarketScript.State at1000 = MarketScript.stateAfter(messages, 1000);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!feed.snapshots.trySend(
                StreamPublisher.snapshot(PARTITION, 1, feed.incremental.sessionId(), at1000, 1000), 4, p -> false))
            {
                pollFor(20, late);
                assertTrue(System.nanoTime() < deadline, "snapshot stream never subscribed");
            }
            pollUntil(() -> late.counters().snapshotsIgnored() == 1, late);

            final MarketScript.State at7000 = MarketScript.stateAfter(messages, 7000);
            snapshotUntilRecovered(feed.snapshots, late,
                id -> StreamPublisher.snapshot(PARTITION, id, feed.incremental.sessionId(), at7000, 7000));
            feed.incremental.send(messages.subList(7000, 8000), 5);
            pollUntil(() -> late.expectedSequence(PARTITION) == 8001, late);

            final MarketScript.State all = MarketScript.stateAfter(messages, messages.size());
            assertEquals(all.dump(), listener.books.dump());
            assertTrue(listener.clean());
        }
    }

    @Test
    void newPublicationMakesStaleAndOnlyItsOwnSnapshotsRecover()
    {
        final String channel = channel(40711);
        final int base = 2600;
        final List<byte[]> messages = MarketScript.generate(6, 1500, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        try (StreamPublisher snapshots = media.snapshots(channel, base, PARTITION);
            FeedSubscriber subscriber = subscriber(channel, base, listener, new FeedSubscriber.Context()))
        {
            final int oldSessionId;
            try (StreamPublisher first = media.incremental(channel, base, PARTITION))
            {
                oldSessionId = first.sessionId();
                TestMedia.awaitConnected(subscriber, first.publication());
                first.send(messages.subList(0, 1000), 5);
                pollUntil(() -> subscriber.expectedSequence(PARTITION) == 1001, subscriber);
                assertFalse(subscriber.isStale(PARTITION));
            }

            try (StreamPublisher restarted = media.incremental(channel, base, PARTITION))
            {
                restarted.nextSequence(1001);   // the restarted fanout continues its persisted sequence
                pollUntil(() -> restarted.publication().isConnected(), subscriber);
                restarted.send(messages.subList(1000, 1200), 5);
                pollUntil(() -> subscriber.expectedSequence(PARTITION) == 1201 && subscriber.isStale(PARTITION),
                    subscriber);
                assertTrue(listener.events.contains("STALE 0 NEW_PUBLICATION 1001"), listener.events.toString());

                final MarketScript.State at1200 = MarketScript.stateAfter(messages, 1200);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!snapshots.trySend(
                    StreamPublisher.snapshot(PARTITION, 1, oldSessionId, at1200, 1200), 4, p -> false))
                {
                    pollFor(20, subscriber);
                    assertTrue(System.nanoTime() < deadline, "snapshot stream never subscribed");
                }
                pollUntil(() -> subscriber.counters().snapshotsIgnored() == 1, subscriber);
                assertTrue(subscriber.isStale(PARTITION));

                snapshotUntilRecovered(snapshots, subscriber,
                    id -> StreamPublisher.snapshot(PARTITION, id, restarted.sessionId(), at1200, 1200));
                restarted.send(messages.subList(1200, 1500), 5);
                pollUntil(() -> subscriber.expectedSequence(PARTITION) == 1501, subscriber);

                final MarketScript.State all = MarketScript.stateAfter(messages, messages.size());
                assertEquals(all.dump(), listener.books.dump());
                assertTrue(listener.clean());
                assertEquals(1, subscriber.counters().staleEvents(StaleReason.NEW_PUBLICATION));
            }
        }
    }

    @Test
    void aNewPublicationWhoseSnapshotLacksNothingEndsTheExchangeGap()
    {
        final String channel = channel(40723);
        final int base = 3200;
        final List<byte[]> messages = MarketScript.generate(7, 1500, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        try (StreamPublisher snapshots = media.snapshots(channel, base, PARTITION);
            FeedSubscriber subscriber = subscriber(channel, base, listener, new FeedSubscriber.Context()))
        {
            try (StreamPublisher first = media.incremental(channel, base, PARTITION))
            {
                TestMedia.awaitConnected(subscriber, first.publication());
                final List<byte[]> withLoss = new java.util.ArrayList<>(messages.subList(0, 1000));
                withLoss.add(gapNotice(5000, 5099, GapReason.UNRECOVERED));
                first.send(withLoss, 5);
                pollUntil(() -> subscriber.expectedSequence(PARTITION) == 1002, subscriber);
                assertTrue(subscriber.hasExchangeGap(PARTITION), "the exchange's loss, live");
            }

            // The feed handler rebuilt its rings from the exchange's snapshot: the fanout follows the new
            // generation with a new publication from 1, and its state lacks nothing.
            try (StreamPublisher rebuilt = media.incremental(channel, base, PARTITION))
            {
                pollUntil(() -> rebuilt.publication().isConnected(), subscriber);
                rebuilt.send(messages.subList(0, 200), 5);
                pollUntil(() -> subscriber.expectedSequence(PARTITION) == 201, subscriber);
                assertTrue(listener.events.contains("STALE 0 NEW_PUBLICATION 1"), listener.events.toString());

                final MarketScript.State at200 = MarketScript.stateAfter(messages, 200);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                long snapshotId = 1;
                while (subscriber.counters().recoveringPartitions() > 0 && System.nanoTime() < deadline)
                {
                    snapshots.trySend(StreamPublisher.snapshot(PARTITION, snapshotId++, rebuilt.sessionId(), at200, 200),
                        4, i -> false);
                    pollFor(100, subscriber);
                }
                assertFalse(subscriber.hasExchangeGap(PARTITION), "recovered from a state that lacks nothing: " +
                    listener.events);
                assertFalse(subscriber.isStale(PARTITION));
                assertEquals(0, subscriber.counters().exchangeGapPartitions());
                assertEquals(at200.dump(), listener.books.dump());
            }
        }
    }

    @Test
    void aStreamThatEndedTheDayAndStartsAgainAtOneIsTheNextDayWithNoStaleAndNothingOfTheDayBefore()
    {
        final String channel = channel(40715);
        final int base = 2650;
        final List<byte[]> dayOne = MarketScript.generate(8, 800, INSTRUMENTS, true);
        final List<byte[]> dayTwo = MarketScript.generate(9, 600, INSTRUMENTS, true);
        final BookAndEventListener listener = new BookAndEventListener();
        try (StreamPublisher snapshots = media.snapshots(channel, base, PARTITION);
            FeedSubscriber subscriber = subscriber(channel, base, listener, new FeedSubscriber.Context()))
        {
            try (StreamPublisher first = media.incremental(channel, base, PARTITION))
            {
                TestMedia.awaitConnected(subscriber, first.publication());
                first.send(dayOne, 5);
                pollUntil(() -> subscriber.expectedSequence(PARTITION) == dayOne.size() + 1, subscriber);
            }
            assertEquals(MarketScript.stateAfter(dayOne, dayOne.size()).dump(), listener.books.dump());

            try (StreamPublisher nextDay = media.incremental(channel, base, PARTITION))
            {
                pollUntil(() -> nextDay.publication().isConnected(), subscriber);
                nextDay.send(dayTwo.subList(0, 300), 5);
                pollUntil(() -> subscriber.expectedSequence(PARTITION) == 301, subscriber);
                assertFalse(subscriber.isStale(PARTITION), "a new day is not a stale: " + listener.events);
                nextDay.send(dayTwo.subList(300, dayTwo.size()), 5);
                pollUntil(() -> subscriber.expectedSequence(PARTITION) == dayTwo.size() + 1, subscriber);
            }
            assertTrue(listener.events.contains("NEW_DAY 0"), listener.events.toString());
            assertFalse(listener.events.stream().anyMatch(event -> event.startsWith("STALE")), listener.events.toString());
            assertEquals(MarketScript.stateAfter(dayTwo, dayTwo.size()).dump(), listener.books.dump(),
                "the books hold the new day only");
            assertEquals(1, subscriber.counters().newDays());
            assertEquals(0, subscriber.counters().staleEvents());
            assertEquals(dayOne.size() + dayTwo.size(), listener.incrementalMessages, "every message of both days");
        }
    }

    @Test
    void aDayWhoseEndOfMessagesWasDeclaredLostEndsAtTheStaleNoticeAndTheNextDayFollows()
    {
        final String channel = channel(40725);
        final int base = 3250;
        final List<byte[]> dayOne = MarketScript.generate(11, 800, INSTRUMENTS, false);
        final List<byte[]> dayTwo = MarketScript.generate(12, 300, INSTRUMENTS, true);
        final BookAndEventListener listener = new BookAndEventListener();
        try (StreamPublisher snapshots = media.snapshots(channel, base, PARTITION);
            FeedSubscriber subscriber = subscriber(channel, base, listener, new FeedSubscriber.Context()))
        {
            try (StreamPublisher first = media.incremental(channel, base, PARTITION))
            {
                TestMedia.awaitConnected(subscriber, first.publication());
                // The day's last messages, its End of Messages among them, declared lost; then the feed handler's
                // word that the session ended all the same.
                final List<byte[]> withLostEnd = new java.util.ArrayList<>(dayOne);
                withLostEnd.add(gapNotice(5000, 5099, GapReason.UNRECOVERED));
                withLostEnd.add(gapNotice(5099, 5099, GapReason.STALE));
                first.send(withLostEnd, 5);
                pollUntil(() -> subscriber.expectedSequence(PARTITION) == withLostEnd.size() + 1, subscriber);
                assertTrue(subscriber.hasExchangeGap(PARTITION), "the exchange's loss");
                assertEquals(MarketSession.ENDED, subscriber.marketSession(PARTITION), "the session is over");
            }
            try (StreamPublisher nextDay = media.incremental(channel, base, PARTITION))
            {
                pollUntil(() -> nextDay.publication().isConnected(), subscriber);
                nextDay.send(dayTwo, 5);
                pollUntil(() -> subscriber.expectedSequence(PARTITION) == dayTwo.size() + 1, subscriber);
            }
            assertTrue(listener.events.contains("NEW_DAY 0"), listener.events.toString());
            assertFalse(listener.events.contains("STALE 0 NEW_PUBLICATION 1"), "the next day, not a restarted " +
                "fanout's stream: " + listener.events);
            assertFalse(subscriber.hasExchangeGap(PARTITION), "the new day lacks nothing");
            assertEquals(MarketScript.stateAfter(dayTwo, dayTwo.size()).dump(), listener.books.dump());
        }
    }

    private static byte[] gapNotice(final long first, final long last, final GapReason reason)
    {
        final UnsafeBuffer notice = new UnsafeBuffer(new byte[WireFormat.HEADER_LENGTH + GapNoticeEncoder.BLOCK_LENGTH]);
        new GapNoticeEncoder().wrapAndApplyHeader(notice, 0, new MessageHeaderEncoder()).exchangeSequence(first)
            .exchangeTimestamp(0).instrumentId(0).lastMissingSequence(last).reason(reason);
        return notice.byteArray();
    }

    @Test
    void aStreamThatStartsAgainAtOneWithoutEndingTheDayIsStale()
    {
        final String channel = channel(40717);
        final int base = 2660;
        final List<byte[]> messages = MarketScript.generate(10, 800, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        try (StreamPublisher snapshots = media.snapshots(channel, base, PARTITION);
            FeedSubscriber subscriber = subscriber(channel, base, listener, new FeedSubscriber.Context()))
        {
            try (StreamPublisher first = media.incremental(channel, base, PARTITION))
            {
                TestMedia.awaitConnected(subscriber, first.publication());
                first.send(messages.subList(0, 500), 5);
                pollUntil(() -> subscriber.expectedSequence(PARTITION) == 501, subscriber);
            }
            try (StreamPublisher restarted = media.incremental(channel, base, PARTITION))
            {
                pollUntil(() -> restarted.publication().isConnected(), subscriber);
                restarted.send(messages.subList(0, 10), 5);
                pollUntil(() -> subscriber.isStale(PARTITION), subscriber);
            }
            assertTrue(listener.events.contains("STALE 0 NEW_PUBLICATION 1"), listener.events.toString());
            assertEquals(0, subscriber.counters().newDays(), "a day that did not end is not followed by a new one");
        }
    }

    @Test
    void silentStreamIsReportedAndActiveAgainWhenDataResumes()
    {
        final String channel = channel(40713);
        final int base = 2700;
        final List<byte[]> messages = MarketScript.generate(7, 200, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        final FeedSubscriber.Context options = new FeedSubscriber.Context()
            .silentTimeoutNs(TimeUnit.MILLISECONDS.toNanos(300));
        try (StreamPublisher incremental = media.incremental(channel, base, PARTITION);
            FeedSubscriber subscriber = subscriber(channel, base, listener, options))
        {
            TestMedia.awaitConnected(subscriber, incremental.publication());
            incremental.send(messages.subList(0, 100), 5);
            pollUntil(() -> subscriber.expectedSequence(PARTITION) == 101, subscriber);
            pollFor(150, subscriber);
            assertEquals(List.of(), listener.events, "not silent before the timeout");

            pollUntil(() -> subscriber.isSilent(PARTITION), subscriber);
            assertEquals(List.of("SILENT 0", "STALE 0 SILENT 101"), listener.events);
            assertEquals(1, subscriber.counters().silentStreams());

            // Re-subscribed: heartbeats reach the new subscription once it is connected.
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (subscriber.isSilent(PARTITION))
            {
                incremental.heartbeat();
                pollFor(50, subscriber);
                assertTrue(System.nanoTime() < deadline, "never active again");
            }
            assertEquals(List.of("SILENT 0", "STALE 0 SILENT 101", "ACTIVE 0"), listener.events);
        }
    }

    @Test
    void shouldRejectBadOptionsWithAClearMessage()
    {
        final String channel = channel(40715);
        final IllegalArgumentException small = org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () -> subscriber(channel, 2800, new BookAndEventListener(), new FeedSubscriber.Context().recoveryBufferBytes(10)));
        assertTrue(small.getMessage().contains("recovery buffer"), small.getMessage());
        final IllegalArgumentException clash = org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () -> subscriber(channel, 2800, new BookAndEventListener(), new FeedSubscriber.Context().snapshotStreamIdBase(2800)));
        assertTrue(clash.getMessage().contains("snapshot stream id"), clash.getMessage());
        final IllegalArgumentException timeout = org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () -> subscriber(channel, 2800, new BookAndEventListener(), new FeedSubscriber.Context().silentTimeoutNs(0)));
        assertTrue(timeout.getMessage().contains("silent timeout"), timeout.getMessage());
    }
}
