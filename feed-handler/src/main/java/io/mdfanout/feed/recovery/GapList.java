package io.mdfanout.feed.recovery;

/**
 * The open gaps of a MoldUDP64 session: disjoint ranges of missing sequences in ascending
 * order, each with the time it was detected, its retransmission request (if one is
 * outstanding) and whether it has been declared unrecoverable. Parallel primitive arrays
 * allocated once; inserting or removing shifts the entries behind (the list is short: a
 * handful of gaps at a time in practice, bounded by {@link #capacity()}).
 * <p>
 * A gap shrinks or splits as messages arrive inside it; a split copies the state of the gap
 * (its detection time, its request, its declaration) to both parts.
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
    private final long[] requestSentNs;
    private final long[] requestLast;
    private final long[] origin;
    private final int[] retries;
    private final boolean[] requested;
    private final boolean[] declared;
    private int count;
    private int outstanding;
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
        requestSentNs = new long[capacity];
        requestLast = new long[capacity];
        origin = new long[capacity];
        retries = new int[capacity];
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

    /** Gaps with a retransmission request outstanding. */
    public int outstanding()
    {
        return outstanding;
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

    /** True when gap {@code i} has a request outstanding. */
    public boolean isRequested(final int i)
    {
        return requested[i];
    }

    /** When the outstanding request of gap {@code i} was (last) sent. */
    public long requestSentNs(final int i)
    {
        return requestSentNs[i];
    }

    /** Last sequence the outstanding request of gap {@code i} covers. */
    public long requestLast(final int i)
    {
        return requestLast[i];
    }

    /** Retries of the outstanding request of gap {@code i}. */
    public int retries(final int i)
    {
        return retries[i];
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
        requested[i] = false;
        declared[i] = false;
        retries[i] = 0;
    }

    /**
     * Index of the gap holding {@code sequence}.
     *
     * @param sequence to look up.
     * @return the index, or -1 when no open gap holds it.
     */
    public int indexOf(final long sequence)
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
            else if (first[mid] > sequence)
            {
                high = mid - 1;
            }
            else
            {
                return mid;
            }
        }
        return -1;
    }

    /**
     * Record that a request for {@code [first(i), lastRequested]} was sent now.
     *
     * @param i             gap index.
     * @param lastRequested last sequence asked for.
     * @param nowNs         send time.
     * @param retry         true for a retry of the outstanding request.
     */
    public void requestSent(final int i, final long lastRequested, final long nowNs, final boolean retry)
    {
        if (!requested[i])
        {
            requested[i] = true;
            outstanding++;
        }
        requestLast[i] = lastRequested;
        requestSentNs[i] = nowNs;
        retries[i] = retry ? retries[i] + 1 : 0;
    }

    /**
     * Mark gap {@code i} unrecoverable; its request (if any) is no longer outstanding.
     *
     * @param i gap index.
     */
    public void declare(final int i)
    {
        clearRequest(i);
        declared[i] = true;
    }

    /**
     * A missing message arrived: shrink, split or close gap {@code i}. A split needs a free entry:
     * the caller checks {@link #isFull()} when {@code sequence} is strictly inside the gap.
     *
     * @param i        index of the gap holding {@code sequence}.
     * @param sequence the message that arrived.
     * @return {@link #SHRUNK}, {@link #SPLIT}, {@link #CLOSED} or {@link #PART_CLOSED} (another part of
     * the gap as detected is still open).
     */
    public int fill(final int i, final long sequence)
    {
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
            if (requested[i] && requestLast[i] < first[i])
            {
                // The request was answered in full: the rest of the gap (beyond 65535 messages)
                // is requested afresh on the next poll.
                clearRequest(i);
            }
            return SHRUNK;
        }
        if (sequence == last[i])
        {
            last[i] = sequence - 1;
            if (requested[i] && requestLast[i] > last[i])
            {
                requestLast[i] = last[i];
            }
            return SHRUNK;
        }

        System.arraycopy(first, i + 1, first, i + 2, count - i - 1);
        System.arraycopy(last, i + 1, last, i + 2, count - i - 1);
        System.arraycopy(detectedNs, i + 1, detectedNs, i + 2, count - i - 1);
        System.arraycopy(requestSentNs, i + 1, requestSentNs, i + 2, count - i - 1);
        System.arraycopy(requestLast, i + 1, requestLast, i + 2, count - i - 1);
        System.arraycopy(origin, i + 1, origin, i + 2, count - i - 1);
        System.arraycopy(retries, i + 1, retries, i + 2, count - i - 1);
        System.arraycopy(requested, i + 1, requested, i + 2, count - i - 1);
        System.arraycopy(declared, i + 1, declared, i + 2, count - i - 1);
        count++;

        final int j = i + 1;
        first[j] = sequence + 1;
        last[j] = last[i];
        detectedNs[j] = detectedNs[i];
        requestSentNs[j] = requestSentNs[i];
        requestLast[j] = requestLast[i];
        origin[j] = origin[i];
        retries[j] = retries[i];
        declared[j] = declared[i];
        requested[j] = requested[i] && requestLast[i] > sequence;
        if (requested[j])
        {
            outstanding++;
        }

        last[i] = sequence - 1;
        if (requested[i] && requestLast[i] > last[i])
        {
            requestLast[i] = last[i];
        }
        return SPLIT;
    }

    /**
     * Remove gap {@code i} (closed, or published as declared).
     *
     * @param i gap index.
     */
    public void remove(final int i)
    {
        clearRequest(i);
        final int tail = count - i - 1;
        System.arraycopy(first, i + 1, first, i, tail);
        System.arraycopy(last, i + 1, last, i, tail);
        System.arraycopy(detectedNs, i + 1, detectedNs, i, tail);
        System.arraycopy(requestSentNs, i + 1, requestSentNs, i, tail);
        System.arraycopy(requestLast, i + 1, requestLast, i, tail);
        System.arraycopy(origin, i + 1, origin, i, tail);
        System.arraycopy(retries, i + 1, retries, i, tail);
        System.arraycopy(requested, i + 1, requested, i, tail);
        System.arraycopy(declared, i + 1, declared, i, tail);
        count--;
    }

    /** Forget every gap (a new session). */
    public void clear()
    {
        count = 0;
        outstanding = 0;
    }

    private void clearRequest(final int i)
    {
        if (requested[i])
        {
            requested[i] = false;
            outstanding--;
        }
    }
}
