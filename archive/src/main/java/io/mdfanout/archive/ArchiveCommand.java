package io.mdfanout.archive;

import io.aeron.driver.ThreadingMode;
import io.mdfanout.metrics.AeronCountersCollector;
import io.mdfanout.metrics.CncCounters;
import io.mdfanout.metrics.CountersCollector;
import io.mdfanout.metrics.MetricsOptions;
import io.mdfanout.metrics.MetricsServer;
import io.mdfanout.wire.Defaults;
import io.mdfanout.wire.ExitCodes;
import io.mdfanout.wire.IdleStrategyType;
import io.mdfanout.wire.RoleErrorLog;
import io.mdfanout.wire.StopSignals;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.ShutdownSignalBarrier;
import org.agrona.concurrent.status.CountersManager;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code archive}: records every partition stream of a fanout with Aeron Archive under a trading session, and
 * serves replays of them to subscribers (the SDK's replay from a point, then live; {@code export}).
 */
@Command(name = "archive", mixinStandardHelpOptions = true, showDefaultValues = true,
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = { ExitCodes.HELP_OK, ExitCodes.HELP_FAILURE, ExitCodes.HELP_USAGE, ExitCodes.HELP_CONFIG },
    description = "Record every partition stream of a fanout (not the snapshot streams) with Aeron Archive into " +
        "--archive-dir, catalogued by trading session and partition, and serve replays to subscribers " +
        "(--from on the tools, export). It is one more multicast receiver: it never slows the live stream; falling " +
        "behind, a full disk and the stretches it did not record are reported (log, metrics, the catalog file).")
public final class ArchiveCommand implements Callable<Integer>
{
    @Option(names = "--archive-dir", required = true,
        description = "Directory of the recordings, Aeron Archive's catalog and the session catalog " +
            "(" + SessionCatalog.FILE_NAME + "); a persistent volume in Kubernetes.")
    Path archiveDir;

    @Option(names = "--aeron-dir",
        description = "Directory of the archive's embedded media driver; default: aeron-<user>-archive under /dev/shm.")
    String aeronDirectoryName;

    @Option(names = "--channel", defaultValue = Defaults.CHANNEL,
        description = "Aeron channel the fanout publishes its partition streams on.")
    String channel;

    @Option(names = "--stream-id-base", defaultValue = Defaults.STREAM_ID_BASE_STRING,
        description = "Stream id of partition 0; partition p is base + p.")
    int streamIdBase;

    @Option(names = "--pair-channel",
        description = "Side B of a pair: the Aeron channel of the feed's second side. Both sides are recorded (side " +
            "B under an alias of its own), and a stretch is a hole only where neither side has it, by exchange " +
            "sequence. Absent: one fanout, on --channel.")
    String pairChannel;

    @Option(names = "--pair-stream-id-base",
        description = "Side B's stream id of partition 0; absent = --stream-id-base.")
    Integer pairStreamIdBase;

    @Option(names = "--partitions", defaultValue = Defaults.PARTITION_COUNT_STRING,
        description = "Number of partitions the fanout publishes.")
    int partitions;

    @Option(names = "--control-channel", defaultValue = ArchiveSettings.DEFAULT_CONTROL_CHANNEL,
        description = "Where subscribers send replay requests (their --archive-control-channel names this host).")
    String controlChannel;

    @Option(names = "--control-stream-id", defaultValue = "" + ArchiveSettings.DEFAULT_CONTROL_STREAM_ID,
        description = "Stream id of the control channel.")
    int controlStreamId;

    @Option(names = "--replication-channel", defaultValue = ArchiveSettings.DEFAULT_REPLICATION_CHANNEL,
        description = "Aeron Archive's replication channel (unused by mdfanout, required by Aeron).")
    String replicationChannel;

    @Option(names = "--session",
        description = "Name of the trading session recorded (letters, digits, '-', '_', '.'); default: today's date " +
            "in --zone (the trading day, not UTC's: UTC midnight falls in US after-hours trading). A restart with the " +
            "same name continues the session and reports what it missed as a hole.")
    String session;

    @Option(names = "--zone", defaultValue = Defaults.EXCHANGE_ZONE,
        description = "The exchange's time zone, whose date names the default --session (as export's --zone).")
    String zone;

    /** The clock the default session's date is read from (tests set it). */
    Clock clock = Clock.systemUTC();

    @Option(names = "--retain-sessions", defaultValue = "0",
        description = "Keep the newest N sessions' recordings, deleting older ones (0 = keep all).")
    int retainSessions;

    @Option(names = "--retain-bytes", defaultValue = "0",
        description = "Delete the oldest sessions while the recordings exceed this size, e.g. 50g (0 = no limit).")
    String retainBytes;

    @Option(names = "--min-free-bytes", defaultValue = ArchiveSettings.DEFAULT_MIN_FREE_BYTES,
        description = "Warn (and the disk alert fires) below this much free disk; recording resumes after a full " +
            "disk once this much is free again.")
    String minFreeBytes;

    @Option(names = "--segment-file-bytes", defaultValue = "" + ArchiveSettings.DEFAULT_SEGMENT_FILE_LENGTH,
        description = "Length of each recording segment file (a power of two, a multiple of the term length).")
    int segmentFileLength;

    @Option(names = "--driver-threading", defaultValue = "shared", converter = ThreadingConverter.class,
        description = "Threading of the embedded media driver: shared, shared-network or dedicated.")
    ThreadingMode driverThreading;

    @Option(names = "--idle-strategy", defaultValue = Defaults.IDLE_STRATEGY, converter = IdleConverter.class,
        description = "What the archive's threads do when idle (backoff, park, yield, busy-spin, sleep).")
    IdleStrategyType idleStrategy;

    @Option(names = "--idle-max-park-us", defaultValue = Defaults.IDLE_MAX_PARK_US_STRING,
        description = "Longest park of the backoff and park idle strategies, in microseconds.")
    long idleMaxParkUs;

    @Mixin
    MetricsOptions metrics;

    /** {@inheritDoc} */
    public Integer call()
    {
        final PrintStream err = System.err;
        final ArchiveSettings settings;
        try
        {
            settings = settings();
            checkResources(settings);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("archive: " + ex.getMessage());
            return ExitCodes.CONFIG;
        }

        RoleErrorLog errorLog = null;
        ArchiveRole role = null;
        AgentRunner runner = null;
        MetricsServer metricsServer = null;
        CncCounters driverCounters = null;
        try (ShutdownSignalBarrier barrier = new ShutdownSignalBarrier();
            StopSignals.Registration stopRegistration = StopSignals.onStop(barrier::signal))
        {
            // Not on the archive's disk: a memory-mapped log there would fault the process once the disk is full.
            errorLog = RoleErrorLog.open(RoleErrorLog.tempDirectory(), "archive",
                (throwable) -> err.println("archive: error: " + throwable));
            // The metrics answer from the start (the archive's own counters; the driver's once it runs) to the
            // end: a restarted archive starting its Aeron archive and reading its last recordings, or one closing
            // them, is a process at work, not a target down.
            final CountersManager countersManager = newCountersManager();
            final AtomicReference<CncCounters> driver = new AtomicReference<>();
            if (metrics.enabled())
            {
                final PrometheusRegistry registry = new PrometheusRegistry();
                registry.register(new CountersCollector(countersManager));
                registry.register(new AeronCountersCollector(() ->
                {
                    final CncCounters cnc = driver.get();
                    return null == cnc ? null : cnc.reader();
                }));
                metricsServer = MetricsServer.start("archive", metrics, registry);
                err.println("archive: metrics: " + metricsServer.url());
            }
            role = new ArchiveRole(settings, countersManager, errorLog, err);
            runner = new AgentRunner(settings.idleStrategy().newIdleStrategy(
                TimeUnit.MICROSECONDS.toNanos(settings.idleMaxParkUs())), errorLog, role.counters().dutyCycleErrors, role);
            AgentRunner.startOnThread(runner);
            if (metrics.enabled())
            {
                driverCounters = CncCounters.map(role.aeronDirectoryName());
                driver.set(driverCounters);
            }
            err.println("archive: running session=" + role.session() + " archiveDir=" + settings.archiveDir() +
                " partitions=" + settings.partitions() + " channel=" + settings.channel() +
                (null != settings.pairChannel() ? " pairChannel=" + settings.pairChannel() + " pairStreamIdBase=" +
                settings.pairStreamIdBase() : "") + " control=" +
                settings.controlChannel() + " catalog=" + role.catalogFile() + " aeronDir=" + role.aeronDirectoryName());
            barrier.await();
            driver.set(null);
            CloseHelper.quietCloseAll(runner, driverCounters, metricsServer, errorLog);
            runner = null;
            metricsServer = null;
            driverCounters = null;
            errorLog = null;
            err.println("archive: stopped");
            return ExitCodes.OK;
        }
        catch (final RuntimeException ex)
        {
            err.println("archive: " + ex.getMessage());
            return ExitCodes.of(ex);
        }
        finally
        {
            CloseHelper.quietCloseAll(metricsServer, driverCounters);
            if (null != runner)
            {
                CloseHelper.quietClose(runner);
            }
            else if (null != role)
            {
                CloseHelper.quietClose(role);
            }
            CloseHelper.quietClose(errorLog);
        }
    }

    /**
     * What the archive will bind and subscribe on, checked before anything is created: the metrics port, the
     * recording channel's interface, the control channel's interface and port.
     */
    private void checkResources(final ArchiveSettings settings)
    {
        metrics.validate();
        ChannelCheck.subscription("--channel", settings.channel(), false);
        if (null != settings.pairChannel())
        {
            ChannelCheck.subscription("--pair-channel", settings.pairChannel(), false);
        }
        ChannelCheck.subscription("--control-channel", settings.controlChannel(), true);
    }

    ArchiveSettings settings()
    {
        if (partitions < 1 || partitions > 256)
        {
            throw new IllegalArgumentException("--partitions must be 1 to 256: " + partitions);
        }
        if (retainSessions < 0)
        {
            throw new IllegalArgumentException("--retain-sessions must be 0 or more: " + retainSessions);
        }
        if (segmentFileLength < 64 * 1024 || Integer.bitCount(segmentFileLength) != 1)
        {
            throw new IllegalArgumentException("--segment-file-bytes must be a power of two of 64 KiB or more: " +
                segmentFileLength);
        }
        if (idleMaxParkUs < 1 || idleMaxParkUs > TimeUnit.SECONDS.toMicros(1))
        {
            throw new IllegalArgumentException("--idle-max-park-us must be 1 to 1000000: " + idleMaxParkUs);
        }
        final ZoneId exchangeZone;
        try
        {
            exchangeZone = ZoneId.of(zone);
        }
        catch (final DateTimeException ex)
        {
            throw new IllegalArgumentException("--zone must be a time zone such as America/New_York: " + zone);
        }
        final String sessionName = null != session ? session : LocalDate.now(clock.withZone(exchangeZone)).toString();
        if (!sessionName.matches("[A-Za-z0-9._-]{1,64}"))
        {
            throw new IllegalArgumentException("--session must be 1 to 64 letters, digits, '.', '-' or '_': " +
                sessionName);
        }
        if (null == pairChannel && null != pairStreamIdBase)
        {
            throw new IllegalArgumentException("--pair-stream-id-base needs --pair-channel");
        }
        final int sideBStreamIdBase = null != pairStreamIdBase ? pairStreamIdBase : streamIdBase;
        if (null != pairChannel && pairChannel.equals(channel) && sideBStreamIdBase == streamIdBase)
        {
            throw new IllegalArgumentException("--pair-channel names side A's channel and stream ids: side B must " +
                "differ from side A in its channel or its --pair-stream-id-base");
        }
        final String aeronDir = null != aeronDirectoryName ? aeronDirectoryName :
            "/dev/shm/aeron-" + System.getProperty("user.name", "default") + "-archive";
        return new ArchiveSettings(
            archiveDir, aeronDir, channel, streamIdBase, pairChannel, sideBStreamIdBase, partitions, controlChannel,
            controlStreamId, replicationChannel,
            sessionName, null != session, retainSessions, parseSize("--retain-bytes", retainBytes),
            parseSize("--min-free-bytes", minFreeBytes), segmentFileLength, driverThreading, idleStrategy,
            idleMaxParkUs);
    }

    /**
     * A size with an optional binary suffix: 1024, 64k, 512m, 50g, 2t (case-insensitive, an optional trailing b).
     *
     * @param option the option, for the message.
     * @param text   what was given.
     * @return bytes.
     */
    static long parseSize(final String option, final String text)
    {
        final String value = text.trim().toLowerCase(Locale.ROOT).replaceAll("i?b$", "");
        long multiplier = 1;
        String digits = value;
        if (!value.isEmpty())
        {
            final char unit = value.charAt(value.length() - 1);
            final int shift = "kmgt".indexOf(unit);
            if (shift >= 0)
            {
                multiplier = 1L << (10 * (shift + 1));
                digits = value.substring(0, value.length() - 1);
            }
        }
        try
        {
            final long number = Long.parseLong(digits);
            if (number < 0 || number > Long.MAX_VALUE / multiplier)
            {
                throw new NumberFormatException();
            }
            return number * multiplier;
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(option + " must be a size such as 1073741824, 512m or 50g: " + text);
        }
    }

    private static CountersManager newCountersManager()
    {
        final int values = 64 * 1024;
        return new CountersManager(
            new org.agrona.concurrent.UnsafeBuffer(ByteBuffer.allocateDirect(values * 8)),
            new org.agrona.concurrent.UnsafeBuffer(ByteBuffer.allocateDirect(values)),
            StandardCharsets.US_ASCII);
    }

    /** Parses the driver threading names. */
    static final class ThreadingConverter implements CommandLine.ITypeConverter<ThreadingMode>
    {
        public ThreadingMode convert(final String value)
        {
            for (final ThreadingMode mode : new ThreadingMode[]{
                ThreadingMode.SHARED, ThreadingMode.SHARED_NETWORK, ThreadingMode.DEDICATED })
            {
                if (mode.name().toLowerCase(Locale.ROOT).replace('_', '-').equals(value))
                {
                    return mode;
                }
            }
            throw new CommandLine.TypeConversionException("expected shared, shared-network or dedicated: " + value);
        }
    }

    /** Parses idle strategy names. */
    static final class IdleConverter implements CommandLine.ITypeConverter<IdleStrategyType>
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
}
