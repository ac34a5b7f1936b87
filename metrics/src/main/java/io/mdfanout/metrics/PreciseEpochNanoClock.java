package io.mdfanout.metrics;

import org.agrona.concurrent.EpochNanoClock;

import java.time.Instant;

/**
 * Wall-clock nanoseconds since the epoch for latency measurement between processes on one host: the offset from
 * {@link System#nanoTime()} to {@link Instant#now()} (clock_gettime(CLOCK_REALTIME), microsecond precision or
 * better) is sampled once, taking the tightest of several readings, then every {@link #nanoTime()} is
 * {@code System.nanoTime() + offset}: monotonic and allocation-free. Agrona's OffsetEpochNanoClock samples
 * System.currentTimeMillis(), whose millisecond steps would put up to 1 ms of error between two processes: more
 * than the latencies measured. The simulator and the subscriber tools both use it, so both ends of a
 * measurement read time the same way.
 */
public final class PreciseEpochNanoClock implements EpochNanoClock
{
    private static final int SAMPLES = 50;

    private final long offsetNs;

    /** Samples the offset now. */
    public PreciseEpochNanoClock()
    {
        long bestSpanNs = Long.MAX_VALUE;
        long bestOffsetNs = 0;
        for (int i = 0; i < SAMPLES; i++)
        {
            final long beforeNs = System.nanoTime();
            final Instant now = Instant.now();
            final long afterNs = System.nanoTime();
            final long spanNs = afterNs - beforeNs;
            if (spanNs < bestSpanNs)
            {
                bestSpanNs = spanNs;
                final long epochNs = now.getEpochSecond() * 1_000_000_000L + now.getNano();
                bestOffsetNs = epochNs - (beforeNs + spanNs / 2);
            }
        }
        offsetNs = bestOffsetNs;
    }

    /** {@inheritDoc} */
    public long nanoTime()
    {
        return System.nanoTime() + offsetNs;
    }
}
