package io.mdfanout.feed.itch;

import org.agrona.MutableDirectBuffer;

/**
 * Flyweight over an ITCH 5.0 'h' message (Operational Halt), fields at the specification's offsets.
 */
public final class OperationalHaltMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.OPERATIONAL_HALT;
    /** Length in the specification. */
    public static final int LENGTH = 21;
    /** Offset of stock. */
    public static final int STOCK_OFFSET = 11;
    /** Length of stock. */
    public static final int STOCK_LENGTH = 8;
    /** Offset of marketCode. */
    public static final int MARKET_CODE_OFFSET = 19;
    /** Offset of operationalHaltAction. */
    public static final int OPERATIONAL_HALT_ACTION_OFFSET = 20;

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

    /** Market code: Q NASDAQ, B BX, X PSX. */
    public byte marketCode()
    {
        return u8(MARKET_CODE_OFFSET);
    }

    /** Halt action: H halted, T resumed. */
    public byte operationalHaltAction()
    {
        return u8(OPERATIONAL_HALT_ACTION_OFFSET);
    }
}
