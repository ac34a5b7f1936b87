package io.mdfanout.sdk;

import io.mdfanout.sbe.GapReason;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sdk.book.BookCounters;
import io.mdfanout.sdk.book.OrderBooks;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The transport-less facade drives the same packet processing as FeedSubscriber: books, gaps, rejections. */
class PacketStreamDecoderTest
{
    private final PacketWriter writer = new PacketWriter();
    private final SubscriberCounters counters =
        new SubscriberCounters(LocalCounters.create(SubscriberCounters.COUNTER_COUNT), "test");
    private final OrderBooks books =
        new OrderBooks(1024, 8, new BookCounters(LocalCounters.create(BookCounters.COUNTER_COUNT), "test"));
    private final PacketStreamDecoder decoder = new PacketStreamDecoder(
        new int[]{ 3 }, books, counters, (throwable) -> { throw new AssertionError(throwable); });

    @Test
    void packetsUpdateBooksAndSequence()
    {
        writer.begin(3, 1, 0);
        writer.addOrder().exchangeSequence(1).instrumentId(7).orderId(100).shares(10).side(Side.BUY).price().mantissa(5000);
        writer.addOrder().exchangeSequence(2).instrumentId(7).orderId(101).shares(20).side(Side.SELL).price().mantissa(5100);
        decoder.onMessage(0, 1, writer.buffer(), 0, writer.finish());

        writer.begin(3, 3, 0);
        writer.orderDelete().exchangeSequence(3).instrumentId(7).orderId(100);
        decoder.onMessage(0, 1, writer.buffer(), 0, writer.finish());

        assertEquals(1, books.orderCount());
        assertEquals(4, decoder.expectedSequence(0));
        assertEquals(3, counters.messages());
        assertEquals(0, counters.gaps());
    }

    @Test
    void gapIsCountedAndMalformedPacketSkippedWithoutException()
    {
        writer.begin(3, 1, 0);
        writer.addOrder().exchangeSequence(1).instrumentId(7).orderId(100).shares(10).side(Side.BUY).price().mantissa(5000);
        decoder.onMessage(0, 1, writer.buffer(), 0, writer.finish());

        writer.begin(3, 5, 0);
        writer.addOrder().exchangeSequence(5).instrumentId(7).orderId(101).shares(10).side(Side.BUY).price().mantissa(5000);
        final int length = writer.finish();
        decoder.onMessage(0, 1, writer.buffer(), 0, length - 1); // truncated: rejected whole
        assertEquals(1, counters.malformed());
        assertEquals(1, books.orderCount());

        decoder.onMessage(0, 1, writer.buffer(), 0, length);
        assertEquals(1, counters.gaps());
        assertEquals(2, books.orderCount());
        assertEquals(6, decoder.expectedSequence(0));
    }

    @Test
    void aGapNoticeOfLostExchangeMessagesMakesThePartitionStaleUntilTheNextSession()
    {
        writer.begin(3, 1, 0);
        writer.addOrder().exchangeSequence(1).instrumentId(7).orderId(100).shares(10).side(Side.BUY).price().mantissa(5000);
        writer.gapNotice().exchangeSequence(2).lastMissingSequence(9).instrumentId(0).reason(GapReason.UNRECOVERED);
        decoder.onMessage(0, 1, writer.buffer(), 0, writer.finish());
        assertTrue(decoder.hasExchangeGap(0));
        assertEquals(1, counters.staleEvents(StaleReason.EXCHANGE_GAP));
        assertEquals(0, counters.gaps(), "the stream itself is intact");

        writer.begin(3, 3, 0);
        writer.gapNotice().exchangeSequence(12).lastMissingSequence(12).instrumentId(0).reason(GapReason.UNRECOVERED);
        writer.gapNotice().exchangeSequence(14).lastMissingSequence(14).instrumentId(0).reason(GapReason.STALE);
        decoder.onMessage(0, 1, writer.buffer(), 0, writer.finish());
        assertEquals(1, counters.staleEvents(StaleReason.EXCHANGE_GAP), "reported once while it lasts");

        writer.begin(3, 5, 0);
        writer.systemEvent().exchangeSequence(1).instrumentId(0).eventCode(SystemEventCode.START_OF_MESSAGES);
        decoder.onMessage(0, 1, writer.buffer(), 0, writer.finish());
        assertFalse(decoder.hasExchangeGap(0), "a new session starts from nothing lost");
    }

