package io.mdfanout.feed.itch;

/**
 * Flyweight over an ITCH 5.0 'C' message (Order Executed With Price), fields at the specification's offsets.
 */
public final class OrderExecutedWithPriceMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.ORDER_EXECUTED_WITH_PRICE;
    /** Length in the specification. */
    public static final int LENGTH = 36;
    /** Offset of orderReferenceNumber. */
    public static final int ORDER_REFERENCE_NUMBER_OFFSET = 11;
    /** Offset of executedShares. */
    public static final int EXECUTED_SHARES_OFFSET = 19;
    /** Offset of matchNumber. */
    public static final int MATCH_NUMBER_OFFSET = 23;
    /** Offset of printable. */
    public static final int PRINTABLE_OFFSET = 31;
    /** Offset of executionPrice. */
    public static final int EXECUTION_PRICE_OFFSET = 32;

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

    /** Printable: Y or N. */
    public byte printable()
    {
        return u8(PRINTABLE_OFFSET);
    }

    /** Execution price, Price(4). Unsigned 32-bit. */
    public long executionPrice()
    {
        return u32(EXECUTION_PRICE_OFFSET);
    }
}
