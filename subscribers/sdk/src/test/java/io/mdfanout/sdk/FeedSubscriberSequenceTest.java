package io.mdfanout.sdk;

import io.aeron.ExclusivePublication;
import io.mdfanout.sbe.Side;
import io.mdfanout.wire.Partitioning;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Stream sequence tracking over real Aeron: join, gaps with their exact range, duplicate packets,
 * partial overlaps and heartbeats that reveal a gap, with recovery off (every message delivered as received).
 */
class FeedSubscriberSequenceTest
{
    private static final int PORT = 42201;

    @RegisterExtension
    static final TestMedia media = TestMedia.perClass();

    private final PacketWriter writer = new PacketWriter();

    @Test
    void shouldReportJoinGapsDuplicatesAndOverlaps()
    {
        final int streamIdBase = 1200;
        final int partition = 2;
        final String channel = TestMedia.channel(PORT);
        final RecordingListener listener = new RecordingListener();
        try (FeedSubscriber subscriber = new FeedSubscriber(
            media.context(channel, streamIdBase, partition).listener(listener).recoveryEnabled(false));
            ExclusivePublication publication = media.publication(channel, Partitioning.streamId(streamIdBase, partition)))
        {
            TestMedia.awaitConnected(subscriber, publication);

            send(publication, partition, 1, 3);
            send(publication, partition, 6, 2);     // 4..5 lost
            send(publication, partition, 6, 2);     // duplicate
            send(publication, partition, 7, 3);     // overlaps 7: only 8, 9 are new
            heartbeat(publication, partition, 12);  // 10..11 lost
            heartbeat(publication, partition, 12);  // nothing new
            send(publication, partition, 12, 1);

            TestMedia.pollUntil(subscriber, () -> listener.sequences.contains(12L));
            TestMedia.pollFor(subscriber, 50);

            assertEquals(List.of(1L, 2L, 3L, 6L, 7L, 8L, 9L, 12L), listener.sequences);
            assertEquals(List.of(
                "joined 2 1",
                "gap 2 4 5",
                "gap 2 10 11",
                "heartbeat 2 12 77",
                "heartbeat 2 12 77"), listener.events);

            final SubscriberCounters counters = subscriber.counters();
            assertEquals(5, counters.packets());
            assertEquals(2, counters.heartbeats());
            assertEquals(8, counters.messages());
            assertEquals(2, counters.gaps());
            assertEquals(4, counters.missingMessages());
            assertEquals(1, counters.duplicatePackets());
            assertEquals(3, counters.duplicateMessages());
            assertEquals(0, counters.malformed());
            assertEquals(13, subscriber.expectedSequence(partition));
        }
    }

    @Test
    void shouldJoinLateAtTheFirstSequenceSeenAndFromAHeartbeat()
    {
        final int streamIdBase = 1210;
        final String channel = TestMedia.channel(PORT + 1);
        final RecordingListener listener = new RecordingListener();
        try (FeedSubscriber subscriber = new FeedSubscriber(media.context(channel, streamIdBase)
            .partitionCount(2).listener(listener).recoveryEnabled(false));
            ExclusivePublication partition0 = media.publication(channel, Partitioning.streamId(streamIdBase, 0));
            ExclusivePublication partition1 = media.publication(channel, Partitioning.streamId(streamIdBase, 1)))
        {
            TestMedia.awaitConnected(subscriber, partition0, partition1);

            send(partition0, 0, 1000, 2);       // late join: no gap for 1..999
            heartbeat(partition1, 1, 50);       // joined from a heartbeat
            send(partition1, 1, 50, 1);

            TestMedia.pollUntil(subscriber, () -> listener.sequences.size() == 3);
            TestMedia.pollFor(subscriber, 50);

            assertEquals(List.of("joined 0 1000", "joined 1 50", "heartbeat 1 50 77"), listener.events);
            assertEquals(List.of(1000L, 1001L, 50L), listener.sequences);
            assertEquals(0, subscriber.counters().gaps());
            assertEquals(1002, subscriber.expectedSequence(0));
            assertEquals(51, subscriber.expectedSequence(1));
        }
    }

    private void send(
        final ExclusivePublication publication, final int partition, final long firstSequence, final int count)
    {
        writer.begin(partition, firstSequence, 77);
        for (int i = 0; i < count; i++)
        {
            writer.addOrder().exchangeSequence(firstSequence + i).exchangeTimestamp(1).instrumentId(5)
                .orderId(firstSequence + i).shares(100).side(Side.BUY).price().mantissa(10_000);
        }
        TestMedia.offer(publication, writer.buffer(), writer.finish());
    }

    private void heartbeat(final ExclusivePublication publication, final int partition, final long nextSequence)
    {
        TestMedia.offer(publication, writer.buffer(), writer.heartbeat(partition, nextSequence, 77));
    }
}
