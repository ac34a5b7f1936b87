package io.mdfanout.feed.itch;

/**
 * Flyweight over an ITCH 5.0 'S' message (System Event), fields at the specification's offsets.
 */
public final class SystemEventMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.SYSTEM_EVENT;
    /** Length in the specification. */
    public static final int LENGTH = 12;
    /** Offset of eventCode. */
    public static final int EVENT_CODE_OFFSET = 11;

    /** Event code: O, S, Q, M, E or C. */
    public byte eventCode()
    {
        return u8(EVENT_CODE_OFFSET);
    }
}
