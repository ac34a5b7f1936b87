package io.mdfanout.feed.itch;

/**
 * Flyweight over an ITCH 5.0 'D' message (Order Delete), fields at the specification's offsets.
 */
public final class OrderDeleteMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.ORDER_DELETE;
    /** Length in the specification. */
    public static final int LENGTH = 19;
    /** Offset of orderReferenceNumber. */
    public static final int ORDER_REFERENCE_NUMBER_OFFSET = 11;

    /** Order reference number. */
    public long orderReferenceNumber()
    {
        return u64(ORDER_REFERENCE_NUMBER_OFFSET);
    }
}
