package io.mdfanout.feed.itch;

import org.agrona.MutableDirectBuffer;

/**
 * Flyweight over an ITCH 5.0 'I' message (Net Order Imbalance Indicator), fields at the specification's offsets.
 */
public final class NoiiMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.NOII;
    /** Length in the specification. */
    public static final int LENGTH = 50;
    /** Offset of pairedShares. */
    public static final int PAIRED_SHARES_OFFSET = 11;
    /** Offset of imbalanceShares. */
    public static final int IMBALANCE_SHARES_OFFSET = 19;
    /** Offset of imbalanceDirection. */
    public static final int IMBALANCE_DIRECTION_OFFSET = 27;
    /** Offset of stock. */
    public static final int STOCK_OFFSET = 28;
    /** Length of stock. */
    public static final int STOCK_LENGTH = 8;
    /** Offset of farPrice. */
    public static final int FAR_PRICE_OFFSET = 36;
    /** Offset of nearPrice. */
    public static final int NEAR_PRICE_OFFSET = 40;
    /** Offset of currentReferencePrice. */
    public static final int CURRENT_REFERENCE_PRICE_OFFSET = 44;
    /** Offset of crossType. */
    public static final int CROSS_TYPE_OFFSET = 48;
    /** Offset of priceVariationIndicator. */
    public static final int PRICE_VARIATION_INDICATOR_OFFSET = 49;

    /** Paired shares, raw 64 bits. */
    public long pairedShares()
    {
        return u64(PAIRED_SHARES_OFFSET);
    }

    /** Imbalance shares, raw 64 bits. */
    public long imbalanceShares()
    {
        return u64(IMBALANCE_SHARES_OFFSET);
    }

    /** Imbalance direction: B, S, N, O or P. */
    public byte imbalanceDirection()
    {
        return u8(IMBALANCE_DIRECTION_OFFSET);
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

    /** Far price, Price(4). Unsigned 32-bit. */
    public long farPrice()
    {
        return u32(FAR_PRICE_OFFSET);
    }

    /** Near price, Price(4). Unsigned 32-bit. */
    public long nearPrice()
    {
        return u32(NEAR_PRICE_OFFSET);
    }

    /** Current reference price, Price(4). Unsigned 32-bit. */
    public long currentReferencePrice()
    {
        return u32(CURRENT_REFERENCE_PRICE_OFFSET);
    }

    /** Cross type: O, C, H or A. */
    public byte crossType()
    {
        return u8(CROSS_TYPE_OFFSET);
    }

    /** Price variation indicator. */
    public byte priceVariationIndicator()
    {
        return u8(PRICE_VARIATION_INDICATOR_OFFSET);
    }
}
