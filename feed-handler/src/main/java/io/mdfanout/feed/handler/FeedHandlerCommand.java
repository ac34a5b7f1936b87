package io.mdfanout.feed.handler;

import io.mdfanout.affinity.AffinityPlan;
import io.mdfanout.affinity.CpuSelection;
import io.mdfanout.feed.glimpse.GlimpseClient;
import io.mdfanout.feed.glimpse.GlimpseClientConfig;
import io.mdfanout.feed.glimpse.GlimpseException;
import io.mdfanout.feed.glimpse.GlimpseResult;
import io.mdfanout.feed.normalize.PartitionRingSet;
import io.mdfanout.metrics.AffinityCollector;
import io.mdfanout.metrics.CountersCollector;
import io.mdfanout.metrics.LatencyHistogram;
import io.mdfanout.metrics.MetricsOptions;
import io.mdfanout.metrics.MetricsServer;
import io.mdfanout.metrics.RingCollector;
import io.mdfanout.wire.ConfigurationException;
import io.mdfanout.wire.Defaults;
import io.mdfanout.wire.ExitCodes;
import io.mdfanout.wire.IdleStrategyType;
import io.mdfanout.wire.RingSetHeader;
import io.mdfanout.wire.RoleErrorLog;
import io.mdfanout.wire.StopSignals;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Labels;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.ShutdownSignalBarrier;
import org.agrona.concurrent.SystemEpochClock;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code feed-handler}: receive a MoldUDP64/ITCH 5.0 multicast feed (line A, optionally a
 * redundant line B arbitrated by sequence, gaps recovered from a re-request server) and write
 * normalized SBE messages into the partition rings until SIGINT/SIGTERM.
 * <p>
 * The ring directory is locked for as long as it runs (a second feed handler on it is refused). Rings
 * of the same layout are re-attached at start and the feed continues after the last sequence they
 * committed (the outage is requested from the re-request server); otherwise a new generation of
 * rings is created. The files are NOT deleted on exit: the fanout may still be draining them.
 */
@Command(
    name = "feed-handler",
    mixinStandardHelpOptions = true,
    showDefaultValues = true,
    description = "Receive NASDAQ ITCH 5.0 over MoldUDP64 multicast (A/B line arbitration, gap recovery by " +
        "MoldUDP64 re-request) and normalize it into partition ring buffers. The ring directory is locked while it runs; " +
        "rings of the same layout are re-attached at start and the feed continues after their last committed sequence; " +
        "ring files are left in place on exit (the fanout may still drain them).")
public final class FeedHandlerCommand implements Callable<Integer>
{
    /**
     * How often a feed handler starting with {@code --glimpse} tries a GLIMPSE server it cannot reach: briefly, since
     * the feed's packets wait in the socket buffers meanwhile.
     */
    static final long GLIMPSE_START_RETRY_INTERVAL_MS = 1_000;

    /** The busy thread of the feed handler in its CPU plan: receives both lines, arbitrates, decodes, normalizes. */
    public static final String RECEIVE_THREAD = "feed-receive";

    @Option(names = "--group", defaultValue = FeedHandlerConfig.DEFAULT_GROUP,
        description = "Multicast group of the MoldUDP64 feed.")
    String group;

    @Option(names = "--port", defaultValue = "" + FeedHandlerConfig.DEFAULT_PORT,
        description = "UDP port of the feed.")
    int port;

    @Option(names = "--interface", defaultValue = FeedHandlerConfig.DEFAULT_INTERFACE,
        description = "IPv4 address of the local interface to join the group on.")
    String interfaceAddress;

    @Option(names = "--session",
        description = "MoldUDP64 session to accept (up to 10 characters); default: adopt the first session seen.")
    String session;

    @Mixin
    RingOptions rings;

    @Option(names = "--idle-strategy", defaultValue = Defaults.IDLE_STRATEGY,
        description = "Idle strategy of the receive thread: backoff, park (backoff without yields, for cores shared " +
            "with busy threads), yield or busy-spin (busy-spin only on a pinned core); also sleep and Agrona's " +
            "aliases noop, spin, sleep-ns and sleep-ms.")
    String idleStrategy;

    @Option(names = "--idle-max-park-us", defaultValue = Defaults.IDLE_MAX_PARK_US_STRING,
        description = "Longest park of the backoff and park idle strategies (spin, yield, then park from 1 us " +
            "doubling up to this), in microseconds: the most a datagram waits for an idle receive thread to wake.")
    long idleMaxParkUs;

