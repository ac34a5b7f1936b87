package io.mdfanout.feed.support;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.TimeUnit;

/**
 * The ring-full idle strategy for tests: backs off as production does, but fails the test once a
 * single wait has lasted {@link #LIMIT_NS}. The normalizer waits for ring space forever by design
 * (valid data is never dropped), so a test whose rings nobody drains, after a regression, would
 * otherwise hang the build until CI's own limit; surefire's fork timeout does not stop a test that
 * never returns.
 */
public final class RingWaitDeadline implements IdleStrategy
{
    /** Far longer than any wait a passing test makes. */
    public static final long LIMIT_NS = TimeUnit.SECONDS.toNanos(60);

    private final BackoffIdleStrategy backoff = new BackoffIdleStrategy();
    private long waitStartNs = -1;

    /** {@inheritDoc} */
    public void idle(final int workCount)
    {
        if (workCount > 0)
        {
            reset();
        }
        else
        {
            idle();
        }
    }

    /** {@inheritDoc} */
    public void idle()
    {
        final long nowNs = System.nanoTime();
        if (waitStartNs < 0)
        {
            waitStartNs = nowNs;
        }
        else if (nowNs - waitStartNs > LIMIT_NS)
        {
            throw new AssertionError("a ring stayed full for " + TimeUnit.NANOSECONDS.toSeconds(LIMIT_NS) +
                " s: nothing drains it");
        }
        backoff.idle();
    }

    /** {@inheritDoc} */
    public void reset()
    {
        waitStartNs = -1;
        backoff.reset();
    }
}
