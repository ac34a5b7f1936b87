package io.mdfanout.feed.itch;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * Base flyweight over one ITCH 5.0 message in a {@link DirectBuffer}: the common header every
 * type starts with and big-endian field readers for the type-specific subclasses.
 * <p>
 * A flyweight holds no data of its own: {@link #wrap(DirectBuffer, int, int)} points it at a
 * message and the accessors read the bytes in place, so decoding allocates nothing. The caller
 * checks the length against {@link ItchMessageType#specLength(byte)} before reading fields.
 */
public abstract class ItchMessage
{
    /** Offset of the message type byte. */
    public static final int MESSAGE_TYPE_OFFSET = 0;
    /** Offset of the 2-byte stock locate. */
    public static final int STOCK_LOCATE_OFFSET = 1;
    /** Offset of the 2-byte tracking number. */
    public static final int TRACKING_NUMBER_OFFSET = 3;
    /** Offset of the 6-byte timestamp (nanoseconds since midnight). */
    public static final int TIMESTAMP_OFFSET = 5;

    protected DirectBuffer buffer;
    protected int offset;
    protected int length;

    /**
     * Point this flyweight at a message.
     *
     * @param buffer holding the message.
     * @param offset of the message type byte.
     * @param length of the message as framed (MoldUDP64 block or file record length).
     * @return this for a fluent API.
     */
    public ItchMessage wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        // Store the reference only when it changes: a reference store also marks a GC card, and the
        // buffer is nearly always the same one (the receive buffer), as SBE's flyweights do.
        if (buffer != this.buffer)
        {
            this.buffer = buffer;
        }
        this.offset = offset;
        this.length = length;
        return this;
    }

    /** The wrapped buffer. */
    public DirectBuffer buffer()
    {
        return buffer;
    }

    /** Offset of the message in the wrapped buffer. */
    public int offset()
    {
        return offset;
    }

    /** Length of the message as framed; may exceed the specification's length when fields were appended. */
    public int length()
    {
        return length;
    }

    /** Message type byte. */
    public byte messageType()
    {
        return buffer.getByte(offset + MESSAGE_TYPE_OFFSET);
    }

    /** Stock locate code: the instrument id; 0 for market-wide messages. */
    public int stockLocate()
    {
        return u16(STOCK_LOCATE_OFFSET);
    }

    /** NASDAQ internal tracking number. */
    public int trackingNumber()
    {
        return u16(TRACKING_NUMBER_OFFSET);
    }

    /** Nanoseconds since midnight (6-byte field). */
    public long timestamp()
    {
        return u48(TIMESTAMP_OFFSET);
    }

    /** Read the 6-byte timestamp of a message without wrapping a flyweight. */
    public static long timestamp(final DirectBuffer buffer, final int messageOffset)
    {
        final int at = messageOffset + TIMESTAMP_OFFSET;
        return ((long)(buffer.getShort(at, ByteOrder.BIG_ENDIAN) & 0xFFFF) << 32) |
            (buffer.getInt(at + 2, ByteOrder.BIG_ENDIAN) & 0xFFFF_FFFFL);
    }

    protected final byte u8(final int fieldOffset)
    {
        return buffer.getByte(offset + fieldOffset);
    }

    protected final int u16(final int fieldOffset)
    {
        return buffer.getShort(offset + fieldOffset, ByteOrder.BIG_ENDIAN) & 0xFFFF;
    }

    protected final long u32(final int fieldOffset)
    {
        return buffer.getInt(offset + fieldOffset, ByteOrder.BIG_ENDIAN) & 0xFFFF_FFFFL;
    }

    protected final long u48(final int fieldOffset)
    {
        return timestamp(buffer, offset + fieldOffset - TIMESTAMP_OFFSET);
    }

    /** 8-byte unsigned fields are returned as the raw 64 bits: values above Long.MAX_VALUE read negative. */
    protected final long u64(final int fieldOffset)
    {
        return buffer.getLong(offset + fieldOffset, ByteOrder.BIG_ENDIAN);
    }

    protected final byte alpha(final int fieldOffset, final int fieldLength, final int index)
    {
        if (index < 0 || index >= fieldLength)
        {
            throw new IndexOutOfBoundsException("index " + index + " outside alpha field of length " + fieldLength);
        }
        return buffer.getByte(offset + fieldOffset + index);
    }

    protected final void copy(
        final int fieldOffset, final int fieldLength, final MutableDirectBuffer dst, final int dstOffset)
    {
        dst.putBytes(dstOffset, buffer, offset + fieldOffset, fieldLength);
    }
}
