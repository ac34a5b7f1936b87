package io.mdfanout.fanout;

import io.aeron.driver.ThreadingMode;
import io.mdfanout.affinity.AffinityPlan;
import io.mdfanout.affinity.CpuSelection;
import io.mdfanout.metrics.AeronCountersCollector;
import io.mdfanout.metrics.AffinityCollector;
import io.mdfanout.metrics.CncCounters;
import io.mdfanout.metrics.CountersCollector;
import io.mdfanout.metrics.MetricsOptions;
import io.mdfanout.metrics.MetricsServer;
import io.mdfanout.wire.Defaults;
import io.mdfanout.wire.ExitCodes;
import io.mdfanout.wire.FeedStream;
import io.mdfanout.wire.IdleStrategyType;
import io.mdfanout.wire.StopSignals;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.agrona.concurrent.ShutdownSignalBarrier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@code fanout} subcommand: runs a {@link Fanout} until SIGINT or SIGTERM (or a fatal
 * publication error), printing a one-line counters summary to stderr every
 * {@code --stats-interval-s}. Exit status: 0 after a signal, 1 on a runtime failure, 2 on
 * invalid options.
 */
@Command(
    name = "fanout",
    mixinStandardHelpOptions = true,
    showDefaultValues = true,
    description = "Drain the feed handler's partition ring buffers and publish them as batched SBE packets " +
        "on Aeron (one stream per partition), with heartbeats when idle; keep each partition's books in a " +
        "memory-mapped state file that survives a restart and publish periodic snapshots on a snapshot stream.")
public final class FanoutCommand implements Callable<Integer>
{
    private static final long MONITOR_INTERVAL_MS = 100;

    @Option(names = "--ring-dir", defaultValue = Defaults.RING_DIR,
        description = "Directory of the partition ring files (the feed handler's --ring-dir).")
    Path ringDirectory;

    @Option(names = "--partitions", defaultValue = Defaults.PARTITION_COUNT_STRING,
        description = "Number of partitions: rings to drain and streams to publish; must match the feed handler.")
    int partitions;

    @Option(names = "--channel", defaultValue = Defaults.CHANNEL,
        description = "Aeron channel every partition stream is published on.")
    String channel;

    @Option(names = "--stream-id-base", defaultValue = Defaults.STREAM_ID_BASE_STRING,
        description = "Stream id of partition 0; partition p is published on base + p.")
    int streamIdBase;

    @Option(names = "--aeron-dir",
        description = "Directory of an external media driver; absent: an embedded driver in a temporary directory.")
    String aeronDirectoryName;

    @Option(names = "--driver-threading", defaultValue = "shared", converter = DriverThreadingConverter.class,
        description = "Threading of the embedded media driver: shared, shared-network, dedicated, or invoker (run " +
            "by the publisher thread between ring drains: one busy thread in all, for machines with few cores; " +
            "needs --threading shared).")
    ThreadingMode driverThreading;

    @Option(names = "--threading", defaultValue = "shared", converter = ThreadingConverter.class,
        description = "Publisher threads: shared (all partitions on one thread) or dedicated (one per partition).")
    FanoutThreading threading;

    @Option(names = "--idle-strategy", defaultValue = Defaults.IDLE_STRATEGY, converter = IdleStrategyConverter.class,
        description = "What the publisher threads and the embedded driver's threads do when idle: backoff, park " +
            "(backoff without yields, for cores shared with busy threads), yield, busy-spin or sleep (busy-spin and " +
            "yield only on pinned cores: auto pinning on too few CPUs falls back to backoff); Agrona's aliases noop, " +
            "spin, sleep-ns and sleep-ms too.")
    IdleStrategyType idleStrategy;

    @Option(names = "--idle-max-park-us", defaultValue = Defaults.IDLE_MAX_PARK_US_STRING,
        description = "Longest park of the backoff and park idle strategies (spin, yield, then park from 1 us " +
            "doubling up to this; the park of sleep), in microseconds, for publishers and the embedded driver: the " +
            "most a message waits at each idle thread.")
    long idleMaxParkUs;

