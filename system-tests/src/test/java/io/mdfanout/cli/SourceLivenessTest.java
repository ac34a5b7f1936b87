package io.mdfanout.cli;

import io.aeron.Aeron;
import io.mdfanout.fanout.Fanout;
import io.mdfanout.fanout.FanoutConfig;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.AddOrderEncoder;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.StaleReason;
import io.mdfanout.wire.PartitionRings;
import io.mdfanout.wire.RingSetHeader;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Issue 26 across the fanout and the SDK, in one process over real Aeron (the fanout's embedded driver,
 * multicast on loopback): a ring set whose header this test heartbeats as a feed handler does. While the
 * heartbeat goes on the subscriber is good; when it stops (a feed handler dead or SIGSTOPped: its rings only
 * go quiet) every partition goes stale with SOURCE_DOWN well inside the subscriber's silent timeout, without
 * the stream ever being silent; when it resumes every partition recovers at once, without a snapshot, and the
 * messages written then are delivered.
 */
class SourceLivenessTest
{
    private static final String CHANNEL = "aeron:udp?endpoint=224.0.1.113:47200|interface=127.0.0.1|mtu=8192";
    private static final int STREAM_ID_BASE = 4720;
    private static final int PARTITIONS = 2;
    private static final int CAPACITY = 256 * 1024;

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void subscribersLearnOfADeadFeedHandlerAndRecoverWhenItIsBack(@TempDir final Path ringDirectory) throws Exception
    {
        final RingSetHeader header = RingSetHeader.openForProducer(ringDirectory);
        final List<PartitionRings.MappedRing> rings = new ArrayList<>();
        final AtomicBoolean feedHandlerAlive = new AtomicBoolean(true);
        final AtomicBoolean running = new AtomicBoolean(true);
        final Thread feedHandler = new Thread(() ->
        {
            while (running.get())
            {
                if (feedHandlerAlive.get())
                {
                    header.heartbeat(System.currentTimeMillis(), 34_200_000_000_000L, RingSetHeader.SOURCE_LIVE);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }, "test-feed-handler-heartbeat");
        Fanout fanout = null;
        Aeron aeron = null;
        FeedSubscriber subscriber = null;
        try
        {
            header.layout(PARTITIONS, CAPACITY);
            for (int partition = 0; partition < PARTITIONS; partition++)
            {
                rings.add(PartitionRings.create(ringDirectory, partition, PARTITIONS, CAPACITY, 1));
            }
            header.generation(1);
            feedHandler.start();

            fanout = new Fanout(new FanoutConfig()
                .ringDirectory(ringDirectory)
                .partitionCount(PARTITIONS)
                .channel(CHANNEL)
                .streamIdBase(STREAM_ID_BASE)
                .termLength(1024 * 1024)
                .maxOrders(1024)
                .statePretouch(false)
                .heartbeatIntervalNs(TimeUnit.MILLISECONDS.toNanos(250))
                .sourceTimeoutNs(TimeUnit.MILLISECONDS.toNanos(500)));
            aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(fanout.aeronDirectoryName()));
            final Events events = new Events();
            subscriber = new FeedSubscriber(new FeedSubscriber.Context()
                .aeron(aeron).channel(CHANNEL).streamIdBase(STREAM_ID_BASE).partitionCount(PARTITIONS)
                .listener(events));
            final FeedSubscriber polled = subscriber;
            final Fanout connected = fanout;
            pollUntil(polled, () -> polled.isConnected() && connected.isConnected(0) && connected.isConnected(1),
                "connected");

            writeOrders(rings, 1, 10);
            pollUntil(polled, () -> 10 == events.orders, "10 orders");
            pollUntil(polled, () -> SourceStatus.LIVE == polled.sourceStatus(0) && SourceStatus.LIVE == polled.sourceStatus(1),
                "live announced");
            assertEquals(List.of(), events.lines, "good from the start");

            feedHandlerAlive.set(false);
            final long stoppedNs = System.nanoTime();
            pollUntil(polled, () -> polled.isStale(0) && polled.isStale(1), "every partition stale");
            final long detectedNs = System.nanoTime() - stoppedNs;
            assertTrue(detectedNs < TimeUnit.MILLISECONDS.toNanos(1500),
                "known in " + TimeUnit.NANOSECONDS.toMillis(detectedNs) + " ms, well inside the 2 s silent timeout");
            assertTrue(events.lines.containsAll(List.of("STALE 0 SOURCE_DOWN", "STALE 1 SOURCE_DOWN")), events.lines.toString());
            assertEquals(SourceStatus.FEED_HANDLER_DOWN, polled.sourceStatus(0));
            assertFalse(polled.isRecovering(0), "nothing of the stream is missing");
            pollFor(polled, 1_000);
            assertEquals(2, events.lines.size(), "once per outage, and the stream is never silent: " + events.lines);
            assertFalse(polled.isSilent(0) || polled.isSilent(1));

            feedHandlerAlive.set(true);
            pollUntil(polled, () -> !polled.isStale(0) && !polled.isStale(1), "every partition good again");
            assertTrue(events.lines.containsAll(List.of("RECOVERED 0 0", "RECOVERED 1 0")),
                "at once, no snapshot: " + events.lines);
            writeOrders(rings, 11, 10);
            pollUntil(polled, () -> 20 == events.orders, "10 more orders");
            assertEquals(PARTITIONS, polled.counters().staleEvents(StaleReason.SOURCE_DOWN));
            assertEquals(PARTITIONS, polled.counters().recoveries());
            assertEquals(0, polled.counters().snapshotsApplied());
            assertEquals(0, polled.counters().gaps());
            assertEquals(1, fanout.sourceCounters().downEvents().get());
        }
        finally
        {
            running.set(false);
            feedHandler.join(5_000);
            CloseHelper.closeAll(subscriber, aeron, fanout);
            CloseHelper.closeAll(rings);
            header.close();
        }
    }

    /** Orders {@code first .. first + count - 1}, instrument = order id, into the rings as a feed handler writes them. */
    private static void writeOrders(final List<PartitionRings.MappedRing> rings, final long first, final int count)
    {
        final UnsafeBuffer buffer =
            new UnsafeBuffer(new byte[MessageHeaderEncoder.ENCODED_LENGTH + AddOrderEncoder.BLOCK_LENGTH]);
        final AddOrderEncoder encoder = new AddOrderEncoder();
        for (long id = first; id < first + count; id++)
        {
            encoder.wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
                .exchangeSequence(id).exchangeTimestamp(34_200_000_000_000L + id).instrumentId(id)
                .orderId(id).side(Side.BUY).shares(100).price().mantissa(1_000_000);
            assertTrue(rings.get((int)(id % PARTITIONS)).ring().write(
                AddOrderEncoder.TEMPLATE_ID, buffer, 0, buffer.capacity()));
        }
    }

    private static void pollUntil(final FeedSubscriber subscriber, final BooleanSupplier condition, final String what)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean())
        {
            if (0 == subscriber.poll(FeedSubscriber.DEFAULT_FRAGMENT_LIMIT))
            {
                if (System.nanoTime() > deadline)
                {
                    fail("timed out waiting for " + what + "; counters: " + subscriber.counters());
                }
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
            }
        }
    }

    private static void pollFor(final FeedSubscriber subscriber, final long millis)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < deadline)
        {
            if (0 == subscriber.poll(FeedSubscriber.DEFAULT_FRAGMENT_LIMIT))
            {
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
            }
        }
    }

    /** Records stale and recovered partitions as text and counts the orders delivered. */
    private static final class Events implements MarketDataListener
    {
        final List<String> lines = new ArrayList<>();
        int orders;

        public void onAddOrder(final MessageContext context, final AddOrderDecoder message)
        {
            orders++;
        }

        public void onStale(final int partition, final StaleReason reason, final long streamSequence)
        {
            lines.add("STALE " + partition + " " + reason);
        }

        public void onRecovered(
            final int partition, final long snapshotId, final long lastStreamSequence, final long staleForNanos)
        {
            lines.add("RECOVERED " + partition + " " + snapshotId);
        }
    }
}
