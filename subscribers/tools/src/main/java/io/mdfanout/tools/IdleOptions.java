package io.mdfanout.tools;

import io.mdfanout.wire.Defaults;
import io.mdfanout.wire.IdleStrategyType;
import org.agrona.concurrent.IdleStrategy;
import picocli.CommandLine.Option;

import java.util.concurrent.TimeUnit;

/**
 * What a tool's poll thread and its embedded media driver do when a duty cycle found no work: the same
 * {@code --idle-strategy} and {@code --idle-max-park-us} options, with the same meaning and defaults, as the feed
 * handler and the fanout, parsed by the one parser, {@link IdleStrategyType}.
 * <p>
 * The benchmark's raw Aeron baseline ({@code raw-aeron-pub}, {@code raw-aeron-sub}) takes these options too, so
 * the chain and the baseline are compared with the same idle behaviour.
 */
public final class IdleOptions
{
    /** Default longest park of {@code backoff}. */
    public static final long DEFAULT_MAX_PARK_US = IdleStrategyType.DEFAULT_MAX_PARK_US;
    private static final long MAX_MAX_PARK_US = TimeUnit.SECONDS.toMicros(1);

    @Option(names = "--idle-strategy", defaultValue = Defaults.IDLE_STRATEGY,
        description = "What the poll thread and the embedded media driver do when idle: backoff, park (backoff " +
            "without yields, for cores shared with busy threads), yield or busy-spin (yield and busy-spin only with a " +
            "core to spare); also sleep and Agrona's aliases noop, spin, sleep-ns and sleep-ms.")
    String idleStrategy = Defaults.IDLE_STRATEGY;

    @Option(names = "--idle-max-park-us", defaultValue = Defaults.IDLE_MAX_PARK_US_STRING,
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
        IdleStrategyType.parse(idleStrategy);
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
        return IdleStrategyType.parse(idleStrategy).newIdleStrategy(TimeUnit.MICROSECONDS.toNanos(maxParkUs));
    }

    /** @return e.g. {@code backoff(maxPark=100us)}, for start-up lines. */
    public String toString()
    {
        try
        {
            final IdleStrategyType type = IdleStrategyType.parse(idleStrategy);
            return type.parks() ? type.cliName() + "(maxPark=" + maxParkUs + "us)" : type.cliName();
        }
        catch (final IllegalArgumentException ex)
        {
            return idleStrategy;
        }
    }
}
