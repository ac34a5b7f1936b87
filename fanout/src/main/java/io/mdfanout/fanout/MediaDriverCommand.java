package io.mdfanout.fanout;

import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.mdfanout.affinity.AffinityPlan;
import io.mdfanout.affinity.CpuSelection;
import io.mdfanout.metrics.AeronCountersCollector;
import io.mdfanout.metrics.MetricsOptions;
import io.mdfanout.metrics.MetricsServer;
import io.mdfanout.wire.Defaults;
import io.mdfanout.wire.ExitCodes;
import io.mdfanout.wire.IdleStrategyType;
import io.mdfanout.wire.StopSignals;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.agrona.CloseHelper;
import org.agrona.concurrent.ShutdownSignalBarrier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code media-driver}: a standalone Aeron media driver, for a fanout (and subscriber tools) run
 * with {@code --aeron-dir}: in Kubernetes a container of its own in the feed pod, so that the
 * driver's threads get CPUs of their own and the fanout can be restarted without its streams'
 * log buffers going away. Its busy threads are pinned like the fanout's ({@code --cpus}); its
 * counters (NAKs, retransmits, positions) are served to Prometheus with {@code --metrics-port}.
 */
@Command(name = "media-driver", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = "Run a standalone Aeron media driver (for --aeron-dir of the fanout and the tools).")
public final class MediaDriverCommand implements Callable<Integer>
{
    /** The driver's busy threads, by threading mode (the names the fanout's embedded driver uses too). */
    static final List<String> SHARED_THREADS = List.of(Fanout.DRIVER_SHARED_THREAD);
    static final List<String> SHARED_NETWORK_THREADS = List.of(Fanout.DRIVER_CONDUCTOR_THREAD, Fanout.DRIVER_NETWORK_THREAD);
    static final List<String> DEDICATED_THREADS =
        List.of(Fanout.DRIVER_CONDUCTOR_THREAD, Fanout.DRIVER_SENDER_THREAD, Fanout.DRIVER_RECEIVER_THREAD);

    @Option(names = "--aeron-dir", required = true,
        description = "The driver's directory (under /dev/shm); clients connect with the same --aeron-dir.")
    String aeronDirectoryName;

    @Option(names = "--driver-threading", defaultValue = "shared", converter = FanoutCommand.DriverThreadingConverter.class,
        description = "shared (one thread), shared-network (conductor + network) or dedicated (conductor, sender, " +
        "receiver): the fanout's --driver-threading.")
    ThreadingMode threading;

    // Held apart and applied in call(): picocli applies --driver-threading's default after parsing when it was not
    // given, which would overwrite a value set here.
    private ThreadingMode deprecatedThreading;

    /**
     * The name this option had before 0.1.0, when {@code --threading} meant the driver's threads here and the
     * publishers' threads in the fanout: still read, with a warning.
     *
     * @param mode the driver's threading mode.
     */
    @Option(names = "--threading", hidden = true, converter = FanoutCommand.DriverThreadingConverter.class,
        description = "Deprecated: --driver-threading.")
    void deprecatedThreading(final ThreadingMode mode)
    {
        deprecatedThreading = mode;
    }

    @Option(names = "--term-length-bytes", defaultValue = "" + FanoutConfig.DEFAULT_TERM_LENGTH,
        description = "Default term length of publications (a channel's term-length wins).")
    int termLength;

    @Option(names = "--cpus", defaultValue = "auto", converter = FanoutCommand.CpusConverter.class,
        description = "CPU pinning of the driver's busy threads: auto, none or a CPU list (see the fanout's --cpus).")
    CpuSelection cpus;

    @Option(names = "--idle-strategy", defaultValue = Defaults.IDLE_STRATEGY,
        converter = FanoutCommand.IdleStrategyConverter.class,
        description = "What the driver's threads do when idle: backoff, park (backoff without yields, for cores " +
            "shared with busy threads), yield, busy-spin or sleep (busy-spin and yield only on pinned cores: auto " +
            "pinning on too few CPUs falls back to backoff); Agrona's aliases noop, spin, sleep-ns and sleep-ms too.")
    IdleStrategyType idleStrategy;

