package io.mdfanout.feed.handler;

import io.mdfanout.feed.normalize.ItchNormalizer;
import io.mdfanout.feed.normalize.NormalizerCounters;
import io.mdfanout.feed.support.ItchBytes;
import io.mdfanout.feed.support.MoldPackets;
import io.mdfanout.feed.support.RingWaitDeadline;
import io.mdfanout.feed.support.Rings;
import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sbe.GapReason;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static io.mdfanout.feed.handler.ArbitrationCounters.LINE_A;
import static io.mdfanout.feed.handler.ArbitrationCounters.LINE_B;
import static io.mdfanout.feed.handler.ArbitrationCounters.LINE_R;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A/B arbitration, gap hold, retransmission requests, declared gaps and end of session, driven
 * with explicit time so every timer is exact. Messages are order deletes of locate 1 (partition
 * 1) whose order id equals their sequence; gap notices go to both partitions. Packet k carries
 * messages 3k-2 .. 3k.
 */
class LineArbiterTest
{
    private static final int PARTITIONS = 2;
    private static final int H = MessageHeaderDecoder.ENCODED_LENGTH;
    private static final long T0 = 1_000_000_000L;
    private static final long MS = 1_000_000L;

    /** A request as the test "server" saw it. */
    record Request(String session, long sequence, int count)
    {
    }

    private final RingBuffer[] rings = Rings.inMemory(PARTITIONS, 256 * 1024);
    private final InMemoryCounters counters = new InMemoryCounters(256);
    private final FeedHandlerCounters feedCounters = new FeedHandlerCounters(counters.countersManager(), "t");
    private final ArbitrationCounters arb = new ArbitrationCounters(counters.countersManager(), "t");
    private final NormalizerCounters normalizerCounters =
        new NormalizerCounters(counters.countersManager(), "t", PARTITIONS);
    private final List<Request> requests = new ArrayList<>();
    private final List<Long> requestTimes = new ArrayList<>();
    private long now = T0;
    private LineArbiter arbiter;

    private FeedHandlerConfig config()
    {
        return new FeedHandlerConfig().session("SESS").groupB("239.255.46.1").portB(46001)
            .gapWaitMs(5).retransmitTimeoutMs(50).recoverySilenceBudgetMs(150).maxOutstandingRequests(16)
            .maxRequestsPerSecond(2000).maxHeldMessages(1024).lineSilenceMs(2000);
    }

    private LineArbiter arbiter(final FeedHandlerConfig config, final boolean withServer)
    {
        arbiter = new LineArbiter(
            config, new ItchNormalizer(rings, new RingWaitDeadline(), normalizerCounters), feedCounters, arb,
            withServer ? this::onRequest : null);
        arbiter.poll(now);
        return arbiter;
    }

    private boolean onRequest(final DirectBuffer buffer, final int offset, final int length)
    {
        assertEquals(20, length);
        final byte[] session = new byte[10];
        buffer.getBytes(offset, session);
        requests.add(new Request(
            new String(session, StandardCharsets.US_ASCII),
            buffer.getLong(offset + 10, ByteOrder.BIG_ENDIAN),
            buffer.getShort(offset + 18, ByteOrder.BIG_ENDIAN) & 0xFFFF));
        requestTimes.add(now);
        return true;
    }

    private static byte[] delete(final long sequence)
    {
        return new ItchBytes(19, 'D', 1, 0, 1000 + sequence).u64(11, sequence).bytes();
    }

    private static byte[] messages(final String session, final long from, final long to)
    {
        final byte[][] messages = new byte[(int)(to - from + 1)][];
        for (long s = from; s <= to; s++)
        {
            messages[(int)(s - from)] = delete(s);
        }
        return MoldPackets.packet(session, from, messages);
    }

    private static byte[] packet(final int k)
    {
        return messages("SESS", 3L * k - 2, 3L * k);
    }

