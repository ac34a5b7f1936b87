package io.mdfanout.fanout;

import io.mdfanout.affinity.IdleStrategies;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

/**
 * What a busy thread of the fanout (publisher or embedded media driver) does when a duty cycle found no work.
 * <p>
 * {@code backoff} and {@code park} are {@link IdleStrategies}', shared with the other roles ({@code park} is
 * {@code backoff} without the yields, for cores shared with busy threads on EEVDF kernels); {@code sleep} always
 * parks the maximum park period ({@code --idle-max-park-us}).
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

    /** Default longest park of {@code backoff} and {@code park}, and the park of {@code sleep}. */
    public static final long DEFAULT_MAX_PARK_NS = IdleStrategies.DEFAULT_MAX_PARK_NS;
    /** Shortest park, and so the smallest maximum park accepted. */
    public static final long MIN_PARK_NS = IdleStrategies.MIN_PARK_NS;

    /** @return a new idle strategy of this type with the default maximum park (stateful: one per thread). */
    public IdleStrategy newIdleStrategy()
    {
        return newIdleStrategy(DEFAULT_MAX_PARK_NS);
    }

    /**
     * @param maxParkNs longest park of {@code backoff} and {@code park}, park of {@code sleep}; at least
     *                  {@link #MIN_PARK_NS}.
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
                return IdleStrategies.park(parkNs);
            case BACKOFF:
            default:
                return IdleStrategies.backoff(parkNs);
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
