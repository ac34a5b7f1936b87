package io.mdfanout.feed.itch;

/**
 * Flyweight over an ITCH 5.0 'B' message (Broken Trade), fields at the specification's offsets.
 */
public final class BrokenTradeMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.BROKEN_TRADE;
    /** Length in the specification. */
    public static final int LENGTH = 19;
    /** Offset of matchNumber. */
    public static final int MATCH_NUMBER_OFFSET = 11;

    /** Match number of the broken execution. */
    public long matchNumber()
    {
        return u64(MATCH_NUMBER_OFFSET);
    }
}