    @Option(names = "--heartbeat-interval-ms", defaultValue = "250",
        description = "Send a heartbeat on a stream that has sent nothing for this long.")
    long heartbeatIntervalMs;

    @Option(names = "--source-timeout-ms", defaultValue = "" + SourceMonitor.DEFAULT_SOURCE_TIMEOUT_MS,
        description = "Report the source down (in every heartbeat to the subscribers and in the metrics) when the " +
            "feed handler's heartbeat in the ring header is older than this: " + SourceMonitor.MIN_SOURCE_TIMEOUT_MS +
            ".." + SourceMonitor.MAX_SOURCE_TIMEOUT_MS + " ms. Keep it plus --heartbeat-interval-ms well under the " +
            "subscribers' silent timeout (2 s by default).")
    long sourceTimeoutMs;

    @Option(names = "--term-length-bytes", defaultValue = "" + FanoutConfig.DEFAULT_TERM_LENGTH,
        description = "Publication term length: a power of two from 64 KiB to 1 GiB (a term-length in --channel wins).")
    int termLength;

    @Option(names = "--ring-wait-timeout-s", defaultValue = "30",
        description = "How long to wait at start for the feed handler to create the ring files.")
    long ringWaitTimeoutS;

    @Option(names = "--ring-read-limit", defaultValue = "" + FanoutConfig.DEFAULT_RING_READ_LIMIT,
        description = "Most ring records a publisher consumes per duty cycle.")
    int ringReadLimit;

    @Option(names = "--state-dir",
        description = "Directory of the memory-mapped partition state files (partition-<n>.state); " +
        "absent: <ring-dir>/" + FanoutConfig.DEFAULT_STATE_DIRECTORY_NAME + ".")
    Path stateDirectory;

    @Option(names = "--max-orders", defaultValue = "" + FanoutConfig.DEFAULT_MAX_ORDERS,
        description = "Live orders the state of one partition holds (the file is sparse); must match existing state " +
        "files. Adds beyond it are counted and rejected.")
    int maxOrders;

    @Option(names = "--state-pretouch", negatable = true, defaultValue = "true", fallbackValue = "true",
        description = "Touch every page of the state files at start (they become resident at their full size), so " +
        "that no page fault stalls the message path later; --no-state-pretouch keeps them sparse.")
    boolean statePretouch;

    @Option(names = "--snapshot-interval-ms", defaultValue = "1000",
        description = "Start a snapshot of each partition this often (only while a snapshot subscriber is " +
        "connected); 0 = no snapshots.")
    long snapshotIntervalMs;

    @Option(names = "--no-state-upkeep", hidden = true, // benchmark-only: bench/README.md
        description = "Benchmark-only: publish without applying messages to the partitions' states and without " +
            "snapshots, to measure what the state upkeep costs the chain. Never in production: late joiners cannot " +
            "recover.")
    boolean noStateUpkeep;

    @Option(names = "--snapshot-channel",
        description = "Aeron channel of the snapshot streams; absent: the same as --channel.")
    String snapshotChannel;

    @Option(names = "--side", defaultValue = "A",
        description = "Which side of a pair this fanout is (docs/DEPLOYMENT.md, pairs): A publishes on --channel, B on " +
            "--side-b-channel; 0 and 1 (a StatefulSet pod's index) mean A and B.")
    String side;

    @Option(names = "--side-b-channel",
        description = "A pair's side B: the Aeron channel it publishes on instead of --channel when --side is B.")
    String sideBChannel;

    @Option(names = "--side-b-snapshot-channel",
        description = "A pair's side B: its snapshot channel; absent: --side-b-channel.")
    String sideBSnapshotChannel;

    @Option(names = "--snapshot-stream-id-base",
        description = "Stream id of partition 0's snapshot stream; partition p uses base + p. Absent: " +
        "--stream-id-base + 10000.")
    Integer snapshotStreamIdBase;

