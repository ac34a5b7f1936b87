package io.mdfanout.sdk;

import io.aeron.ExclusivePublication;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.sdk.book.BookCounters;
import io.mdfanout.sdk.book.OrderBooks;
import io.mdfanout.testing.AllocationWindows;
import io.mdfanout.wire.Partitioning;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The whole receive path (Aeron poll, validation, sequencing, decode, typed dispatch and book
 * updates, plus heartbeats, duplicates and malformed packets) allocates nothing once warm, nor does a
 * source outage: every other heartbeat says the feed handler is down, and the next packet ends it.
 */
class SteadyStateAllocationTest
{
    private static final int PORT = 42401;
    private static final int STREAM_ID_BASE = 1400;
    private static final int PARTITION = 0;
    private static final long INSTRUMENT = 42;
    private static final int WARMUP_ITERATIONS = 48_000;
    private static final int WINDOW_ITERATIONS = 16_000;

    private final PacketWriter writer = new PacketWriter();
    private long nextSequence = 1;

    private long latencySamples;

    @Test
    void shouldNotAllocateOnThePollPathInSteadyState() throws Exception
    {
        final String channel = TestMedia.channel(PORT);
        final OrderBooks books = new OrderBooks(1024, 64, new BookCounters(LocalCounters.create(4), "alloc"));

        try (TestMedia media = new TestMedia();
            FeedSubscriber subscriber = new FeedSubscriber(
                media.context(channel, STREAM_ID_BASE, PARTITION).listener(books)
                    .deliveryLatencyRecorder(this::recordLatency)
                    // A loaded machine can stall this thread past the default 2 s silence timeout, and
                    // re-subscribing a silent stream is recovery, not steady state: keep it out of the window.
                    .silentTimeoutNs(java.util.concurrent.TimeUnit.MINUTES.toNanos(5)));
            ExclusivePublication publication = media.publication(channel, Partitioning.streamId(STREAM_ID_BASE, PARTITION)))
        {
            TestMedia.awaitConnected(subscriber, publication);

            // Long enough for the JIT to compile the path (interpreted and C1 code allocate where C2 does not).
            for (int i = 0; i < WARMUP_ITERATIONS; i++)
            {
                iteration(publication, subscriber, i);
            }

            final int[] next = { WARMUP_ITERATIONS };
            final int windows = AllocationWindows.assertOneWindowAllocatesNothing(
                "on the poll path over " + WINDOW_ITERATIONS + " packets", AllocationWindows.WINDOWS, () ->
                {
                    for (int end = next[0] + WINDOW_ITERATIONS; next[0] < end; next[0]++)
                    {
                        iteration(publication, subscriber, next[0]);
                    }
                });
            final int totalIterations = WARMUP_ITERATIONS + windows * WINDOW_ITERATIONS;

            assertTrue(latencySamples > totalIterations / 2, "delivery latency recorded per packet: " + latencySamples);
            final SubscriberCounters counters = subscriber.counters();
            assertEquals(totalIterations * 6L, counters.messages());
            assertEquals(totalIterations / 16, counters.malformed());
            assertEquals(totalIterations / 16, counters.duplicatePackets());
            assertTrue(counters.heartbeats() > 0);
            assertEquals(0, counters.gaps());
            assertEquals(totalIterations / 32, counters.staleEvents(StaleReason.SOURCE_DOWN));
            assertEquals(totalIterations / 32, counters.recoveries(), "each outage ended by the next packet");
            assertEquals(0, books.counters().unknownOrderReferences());
            assertEquals(0, books.orderCount());
        }
    }

    private void recordLatency(final long nanos)
    {
        latencySamples++;
    }

    private void iteration(final ExclusivePublication publication, final FeedSubscriber subscriber, final int i)
    {
        final long firstSequence = nextSequence;
        final long orderId = i * 4L + 1;
        final long price = 10_000 + (i % 37) * 100;

        writer.begin(PARTITION, firstSequence, i);
        writer.addOrder().instrumentId(INSTRUMENT).orderId(orderId).shares(100).side(Side.BUY).price().mantissa(price);
        writer.addOrder().instrumentId(INSTRUMENT).orderId(orderId + 1).shares(50).side(Side.SELL)
            .price().mantissa(price + 5_000);
        writer.orderExecuted().instrumentId(INSTRUMENT).orderId(orderId).executedShares(10).matchNumber(i);
        writer.orderReplace().instrumentId(INSTRUMENT).originalOrderId(orderId).newOrderId(orderId + 2)
            .shares(70).price().mantissa(price + 100);
        writer.orderCancel().instrumentId(INSTRUMENT).orderId(orderId + 1).cancelledShares(50);
        writer.orderDelete().instrumentId(INSTRUMENT).orderId(orderId + 2);
        final int length = writer.finish();
        nextSequence += 6;
        TestMedia.offer(publication, writer.buffer(), length);

        if (0 == (i & 15))
        {
            TestMedia.offer(publication, writer.buffer(), length);                       // duplicate
            TestMedia.offer(publication, writer.buffer(), length - 3);                   // truncated
            TestMedia.offer(publication, writer.buffer(), writer.heartbeat(PARTITION, nextSequence, i,
                0 == (i & 16) ? SourceStatus.FEED_HANDLER_DOWN : SourceStatus.LIVE));
        }

        while (subscriber.expectedSequence(PARTITION) != nextSequence || subscriber.poll(10) > 0)
        {
            if (0 == subscriber.poll(10))
            {
                Thread.yield();
            }
        }
    }
}
