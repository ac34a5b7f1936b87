package io.mdfanout.metrics;

/** How a counter is exported: a monotonic total or a value that goes up and down. */
public enum MetricKind
{
    /** Monotonic total; exposed with the {@code _total} suffix. */
    COUNTER,
    /** Current value: fill levels, positions, maxima. */
    GAUGE,
    /**
     * A state machine's current state (OpenMetrics' StateSet, exposed as a gauge): one series per state, labelled
     * {@code state}, 1 for the state the counter's value stands for and 0 for the others.
     */
    STATE_SET
}
