package io.mdfanout.feed.itch;

/**
 * Flyweight over an ITCH 5.0 'E' message (Order Executed), fields at the specification's offsets.
 */
public final class OrderExecutedMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.ORDER_EXECUTED;
    /** Length in the specification. */
    public static final int LENGTH = 31;
    /** Offset of orderReferenceNumber. */
    public static final int ORDER_REFERENCE_NUMBER_OFFSET = 11;
    /** Offset of executedShares. */
    public static final int EXECUTED_SHARES_OFFSET = 19;
    /** Offset of matchNumber. */
    public static final int MATCH_NUMBER_OFFSET = 23;

    /** Order reference number. */
    public long orderReferenceNumber()
    {
        return u64(ORDER_REFERENCE_NUMBER_OFFSET);
    }

    /** Executed shares. Unsigned 32-bit. */
    public long executedShares()
    {
        return u32(EXECUTED_SHARES_OFFSET);
    }

    /** Match number. */
    public long matchNumber()
    {
        return u64(MATCH_NUMBER_OFFSET);
    }
}
