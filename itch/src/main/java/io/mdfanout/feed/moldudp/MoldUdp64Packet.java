package io.mdfanout.feed.moldudp;

import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * Flyweight over a downstream MoldUDP64 packet: a 20-byte header (session, sequence number of
 * the first message, message count) followed by message blocks, each a 2-byte big-endian length
 * and that many bytes of message.
 * <p>
 * Reading the header requires {@link #HEADER_LENGTH} bytes; the caller checks
 * {@link #isTruncated()} first. Blocks are walked with {@link #blockLength(int)} and the offsets
 * the caller keeps, so a malformed block can be detected before any of its bytes are read.
 */
public final class MoldUdp64Packet
{
    /** Offset of the 10-byte session. */
    public static final int SESSION_OFFSET = 0;
    /** Length of the session field. */
    public static final int SESSION_LENGTH = 10;
    /** Offset of the 8-byte sequence number of the first message. */
    public static final int SEQUENCE_NUMBER_OFFSET = 10;
    /** Offset of the 2-byte message count. */
    public static final int MESSAGE_COUNT_OFFSET = 18;
    /** Length of the packet header; message blocks start here. */
    public static final int HEADER_LENGTH = 20;
    /** Length of the length prefix of each message block. */
    public static final int BLOCK_LENGTH_FIELD_LENGTH = 2;
    /** Message count of a heartbeat: the sequence number is the next expected one. */
    public static final int HEARTBEAT_COUNT = 0;
    /** Message count announcing the end of the session. */
    public static final int END_OF_SESSION_COUNT = 0xFFFF;

    private DirectBuffer buffer;
    private int offset;
    private int length;

    /**
     * Point this flyweight at a packet.
     *
     * @param buffer holding the packet.
     * @param offset of the first byte of the packet.
     * @param length of the datagram.
     * @return this for a fluent API.
     */
    public MoldUdp64Packet wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
        return this;
    }

    /** The wrapped buffer. */
    public DirectBuffer buffer()
    {
        return buffer;
    }

    /** Offset of the packet in the buffer. */
    public int offset()
    {
        return offset;
    }

    /** Length of the datagram. */
    public int length()
    {
        return length;
    }

    /** True when the datagram is too short to hold a MoldUDP64 header. */
    public boolean isTruncated()
    {
        return length < HEADER_LENGTH;
    }

    /** Byte {@code index} (0 to 9) of the session. */
    public byte session(final int index)
    {
        return buffer.getByte(offset + SESSION_OFFSET + index);
    }

    /** True when the session equals the 10 bytes of {@code expected} at {@code expectedOffset}. */
    public boolean sessionEquals(final DirectBuffer expected, final int expectedOffset)
    {
        // Compared as a long and a short: two loads instead of a ten-step loop.
        return buffer.getLong(offset + SESSION_OFFSET) == expected.getLong(expectedOffset) &&
            buffer.getShort(offset + SESSION_OFFSET + 8) == expected.getShort(expectedOffset + 8);
    }

    /** Sequence number of the first message; for a heartbeat or end of session, the next expected one. */
    public long sequenceNumber()
    {
        return buffer.getLong(offset + SEQUENCE_NUMBER_OFFSET, ByteOrder.BIG_ENDIAN);
    }

    /** Message count: 0 for a heartbeat, 0xFFFF for end of session. */
    public int messageCount()
    {
        return buffer.getShort(offset + MESSAGE_COUNT_OFFSET, ByteOrder.BIG_ENDIAN) & 0xFFFF;
    }

    /** True for a heartbeat (no messages). */
    public boolean isHeartbeat()
    {
        return messageCount() == HEARTBEAT_COUNT;
    }

    /** True for the end-of-session marker. */
    public boolean isEndOfSession()
    {
        return messageCount() == END_OF_SESSION_COUNT;
    }

    /** Offset just past the end of the datagram, the limit for message blocks. */
    public int limit()
    {
        return offset + length;
    }

    /** Offset of the first message block. */
    public int firstBlockOffset()
    {
        return offset + HEADER_LENGTH;
    }

    /** Read the length prefix of the block at {@code blockOffset}; the caller checks two bytes are there. */
    public int blockLength(final int blockOffset)
    {
        return buffer.getShort(blockOffset, ByteOrder.BIG_ENDIAN) & 0xFFFF;
    }
}
