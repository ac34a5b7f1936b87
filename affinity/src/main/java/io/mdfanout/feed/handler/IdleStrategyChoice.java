package io.mdfanout.feed.handler;

import io.mdfanout.affinity.IdleStrategies;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

/**
 * The idle strategies a feed-handler thread can run with, by their command-line names.
 * {@code busy-spin} is for a pinned, isolated core only; {@code backoff} suits shared machines, and {@code park}
 * ({@code backoff} without the yields) shared cores on EEVDF kernels: both are {@link IdleStrategies}', the same
 * shapes and default as the fanout, its embedded media driver and the subscriber tools.
 */
public enum IdleStrategyChoice
{
    /** Spin, then yield, then park with growing pauses: friendly to shared cores. */
    BACKOFF("backoff"),
    /** Spin, then park with growing pauses, never yield: for cores shared with busy threads on EEVDF kernels. */
    PARK("park"),
    /** Thread.yield() between polls. */
    YIELD("yield"),
    /** Never give the core up: lowest latency, burns a whole core. */
    BUSY_SPIN("busy-spin");

    /** Default longest park of {@code backoff} and {@code park}. */
    public static final long DEFAULT_MAX_PARK_NS = IdleStrategies.DEFAULT_MAX_PARK_NS;
    /** Shortest park, and so the smallest maximum park accepted. */
    public static final long MIN_PARK_NS = IdleStrategies.MIN_PARK_NS;

    private final String cliName;

    IdleStrategyChoice(final String cliName)
    {
        this.cliName = cliName;
    }

    /** Name used on the command line. */
    public String cliName()
    {
        return cliName;
    }

    /**
     * A new idle strategy instance with the default maximum park (they hold state, so each thread or wait loop
     * gets its own).
     *
     * @return the idle strategy.
     */
    public IdleStrategy newIdleStrategy()
    {
        return newIdleStrategy(DEFAULT_MAX_PARK_NS);
    }

    /**
     * A new idle strategy instance (they hold state, so each thread or wait loop gets its own).
     *
     * @param maxParkNs longest park of {@code backoff} and {@code park}, at least {@link #MIN_PARK_NS}; ignored by
     *                  the others.
     * @return the idle strategy.
     */
    public IdleStrategy newIdleStrategy(final long maxParkNs)
    {
        switch (this)
        {
            case YIELD: return new YieldingIdleStrategy();
            case BUSY_SPIN: return new BusySpinIdleStrategy();
            case PARK: return IdleStrategies.park(maxParkNs);
            default: return IdleStrategies.backoff(maxParkNs);
        }
    }

    /**
     * What to run with when auto pinning found too few CPUs, so that threads share cores: spinning and yielding
     * would starve the other threads, so they become {@code backoff}; {@code park} stays.
     *
     * @return this, or {@link #BACKOFF} for {@link #YIELD} and {@link #BUSY_SPIN}.
     */
    public IdleStrategyChoice onSharedCores()
    {
        return YIELD == this || BUSY_SPIN == this ? BACKOFF : this;
    }

    /** Whether the strategy parks, so that its longest park applies. */
    public boolean parks()
    {
        return BACKOFF == this || PARK == this;
    }

    /**
     * Parse a command-line name.
     *
     * @param name backoff, park, yield or busy-spin.
     * @return the choice.
     * @throws IllegalArgumentException for any other name.
     */
    public static IdleStrategyChoice parse(final String name)
    {
        for (final IdleStrategyChoice choice : values())
        {
            if (choice.cliName.equals(name))
            {
                return choice;
            }
        }
        throw new IllegalArgumentException("unknown idle strategy '" + name + "' (backoff, park, yield or busy-spin)");
    }

    public String toString()
    {
        return cliName;
    }
}
