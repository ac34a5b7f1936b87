package io.mdfanout.feed.normalize;

import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;

import java.nio.ByteOrder;

/**
 * Little-endian stores into one record claimed from a {@link BatchingRingWriter}, bounds-checked
 * once per record, at {@link #wrap(int, int)}, instead of once per field.
 * <p>
 * Why: the normalizer writes six to nine fields per order-flow message through the generated SBE
 * encoders, and each of Agrona's puts checks its own index against the buffer's capacity. Those
 * checks were the largest single item of {@code ItchNormalizeBenchmark}'s profile
 * (docs/bench/CODE-NOTES.md), for stores the ring's claim has already placed inside the buffer. The field offsets
 * still come from the generated encoders ({@code AddOrderEncoder.orderIdEncodingOffset()} and so
 * on), so the layout has one source, the schema; {@code ItchNormalizerTest} decodes every field
 * back with the generated decoders.
 * <p>
 * The field stores are static, on the address the caller took into a local once per record
 * ({@link #address()}), and by address alone (a null base), as {@code StateMemory}'s are: to the JIT
 * a store by address into an array that may be null is a store to any memory, after which it
 * reloads every field it reads, this object's included; a store with no array is a store to
 * off-heap memory, which no field can be. The rings are off heap, which the constructor checks.
 * <p>
 * Single-threaded, owned by the partition that writes the ring.
 */
final class ClaimedRecord
{
    /** SBE is little-endian; on a big-endian machine every store swaps (a constant, folded by the JIT). */
    private static final boolean NATIVE_LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    /** Held, never read: an off-heap ring's memory is only valid while its buffer is reachable (see StateMemory). */
    private final AtomicBuffer buffer;
    private final long addressOffset;
    private final int capacity;
    private long address;

    /**
     * Stores into records of a ring's buffer.
     *
     * @param buffer the ring's buffer, off heap.
     * @throws IllegalArgumentException if the buffer wraps a byte[].
     */
    ClaimedRecord(final AtomicBuffer buffer)
    {
        if (null != buffer.byteArray())
        {
            throw new IllegalArgumentException("a partition ring is off heap, not a byte[]");
        }
        this.buffer = buffer;
        this.addressOffset = buffer.addressOffset();
        this.capacity = buffer.capacity();
    }

    /**
     * Point at a claimed record: the one bounds check for the stores that follow.
     *
     * @param index  in the buffer where the record's message starts.
     * @param length of the message; every store must fall inside it.
     * @return this for a fluent API.
     * @throws IndexOutOfBoundsException if the record does not lie inside the buffer.
     */
    ClaimedRecord wrap(final int index, final int length)
    {
        if (index < 0 || length < 0 || index > capacity - length)
        {
            throw new IndexOutOfBoundsException("record " + index + " of " + length + " bytes, capacity " + capacity);
        }
        address = addressOffset + index;
        return this;
    }

    /** Address of the record's first byte, set by {@link #wrap(int, int)}. */
    long address()
    {
        return address;
    }

    /**
     * Store 8 bytes, little-endian, at an address inside a wrapped record.
     *
     * @param address {@link #address()} plus the field's offset, the record's length less 8 at most.
     * @param value   to store.
     */
    static void putLong(final long address, final long value)
    {
        UnsafeApi.putLong(null, address, NATIVE_LITTLE_ENDIAN ? value : Long.reverseBytes(value));
    }

    /**
     * Store 4 bytes, little-endian, at an address inside a wrapped record.
     *
     * @param address {@link #address()} plus the field's offset, the record's length less 4 at most.
     * @param value   to store.
     */
    static void putInt(final long address, final int value)
    {
        UnsafeApi.putInt(null, address, NATIVE_LITTLE_ENDIAN ? value : Integer.reverseBytes(value));
    }

    /**
     * Store one byte at an address inside a wrapped record.
     *
     * @param address {@link #address()} plus the field's offset, below the record's length.
     * @param value   to store.
     */
    static void putByte(final long address, final byte value)
    {
        UnsafeApi.putByte(null, address, value);
    }
}
