package io.mdfanout.affinity;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

/**
 * The two backing-off idle strategies every role's busy threads can run with (the feed handler, the fanout and its
 * media driver, the subscriber tools, the simulator), made in one place so that a message crossing several idle
 * threads meets the same behaviour at each hop.
 * <p>
 * {@code backoff} spins {@value #SPINS} times, yields {@value #YIELDS} times, then parks from
 * {@link #MIN_PARK_NS} doubling up to a maximum park ({@link #DEFAULT_MAX_PARK_NS} by default: Agrona's own 1 ms
 * puts milliseconds into the p99 of a chain of hops). {@code park} is the same without the yields. On Linux 6.6 and
 * later (the EEVDF scheduler) every {@code Thread.yield()} moves the yielding thread's deadline a whole scheduler
 * slice later, so a thread that yields while it waits for work runs, once work arrives, after every busy thread
 * sharing its cores; a thread that spins briefly and then parks keeps its place, and pays a wake-up from the park
 * instead (docs/OPERATIONS.md, "backoff or park where roles share cores", has the figures).
 */
public final class IdleStrategies
{
    /** Default longest park: 100 microseconds (a constant expression, for option defaults). */
    public static final long DEFAULT_MAX_PARK_NS = 100_000L;
    /** First and shortest park, and so the smallest maximum park: 1 microsecond. */
    public static final long MIN_PARK_NS = 1_000L;
    /** Spins before the first yield or park. */
    public static final int SPINS = 10;
    /** Yields of {@code backoff} before its first park. */
    public static final int YIELDS = 20;

    private IdleStrategies()
    {
    }

    /**
     * Spin, yield, then park with doubling pauses.
     *
     * @param maxParkNs longest park; raised to {@link #MIN_PARK_NS} if below.
     * @return a new strategy (they hold state: one per thread).
     */
    public static IdleStrategy backoff(final long maxParkNs)
    {
        return new BackoffIdleStrategy(SPINS, YIELDS, MIN_PARK_NS, Math.max(MIN_PARK_NS, maxParkNs));
    }

    /**
     * Spin, then park with doubling pauses; never yield.
     *
     * @param maxParkNs longest park; raised to {@link #MIN_PARK_NS} if below.
     * @return a new strategy (they hold state: one per thread).
     */
    public static IdleStrategy park(final long maxParkNs)
    {
        return new BackoffIdleStrategy(SPINS, 0, MIN_PARK_NS, Math.max(MIN_PARK_NS, maxParkNs));
    }
}
