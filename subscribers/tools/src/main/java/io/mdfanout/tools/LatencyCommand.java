package io.mdfanout.tools;

import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.SubscriberCounters;
import io.mdfanout.wire.ExitCodes;
import io.mdfanout.wire.PreciseEpochNanoClock;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.EpochNanoClock;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code latency}: end-to-end latency of the chain, per delivered incremental message: this host's wall clock
 * (nanoseconds since midnight UTC) minus the message's exchangeTimestamp, into an HdrHistogram. Run the simulator
 * with {@code --latency-timestamps} so that timestamp is the time the simulator's pacer scheduled the message to
 * be sent: the figure then covers simulator schedule -> feed handler receive, decode, normalize, ring -> fanout
 * -> Aeron -> this callback, corrected for coordinated omission. On one host only; across hosts it includes the
 * clocks' offset. Snapshot content and GapNotices (which carry an older timestamp) are not recorded.
 * <p>
 * Each measured message is also split at the fanout's send (its packet's sendingTime): exchange timestamp ->
 * fanout send (the feed handler, its ring and the fanout's drain) and fanout send -> callback (Aeron: the fanout's
 * driver, the network, this host's driver and this poll loop), the second comparable with {@code raw-aeron-sub}'s
 * figure. Both go into the summary and the JSON ({@code to_fanout_send_*} and {@code from_fanout_send_*}).
 * <p>
 * Exit codes as {@code record}: 0 clean, 1 configuration or I/O error, 2 data lost (a partition stale at the end,
 * or with --no-recovery any gap), 3 timeout.
 */
@Command(name = "latency", hidden = true, mixinStandardHelpOptions = true, showDefaultValues = true,
    description = "Measure end-to-end latency (now - exchange timestamp) per delivered message; "
        + "run the simulator with --latency-timestamps.")
public final class LatencyCommand implements Callable<Integer>
{
    @Mixin
    SubscriberOptions subscriberOptions;

    @Mixin
    SessionRun sessionRun;

    @Option(names = "--warmup-messages", defaultValue = "0",
        description = "Leave the first N measured messages out of the histogram (JIT warm-up, joins).")
    long warmupMessages;

    @Option(names = "--hgrm-out", description = "Write the HdrHistogram percentile distribution (.hgrm, "
        + "microseconds) to this file at exit.")
    Path hgrmOut;

    @Option(names = "--json-out", description = "Write the percentiles (microseconds) and counters as one JSON "
        + "object to this file at exit.")
    Path jsonOut;

    @Option(names = "--label", defaultValue = "chain", description = "Name of the measured system in the JSON.")
    String label;



    PrintStream stdout = System.out;
    PrintStream stderr = System.err;

    /** {@inheritDoc} */
    public Integer call()
    {
        final int[] partitions;
        final LatencyRecorder recorder;
        final LatencyRecorder toFanoutSend;
        final LatencyRecorder fromFanoutSend;
        try
        {
            partitions = subscriberOptions.resolvePartitions();
            sessionRun.validate();
            recorder = new LatencyRecorder(warmupMessages);
            toFanoutSend = new LatencyRecorder(warmupMessages);
            fromFanoutSend = new LatencyRecorder(warmupMessages);
        }
        catch (final IllegalArgumentException ex)
        {
            stderr.println("latency: " + ex.getMessage());
            return ExitCodes.CONFIG;
        }

        final ToolMetrics metrics = new ToolMetrics("latency");
        final SubscriberCounters counters = metrics.counters();
        final LatencyListener listener = new LatencyListener(
            recorder, toFanoutSend, fromFanoutSend, new PreciseEpochNanoClock(), partitions, new RecoveryEvents(stdout));
        try
        {
            final int exitCode;
            final String driverSummary;
            try (ToolSession session = ToolSession.open("latency", subscriberOptions, metrics, partitions, listener, stderr))
            {
                exitCode = sessionRun.run(session, listener, subscriberOptions.recoveryEnabled());
                driverSummary = session.media().driverSummary();
            }
            stdout.println(recorder.summary("latency"));
            stdout.println(toFanoutSend.summary("latency: to fanout send"));
            stdout.println(fromFanoutSend.summary("latency: from fanout send"));
            stdout.println("latency: messages=" + counters.messages() + " gaps=" + counters.gaps() +
                " missing=" + counters.missingMessages() + " malformed=" + counters.malformed() +
                " stale=" + counters.staleEvents() + " recoveries=" + counters.recoveries() +
                (ExitCodes.TIMEOUT == exitCode ? " (timed out)" : ""));
            stdout.println("latency: " + driverSummary);
            if (null != hgrmOut)
            {
                recorder.writeHgrm(hgrmOut);
            }
            if (null != jsonOut)
            {
                recorder.writeJson(jsonOut, label,
                    "messages", Long.toString(counters.messages()),
                    "gaps", Long.toString(counters.gaps()),
                    "missing", Long.toString(counters.missingMessages()),
                    "recoveries", Long.toString(counters.recoveries()),
                    "exit", Integer.toString(exitCode),
                    "to_fanout_send", toFanoutSend.toJsonPercentiles(),
                    "from_fanout_send", fromFanoutSend.toJsonPercentiles());
            }
            return exitCode;
        }
        catch (final RuntimeException | IOException ex)
        {
            stderr.println("latency: " + ex.getMessage());
            return ExitCodes.of(ex);
        }
    }

    /**
     * Records now - exchangeTimestamp per incremental message, split at the fanout's send; watches for
     * END_OF_MESSAGES.
     */
    static final class LatencyListener extends EndOfMessagesListener
    {
        private final LatencyRecorder recorder;
        private final LatencyRecorder toFanoutSend;
        private final LatencyRecorder fromFanoutSend;
        private final EpochNanoClock clock;

        LatencyListener(
            final LatencyRecorder recorder,
            final LatencyRecorder toFanoutSend,
            final LatencyRecorder fromFanoutSend,
            final EpochNanoClock clock,
            final int[] partitions,
            final RecoveryEvents events)
        {
            super(partitions, events);
            this.recorder = recorder;
            this.toFanoutSend = toFanoutSend;
            this.fromFanoutSend = fromFanoutSend;
            this.clock = clock;
        }

        public void onRawMessage(
            final MessageContext context, final DirectBuffer buffer, final int offset, final int length)
        {
            final int templateId = context.templateId();
            if (!context.isSnapshot() && GapNoticeDecoder.TEMPLATE_ID != templateId &&
                WireFormat.isNormalizedMessage(templateId))
            {
                record(clock.nanoTime(), context.sendingTime(), WireFormat.exchangeTimestamp(buffer, offset));
            }
        }

        /**
         * One message's latency, whole and split at the fanout's send.
         *
         * @param nowEpochNs          when the callback ran, nanoseconds since the epoch.
         * @param sendingTimeEpochNs  the packet's sendingTime: when the fanout offered it, since the epoch.
         * @param exchangeTimeOfDayNs the message's exchangeTimestamp, nanoseconds since midnight UTC.
         */
        void record(final long nowEpochNs, final long sendingTimeEpochNs, final long exchangeTimeOfDayNs)
        {
            recorder.record(LatencyRecorder.sinceTimeOfDay(nowEpochNs, exchangeTimeOfDayNs));
            toFanoutSend.record(LatencyRecorder.sinceTimeOfDay(sendingTimeEpochNs, exchangeTimeOfDayNs));
            fromFanoutSend.record(nowEpochNs - sendingTimeEpochNs);
        }
    }

    /**
     * Run from the command line (ad-hoc; the mdfanout CLI registers this command).
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new LatencyCommand()).execute(args));
    }
}
