package io.mdfanout.feed.itch;

/**
 * Flyweight over an ITCH 5.0 'X' message (Order Cancel), fields at the specification's offsets.
 */
public final class OrderCancelMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.ORDER_CANCEL;
    /** Length in the specification. */
    public static final int LENGTH = 23;
    /** Offset of orderReferenceNumber. */
    public static final int ORDER_REFERENCE_NUMBER_OFFSET = 11;
    /** Offset of cancelledShares. */
    public static final int CANCELLED_SHARES_OFFSET = 19;

    /** Order reference number. */
    public long orderReferenceNumber()
    {
        return u64(ORDER_REFERENCE_NUMBER_OFFSET);
    }

    /** Cancelled shares. Unsigned 32-bit. */
    public long cancelledShares()
    {
        return u32(CANCELLED_SHARES_OFFSET);
    }
}