    @Option(names = "--rcvbuf-bytes", defaultValue = "" + FeedHandlerConfig.DEFAULT_RCVBUF_BYTES,
        description = "SO_RCVBUF to request (capped by net.core.rmem_max).")
    int receiveBufferBytes;

    @Option(names = "--group-b",
        description = "Multicast group of line B (the redundant feed); absent: single line A.")
    String groupB;

    @Option(names = "--port-b", defaultValue = "0",
        description = "UDP port of line B (required with --group-b).")
    int portB;

    @Option(names = "--interface-b",
        description = "IPv4 address of the local interface to join line B on; default: the --interface one.")
    String interfaceAddressB;

    @Option(names = "--source",
        description = "IPv4 address of the exchange's sender: join line A for that source only (source-specific " +
            "multicast), so no other sender on the group reaches the feed; absent: any sender.")
    String source;

    @Option(names = "--source-b",
        description = "The same for line B.")
    String sourceB;

    @Option(names = "--retransmit-server",
        description = "MoldUDP64 re-request server as HOST:PORT; absent: no requests, gaps are declared " +
            "after --gap-wait-ms.")
    String retransmitServer;

    @Option(names = "--gap-wait-ms", defaultValue = "" + FeedHandlerConfig.DEFAULT_GAP_WAIT_MS,
        description = "How long a gap may wait for the other line before it is requested (or declared).")
    int gapWaitMs;

    @Option(names = "--retransmit-timeout-ms", defaultValue = "" + FeedHandlerConfig.DEFAULT_RETRANSMIT_TIMEOUT_MS,
        description = "Silence after which a retransmission request is sent again, from the first sequence still " +
            "missing: of the request and (unless the server answers one packet a request) of the server.")
    int retransmitTimeoutMs;

    @Option(names = "--recovery-silence-budget-ms",
        defaultValue = "" + FeedHandlerConfig.DEFAULT_RECOVERY_SILENCE_BUDGET_MS,
        description = "Give a gap up (declare it) when nothing of it arrived for this long while the re-request " +
            "server was silent as long (or for four times this long whatever the server did); never while its " +
            "fills arrive. At least --retransmit-timeout-ms.")
    int recoverySilenceBudgetMs;

    @Option(names = "--max-outstanding-requests",
        defaultValue = "" + FeedHandlerConfig.DEFAULT_MAX_OUTSTANDING_REQUESTS,
        description = "Most retransmission requests outstanding at once.")
    int maxOutstandingRequests;

    @Option(names = "--max-requests-per-second",
        defaultValue = "" + FeedHandlerConfig.DEFAULT_MAX_REQUESTS_PER_SECOND,
        description = "Most retransmission requests sent per second, retries included.")
    int maxRequestsPerSecond;

    @Option(names = "--max-held-messages", defaultValue = "" + FeedHandlerConfig.DEFAULT_MAX_HELD_MESSAGES,
        description = "Bound of the messages held behind an open gap (64 bytes each, allocated at start); " +
            "beyond it the oldest gap is declared.")
    int maxHeldMessages;

    @Option(names = "--line-silence-ms", defaultValue = "" + FeedHandlerConfig.DEFAULT_LINE_SILENCE_MS,
        description = "A line with no packet (heartbeats count) for this long is reported silent, once, and " +
            "reported again when it recovers.")
    int lineSilenceMs;

    @Option(names = "--ring-full-wait-ms", defaultValue = "" + FeedHandlerConfig.DEFAULT_RING_FULL_WAIT_MS,
        description = "A partition ring full for this long (nothing drains it: the fanout is down or stalled) stops " +
            "the writes: the feed handler reads its sockets on and, once the rings drain, requests what it could not " +
            "write from the re-request server (or declares it as a gap) rather than stalling silently.")
    int ringFullWaitMs;

    @Option(names = "--glimpse",
        description = "The exchange's GLIMPSE 5.0 snapshot service as HOST:PORT (SoupBinTCP). A feed handler that " +
            "starts with no rings to re-attach to (a new pod mid-session) loads the snapshot (directory, trading " +
            "states, every open order) into a new generation of rings and continues the MoldUDP64 stream at the " +
            "snapshot's sequence; absent: it requests what the re-request server can give and declares the rest. " +
            "Mid-session, when re-requests could not fill a gap, it is declared (subscribers stale with " +
            "EXCHANGE_GAP) and the rings are rebuilt from the snapshot in a new generation, which the fanout " +
            "follows: subscribers recover to exact books.")
    String glimpse;

