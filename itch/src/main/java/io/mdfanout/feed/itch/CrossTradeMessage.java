package io.mdfanout.feed.itch;

import org.agrona.MutableDirectBuffer;

/**
 * Flyweight over an ITCH 5.0 'Q' message (Cross Trade), fields at the specification's offsets.
 */
public final class CrossTradeMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.CROSS_TRADE;
    /** Length in the specification. */
    public static final int LENGTH = 40;
    /** Offset of shares. */
    public static final int SHARES_OFFSET = 11;
    /** Offset of stock. */
    public static final int STOCK_OFFSET = 19;
    /** Length of stock. */
    public static final int STOCK_LENGTH = 8;
    /** Offset of crossPrice. */
    public static final int CROSS_PRICE_OFFSET = 27;
    /** Offset of matchNumber. */
    public static final int MATCH_NUMBER_OFFSET = 31;
    /** Offset of crossType. */
    public static final int CROSS_TYPE_OFFSET = 39;

    /** Shares (8 bytes in ITCH 5.0), raw 64 bits. */
    public long shares()
    {
        return u64(SHARES_OFFSET);
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

    /** Cross price, Price(4). Unsigned 32-bit. */
    public long crossPrice()
    {
        return u32(CROSS_PRICE_OFFSET);
    }

    /** Match number. */
    public long matchNumber()
    {
        return u64(MATCH_NUMBER_OFFSET);
    }

    /** Cross type: O, C, H or I. */
    public byte crossType()
    {
        return u8(CROSS_TYPE_OFFSET);
    }
}
