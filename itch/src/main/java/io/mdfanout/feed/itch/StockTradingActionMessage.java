package io.mdfanout.feed.itch;

import org.agrona.MutableDirectBuffer;

/**
 * Flyweight over an ITCH 5.0 'H' message (Stock Trading Action), fields at the specification's offsets.
 */
public final class StockTradingActionMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.STOCK_TRADING_ACTION;
    /** Length in the specification. */
    public static final int LENGTH = 25;
    /** Offset of stock. */
    public static final int STOCK_OFFSET = 11;
    /** Length of stock. */
    public static final int STOCK_LENGTH = 8;
    /** Offset of tradingState. */
    public static final int TRADING_STATE_OFFSET = 19;
    /** Offset of reserved. */
    public static final int RESERVED_OFFSET = 20;
    /** Offset of reason. */
    public static final int REASON_OFFSET = 21;
    /** Length of reason. */
    public static final int REASON_LENGTH = 4;

    /**
     * Stock symbol, 8 ASCII bytes, space-padded.
     *
     * @param index 0 to 7.
     * @return the ASCII byte at that index.
     */
    public byte stock(final int index)
    {
        return alpha(STOCK_OFFSET, STOCK_LENGTH, index);
    }

    /** Copy the 8 raw bytes of stock into {@code dst} at {@code dstOffset}. */
    public void getStock(final MutableDirectBuffer dst, final int dstOffset)
    {
        copy(STOCK_OFFSET, STOCK_LENGTH, dst, dstOffset);
    }

    /** Trading state: H halted, P paused, Q quotation only, T trading. */
    public byte tradingState()
    {
        return u8(TRADING_STATE_OFFSET);
    }

    /** Reserved. */
    public byte reserved()
    {
        return u8(RESERVED_OFFSET);
    }

    /**
     * Trading action reason, 4 ASCII bytes.
     *
     * @param index 0 to 3.
     * @return the ASCII byte at that index.
     */
    public byte reason(final int index)
    {
        return alpha(REASON_OFFSET, REASON_LENGTH, index);
    }

    /** Copy the 4 raw bytes of reason into {@code dst} at {@code dstOffset}. */
    public void getReason(final MutableDirectBuffer dst, final int dstOffset)
    {
        copy(REASON_OFFSET, REASON_LENGTH, dst, dstOffset);
    }
}
