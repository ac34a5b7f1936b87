package io.mdfanout.tools;

import io.mdfanout.affinity.IdleStrategies;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;
import picocli.CommandLine.Option;

import java.util.concurrent.TimeUnit;

/**
 * What a tool's poll thread and its embedded media driver do when a duty cycle found no work: the same
 * {@code --idle-strategy} and {@code --idle-max-park-us} options, with the same meaning and defaults, as the feed
 * handler and the fanout; {@code backoff} and {@code park} ({@code backoff} without the yields, for cores shared
 * with busy threads on EEVDF kernels) are {@link IdleStrategies}'.
 * <p>
 * The benchmark's raw Aeron baseline ({@code raw-aeron-pub}, {@code raw-aeron-sub}) takes these options too, so
 * the chain and the baseline are compared with the same idle behaviour.
 */
public final class IdleOptions
{
    /** Default longest park of {@code backoff}. */
    public static final long DEFAULT_MAX_PARK_US = IdleStrategies.DEFAULT_MAX_PARK_NS / 1000;
    private static final long MAX_MAX_PARK_US = TimeUnit.SECONDS.toMicros(1);

    @Option(names = "--idle-strategy", defaultValue = "backoff",
        description = "What the poll thread and the embedded media driver do when idle: backoff, park (backoff " +
            "without yields, for cores shared with busy threads), yield or busy-spin (yield and busy-spin only with a " +
            "core to spare).")
    String idleStrategy = "backoff";

    @Option(names = "--idle-max-park-us", defaultValue = "" + DEFAULT_MAX_PARK_US,
        description = "Longest park of the backoff and park idle strategies (spin, yield, then park from 1 us " +
            "doubling up to this), in microseconds: the most a message waits at each idle thread.")
    long maxParkUs = DEFAULT_MAX_PARK_US;

    @Option(names = "--driver-threading", defaultValue = "shared",
        description = "Embedded media driver: shared (its own thread) or invoker (run by the poll thread between " +
            "polls: one busy thread per tool instead of two, for machines with few cores). No effect with --aeron-dir.")
    String driverThreading = "shared";

    /** @return whether the embedded media driver is run by the poll thread ({@code --driver-threading invoker}). */
    public boolean driverInvoker()
    {
        return "invoker".equals(driverThreading);
    }

    /**
     * Check the options.
     *
     * @throws IllegalArgumentException with a one-line message naming the accepted values.
     */
    public void validate()
    {
        if (!"backoff".equals(idleStrategy) && !"park".equals(idleStrategy) && !"yield".equals(idleStrategy) &&
            !"busy-spin".equals(idleStrategy))
        {
            throw new IllegalArgumentException(
                "unknown --idle-strategy '" + idleStrategy + "' (backoff, park, yield or busy-spin)");
        }
        if (!"shared".equals(driverThreading) && !"invoker".equals(driverThreading))
        {
            throw new IllegalArgumentException(
                "unknown --driver-threading '" + driverThreading + "' (shared or invoker)");
        }
        if (maxParkUs < 1 || maxParkUs > MAX_MAX_PARK_US)
        {
            throw new IllegalArgumentException("--idle-max-park-us must be 1 to " + MAX_MAX_PARK_US + ": " + maxParkUs);
        }
    }

    /**
     * A new idle strategy as configured (idle strategies hold state: one per thread).
     *
     * @return the idle strategy.
     * @throws IllegalArgumentException when the options are invalid.
     */
    public IdleStrategy newIdleStrategy()
    {
        validate();
        switch (idleStrategy)
        {
            case "yield": return new YieldingIdleStrategy();
            case "busy-spin": return new BusySpinIdleStrategy();
            case "park": return IdleStrategies.park(TimeUnit.MICROSECONDS.toNanos(maxParkUs));
            default: return IdleStrategies.backoff(TimeUnit.MICROSECONDS.toNanos(maxParkUs));
        }
    }

    /** @return e.g. {@code backoff(maxPark=100us)}, for start-up lines. */
    public String toString()
    {
        return "backoff".equals(idleStrategy) || "park".equals(idleStrategy) ?
            idleStrategy + "(maxPark=" + maxParkUs + "us)" : idleStrategy;
    }
}
