package io.mdfanout.feed.handler;

import io.mdfanout.feed.normalize.ItchNormalizer;
import io.mdfanout.feed.normalize.NormalizerCounters;
import io.mdfanout.feed.support.ItchBytes;
import io.mdfanout.feed.support.MoldPackets;
import io.mdfanout.feed.support.RingWaitDeadline;
import io.mdfanout.feed.support.Rings;
import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import static io.mdfanout.feed.handler.ArbitrationCounters.LINE_A;
import static io.mdfanout.feed.handler.ArbitrationCounters.LINE_R;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A ring that nobody drains for longer than the ring-full wait (the fanout is down) stalls the
 * writes but not the feed: the arbiter reads on, counting what arrives, and once the rings drain it
 * requests exactly what it could not write; the ring then holds every message once, in order, with
 * no gap declared. Messages are order deletes of locate 1 (partition 1) whose order id is their sequence.
 */
class LineArbiterStallTest
{
    private static final int H = MessageHeaderDecoder.ENCODED_LENGTH;
    private static final long MS = 1_000_000L;

    private final RingBuffer[] rings = Rings.inMemory(2, 1024);
    private final InMemoryCounters counters = new InMemoryCounters(256);
    private final FeedHandlerCounters feedCounters = new FeedHandlerCounters(counters.countersManager(), "t");
    private final ArbitrationCounters arb = new ArbitrationCounters(counters.countersManager(), "t");
    private final NormalizerCounters normalizerCounters = new NormalizerCounters(counters.countersManager(), "t", 2);
    private final List<long[]> requests = new ArrayList<>();
    private final List<Long> received = new ArrayList<>();
    private long now = 1_000_000_000L;
    private LineArbiter arbiter;

    @Test
    void aRingFullPastTheWaitStallsWritesButNotReadsAndTheOutageIsRequestedOnceItDrains()
    {
        final ItchNormalizer normalizer = new ItchNormalizer(rings, new RingWaitDeadline(), normalizerCounters);
        normalizer.ringFullTimeoutNs(MS);
        arbiter = new LineArbiter(new FeedHandlerConfig().session("SESS").gapWaitMs(5).retransmitTimeoutMs(50)
            .recoverySilenceBudgetMs(150).maxHeldMessages(1024), normalizer, feedCounters, arb, this::onRequest);
        arbiter.poll(now);

        for (int k = 1; k <= 10; k++)
        {
            receive(LINE_A, packet(3L * k - 2, 3L * k));
        }
        assertTrue(arbiter.isStalled(), "1 KiB holds fewer than 30 records: the ring filled and nobody drained it");
        assertEquals(LineArbiter.State.STALLED, arbiter.state());
        assertEquals(1, arb.ringStalls().get());
        final long stalledAt = arbiter.nextExpected();
        assertTrue(stalledAt > 1 && stalledAt <= 30, "stalled at " + stalledAt);

        receive(LINE_A, packet(31, 36)); // read on while stalled: counted, not written
        // Messages after the stalled one in the datagram that stalled are dropped with it, uncounted; 31..36 counted.
        assertEquals(36 - stalledAt, arb.ringStallDroppedMessages().get(),
            "what arrives while stalled is counted");
        now += 10 * MS;
        arbiter.poll(now);
        assertTrue(arbiter.isStalled(), "still full");
        assertTrue(requests.isEmpty(), "nothing requested while nothing drains");

        drain(); // the fanout is back
        now += MS;
        arbiter.poll(now);
        assertFalse(arbiter.isStalled());
        assertEquals(LineArbiter.State.RECOVERING, arbiter.state(), "the outage is a gap requested at once");
        assertEquals(1, requests.size(), "the outage requested at once");
        assertEquals(stalledAt, requests.get(0)[0]);
        assertEquals(36 - stalledAt + 1, requests.get(0)[1]);

        receive(LINE_R, packet(stalledAt, 36));
        drain();
        final List<Long> expected = new ArrayList<>();
        for (long s = 1; s <= 36; s++)
        {
            expected.add(s);
        }
        assertEquals(expected, received, "every message once, in order");
        assertEquals(0, arb.gapsDeclared().get());
        assertEquals(37, arbiter.nextExpected());
    }

    @Test
    void withoutAReRequestServerTheStallIsDeclaredAsAGapNotice()
    {
        final ItchNormalizer normalizer = new ItchNormalizer(rings, new RingWaitDeadline(), normalizerCounters);
        normalizer.ringFullTimeoutNs(MS);
        arbiter = new LineArbiter(new FeedHandlerConfig().session("SESS").gapWaitMs(5).maxHeldMessages(1024),
            normalizer, feedCounters, arb, null);
        arbiter.poll(now);
        for (int k = 1; k <= 12; k++)
        {
            receive(LINE_A, packet(3L * k - 2, 3L * k));
        }
        assertTrue(arbiter.isStalled());
        final long stalledAt = arbiter.nextExpected();
        drain();
        now += MS;
        arbiter.poll(now);
        receive(LINE_A, packet(37, 39));
        drain();
        assertEquals(1, arb.gapsDeclared().get(), "the outage declared, not lost silently");
        assertEquals(36 - stalledAt + 1, arb.declaredMissingMessages().get());
        assertTrue(received.contains(-stalledAt), "a gap notice from the stall on: " + received);
        assertEquals(39L, received.get(received.size() - 1));
    }

    private boolean onRequest(final DirectBuffer buffer, final int offset, final int length)
    {
        requests.add(new long[] {buffer.getLong(offset + 10, ByteOrder.BIG_ENDIAN),
            buffer.getShort(offset + 18, ByteOrder.BIG_ENDIAN) & 0xFFFF});
        return true;
    }

    /** Order deletes; gap notices recorded as minus their first sequence. */
    private void drain()
    {
        final List<Rings.Rec> records = new ArrayList<>();
        while (rings[1].size() > 0)
        {
            records.addAll(Rings.drain(rings[1])); // one read stops at the end of the buffer
        }
        for (final Rings.Rec r : records)
        {
            if (r.typeId() == GapNoticeDecoder.TEMPLATE_ID)
            {
                received.add(-new GapNoticeDecoder().wrap(r.buffer(), H, GapNoticeDecoder.BLOCK_LENGTH, 0).exchangeSequence());
            }
            else
            {
                final OrderDeleteDecoder d = new OrderDeleteDecoder().wrap(r.buffer(), H, OrderDeleteDecoder.BLOCK_LENGTH, 0);
                assertEquals(d.exchangeSequence(), d.orderId());
                received.add(d.exchangeSequence());
            }
        }
        while (rings[0].size() > 0)
        {
            Rings.drain(rings[0]);
        }
    }

    private static byte[] packet(final long from, final long to)
    {
        final byte[][] messages = new byte[(int)(to - from + 1)][];
        for (long s = from; s <= to; s++)
        {
            messages[(int)(s - from)] = new ItchBytes(19, 'D', 1, 0, 1000 + s).u64(11, s).bytes();
        }
        return MoldPackets.packet("SESS", from, messages);
    }

    private void receive(final int line, final byte[] datagram)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[datagram.length]);
        buffer.putBytes(0, datagram);
        arbiter.onPacket(line, buffer, 0, datagram.length, now);
    }
}
