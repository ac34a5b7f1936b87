package io.mdfanout.tools;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;
import picocli.CommandLine.Option;

import java.util.concurrent.TimeUnit;

/**
 * What a tool's poll thread and its embedded media driver do when a duty cycle found no work: the same
 * {@code --idle-strategy} and {@code --idle-max-park-us} options, with the same meaning and defaults, as the feed
 * handler and the fanout. {@code backoff} spins 10 times, yields 20 times, then parks from 1 us doubling up to the
 * maximum park; Agrona's own default maximum (1 ms) would put milliseconds into the p99 of every hop. {@code park}
 * is {@code backoff} without the yields: on Linux 6.6 and later (the EEVDF scheduler) every {@code Thread.yield()}
 * moves the thread's deadline a whole scheduler slice later, so a thread that yields while it waits falls behind
 * every busy thread sharing its cores (see docs/OPERATIONS.md, "Idle strategies").
 * <p>
 * The benchmark's raw Aeron baseline ({@code raw-aeron-pub}, {@code raw-aeron-sub}) takes these options too, so
 * the chain and the baseline are compared with the same idle behaviour.
 */
public final class IdleOptions
{
    /** Default longest park of {@code backoff}. */
    public static final long DEFAULT_MAX_PARK_US = 100;
    private static final long MIN_PARK_NS = TimeUnit.MICROSECONDS.toNanos(1);
    private static final long MAX_MAX_PARK_US = TimeUnit.SECONDS.toMicros(1);
    private static final int MAX_SPINS = 10;
    private static final int MAX_YIELDS = 20;
    private static final int NO_YIELDS = 0;

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
            case "park": return new BackoffIdleStrategy(
                MAX_SPINS, NO_YIELDS, MIN_PARK_NS, TimeUnit.MICROSECONDS.toNanos(maxParkUs));
            default: return new BackoffIdleStrategy(
                MAX_SPINS, MAX_YIELDS, MIN_PARK_NS, TimeUnit.MICROSECONDS.toNanos(maxParkUs));
        }
    }

    /** @return e.g. {@code backoff(maxPark=100us)}, for start-up lines. */
    public String toString()
    {
        return "backoff".equals(idleStrategy) || "park".equals(idleStrategy) ?
            idleStrategy + "(maxPark=" + maxParkUs + "us)" : idleStrategy;
    }
}