    @Option(names = "--glimpse-username", defaultValue = GlimpseClientConfig.DEFAULT_USERNAME,
        description = "SoupBinTCP username for --glimpse (up to 6 characters).")
    String glimpseUsername;

    @Option(names = "--glimpse-password",
        description = "SoupBinTCP password for --glimpse (up to 10 characters). Visible in ps and in a pod's spec: " +
            "prefer --glimpse-password-file or the environment variable " + GlimpseClientConfig.PASSWORD_ENV + ".")
    String glimpsePassword;

    @Option(names = "--glimpse-password-file",
        description = "File holding the SoupBinTCP password for --glimpse (its first line; a mounted Kubernetes " +
            "Secret). Without it or --glimpse-password: the environment variable " +
            GlimpseClientConfig.PASSWORD_ENV + ", else blank.")
    Path glimpsePasswordFile;

    @Option(names = "--glimpse-timeout-ms", defaultValue = "" + GlimpseClientConfig.DEFAULT_TIMEOUT_MS,
        description = "Longest a GLIMPSE snapshot load may take, connection included, before the start fails.")
    long glimpseTimeoutMs;

    @Option(names = "--cpus", defaultValue = "auto", converter = CpusConverter.class,
        description = "CPU pinning of the receive/decode thread: auto = pin it to the second CPU of the allowed set " +
            "when it has 2 or more (the first stays with the JVM and OS), otherwise run it unpinned with the backoff " +
            "idle strategy; none = never pin; or a CPU list like 3 (its first CPU is used).")
    CpuSelection cpus;

    @Option(names = "--stats-interval-s", defaultValue = "5",
        description = "Seconds between counter lines on stderr; 0 = off.")
    int statsIntervalS;

    @Option(names = "--stamp-receive-time", hidden = true, // benchmark-only: docs/BENCHMARKS.md
        description = "Benchmarking: publish each message with the time its datagram was received (ns since " +
            "midnight UTC) as exchangeTimestamp instead of the exchange's, so that a subscriber measures latency " +
            "from the feed handler's receive (see the latency tool). Never in production: it replaces exchange data.")
    boolean stampReceiveTime;

    @Mixin
    MetricsOptions metrics;

