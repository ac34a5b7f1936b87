package io.mdfanout.fanout.state;

import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The 8-byte words of a mapped state file, read and written by address, without a check per access.
 * <p>
 * Why: a message's apply is a chain of dependent loads and stores through the undo log, about a
 * dozen per order update, and a bounds check on each was the largest cost after the stores
 * themselves: through the mapping's {@link UnsafeBuffer}, with Agrona's check per access, the
 * state upkeep ran far below its rate with none ({@code FanoutStateBenchmark}; the figures:
 * docs/bench/CODE-NOTES.md). The checks moved to where numbers read from the
 * file become offsets ({@link StateLayout#orderOffset}, {@link StateLayout#instrumentOffset} and
 * the other slot offsets), once per derived offset: every offset used here is a constant, a value
 * checked there, an index table slot masked to the table's capacity, or an undo log entry below
 * its capacity (and recovery checks the offsets it reads from the log against the file). So a
 * corrupt state file still throws {@link IndexOutOfBoundsException} before any access outside it.
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
    }

    long getLong(final int offset)
    {
        return UnsafeApi.getLong(null, address + offset);
    }

    long getLongVolatile(final int offset)
    {
        return UnsafeApi.getLongVolatile(null, address + offset);
    }

    void putLong(final int offset, final long value)
    {
        UnsafeApi.putLong(null, address + offset, value);
    }

    void putLongRelease(final int offset, final long value)
    {
        UnsafeApi.putLongRelease(null, address + offset, value);
    }

}
