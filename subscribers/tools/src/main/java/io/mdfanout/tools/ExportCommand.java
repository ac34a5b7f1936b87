package io.mdfanout.tools;

import io.aeron.archive.client.AeronArchive;
import io.mdfanout.sdk.ArchivedSessions;
import io.mdfanout.tools.dbn.DbnEncoder;
import io.mdfanout.tools.dbn.DbnOptions;
import io.mdfanout.tools.dbn.DbnSchema;
import io.mdfanout.wire.ArchiveSessions;
import io.mdfanout.wire.Defaults;
import io.mdfanout.wire.ExitCodes;
import io.mdfanout.wire.FeedStream;
import io.mdfanout.wire.Partitioning;
import org.agrona.concurrent.IdleStrategy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code export}: a time range of a recorded session, replayed from the archive, written as Databento DBN
 * (docs/EXPORT.md): MBO records for the order-book events, instrument definitions and status records; or, with
 * {@code --schema}, one schema derived from MBO by the SDK's derivation (MBP-1, MBP-10, TBBO, trades, OHLCV bars).
 */
@Command(name = "export", mixinStandardHelpOptions = true, showDefaultValues = true,
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = { ExitCodes.HELP_OK, ExitCodes.HELP_FAILURE, ExitCodes.HELP_USAGE, ExitCodes.HELP_CONFIG,
        ExitCodes.HELP_DATA_LOSS, ExitCodes.HELP_TIMEOUT },
    description = "Write a time range of a recorded session to a Databento DBN file (MBO, definitions, status; or " +
        "one schema derived from MBO: --schema), replayed from the archive (--archive-control-channel; the session: " +
        "--replay-session, else the newest).")
public final class ExportCommand implements Callable<Integer>
{
    @Mixin
    SubscriberOptions subscriberOptions;

    @Option(names = "--out", required = true, description = "The DBN file written (replaced); .zst with --zstd.")
    Path out;

    @Option(names = "--start", description = "First exchange time exported (HH:MM:SS[.fraction], the trading " +
        "day's clock); absent: the session's start.")
    String start;

    @Option(names = "--end", description = "Exchange time the export stops before (HH:MM:SS[.fraction]); absent: " +
        "the end of what the archive holds.")
    String end;

    @Option(names = "--date", description = "The trading day (YYYY-MM-DD) the exchange times count from; absent: " +
        "the session's name when it is a date (--replay-session, else the newest session the archive holds).")
    String date;

    @Option(names = "--zone", defaultValue = Defaults.EXCHANGE_ZONE, description = "The exchange's time zone.")
    String zone;

    @Option(names = "--zstd", defaultValue = "false", description = "Compress the file with zstd.")
    boolean zstd;

    @Option(names = "--schema", defaultValue = "mbo", description = "The Databento schema written: mbo (order by " +
        "order, with definition, status and imbalance records), mbp-1, mbp-10, tbbo, trades, ohlcv-1s or ohlcv-1m " +
        "(derived from MBO; the file holds that schema's records only).")
    String schema;

    @Option(names = "--mbo-only", defaultValue = "false", description = "With --schema mbo: MBO records only (no " +
        "definition, status or imbalance records), a file whose metadata names the schema mbo.")
    boolean mboOnly;

    @Option(names = "--timeout-s", defaultValue = "600", description = "Give up after this many seconds.")
    long timeoutS;

    PrintStream stdout = System.out;
    PrintStream stderr = System.err;

    /** {@inheritDoc} */
    public Integer call()
    {
        final int[] partitions;
        final DbnSchema dbnSchema;
        try
        {
            dbnSchema = schema();
            // The whole session is replayed, to its end and with no live stream: the encoder follows every order
            // from its add, and writes only the range.
            subscriberOptions.replay.from = "start";
            subscriberOptions.replay.replayOnly = true;
            partitions = subscriberOptions.resolvePartitions();
        }
        catch (final IllegalArgumentException ex)
        {
            stderr.println("export: " + ex.getMessage());
            return ExitCodes.CONFIG;
        }

        final String control = subscriberOptions.replay.archiveControlChannel;
        if (null == subscriberOptions.replay.replaySession && null == date)
        {
            // The session replayed is the newest the archive holds: ask which, for its date.
            final int streamId = Partitioning.streamId(subscriberOptions.streamIdBase(), partitions[0]);
            final String newest;
            try
            {
                newest = newestSession(control, streamId);
            }
            catch (final RuntimeException ex)
            {
                stderr.println("export: nothing exported: the archive at " + control + " did not say which sessions " +
                    "it holds: " + ex.getMessage());
                return ExitCodes.DATA_LOSS;
            }
            if (null == newest)
            {
                stderr.println("export: nothing exported: the archive at " + control + " holds no session of " +
                    "stream " + streamId);
                return ExitCodes.DATA_LOSS;
            }
            stderr.println("export: session " + newest + ", the newest the archive holds (--replay-session: another)");
            subscriberOptions.replay.replaySession = newest;
        }

        final DbnOptions options;
        try
        {
            options = dbnOptions(dbnSchema);
        }
        catch (final IllegalArgumentException | DateTimeParseException ex)
        {
            stderr.println("export: " + ex.getMessage());
            return ExitCodes.CONFIG;
        }

        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
        final ToolMetrics metrics = new ToolMetrics("export");
        boolean replayFailed = false;
        try (DbnEncoder encoder = DbnEncoder.open(options, out);
            ToolSession session = ToolSession.open("export", subscriberOptions, metrics, partitions, encoder, stderr))
        {
            while (session.isRunning() && !session.subscriber().isReplayEnded())
            {
                if (System.nanoTime() > deadline)
                {
                    stderr.println("export: timed out after " + timeoutS + " s");
                    return ExitCodes.TIMEOUT;
                }
                session.pollOnce();
            }
            encoder.close();
            if (session.subscriber().isReplayFailed())
            {
                // No session of that name, or no archive: there is nothing to export, so no file is left either.
                replayFailed = true;
                stderr.println("export: nothing exported: the replay of session " +
                    subscriberOptions.replay.replaySession + " from " + control + " failed (the reason is above); " +
                    out + " not written");
                return ExitCodes.DATA_LOSS;
            }
            final long gaps = metrics.counters().gaps();
            stdout.println("export: " + out + " " + encoder.stats() + " replayed=" +
                metrics.counters().replayedMessages() + " gaps=" + gaps + (0 == gaps ? "" : " (holes in the archive: " +
                metrics.counters().missingMessages() + " messages missing)"));
            if (!session.isRunning())
            {
                stderr.println("export: stopped before the end of the session: " + out + " holds what was " +
                    "replayed until then");
            }
            return 0 == gaps ? ExitCodes.OK : ExitCodes.DATA_LOSS;
        }
        catch (final RuntimeException | IOException ex)
        {
            stderr.println("export: " + ex.getMessage());
            return ExitCodes.of(ex);
        }
        finally
        {
            if (replayFailed)
            {
                deleteQuietly(out);
            }
        }
    }

