package io.mdfanout.feed.itch;

/**
 * Flyweight over an ITCH 5.0 'U' message (Order Replace), fields at the specification's offsets.
 */
public final class OrderReplaceMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.ORDER_REPLACE;
    /** Length in the specification. */
    public static final int LENGTH = 35;
    /** Offset of originalOrderReferenceNumber. */
    public static final int ORIGINAL_ORDER_REFERENCE_NUMBER_OFFSET = 11;
    /** Offset of newOrderReferenceNumber. */
    public static final int NEW_ORDER_REFERENCE_NUMBER_OFFSET = 19;
    /** Offset of shares. */
    public static final int SHARES_OFFSET = 27;
    /** Offset of price. */
    public static final int PRICE_OFFSET = 31;

    /** Original order reference number. */
    public long originalOrderReferenceNumber()
    {
        return u64(ORIGINAL_ORDER_REFERENCE_NUMBER_OFFSET);
    }

    /** New order reference number. */
    public long newOrderReferenceNumber()
    {
        return u64(NEW_ORDER_REFERENCE_NUMBER_OFFSET);
    }

    /** Shares of the new order. Unsigned 32-bit. */
    public long shares()
    {
        return u32(SHARES_OFFSET);
    }

    /** Price of the new order, Price(4). Unsigned 32-bit. */
    public long price()
    {
        return u32(PRICE_OFFSET);
    }
}
