package io.mdfanout.metrics;

import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.Unit;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * A latency histogram for the message path, exported as a Prometheus classic histogram in
 * seconds. The single writer records nanoseconds into an HdrHistogram {@link SingleWriterRecorder}
 * (wait-free, allocation-free, no lock); the scrape thread swaps the interval histogram out, adds
 * it to its own cumulative histogram and exports that with fixed bucket bounds.
 * <p>
 * Values below 0 (clocks stepping) count as 0; values above the highest trackable one are clamped
 * to it, so a record never throws and never resizes.
 */
public final class LatencyHistogram implements Collector
{
    /** Highest value tracked: 10 s in nanoseconds. */
    public static final long HIGHEST_TRACKABLE_NS = 10_000_000_000L;

    /** Bucket upper bounds in seconds: 1 us .. 10 s, roughly 1-2.5-5 per decade. */
    private static final double[] BOUNDS_SECONDS =
    {
        1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2,
        0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, Double.POSITIVE_INFINITY
    };

    private final String name;
    private final String help;
    private final Labels labels;
    private final SingleWriterRecorder recorder = new SingleWriterRecorder(HIGHEST_TRACKABLE_NS, 3);
    private final Histogram cumulative = new Histogram(HIGHEST_TRACKABLE_NS, 3);
    private Histogram interval;

    /**
     * @param name   metric name, ending in {@code _seconds}.
     * @param help   help text.
     * @param labels constant labels of the data point; may be empty.
     */
    public LatencyHistogram(final String name, final String help, final Labels labels)
    {
        if (!name.endsWith("_seconds"))
        {
            throw new IllegalArgumentException("a latency metric's name ends in _seconds: " + name);
        }
        this.name = name;
        this.help = help;
        this.labels = labels;
    }

    /**
     * Record one latency. Single writer; allocation-free and wait-free.
     *
     * @param nanos the latency in nanoseconds.
     */
    public void recordNanos(final long nanos)
    {
        recorder.recordValue(nanos < 0 ? 0 : Math.min(nanos, HIGHEST_TRACKABLE_NS));
    }

    /**
     * Everything recorded so far (for tests and stats lines). Scrape thread only.
     *
     * @return a copy of the cumulative histogram.
     */
    public synchronized Histogram snapshot()
    {
        drain();
        return cumulative.copy();
    }

    /** {@inheritDoc} */
    public synchronized MetricSnapshot collect()
    {
        drain();
        final long[] counts = new long[BOUNDS_SECONDS.length];
        long below = 0;
        for (int i = 0; i < BOUNDS_SECONDS.length - 1; i++)
        {
            final long boundNs = (long)(BOUNDS_SECONDS[i] * 1e9);
            // Cumulative count of values <= bound, at the histogram's precision (3 significant digits).
            final long atOrBelow = cumulative.getCountBetweenValues(0, boundNs);
            counts[i] = atOrBelow - below;
            below = atOrBelow;
        }
        counts[BOUNDS_SECONDS.length - 1] = cumulative.getTotalCount() - below;
        final double sumSeconds = cumulative.getMean() * cumulative.getTotalCount() / 1e9;
        return HistogramSnapshot.builder()
            .name(name)
            .help(help)
            .unit(Unit.SECONDS)
            .dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder()
                .classicHistogramBuckets(ClassicHistogramBuckets.of(BOUNDS_SECONDS, counts))
                .sum(cumulative.getTotalCount() == 0 ? 0.0 : sumSeconds)
                .labels(labels)
                .build())
            .build();
    }

    private void drain()
    {
        interval = recorder.getIntervalHistogram(interval);
        cumulative.add(interval);
    }
}
