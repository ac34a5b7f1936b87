package io.mdfanout.tools;

import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.mdfanout.wire.ExitCodes;
import io.mdfanout.wire.PreciseEpochNanoClock;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.IdleStrategy;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code raw-aeron-sub}: the receiving half of the transport baseline. Records, per message from
 * {@code raw-aeron-pub}, now (epoch nanoseconds) minus the message's scheduled send time into the same kind of
 * histogram and report as {@code latency}, checks the sequence, and stops at the publisher's end marker.
 * Exit 0 when every expected message arrived in order, 2 when any was missing, 3 on timeout, 1 on bad options.
 */
@Command(name = "raw-aeron-sub", hidden = true, mixinStandardHelpOptions = true, showDefaultValues = true,
    description = "Benchmark baseline: receive raw-aeron-pub's messages and measure their latency.")
public final class RawAeronSubCommand implements Callable<Integer>
{
    @Option(names = "--channel", defaultValue = RawAeronMessage.DEFAULT_CHANNEL, description = "Aeron channel.")
    String channel;

    @Option(names = "--stream-id", defaultValue = RawAeronMessage.DEFAULT_STREAM_ID, description = "Aeron stream id.")
    int streamId;

    @Option(names = "--messages", defaultValue = "0",
        description = "Messages expected (exit 4 when fewer arrive); 0 = whatever arrives before the end marker.")
    long messages;

    @Option(names = "--message-length", defaultValue = "0", description = "Split each fragment into messages of " +
        "this length (raw-aeron-pub --batch packs several into one offer); 0 = a fragment is one message.")
    int messageLength;

    @Option(names = "--warmup-messages", defaultValue = "0",
        description = "Leave the first N messages out of the histogram.")
    long warmupMessages;

    @Option(names = "--hgrm-out", description = "Write the HdrHistogram percentile distribution (.hgrm, "
        + "microseconds) to this file at exit.")
    Path hgrmOut;

    @Option(names = "--json-out", description = "Write the percentiles (microseconds) and counts as one JSON "
        + "object to this file at exit.")
    Path jsonOut;

    @Option(names = "--label", defaultValue = "raw-aeron", description = "Name of the measured system in the JSON.")
    String label;

    @Option(names = "--timeout-s", defaultValue = "0",
        description = "Give up after this many seconds with exit code 5 (0 = no limit).")
    long timeoutS;

    @Option(names = "--ready-file", description = "Create this file once the subscription is connected.")
    Path readyFile;

    @Mixin
    IdleOptions idleOptions = new IdleOptions();

    @Option(names = "--aeron-dir",
        description = "Aeron directory of an external media driver; absent = launch an embedded driver.")
    String aeronDir;

    PrintStream stdout = System.out;
    PrintStream stderr = System.err;

    /** {@inheritDoc} */
    public Integer call()
    {
        final LatencyRecorder recorder;
        try
        {
            if (messages < 0 || timeoutS < 0 || !channel.startsWith("aeron:"))
            {
                throw new IllegalArgumentException(
                    "need --messages >= 0, --timeout-s >= 0 and an Aeron --channel (" + channel + ")");
            }
            if (0 != messageLength && messageLength < RawAeronMessage.MIN_LENGTH)
            {
                throw new IllegalArgumentException("--message-length must be 0 or >= " + RawAeronMessage.MIN_LENGTH +
                    ": " + messageLength);
            }
            idleOptions.validate();
            recorder = new LatencyRecorder(warmupMessages);
        }
        catch (final IllegalArgumentException ex)
        {
            stderr.println("raw-aeron-sub: " + ex.getMessage());
            return ExitCodes.CONFIG;
        }

        try (StopSignal stopSignal = new StopSignal();
            ToolMedia media = ToolMedia.connect(aeronDir, idleOptions);
            Subscription subscription = media.aeron().addSubscription(channel, streamId))
        {
            final SequenceCheckingHandler handler =
                new SequenceCheckingHandler(recorder, new PreciseEpochNanoClock(), messageLength);
            final IdleStrategy idle = media.pollIdle(idleOptions.newIdleStrategy());
            final long deadline = timeoutS > 0 ?
                System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS) : Long.MAX_VALUE;
            boolean ready = null == readyFile;
            boolean timedOut = false;
            while (stopSignal.isRunning() && !handler.ended)
            {
                final int work = subscription.poll(handler, 256);
                if (!ready && subscription.isConnected())
                {
                    Files.deleteIfExists(readyFile);
                    Files.createFile(readyFile);
                    ready = true;
                }
                if (System.nanoTime() > deadline)
                {
                    timedOut = true;
                    break;
                }
                idle.idle(work);
            }

            final int exitCode = timedOut ? ExitCodes.TIMEOUT :
                (0 == handler.missing && (0 == messages || handler.received == messages)) ? ExitCodes.OK : ExitCodes.DATA_LOSS;
            stdout.println(recorder.summary("raw-aeron-sub"));
            stdout.println("raw-aeron-sub: received=" + handler.received + " missing=" + handler.missing +
                " ended=" + handler.ended + (timedOut ? " (timed out)" : ""));
            stdout.println("raw-aeron-sub: " + media.driverSummary());
            if (null != hgrmOut)
            {
                recorder.writeHgrm(hgrmOut);
            }
            if (null != jsonOut)
            {
                recorder.writeJson(jsonOut, label,
                    "messages", Long.toString(handler.received),
                    "missing", Long.toString(handler.missing),
                    "exit", Integer.toString(exitCode));
            }
            return exitCode;
        }
        catch (final RuntimeException | IOException ex)
        {
            stderr.println("raw-aeron-sub: " + ex.getMessage());
            return ExitCodes.FAILURE;
        }
    }

    /** Records each message's latency and counts sequence gaps; allocation-free. */
    static final class SequenceCheckingHandler implements FragmentHandler
    {
        private final LatencyRecorder recorder;
        private final EpochNanoClock clock;
        private final int messageLength;
        long received;
        long missing;
        long nextSequence;
        boolean ended;

        SequenceCheckingHandler(final LatencyRecorder recorder, final EpochNanoClock clock, final int messageLength)
        {
            this.recorder = recorder;
            this.clock = clock;
            this.messageLength = messageLength;
        }

        public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
        {
            if (0 == messageLength)
            {
                onMessage(buffer, offset, length);
                return;
            }
            for (int at = 0; at + messageLength <= length; at += messageLength)
            {
                onMessage(buffer, offset + at, messageLength);
            }
        }

        private void onMessage(final DirectBuffer buffer, final int offset, final int length)
        {
            if (length < RawAeronMessage.MIN_LENGTH)
            {
                return;
            }
            final long sequence = buffer.getLong(offset + RawAeronMessage.SEQUENCE_OFFSET, ByteOrder.LITTLE_ENDIAN);
            if (RawAeronMessage.END_SEQUENCE == sequence)
            {
                ended = true;
                return;
            }
            final long nowNs = clock.nanoTime();
            if (sequence > nextSequence)
            {
                missing += sequence - nextSequence;
            }
            nextSequence = Math.max(nextSequence, sequence + 1);
            received++;
            recorder.record(
                nowNs - buffer.getLong(offset + RawAeronMessage.SCHEDULED_TIME_OFFSET, ByteOrder.LITTLE_ENDIAN));
        }
    }

    /**
     * Run from the command line (ad-hoc; the mdfanout CLI registers this command).
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new RawAeronSubCommand()).execute(args));
    }
}
