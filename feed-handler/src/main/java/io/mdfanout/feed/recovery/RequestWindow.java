package io.mdfanout.feed.recovery;

/**
 * The retransmission requests in flight: each a range {@code [from, to]} of sequences still to come, the sequence
 * its next reply packet should start with, when it was (last) sent and when its server last answered it.
 * Parallel primitive arrays allocated once, kept in the order they were opened (oldest first), so timers walk
 * them in a deterministic order.
 * <p>
 * A MoldUDP64 server answers a request with downstream packets starting at the requested sequence: the
 * specification's server sends one packet and the client asks again for the rest; some servers stream as many
 * packets as the request needs. A reply is matched to its request by that start ({@link #indexOfReplyStart});
 * a partial reply moves the request's {@code from} and expected reply start to the first sequence still to come.
 */
public final class RequestWindow
{
    private final long[] from;
    private final long[] to;
    private final long[] replyStart;
    private final long[] sentNs;
    private final long[] answeredNs;
    private final boolean[] awaitingContinuation;
    private int count;

    /**
     * Allocate room for {@code capacity} requests in flight.
     *
     * @param capacity most requests in flight, at least 1.
     */
    public RequestWindow(final int capacity)
    {
        if (capacity < 1)
        {
            throw new IllegalArgumentException("request window must hold at least 1 request: " + capacity);
        }
        from = new long[capacity];
        to = new long[capacity];
        replyStart = new long[capacity];
        sentNs = new long[capacity];
        answeredNs = new long[capacity];
        awaitingContinuation = new boolean[capacity];
    }

    /** Requests in flight. */
    public int count()
    {
        return count;
    }

    /** True when no further request may be opened. */
    public boolean isFull()
    {
        return count == from.length;
    }

    /** First sequence request {@code i} still waits for. */
    public long from(final int i)
    {
        return from[i];
    }

    /** Last sequence request {@code i} covers, inclusive. */
    public long to(final int i)
    {
        return to[i];
    }

    /** When request {@code i} was last sent. */
    public long sentNs(final int i)
    {
        return sentNs[i];
    }

    /** When the server last answered request {@code i} (its send time until then). */
    public long answeredNs(final int i)
    {
        return answeredNs[i];
    }

    /** True when request {@code i} was answered in part and nothing was asked since: more may be streaming. */
    public boolean isAwaitingContinuation(final int i)
    {
        return awaitingContinuation[i];
    }

    /**
     * Open a request for {@code [first, last]}, sent now; the caller checks {@link #isFull()} first.
     *
     * @param first first sequence asked for.
     * @param last  last sequence asked for, inclusive.
     * @param nowNs send time.
     */
    public void add(final long first, final long last, final long nowNs)
    {
        final int i = count++;
        from[i] = first;
        to[i] = last;
        replyStart[i] = first;
        sentNs[i] = nowNs;
        answeredNs[i] = nowNs;
        awaitingContinuation[i] = false;
    }

    /**
     * Request {@code i} was sent again, for {@code [first, to(i)]}.
     *
     * @param i     request index.
     * @param first first sequence still missing.
     * @param nowNs send time.
     */
    public void resent(final int i, final long first, final long nowNs)
    {
        from[i] = first;
        replyStart[i] = first;
        sentNs[i] = nowNs;
        answeredNs[i] = nowNs;
        awaitingContinuation[i] = false;
    }

    /**
     * A reply answered request {@code i} up to {@code next - 1}, and the request was not sent again: the next packet
     * of a streaming server starts at {@code next}.
     *
     * @param i     request index.
     * @param next  first sequence still to come.
     * @param nowNs time of the reply.
     */
    public void answeredInPart(final int i, final long next, final long nowNs)
    {
        from[i] = next;
        replyStart[i] = next;
        answeredNs[i] = nowNs;
        awaitingContinuation[i] = true;
    }

    /**
     * The server showed it is working on request {@code i} (a late or repeated copy of a reply).
     *
     * @param i     request index.
     * @param nowNs time of the reply.
     */
    public void answered(final int i, final long nowNs)
    {
        answeredNs[i] = nowNs;
    }

    /**
     * Fills from any line moved the first sequence request {@code i} still waits for.
     *
     * @param i     request index.
     * @param first first sequence still missing, at most {@link #to(int)}.
     */
    public void trim(final int i, final long first)
    {
        from[i] = first;
    }

    /**
     * Stop waiting for what request {@code i} asked beyond {@code last}: it is asked for again by other requests.
     *
     * @param i    request index.
     * @param last the last sequence still awaited, at least {@link #from(int)}.
     */
    public void shorten(final int i, final long last)
    {
        to[i] = last;
    }

    /**
     * The request whose next reply starts at {@code sequence}.
     *
     * @param sequence first sequence of a reply packet.
     * @return its index, or -1.
     */
    public int indexOfReplyStart(final long sequence)
    {
        for (int i = 0; i < count; i++)
        {
            if (replyStart[i] == sequence)
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * The oldest request covering {@code sequence}.
     *
     * @param sequence to look up.
     * @return its index, or -1.
     */
    public int indexCovering(final long sequence)
    {
        for (int i = 0; i < count; i++)
        {
            if (from[i] <= sequence && sequence <= to[i])
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * Close request {@code i}: answered in full, or nothing of it is missing any more.
     *
     * @param i request index.
     */
    public void remove(final int i)
    {
        final int tail = count - i - 1;
        System.arraycopy(from, i + 1, from, i, tail);
        System.arraycopy(to, i + 1, to, i, tail);
        System.arraycopy(replyStart, i + 1, replyStart, i, tail);
        System.arraycopy(sentNs, i + 1, sentNs, i, tail);
        System.arraycopy(answeredNs, i + 1, answeredNs, i, tail);
        System.arraycopy(awaitingContinuation, i + 1, awaitingContinuation, i, tail);
        count--;
    }

    /** Forget every request (a new session, a ring stall). */
    public void clear()
    {
        count = 0;
    }
}
