package io.mdfanout.sdk.book;

import io.mdfanout.testing.OrderIdPatterns;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.LongUnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The books' order index against a HashMap, for the id patterns a feed produces, through growth. */
final class OrderSlotIndexTest
{
    @Test
    void matchesAMapForConsecutiveIds()
    {
        exercise(i -> 5_000_000 + i);
    }

    @Test
    void matchesAMapForIdsEveryTwoHundredAndFiftySixth()
    {
        exercise(i -> 7 + 256L * i);
    }

    @Test
    void matchesAMapForRisingIdsWithRandomSteps()
    {
        exercise(OrderIdPatterns.risingWithRandomSteps(4));
    }

    @Test
    void matchesAMapForRandomIdsIncludingZeroAndNegative()
    {
        final SplittableRandom random = new SplittableRandom(9);
        exercise(i -> i == 0 ? 0 : random.nextLong());
    }

    @Test
    void putReplacesTheSlotOfAPresentOrderAndRemoveOfAnAbsentOneIsMissing()
    {
        final OrderSlotIndex index = new OrderSlotIndex(4);
        index.put(42, 1);
        index.put(42, 3);
        assertEquals(3, index.get(42));
        assertEquals(1, index.size());
        assertEquals(OrderSlotIndex.MISSING, index.remove(43));
        assertEquals(3, index.remove(42));
        assertEquals(OrderSlotIndex.MISSING, index.get(42));
        assertEquals(0, index.size());
    }

    @Test
    void refusesACapacityOutsideItsRange()
    {
        assertThrows(IllegalArgumentException.class, () -> new OrderSlotIndex(0));
        assertThrows(IllegalArgumentException.class, () -> new OrderSlotIndex(OrderSlotIndex.MAX_ORDERS + 1));
    }

    /**
     * Adds ids from the pattern and removes random live ones, from a small table that must grow
     * several times, and checks every live id and some never added after each phase.
     */
    private static void exercise(final LongUnaryOperator ids)
    {
        final OrderSlotIndex index = new OrderSlotIndex(16);
        final int initialCapacity = index.capacity();
        final SplittableRandom random = new SplittableRandom(42);
        final Map<Long, Integer> model = new HashMap<>();
        final List<Long> live = new ArrayList<>();
        for (int i = 0; i < 60_000; i++)
        {
            if (live.isEmpty() || random.nextInt(100) < 60)
            {
                final long id = ids.applyAsLong(i);
                final int slot = random.nextInt(1 << 20);
                index.put(id, slot);
                if (null == model.put(id, slot))
                {
                    live.add(id);
                }
            }
            else
            {
                final int at = random.nextInt(live.size());
                final long id = live.get(at);
                live.set(at, live.get(live.size() - 1));
                live.remove(live.size() - 1);
                assertEquals(model.remove(id).intValue(), index.remove(id), "removed " + id);
                assertEquals(OrderSlotIndex.MISSING, index.get(id), "after removing " + id);
            }

            if (i % 1_999 == 0 || i > 59_500)
            {
                assertEquals(model.size(), index.size());
                for (final Map.Entry<Long, Integer> entry : model.entrySet())
                {
                    assertEquals(entry.getValue().intValue(), index.get(entry.getKey()), "id " + entry.getKey());
                }
            }
        }
        assertTrue(index.capacity() > 16 * initialCapacity, "grew to " + index.capacity());
        assertTrue(index.size() <= index.capacity() / 2, "at most half full");
    }
}
