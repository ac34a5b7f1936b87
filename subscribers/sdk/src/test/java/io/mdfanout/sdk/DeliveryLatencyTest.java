package io.mdfanout.sdk;

import io.aeron.ExclusivePublication;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.wire.Partitioning;
import org.agrona.collections.LongArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The delivery latency the SDK reports (its wall clock minus the packet's sendingTime) is accurate to
 * microseconds, not to the millisecond of a clock sampled from System.currentTimeMillis() (whose readings lag the
 * wall clock by up to 1 ms): a packet stamped with the wall clock just before it is sent is delivered neither
 * before it was sent nor later than the poll that returned it. Over IPC and polled without pause, so that delivery
 * takes microseconds and a lagging clock shows as a negative latency.
 */
class DeliveryLatencyTest
{
    private static final String CHANNEL = "aeron:ipc";
    private static final int STREAM_ID_BASE = 1500;
    private static final long TOLERANCE_NS = TimeUnit.MICROSECONDS.toNanos(100);

    @RegisterExtension
    static final TestMedia media = TestMedia.perClass();

    @Test
    void recordsEachPacketsAgeToTheMicrosecond()
    {
        final String channel = CHANNEL;
        final LongArrayList latencies = new LongArrayList();
        final MarketDataListener listener = new MarketDataListener()
        {
        };
        try (FeedSubscriber subscriber = new FeedSubscriber(media.context(channel, STREAM_ID_BASE, 0).listener(listener)
            .deliveryLatencyRecorder(latencies::addLong));
            ExclusivePublication publication = media.publication(channel, Partitioning.streamId(STREAM_ID_BASE, 0)))
        {
            TestMedia.awaitConnected(subscriber, publication);
            final PacketWriter writer = new PacketWriter();
            final int packets = 20;
            for (int i = 0; i < packets; i++)
            {
                final long sentEpochNs = wallClockNs();
                writer.begin(0, 1 + i, sentEpochNs);
                writer.systemEvent().exchangeSequence(1 + i).exchangeTimestamp(0).instrumentId(0)
                    .eventCode(SystemEventCode.START_OF_MARKET_HOURS);
                TestMedia.offer(publication, writer.buffer(), writer.finish());
                final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (latencies.size() <= i)
                {
                    subscriber.poll(10);
                    assertTrue(System.nanoTime() < deadlineNs, "packet " + i + " not delivered within 10 s");
                }
                final long deliveredBy = wallClockNs() - sentEpochNs;

                final long latency = latencies.getLong(i);
                assertTrue(latency >= -TOLERANCE_NS && latency <= deliveredBy + TOLERANCE_NS,
                    "packet " + i + ": delivery latency " + latency + " ns, delivered within " + deliveredBy + " ns");
            }
            assertEquals(packets, latencies.size());
        }
    }

    private static long wallClockNs()
    {
        final Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }
}
