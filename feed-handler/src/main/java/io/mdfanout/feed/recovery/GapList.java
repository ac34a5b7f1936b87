package io.mdfanout.feed.recovery;

/**
 * The open gaps of a MoldUDP64 session: disjoint ranges of missing sequences in ascending
 * order, each with the time it was detected, how far into it retransmission requests reach (the
 * requests themselves are in a {@link RequestWindow}), when anything of it last arrived, and
 * whether it has been declared unrecoverable. Parallel primitive arrays
 * allocated once; inserting or removing shifts the entries behind (the list is short: a
 * handful of gaps at a time in practice, bounded by {@link #capacity()}).
 * <p>
 * A gap shrinks or splits as messages arrive inside it; a split copies the state of the gap
 * (its detection time, its requests' reach, its progress, its declaration) to both parts.
 */
public final class GapList
{
    /** {@link #fill(int, long)}: the gap lost its first or last sequence. */
    public static final int SHRUNK = 0;
    /** {@link #fill(int, long)}: the gap is closed and removed. */
    public static final int CLOSED = 1;
    /** {@link #fill(int, long)}: the gap was split in two around the sequence. */
    public static final int SPLIT = 2;
    /** {@link #fill(int, long)}: the gap is closed, but another part of the gap it was split from is still open. */
    public static final int PART_CLOSED = 3;

    private final long[] first;
    private final long[] last;
    private final long[] detectedNs;
    private final long[] requestedThrough;
    private final long[] progressNs;
    private final long[] origin;
    private final boolean[] requested;
    private final boolean[] declared;
    private int count;
    private long nextOrigin;

    /**
     * Allocate room for {@code capacity} gaps.
     *
     * @param capacity most gaps open at once, at least 1.
     */
    public GapList(final int capacity)
    {
        first = new long[capacity];
        last = new long[capacity];
        detectedNs = new long[capacity];
        requestedThrough = new long[capacity];
        progressNs = new long[capacity];
        origin = new long[capacity];
        requested = new boolean[capacity];
        declared = new boolean[capacity];
    }

    /** Most gaps open at once. */
    public int capacity()
    {
        return first.length;
    }

    /** Gaps open now. */
    public int count()
    {
        return count;
    }

    /** True when no further gap can be opened or split. */
    public boolean isFull()
    {
        return count == first.length;
    }

    /** First missing sequence of gap {@code i}. */
    public long first(final int i)
    {
        return first[i];
    }

    /** Last missing sequence of gap {@code i}, inclusive. */
    public long last(final int i)
    {
        return last[i];
    }

    /** When gap {@code i} was detected. */
    public long detectedNs(final int i)
    {
        return detectedNs[i];
    }

    /** True once any part of gap {@code i} (or of the gap it was split from) has been requested. */
    public boolean isRequested(final int i)
    {
        return requested[i];
    }

    /** Last sequence of gap {@code i} that requests sent so far cover; below {@link #first(int)} when none does. */
    public long requestedThrough(final int i)
    {
        return requestedThrough[i];
    }

    /** When the first request for gap {@code i} was sent, or anything of it last arrived, whichever is later. */
    public long progressNs(final int i)
    {
        return progressNs[i];
    }

    /** True when gap {@code i} is declared unrecoverable (published when the stream reaches it). */
    public boolean isDeclared(final int i)
    {
        return declared[i];
    }

    /**
     * Open a gap after every open one; the caller checks {@link #isFull()} first.
     *
     * @param firstMissing first missing sequence, above every open gap.
     * @param lastMissing  last missing sequence, inclusive.
     * @param nowNs        detection time.
     */
    public void add(final long firstMissing, final long lastMissing, final long nowNs)
    {
        final int i = count++;
        first[i] = firstMissing;
        last[i] = lastMissing;
        detectedNs[i] = nowNs;
        origin[i] = nextOrigin++;
        requestedThrough[i] = firstMissing - 1;
        progressNs[i] = nowNs;
        requested[i] = false;
        declared[i] = false;
    }

    /**
     * Index of the gap holding {@code sequence}.
     *
     * @param sequence to look up.
     * @return the index, or -1 when no open gap holds it.
     */
    public int indexOf(final long sequence)
    {
        final int i = firstEndingAtOrAfter(sequence);
        return i < count && first[i] <= sequence ? i : -1;
    }

    /**
     * Record that requests now cover gap {@code i} through {@code lastRequested}.
     *
     * @param i             gap index.
     * @param lastRequested last sequence asked for.
     * @param nowNs         send time: the first request starts the gap's silence clock.
     */
    public void requestedThrough(final int i, final long lastRequested, final long nowNs)
    {
        if (!requested[i])
        {
            requested[i] = true;
            progressNs[i] = nowNs;
        }
        requestedThrough[i] = lastRequested;
    }

