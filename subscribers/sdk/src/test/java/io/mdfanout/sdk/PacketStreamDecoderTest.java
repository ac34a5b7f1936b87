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
    void missingArgumentsAreRejected()
    {
        assertThrows(IllegalArgumentException.class, () -> new PacketStreamDecoder(
            new int[0], books, counters, (throwable) -> { }));
    }
}
