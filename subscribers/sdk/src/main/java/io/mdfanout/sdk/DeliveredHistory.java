package io.mdfanout.sdk;

import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The last messages a pair's partition delivered, by chain position, so that each later copy from the other side can
 * be compared byte for byte with the one that won: two sides with the same identity and other bytes must be caught,
 * never mixed silently. A ring of message bytes and a ring of entries (chain position, where, how long), both sized at
 * construction; the oldest entries are overwritten, and a copy that arrives after its original left the history is
 * not compared ({@link #UNKNOWN}). Each side looks up its copies from a cursor of its own: its copies come in chain
 * order, so the lookup moves forward (a side that starts again from further back is found by a binary search).
 * Allocates nothing once built. Not thread safe.
 */
final class DeliveredHistory
{
    /** The copy's bytes are the delivered message's. */
    static final int SAME = 0;
    /** The copy's bytes differ from the delivered message's at its chain position. */
    static final int DIFFERENT = 1;
    /** The delivered message at that chain position is not held (overwritten, a gap notice, never delivered here). */
    static final int UNKNOWN = 2;

    private final UnsafeBuffer bytes;
    private final int bytesMask;
    private final long[] chains;
    private final long[] positions;
    private final int[] lengths;
    private final int entriesMask;
    private final long[] cursors;
    /** Entries appended so far: the next entry's number. */
    private long head;
    /** The oldest entry still held: neither it nor its bytes overwritten. */
    private long tail;
    /** Bytes appended so far: the next message's absolute position. */
    private long written;

    /**
     * @param capacityBytes the bytes of messages held, a power of two.
     * @param entries       the messages held at most, a power of two.
     * @param sides         the sides that look up copies.
     */
    DeliveredHistory(final int capacityBytes, final int entries, final int sides)
    {
        if (!BitUtil.isPowerOfTwo(capacityBytes) || !BitUtil.isPowerOfTwo(entries))
        {
            throw new IllegalArgumentException("capacity and entries: powers of two, not " + capacityBytes + ", " + entries);
        }
        bytes = new UnsafeBuffer(new byte[capacityBytes]); // on the heap: a subscriber's direct memory is its images'

        bytesMask = capacityBytes - 1;
        chains = new long[entries];
        positions = new long[entries];
        lengths = new int[entries];
        entriesMask = entries - 1;
        cursors = new long[sides];
    }

    /** Forget every message: a new trading day's chain starts from 0. */
    void clear()
    {
        head = 0;
        tail = 0;
        written = 0;
        java.util.Arrays.fill(cursors, 0);
    }

    /**
     * Hold a delivered message.
     *
     * @param chain  its chain position (above every position held).
     * @param buffer holding it.
     * @param offset of its SBE header.
     * @param length of the whole message.
     */
    void append(final long chain, final DirectBuffer buffer, final int offset, final int length)
    {
        final int capacity = bytesMask + 1;
        if (length > capacity)
        {
            return;
        }
        int index = (int)(written & bytesMask);
        if (index + length > capacity)
        {
            written += capacity - index; // messages are held whole: skip to the start of the ring
            index = 0;
        }
        bytes.putBytes(index, buffer, offset, length);
        final int entry = (int)(head & entriesMask);
        chains[entry] = chain;
        positions[entry] = written;
        lengths[entry] = length;
        written += length;
        head++;
        final long oldestByte = written - capacity;
        while (tail < head && (tail < head - (entriesMask + 1) || positions[(int)(tail & entriesMask)] < oldestByte))
        {
            tail++;
        }
    }

    /**
     * Compare a side's copy with the message delivered at its chain position.
     *
     * @param side   the copy's side.
     * @param chain  the copy's chain position.
     * @param buffer holding the copy.
     * @param offset of its SBE header.
     * @param length of the whole copy.
     * @return {@link #SAME}, {@link #DIFFERENT} or {@link #UNKNOWN}.
     */
    int compare(final int side, final long chain, final DirectBuffer buffer, final int offset, final int length)
    {
        final long oldest = tail;
        long entry = Math.max(cursors[side], oldest);
        if (entry > oldest && chains[(int)((entry - 1) & entriesMask)] >= chain)
        {
            entry = search(oldest, chain); // the side went back (its fanout started again from its state)
        }
        while (entry < head && chains[(int)(entry & entriesMask)] < chain)
        {
            entry++;
        }
        cursors[side] = entry;
        if (entry >= head || chains[(int)(entry & entriesMask)] != chain)
        {
            return UNKNOWN;
        }
        final int at = (int)(entry & entriesMask);
        if (lengths[at] != length)
        {
            return DIFFERENT;
        }
        final int index = (int)(positions[at] & bytesMask);
        for (int i = 0; i < length; i += Long.BYTES)
        {
            if (length - i >= Long.BYTES)
            {
                if (bytes.getLong(index + i) != buffer.getLong(offset + i))
                {
                    return DIFFERENT;
                }
            }
            else
            {
                for (int j = i; j < length; j++)
                {
                    if (bytes.getByte(index + j) != buffer.getByte(offset + j))
                    {
                        return DIFFERENT;
                    }
                }
            }
        }
        return SAME;
    }

    /** The first held entry at or above a chain position. */
    private long search(final long from, final long chain)
    {
        long low = from;
        long high = head;
        while (low < high)
        {
            final long mid = (low + high) >>> 1;
            if (chains[(int)(mid & entriesMask)] < chain)
            {
                low = mid + 1;
            }
            else
            {
                high = mid;
            }
        }
        return low;
    }
}
