package io.mdfanout.fanout.state;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The state file's word access: the same bytes as the mapping's buffer (its offsets are checked by StateLayout). */
final class StateMemoryTest
{
    private final UnsafeBuffer mapping = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
    private final StateMemory memory = new StateMemory(mapping);

    @Test
    void readsAndWritesTheMappingsWordsInNativeOrder()
    {
        memory.putLong(0, 0x0102030405060708L);
        memory.putLongRelease(8, -2L);
        mapping.putLong(56, 42L);

        assertEquals(0x0102030405060708L, mapping.getLong(0, ByteOrder.nativeOrder()));
        assertEquals(-2L, mapping.getLong(8));
        assertEquals(42L, memory.getLong(56));
        assertEquals(-2L, memory.getLongVolatile(8));
    }

    @Test
    void keepsItsMemoryAliveWhenNothingElseHoldsTheBuffer() throws InterruptedException
    {
        // Only the StateMemory refers to this direct buffer. Were its memory freed once the buffer became
        // unreachable, the direct buffers allocated after the collections would reuse it and overwrite the words.
        final StateMemory only = new StateMemory(new UnsafeBuffer(ByteBuffer.allocateDirect(4096)));
        for (int offset = 0; offset < 4096; offset += 8)
        {
            only.putLong(offset, 0x5A5A_0000_0000_0000L | offset);
        }
        final ByteBuffer[] others = new ByteBuffer[64];
        for (int round = 0; round < 8; round++)
        {
            System.gc();
            Thread.sleep(10); // the Cleaner thread frees unreachable direct buffers' memory
            for (int i = 0; i < others.length; i++)
            {
                others[i] = ByteBuffer.allocateDirect(4096);
                others[i].putLong(0, -1L).putLong(2048, -1L);
            }
        }
        for (int offset = 0; offset < 4096; offset += 8)
        {
            assertEquals(0x5A5A_0000_0000_0000L | offset, only.getLong(offset), "word at " + offset);
        }
    }

    @Test
    void refusesAHeapBuffer()
    {
        assertThrows(IllegalArgumentException.class, () -> new StateMemory(new UnsafeBuffer(new byte[64])));
    }
}
