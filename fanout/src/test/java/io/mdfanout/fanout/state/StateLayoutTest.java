package io.mdfanout.fanout.state;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The offsets that numbers read from a state file become: inside the file for every value in range, and an
 * {@link IndexOutOfBoundsException} for any other (StateMemory accesses them without a check of its own).
 */
final class StateLayoutTest
{
    private static final int MAX_ORDERS = 100;
    private final StateLayout layout = new StateLayout(MAX_ORDERS);

    @Test
    void everyOffsetInRangeLiesInsideTheFile()
    {
        assertEquals(layout.poolOffset, layout.orderOffset(0));
        assertTrue(layout.orderOffset(MAX_ORDERS - 1) + StateLayout.ORDER_ENTRY_LENGTH <= layout.indexOffset);
        assertEquals(layout.indexOffset, layout.indexSlotOffset(0));
        assertTrue(layout.indexSlotOffset(layout.indexCapacity - 1) + StateLayout.INDEX_ENTRY_LENGTH <=
            layout.instrumentsOffset);
        assertTrue(layout.instrumentSlotOffset(StateLayout.INSTRUMENT_CAPACITY - 1, StateLayout.INSTRUMENT_SLOT_COUNT - 1) +
            StateLayout.SLOT_LENGTH <= layout.fileLength);
        assertTrue(StateLayout.marketSlotOffset(StateLayout.MARKET_SLOT_COUNT - 1) + StateLayout.SLOT_LENGTH <=
            StateLayout.BITMAP_OFFSET);
    }

    @Test
    void refusesEveryValueOutOfRange()
    {
        for (final int bad : new int[]{ -1, MAX_ORDERS, Integer.MAX_VALUE, Integer.MIN_VALUE })
        {
            assertThrows(IndexOutOfBoundsException.class, () -> layout.orderOffset(bad), "pool index " + bad);
        }
        for (final int bad : new int[]{ -1, layout.indexCapacity, Integer.MIN_VALUE })
        {
            assertThrows(IndexOutOfBoundsException.class, () -> layout.indexSlotOffset(bad), "slot " + bad);
        }
        for (final int bad : new int[]{ -1, StateLayout.INSTRUMENT_CAPACITY, Integer.MAX_VALUE })
        {
            assertThrows(IndexOutOfBoundsException.class, () -> layout.instrumentOffset(bad), "instrument " + bad);
            assertThrows(IndexOutOfBoundsException.class, () -> layout.instrumentSlotOffset(bad, 0), "instrument " + bad);
        }
        for (final int bad : new int[]{ -1, StateLayout.INSTRUMENT_SLOT_COUNT })
        {
            assertThrows(IndexOutOfBoundsException.class, () -> layout.instrumentSlotOffset(1, bad), "kind " + bad);
        }
        for (final int bad : new int[]{ -1, StateLayout.MARKET_SLOT_COUNT })
        {
            assertThrows(IndexOutOfBoundsException.class, () -> StateLayout.marketSlotOffset(bad), "market kind " + bad);
        }
        final IndexOutOfBoundsException ex = assertThrows(IndexOutOfBoundsException.class, () -> layout.orderOffset(100));
        assertEquals("state file is corrupt: pool index 100 outside 0..99; delete it (or choose another --state-dir) " +
            "to start with empty state", ex.getMessage());
    }
}
