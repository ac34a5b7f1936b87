package io.mdfanout.fanout;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.util.concurrent.TimeUnit;

/** What a publisher thread does when a duty cycle found no work. */
public enum IdleStrategyType
{
    /** Spin, then yield, then park with growing pauses: low latency when busy, polite when idle. The default. */
    BACKOFF,
    /** Thread.yield() between idle cycles. */
    YIELD,
    /** Spin on the core: lowest latency; only with a pinned, exclusive core. */
    BUSY_SPIN,
    /** Park 100 microseconds between idle cycles: least CPU, most latency. */
    SLEEP;

    /** @return a new idle strategy of this type (idle strategies are stateful: one per thread). */
    public IdleStrategy newIdleStrategy()
    {
        switch (this)
        {
            case YIELD:
                return new YieldingIdleStrategy();
            case BUSY_SPIN:
                return new BusySpinIdleStrategy();
            case SLEEP:
                return new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(100));
            case BACKOFF:
            default:
                return new BackoffIdleStrategy();
        }
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
