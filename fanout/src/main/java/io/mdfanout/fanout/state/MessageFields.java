package io.mdfanout.fanout.state;

import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;

import java.nio.ByteOrder;

/**
 * The block of one normalized SBE message whose extent was checked against its buffer once, at
 * {@link #wrap(DirectBuffer, int, int)}, and whose fixed fields are then read by address,
 * little-endian, at the generated decoders' offsets ({@code AddOrderDecoder.orderIdEncodingOffset()}
 * and so on), so the layout still has one source, the schema.
 * <p>
 * Why not the generated decoders: the state upkeep reads four to six fields of every order-flow
 * message, and through the decoders (a header read and applied, then a bounds check per field) the
 * reads were a large item of {@code FanoutStateBenchmark}'s profile (docs/bench/CODE-NOTES.md).
 * <p>
 * Contract: a read must lie inside the block, so the caller checks {@link #blockLength()} against
 * the template's block length first; the wrap checks that the message lies inside its buffer. The
 * view does not keep the buffer reachable: read it only within the call that wrapped it.
 */
final class MessageFields
{
    /** SBE is little-endian; on a big-endian machine every read swaps (a constant, folded by the JIT). */
    private static final boolean NATIVE_LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private byte[] byteArray;
    private long blockAddress;
    private int blockLength;

    /**
     * Point at a message: the one bounds check for the reads that follow.
     *
     * @param buffer holding the message.
     * @param offset of its SBE message header.
     * @param length of the message, header included.
     * @return true when {@code [offset, offset + length)} lies inside the buffer and holds at least the
     * header; when false the view is unchanged and must not be read.
     */
    boolean wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        if (offset < 0 || length < WireFormat.HEADER_LENGTH || offset > buffer.capacity() - length)
        {
            return false;
        }
        final byte[] byteArray = buffer.byteArray();
        // A reference store also marks a GC card: only when it changes, as SBE's flyweights do.
        if (byteArray != this.byteArray)
        {
            this.byteArray = byteArray;
        }
        blockAddress = buffer.addressOffset() + offset + WireFormat.HEADER_LENGTH;
        blockLength = length - WireFormat.HEADER_LENGTH;
        return true;
    }

    /** Bytes of the block after the header: every read must end within them. */
    int blockLength()
    {
        return blockLength;
    }

    /**
     * 64 bits, signed (an SBE int64 or uint64, as the decoders return it).
     *
     * @param fieldOffset in the block, the generated {@code *EncodingOffset()}.
     * @return the value.
     */
    long i64(final int fieldOffset)
    {
        final long value = UnsafeApi.getLong(byteArray, blockAddress + fieldOffset);
        return NATIVE_LITTLE_ENDIAN ? value : Long.reverseBytes(value);
    }

    /**
     * Unsigned 32 bits (an SBE uint32, as the decoders return it).
     *
     * @param fieldOffset in the block.
     * @return the value, 0 to 2^32 - 1.
     */
    long u32(final int fieldOffset)
    {
        final int value = UnsafeApi.getInt(byteArray, blockAddress + fieldOffset);
        return (NATIVE_LITTLE_ENDIAN ? value : Integer.reverseBytes(value)) & 0xFFFF_FFFFL;
    }

    /**
     * One byte (an SBE char or uint8 enum's raw value).
     *
     * @param fieldOffset in the block.
     * @return the byte.
     */
    byte i8(final int fieldOffset)
    {
        return UnsafeApi.getByte(byteArray, blockAddress + fieldOffset);
    }
}
