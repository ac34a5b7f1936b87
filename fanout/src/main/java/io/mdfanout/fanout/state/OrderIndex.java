package io.mdfanout.fanout.state;

import io.mdfanout.wire.OrderIdHash;

import static io.mdfanout.fanout.state.StateLayout.INDEX_ENTRY_LENGTH;

/**
 * Open-addressing map orderId -> pool index inside the state file: linear probing over a
 * power-of-two table at most half full, entries (orderId, poolIndex + 1) with 0 meaning empty, and
 * backward-shift deletion so there are no tombstones and probe sequences stay short forever. Nearby
 * order ids have nearby home slots ({@link OrderIdHash}). Every store goes through the
 * {@link UndoLog}.
 */
final class OrderIndex
{
    /** Returned by {@link #get(long)} when the order is not present. */
    static final int MISSING = -1;

    private final StateMemory memory;
    private final UndoLog undo;
    private final int tableOffset;
    private final int mask;

    OrderIndex(final StateMemory memory, final UndoLog undo, final StateLayout layout)
    {
        this.memory = memory;
        this.undo = undo;
        this.tableOffset = layout.indexOffset;
        this.mask = layout.indexCapacity - 1;
    }

    /** @return the pool index of the order, or {@link #MISSING}. */
    int get(final long orderId)
    {
        final int slot = find(orderId);
        return MISSING == slot ? MISSING : poolIndexAt(slot);
    }

    /**
     * The slot holding an order: with {@link #poolIndexAt(int)} and {@link #removeAt(int)}, one probe
     * for an update that looks the order up and then removes it.
     *
     * @return the slot, or {@link #MISSING}.
     */
    int find(final long orderId)
    {
        int slot = home(orderId);
        while (true)
        {
            final int offset = slotOffset(slot);
            if (0 == memory.getLong(offset + 8))
            {
                return MISSING;
            }
            if (memory.getLong(offset) == orderId)
            {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
    }

    /** @return the pool index held by a slot that {@link #find(long)} returned. */
    int poolIndexAt(final int slot)
    {
        return (int)(memory.getLong(slotOffset(slot) + 8) - 1);
    }

    /** Insert an order known to be absent; the table is never more than half full, so a slot is free. */
    void put(final long orderId, final int poolIndex)
    {
        putAt(probe(orderId), orderId, poolIndex);
    }

    /**
     * The slot holding the order, or else the empty slot that ends its probe sequence, where it would go: one probe
     * for an insert that must first check the id is absent.
     *
     * @return a slot; {@link #isEmpty(int)} tells which of the two it is.
     */
    int probe(final long orderId)
    {
        int slot = home(orderId);
        while (true)
        {
            final int offset = slotOffset(slot);
            if (0 == memory.getLong(offset + 8) || memory.getLong(offset) == orderId)
            {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
    }

    /** @return true when the slot holds no order. */
    boolean isEmpty(final int slot)
    {
        return 0 == memory.getLong(slotOffset(slot) + 8);
    }

    /** Insert an order at the empty slot {@link #probe(long)} returned for it, with no index store since. */
    void putAt(final int slot, final long orderId, final int poolIndex)
    {
        final int offset = slotOffset(slot);
        undo.store(offset, orderId);
        undo.store(offset + 8, poolIndex + 1L);
    }

    /** Remove an order known to be present, shifting later entries of its cluster back. */
    void remove(final long orderId)
    {
        removeAt(find(orderId));
    }

    /**
     * Remove the order a slot holds, shifting later entries of its cluster back.
     *
     * @param orderSlot the slot {@link #find(long)} returned for the order, with no index store since.
     */
    void removeAt(final int orderSlot)
    {
        int hole = orderSlot;
        int slot = hole;
        while (true)
        {
            slot = (slot + 1) & mask;
            final int offset = slotOffset(slot);
            final long value = memory.getLong(offset + 8);
            if (0 == value)
            {
                break;
            }
            final long key = memory.getLong(offset);
            final int home = home(key);
            // The entry may move into the hole only if its home is not cyclically within (hole, slot].
            final boolean staysPut = hole <= slot ? (hole < home && home <= slot) : (hole < home || home <= slot);
            if (!staysPut)
            {
                final int holeOffset = slotOffset(hole);
                undo.store(holeOffset, key);
                undo.store(holeOffset + 8, value);
                hole = slot;
            }
        }
        final int holeOffset = slotOffset(hole);
        undo.store(holeOffset, 0);
        undo.store(holeOffset + 8, 0);
    }

    private int slotOffset(final int slot)
    {
        return tableOffset + slot * INDEX_ENTRY_LENGTH;
    }

    /** {@link OrderIdHash#home}: nearby order ids in nearby slots, on one page of the table. */
    int home(final long orderId)
    {
        return OrderIdHash.home(orderId, mask);
    }
}
