package io.mdfanout.feed.itch;

/**
 * Flyweight over an ITCH 5.0 'V' message (MWCB Decline Level), fields at the specification's offsets.
 */
public final class MwcbDeclineLevelMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.MWCB_DECLINE_LEVEL;
    /** Length in the specification. */
    public static final int LENGTH = 35;
    /** Offset of level1. */
    public static final int LEVEL1_OFFSET = 11;
    /** Offset of level2. */
    public static final int LEVEL2_OFFSET = 19;
    /** Offset of level3. */
    public static final int LEVEL3_OFFSET = 27;

    /** Level 1, Price(8): 8 implied decimals, raw 64 bits. */
    public long level1()
    {
        return u64(LEVEL1_OFFSET);
    }

    /** Level 2, Price(8): 8 implied decimals, raw 64 bits. */
    public long level2()
    {
        return u64(LEVEL2_OFFSET);
    }

    /** Level 3, Price(8): 8 implied decimals, raw 64 bits. */
    public long level3()
    {
        return u64(LEVEL3_OFFSET);
    }
}
