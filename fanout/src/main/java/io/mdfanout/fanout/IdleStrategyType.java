package io.mdfanout.fanout;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.util.concurrent.TimeUnit;

/**
 * What a busy thread of the fanout (publisher or embedded media driver) does when a duty cycle found no work.
 * <p>
 * {@code backoff} spins 10 times, yields 20 times, then parks from 1 us doubling up to a maximum park period
 * ({@code --idle-max-park-us}, {@link #DEFAULT_MAX_PARK_NS} by default); {@code park} is the same without the yields;
 * {@code sleep} always parks that long. The feed handler and the subscriber tools use the same shapes and default, so
 * a message crossing several idle threads waits at most one short park at each hop (Agrona's own default, 1 ms, puts
 * milliseconds into the p99).
 * <p>
 * Why {@code park}: on Linux 6.6 and later (the EEVDF scheduler) every {@code Thread.yield()} moves the yielding
 * thread's deadline a whole scheduler slice later, so a consumer that yields while it waits for work falls behind
 * every busy thread sharing its cores and then waits milliseconds for a core once work arrives. A thread that
 * spins briefly and then parks keeps its place. See docs/OPERATIONS.md ("Idle strategies") for the figures.
 */
public enum IdleStrategyType
{
    /** Spin, then yield, then park with growing pauses: low latency when busy, polite when idle. The default. */
    BACKOFF,
    /** Spin, then park with growing pauses, never yield: for cores shared with busy threads on EEVDF kernels. */
    PARK,
    /** Thread.yield() between idle cycles. */
    YIELD,
    /** Spin on the core: lowest latency; only with a pinned, exclusive core. */
    BUSY_SPIN,
    /** Park the maximum park period between idle cycles: least CPU, most latency. */
    SLEEP;

    /** Default longest park of {@code backoff} and the park of {@code sleep}: 100 microseconds. */
    public static final long DEFAULT_MAX_PARK_NS = TimeUnit.MICROSECONDS.toNanos(100);
    /** Shortest park of {@code backoff}, and so the smallest maximum park accepted: 1 microsecond. */
    public static final long MIN_PARK_NS = TimeUnit.MICROSECONDS.toNanos(1);
    private static final int MAX_SPINS = 10;
    private static final int MAX_YIELDS = 20;
    private static final int NO_YIELDS = 0;

    /** @return a new idle strategy of this type with the default maximum park (stateful: one per thread). */
    public IdleStrategy newIdleStrategy()
    {
        return newIdleStrategy(DEFAULT_MAX_PARK_NS);
    }

    /**
     * @param maxParkNs longest park of {@code backoff} and {@code park}, park of {@code sleep}; at least {@link #MIN_PARK_NS}.
     * @return a new idle strategy of this type (idle strategies are stateful: one per thread).
     */
    public IdleStrategy newIdleStrategy(final long maxParkNs)
    {
        final long parkNs = Math.max(MIN_PARK_NS, maxParkNs);
        switch (this)
        {
            case YIELD:
                return new YieldingIdleStrategy();
            case BUSY_SPIN:
                return new BusySpinIdleStrategy();
            case SLEEP:
                return new SleepingIdleStrategy(parkNs);
            case PARK:
                return new BackoffIdleStrategy(MAX_SPINS, NO_YIELDS, MIN_PARK_NS, parkNs);
            case BACKOFF:
            default:
                return new BackoffIdleStrategy(MAX_SPINS, MAX_YIELDS, MIN_PARK_NS, parkNs);
        }
    }

    /**
     * What to run with when auto pinning found too few CPUs, so that the threads share cores: spinning and yielding
     * would starve the other threads, so they become {@code backoff}; the parking strategies stay as chosen.
     *
     * @return this, or {@link #BACKOFF} for {@link #YIELD} and {@link #BUSY_SPIN}.
     */
    public IdleStrategyType onSharedCores()
    {
        return YIELD == this || BUSY_SPIN == this ? BACKOFF : this;
    }

    /**
     * Parse a command-line name (case-insensitive, '-' for '_').
     *
     * @param name such as "backoff" or "busy-spin".
     * @return the value.
     * @throws IllegalArgumentException naming the accepted values.
     */
    public static IdleStrategyType fromName(final String name)
    {
        return EnumNames.parse(IdleStrategyType.class, name);
    }

    /** @return the command-line name. */
    public String cliName()
    {
        return EnumNames.cliName(this);
    }
}
