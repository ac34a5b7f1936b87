package io.mdfanout.feed.replay;

import java.util.concurrent.locks.LockSupport;

/**
 * Holds a replay to the pace of the recorded timestamps: the first timestamp seen is "now", and
 * each later one is released when as much time has passed as separates it from the first.
 * Timestamps that go backwards (a new day, bad data) are released at once.
 */
final class OriginalPacer
{
    private long firstTimestampNs = -1;
    private long startNanos;

    /** Forget the reference point (a new replay). */
    void reset()
    {
        firstTimestampNs = -1;
    }

    /**
     * Wait until the given timestamp is due, or the thread is interrupted.
     *
     * @param timestampNs the record's timestamp in nanoseconds (any epoch, the same for all records).
     */
    void awaitTime(final long timestampNs)
    {
        if (firstTimestampNs < 0)
        {
            firstTimestampNs = timestampNs;
            startNanos = System.nanoTime();
            return;
        }

        final long deadline = startNanos + (timestampNs - firstTimestampNs);
        long remaining;
        while ((remaining = deadline - System.nanoTime()) > 0 && !Thread.currentThread().isInterrupted())
        {
            LockSupport.parkNanos(Math.min(remaining, 1_000_000L));
        }
    }
}
