package io.mdfanout.metrics;

/** How a counter is exported: a monotonic total or a value that goes up and down. */
public enum MetricKind
{
    /** Monotonic total; exposed with the {@code _total} suffix. */
    COUNTER,
    /** Current value: fill levels, positions, maxima. */
    GAUGE
}
