package io.mdfanout.sdk;

import io.mdfanout.sbe.AddOrderEncoder;
import io.mdfanout.sbe.GapNoticeEncoder;
import io.mdfanout.sbe.GapReason;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.PacketHeaderEncoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The arbitration of issue 37 on hand-made packets and an exact clock: first copy wins, what one side lacks the other
 * gives, a gap only when no side has a message within the wait, a side's gap notice delivered only when no other side
 * filled the span.
 */
final class ChainArbiterTest
{
    private static final long WAIT_NS = 1_000_000;
    private static final long NULL = ChainArbiter.UNKNOWN;

    private final List<String> events = new ArrayList<>();
    private final List<Long> delivered = new ArrayList<>();
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4096]);
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final PacketHeaderEncoder packetHeader = new PacketHeaderEncoder();
    private final AddOrderEncoder addOrder = new AddOrderEncoder();
    private final GapNoticeEncoder gapNotice = new GapNoticeEncoder();
    private int length;

    private final ChainArbiter.Output output = new ChainArbiter.Output()
    {
        public void onJoin(final int side, final long chain, final boolean sessionStart)
        {
            events.add("join side " + side + " at " + chain + (sessionStart ? " (session start)" : ""));
        }

        public void onMessages(
            final int side, final DirectBuffer packet, final int offset, final int packetLength, final int fromIndex,
            final int toIndex, final long chainAfter)
        {
            int position = offset + WireFormat.HEADER_LENGTH + WireFormat.blockLengthOf(WireFormat.headerWord(packet, offset));
            for (int i = 0; i < toIndex; i++)
            {
                final long word = WireFormat.headerWord(packet, position);
                if (i >= fromIndex)
                {
                    final long sequence = packet.getLong(position + WireFormat.HEADER_LENGTH, WireFormat.BYTE_ORDER);
                    delivered.add(GapNoticeEncoder.TEMPLATE_ID == WireFormat.templateIdOf(word) ? -sequence : sequence);
                }
                position += WireFormat.messageLength(WireFormat.blockLengthOf(word));
            }
            events.add("side " + side + " delivered to " + chainAfter);
        }

        public void onGap(final long afterChain, final long throughChain)
        {
            events.add("gap " + afterChain + ".." + throughChain);
        }

        public void onDuplicates(final int side, final int count)
        {
            events.add("side " + side + " duplicates " + count);
        }

        public void onMismatch(final int side, final long chain)
        {
            events.add("side " + side + " mismatch at " + chain);
        }
    };

    /** A packet: its chain before it, then messages; a negative sequence -a is a gap notice a..(a+9). */
    private ChainArbiterTest packet(final long previous, final long... sequences)
    {
        packetHeader.wrapAndApplyHeader(buffer, 0, header).streamSequence(1).sendingTime(0).partitionId(0)
            .messageCount(sequences.length).previousExchangeSequence(previous);
        int position = WireFormat.HEADER_LENGTH + PacketHeaderEncoder.BLOCK_LENGTH;
        for (final long sequence : sequences)
        {
            if (sequence < 0)
            {
                gapNotice.wrapAndApplyHeader(buffer, position, header).exchangeSequence(-sequence).exchangeTimestamp(0)
                    .instrumentId(0).lastMissingSequence(-sequence + 9).reason(GapReason.UNRECOVERED);
                position += WireFormat.HEADER_LENGTH + GapNoticeEncoder.BLOCK_LENGTH;
            }
            else
            {
                addOrder.wrapAndApplyHeader(buffer, position, header).exchangeSequence(sequence).exchangeTimestamp(0)
                    .instrumentId(1).orderId(sequence).side(Side.BUY).shares(1).price().mantissa(1);
                position += WireFormat.HEADER_LENGTH + AddOrderEncoder.BLOCK_LENGTH;
            }
        }
        length = position;
        return this;
    }

    private void from(final ChainArbiter arbiter, final int side, final long nowNs)
    {
        arbiter.onPacket(side, buffer, 0, length, nowNs);
    }

    @Test
    void theFirstCopyWinsAndTheOthersAreDuplicates()
    {
        final ChainArbiter arbiter = new ChainArbiter(2, WAIT_NS, 64 * 1024, output);
        packet(0, 1, 5, 9).from(arbiter, 0, 0);
        packet(0, 1, 5, 9).from(arbiter, 1, 10);
        packet(9, 12).from(arbiter, 1, 20);
        packet(9, 12).from(arbiter, 0, 30);
        assertEquals(List.of(1L, 5L, 9L, 12L), delivered);
        assertEquals(List.of("join side 0 at 0 (session start)", "side 0 delivered to 9", "side 1 duplicates 3",
            "side 1 delivered to 12", "side 0 duplicates 1"), events);
        assertEquals(12, arbiter.chain());
    }

    @Test
    void whatOneSideLostTheOtherGivesWithoutAGap()
    {
        final ChainArbiter arbiter = new ChainArbiter(2, WAIT_NS, 64 * 1024, output);
        packet(0, 1, 5).from(arbiter, 0, 0);
        packet(0, 1, 5).from(arbiter, 1, 0);
        // side 0 lost the packet with 9; its next one does not link and waits
        packet(9, 12).from(arbiter, 0, 100);
        assertTrue(arbiter.isHolding(0));
        assertEquals(List.of(1L, 5L), delivered);
        packet(5, 9).from(arbiter, 1, 200); // side 1 has 9: the chain reaches side 0's packet
        assertEquals(List.of(1L, 5L, 9L, 12L), delivered);
        assertFalse(arbiter.isHolding(0));
        arbiter.poll(100 + 2 * WAIT_NS);
        assertFalse(events.stream().anyMatch(e -> e.startsWith("gap")), events.toString());
    }

    @Test
    void aSpanNoSideHasIsAGapAfterTheWaitAndOnlyThen()
    {
        final ChainArbiter arbiter = new ChainArbiter(2, WAIT_NS, 64 * 1024, output);
        packet(0, 1, 5).from(arbiter, 0, 0);
        packet(9, 12).from(arbiter, 0, 100);
        packet(9, 12).from(arbiter, 1, 150);
        arbiter.poll(100 + WAIT_NS - 1);
        assertEquals(List.of(1L, 5L), delivered, "still waiting");
        arbiter.poll(100 + WAIT_NS);
        assertEquals(List.of(1L, 5L, 12L), delivered);
        assertEquals(1, events.stream().filter(e -> e.equals("gap 5..9")).count(), events.toString());
        assertFalse(arbiter.isHolding(0) || arbiter.isHolding(1));
    }

    @Test
    void aSidesGapNoticeWaitsForTheOtherSideWhichFillsTheSpan()
    {
        final ChainArbiter arbiter = new ChainArbiter(2, WAIT_NS, 64 * 1024, output);
        packet(0, 1).from(arbiter, 0, 0);
        packet(1, -2, 14).from(arbiter, 0, 10); // side 0 declared 2..11 lost
        assertEquals(List.of(1L), delivered, "the notice waits for side 1");
        packet(0, 1, 3, 7, 11, 14).from(arbiter, 1, 20);
        assertEquals(List.of(1L, 3L, 7L, 11L, 14L), delivered, "side 1 had them: no notice, no gap");
        arbiter.poll(10 + 2 * WAIT_NS);
        assertEquals(List.of(1L, 3L, 7L, 11L, 14L), delivered);
    }

    @Test
    void aGapNoticeBothSidesSendIsDeliveredOnce()
    {
        final ChainArbiter arbiter = new ChainArbiter(2, WAIT_NS, 64 * 1024, output);
        packet(0, 1).from(arbiter, 0, 0);
        packet(1, -2, 14).from(arbiter, 0, 10);
        packet(1, -2, 14).from(arbiter, 1, 20);
        arbiter.poll(10 + WAIT_NS);
        assertEquals(List.of(1L, -2L, 14L), delivered, "the notice once, then the chain goes on");
        assertEquals(14, arbiter.chain());
    }

    @Test
    void withOneSideAGapIsAGapAtOnceAndANoticeGoesStraightThrough()
    {
        final ChainArbiter arbiter = new ChainArbiter(1, WAIT_NS, 64 * 1024, output);
        packet(0, 1).from(arbiter, 0, 0);
        packet(1, -2).from(arbiter, 0, 1);
        packet(20, 25).from(arbiter, 0, 2);
        assertEquals(List.of(1L, -2L, 25L), delivered);
        assertTrue(events.contains("gap 11..20"), events.toString());
    }

    @Test
    void aHeartbeatAboveTheChainIsAGapAfterTheWaitUnlessAnotherSideFillsIt()
    {
        final ChainArbiter arbiter = new ChainArbiter(2, WAIT_NS, 64 * 1024, output);
        packet(0, 1).from(arbiter, 0, 0);
        arbiter.onHeartbeat(0, 5, 10); // side 0 sent 5; it never arrived
        packet(1, 5).from(arbiter, 1, 20);
        arbiter.poll(10 + WAIT_NS);
        assertFalse(events.stream().anyMatch(e -> e.startsWith("gap")), events.toString());
        arbiter.onHeartbeat(1, 9, 30);
        arbiter.poll(30 + WAIT_NS);
        assertTrue(events.contains("gap 5..9"), events.toString());
        assertEquals(9, arbiter.chain());
    }

    @Test
    void aMidSessionJoinStartsAtThePacketAndAnExchangeSnapshotsMessagesAreNoLinks()
    {
        final ChainArbiter arbiter = new ChainArbiter(2, WAIT_NS, 64 * 1024, output);
        packet(NULL, 1000, 1003).from(arbiter, 0, 0);
        assertEquals("join side 0 at 999", events.get(0));
        // side 1 was rebuilt from the exchange's snapshot: its state messages (sequence 0), then an unknown chain
        packet(NULL, 0, 0, 1003, 1007).from(arbiter, 1, 10);
        assertEquals(List.of(1000L, 1003L, 1007L), delivered);
        packet(1003, 1007, 1010).from(arbiter, 0, 20);
        assertEquals(List.of(1000L, 1003L, 1007L, 1010L), delivered);
    }

    @Test
    void aQuietPartitionJoinsAtAHeartbeatAfterTheWaitUnlessAPacketJoinsItFirst()
    {
        final ChainArbiter quiet = new ChainArbiter(2, WAIT_NS, 64 * 1024, output);
        quiet.onHeartbeat(1, 40, 0);
        quiet.onHeartbeat(0, 30, 5); // the lower chain loses less
        quiet.poll(WAIT_NS - 1);
        assertEquals(List.of(), events, "waits for a packet of either side");
        quiet.poll(WAIT_NS);
        assertEquals(List.of("join side 0 at 30"), events);
        assertEquals(30, quiet.chain());

        events.clear();
        final ChainArbiter busy = new ChainArbiter(2, WAIT_NS, 64 * 1024, output);
        busy.onHeartbeat(0, 12, 0); // side 0 lost its first packet; side 1's comes within the wait
        packet(0, 4, 8, 12).from(busy, 1, 10);
        busy.poll(WAIT_NS * 2);
        assertEquals(List.of("join side 1 at 0 (session start)", "side 1 delivered to 12"), events);

        events.clear();
        final ChainArbiter single = new ChainArbiter(1, WAIT_NS, 64 * 1024, output);
        single.onHeartbeat(0, 0, 0);
        assertEquals(List.of("join side 0 at 0 (session start)"), events, "one side: no wait");
    }
}
