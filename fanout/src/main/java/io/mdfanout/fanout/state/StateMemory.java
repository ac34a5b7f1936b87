package io.mdfanout.fanout.state;

import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The 8-byte words of a mapped state file, each access checked against the file with one unsigned
 * comparison of its offset.
 * <p>
 * Why not the mapping's {@link UnsafeBuffer} directly: a message's apply is a chain of dependent
 * loads and stores through the undo log, and there the buffer's bounds check costs far more than
 * its compare (most likely because the buffer's fields it reads are reloaded after each store to
 * off-heap memory, which the JIT cannot tell apart from a store to them). Measured by
 * {@code FanoutStateBenchmark}: 6.9M messages/s through the buffer with its checks on (Agrona's
 * default, and ours), 9.4M with them off for the whole process, 8.9M through this class. Here the
 * limit is a final field of this small object, so an offset outside the file still throws
 * {@link IndexOutOfBoundsException} before any access (a corrupt state file never reaches memory
 * beyond the mapping), at the cost of one compare.
 * <p>
 * Words are in native byte order, as {@link UnsafeBuffer#getLong(int)} reads them: the state
 * file's format is unchanged. The mapping stays reachable as long as this object is.
 */
final class StateMemory
{
    /**
     * Held, never read: the address below is only valid while the memory behind it is, and a direct or mapped
     * {@code ByteBuffer}'s memory is freed (unmapped) once the buffer is unreachable. Without this reference a
     * caller that kept only this object read freed memory after the next GC (OrderIndexTest did, and failed
     * once in CI with an entry gone).
     */
    private final UnsafeBuffer mapping;
    private final long address;
    private final int lastWordOffset;

    /**
     * @param mapping the whole mapped file, off heap.
     */
    StateMemory(final UnsafeBuffer mapping)
    {
        if (null != mapping.byteArray() || mapping.capacity() < 8)
        {
            throw new IllegalArgumentException("state memory must be an off-heap mapping of at least one word");
        }
        this.mapping = mapping;
        this.address = mapping.addressOffset();
        this.lastWordOffset = mapping.capacity() - 8;
    }

    long getLong(final int offset)
    {
        return UnsafeApi.getLong(null, address + checked(offset));
    }

    long getLongVolatile(final int offset)
    {
        return UnsafeApi.getLongVolatile(null, address + checked(offset));
    }

    void putLong(final int offset, final long value)
    {
        UnsafeApi.putLong(null, address + checked(offset), value);
    }

    void putLongRelease(final int offset, final long value)
    {
        UnsafeApi.putLongRelease(null, address + checked(offset), value);
    }

    private int checked(final int offset)
    {
        if (Integer.compareUnsigned(offset, lastWordOffset) > 0)
        {
            throw new IndexOutOfBoundsException("state offset " + offset + " outside 0.." + lastWordOffset);
        }
        return offset;
    }
}