    private void receive(final int line, final byte[] datagram)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[datagram.length + 8]);
        buffer.putBytes(8, datagram);
        arbiter.onPacket(line, buffer, 8, datagram.length, now);
    }

    private void at(final long timeNs)
    {
        now = timeNs;
        arbiter.poll(now);
    }

    private List<String> events(final int partition)
    {
        final List<String> events = new ArrayList<>();
        for (final Rings.Rec r : Rings.drain(rings[partition]))
        {
            if (r.typeId() == GapNoticeDecoder.TEMPLATE_ID)
            {
                final GapNoticeDecoder g = new GapNoticeDecoder().wrap(r.buffer(), H, GapNoticeDecoder.BLOCK_LENGTH, 0);
                assertEquals(0, g.instrumentId());
                if (GapReason.STALE == g.reason())
                {
                    assertEquals(g.exchangeSequence(), g.lastMissingSequence());
                    events.add("session end lost at " + g.exchangeSequence());
                }
                else
                {
                    assertEquals(GapReason.UNRECOVERED, g.reason());
                    events.add("gap " + g.exchangeSequence() + "-" + g.lastMissingSequence());
                }
            }
            else
            {
                final OrderDeleteDecoder d = new OrderDeleteDecoder().wrap(r.buffer(), H, OrderDeleteDecoder.BLOCK_LENGTH, 0);
                assertEquals(d.exchangeSequence(), d.orderId(), "message body matches its sequence");
                events.add(Long.toString(d.exchangeSequence()));
            }
        }
        return events;
    }

    private static List<String> range(final long from, final long to)
    {
        final List<String> list = new ArrayList<>();
        for (long s = from; s <= to; s++)
        {
            list.add(Long.toString(s));
        }
        return list;
    }

    private static List<String> concat(final List<String>... parts)
    {
        final List<String> all = new ArrayList<>();
        for (final List<String> part : parts)
        {
            all.addAll(part);
        }
        return all;
    }

    @Test
    void bothLinesInAnyOrderAndInterleavingDeliverEveryMessageOnceInOrder()
    {
        final int packets = 40;
        for (int seed = 0; seed < 30; seed++)
        {
            final Random random = new Random(seed);
            final List<Integer> a = new ArrayList<>();
            final List<Integer> b = new ArrayList<>();
            for (int k = 1; k <= packets; k++)
            {
                a.add(k);
                b.add(k);
            }
            if (seed % 3 != 0)
            {
                // reorder each line locally (a switch may reorder), keep it in order on a third of the runs
                for (int i = 0; i < packets - 1; i++)
                {
                    if (random.nextInt(4) == 0)
                    {
                        Collections.swap(a, i, i + 1);
                    }
                    if (random.nextInt(4) == 0)
                    {
                        Collections.swap(b, i, i + 1);
                    }
                }
            }
            final LineArbiter arbiter = arbiter(config(), true);
            int ia = 0;
            int ib = 0;
            while (ia < packets || ib < packets)
            {
                final boolean takeA = ib == packets || (ia < packets && random.nextBoolean());
                receive(takeA ? LINE_A : LINE_B, packet(takeA ? a.get(ia++) : b.get(ib++)));
                at(now + 1000);
            }

            assertEquals(range(1, 3L * packets), events(1), "seed " + seed);
            assertEquals(List.of(), events(0), "seed " + seed);
            assertEquals(3L * packets + 1, arbiter.nextExpected());
            assertEquals(0, arbiter.openGaps());
            assertEquals(0, arbiter.heldMessages());
            assertEquals(List.of(), requests);
            reset();
            assertEquals(3L * packets * seed + 3L * packets, 0L + sumAccepted(), "seed " + seed);
        }
        // every message was taken once and dropped once
        assertEquals(30L * 3 * 40, arb.duplicates(LINE_A).get() + arb.duplicates(LINE_B).get());
        assertTrue(arb.duplicates(LINE_A).get() > 0 && arb.duplicates(LINE_B).get() > 0);
        assertEquals(0, arb.gapsDeclared().get());
        assertEquals(arb.gapsDetected().get(), arb.gapsFilled().get(), "every gap was filled by a line");
    }

    private long sumAccepted()
    {
        return arb.accepted(LINE_A).get() + arb.accepted(LINE_B).get() + arb.accepted(LINE_R).get();
    }

    private void reset()
    {
        requests.clear();
        requestTimes.clear();
    }

    @Test
    void packetLostOnOneLineIsFilledByTheOtherWithoutAGap()
    {
        arbiter(config(), true);
        receive(LINE_A, packet(1));
        receive(LINE_A, packet(2));
        receive(LINE_A, packet(4)); // A lost packet 3
        receive(LINE_B, packet(1));
        receive(LINE_B, packet(2));
        assertEquals(3, arbiter.heldMessages());
        receive(LINE_B, packet(3));
        receive(LINE_A, packet(5));
        receive(LINE_B, packet(4));
        receive(LINE_B, packet(5));
        at(now + 100 * MS);

        assertEquals(range(1, 15), events(1));
        assertEquals(List.of(), events(0));
        assertEquals(3, arb.fills(LINE_B).get());
        assertEquals(0, arb.fills(LINE_A).get());
        assertEquals(12, arb.accepted(LINE_A).get());
        assertEquals(3, arb.accepted(LINE_B).get());
        assertEquals(12, arb.duplicates(LINE_B).get());
        assertEquals(0, arb.duplicates(LINE_A).get());
        assertEquals(1, arb.gapsDetected().get());
        assertEquals(1, arb.gapsFilled().get());
        assertEquals(0, arb.gapsDeclared().get());
        assertEquals(0, feedCounters.gaps().get());
        assertEquals(0, arb.messagesHeld().get());
        assertEquals(List.of(), requests);
    }

    @Test
    void gapFilledLateWithinTheWaitSendsNoRequest()
    {
        arbiter(config(), true);
        receive(LINE_A, packet(1));
        receive(LINE_A, packet(3));
        at(T0 + 4 * MS);
        assertEquals(List.of(), requests);
        assertEquals(range(1, 3), events(1));
        receive(LINE_B, packet(2));
        at(T0 + 100 * MS);

        assertEquals(range(4, 9), events(1));
        assertEquals(List.of(), requests);
        assertEquals(0, arb.requestsSent().get());
        assertEquals(1, arb.gapsFilled().get());
    }

    @Test
    void gapOnBothLinesIsRequestedAndFilledByTheReplyInOrder()
    {
        arbiter(config(), true);
        receive(LINE_A, packet(1));
        receive(LINE_A, packet(4));
        receive(LINE_B, packet(1));
        receive(LINE_B, packet(4));
        at(T0 + 4 * MS);
        assertEquals(List.of(), requests);
        at(T0 + 5 * MS);
        assertEquals(List.of(new Request("SESS      ", 4, 6)), requests);

        // the reply split across three packets, out of order
        receive(LINE_R, messages("SESS", 8, 9));
        receive(LINE_R, messages("SESS", 4, 5));
        receive(LINE_R, messages("SESS", 6, 7));
        at(T0 + 200 * MS);

        assertEquals(range(1, 12), events(1));
        assertEquals(List.of(), events(0));
        assertEquals(1, requests.size(), "answered: no retry");
        assertEquals(6, arb.fills(LINE_R).get());
        assertEquals(6, arb.accepted(LINE_R).get());
        assertEquals(1, arb.requestsSent().get());
        assertEquals(0, arb.requestsRetried().get());
        assertEquals(0, arb.requestsTimedOut().get());
        assertEquals(1, arb.gapsDetected().get());
        assertEquals(1, arb.gapsFilled().get());
        assertEquals(0, arb.gapsDeclared().get());
        assertEquals(0, arbiter.heldMessages());
    }

    @Test
    void lostReplyIsRetriedAfterTheTimeoutForWhatIsStillMissing()
    {
        arbiter(config(), true);
        receive(LINE_A, packet(1));
        receive(LINE_A, packet(4));
        at(T0 + 5 * MS);
        assertEquals(List.of(new Request("SESS      ", 4, 6)), requests);
        receive(LINE_R, messages("SESS", 4, 6)); // the second reply packet is lost
        at(T0 + 54 * MS);
        assertEquals(1, requests.size());
        at(T0 + 55 * MS);
        assertEquals(new Request("SESS      ", 7, 3), requests.get(1));
        assertEquals(1, arb.requestsRetried().get());
        assertEquals(1, arb.requestsTimedOut().get());
        receive(LINE_R, messages("SESS", 7, 9));
        at(T0 + 500 * MS);

        assertEquals(range(1, 12), events(1));
        assertEquals(2, requests.size());
        assertEquals(0, arb.gapsDeclared().get());
    }

    @Test
    void aSilentServerSpendsTheSilenceBudgetThenTheExactRangeIsDeclaredAndProcessingContinues()
    {
        arbiter(config(), true); // silence budget 150 ms, retransmit timeout 50 ms
        receive(LINE_A, packet(1));
        receive(LINE_A, packet(3));
        at(T0 + 5 * MS);
        at(T0 + 55 * MS);
        at(T0 + 105 * MS);
        assertEquals(3, requests.size());
        assertEquals(range(1, 3), events(1), "still held while retrying");
        at(T0 + 154 * MS);
        assertEquals(List.of(), events(1));
        at(T0 + 155 * MS);

        assertEquals(concat(List.of("gap 4-6"), range(7, 9)), events(1));
        assertEquals(List.of("gap 4-6"), events(0));
        assertEquals(List.of(new Request("SESS      ", 4, 3), new Request("SESS      ", 4, 3),
            new Request("SESS      ", 4, 3)), requests);
        assertEquals(1, arb.requestsSent().get());
        assertEquals(2, arb.requestsRetried().get());
        assertEquals(2, arb.requestsTimedOut().get());
        assertEquals(0, arbiter.requestsInFlight(), "the declared gap's request is closed");
        assertEquals(1, arb.gapsDeclared().get());
        assertEquals(3, arb.declaredMissingMessages().get());
        assertEquals(1, feedCounters.gaps().get());

        // a late reply is a duplicate; the stream goes on
        receive(LINE_R, packet(2));
        receive(LINE_A, packet(4));
        assertEquals(range(10, 12), events(1));
        assertEquals(3, arb.duplicates(LINE_R).get());
    }

    @Test
    void withoutServerTheGapIsDeclaredAfterTheWait()
    {
        arbiter(config(), false);
        receive(LINE_A, packet(1));
        receive(LINE_A, packet(3));
        at(T0 + 4 * MS);
        assertEquals(range(1, 3), events(1));
        at(T0 + 5 * MS);
        assertEquals(concat(List.of("gap 4-6"), range(7, 9)), events(1));
        assertEquals(1, arb.gapsDeclared().get());
        assertEquals(0, arb.requestsSent().get());
    }

    @Test
    void heartbeatRevealsAGapAndALongGapIsRequestedAsAWindowOf65535MessageRequests()
    {
        arbiter(config().maxHeldMessages(1 << 20), true);
        receive(LINE_A, packet(1));
        receive(LINE_A, MoldPackets.heartbeat("SESS", 200_004));
        at(T0 + 5 * MS);
        assertEquals(1, requests.size(), "one request each 0.5 ms (2000 a second)");
        at(T0 + 5 * MS + MS / 2);
        at(T0 + 6 * MS);
        at(T0 + 6 * MS + MS / 2);
        at(T0 + 7 * MS);
        assertEquals(List.of(new Request("SESS      ", 4, 65535), new Request("SESS      ", 65539, 65535),
            new Request("SESS      ", 131074, 65535), new Request("SESS      ", 196609, 3395)), requests);
        assertEquals(1, arb.gapsDetected().get());
        assertEquals(4, arbiter.requestsInFlight());
    }

    @Test
    void requestsReachNoFurtherThanTheHoldCanTakeTheReplies()
    {
        arbiter(config(), true); // holds 1024
        receive(LINE_A, packet(1));
        receive(LINE_A, MoldPackets.heartbeat("SESS", 100_004));
        at(T0 + 5 * MS);
        assertEquals(List.of(new Request("SESS      ", 4, 1024)), requests);
    }

    @Test
    void holdBoundReachedDeclaresTheOldestGapAndLosesNothingAfterIt()
    {
        arbiter(config().maxHeldMessages(8), true);
        receive(LINE_A, messages("SESS", 1, 1));
        receive(LINE_A, messages("SESS", 3, 4)); // gap 2
        receive(LINE_A, messages("SESS", 6, 9)); // gap 5, held 3,4,6..9
        assertEquals(6, arbiter.heldMessages());
        receive(LINE_A, messages("SESS", 10, 10)); // beyond 2 + 8: gap 2 declared
        assertEquals(concat(List.of("1", "gap 2-2"), range(3, 4)), events(1));
        assertEquals(5, arbiter.heldMessages());
        receive(LINE_B, messages("SESS", 5, 5));
        assertEquals(range(5, 10), events(1));
        assertEquals(List.of("gap 2-2"), events(0));
        assertEquals(1, arb.gapsDeclared().get());
        assertEquals(1, arb.gapsFilled().get());

        // one gap wider than the hold: declared at once
        receive(LINE_A, messages("SESS", 30, 31));
        assertEquals(List.of("gap 11-29", "30", "31"), events(1));
        assertEquals(0, arbiter.heldMessages());
    }

    @Test
    void requestsRespectTheRateLimitAndTheOutstandingCap()
    {
        // 10 requests a second: at least 100 ms apart; at most 2 outstanding
        arbiter(config().maxRequestsPerSecond(10).maxOutstandingRequests(2).retransmitTimeoutMs(10_000)
            .recoverySilenceBudgetMs(20_000), true);
        for (long s = 1; s <= 11; s += 2)
        {
            receive(LINE_A, messages("SESS", s, s)); // gaps 2, 4, 6, 8, 10
        }
        for (long t = 0; t <= 1000; t++)
        {
            now = T0 + t * MS;
            if (t == 500)
            {
                receive(LINE_R, messages("SESS", 2, 2)); // answers the first request
            }
            at(now);
        }
        assertEquals(List.of(new Request("SESS      ", 2, 1), new Request("SESS      ", 4, 1),
            new Request("SESS      ", 6, 1)), requests);
        assertEquals(List.of(T0 + 5 * MS, T0 + 105 * MS, T0 + 500 * MS), requestTimes);
        assertEquals(3, arb.requestsSent().get());
        assertEquals(List.of("1", "2", "3"), events(1));
    }

    /** A re-request server for the tests below: answers requests from {@code served} on, at the current time. */
    private int served;

    /**
     * Answer every request not answered yet, as a server that sends at most {@code perPacket} messages a packet and
     * only the first packet ({@code onePacket}) or all of them, unless {@code drop} says the answer is lost. A
     * negative {@code perPacket} varies the packets' room as messages of different sizes do: |perPacket| less 0 to 3.
     *
     * @return messages sent.
     */
    private long serve(final boolean onePacket, final int perPacket, final Random drop, final double dropRate)
    {
        long sent = 0;
        while (served < requests.size())
        {
            final int room = perPacket > 0 ? perPacket : -perPacket - served % 4;
            final Request r = requests.get(served++);
            final long last = r.sequence() + r.count() - 1;
            for (long from = r.sequence(); from <= last; from += room)
            {
                final long to = Math.min(last, from + room - 1);
                if (null == drop || drop.nextDouble() >= dropRate)
                {
                    receive(LINE_R, messages("SESS", from, to));
                    sent += to - from + 1;
                }
                if (onePacket)
                {
                    break;
                }
            }
        }
        return sent;
    }

    /** Packet 1 (1..3), then a heartbeat announcing {@code 4..lastMissing}: one gap to recover. */
    private void gapAnnounced(final long lastMissing)
    {
        receive(LINE_A, packet(1));
        receive(LINE_A, MoldPackets.heartbeat("SESS", lastMissing + 1));
    }

    @Test
    void aServerAnsweringOnePacketARequestIsAskedAtOnceForTheRestAsAWindowAndNothingIsDeclared()
    {
        arbiter(config(), true);
        gapAnnounced(603);
        long served = 0;
        for (long t = 5 * 2; t <= 1000 * 2; t++)
        {
            at(T0 + t * MS / 2);
            served += serve(true, -10, null, 0);
        }

        assertEquals(range(1, 603), events(1));
        assertEquals(List.of(), events(0));
        assertEquals(0, arb.gapsDeclared().get());
        assertEquals(LineArbiter.ServerAnswers.ONE_PACKET, arbiter.serverAnswers());
        assertEquals(1, arb.retransmitServerAnswers().get());
        assertEquals(600, served, "no message asked for twice");
        assertEquals(0, arb.duplicates(LINE_R).get());
        assertEquals(1, arb.requestsTimedOut().get(), "one timeout: the silence after the first partial answer");
        assertEquals(new Request("SESS      ", 4, 600), requests.get(0));
        assertEquals(new Request("SESS      ", 14, 10), requests.get(1), "then requests of one reply each");
        assertTrue(arb.requestsFollowedUp().get() > 0, "a partial answer is followed up at once");
        for (int i = 2; i < requests.size(); i++)
        {
            assertTrue(requests.get(i).count() <= 10, requests.get(i).toString());
        }
        assertEquals(0, arbiter.requestsInFlight());
        assertEquals(LineArbiter.State.IN_SEQUENCE, arbiter.state());
    }

    @Test
    void aServerStreamingItsAnswersIsNotAskedTwice()
    {
        arbiter(config(), true);
        gapAnnounced(603);
        long served = 0;
        for (long t = 5; t <= 500; t++)
        {
            at(T0 + t * MS);
            served += serve(false, 10, null, 0);
        }

        assertEquals(range(1, 603), events(1));
        assertEquals(LineArbiter.ServerAnswers.STREAMS, arbiter.serverAnswers());
        assertEquals(2, arb.retransmitServerAnswers().get());
        assertEquals(List.of(new Request("SESS      ", 4, 600)), requests);
        assertEquals(600, served);
        assertEquals(0, arb.requestsTimedOut().get());
        assertEquals(0, arb.requestsFollowedUp().get());
        assertEquals(0, arb.gapsDeclared().get());
    }

    @Test
    void aServerLosingThirtyPercentOfItsAnswersIsAskedAgainUntilEverythingArrived()
    {
        arbiter(config(), true);
        gapAnnounced(1003);
        final Random drop = new Random(42);
        for (long t = 5; t <= 5000; t++)
        {
            at(T0 + t * MS);
            serve(true, 10, drop, 0.3);
        }

        assertEquals(range(1, 1003), events(1));
        assertEquals(0, arb.gapsDeclared().get());
        assertTrue(arb.requestsTimedOut().get() > 10, "answers were lost: " + arb.requestsTimedOut().get());
    }

    @Test
    void aSlowServerIsNeverGivenUpWhileItsAnswersArrive()
    {
        // Each answer comes 120 ms after its request: past the 50 ms retransmit timeout, within the 150 ms budget,
        // for far longer than four budgets in all.
        arbiter(config().maxOutstandingRequests(1), true);
        gapAnnounced(203);
        final List<long[]> due = new ArrayList<>(); // request index, time due
        long lastAnswerNs = 0;
        for (long t = 5; t <= 5000; t++)
        {
            at(T0 + t * MS);
            while (served < requests.size())
            {
                due.add(new long[]{ served, now + 120 * MS });
                served++;
            }
            while (!due.isEmpty() && due.get(0)[1] <= now)
            {
                final Request r = requests.get((int)due.remove(0)[0]);
                receive(LINE_R, messages("SESS", r.sequence(), r.sequence() + Math.min(r.count(), 10) - 1));
                lastAnswerNs = now;
            }
        }

        assertEquals(range(1, 203), events(1));
        assertEquals(0, arb.gapsDeclared().get());
        assertTrue(lastAnswerNs - T0 > 4 * 150 * MS, "the recovery outlasted four budgets");
        assertTrue(arb.requestsTimedOut().get() > 0, "requests timed out and were asked again");
    }

    @Test
    void aServerThatFallsSilentSpendsTheBudgetFromItsLastAnswerThenTheRestIsDeclaredExactly()
    {
        arbiter(config(), true);
        gapAnnounced(603);
        long served = 0;
        long lastAnswerNs = 0;
        for (long t = 5; t <= 2000; t++)
        {
            at(T0 + t * MS);
            if (served < 300)
            {
                final long sent = serve(true, 10, null, 0);
                served += sent;
                if (sent > 0)
                {
                    lastAnswerNs = now;
                }
            }
            if (arb.gapsDeclared().get() > 0)
            {
                break;
            }
        }

        // The last answer completed its request; the request for the rest went out on the next poll (1 ms later), and
        // from then on nothing came: the budget runs from that request.
        assertEquals(lastAnswerNs + MS + 150 * MS, now, "declared when the budget of silence was spent, not before");
        assertEquals(1, arb.gapsDeclared().get());
        final List<String> delivered = events(1);
        assertEquals(concat(range(1, 3 + served), List.of("gap " + (4 + served) + "-603")), delivered);
        assertEquals(603 - 3 - served, arb.declaredMissingMessages().get());
    }

    @Test
    void silentLineIsReportedOnceAndAgainWhenItRecovers()
    {
        arbiter(config(), true);
        now = T0 + 1000 * MS;
        receive(LINE_A, packet(1));
        at(T0 + 1999 * MS);
        assertEquals(0, arb.linesSilent().get());
        at(T0 + 2000 * MS);
        assertEquals(1, arb.linesSilent().get(), "B sent nothing");
        receive(LINE_A, MoldPackets.heartbeat("SESS", 4));
        at(T0 + 2500 * MS);
        assertEquals(1, arb.linesSilent().get());
        receive(LINE_B, packet(1));
        assertEquals(0, arb.linesSilent().get(), "B recovered");
        at(T0 + 3000 * MS);
        assertEquals(0, arb.linesSilent().get());
        at(T0 + 4500 * MS);
        assertEquals(2, arb.linesSilent().get(), "both silent");
        receive(LINE_A, MoldPackets.heartbeat("SESS", 4));
        assertEquals(1, arb.linesSilent().get());
    }

    @Test
    void statesFollowTheSessionThroughAGapRecoveredByRetransmissionToItsEndAndTheNext()
    {
        arbiter(config().session(null), true);
        assertEquals(LineArbiter.State.AWAIT_SESSION, arbiter.state());

        receive(LINE_A, packet(1));
        assertEquals(LineArbiter.State.IN_SEQUENCE, arbiter.state());

        receive(LINE_A, packet(3)); // 4..6 missing on both lines
        assertEquals(LineArbiter.State.GAP_HOLDING, arbiter.state());
        at(T0 + 4 * MS);
        assertEquals(LineArbiter.State.GAP_HOLDING, arbiter.state(), "within the gap wait");
        at(T0 + 5 * MS);
        assertEquals(LineArbiter.State.RECOVERING, arbiter.state(), "requested at the gap wait");
        assertEquals(List.of(new Request("SESS      ", 4, 3)), requests);

        receive(LINE_R, packet(2));
        assertEquals(LineArbiter.State.IN_SEQUENCE, arbiter.state());

        receive(LINE_A, MoldPackets.endOfSession("SESS", 10));
        assertEquals(LineArbiter.State.SESSION_ENDED, arbiter.state());
        receive(LINE_B, packet(3));
        assertEquals(LineArbiter.State.SESSION_ENDED, arbiter.state(), "a packet of the ended session");

        receive(LINE_A, MoldPackets.packet("NEXT", 1, delete(1)));
        assertEquals(LineArbiter.State.IN_SEQUENCE, arbiter.state(), "the next session adopted");
        assertEquals(concat(range(1, 9), range(1, 1)), events(1));
    }

    @Test
    void withoutServerAGapHoldsForTheWaitThenIsDeclaredBackToInSequence()
    {
        arbiter(config(), false);
        assertEquals(LineArbiter.State.IN_SEQUENCE, arbiter.state(), "the session is configured");
        receive(LINE_A, packet(1));
        receive(LINE_A, packet(3));
        assertEquals(LineArbiter.State.GAP_HOLDING, arbiter.state());
        at(T0 + 5 * MS - 1);
        assertEquals(LineArbiter.State.GAP_HOLDING, arbiter.state());
        at(T0 + 5 * MS);
        assertEquals(LineArbiter.State.IN_SEQUENCE, arbiter.state());
        assertEquals(List.of("1", "2", "3", "gap 4-6", "7", "8", "9"), events(1));
    }

    @Test
    void aResumedArbiterAwaitsConfirmationOfTheSessionTheRingsHold()
    {
        arbiter(config().session(null), false);
        arbiter.resumeAt(7, "SESS      ");
        assertEquals(LineArbiter.State.AWAIT_CONFIRMATION, arbiter.state());
        receive(LINE_A, packet(3));
        assertEquals(LineArbiter.State.IN_SEQUENCE, arbiter.state(), "confirmed");
        assertEquals(10, arbiter.nextExpected());
        assertEquals(0, arb.sessionsAdopted().get());

        arbiter(config().session(null), false);
        arbiter.resumeAt(7, "OLD       ");
        assertEquals(LineArbiter.State.AWAIT_CONFIRMATION, arbiter.state());
        receive(LINE_A, packet(1));
        assertEquals(LineArbiter.State.IN_SEQUENCE, arbiter.state(), "the session it held is over: adopted");
        assertEquals(1, arb.sessionsAdopted().get());
        assertEquals(4, arbiter.nextExpected());
    }

    @Test
    void aSessionStartedAgainUnderTheNameTheRingsHoldIsSaidNotDroppedInSilence()
    {
        // QUICKSTART's trap: the rings hold SESS through 999; the simulator starts SESS again at 1.
        arbiter(config().session(null), false);
        arbiter.resumeAt(1000, "SESS      ");
        for (int k = 1; k <= 100; k++)
        {
            now = T0 + k * 30 * MS;
            receive(LINE_A, packet(k));
            arbiter.poll(now);
            if (now - T0 < 2000 * MS)
            {
                assertFalse(arbiter.isBehindRings(), "not before the line silence: " + (now - T0) / MS + " ms");
            }
        }
        assertTrue(arbiter.isBehindRings(), "every packet below the rings for the line silence");
        assertEquals(1, arb.behindRings().get());
        assertEquals(List.of(), events(1), "nothing written");

        receive(LINE_A, messages("SESS", 1000, 1002));
        assertFalse(arbiter.isBehindRings(), "the feed delivers again");
        assertEquals(0, arb.behindRings().get());
        assertEquals(range(1000, 1002), events(1));
    }

    @Test
    void aSlowerLineBelowTheRingsIsNotBehindWhileTheOtherDelivers()
    {
        arbiter(config(), false);
        for (int k = 1; k <= 200; k++)
        {
            now = T0 + k * 30 * MS;
            receive(LINE_A, packet(k));
            if (k > 1)
            {
                receive(LINE_B, packet(k - 1));
            }
            arbiter.poll(now);
        }
        assertFalse(arbiter.isBehindRings());
        assertEquals(0, arb.behindRings().get());
    }

    @Test
    void aSessionWhoseLastMessagesAreDeclaredMissingEndsWithAStaleNoticeForItsLostEndOfMessages()
    {
        arbiter(config(), false);
        receive(LINE_A, packet(1));
        receive(LINE_A, MoldPackets.endOfSession("SESS", 7)); // 4..6, the last of them its End of Messages, lost
        at(T0 + 5 * MS);
        assertTrue(arbiter.isSessionEnded());
        assertEquals(concat(range(1, 3), List.of("gap 4-6", "session end lost at 6")), events(1));
        assertEquals(List.of("gap 4-6", "session end lost at 6"), events(0), "market-wide: on every partition");

        // A loss that is not the session's end says nothing more at the end.
        final long later = now + 100 * MS;
        at(later);
        arbiter(config(), false);
        receive(LINE_A, packet(1));
        receive(LINE_A, packet(3));
        at(later + 5 * MS);
        receive(LINE_A, MoldPackets.endOfSession("SESS", 10));
        assertTrue(arbiter.isSessionEnded());
        assertEquals(concat(range(1, 3), List.of("gap 4-6"), range(7, 9)), events(1));
    }

    @Test
    void endOfSessionThenANewSessionIsAdopted()
    {
        arbiter(config(), true);
        receive(LINE_A, packet(1));
        receive(LINE_A, MoldPackets.endOfSession("SESS", 7)); // messages 4..6 still missing
        assertFalse(arbiter.isSessionEnded());
        receive(LINE_A, MoldPackets.packet("NEXT", 1, delete(1)));
        assertEquals(1, feedCounters.wrongSession().get(), "not ended yet: another session is wrong");
        receive(LINE_B, packet(2));
        assertTrue(arbiter.isSessionEnded());
        receive(LINE_B, MoldPackets.endOfSession("SESS", 7));
        receive(LINE_B, packet(1));
        assertEquals(2, arb.endedSessionPackets().get());

        receive(LINE_A, MoldPackets.packet("NEXT", 1, delete(1), delete(2)));
        receive(LINE_B, MoldPackets.packet("NEXT", 1, delete(1), delete(2)));
        receive(LINE_A, packet(3)); // the old session: counted, ignored
        receive(LINE_A, MoldPackets.packet("NEXT", 3, delete(3)));
        at(T0 + 100 * MS);

        assertFalse(arbiter.isSessionEnded());
        assertEquals(concat(range(1, 6), range(1, 3)), events(1));
        assertEquals(1, arb.sessionsAdopted().get());
        assertEquals(2, feedCounters.wrongSession().get());
        assertEquals(0, arb.gapsDeclared().get());
        assertEquals(List.of(), requests, "the gap was filled by B within the wait");
    }

    @Test
    void aRepeatedEndOfSessionRecoversATailLostWithTheFirstOne()
    {
        // The last packets and the first end-of-session packet lost on both lines (a socket that overflowed at
        // the end of a burst): nothing says a tail is missing until the server repeats the end of session.
        arbiter(config(), true);
        receive(LINE_A, packet(1));
        receive(LINE_B, packet(1));
        at(T0 + 500 * MS);
        assertEquals(List.of(), requests);
        assertFalse(arbiter.isSessionEnded());

        receive(LINE_A, MoldPackets.endOfSession("SESS", 10)); // the repeat: 4..9 are the tail
        at(T0 + 505 * MS);
        assertEquals(List.of(new Request("SESS      ", 4, 6)), requests);
        receive(LINE_R, messages("SESS", 4, 9));
        at(T0 + 510 * MS);

        assertTrue(arbiter.isSessionEnded());
        assertEquals(range(1, 9), events(1));
        assertEquals(1, arb.gapsFilled().get());
        assertEquals(0, arb.gapsDeclared().get());
        receive(LINE_B, MoldPackets.endOfSession("SESS", 10)); // later repeats change nothing
        at(T0 + 600 * MS);
        assertEquals(List.of(), events(1));
        assertEquals(1, requests.size());
    }

    @Test
    void staleEndOfSessionMidSessionIsCountedAndTheSessionContinuesToTheRealEnd()
    {
        arbiter(config(), true);
        receive(LINE_A, packet(1));
        receive(LINE_A, packet(2));
        receive(LINE_A, packet(3)); // next expected 10
        // Another sender reusing the session name on this group announces its end at 4 (below 10).
        receive(LINE_A, MoldPackets.endOfSession("SESS", 4));
        assertFalse(arbiter.isSessionEnded(), "a stale end of session does not end the session");
        assertEquals(1, feedCounters.staleEndOfSession().get());
        assertEquals(0, feedCounters.endOfSession().get());

        // A stale heartbeat moves nothing backwards either.
        receive(LINE_A, MoldPackets.heartbeat("SESS", 2));
        receive(LINE_A, packet(4));
        receive(LINE_A, packet(6)); // 13..15 lost on A ...
        receive(LINE_A, MoldPackets.endOfSession("SESS", 7)); // stale: 16..18 were received
        receive(LINE_B, packet(5)); // ... filled by B
        assertEquals(2, feedCounters.staleEndOfSession().get());
        assertEquals(range(1, 18), events(1), "every valid message after the stray packets was delivered");
        assertEquals(0, arb.gapsDeclared().get());
        assertEquals(0, arb.endedSessionPackets().get());
    }

    @Test
    void genuineEndOfSessionStillEndsTheSession()
    {
        arbiter(config(), true);
        receive(LINE_A, packet(1));
        receive(LINE_A, packet(2));
        receive(LINE_A, MoldPackets.endOfSession("SESS", 4)); // stale
        receive(LINE_A, MoldPackets.endOfSession("SESS", 7)); // genuine: the next sequence after 6
        assertTrue(arbiter.isSessionEnded());
        assertEquals(1, feedCounters.staleEndOfSession().get());
        assertEquals(1, feedCounters.endOfSession().get());
        receive(LINE_B, packet(2));
        assertEquals(1, arb.endedSessionPackets().get(), "packets of the ended session are ignored");
        assertEquals(range(1, 6), events(1));
    }

    @Test
    void garbageOnAnyLineNeverThrows()
    {
        arbiter(config(), true);
        final Random random = new Random(7);
        for (int i = 0; i < 3000; i++)
        {
            final byte[] datagram = new byte[random.nextInt(120)];
            random.nextBytes(datagram);
            if (datagram.length >= 20 && random.nextBoolean())
            {
                System.arraycopy("SESS      ".getBytes(StandardCharsets.US_ASCII), 0, datagram, 0, 10);
                datagram[10] = 0;
                datagram[11] = 0;
                datagram[12] = 0;
                datagram[13] = 0;
                datagram[14] = 0;
            }
            receive(i % 3, datagram);
            at(now + random.nextInt(20) * MS);
        }
        assertEquals(0, feedCounters.packetErrors().get());
        assertEquals(3000, feedCounters.packetsReceived().get());
    }
}
