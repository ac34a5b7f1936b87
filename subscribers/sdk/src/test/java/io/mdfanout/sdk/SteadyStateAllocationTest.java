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
 * source outage: every other heartbeat says the feed handler is down, and the next packet ends it. Nor does a pair's
 * arbitration: both sides' copies, the duplicates dropped, the packets one side lacks taken from the other while the
 * side's next packets wait in its hold queue, and both sides' heartbeats.
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

    @Test
    void aPairsArbitrationAllocatesNothingInSteadyState() throws Exception
    {
        final String channelA = TestMedia.channel(PORT + 2);
        final String channelB = TestMedia.channel(PORT + 4);
        final OrderBooks books = new OrderBooks(1024, 64, new BookCounters(LocalCounters.create(4), "alloc-pair"));

        try (TestMedia media = new TestMedia();
            FeedSubscriber subscriber = new FeedSubscriber(
                media.context(channelA, STREAM_ID_BASE, PARTITION).pairChannel(channelB).listener(books)
                    .deliveryLatencyRecorder(this::recordLatency)
                    .silentTimeoutNs(java.util.concurrent.TimeUnit.MINUTES.toNanos(5))
                    // The loop below waits for side B's copy: a loaded machine must not turn the wait into a gap.
                    .arbitrationWaitNs(java.util.concurrent.TimeUnit.MINUTES.toNanos(5)));
            ExclusivePublication sideA = media.publication(channelA, Partitioning.streamId(STREAM_ID_BASE, PARTITION));
            ExclusivePublication sideB = media.publication(channelB, Partitioning.streamId(STREAM_ID_BASE, PARTITION)))
        {
            TestMedia.awaitConnected(subscriber, sideA, sideB);
            for (int i = 0; i < WARMUP_ITERATIONS; i++)
            {
                pairIteration(sideA, sideB, subscriber, i);
            }

            final int[] next = { WARMUP_ITERATIONS };
            final int windows = AllocationWindows.assertOneWindowAllocatesNothing(
                "on a pair's poll path over " + WINDOW_ITERATIONS + " packets", AllocationWindows.WINDOWS, () ->
                {
                    for (int end = next[0] + WINDOW_ITERATIONS; next[0] < end; next[0]++)
                    {
                        pairIteration(sideA, sideB, subscriber, next[0]);
                    }
                });
            final int totalIterations = WARMUP_ITERATIONS + windows * WINDOW_ITERATIONS;

            final SubscriberCounters counters = subscriber.counters();
            assertEquals(totalIterations * 6L, counters.messages());
            assertEquals(totalIterations * 6L, counters.sideMessages(0) + counters.sideMessages(1));
            assertEquals(totalIterations * 6L - sideALacked * 6L, counters.sideDuplicates(0) + counters.sideDuplicates(1),
                "every copy but the first of each message dropped");
            assertTrue(counters.sideMessages(1) >= sideALacked * 6L, "side B delivered what side A lacked");
            assertTrue(counters.sideMessages(0) > 0, "side A delivered first at times");
            assertEquals(0, counters.gaps());
            assertEquals(0, counters.staleEvents());
            assertEquals(0, counters.sideRefused(0) + counters.sideRefused(1));
            assertEquals(0, books.counters().unknownOrderReferences());
            assertEquals(0, books.orderCount());
        }
    }

    private long chain;
    private long sideALacked;
    private long copiesSent;
    private final byte[] session = "PAIRTEST  ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /**
     * One packet of six messages on both sides (side B first every other time); every 16th side A lacks (side B's copy
     * fills it), and both sides heartbeat where their chain stands. The partition's messages are every other exchange
     * sequence (the others belong to other partitions), as a real chain has them.
     */
    private void pairIteration(
        final ExclusivePublication sideA, final ExclusivePublication sideB, final FeedSubscriber subscriber, final int i)
    {
        final long orderId = i * 4L + 1;
        final long price = 10_000 + (i % 37) * 100;
        final long before = chain;

        writer.begin(PARTITION, i + 1, i).previousExchangeSequence(before);
        writer.addOrder().exchangeSequence(before + 2).instrumentId(INSTRUMENT).orderId(orderId).shares(100)
            .side(Side.BUY).price().mantissa(price);
        writer.addOrder().exchangeSequence(before + 4).instrumentId(INSTRUMENT).orderId(orderId + 1).shares(50)
            .side(Side.SELL).price().mantissa(price + 5_000);
        writer.orderExecuted().exchangeSequence(before + 6).instrumentId(INSTRUMENT).orderId(orderId)
            .executedShares(10).matchNumber(i);
        writer.orderReplace().exchangeSequence(before + 8).instrumentId(INSTRUMENT).originalOrderId(orderId)
            .newOrderId(orderId + 2).shares(70).price().mantissa(price + 100);
        writer.orderCancel().exchangeSequence(before + 10).instrumentId(INSTRUMENT).orderId(orderId + 1)
            .cancelledShares(50);
        writer.orderDelete().exchangeSequence(before + 12).instrumentId(INSTRUMENT).orderId(orderId + 2);
        final int length = writer.finish();
        chain = before + 12;

        final boolean aLacks = 0 == (i & 15);
        if (0 == (i & 1))
        {
            TestMedia.offer(sideB, writer.buffer(), length);
        }
        if (!aLacks)
        {
            TestMedia.offer(sideA, writer.buffer(), length);
            copiesSent += 6;
        }
        else
        {
            sideALacked++;
        }
        if (0 != (i & 1))
        {
            TestMedia.offer(sideB, writer.buffer(), length);
        }
        copiesSent += 6;
        if (0 == (i & 15))
        {
            TestMedia.offer(sideA, writer.buffer(), writer.pairHeartbeat(PARTITION, i + 2, i, chain, 0, session));
            TestMedia.offer(sideB, writer.buffer(), writer.pairHeartbeat(PARTITION, i + 2, i, chain, 0, session));
        }

        final SubscriberCounters counters = subscriber.counters();
        while (subscriber.expectedSequence(PARTITION) != chain + 1 ||
            counters.sideMessages(0) + counters.sideMessages(1) + counters.sideDuplicates(0) +
            counters.sideDuplicates(1) != copiesSent)
        {
            if (0 == subscriber.poll(10))
            {
                Thread.yield();
            }
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
