package io.mdfanout.feed.itch;

import org.agrona.MutableDirectBuffer;

/**
 * Flyweight over an ITCH 5.0 'P' message (Trade (non-cross)), fields at the specification's offsets.
 */
public final class TradeMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.TRADE;
    /** Length in the specification. */
    public static final int LENGTH = 44;
    /** Offset of orderReferenceNumber. */
    public static final int ORDER_REFERENCE_NUMBER_OFFSET = 11;
    /** Offset of buySellIndicator. */
    public static final int BUY_SELL_INDICATOR_OFFSET = 19;
    /** Offset of shares. */
    public static final int SHARES_OFFSET = 20;
    /** Offset of stock. */
    public static final int STOCK_OFFSET = 24;
    /** Length of stock. */
    public static final int STOCK_LENGTH = 8;
    /** Offset of price. */
    public static final int PRICE_OFFSET = 32;
    /** Offset of matchNumber. */
    public static final int MATCH_NUMBER_OFFSET = 36;

    /** Order reference number. */
    public long orderReferenceNumber()
    {
        return u64(ORDER_REFERENCE_NUMBER_OFFSET);
    }

    /** Side: B buy, S sell. */
    public byte buySellIndicator()
    {
        return u8(BUY_SELL_INDICATOR_OFFSET);
    }

    /** Shares. Unsigned 32-bit. */
    public long shares()
    {
        return u32(SHARES_OFFSET);
    }

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

    /** Price, Price(4). Unsigned 32-bit. */
    public long price()
    {
        return u32(PRICE_OFFSET);
    }

    /** Match number. */
    public long matchNumber()
    {
        return u64(MATCH_NUMBER_OFFSET);
    }
}
