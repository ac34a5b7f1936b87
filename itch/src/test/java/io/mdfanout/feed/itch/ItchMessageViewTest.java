package io.mdfanout.feed.itch;

import io.mdfanout.feed.support.ItchBytes;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The view reads what the typed flyweights read, at every width and at the largest values, from
 * heap and off-heap buffers; its one check refuses any extent outside the buffer; and it follows a
 * buffer re-wrapped over other memory.
 */
class ItchMessageViewTest
{
    private static final long MAX_U32 = 4294967295L;
    private static final long MAX_TIMESTAMP = 281474976710655L;
    private static final int AT = 5;

    private static final ItchBytes TRADE = new ItchBytes(44, 'P', 65535, 65534, MAX_TIMESTAMP)
        .u64(11, -2L).ch(19, 'S').u32(20, MAX_U32).alpha(24, 8, "MSFT").u32(32, 1_234_500).u64(36, Long.MAX_VALUE);

    @Test
    void readsWhatTheFlyweightReadsFromHeapAndOffHeapBuffers()
    {
        final UnsafeBuffer heap = new UnsafeBuffer(new byte[AT + TRADE.length()]);
        final UnsafeBuffer offHeap = new UnsafeBuffer(BufferUtil.allocateDirectAligned(AT + TRADE.length() + 3, 8));
        for (final UnsafeBuffer buffer : new UnsafeBuffer[]{ heap, offHeap })
        {
            buffer.putBytes(AT, TRADE.bytes());
            final TradeMessage flyweight = new TradeMessage();
            flyweight.wrap(buffer, AT, TRADE.length());
            final ItchMessageView view = new ItchMessageView();
            assertTrue(view.wrap(buffer, AT, TRADE.length()));

            assertEquals(flyweight.messageType(), view.u8(ItchMessage.MESSAGE_TYPE_OFFSET));
            assertEquals(65535, view.u16(ItchMessage.STOCK_LOCATE_OFFSET));
            assertEquals(65534, view.u16(ItchMessage.TRACKING_NUMBER_OFFSET));
            assertEquals(MAX_TIMESTAMP, view.u48(ItchMessage.TIMESTAMP_OFFSET));
            assertEquals(flyweight.timestamp(), view.u48(ItchMessage.TIMESTAMP_OFFSET));
            assertEquals(-2L, view.u64(TradeMessage.ORDER_REFERENCE_NUMBER_OFFSET));
            assertEquals(flyweight.orderReferenceNumber(), view.u64(TradeMessage.ORDER_REFERENCE_NUMBER_OFFSET));
            assertEquals('S', view.u8(TradeMessage.BUY_SELL_INDICATOR_OFFSET));
            assertEquals(MAX_U32, view.u32(TradeMessage.SHARES_OFFSET));
            assertEquals(flyweight.shares(), view.u32(TradeMessage.SHARES_OFFSET));
            assertEquals(1_234_500, view.u32(TradeMessage.PRICE_OFFSET));
            assertEquals(Long.MAX_VALUE, view.u64(TradeMessage.MATCH_NUMBER_OFFSET));
        }
    }

    @Test
    void refusesAnExtentOutsideTheBuffer()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        final ItchMessageView view = new ItchMessageView();
        assertTrue(view.wrap(buffer, 0, 64), "exactly the buffer");
        assertTrue(view.wrap(buffer, 20, 44), "up to its last byte");
        assertFalse(view.wrap(buffer, 21, 44), "one byte past its end");
        assertFalse(view.wrap(buffer, -1, 10), "before its start");
        assertFalse(view.wrap(buffer, 10, -1), "a negative length");
        assertFalse(view.wrap(buffer, Integer.MAX_VALUE, 10), "an offset whose end overflows");
        assertFalse(view.wrap(buffer, 10, Integer.MAX_VALUE), "a length whose end overflows");
    }

    @Test
    void followsABufferReWrappedOverOtherMemory()
    {
        final byte[] first = new byte[TRADE.length()];
        final byte[] second = TRADE.bytes();
        final UnsafeBuffer buffer = new UnsafeBuffer(first);
        final ItchMessageView view = new ItchMessageView();
        assertTrue(view.wrap(buffer, 0, first.length));
        assertEquals(0, view.u16(ItchMessage.STOCK_LOCATE_OFFSET));

        buffer.wrap(second);
        assertTrue(view.wrap(buffer, 0, second.length));
        assertEquals(65535, view.u16(ItchMessage.STOCK_LOCATE_OFFSET));
        assertEquals(Long.MAX_VALUE, view.u64(TradeMessage.MATCH_NUMBER_OFFSET));
    }
}
