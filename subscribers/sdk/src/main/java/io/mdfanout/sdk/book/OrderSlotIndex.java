package io.mdfanout.sdk.book;

import io.mdfanout.wire.OrderIdHash;
import org.agrona.BitUtil;

/**
 * Order id to order slot, for {@link OrderBooks}: open addressing with linear probing over one
 * {@code long[]} of (orderId, slot + 1) pairs, 0 meaning empty, at most half full, backward-shift
 * deletion (no tombstones, so probe sequences stay short however long the session), and
 * {@link OrderIdHash} homes so that the live orders, mostly recent ids, share a few pages. A map that
 * mixes every bit of the id put each lookup on a random page: with room for a million orders that
 * was more than half the time of building books.
 * <p>
 * Grows (doubling, the only allocation) when more than half full. Not thread safe.
 */
final class OrderSlotIndex
{
    /** Returned by {@link #get(long)} when the order is not present. */
    static final int MISSING = -1;
    /** Most orders held: the table's long[] stays within Java's array limit. */
    static final int MAX_ORDERS = 1 << 28;

    private long[] entries;
    private int mask;
    private int size;

    /**
     * @param orders orders held before the table grows.
     */
    OrderSlotIndex(final int orders)
    {
        if (orders <= 0 || orders > MAX_ORDERS)
        {
            throw new IllegalArgumentException("orders must be 1.." + MAX_ORDERS + ": " + orders);
        }
        allocate(BitUtil.findNextPositivePowerOfTwo(2 * orders));
    }

    /** @return orders held. */
    int size()
    {
        return size;
    }

    /** @return slots in the table (twice the orders it holds before growing). */
    int capacity()
    {
        return mask + 1;
    }

    /** @return the slot of the order, or {@link #MISSING}. */
    int get(final long orderId)
    {
        final int index = indexOf(orderId);
        return index < 0 ? MISSING : (int)(entries[2 * index + 1] - 1);
    }

    /** Map the order to a slot, replacing its slot if it is present. */
    void put(final long orderId, final int slot)
    {
        int index = OrderIdHash.home(orderId, mask);
        while (0 != entries[2 * index + 1])
        {
            if (entries[2 * index] == orderId)
            {
                entries[2 * index + 1] = slot + 1L;
                return;
            }
            index = (index + 1) & mask;
        }
        entries[2 * index] = orderId;
        entries[2 * index + 1] = slot + 1L;
        if (++size > (mask + 1) >> 1)
        {
            grow();
        }
    }

    /**
     * Remove the order, shifting later entries of its cluster back.
     *
     * @return its slot, or {@link #MISSING} when it was not present.
     */
    int remove(final long orderId)
    {
        int hole = indexOf(orderId);
        if (hole < 0)
        {
            return MISSING;
        }
        final long[] entries = this.entries;
        final int mask = this.mask;
        final int removedSlot = (int)(entries[2 * hole + 1] - 1);

        int index = hole;
        while (true)
        {
            index = (index + 1) & mask;
            final long value = entries[2 * index + 1];
            if (0 == value)
            {
                break;
            }
            final long key = entries[2 * index];
            final int home = OrderIdHash.home(key, mask);
            // The entry may move into the hole only if its home is not cyclically within (hole, index].
            final boolean staysPut = hole <= index ? (hole < home && home <= index) : (hole < home || home <= index);
            if (!staysPut)
            {
                entries[2 * hole] = key;
                entries[2 * hole + 1] = value;
                hole = index;
            }
        }
        entries[2 * hole] = 0;
        entries[2 * hole + 1] = 0;
        size--;
        return removedSlot;
    }

    /** @return the table index holding the order, or -1 when it is not present. */
    private int indexOf(final long orderId)
    {
        final long[] entries = this.entries;
        final int mask = this.mask;
        int index = OrderIdHash.home(orderId, mask);
        while (0 != entries[2 * index + 1])
        {
            if (entries[2 * index] == orderId)
            {
                return index;
            }
            index = (index + 1) & mask;
        }
        return -1;
    }

    private void grow()
    {
        if (mask + 1 > MAX_ORDERS)
        {
            throw new IllegalStateException("order index full: " + size + " orders");
        }
        final long[] old = entries;
        allocate(2 * (mask + 1));
        size = 0;
        for (int i = 0; i < old.length; i += 2)
        {
            if (0 != old[i + 1])
            {
                put(old[i], (int)(old[i + 1] - 1));
            }
        }
    }

    private void allocate(final int capacity)
    {
        entries = new long[2 * capacity];
        mask = capacity - 1;
    }
}