    /**
     * Run until signalled.
     *
     * @return 0 after a clean stop, 1 when the feed cannot be opened, 2 for a wrong configuration.
     */
    public Integer call()
    {
        final FeedHandlerConfig config;
        final AffinityPlan affinityPlan;
        try
        {
            if (statsIntervalS < 0)
            {
                throw new IllegalArgumentException("--stats-interval-s must be 0 or more: " + statsIntervalS);
            }
            metrics.validate();
            config = new FeedHandlerConfig()
                .group(group)
                .port(port)
                .interfaceAddress(interfaceAddress)
                .session(session)
                .ringDir(rings.ringDir())
                .partitions(rings.partitions())
                .ringCapacity(rings.ringCapacity())
                .idleStrategy(IdleStrategyType.parse(idleStrategy))
                .idleMaxParkNs(TimeUnit.MICROSECONDS.toNanos(idleMaxParkUs))
                .stampReceiveTime(stampReceiveTime)
                .receiveBufferBytes(receiveBufferBytes)
                .groupB(groupB)
                .portB(portB)
                .interfaceAddressB(interfaceAddressB)
                .source(source)
                .sourceB(sourceB)
                .retransmitServer(retransmitServer)
                .gapWaitMs(gapWaitMs)
                .retransmitTimeoutMs(retransmitTimeoutMs)
                .recoverySilenceBudgetMs(recoverySilenceBudgetMs)
                .maxOutstandingRequests(maxOutstandingRequests)
                .maxRequestsPerSecond(maxRequestsPerSecond)
                .maxHeldMessages(maxHeldMessages)
                .lineSilenceMs(lineSilenceMs)
                .ringFullWaitMs(ringFullWaitMs)
                .cpus(cpus)
                .validate();
            if (null != glimpse)
            {
                GlimpseClient.parseAddress(glimpse);
                glimpseConfig().validate();
            }
            affinityPlan = AffinityPlan.forThisProcess("feed-handler", config.cpus(), List.of(RECEIVE_THREAD), System.err);
        }
        catch (final IllegalArgumentException | ConfigurationException ex) // the latter: an unreadable password file
        {
            System.err.println("feed-handler: error: " + ex.getMessage());
            return ExitCodes.CONFIG;
        }
        System.err.println(affinityPlan.startupLine());
        // Too few CPUs to pin, or none to spare: a spinning thread would fight the JVM (and other roles), so back off.
        final IdleStrategyType runIdleStrategy = affinityPlan.mustBackOff() ?
            config.idleStrategy().onSharedCores() : config.idleStrategy();
        if (runIdleStrategy != config.idleStrategy())
        {
            System.err.println("feed-handler: idle strategy " + runIdleStrategy.cliName() + " (" +
                config.idleStrategy().cliName() + " asked; the receive thread shares its CPU)");
        }

        final RoleErrorLog errorLog = RoleErrorLog.open(
            config.ringDir(), "feed-handler", (throwable) -> System.err.println("feed-handler: error: " + throwable));
        // The barrier is closed last: its shutdown hook holds the JVM until everything below is released. SIGTERM and
        // SIGINT signal it without a JVM shutdown (StopSignals), so the role returns its own exit code.
        final AtomicBoolean stopRequested = new AtomicBoolean();
        try (ShutdownSignalBarrier barrier = new ShutdownSignalBarrier();
            StopSignals.Registration stopRegistration = StopSignals.onStop(() ->
            {
                stopRequested.set(true);
                barrier.signal();
            }))
        {
            PartitionRingSet rings = null;
            AgentRunner runner = null;
            Thread statsThread = null;
            MetricsServer metricsServer = null;
            try
            {
                rings = new PartitionRingSet(config.ringDir(), config.partitions(), config.ringCapacity(),
                    "feed-handler", PartitionRingSet.Mode.RESUME, config.session());
                System.err.println("feed-handler: rings: " + rings.describe());
                final InMemoryCounters counters = new InMemoryCounters(256);
                final LatencyHistogram receiveLatency = metrics.enabled() ? newReceiveLatency() : null;
                final FeedHandlerAgent agent = new FeedHandlerAgent(
                    config, rings, counters.countersManager(), receiveLatency);
                // Scrapes are answered from here on: while a GLIMPSE snapshot loads, or its server is tried again,
                // the feed handler is at work, not a target down.
                metricsServer = startMetrics(counters, rings, receiveLatency, affinityPlan, new FeedReadiness(
                    rings.header(), agent.arbitrationCounters().messagesHeld(), SystemEpochClock.INSTANCE));
                if (null != glimpse)
                {
                    if (!loadGlimpse(rings, agent, stopRequested))
                    {
                        System.err.println("feed-handler: stopping before the GLIMPSE snapshot was loaded");
                        return ExitCodes.OK;
                    }
                    agent.rebuildFrom((listener) -> new GlimpseClient(glimpseConfig()).load(glimpse, listener));
                }
                runner = new AgentRunner(
                    runIdleStrategy.newIdleStrategy(config.idleMaxParkNs()),
                    errorLog,
                    null,
                    agent);
                System.err.println("feed-handler: " + config);
                AgentRunner.startOnThread(runner, affinityPlan.threadFactory(RECEIVE_THREAD));
                if (statsIntervalS > 0)
                {
                    statsThread = startStatsThread(agent, statsIntervalS);
                }

                barrier.await();
                // The last word on what was received, lost, recovered and declared: operators read
                // it in the pod's log after a stop, and tests read it after a run.
                System.err.println("feed-handler: final " + FeedStats.line(
                    agent.counters(), agent.arbitrationCounters(), agent.normalizerCounters()));
                System.err.println("feed-handler: stopping");
                return ExitCodes.OK;
            }
            catch (final RuntimeException ex)
            {
                errorLog.record(ex);
                System.err.println("feed-handler: error: " + ex.getMessage());
                return ExitCodes.of(ex);
            }
            finally
            {
                if (null != statsThread)
                {
                    statsThread.interrupt();
                }
                CloseHelper.quietClose(metricsServer);
                CloseHelper.quietClose(runner);
                CloseHelper.quietClose(rings);
                errorLog.close();
            }
        }
    }

    private GlimpseClientConfig glimpseConfig()
    {
        return new GlimpseClientConfig()
            .username(glimpseUsername)
            .password(GlimpseClientConfig.resolvePassword(
                glimpsePassword, glimpsePasswordFile, System.getenv(GlimpseClientConfig.PASSWORD_ENV)))
            .timeoutMs(glimpseTimeoutMs);
    }

