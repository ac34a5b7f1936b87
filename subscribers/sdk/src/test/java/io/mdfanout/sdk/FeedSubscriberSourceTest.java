package io.mdfanout.sdk;

import io.aeron.ExclusivePublication;
import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.wire.Partitioning;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Source liveness (issue 26) over real Aeron multicast: a fanout's heartbeat that says its feed handler does
 * not deliver makes the partition stale with {@link StaleReason#SOURCE_DOWN}, once; a heartbeat saying LIVE,
 * or data, makes it good again at once (no snapshot: the stream lost nothing), unless a gap happened meanwhile,
 * which the snapshot recovery repairs. The subscriber's clock is the test's, so stale durations are exact.
 */
class FeedSubscriberSourceTest
{
    private static final int PARTITION = 0;
    private static final long[] INSTRUMENTS = { 1, 2, 3, 5, 8 };

    @RegisterExtension
    static final TestMedia media = TestMedia.perClass();

    private final CachedNanoClock clock = new CachedNanoClock();

    private static String channel(final int port)
    {
        return TestMedia.channel("224.0.1.73", port);
    }

    private FeedSubscriber subscriber(
        final String channel, final int streamIdBase, final MarketDataListener listener, final boolean recovery)
    {
        return new FeedSubscriber(media.context(channel, streamIdBase, PARTITION).listener(listener)
            .nanoClock(clock).recoveryEnabled(recovery));
    }




    /** Send a heartbeat and poll until the subscriber has taken it. */
    private static void heartbeat(
        final StreamPublisher publisher, final FeedSubscriber subscriber, final SourceStatus status)
    {
        final long before = subscriber.counters().heartbeats();
        publisher.heartbeat(status);
        TestMedia.pollUntil(subscriber, () -> subscriber.counters().heartbeats() > before);
    }

    @Test
    void aDeadFeedHandlerMakesThePartitionStaleOnceAndALiveHeartbeatRecoversItWithoutASnapshot()
    {
        final String channel = channel(40801);
        final int base = 3100;
        final List<byte[]> messages = MarketScript.generate(11, 200, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        try (StreamPublisher incremental = media.incremental(channel, base, PARTITION);
            FeedSubscriber subscriber = subscriber(channel, base, listener, true))
        {
            TestMedia.awaitConnected(subscriber, incremental.publication());
            heartbeat(incremental, subscriber, SourceStatus.LIVE);
            incremental.send(messages.subList(0, 100), 5);
            TestMedia.pollUntil(subscriber, () -> subscriber.expectedSequence(PARTITION) == 101);
            assertEquals(List.of(), listener.events, "joined at sequence 1 with a live source: good from the start");
            assertEquals(SourceStatus.LIVE, subscriber.sourceStatus(PARTITION));

            heartbeat(incremental, subscriber, SourceStatus.FEED_HANDLER_DOWN);
            assertEquals(List.of("STALE 0 SOURCE_DOWN 101"), listener.events);
            assertTrue(subscriber.isStale(PARTITION));
            assertFalse(subscriber.isRecovering(PARTITION), "nothing of the stream is missing");
            assertEquals(SourceStatus.FEED_HANDLER_DOWN, subscriber.sourceStatus(PARTITION));
            assertEquals(1, subscriber.counters().stalePartitions(), "stale now, because of its source");
            assertEquals(0, subscriber.counters().recoveringPartitions());

            clock.advance(TimeUnit.MILLISECONDS.toNanos(700));
            heartbeat(incremental, subscriber, SourceStatus.FEED_HANDLER_DOWN);
            heartbeat(incremental, subscriber, SourceStatus.UNKNOWN);
            assertEquals(1, listener.events.size(), "reported once per outage; unknown says nothing");

            heartbeat(incremental, subscriber, SourceStatus.LIVE);
            assertEquals(List.of("STALE 0 SOURCE_DOWN 101", "RECOVERED 0 0 100"), listener.events,
                "snapshot id 0: recovered without a snapshot, through the last sequence delivered");
            assertEquals(List.of(TimeUnit.MILLISECONDS.toNanos(700)), listener.staleForNanos);
            assertFalse(subscriber.isStale(PARTITION));
            assertEquals(0, subscriber.counters().stalePartitions());

            incremental.send(messages.subList(100, 200), 5);
            TestMedia.pollUntil(subscriber, () -> subscriber.expectedSequence(PARTITION) == 201);
            assertEquals(MarketScript.stateAfter(messages, 200).dump(), listener.books.dump());
            assertTrue(listener.clean());
            final SubscriberCounters counters = subscriber.counters();
            assertEquals(1, counters.staleEvents(StaleReason.SOURCE_DOWN));
            assertEquals(1, counters.staleEvents());
            assertEquals(1, counters.recoveries());
            assertEquals(0, counters.snapshotsApplied());
            assertEquals(0, counters.gaps());
        }
    }

    @Test
    void dataFlowingAgainEndsTheOutageBeforeItIsDelivered()
    {
        final String channel = channel(40803);
        final int base = 3200;
        final List<byte[]> messages = MarketScript.generate(13, 100, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        try (StreamPublisher incremental = media.incremental(channel, base, PARTITION);
            FeedSubscriber subscriber = subscriber(channel, base, listener, true))
        {
            TestMedia.awaitConnected(subscriber, incremental.publication());
            incremental.send(messages.subList(0, 50), 5);
            TestMedia.pollUntil(subscriber, () -> subscriber.expectedSequence(PARTITION) == 51);

            for (final SourceStatus down : new SourceStatus[]{
                SourceStatus.LINES_SILENT, SourceStatus.LOADING, SourceStatus.STOPPED, SourceStatus.FEED_HANDLER_DOWN })
            {
                listener.events.clear();
                final long delivered = listener.incrementalMessages;
                heartbeat(incremental, subscriber, down);
                assertEquals(List.of("STALE 0 SOURCE_DOWN " + incremental.nextSequence()), listener.events, down.name());
                clock.advance(TimeUnit.MILLISECONDS.toNanos(250));
                final long next = incremental.nextSequence();
                incremental.send(messages.subList((int)next - 1, (int)next + 4), 5);
                TestMedia.pollUntil(subscriber, () -> subscriber.expectedSequence(PARTITION) == next + 5);
                assertEquals(List.of("STALE 0 SOURCE_DOWN " + next, "RECOVERED 0 0 " + (next - 1)), listener.events,
                    down.name() + ": recovered before the packet's messages");
                assertEquals(delivered + 5, listener.incrementalMessages, "delivered, not held back");
                assertFalse(subscriber.isStale(PARTITION));
            }
            assertEquals(4, subscriber.counters().staleEvents(StaleReason.SOURCE_DOWN));
            assertEquals(4, subscriber.counters().recoveries());
            assertEquals(MarketScript.stateAfter(messages, 70).dump(), listener.books.dump());
        }
    }

    /**
     * Something else went wrong during the outage (here a gap, seen on a heartbeat): the books are no longer
     * right, so the usual snapshot recovery applies; a snapshot applied while the source is still down leaves
     * the partition stale until the source is live, and the recovery then names that snapshot.
     */
    @Test
    void aGapDuringTheOutageNeedsASnapshotAndTheRecoveryWaitsForTheSource()
    {
        final List<byte[]> messages = MarketScript.generate(17, 300, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        try (PartitionFeed feed = new PartitionFeed(media, channel(40805), 3300, PARTITION);
            FeedSubscriber subscriber = subscriber(feed.channel, feed.streamIdBase, listener, true))
        {
            TestMedia.awaitConnected(subscriber, feed.incremental.publication());
            feed.incremental.send(messages.subList(0, 100), 5);
            TestMedia.pollUntil(subscriber, () -> subscriber.expectedSequence(PARTITION) == 101);
            heartbeat(feed.incremental, subscriber, SourceStatus.FEED_HANDLER_DOWN);
            clock.advance(TimeUnit.MILLISECONDS.toNanos(100));

            feed.incremental.send(messages.subList(100, 110), 5, packet -> true); // lost on the way: 101..110
            heartbeat(feed.incremental, subscriber, SourceStatus.FEED_HANDLER_DOWN);
            assertEquals(List.of("STALE 0 SOURCE_DOWN 101", "STALE 0 GAP 111"), listener.events);
            assertTrue(subscriber.isRecovering(PARTITION));
            assertEquals(1, subscriber.counters().stalePartitions(), "one partition, stale for two reasons");
            assertEquals(1, subscriber.counters().recoveringPartitions());

            final MarketScript.State at110 = MarketScript.stateAfter(messages, 110);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            long snapshotId = 7;
            while (subscriber.isRecovering(PARTITION))
            {
                feed.snapshots.trySend(
                    StreamPublisher.snapshot(PARTITION, snapshotId++, feed.incremental.sessionId(), at110, 110),
                    4, i -> false);
                final long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
                while (System.nanoTime() < until)
                {
                    subscriber.poll(10);
                }
                assertTrue(System.nanoTime() < deadline, "not recovered: " + subscriber.counters());
            }
            assertEquals(1, subscriber.counters().snapshotsApplied());
            assertTrue(subscriber.isStale(PARTITION), "the books are right again, but the source is still down");
            assertEquals(1, subscriber.counters().stalePartitions());
            assertEquals(0, subscriber.counters().recoveringPartitions());
            assertEquals(0, subscriber.counters().recoveries());
            assertEquals(at110.dump(), listener.books.dump());

            clock.advance(TimeUnit.MILLISECONDS.toNanos(400));
            heartbeat(feed.incremental, subscriber, SourceStatus.LIVE);
            assertFalse(subscriber.isStale(PARTITION));
            final String recovered = listener.events.get(listener.events.size() - 1);
            assertTrue(recovered.matches("RECOVERED 0 ([7-9]|[1-9][0-9]+) 110"), recovered + " names the snapshot applied");
            assertEquals(List.of(TimeUnit.MILLISECONDS.toNanos(500)), listener.staleForNanos, "stale since the source went down");

            feed.incremental.send(messages.subList(110, 300), 5);
            TestMedia.pollUntil(subscriber, () -> subscriber.expectedSequence(PARTITION) == 301);
            assertEquals(MarketScript.stateAfter(messages, 300).dump(), listener.books.dump());
            assertTrue(listener.clean());
            assertEquals(1, subscriber.counters().recoveries());
        }
    }

    @Test
    void withRecoveryOffTheSourceIsStillReportedAndNothingIsHeldBack()
    {
        final String channel = channel(40807);
        final int base = 3400;
        final List<byte[]> messages = MarketScript.generate(19, 60, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        try (StreamPublisher incremental = media.incremental(channel, base, PARTITION);
            FeedSubscriber subscriber = subscriber(channel, base, listener, false))
        {
            TestMedia.awaitConnected(subscriber, incremental.publication());
            incremental.send(messages.subList(0, 30), 5);
            TestMedia.pollUntil(subscriber, () -> subscriber.expectedSequence(PARTITION) == 31);
            heartbeat(incremental, subscriber, SourceStatus.STOPPED);
            assertEquals(List.of("STALE 0 SOURCE_DOWN 31"), listener.events);
            assertTrue(subscriber.isStale(PARTITION));
            incremental.send(messages.subList(30, 60), 5);
            TestMedia.pollUntil(subscriber, () -> subscriber.expectedSequence(PARTITION) == 61);
            assertEquals(List.of("STALE 0 SOURCE_DOWN 31", "RECOVERED 0 0 30"), listener.events);
            assertEquals(60, listener.incrementalMessages);
            assertEquals(MarketScript.stateAfter(messages, 60).dump(), listener.books.dump());
        }
    }

    /**
     * A fanout of schema version 1 sends shorter heartbeats without a source status: accepted, changing nothing;
     * so is a status value this build does not know.
     */
    @Test
    void heartbeatsOfAnOlderFanoutAreAcceptedAndSayNothingOfTheSource()
    {
        final String channel = channel(40809);
        final int base = 3500;
        final BookAndEventListener listener = new BookAndEventListener();
        final PacketWriter writer = new PacketWriter();
        try (ExclusivePublication publication = media.publication(channel, Partitioning.streamId(base, PARTITION));
            FeedSubscriber subscriber = subscriber(channel, base, listener, true))
        {
            TestMedia.awaitConnected(subscriber, publication);
            TestMedia.offer(publication, writer.buffer(), writer.heartbeatOfVersionOne(PARTITION, 1, 1));
            TestMedia.pollUntil(subscriber, () -> 1 == subscriber.counters().heartbeats());
            assertEquals(SourceStatus.NULL_VAL, subscriber.sourceStatus(PARTITION));
            assertEquals(List.of(), listener.events);
            assertEquals(0, subscriber.counters().malformed());

            // The same short block claiming version 2 lacks the fields it says it has.
            TestMedia.offer(publication, writer.buffer(), writer.heartbeatOfVersionOne(PARTITION, 1, 2));
            TestMedia.pollUntil(subscriber, () -> 1 == subscriber.counters().malformed(MalformedReason.SHORT_BLOCK_LENGTH));
            assertEquals(1, subscriber.counters().heartbeats());

            // A status a newer fanout may define: says nothing to this build, and never throws out of poll().
            final int length = writer.heartbeat(PARTITION, 1, 2, SourceStatus.LIVE);
            writer.buffer().putByte(PacketWriter.HEADER_LENGTH + io.mdfanout.sbe.HeartbeatEncoder.sourceStatusEncodingOffset(),
                (byte)9);
            TestMedia.offer(publication, writer.buffer(), length);
            TestMedia.pollUntil(subscriber, () -> 2 == subscriber.counters().heartbeats());
            assertEquals(SourceStatus.NULL_VAL, subscriber.sourceStatus(PARTITION));
            assertEquals(List.of(), listener.events);
            assertEquals(0, subscriber.counters().listenerErrors());
        }
    }
}
