package io.mdfanout.wire;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What a busy thread of any role (feed handler, replay, simulator, fanout and its media driver, subscriber tools)
 * does when a duty cycle found no work: the one parser of {@code --idle-strategy} and the one factory of the idle
 * strategies, so that a message crossing several idle threads meets the same behaviour at each hop.
 * <p>
 * Names are today's ({@code backoff}, {@code park}, {@code yield}, {@code busy-spin}, {@code sleep}) and Agrona's
 * aliases ({@link NoOpIdleStrategy#ALIAS noop}, {@link BusySpinIdleStrategy#ALIAS spin},
 * {@link YieldingIdleStrategy#ALIAS yield}, {@link SleepingIdleStrategy#ALIAS sleep-ns},
 * {@link SleepingMillisIdleStrategy#ALIAS sleep-ms}, {@link BackoffIdleStrategy#ALIAS backoff}), case-insensitive,
 * with '_' for '-'.
 * <p>
 * {@code backoff} spins {@value #SPINS} times, yields {@value #YIELDS} times, then parks from {@link #MIN_PARK_NS}
 * doubling up to a maximum park ({@link #DEFAULT_MAX_PARK_NS} by default: Agrona's own 1 ms puts milliseconds into
 * the p99 of a chain of hops). {@code park} is the same without the yields. On Linux 6.6 and later (the EEVDF
 * scheduler) every {@code Thread.yield()} moves the yielding thread's deadline a whole scheduler slice later, so a
 * thread that yields while it waits for work runs, once work arrives, after every busy thread sharing its cores; a
 * thread that spins briefly and then parks keeps its place, and pays a wake-up from the park instead
 * (docs/OPERATIONS.md, "backoff or park where roles share cores", has the figures).
 */
public enum IdleStrategyType
{
    /** Spin, then yield, then park with growing pauses: low latency when busy, polite when idle. The default. */
    BACKOFF("backoff", BackoffIdleStrategy.ALIAS),
    /** Spin, then park with growing pauses, never yield: for cores shared with busy threads on EEVDF kernels. */
    PARK("park", "park"),
    /** Thread.yield() between idle cycles. */
    YIELD("yield", YieldingIdleStrategy.ALIAS),
    /** Spin on the core: lowest latency; only with a pinned, exclusive core. */
    BUSY_SPIN("busy-spin", BusySpinIdleStrategy.ALIAS),
    /** Park the maximum park period between idle cycles: least CPU, most latency. */
    SLEEP("sleep", SleepingIdleStrategy.ALIAS),
    /** Thread.sleep() the maximum park period, rounded up to whole milliseconds (at least 1 ms). */
    SLEEP_MS("sleep-ms", SleepingMillisIdleStrategy.ALIAS),
    /** Do nothing between idle cycles: a spin without even the spin-wait hint; only with a pinned, exclusive core. */
    NOOP("noop", NoOpIdleStrategy.ALIAS);

    /** Default longest park: 100 microseconds (a constant expression, for option defaults). */
    public static final long DEFAULT_MAX_PARK_NS = 100_000L;
    /** {@link #DEFAULT_MAX_PARK_NS} in microseconds, the unit of {@code --idle-max-park-us}. */
    public static final long DEFAULT_MAX_PARK_US = DEFAULT_MAX_PARK_NS / 1000;
    /** {@link #DEFAULT_MAX_PARK_US} as a picocli {@code defaultValue}. */
    public static final String DEFAULT_MAX_PARK_US_STRING = "" + DEFAULT_MAX_PARK_US;
    /** The default strategy's name, as a picocli {@code defaultValue}. */
    public static final String DEFAULT_NAME = "backoff";
    /** First and shortest park, and so the smallest maximum park: 1 microsecond. */
    public static final long MIN_PARK_NS = 1_000L;
    /** Spins before the first yield or park. */
    public static final int SPINS = 10;
    /** Yields of {@code backoff} before its first park. */
    public static final int YIELDS = 20;

    private final String cliName;
    private final String alias;

    IdleStrategyType(final String cliName, final String alias)
    {
        this.cliName = cliName;
        this.alias = alias;
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

    /** @return a new idle strategy of this type with the default maximum park (stateful: one per thread). */
    public IdleStrategy newIdleStrategy()
    {
        return newIdleStrategy(DEFAULT_MAX_PARK_NS);
    }

    /**
     * @param maxParkNs longest park of {@code backoff} and {@code park}, the park of {@code sleep} and
     *                  {@code sleep-ms}; raised to {@link #MIN_PARK_NS} if below.
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
            case NOOP:
                return NoOpIdleStrategy.INSTANCE;
            case SLEEP:
                return new SleepingIdleStrategy(parkNs);
            case SLEEP_MS:
                return new SleepingMillisIdleStrategy(
                    Math.max(1, (parkNs + TimeUnit.MILLISECONDS.toNanos(1) - 1) / TimeUnit.MILLISECONDS.toNanos(1)));
            case PARK:
                return park(parkNs);
            case BACKOFF:
            default:
                return backoff(parkNs);
        }
    }

    /**
     * What to run with when auto pinning found too few CPUs, so that threads share cores: spinning and yielding
     * would starve the other threads, so they become {@code backoff}; the parking and sleeping strategies stay.
     *
     * @return this, or {@link #BACKOFF} for {@link #YIELD}, {@link #BUSY_SPIN} and {@link #NOOP}.
     */
    public IdleStrategyType onSharedCores()
    {
        return YIELD == this || BUSY_SPIN == this || NOOP == this ? BACKOFF : this;
    }

    /** @return whether the strategy parks or sleeps, so that the maximum park applies. */
    public boolean parks()
    {
        return BACKOFF == this || PARK == this || SLEEP == this || SLEEP_MS == this;
    }

    /** @return the command-line name, e.g. {@code busy-spin}. */
    public String cliName()
    {
        return cliName;
    }

    /**
     * Parse an {@code --idle-strategy} value: a command-line name or an Agrona alias, case-insensitive, with '_'
     * for '-'.
     *
     * @param name such as "backoff", "busy-spin" or "spin".
     * @return the type.
     * @throws IllegalArgumentException with a one-line message naming the usual values.
     */
    public static IdleStrategyType parse(final String name)
    {
        final String normalized = null == name ? "" : name.trim().toLowerCase(Locale.ROOT).replace('_', '-');
        for (final IdleStrategyType type : values())
        {
            if (type.cliName.equals(normalized) || type.alias.equals(normalized))
            {
                return type;
            }
        }
        throw new IllegalArgumentException(
            "unknown --idle-strategy '" + name + "' (backoff, park, yield or busy-spin)");
    }

    /** @return the command-line name, for start-up lines. */
    public String toString()
    {
        return cliName;
    }
}
