package io.mdfanout.feed.recovery;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * Writes a MoldUDP64 retransmission request: Session (10 bytes, alpha), Sequence Number (u64
 * big-endian, the first message wanted), Requested Message Count (u16 big-endian).
 */
public final class RetransmitRequestEncoder
{
    /** Length of a request datagram. */
    public static final int LENGTH = 20;
    /** Offset of the 10-byte session. */
    public static final int SESSION_OFFSET = 0;
    /** Offset of the sequence number. */
    public static final int SEQUENCE_OFFSET = 10;
    /** Offset of the requested message count. */
    public static final int COUNT_OFFSET = 18;
    /** Most messages one request may ask for (0xFFFF is the end-of-session marker downstream; the field is u16). */
    public static final int MAX_COUNT = 65535;

    private RetransmitRequestEncoder()
    {
    }

    /**
     * Encode a request.
     *
     * @param buffer        to write into, at least {@link #LENGTH} bytes from {@code offset}.
     * @param offset        of the request.
     * @param session       buffer holding the 10-byte session.
     * @param sessionOffset of the session in it.
     * @param sequence      first message wanted.
     * @param count         messages wanted, 1 to {@link #MAX_COUNT}.
     * @return {@link #LENGTH}.
     */
    public static int encode(
        final MutableDirectBuffer buffer,
        final int offset,
        final DirectBuffer session,
        final int sessionOffset,
        final long sequence,
        final int count)
    {
        buffer.putBytes(offset + SESSION_OFFSET, session, sessionOffset, 10);
        buffer.putLong(offset + SEQUENCE_OFFSET, sequence, ByteOrder.BIG_ENDIAN);
        buffer.putShort(offset + COUNT_OFFSET, (short)count, ByteOrder.BIG_ENDIAN);
        return LENGTH;
    }
}
