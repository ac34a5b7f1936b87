package io.mdfanout.feed.handler;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

/**
 * The idle strategies a feed-handler thread can run with, by their command-line names.
 * {@code busy-spin} is for a pinned, isolated core only; {@code backoff} suits shared machines.
 */
public enum IdleStrategyChoice
{
    /** Spin, then yield, then park with growing pauses: friendly to shared cores. */
    BACKOFF("backoff"),
    /** Thread.yield() between polls. */
    YIELD("yield"),
    /** Never give the core up: lowest latency, burns a whole core. */
    BUSY_SPIN("busy-spin");

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

    /** A new idle strategy instance (they hold state, so each thread or wait loop gets its own). */
    public IdleStrategy newIdleStrategy()
    {
        switch (this)
        {
            case YIELD: return new YieldingIdleStrategy();
            case BUSY_SPIN: return new BusySpinIdleStrategy();
            default: return new BackoffIdleStrategy();
        }
    }

    /**
     * Parse a command-line name.
     *
     * @param name backoff, yield or busy-spin.
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
        throw new IllegalArgumentException("unknown idle strategy '" + name + "' (backoff, yield or busy-spin)");
    }

    public String toString()
    {
        return cliName;
    }
}
