package io.mdfanout.wire;

import org.agrona.concurrent.EpochNanoClock;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * Wall-clock nanoseconds since the epoch, precise enough to compare between processes on one host: the offset from
 * {@link System#nanoTime()} to {@link Instant#now()} (clock_gettime(CLOCK_REALTIME), microsecond precision or
 * better) is sampled, taking the tightest of several readings, then every {@link #nanoTime()} is
 * {@code System.nanoTime() + offset}: allocation-free. Agrona's OffsetEpochNanoClock samples
 * System.currentTimeMillis(), whose millisecond steps put up to 1 ms of error into every reading: more than the
 * latencies measured. The fanout stamps each packet's sendingTime with it, the SDK measures delivery latency
 * against it, and the simulator, the feed handler and the benchmark tools stamp and measure with it, so both ends
 * of every measurement read time the same way.
 * <p>
 * The offset is sampled again every {@link #RESAMPLE_INTERVAL_NS} (as Agrona's clock does), so that a
 * long-running process follows the wall clock's adjustments (NTP slews it against the monotonic clock); a
 * resample may step the readings by the drift since the last one, microseconds, and allocates its readings'
 * {@link Instant}s once (about 1 KiB an hour). Safe for several threads: the offset is one volatile long, and two
 * threads that resample at once both store a good offset.
 */
public final class PreciseEpochNanoClock implements EpochNanoClock
{
    /** How often the offset is sampled again. */
    public static final long RESAMPLE_INTERVAL_NS = TimeUnit.HOURS.toNanos(1);

    private static final int SAMPLES = 50;

    private volatile long offsetNs;
    private volatile long nextSampleNs;

    /** Samples the offset now. */
    public PreciseEpochNanoClock()
    {
        sample();
    }

    /** {@inheritDoc} */
    public long nanoTime()
    {
        final long nowNs = System.nanoTime();
        if (nowNs - nextSampleNs >= 0)
        {
            sample();
        }
        return nowNs + offsetNs;
    }

    /** Sample the offset from the monotonic clock to the wall clock again, now. */
    public void sample()
    {
        long bestSpanNs = Long.MAX_VALUE;
        long bestOffsetNs = 0;
        long lastNs = 0;
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
            lastNs = afterNs;
        }
        offsetNs = bestOffsetNs;
        nextSampleNs = lastNs + RESAMPLE_INTERVAL_NS;
    }
}
