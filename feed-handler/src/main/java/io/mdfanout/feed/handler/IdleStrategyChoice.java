package io.mdfanout.feed.handler;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.util.concurrent.TimeUnit;

/**
 * The idle strategies a feed-handler thread can run with, by their command-line names.
 * {@code busy-spin} is for a pinned, isolated core only; {@code backoff} suits shared machines.
 * <p>
 * {@code backoff} spins 10 times, yields 20 times, then parks from 1 us doubling up to a maximum park period
 * ({@code --idle-max-park-us}, {@link #DEFAULT_MAX_PARK_NS} by default): the same shape and the same default as
 * the fanout, its embedded media driver and the subscriber tools, so a message crossing several idle threads
 * waits at most one short park at each hop. Agrona's own default (1 ms) puts milliseconds into the p99 of a
 * chain of hops. {@code park} is {@code backoff} without the yields: on Linux 6.6 and later (the EEVDF scheduler)
 * every {@code Thread.yield()} moves the thread's deadline a whole scheduler slice later, so a thread that yields
 * while it waits falls behind every busy thread sharing its cores (see docs/OPERATIONS.md, "Idle strategies").
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

    /** Default longest park of {@code backoff}: 100 microseconds. */
    public static final long DEFAULT_MAX_PARK_NS = TimeUnit.MICROSECONDS.toNanos(100);
    /** Shortest park of {@code backoff}, and so the smallest maximum park accepted: 1 microsecond. */
    public static final long MIN_PARK_NS = TimeUnit.MICROSECONDS.toNanos(1);
    private static final int MAX_SPINS = 10;
    private static final int MAX_YIELDS = 20;
    private static final int NO_YIELDS = 0;

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
            case PARK: return new BackoffIdleStrategy(MAX_SPINS, NO_YIELDS, MIN_PARK_NS, Math.max(MIN_PARK_NS, maxParkNs));
            default: return new BackoffIdleStrategy(MAX_SPINS, MAX_YIELDS, MIN_PARK_NS, Math.max(MIN_PARK_NS, maxParkNs));
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
