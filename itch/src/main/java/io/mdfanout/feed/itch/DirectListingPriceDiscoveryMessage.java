package io.mdfanout.feed.itch;

import org.agrona.MutableDirectBuffer;

/**
 * Flyweight over an ITCH 5.0 'O' message (Direct Listing with Capital Raise Price Discovery), fields at the
 * specification's offsets.
 */
public final class DirectListingPriceDiscoveryMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.DIRECT_LISTING_PRICE_DISCOVERY;
    /** Length in the specification. */
    public static final int LENGTH = 48;
    /** Offset of stock. */
    public static final int STOCK_OFFSET = 11;
    /** Length of stock. */
    public static final int STOCK_LENGTH = 8;
    /** Offset of openEligibilityStatus. */
    public static final int OPEN_ELIGIBILITY_STATUS_OFFSET = 19;
    /** Offset of minimumAllowablePrice. */
    public static final int MINIMUM_ALLOWABLE_PRICE_OFFSET = 20;
    /** Offset of maximumAllowablePrice. */
    public static final int MAXIMUM_ALLOWABLE_PRICE_OFFSET = 24;
    /** Offset of nearExecutionPrice. */
    public static final int NEAR_EXECUTION_PRICE_OFFSET = 28;
    /** Offset of nearExecutionTime. */
    public static final int NEAR_EXECUTION_TIME_OFFSET = 32;
    /** Offset of lowerPriceRangeCollar. */
    public static final int LOWER_PRICE_RANGE_COLLAR_OFFSET = 40;
    /** Offset of upperPriceRangeCollar. */
    public static final int UPPER_PRICE_RANGE_COLLAR_OFFSET = 44;

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

    /** Open eligibility status. */
    public byte openEligibilityStatus()
    {
        return u8(OPEN_ELIGIBILITY_STATUS_OFFSET);
    }

    /** Minimum allowable price, Price(4). Unsigned 32-bit. */
    public long minimumAllowablePrice()
    {
        return u32(MINIMUM_ALLOWABLE_PRICE_OFFSET);
    }

    /** Maximum allowable price, Price(4). Unsigned 32-bit. */
    public long maximumAllowablePrice()
    {
        return u32(MAXIMUM_ALLOWABLE_PRICE_OFFSET);
    }

    /** Near execution price, Price(4). Unsigned 32-bit. */
    public long nearExecutionPrice()
    {
        return u32(NEAR_EXECUTION_PRICE_OFFSET);
    }

    /** Near execution time, raw 64 bits. */
    public long nearExecutionTime()
    {
        return u64(NEAR_EXECUTION_TIME_OFFSET);
    }

    /** Lower price range collar, Price(4). Unsigned 32-bit. */
    public long lowerPriceRangeCollar()
    {
        return u32(LOWER_PRICE_RANGE_COLLAR_OFFSET);
    }

    /** Upper price range collar, Price(4). Unsigned 32-bit. */
    public long upperPriceRangeCollar()
    {
        return u32(UPPER_PRICE_RANGE_COLLAR_OFFSET);
    }
}