    private String newestSession(final String control, final int streamId)
    {
        try (ToolMedia media = ToolMedia.connect(subscriberOptions.aeronDir(), subscriberOptions.idle()))
        {
            final IdleStrategy idle = media.pollIdle(subscriberOptions.idle().newIdleStrategy());
            final AeronArchive.AsyncConnect connect = AeronArchive.asyncConnect(new AeronArchive.Context()
                .aeron(media.aeron())
                .ownsAeronClient(false)
                .controlRequestChannel(control)
                .controlRequestStreamId(ArchiveSessions.DEFAULT_CONTROL_STREAM_ID)
                .controlResponseChannel(subscriberOptions.replay.archiveResponseChannel));
            try
            {
                AeronArchive archive;
                while (null == (archive = connect.poll()))
                {
                    idle.idle(0);
                }
                try (AeronArchive connected = archive)
                {
                    return ArchivedSessions.newest(connected, streamId);
                }
            }
            finally
            {
                connect.close();
            }
        }
    }

    private static void deleteQuietly(final Path file)
    {
        try
        {
            Files.deleteIfExists(file);
        }
        catch (final IOException ignore)
        {
            // The line above said that nothing was exported.
        }
    }

    /** The schema asked for, checked with the options that apply to some schemas only (before any connection). */
    private DbnSchema schema()
    {
        final DbnSchema parsed;
        try
        {
            parsed = DbnSchema.fromName(schema);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("unknown --schema '" + schema + "': one of " + DbnSchema.names(), ex);
        }
        if (FeedStream.MBO != subscriberOptions.stream())
        {
            // The derived streams' recordings hold derived messages only: no MBO to follow orders from, no DBN MBO
            throw new IllegalArgumentException("--stream " + subscriberOptions.stream().streamName() + " does not " +
                "apply: export replays the MBO stream and derives the others itself; ask for their records with " +
                "--schema (one of " + DbnSchema.names() + ")");
        }
        if (mboOnly && parsed.isDerived())
        {
            throw new IllegalArgumentException("--mbo-only applies to --schema mbo only: a " + parsed + " file holds " +
                parsed + " records only (schemas: " + DbnSchema.names() + ")");
        }
        return parsed;
    }

    private DbnOptions dbnOptions(final DbnSchema dbnSchema)
    {
        final String session = subscriberOptions.replay.replaySession;
        final LocalDate day = null != date ? LocalDate.parse(date) :
            null != session && session.matches("\\d{4}-\\d{2}-\\d{2}.*") ? LocalDate.parse(session.substring(0, 10)) : null;
        if (null == day)
        {
            throw new IllegalArgumentException("--date is needed when the session's name (" + session + ") is no date");
        }
        final ZoneId zoneId = ZoneId.of(zone);
        final long dayStart = TimeUnit.SECONDS.toNanos(day.atStartOfDay(zoneId).toEpochSecond());
        final long startNs = null == start ? dayStart : dayStart + LocalTime.parse(start).toNanoOfDay();
        final long endNs = null == end ? Long.MAX_VALUE : dayStart + LocalTime.parse(end).toNanoOfDay();
        if (endNs <= startNs)
        {
            throw new IllegalArgumentException("--end must be after --start");
        }
        final DbnOptions options = new DbnOptions().schema(dbnSchema).sessionDate(day).zone(zoneId)
            .timeRange(startNs, endNs).zstd(zstd);
        if (mboOnly)
        {
            options.definitions(false).status(false).imbalance(false);
        }
        return options;
    }
}
