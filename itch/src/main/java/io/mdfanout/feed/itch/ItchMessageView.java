package io.mdfanout.feed.itch;

import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;

import java.nio.ByteOrder;

/**
 * One ITCH 5.0 message whose extent was checked against its buffer once, at
 * {@link #wrap(DirectBuffer, int, int)}, and whose fields are then read by address, big-endian,
 * without a bounds check per field.
 * <p>
 * Why beside the typed flyweights ({@link AddOrderMessage} and the others, which read through
 * Agrona's checked getters): the normalizer's order-flow path reads four to six fields of every
 * message, and with the stores into the ring already checked once per record (see the
 * normalizer's {@code ClaimedRecord}), the per-field read checks were what was left of the bounds
 * checks in {@code ItchNormalizeBenchmark}'s profile. The field offsets are the flyweights'
 * constants ({@link AddOrderMessage#ORDER_REFERENCE_NUMBER_OFFSET} and so on), so the layout has
 * one source.
 * <p>
 * Contract: a read's field must lie inside the wrapped length, so the caller checks the length
 * against {@link ItchMessageType#specLength(byte)} first, as for the flyweights; the wrap checks
 * that the length lies inside the buffer. Reads never leave the buffer when both hold.
 * <p>
 * The wrapped buffer's address is taken at each wrap, because a buffer may be re-wrapped over
 * other memory between messages (a file reader's record buffer is). The view does not keep the
 * buffer reachable (one more reference store per message): read it only while the caller holds the
 * buffer, within the call that wrapped it, as the normalizer does.
 */
public final class ItchMessageView
{
    /** ITCH is big-endian: on a little-endian machine every read swaps (a constant, folded by the JIT). */
    private static final boolean NATIVE_BIG_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN;

    private byte[] byteArray;
    private long address;

    /**
     * Point at a message: the one bounds check for the reads that follow.
     *
     * @param buffer holding the message.
     * @param offset of the message type byte.
     * @param length of the message as framed.
     * @return true when {@code [offset, offset + length)} lies inside the buffer; when false the
     * view is unchanged and must not be read.
     */
    public boolean wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        if (offset < 0 || length < 0 || offset > buffer.capacity() - length)
        {
            return false;
        }
        final byte[] byteArray = buffer.byteArray();
        // A reference store also marks a GC card: only when it changes, as SBE's flyweights do.
        if (byteArray != this.byteArray)
        {
            this.byteArray = byteArray;
        }
        address = buffer.addressOffset() + offset;
        return true;
    }

    /** The array the message's address is relative to: null off heap. */
    public byte[] byteArray()
    {
        return byteArray;
    }

    /** Address of the message type byte, as set by the last {@link #wrap}, relative to {@link #byteArray()}. */
    public long address()
    {
        return address;
    }

    /**
     * One byte of a wrapped message, read through locals: see {@link #u64(byte[], long, int)}.
     *
     * @param array       {@link #byteArray()}.
     * @param address     {@link #address()}.
     * @param fieldOffset from the message type byte.
     * @return the byte.
     */
    public static byte u8(final byte[] array, final long address, final int fieldOffset)
    {
        return UnsafeApi.getByte(array, address + fieldOffset);
    }

    /**
     * Unsigned 32 bits of a wrapped message, read through locals: see {@link #u64(byte[], long, int)}.
     *
     * @param array       {@link #byteArray()}.
     * @param address     {@link #address()}.
     * @param fieldOffset from the message type byte.
     * @return the value, 0 to 2^32 - 1.
     */
    public static long u32(final byte[] array, final long address, final int fieldOffset)
    {
        final int value = UnsafeApi.getInt(array, address + fieldOffset);
        return (NATIVE_BIG_ENDIAN ? value : Integer.reverseBytes(value)) & 0xFFFF_FFFFL;
    }

    /**
     * 64 bits of a wrapped message, returned raw, read through locals rather than this view's fields:
     * for a caller that also stores by address, after which the JIT reloads every field it reads
     * (it cannot tell such a store from a store to the view).
     *
     * @param array       {@link #byteArray()}.
     * @param address     {@link #address()}.
     * @param fieldOffset from the message type byte.
     * @return the value.
     */
    public static long u64(final byte[] array, final long address, final int fieldOffset)
    {
        final long value = UnsafeApi.getLong(array, address + fieldOffset);
        return NATIVE_BIG_ENDIAN ? value : Long.reverseBytes(value);
    }

    /**
     * One byte.
     *
     * @param fieldOffset from the message type byte.
     * @return the byte.
     */
    public byte u8(final int fieldOffset)
    {
        return UnsafeApi.getByte(byteArray, address + fieldOffset);
    }

    /**
     * Unsigned 16 bits.
     *
     * @param fieldOffset from the message type byte.
     * @return the value, 0 to 65,535.
     */
    public int u16(final int fieldOffset)
    {
        final short value = UnsafeApi.getShort(byteArray, address + fieldOffset);
        return (NATIVE_BIG_ENDIAN ? value : Short.reverseBytes(value)) & 0xFFFF;
    }

    /**
     * Unsigned 32 bits.
     *
     * @param fieldOffset from the message type byte.
     * @return the value, 0 to 2^32 - 1.
     */
    public long u32(final int fieldOffset)
    {
        final int value = UnsafeApi.getInt(byteArray, address + fieldOffset);
        return (NATIVE_BIG_ENDIAN ? value : Integer.reverseBytes(value)) & 0xFFFF_FFFFL;
    }

    /**
     * Unsigned 48 bits, as the timestamp is.
     *
     * @param fieldOffset from the message type byte.
     * @return the value.
     */
    public long u48(final int fieldOffset)
    {
        return (long)u16(fieldOffset) << 32 | u32(fieldOffset + 2);
    }

    /**
     * 64 bits, returned raw: values above Long.MAX_VALUE read negative, as the flyweights' do.
     *
     * @param fieldOffset from the message type byte.
     * @return the value.
     */
    public long u64(final int fieldOffset)
    {
        final long value = UnsafeApi.getLong(byteArray, address + fieldOffset);
        return NATIVE_BIG_ENDIAN ? value : Long.reverseBytes(value);
    }
}
