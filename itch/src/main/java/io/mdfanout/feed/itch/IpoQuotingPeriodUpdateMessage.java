package io.mdfanout.feed.itch;

import org.agrona.MutableDirectBuffer;

/**
 * Flyweight over an ITCH 5.0 'K' message (IPO Quoting Period Update), fields at the specification's offsets.
 */
public final class IpoQuotingPeriodUpdateMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.IPO_QUOTING_PERIOD_UPDATE;
    /** Length in the specification. */
    public static final int LENGTH = 28;
    /** Offset of stock. */
    public static final int STOCK_OFFSET = 11;
    /** Length of stock. */
    public static final int STOCK_LENGTH = 8;
    /** Offset of ipoQuotationReleaseTime. */
    public static final int IPO_QUOTATION_RELEASE_TIME_OFFSET = 19;
    /** Offset of ipoQuotationReleaseQualifier. */
    public static final int IPO_QUOTATION_RELEASE_QUALIFIER_OFFSET = 23;
    /** Offset of ipoPrice. */
    public static final int IPO_PRICE_OFFSET = 24;

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

    /** IPO quotation release time, seconds since midnight. Unsigned 32-bit. */
    public long ipoQuotationReleaseTime()
    {
        return u32(IPO_QUOTATION_RELEASE_TIME_OFFSET);
    }

    /** Release qualifier: A anticipated, C cancelled or postponed. */
    public byte ipoQuotationReleaseQualifier()
    {
        return u8(IPO_QUOTATION_RELEASE_QUALIFIER_OFFSET);
    }

    /** IPO price, Price(4): 4 implied decimals. Unsigned 32-bit. */
    public long ipoPrice()
    {
        return u32(IPO_PRICE_OFFSET);
    }
}
