package io.mdfanout.feed.itch;

import org.agrona.MutableDirectBuffer;

/**
 * Flyweight over an ITCH 5.0 'N' message (Retail Price Improvement Indicator), fields at the specification's offsets.
 */
public final class RetailPriceImprovementMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.RETAIL_PRICE_IMPROVEMENT;
    /** Length in the specification. */
    public static final int LENGTH = 20;
    /** Offset of stock. */
    public static final int STOCK_OFFSET = 11;
    /** Length of stock. */
    public static final int STOCK_LENGTH = 8;
    /** Offset of interestFlag. */
    public static final int INTEREST_FLAG_OFFSET = 19;

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

    /** Interest flag: B, S, A or N. */
    public byte interestFlag()
    {
        return u8(INTEREST_FLAG_OFFSET);
    }
}
