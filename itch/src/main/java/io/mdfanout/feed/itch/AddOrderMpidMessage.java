package io.mdfanout.feed.itch;

import org.agrona.MutableDirectBuffer;

/**
 * Flyweight over an ITCH 5.0 'F' message (Add Order with MPID Attribution), fields at the specification's offsets.
 */
public final class AddOrderMpidMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.ADD_ORDER_MPID;
    /** Length in the specification. */
    public static final int LENGTH = 40;
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
    /** Offset of attribution. */
    public static final int ATTRIBUTION_OFFSET = 36;
    /** Length of attribution. */
    public static final int ATTRIBUTION_LENGTH = 4;

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

    /** Price, Price(4): 4 implied decimals, unsigned. Unsigned 32-bit. */
    public long price()
    {
        return u32(PRICE_OFFSET);
    }

    /**
     * Market participant id, 4 ASCII bytes.
     *
     * @param index 0 to 3.
     * @return the ASCII byte at that index.
     */
    public byte attribution(final int index)
    {
        return alpha(ATTRIBUTION_OFFSET, ATTRIBUTION_LENGTH, index);
    }

    /** Copy the 4 raw bytes of attribution into {@code dst} at {@code dstOffset}. */
    public void getAttribution(final MutableDirectBuffer dst, final int dstOffset)
    {
        copy(ATTRIBUTION_OFFSET, ATTRIBUTION_LENGTH, dst, dstOffset);
    }
}
