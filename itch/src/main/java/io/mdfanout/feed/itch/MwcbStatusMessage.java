package io.mdfanout.feed.itch;

/**
 * Flyweight over an ITCH 5.0 'W' message (MWCB Status), fields at the specification's offsets.
 */
public final class MwcbStatusMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.MWCB_STATUS;
    /** Length in the specification. */
    public static final int LENGTH = 12;
    /** Offset of breachedLevel. */
    public static final int BREACHED_LEVEL_OFFSET = 11;

    /** Breached level: '1', '2' or '3'. */
    public byte breachedLevel()
    {
        return u8(BREACHED_LEVEL_OFFSET);
    }
}
