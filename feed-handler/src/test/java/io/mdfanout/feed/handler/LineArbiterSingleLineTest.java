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
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The single-line arbiter (replays) under malformed and out-of-order MoldUDP64 input: each case is counted
 * and skipped while every valid message around it is delivered, in order, and every gap is declared at
 * once. Messages are order deletes of locate 1 (partition 1) whose order id equals their sequence; gap
 * notices go to both partitions.
 */
class LineArbiterSingleLineTest
{
    private static final int PARTITIONS = 2;
    private static final int H = MessageHeaderDecoder.ENCODED_LENGTH;

    private final RingBuffer[] rings = Rings.inMemory(PARTITIONS, 64 * 1024);
    private final InMemoryCounters counters = new InMemoryCounters(128);
    private final FeedHandlerCounters feedCounters = new FeedHandlerCounters(counters.countersManager(), "t");
    private final NormalizerCounters normalizerCounters =
        new NormalizerCounters(counters.countersManager(), "t", PARTITIONS);
    private final ArbitrationCounters arbitrationCounters = new ArbitrationCounters(counters.countersManager(), "t");
    private LineArbiter arbiter = arbiter("SESS");

    private LineArbiter arbiter(final String session)
    {
        return LineArbiter.singleLine(
            session, new ItchNormalizer(rings, new RingWaitDeadline(), normalizerCounters), feedCounters,
            arbitrationCounters);
    }

    private static byte[] delete(final long sequence)
    {
        return new ItchBytes(19, 'D', 1, 0, 1000 + sequence).u64(11, sequence).bytes();
    }

    private static byte[][] deletes(final long from, final long to)
    {
        final byte[][] messages = new byte[(int)(to - from + 1)][];
        for (long s = from; s <= to; s++)
        {
            messages[(int)(s - from)] = delete(s);
        }
        return messages;
    }

