package io.mdfanout.fanout.state;

import io.mdfanout.testing.OrderIdPatterns;
import io.mdfanout.wire.OrderIdHash;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.LongUnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The order index against a HashMap, for the id patterns a feed produces, and the locality its home
 * function promises: consecutive order ids on one page.
 */
final class OrderIndexTest
{
    private static final int MAX_ORDERS = 4096;

    private final StateLayout layout = new StateLayout(MAX_ORDERS);
    private final StateMemory memory =
        new StateMemory(new UnsafeBuffer(ByteBuffer.allocateDirect(layout.instrumentsOffset)));
    private final UndoLog undo = new UndoLog(memory, layout.instrumentsOffset);
    private final OrderIndex index = new OrderIndex(memory, undo, layout);
    private long position;

    @Test
    void consecutiveOrderIdsShareAPageInConsecutiveSlots()
    {
        final long blockStart = 7_000_000L * OrderIdHash.BLOCK_SLOTS;
        final int page = index.home(blockStart) / OrderIdHash.BLOCK_SLOTS;
        final Set<Integer> homes = new HashSet<>();
        for (int i = 0; i < OrderIdHash.BLOCK_SLOTS; i++)
        {
            final int home = index.home(blockStart + i);
            assertEquals(page, home / OrderIdHash.BLOCK_SLOTS, "id " + (blockStart + i) + " on the block's page");
            assertEquals(
                (index.home(blockStart) + i) % OrderIdHash.BLOCK_SLOTS, home % OrderIdHash.BLOCK_SLOTS,
                "id " + (blockStart + i) + " in the slot after its predecessor's (cyclically)");
            homes.add(home);
        }
        assertEquals(OrderIdHash.BLOCK_SLOTS, homes.size(), "no two ids of a block share a home");
        // 16-byte entries: one block of homes is exactly one 4 KiB page of the table.
        assertEquals(4096, OrderIdHash.BLOCK_SLOTS * StateLayout.INDEX_ENTRY_LENGTH);
    }

    @Test
    void patternedOrderIdsStillSpreadOverTheTable()
    {
        // Every 256th, every 1,000th and every 65,536th id: the block numbers are mixed, so their
        // homes spread instead of piling into one cluster.
        for (final long stride : new long[]{ OrderIdHash.BLOCK_SLOTS, 1_000, 65_536 })
        {
            final Set<Integer> homes = new HashSet<>();
            for (int i = 0; i < MAX_ORDERS; i++)
            {
                homes.add(index.home(1 + i * stride));
            }
            assertTrue(homes.size() > MAX_ORDERS / 2, "stride " + stride + ": " + homes.size() + " distinct homes");
        }
    }

    @Test
    void matchesAMapForConsecutiveIds()
    {
        exercise(i -> 1_000_000 + i);
    }

    @Test
    void matchesAMapForBlockStridedIds()
    {
        exercise(i -> 3 + i * OrderIdHash.BLOCK_SLOTS);
    }

    @Test
    void matchesAMapForIdsOnePartitionOfFourSees()
    {
        exercise(OrderIdPatterns.risingWithRandomSteps(4));
    }

    @Test
    void matchesAMapForRandomIds()
    {
        final SplittableRandom random = new SplittableRandom(9);
        exercise(i -> 1 + (random.nextLong() >>> 1));
    }

    /**
     * Adds ids from the pattern while removing random live ones, keeping the table up to its limit of
     * half full (clusters merge and wrap around the table's end), and checks every live id, and ids
     * never added, after each step.
     */
    private void exercise(final LongUnaryOperator ids)
    {
        final SplittableRandom random = new SplittableRandom(42);
        final Map<Long, Integer> model = new HashMap<>();
        final List<Long> live = new ArrayList<>();
        int nextPoolIndex = 0;
        for (int i = 0; i < 40_000; i++)
        {
            final boolean add = live.size() < 64 || (live.size() < MAX_ORDERS && random.nextInt(100) < 55);
            if (add)
            {
                final long id = ids.applyAsLong(i);
                if (model.containsKey(id))
                {
                    continue;
                }
                final int poolIndex = nextPoolIndex++ % MAX_ORDERS;
                step(() -> index.put(id, poolIndex));
                model.put(id, poolIndex);
                live.add(id);
            }
            else
            {
                final int at = random.nextInt(live.size());
                final long id = live.get(at);
                live.set(at, live.get(live.size() - 1));
                live.remove(live.size() - 1);
                step(() -> index.remove(id));
                model.remove(id);
                assertEquals(OrderIndex.MISSING, index.get(id), "removed " + id);
            }

            if (i % 997 == 0 || i > 39_000)
            {
                for (final Map.Entry<Long, Integer> entry : model.entrySet())
                {
                    assertEquals(entry.getValue().intValue(), index.get(entry.getKey()), "id " + entry.getKey());
                }
                assertEquals(OrderIndex.MISSING, index.get(Long.MAX_VALUE - i), "never added");
            }
        }
        assertTrue(model.size() > MAX_ORDERS / 4, "the table filled up: " + model.size() + " live");
    }

    private void step(final Runnable store)
    {
        undo.begin(++position);
        store.run();
        undo.commit(position);
    }
}
