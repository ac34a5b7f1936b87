package io.mdfanout.sdk;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A pair's history of delivered messages: a copy is the same, different, or no longer known. */
class DeliveredHistoryTest
{
    private static final int LENGTH = 40;
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);

    private UnsafeBuffer messageAt(final long chain)
    {
        for (int i = 0; i < LENGTH; i++)
        {
            message.putByte(i, (byte)(chain * 31 + i));
        }
        return message;
    }

    @Test
    void aCopyIsComparedByteForByteWhileItsOriginalIsHeld()
    {
        final DeliveredHistory history = new DeliveredHistory(1024, 64, 2);
        for (long chain = 1; chain <= 100; chain++)
        {
            history.append(chain, messageAt(chain), 0, LENGTH);
        }
        // 1024 bytes hold 25 messages of 40 (the ring skips to its start rather than split one): 76..100 at least.
        assertEquals(DeliveredHistory.SAME, history.compare(1, 80, messageAt(80), 0, LENGTH));
        assertEquals(DeliveredHistory.SAME, history.compare(1, 100, messageAt(100), 0, LENGTH));
        final UnsafeBuffer altered = messageAt(90);
        altered.putByte(LENGTH - 1, (byte)(altered.getByte(LENGTH - 1) + 1));
        assertEquals(DeliveredHistory.DIFFERENT, history.compare(1, 90, altered, 0, LENGTH), "the last byte differs");
        assertEquals(DeliveredHistory.DIFFERENT, history.compare(1, 91, messageAt(91), 0, LENGTH - 1), "shorter");
        assertEquals(DeliveredHistory.UNKNOWN, history.compare(1, 101, messageAt(101), 0, LENGTH), "not delivered");
        assertEquals(DeliveredHistory.UNKNOWN, history.compare(0, 10, messageAt(10), 0, LENGTH), "overwritten");
        // Side B went back (its fanout started again from its state): found again.
        assertEquals(DeliveredHistory.SAME, history.compare(1, 85, messageAt(85), 0, LENGTH));

        history.clear();
        assertEquals(DeliveredHistory.UNKNOWN, history.compare(1, 100, messageAt(100), 0, LENGTH), "a new day");
        history.append(1, messageAt(1), 0, LENGTH);
        assertEquals(DeliveredHistory.SAME, history.compare(0, 1, messageAt(1), 0, LENGTH));
    }

    @Test
    void entriesBindWhenMessagesAreSmall()
    {
        final DeliveredHistory history = new DeliveredHistory(1 << 16, 8, 1);
        for (long chain = 1; chain <= 20; chain++)
        {
            history.append(chain, messageAt(chain), 0, LENGTH);
        }
        assertEquals(DeliveredHistory.UNKNOWN, history.compare(0, 12, messageAt(12), 0, LENGTH), "8 entries: 13..20");
        assertEquals(DeliveredHistory.SAME, history.compare(0, 13, messageAt(13), 0, LENGTH));
        assertThrows(IllegalArgumentException.class, () -> new DeliveredHistory(1000, 8, 1));
    }
}