    @Test
    void aGapNoticeOfAStaleSourceIsNotALoss()
    {
        writer.begin(3, 1, 0);
        writer.gapNotice().exchangeSequence(2).lastMissingSequence(9).instrumentId(0).reason(GapReason.STALE);
        decoder.onMessage(0, 1, writer.buffer(), 0, writer.finish());
        assertFalse(decoder.hasExchangeGap(0));
        assertEquals(0, counters.staleEvents(StaleReason.EXCHANGE_GAP));
    }

    @Test
    void aPairsDecoderDeliversTheFirstCopyOnceTakesWhatOneSideLacksFromTheOtherAndGapsOnlyWhatBothLack()
    {
        final PacketStreamDecoder pair = PacketStreamDecoder.forPair(
            new int[]{ 3 }, 1_000, books, counters, (throwable) -> { throw new AssertionError(throwable); });
        // Chain 0 -> 2 from side A, then the same packet from side B: a duplicate.
        writer.begin(3, 1, 0).previousExchangeSequence(0);
        writer.addOrder().exchangeSequence(1).instrumentId(7).orderId(100).shares(10).side(Side.BUY).price().mantissa(5000);
        writer.addOrder().exchangeSequence(2).instrumentId(7).orderId(101).shares(20).side(Side.SELL).price().mantissa(5100);
        final int first = writer.finish();
        pair.onSideMessage(0, 0, writer.buffer(), 0, first);
        pair.onSideMessage(0, 1, writer.buffer(), 0, first);
        assertEquals(2, counters.messages());
        assertEquals(2, counters.sideDuplicates(1), "side B's copy dropped, counted");
        assertEquals(0, counters.sideMismatches(1), "and compared: the same bytes");

        // Side A lacks chain 3 (its next packet starts after 3): it waits, and side B's copy fills it.
        writer.begin(3, 4, 0).previousExchangeSequence(3);
        writer.orderDelete().exchangeSequence(4).instrumentId(7).orderId(101);
        final int afterGap = writer.finish();
        final byte[] sideA = new byte[afterGap];
        writer.buffer().getBytes(0, sideA);
        pair.onSideMessage(0, 0, new org.agrona.concurrent.UnsafeBuffer(sideA), 0, afterGap);
        assertEquals(2, counters.messages(), "held while side B may have chain 3");
        writer.begin(3, 3, 0).previousExchangeSequence(2);
        writer.orderDelete().exchangeSequence(3).instrumentId(7).orderId(100);
        pair.onSideMessage(0, 1, writer.buffer(), 0, writer.finish());
        assertEquals(4, counters.messages(), "side B's chain 3, then side A's held 4");
        assertEquals(0, books.orderCount());
        assertEquals(0, counters.gaps());

        // Chain 5 lacked by both: a gap once the wait is over, reported once.
        writer.begin(3, 6, 0).previousExchangeSequence(5);
        writer.addOrder().exchangeSequence(6).instrumentId(7).orderId(102).shares(10).side(Side.BUY).price().mantissa(5000);
        final int late = writer.finish();
        pair.onSideMessage(0, 0, writer.buffer(), 0, late);
        pair.onSideMessage(0, 1, writer.buffer(), 0, late);
        assertEquals(0, counters.gaps(), "still waiting");
        pair.doWork(System.nanoTime() + 1_000_000);
        assertEquals(1, counters.gaps());
        assertEquals(5, counters.messages());
        assertEquals(7, pair.expectedSequence(0), "in a pair, the next chain position");
        assertThrows(IllegalStateException.class, () -> pair.onMessage(0, 1, writer.buffer(), 0, late));
        assertThrows(IllegalStateException.class, () -> decoder.onSideMessage(0, 0, writer.buffer(), 0, late));
    }