    /**
     * Set how far requests in flight reach into gap {@code i}, after they were cut short; unlike
     * {@link #requestedThrough(int, long, long)} this does not start the silence clock.
     *
     * @param i     gap index.
     * @param reach last sequence covered, or {@code first(i) - 1} for none.
     */
    public void setRequestedThrough(final int i, final long reach)
    {
        requestedThrough[i] = reach;
    }

    /**
     * Restart the silence clock of gap {@code i}: it is waiting its turn, not being refused.
     *
     * @param i     gap index.
     * @param nowNs the time.
     */
    public void progressed(final int i, final long nowNs)
    {
        progressNs[i] = nowNs;
    }

    /**
     * Ask for gap {@code i} again from its first sequence: no request in flight covers it any more.
     *
     * @param i gap index.
     */
    public void rerequest(final int i)
    {
        requestedThrough[i] = first[i] - 1;
    }

    /**
     * Mark gap {@code i} unrecoverable: it is published as a GapNotice when the stream reaches it.
     *
     * @param i gap index.
     */
    public void declare(final int i)
    {
        declared[i] = true;
    }

    /**
     * A missing message arrived: shrink, split or close gap {@code i}. A split needs a free entry:
     * the caller checks {@link #isFull()} when {@code sequence} is strictly inside the gap.
     *
     * @param i        index of the gap holding {@code sequence}.
     * @param sequence the message that arrived.
     * @param nowNs    time of arrival: progress of the gap (and of both parts of a split).
     * @return {@link #SHRUNK}, {@link #SPLIT}, {@link #CLOSED} or {@link #PART_CLOSED} (another part of
     * the gap as detected is still open).
     */
    public int fill(final int i, final long sequence, final long nowNs)
    {
        progressNs[i] = nowNs;
        if (first[i] == last[i])
        {
            final long closed = origin[i];
            remove(i);
            final boolean partLeft = (i > 0 && origin[i - 1] == closed) || (i < count && origin[i] == closed);
            return partLeft ? PART_CLOSED : CLOSED;
        }
        if (sequence == first[i])
        {
            first[i] = sequence + 1;
            return SHRUNK;
        }
        if (sequence == last[i])
        {
            last[i] = sequence - 1;
            return SHRUNK;
        }

        System.arraycopy(first, i + 1, first, i + 2, count - i - 1);
        System.arraycopy(last, i + 1, last, i + 2, count - i - 1);
        System.arraycopy(detectedNs, i + 1, detectedNs, i + 2, count - i - 1);
        System.arraycopy(requestedThrough, i + 1, requestedThrough, i + 2, count - i - 1);
        System.arraycopy(progressNs, i + 1, progressNs, i + 2, count - i - 1);
        System.arraycopy(origin, i + 1, origin, i + 2, count - i - 1);
        System.arraycopy(requested, i + 1, requested, i + 2, count - i - 1);
        System.arraycopy(declared, i + 1, declared, i + 2, count - i - 1);
        count++;

        final int j = i + 1;
        first[j] = sequence + 1;
        last[j] = last[i];
        detectedNs[j] = detectedNs[i];
        requestedThrough[j] = Math.max(requestedThrough[i], sequence);
        progressNs[j] = nowNs;
        origin[j] = origin[i];
        declared[j] = declared[i];
        requested[j] = requested[i];

        last[i] = sequence - 1;
        return SPLIT;
    }

    /**
     * Remove gap {@code i} (closed, or published as declared).
     *
     * @param i gap index.
     */
    public void remove(final int i)
    {
        final int tail = count - i - 1;
        System.arraycopy(first, i + 1, first, i, tail);
        System.arraycopy(last, i + 1, last, i, tail);
        System.arraycopy(detectedNs, i + 1, detectedNs, i, tail);
        System.arraycopy(requestedThrough, i + 1, requestedThrough, i, tail);
        System.arraycopy(progressNs, i + 1, progressNs, i, tail);
        System.arraycopy(origin, i + 1, origin, i, tail);
        System.arraycopy(requested, i + 1, requested, i, tail);
        System.arraycopy(declared, i + 1, declared, i, tail);
        count--;
    }

    /** Forget every gap (a new session). */
    public void clear()
    {
        count = 0;
    }

    /**
     * The first gap that is not declared and ends at or after {@code sequence}.
     *
     * @param sequence to look from.
     * @return its index, or -1 when there is none.
     */
    public int indexOfUndeclaredFrom(final long sequence)
    {
        final int low = firstEndingAtOrAfter(sequence);
        for (int i = low; i < count; i++)
        {
            if (!declared[i])
            {
                return i;
            }
        }
        return -1;
    }

    /** Binary search: the first gap whose last sequence is at or after {@code sequence} ({@link #count()} if none). */
    private int firstEndingAtOrAfter(final long sequence)
    {
        int low = 0;
        int high = count - 1;
        while (low <= high)
        {
            final int mid = (low + high) >>> 1;
            if (last[mid] < sequence)
            {
                low = mid + 1;
            }
            else
            {
                high = mid - 1;
            }
        }
        return low;
    }
}