    private void receive(final byte[] datagram)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[datagram.length + 8]);
        buffer.putBytes(8, datagram);
        arbiter.onDatagram(buffer, 8, datagram.length);
    }

    /** Events of partition 1 as "seq" for order deletes and "gap first-last @ts" for gap notices. */
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
                    events.add("session end lost at " + g.exchangeSequence());
                    continue;
                }
                assertEquals(GapReason.UNRECOVERED, g.reason());
                events.add("gap " + g.exchangeSequence() + "-" + g.lastMissingSequence() + " @" + g.exchangeTimestamp());
            }
            else
            {
                final OrderDeleteDecoder d = new OrderDeleteDecoder().wrap(r.buffer(), H, OrderDeleteDecoder.BLOCK_LENGTH, 0);
                assertEquals(d.exchangeSequence(), d.orderId());
                assertEquals(1000 + d.exchangeSequence(), d.exchangeTimestamp());
                events.add(Long.toString(d.exchangeSequence()));
            }
        }
        return events;
    }

    @Test
    void truncatedPacketIsCountedAndSkipped()
    {
        receive(MoldPackets.packet("SESS", 1, deletes(1, 2)));
        receive(Arrays.copyOf(MoldPackets.packet("SESS", 3, deletes(3, 3)), 19));
        receive(new byte[0]);
        receive(MoldPackets.packet("SESS", 3, deletes(3, 4)));

        assertEquals(2, feedCounters.truncatedPackets().get());
        assertEquals(4, feedCounters.packetsReceived().get());
        assertEquals(List.of("1", "2", "3", "4"), events(1));
        assertEquals(0, feedCounters.gaps().get());
    }

    @Test
    void blockPastPacketEndDropsTheRestAndShowsAsGap()
    {
        receive(MoldPackets.packet("SESS", 1, deletes(1, 2)));
        final byte[] packet = MoldPackets.packet("SESS", 3, deletes(3, 5));
        // third block (message 5) claims 60 bytes but only 19 follow
        final int thirdBlock = 20 + 2 * (2 + 19);
        packet[thirdBlock] = 0;
        packet[thirdBlock + 1] = 60;
        receive(packet);
        // a packet that announces 3 messages but carries 2 blocks
        receive(MoldPackets.packetWithCount("SESS", 5, 3, deletes(5, 6)));
        receive(MoldPackets.packet("SESS", 8, deletes(8, 9)));

        assertEquals(2, feedCounters.malformedBlocks().get());
        assertEquals(List.of("1", "2", "3", "4", "5", "6", "gap 7-7 @1006", "8", "9"), events(1));
        assertEquals(List.of("gap 7-7 @1006"), events(0));
        assertEquals(1, feedCounters.gaps().get());
        assertEquals(1, feedCounters.missingMessages().get());
    }

    @Test
    void unknownTypeIsSkippedAndConsumesItsSequence()
    {
        final byte[] unknown = new ItchBytes(30, 'Z', 1, 0, 1).bytes();
        receive(MoldPackets.packet("SESS", 1, delete(1), unknown, delete(3)));
        receive(MoldPackets.packet("SESS", 4, deletes(4, 4)));

        assertEquals(1, normalizerCounters.unknownTypes().get());
        assertEquals(List.of("1", "3", "4"), events(1));
        assertEquals(0, feedCounters.gaps().get());
        assertEquals(5, arbiter.nextExpected());
    }

    @Test
    void wrongSessionIsCountedAndSkipped()
    {
        receive(MoldPackets.packet("SESS", 1, deletes(1, 2)));
        receive(MoldPackets.packet("OTHER", 3, deletes(3, 3)));
        receive(MoldPackets.packet("SESS", 3, deletes(3, 3)));

        assertEquals(1, feedCounters.wrongSession().get());
        assertEquals(List.of("1", "2", "3"), events(1));
    }

    @Test
    void firstSessionIsAdoptedWhenNoneConfigured()
    {
        arbiter = arbiter(null);
        receive(MoldPackets.packet("FIRST", 1, deletes(1, 1)));
        receive(MoldPackets.packet("SECOND", 2, deletes(2, 2)));
        receive(MoldPackets.heartbeat("SECOND", 5));
        receive(MoldPackets.packet("FIRST", 2, deletes(2, 2)));

        assertEquals(2, feedCounters.wrongSession().get());
        assertEquals(0, feedCounters.heartbeats().get());
        assertEquals(List.of("1", "2"), events(1));
    }

    @Test
    void duplicatePacketsAndBackwardsSequenceAreSkipped()
    {
        receive(MoldPackets.packet("SESS", 1, deletes(1, 3)));
        receive(MoldPackets.packet("SESS", 1, deletes(1, 3)));
        receive(MoldPackets.packet("SESS", 2, deletes(2, 2)));
        receive(MoldPackets.packet("SESS", 4, deletes(4, 4)));

        assertEquals(2, feedCounters.duplicatePackets().get());
        assertEquals(4, feedCounters.duplicateMessages().get());
        assertEquals(List.of("1", "2", "3", "4"), events(1));
    }

    @Test
    void overlappingPacketDeliversOnlyNewMessages()
    {
        receive(MoldPackets.packet("SESS", 1, deletes(1, 3)));
        receive(MoldPackets.packet("SESS", 2, deletes(2, 5)));

        assertEquals(0, feedCounters.duplicatePackets().get());
        assertEquals(2, feedCounters.duplicateMessages().get());
        assertEquals(List.of("1", "2", "3", "4", "5"), events(1));
    }

    @Test
    void gapPublishesGapNoticeToEveryPartitionAndContinues()
    {
        receive(MoldPackets.packet("SESS", 1, deletes(1, 2)));
        receive(MoldPackets.packet("SESS", 5, deletes(5, 6)));
        receive(MoldPackets.heartbeat("SESS", 7));
        receive(MoldPackets.heartbeat("SESS", 10));
        receive(MoldPackets.packet("SESS", 10, deletes(10, 10)));

        assertEquals(List.of("1", "2", "gap 3-4 @1002", "5", "6", "gap 7-9 @1006", "10"), events(1));
        assertEquals(List.of("gap 3-4 @1002", "gap 7-9 @1006"), events(0));
        assertEquals(2, feedCounters.gaps().get());
        assertEquals(5, feedCounters.missingMessages().get());
        assertEquals(2, feedCounters.heartbeats().get());
        assertEquals(2, normalizerCounters.gapNoticesPublished().get());
    }

    @Test
    void endOfSessionIsCountedAndEndsTheSession()
    {
        receive(MoldPackets.packet("SESS", 1, deletes(1, 2)));
        receive(MoldPackets.endOfSession("SESS", 3));
        receive(MoldPackets.endOfSession("SESS", 3)); // a repeat: a packet of the ended session
        receive(MoldPackets.packet("SESS", 3, deletes(3, 3)));

        assertEquals(1, feedCounters.endOfSession().get());
        assertEquals(2, arbitrationCounters.endedSessionPackets().get());
        assertEquals(LineArbiter.State.SESSION_ENDED, arbiter.state());
        assertEquals(List.of("1", "2"), events(1));
        assertEquals(0, feedCounters.gaps().get());
    }

    @Test
    void endOfSessionAfterAnAnnouncedGapEndsTheSessionAtOnce()
    {
        receive(MoldPackets.packet("SESS", 1, deletes(1, 2)));
        receive(MoldPackets.endOfSession("SESS", 5));

        assertEquals(LineArbiter.State.SESSION_ENDED, arbiter.state());
        // The declared tail took the session's last message, its End of Messages: a GapNotice STALE says it is over.
        assertEquals(List.of("1", "2", "gap 3-4 @1002", "session end lost at 4"), events(1));
        assertEquals(1, arbitrationCounters.gapsDeclared().get());
        assertEquals(2, arbitrationCounters.declaredMissingMessages().get());
    }

    @Test
    void anotherSessionAfterTheEndIsAdopted()
    {
        receive(MoldPackets.packet("SESS", 1, deletes(1, 2)));
        receive(MoldPackets.endOfSession("SESS", 3));
        receive(MoldPackets.packet("NEXT", 1, deletes(1, 1)));

        assertEquals(1, arbitrationCounters.sessionsAdopted().get());
        assertEquals(LineArbiter.State.IN_SEQUENCE, arbiter.state());
        assertEquals(2, arbiter.nextExpected());
        assertEquals(List.of("1", "2", "1"), events(1));
    }

    @Test
    void everyGapIsDeclaredAtOnceAndNothingIsHeld()
    {
        receive(MoldPackets.packet("SESS", 1, deletes(1, 2)));
        receive(MoldPackets.packet("SESS", 6, deletes(6, 6)));

        assertEquals(LineArbiter.State.IN_SEQUENCE, arbiter.state());
        assertEquals(0, arbiter.openGaps());
        assertEquals(0, arbiter.heldMessages());
        assertEquals(7, arbiter.nextExpected());
        assertEquals(1, arbitrationCounters.gapsDetected().get());
        assertEquals(1, arbitrationCounters.gapsDeclared().get());
        assertEquals(List.of("1", "2", "gap 3-5 @1002", "6"), events(1));

        receive(MoldPackets.packet("SESS", 3, deletes(3, 5))); // too late: declared already
        assertEquals(3, feedCounters.duplicateMessages().get());
        assertEquals(List.of(), events(1));
    }

    @Test
    void staleEndOfSessionIsCountedAndIgnored()
    {
        receive(MoldPackets.packet("SESS", 1, deletes(1, 5)));
        receive(MoldPackets.endOfSession("SESS", 3)); // below the next expected 6: a stray packet
        receive(MoldPackets.packet("SESS", 6, deletes(6, 8)));
        receive(MoldPackets.endOfSession("SESS", 9)); // the genuine end

        assertEquals(1, feedCounters.staleEndOfSession().get());
        assertEquals(1, feedCounters.endOfSession().get());
        assertEquals(List.of("1", "2", "3", "4", "5", "6", "7", "8"), events(1));
        assertEquals(0, feedCounters.gaps().get());
        assertEquals(9, arbiter.nextExpected());
    }

    @Test
    void garbageNeverThrows()
    {
        final java.util.Random random = new java.util.Random(42);
        for (int i = 0; i < 2000; i++)
        {
            final byte[] datagram = new byte[random.nextInt(120)];
            random.nextBytes(datagram);
            if (datagram.length >= 10 && random.nextBoolean())
            {
                System.arraycopy("SESS      ".getBytes(), 0, datagram, 0, 10);
            }
            receive(datagram);
        }
        assertEquals(2000, feedCounters.packetsReceived().get());
        assertEquals(0, feedCounters.packetErrors().get());
        assertFalse(feedCounters.truncatedPackets().get() == 0);
    }
}