    @Test
    void aPairsSideWhoseCopyDiffersIsRefusedLoudlyAndTheOtherSideServesAlone()
    {
        final java.util.List<String> errors = new java.util.ArrayList<>();
        final PacketStreamDecoder pair = PacketStreamDecoder.forPair(
            new int[]{ 3 }, 1_000, books, counters, (throwable) -> errors.add(throwable.getMessage()));
        writer.begin(3, 1, 0).previousExchangeSequence(0);
        writer.addOrder().exchangeSequence(1).instrumentId(7).orderId(100).shares(10).side(Side.BUY).price().mantissa(5000);
        writer.addOrder().exchangeSequence(2).instrumentId(7).orderId(101).shares(20).side(Side.SELL).price().mantissa(5100);
        pair.onSideMessage(0, 0, writer.buffer(), 0, writer.finish());
        // Side B's copy of chain 2 has another price: the same identity, other bytes.
        writer.begin(3, 1, 0).previousExchangeSequence(0);
        writer.addOrder().exchangeSequence(1).instrumentId(7).orderId(100).shares(10).side(Side.BUY).price().mantissa(5000);
        writer.addOrder().exchangeSequence(2).instrumentId(7).orderId(101).shares(20).side(Side.SELL).price().mantissa(5200);
        pair.onSideMessage(0, 1, writer.buffer(), 0, writer.finish());
        assertEquals(1, counters.sideMismatches(1));
        assertEquals(0, counters.sideMismatches(0));
        assertEquals(1, errors.size(), errors.toString());
        assertTrue(errors.get(0).startsWith("side B of partition 3 refused: its copy of the message at chain position 2 " +
            "differs from the one the other side delivered"), errors.get(0));

        // Side B is out: its next packet, first with chain 3, is refused; side A's is delivered.
        writer.begin(3, 3, 0).previousExchangeSequence(2);
        writer.orderDelete().exchangeSequence(3).instrumentId(7).orderId(100);
        final int next = writer.finish();
        pair.onSideMessage(0, 1, writer.buffer(), 0, next);
        assertEquals(2, counters.messages(), "nothing from a refused side");
        assertTrue(counters.sideRefused(1) > 0);
        pair.onSideMessage(0, 0, writer.buffer(), 0, next);
        assertEquals(3, counters.messages());
        assertEquals(1, books.orderCount());
        assertEquals(1, errors.size(), "said once: " + errors);
    }

    @Test
    void missingArgumentsAreRejected()
    {
        assertThrows(IllegalArgumentException.class, () -> new PacketStreamDecoder(
            new int[0], books, counters, (throwable) -> { }));
        assertThrows(IllegalArgumentException.class, () -> PacketStreamDecoder.withRecovery(
            new int[]{ 3 }, 0, books, counters, (throwable) -> { }));
        assertThrows(IllegalArgumentException.class, () -> PacketStreamDecoder.withRecovery(
            new int[]{ 3 }, 65536, null, counters, (throwable) -> { }));
    }

    @Test
    void aSnapshotMessageNeedsADecoderWithRecovery()
    {
        final int length = writer.heartbeat(3, 1, 0);
        final IllegalStateException refused = assertThrows(IllegalStateException.class,
            () -> decoder.onSnapshotMessage(0, 2, writer.buffer(), 0, length));
        assertTrue(refused.getMessage().contains("withRecovery"), refused.getMessage());
    }

    @Test
    void aLateJoinerHoldsItsIncrementalsBackUntilASnapshotHandedInIsApplied()
    {
        final PacketStreamDecoder recovering = PacketStreamDecoder.withRecovery(
            new int[]{ 3 }, 65536, books, counters, (throwable) -> { throw new AssertionError(throwable); });
        writer.begin(3, 5, 0);
        writer.addOrder().exchangeSequence(5).instrumentId(7).orderId(101).shares(20).side(Side.SELL).price().mantissa(5100);
        recovering.onMessage(0, 1, writer.buffer(), 0, writer.finish());
        assertTrue(recovering.isRecovering(0), "joined at 5: stale, held back");
        assertEquals(0, books.orderCount());

        writer.begin(3, 1, 0);
        writer.snapshotBegin().snapshotId(1).lastStreamSequence(4).incrementalSessionId(1).partitionId(3)
            .unrecoveredFromSequence(0).unrecoveredToSequence(0);
        writer.snapshotInstrument().instrumentId(7).snapshotId(1).lastStreamSequence(4).coveredFromInstrumentId(1)
            .orderCount(1);
        writer.snapshotOrder().instrumentId(7).orderId(100).shares(10).side(Side.BUY).attribution("    ").price()
            .mantissa(5000);
        writer.snapshotEnd().snapshotId(1).lastStreamSequence(4).coveredFromInstrumentId(8).instrumentCount(1)
            .orderCount(1).messageCount(2);
        recovering.onSnapshotMessage(0, 2, writer.buffer(), 0, writer.finish());

        assertFalse(recovering.isRecovering(0));
        assertEquals(2, books.orderCount(), "the snapshot's order and the one held back");
        assertEquals(1, counters.snapshotsApplied());
        assertEquals(1, counters.recoveries());
        assertFalse(decoder.isRecovering(0), "without recovery, never");
    }
}