    @Option(names = "--idle-max-park-us", defaultValue = Defaults.IDLE_MAX_PARK_US_STRING,
        description = "Longest park of the backoff and park idle strategies (the park of sleep), in microseconds.")
    long idleMaxParkUs;

    @Mixin
    MetricsOptions metrics;

    /** {@inheritDoc} */
    public Integer call()
    {
        final PrintStream err = System.err;
        if (null != deprecatedThreading)
        {
            err.println("media-driver: --threading is deprecated, use --driver-threading");
            threading = deprecatedThreading;
        }
        try
        {
            metrics.validate();
            validateTermLength(termLength);
            if (idleMaxParkUs < 1 || idleMaxParkUs > TimeUnit.SECONDS.toMicros(1))
            {
                throw new IllegalArgumentException("--idle-max-park-us must be 1 to 1000000: " + idleMaxParkUs);
            }
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("media-driver: " + ex.getMessage());
            return ExitCodes.CONFIG;
        }

        AffinityPlan plan = AffinityPlan.forThisProcess("media-driver", cpus, busyThreads(threading), err);
        ThreadingMode mode = threading;
        // Too few CPUs to pin: a spinning driver would fight the fanout and the OS for them, so back off.
        final IdleStrategyType runIdleStrategy = plan.fellBackToShared() ? idleStrategy.onSharedCores() : idleStrategy;
        if (plan.fellBackToShared() && ThreadingMode.SHARED != mode)
        {
            // Not enough CPUs of our own for one thread each: one shared, backing-off thread.
            mode = ThreadingMode.SHARED;
            plan = AffinityPlan.forThisProcess("media-driver", CpuSelection.NONE, SHARED_THREADS, err);
        }
        err.println(plan.startupLine());

        final MediaDriver.Context context = DriverContexts.newContext(
            aeronDirectoryName, mode, termLength, throwable -> err.println("media-driver: error: " + throwable),
            runIdleStrategy, TimeUnit.MICROSECONDS.toNanos(idleMaxParkUs));
        DriverContexts.applyThreadFactories(context, mode, plan::threadFactory);

        MediaDriver driver = null;
        MetricsServer metricsServer = null;
        try (ShutdownSignalBarrier barrier = new ShutdownSignalBarrier();
            StopSignals.Registration stopRegistration = StopSignals.onStop(barrier::signal))
        {
            driver = MediaDriver.launch(context);
            err.println("media-driver: running aeronDir=" + driver.aeronDirectoryName() + " threading=" +
                mode.name().toLowerCase().replace('_', '-') + " termLength=" + termLength + " idle=" +
                runIdleStrategy.cliName() + "(maxPark=" + idleMaxParkUs + "us)");
            if (metrics.enabled())
            {
                final MediaDriver running = driver;
                final PrometheusRegistry registry = new PrometheusRegistry();
                registry.register(new AeronCountersCollector(() -> running.context().countersManager()));
                metricsServer = MetricsServer.start("media-driver", metrics, registry);
                err.println("media-driver: metrics: " + metricsServer.url());
            }
            barrier.await();
            // Close before the barrier is released: its shutdown hook holds the JVM until then,
            // so the directory is removed before the process exits.
            CloseHelper.quietCloseAll(metricsServer, driver);
            metricsServer = null;
            driver = null;
            err.println("media-driver: stopped");
            return ExitCodes.OK;
        }
        catch (final RuntimeException ex)
        {
            err.println("media-driver: error: " + ex.getMessage());
            return ExitCodes.of(ex);
        }
        finally
        {
            CloseHelper.quietCloseAll(metricsServer, driver);
        }
    }

    static List<String> busyThreads(final ThreadingMode mode)
    {
        return switch (mode)
        {
            case DEDICATED -> DEDICATED_THREADS;
            case SHARED_NETWORK -> SHARED_NETWORK_THREADS;
            default -> SHARED_THREADS;
        };
    }

    private static void validateTermLength(final int termLength)
    {
        if (termLength < 64 * 1024 || termLength > 1024 * 1024 * 1024 || Integer.bitCount(termLength) != 1)
        {
            throw new IllegalArgumentException("--term-length-bytes must be a power of two from 64 KiB to 1 GiB: " +
                termLength);
        }
    }

    /**
     * Run the command on its own.
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new MediaDriverCommand()).execute(args));
    }
}
