package io.mdfanout.tools;

import io.mdfanout.tools.dbn.DbnEncoder;
import io.mdfanout.tools.dbn.DbnOptions;
import io.mdfanout.wire.ExitCodes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code export}: a time range of a recorded session, replayed from the archive, written as Databento DBN
 * (docs/EXPORT.md): MBO records for the order-book events, instrument definitions and status records.
 */
@Command(name = "export", mixinStandardHelpOptions = true, showDefaultValues = true,
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = { ExitCodes.HELP_OK, ExitCodes.HELP_FAILURE, ExitCodes.HELP_USAGE, ExitCodes.HELP_CONFIG,
        ExitCodes.HELP_DATA_LOSS, ExitCodes.HELP_TIMEOUT },
    description = "Write a time range of a recorded session to a Databento DBN file (MBO, definitions, status), " +
        "replayed from the archive (--archive-control-channel; the session: --replay-session, else the newest).")
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
        "the session's name when it is a date.")
    String date;

    @Option(names = "--zone", defaultValue = "America/New_York", description = "The exchange's time zone.")
    String zone;

    @Option(names = "--zstd", defaultValue = "false", description = "Compress the file with zstd.")
    boolean zstd;

    @Option(names = "--timeout-s", defaultValue = "600", description = "Give up after this many seconds.")
    long timeoutS;

    PrintStream stdout = System.out;
    PrintStream stderr = System.err;

    /** {@inheritDoc} */
    public Integer call()
    {
        final int[] partitions;
        final DbnOptions options;
        try
        {
            // The whole session is replayed, to its end and with no live stream: the encoder follows every order
            // from its add, and writes only the range.
            subscriberOptions.replay.from = "start";
            subscriberOptions.replay.replayOnly = true;
            partitions = subscriberOptions.resolvePartitions();
            options = dbnOptions();
        }
        catch (final IllegalArgumentException | DateTimeParseException ex)
        {
            stderr.println("export: " + ex.getMessage());
            return ExitCodes.CONFIG;
        }

        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
        final ToolMetrics metrics = new ToolMetrics("export");
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
            final long gaps = metrics.counters().gaps();
            stdout.println("export: " + out + " " + encoder.stats() + " replayed=" +
                metrics.counters().replayedMessages() + " gaps=" + gaps + (0 == gaps ? "" : " (holes in the archive: " +
                metrics.counters().missingMessages() + " messages missing)"));
            return 0 == gaps && !session.subscriber().isReplayFailed() ? ExitCodes.OK : ExitCodes.DATA_LOSS;
        }
        catch (final RuntimeException | IOException ex)
        {
            stderr.println("export: " + ex.getMessage());
            return ExitCodes.of(ex);
        }
    }

    private DbnOptions dbnOptions()
    {
        final String session = subscriberOptions.replay.replaySession;
        final LocalDate day = null != date ? LocalDate.parse(date) :
            null != session && session.matches("\\d{4}-\\d{2}-\\d{2}.*") ? LocalDate.parse(session.substring(0, 10)) : null;
        if (null == day)
        {
            throw new IllegalArgumentException("--date is needed when the session's name (--replay-session) is no date");
        }
        final ZoneId zoneId = ZoneId.of(zone);
        final long dayStart = TimeUnit.SECONDS.toNanos(day.atStartOfDay(zoneId).toEpochSecond());
        final long startNs = null == start ? dayStart : dayStart + LocalTime.parse(start).toNanoOfDay();
        final long endNs = null == end ? Long.MAX_VALUE : dayStart + LocalTime.parse(end).toNanoOfDay();
        if (endNs <= startNs)
        {
            throw new IllegalArgumentException("--end must be after --start");
        }
        return new DbnOptions().sessionDate(day).zone(zoneId).timeRange(startNs, endNs).zstd(zstd);
    }
}
