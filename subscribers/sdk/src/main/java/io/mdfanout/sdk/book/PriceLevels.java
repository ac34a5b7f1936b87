package io.mdfanout.sdk.book;

import java.util.Arrays;

/**
 * One side of an order book: price levels with their total shares and order count, kept sorted
 * in pre-allocated parallel arrays.
 * <p>
 * Levels are stored so that the best price is at the highest index: activity clusters near the
 * top of the book, so inserting or removing there moves few elements. Bids are stored by
 * ascending price; asks by descending price (as ascending negated prices, so one binary search
 * serves both). Depth index 0 is always the best level. Arrays grow (doubling) only when full.
 */
public final class PriceLevels
{
    private final boolean bid;
    private long[] keys;
    private long[] shares;
    private int[] orderCounts;
    private int size;

    /**
     * Create an empty side.
     *
     * @param bid true for the bid side (best = highest price), false for asks (best = lowest).
     * @param initialCapacity levels held before the arrays grow.
     */
    public PriceLevels(final boolean bid, final int initialCapacity)
    {
        final int capacity = Math.max(1, initialCapacity);
        this.bid = bid;
        this.keys = new long[capacity];
        this.shares = new long[capacity];
        this.orderCounts = new int[capacity];
    }

    /**
     * Whether this is the bid side.
     *
     * @return true for bids, false for asks.
     */
    public boolean isBid()
    {
        return bid;
    }

    /**
     * Number of price levels.
     *
     * @return the number of levels.
     */
    public int size()
    {
        return size;
    }

    /**
     * Price mantissa of a level.
     *
     * @param depth 0 for the best level, 1 for the next, up to {@link #size()} - 1.
     * @return the price mantissa.
     */
    public long price(final int depth)
    {
        return toPrice(keys[index(depth)]);
    }

    /**
     * Total resting shares at a level.
     *
     * @param depth 0 for the best level.
     * @return the shares.
     */
    public long shares(final int depth)
    {
        return shares[index(depth)];
    }

    /**
     * Number of resting orders at a level.
     *
     * @param depth 0 for the best level.
     * @return the order count.
     */
    public int orderCount(final int depth)
    {
        return orderCounts[index(depth)];
    }

    /**
     * Add an order's shares at a price, creating the level if needed.
     *
     * @param price price mantissa.
     * @param orderShares shares of the new order.
     * @return the level's depth (0 = best) after the add: levels from this depth on changed.
     */
    public int addOrder(final long price, final long orderShares)
    {
        final long key = toKey(price);
        int index = Arrays.binarySearch(keys, 0, size, key);
        if (index < 0)
        {
            index = -index - 1;
            insertAt(index, key);
        }
        shares[index] += orderShares;
        orderCounts[index]++;
        return size - 1 - index;
    }

    /**
     * Take shares out of a level; remove an order from it when {@code orderLeaves}; remove the
     * level when its last order leaves.
     *
     * @param price price mantissa.
     * @param removedShares shares leaving the level.
     * @param orderLeaves true when the order leaves the book.
     * @return the level's depth (0 = best) before the change, levels from this depth on changed; -1 when there is no
     *         level at that price (nothing changed).
     */
    public int reduce(final long price, final long removedShares, final boolean orderLeaves)
    {
        final int index = Arrays.binarySearch(keys, 0, size, toKey(price));
        if (index < 0)
        {
            return -1;
        }
        final int depth = size - 1 - index;
        shares[index] -= removedShares;
        if (orderLeaves && --orderCounts[index] <= 0)
        {
            removeAt(index);
        }
        return depth;
    }

    /** Remove every level. */
    public void clear()
    {
        size = 0;
    }

    private int index(final int depth)
    {
        if (depth < 0 || depth >= size)
        {
            throw new IndexOutOfBoundsException("depth " + depth + " of " + size + " levels");
        }
        return size - 1 - depth;
    }

    private long toKey(final long price)
    {
        return bid ? price : -price;
    }

    private long toPrice(final long key)
    {
        return bid ? key : -key;
    }

    private void insertAt(final int index, final long key)
    {
        if (size == keys.length)
        {
            final int capacity = keys.length << 1;
            keys = Arrays.copyOf(keys, capacity);
            shares = Arrays.copyOf(shares, capacity);
            orderCounts = Arrays.copyOf(orderCounts, capacity);
        }
        final int moved = size - index;
        if (moved > 0)
        {
            System.arraycopy(keys, index, keys, index + 1, moved);
            System.arraycopy(shares, index, shares, index + 1, moved);
            System.arraycopy(orderCounts, index, orderCounts, index + 1, moved);
        }
        keys[index] = key;
        shares[index] = 0;
        orderCounts[index] = 0;
        size++;
    }

    private void removeAt(final int index)
    {
        final int moved = size - index - 1;
        if (moved > 0)
        {
            System.arraycopy(keys, index + 1, keys, index, moved);
            System.arraycopy(shares, index + 1, shares, index, moved);
            System.arraycopy(orderCounts, index + 1, orderCounts, index, moved);
        }
        size--;
    }
}