    @Option(names = "--snapshot-bytes-per-cycle", defaultValue = "" + FanoutConfig.DEFAULT_SNAPSHOT_BYTES_PER_CYCLE,
        description = "Bytes of whole instruments a snapshot captures per duty cycle, so the incremental stream " +
        "never waits (an instrument larger than this still goes whole).")
    int snapshotBytesPerCycle;

    @Option(names = "--derived-streams", split = ",", paramLabel = "STREAM",
        description = "Derived streams to publish besides the MBO stream, each on streams of its own (docs/WIRE.md): " +
        "bbo, mbp-10, trades, ohlcv, or none (the default).")
    List<String> derivedStreams;

    @Option(names = "--derived-term-length-bytes", defaultValue = "0",
        description = "Term length of the derived streams' publications (a power of two, 64 KiB to 1 GiB); 0 (the " +
        "default): --term-length-bytes. Each derived stream of each partition maps two publications of three terms.")
    int derivedTermLength;

    @Option(names = "--cpus", defaultValue = "auto", converter = CpusConverter.class,
        description = "CPU pinning of the busy threads (publishers, embedded driver): auto = one CPU each from the " +
        "allowed set, leaving its first CPU to the JVM and OS, when it has busy threads + 1 CPUs, otherwise " +
        "everything runs shared with backoff idle strategies, unpinned; none = never pin; or a CPU list like " +
        "2,3,5-7 (one per busy thread, in ascending order).")
    CpuSelection cpus;

    @Option(names = "--stats-interval-s", defaultValue = "5",
        description = "Print a one-line counters summary to stderr this often; 0 = never.")
    long statsIntervalS;

    @Mixin
    MetricsOptions metrics;

    /**
     * Run the fanout until SIGINT or SIGTERM.
     *
     * @return an {@link ExitCodes} code: OK after a signal, FAILURE on a runtime failure, CONFIG on invalid options.
     */
    public Integer call()
    {
        final PrintStream err = System.err;
        final FanoutConfig config;
        final AffinityPlan affinityPlan;
        try
        {
            config = toConfig().validate();
            affinityPlan = Fanout.planAffinity(config);
            if (snapshotIntervalMs < 0)
            {
                throw new IllegalArgumentException("--snapshot-interval-ms must not be negative");
            }
            if (statsIntervalS < 0)
            {
                throw new IllegalArgumentException("--stats-interval-s must not be negative");
            }
            metrics.validate();
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("fanout: " + ex.getMessage());
            return ExitCodes.CONFIG;
        }
        err.println(affinityPlan.startupLine());
        if (config.sourceTimeoutReachesSilentTimeout())
        {
            err.println("fanout: warning: --source-timeout-ms " + sourceTimeoutMs + " + --heartbeat-interval-ms " +
                heartbeatIntervalMs + " reach the subscribers' default silent timeout (" +
                TimeUnit.NANOSECONDS.toMillis(FanoutConfig.SUBSCRIBER_SILENT_TIMEOUT_NS) +
                " ms): they learn of a dead feed handler no sooner than of a dead fanout");
        }

        final Thread mainThread = Thread.currentThread();
        final AtomicBoolean starting = new AtomicBoolean(true);
        final AtomicBoolean signalled = new AtomicBoolean();
        try (ShutdownSignalBarrier barrier = new ShutdownSignalBarrier(() ->
        {
            signalled.set(true);
            if (starting.get())
            {
                mainThread.interrupt(); // abandon the wait for the ring files
            }
        });
            StopSignals.Registration stopRegistration = StopSignals.onStop(barrier::signal))
        {
            if (signalled.get())
            {
                Thread.interrupted(); // the signal came as the JVM started, and its handler interrupted this thread
                err.println("fanout: stopped during start-up");
                return ExitCodes.OK;
            }
            final Fanout fanout;
            try
            {
                fanout = new Fanout(config);
            }
            catch (final Exception ex) // interrupted, Aeron may rethrow a checked ClosedByInterruptException unchecked
            {
                if (signalled.get())
                {
                    err.println("fanout: stopped during start-up");
                    return ExitCodes.OK;
                }
                err.println("fanout: " + ex.getMessage());
                return ExitCodes.of(ex); // options that disagree with the rings: configuration
            }
            finally
            {
                starting.set(false);
                Thread.interrupted();
            }

            try (fanout; MetricsServer ignored = startMetrics(fanout, err))
            {
                err.println("fanout: running " + config + " " + fanout.stateDescription() +
                    " mediaDriverDir=" + fanout.aeronDirectoryName());
                final Thread monitor = new Thread(() -> monitor(fanout, barrier, err), "fanout-monitor");
                monitor.setDaemon(true);
                monitor.start();

                barrier.await();
                Thread.interrupted();
                monitor.interrupt();
                joinQuietly(monitor);

                if (fanout.hasFailed())
                {
                    err.println("fanout: stopped after a publication failure");
                    return ExitCodes.FAILURE;
                }
                err.println("fanout: stopped");
                return ExitCodes.OK;
            }
        }
        catch (final RuntimeException ex)
        {
            err.println("fanout: " + ex.getMessage());
            return ExitCodes.of(ex);
        }
    }

