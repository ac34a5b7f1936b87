package io.mdfanout.feed.itch;

import org.agrona.MutableDirectBuffer;

/**
 * Flyweight over an ITCH 5.0 'Y' message (Reg SHO Short Sale Price Test Restricted Indicator), fields at the
 * specification's offsets.
 */
public final class RegShoRestrictionMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.REG_SHO_RESTRICTION;
    /** Length in the specification. */
    public static final int LENGTH = 20;
    /** Offset of stock. */
    public static final int STOCK_OFFSET = 11;
    /** Length of stock. */
    public static final int STOCK_LENGTH = 8;
    /** Offset of regShoAction. */
    public static final int REG_SHO_ACTION_OFFSET = 19;

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

    /** Reg SHO action: '0', '1' or '2'. */
    public byte regShoAction()
    {
        return u8(REG_SHO_ACTION_OFFSET);
    }
}
