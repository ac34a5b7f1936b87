package io.mdfanout.feed.recovery;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Held messages are kept by sequence in fixed slots; a longer message keeps its first 60 bytes. */
class HoldBufferTest
{
    @Test
    void holdsBySequenceAndCapsTheStoredLength()
    {
        final HoldBuffer hold = new HoldBuffer(5);
        assertEquals(8, hold.capacity());
        final UnsafeBuffer message = new UnsafeBuffer(new byte[100]);
        for (int i = 0; i < 100; i++)
        {
            message.putByte(i, (byte)i);
        }
        hold.put(17, message, 3, 19);
        hold.put(18, message, 0, 100);
        hold.put(24, message, 0, 0);
        assertEquals(3, hold.size());
        assertTrue(hold.isHeld(17));
        assertFalse(hold.isHeld(19));
        assertEquals(19, hold.messageLength(17));
        assertEquals(3, hold.buffer().getByte(hold.messageOffset(17)));
        assertEquals(HoldBuffer.MAX_STORED_LENGTH, hold.messageLength(18));
        assertEquals(0, hold.messageLength(24));
        assertTrue(hold.isHeld(24), "an empty message is held too");

        hold.remove(17);
        assertFalse(hold.isHeld(17));
        hold.clear(17, 25);
        assertEquals(0, hold.size());
        assertFalse(hold.isHeld(24));
    }

    @Test
    void capacityIsBounded()
    {
        assertThrows(IllegalArgumentException.class, () -> new HoldBuffer(0));
        assertThrows(IllegalArgumentException.class, () -> new HoldBuffer(HoldBuffer.MAX_CAPACITY + 1));
    }
}