    /**
     * Join mid-session from the exchange's snapshot, before the duty cycle starts: the sockets are open
     * already, so what the feed sends meanwhile waits in their buffers (and what overflows them is asked of the
     * re-request server afterwards). Rings that were re-attached need no snapshot. A GLIMPSE server that cannot be
     * reached (not up yet, a network not ready: nothing was received) is tried again every
     * {@link #GLIMPSE_START_RETRY_INTERVAL_MS} until it answers or the feed handler is stopped, each try logged,
     * the ring header heartbeating meanwhile (the fanout says LOADING, not a dead feed handler). A load that fails
     * once begun stops the start (exit 1): the rings then say that their load did not complete, so the next start
     * makes a new generation and loads again rather than resume half a snapshot.
     *
     * @return false when stopped before the snapshot was loaded.
     */
    private boolean loadGlimpse(final PartitionRingSet rings, final FeedHandlerAgent agent, final AtomicBoolean stop)
    {
        if (rings.isResumed())
        {
            System.err.println("feed-handler: GLIMPSE not needed: the rings were re-attached");
            return true;
        }
        rings.header().sourceState(RingSetHeader.SOURCE_LOADING);
        System.err.println("feed-handler: GLIMPSE: loading the exchange's snapshot from " + glimpse +
            " into generation " + rings.generation() + " (the feed's packets wait in the socket buffers)");
        GlimpseResult result = null;
        for (int attempt = 1; null == result; attempt++)
        {
            try
            {
                result = new GlimpseClient(glimpseConfig()).load(glimpse, agent::onSnapshotMessage);
            }
            catch (final GlimpseException ex)
            {
                if (GlimpseException.Reason.CONNECT_FAILED != ex.reason())
                {
                    throw new IllegalStateException("GLIMPSE: cannot load the snapshot from " + glimpse + ": " +
                        ex.getMessage(), ex);
                }
                System.err.println("feed-handler: GLIMPSE: try " + attempt + ": " + ex.getMessage() +
                    "; trying again in " + GLIMPSE_START_RETRY_INTERVAL_MS + " ms (the feed waits: no ring is " +
                    "written before the snapshot)");
                final long deadlineNs =
                    System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GLIMPSE_START_RETRY_INTERVAL_MS);
                while (System.nanoTime() < deadlineNs)
                {
                    if (stop.get())
                    {
                        return false;
                    }
                    rings.header().heartbeat(System.currentTimeMillis(), 0, RingSetHeader.SOURCE_LOADING);
                    LockSupport.parkNanos(50_000_000L);
                }
            }
        }
        agent.onSnapshotComplete(result.nextSequence());
        rings.header().heartbeat(System.currentTimeMillis(), 0, RingSetHeader.SOURCE_LIVE);
        System.err.println("feed-handler: GLIMPSE: " + result.messages() + " messages (" + result.bytes() +
            " bytes) in " + result.durationNs() / 1_000_000 + " ms, session '" + result.session().trim() +
            "', continuing at sequence " + result.nextSequence());
        return true;
    }

    private static LatencyHistogram newReceiveLatency()
    {
        return new LatencyHistogram("mdfanout_feed_receive_latency_seconds",
            "MoldUDP64 datagram received -> its messages committed to the rings (or held behind a gap)", Labels.EMPTY);
    }

    private MetricsServer startMetrics(
        final InMemoryCounters counters, final PartitionRingSet rings, final LatencyHistogram receiveLatency,
        final AffinityPlan affinityPlan, final FeedReadiness readiness)
    {
        if (!metrics.enabled())
        {
            return null;
        }
        // Read at scrape time from the counters' buffers and the rings' positions: the receive thread is not involved.
        final PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new CountersCollector(counters.countersManager()));
        registry.register(new RingCollector(rings.rings()));
        registry.register(receiveLatency);
        registry.register(new AffinityCollector(affinityPlan));
        final MetricsServer server = MetricsServer.start("feed-handler", metrics, registry, readiness);
        System.err.println("feed-handler: metrics: " + server.url());
        return server;
    }

    private static Thread startStatsThread(final FeedHandlerAgent agent, final int intervalS)
    {
        return PeriodicPrinter.start("feed-handler-stats", TimeUnit.SECONDS.toMillis(intervalS),
            () -> System.err.println("feed-handler: " + FeedStats.line(
                agent.counters(), agent.arbitrationCounters(), agent.normalizerCounters())),
            false);
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

    /**
     * Run the command on its own, outside the {@code mdfanout} entry point.
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new FeedHandlerCommand()).execute(args));
    }
}