    private MetricsServer startMetrics(final Fanout fanout, final PrintStream err)
    {
        if (!metrics.enabled())
        {
            return null;
        }
        // Read at scrape time: the fanout's counters buffers and the media driver's CnC file.
        final CncCounters driverCounters = CncCounters.map(fanout.aeronDirectoryName());
        final PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new CountersCollector(fanout.countersReader()));
        registry.register(new AeronCountersCollector(driverCounters::reader));
        registry.register(new AffinityCollector(fanout.affinityPlan()));
        final MetricsServer server;
        try
        {
            server = MetricsServer.start("fanout", metrics, registry, fanout::notReadyReason);
        }
        catch (final RuntimeException ex)
        {
            driverCounters.close();
            throw ex;
        }
        err.println("fanout: metrics: " + server.url());
        return server.closeAfter(driverCounters);
    }

    /** @return true when this fanout is side B of a pair; a one-line error for a side that is not A, B, 0 or 1. */
    boolean isSideB()
    {
        final boolean sideB;
        switch (null == side ? "A" : side.trim().toUpperCase(java.util.Locale.ROOT))
        {
            case "A", "0" -> sideB = false;
            case "B", "1" -> sideB = true;
            default -> throw new IllegalArgumentException(
                "--side must be A or B (or a pod index, 0 or 1): " + side);
        }
        if (sideB && null == sideBChannel)
        {
            throw new IllegalArgumentException("--side " + side + " needs --side-b-channel: the channel side B publishes on");
        }
        return sideB;
    }

    /** The --derived-streams names as streams; "none" alone for none; a wrong name is a clear error. */
    FeedStream[] derivedStreams()
    {
        final List<FeedStream> streams = new ArrayList<>();
        if (null != derivedStreams)
        {
            for (final String name : derivedStreams)
            {
                if ("none".equalsIgnoreCase(name.trim()) && 1 == derivedStreams.size())
                {
                    break;
                }
                final FeedStream stream;
                try
                {
                    stream = FeedStream.fromName(name);
                }
                catch (final IllegalArgumentException ex)
                {
                    throw new IllegalArgumentException("--derived-streams: unknown stream '" + name + "': one of " +
                        FanoutConfig.derivedStreamNames() + ", or none");
                }
                streams.add(stream);
            }
        }
        return streams.toArray(new FeedStream[0]);
    }

    FanoutConfig toConfig()
    {
        final boolean sideB = isSideB();
        return new FanoutConfig()
            .ringDirectory(ringDirectory)
            .partitionCount(partitions)
            .channel(sideB ? sideBChannel : channel)
            .streamIdBase(streamIdBase)
            .aeronDirectoryName(aeronDirectoryName)
            .driverThreadingMode(driverThreading)
            .threading(threading)
            .idleStrategy(idleStrategy)
            .idleMaxParkNs(TimeUnit.MICROSECONDS.toNanos(idleMaxParkUs))
            .heartbeatIntervalNs(TimeUnit.MILLISECONDS.toNanos(heartbeatIntervalMs))
            .sourceTimeoutNs(TimeUnit.MILLISECONDS.toNanos(sourceTimeoutMs))
            .termLength(termLength)
            .ringWaitTimeoutNs(TimeUnit.SECONDS.toNanos(ringWaitTimeoutS))
            .ringReadLimit(ringReadLimit)
            .stateDirectory(stateDirectory)
            .maxOrders(maxOrders)
            .statePretouch(statePretouch)
            .snapshotIntervalNs(TimeUnit.MILLISECONDS.toNanos(snapshotIntervalMs))
            .stateUpkeep(!noStateUpkeep)
            .snapshotChannel(sideB ? sideBSnapshotChannel : snapshotChannel)
            .snapshotStreamIdBase(null != snapshotStreamIdBase ?
                snapshotStreamIdBase : FanoutConfig.SNAPSHOT_STREAM_ID_BASE_DEFAULT)
            .snapshotBytesPerCycle(snapshotBytesPerCycle)
            .derivedStreams(derivedStreams())
            .derivedTermLength(derivedTermLength)
            .cpus(null != cpus ? cpus : CpuSelection.AUTO);
    }

    /** Watch for a fatal publisher failure (then release the barrier) and print stats periodically. */
    private void monitor(final Fanout fanout, final ShutdownSignalBarrier barrier, final PrintStream err)
    {
        final long statsIntervalMs = TimeUnit.SECONDS.toMillis(statsIntervalS);
        final FanoutStats stats = new FanoutStats(fanout);
        long nextStatsMs = System.currentTimeMillis() + statsIntervalMs;
        try
        {
            while (!Thread.currentThread().isInterrupted())
            {
                Thread.sleep(MONITOR_INTERVAL_MS);
                if (fanout.hasFailed())
                {
                    barrier.signal();
                    return;
                }
                final String sourceChange = stats.sourceChange();
                if (null != sourceChange)
                {
                    err.println(sourceChange);
                }
                final long nowMs = System.currentTimeMillis();
                if (statsIntervalMs > 0 && nowMs >= nextStatsMs)
                {
                    err.println(stats.line(nowMs));
                    nextStatsMs = nowMs + statsIntervalMs;
                }
            }
        }
        catch (final InterruptedException ignore)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static void joinQuietly(final Thread thread)
    {
        try
        {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        }
        catch (final InterruptedException ignore)
        {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Run the command on its own (the project's single entry point is the {@code mdfanout} CLI).
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new FanoutCommand()).execute(args));
    }

    /** Parses --driver-threading names into Aeron's ThreadingMode. */
    static final class DriverThreadingConverter implements CommandLine.ITypeConverter<ThreadingMode>
    {
        public ThreadingMode convert(final String value)
        {
            return parse(ThreadingMode.class, value);
        }
    }

    /** Parses --threading names. */
    static final class ThreadingConverter implements CommandLine.ITypeConverter<FanoutThreading>
    {
        public FanoutThreading convert(final String value)
        {
            return parse(FanoutThreading.class, value);
        }
    }

    /** Parses --cpus: auto, none or a CPU list. */
    static final class CpusConverter implements CommandLine.ITypeConverter<CpuSelection>
    {
        public CpuSelection convert(final String value)
        {
            try
            {
                return CpuSelection.parse(value);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new CommandLine.TypeConversionException(ex.getMessage());
            }
        }
    }

    /** Parses --idle-strategy names. */
    static final class IdleStrategyConverter implements CommandLine.ITypeConverter<IdleStrategyType>
    {
        public IdleStrategyType convert(final String value)
        {
            try
            {
                return IdleStrategyType.parse(value);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new CommandLine.TypeConversionException(ex.getMessage());
            }
        }
    }

    private static <E extends Enum<E>> E parse(final Class<E> type, final String value)
    {
        try
        {
            return EnumNames.parse(type, value);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new CommandLine.TypeConversionException(ex.getMessage());
        }
    }
}
