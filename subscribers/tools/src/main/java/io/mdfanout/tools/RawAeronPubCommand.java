package io.mdfanout.tools;

import io.aeron.ChannelUri;
import io.aeron.CommonContext;
import io.aeron.ExclusivePublication;
import io.mdfanout.wire.ExitCodes;
import io.mdfanout.wire.PreciseEpochNanoClock;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.ByteOrder;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code raw-aeron-pub}: the benchmark's transport baseline. Offers fixed-length messages, one per offer, on an
 * Aeron publication at a fixed rate, each carrying the time it was scheduled to be sent (see
 * {@link RawAeronMessage}); {@code raw-aeron-sub} measures now minus that time. Paced like the simulator: the
 * n-th message is due at start + n / rate, all due messages go out in one duty cycle, and a sender more than
 * 10 ms behind its schedule forgets the older credit (the simulator's pacer cap), so both sides of the comparison
 * are corrected for coordinated omission the same way. Uses the tools' embedded media driver (or --aeron-dir).
 */
@Command(name = "raw-aeron-pub", hidden = true, mixinStandardHelpOptions = true, showDefaultValues = true,
    description = "Benchmark baseline: publish timestamped messages over plain Aeron at a fixed rate.")
public final class RawAeronPubCommand implements Callable<Integer>
{
    private static final long NANOS_PER_SECOND = 1_000_000_000L;


    @Option(names = "--channel", defaultValue = RawAeronMessage.DEFAULT_CHANNEL, description = "Aeron channel.")
    String channel;

    @Option(names = "--stream-id", defaultValue = RawAeronMessage.DEFAULT_STREAM_ID, description = "Aeron stream id.")
    int streamId;

    @Option(names = "--rate", defaultValue = "100000", description = "Messages per second; 0 = as fast as possible.")
    long rate;

    @Option(names = "--messages", defaultValue = "1000000", description = "Messages to send, then an end marker.")
    long messages;

    @Option(names = "--warmup-messages", defaultValue = "0",
        description = "Send the first of the --messages at --warmup-rate, then the rest at --rate, as the simulator's " +
            "warm-up does; the done line's measuredRate covers the messages after it. 0 = no warm-up.")
    long warmupMessages;

    @Option(names = "--warmup-rate", defaultValue = "200000",
        description = "Rate in messages/s of the --warmup-messages; 0 = as fast as possible.")
    long warmupRate;

    @Option(names = "--message-length", defaultValue = "48",
        description = "Bytes per message (our typical normalized SBE message with its header), at least 16.")
    int messageLength;

    @Option(names = "--max-lag-ms", defaultValue = "10", description = "The pacer's credit cap, as the simulator's " +
        "--max-lag-ms: a publisher that fell behind forgets the schedule older than this. 0 = no cap: every message " +
        "owed is sent, stamped with its scheduled time.")
    long maxLagMs;

    @Option(names = "--batch", description = "Pack the messages due at each duty cycle into one offer, up to the " +
        "publication's largest payload (one MTU), as the fanout packs what its ring holds into one packet: the " +
        "baseline batched the way the chain batches (raw-aeron-sub --message-length splits them again). Off: one " +
        "message per offer.")
    boolean batch;

    @Option(names = "--stamp-send-time",
        description = "Stamp each message with the time it is offered instead of the time it was scheduled: latency " +
            "then runs from the offer, the counterpart of the feed handler's --stamp-receive-time (no correction " +
            "for coordinated omission on the publisher's side, as on the chain's).")
    boolean stampSendTime;

    @Option(names = "--connect-timeout-s", defaultValue = "10",
        description = "Give up when no subscriber has connected within this time.")
    long connectTimeoutS;

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
        if (rate < 0 || rate > NANOS_PER_SECOND || messages <= 0 || connectTimeoutS <= 0 ||
            messageLength < RawAeronMessage.MIN_LENGTH || warmupMessages < 0 || warmupMessages >= messages ||
            warmupRate < 0 || warmupRate > NANOS_PER_SECOND || maxLagMs < 0)
        {
            stderr.println("raw-aeron-pub: need 0 <= --rate <= 1e9, --messages > 0, --connect-timeout-s > 0, " +
                "--message-length >= " + RawAeronMessage.MIN_LENGTH + ", 0 <= --warmup-messages < --messages, " +
                "0 <= --warmup-rate <= 1e9, --max-lag-ms >= 0");
            return ExitCodes.CONFIG;
        }
        final long maxLagNs = TimeUnit.MILLISECONDS.toNanos(maxLagMs);
        try
        {
            idleOptions.validate();
        }
        catch (final IllegalArgumentException ex)
        {
            stderr.println("raw-aeron-pub: " + ex.getMessage());
            return ExitCodes.CONFIG;
        }
        if (!channel.startsWith("aeron:"))
        {
            stderr.println("raw-aeron-pub: --channel is not an Aeron channel: " + channel);
            return ExitCodes.CONFIG;
        }

        try (StopSignal stopSignal = new StopSignal();
            // The same log settings as the fanout's publications (not sparse, touched when added), so that
            // the baseline and the chain differ only in what they do per message.
            ToolMedia media = ToolMedia.connect(aeronDir, idleOptions, true);
            ExclusivePublication publication = media.aeron().addExclusivePublication(notSparse(channel), streamId))
        {
            if (messageLength > publication.maxPayloadLength())
            {
                stderr.println("raw-aeron-pub: --message-length " + messageLength + " exceeds one frame (" +
                    publication.maxPayloadLength() + ")");
                return ExitCodes.CONFIG;
            }
            final IdleStrategy idle = media.pollIdle(idleOptions.newIdleStrategy());
            if (!RawAeronOffers.awaitConnected(publication, idle, stopSignal, connectTimeoutS))
            {
                stderr.println("raw-aeron-pub: no subscriber connected on " + channel + " stream " + streamId);
                return ExitCodes.TIMEOUT;
            }

            // A batch is whole messages up to one frame's payload; unbatched, one message.
            final int capacity = batch ? publication.maxPayloadLength() / messageLength * messageLength : messageLength;
            final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
                BitUtil.align(Math.max(capacity, 64), 64), 64));
            int batchLength = 0;
            final RawAeronOffers offers = new RawAeronOffers(publication, idle, stopSignal, connectTimeoutS);
            final long wallOffsetNs = new PreciseEpochNanoClock().nanoTime() - System.nanoTime();
            final long startNs = System.nanoTime();
            long scheduleStartNs = startNs;
            // The rate in force and the messages sent before it took over: the warm-up's, then the measured one's.
            long phaseRate = warmupMessages > 0 ? warmupRate : rate;
            long phaseStartSent = 0;
            long measuredStartNs = startNs;
            long sent = 0;
            while (sent < messages && stopSignal.isRunning())
            {
                final long nowNs = System.nanoTime();
                int work = 0;
                while (sent < messages)
                {
                    long dueNs = 0 == phaseRate ?
                        nowNs : scheduleStartNs + (sent - phaseStartSent) * NANOS_PER_SECOND / phaseRate;
                    if (dueNs > nowNs)
                    {
                        break;
                    }
                    if (maxLagNs > 0 && nowNs - dueNs > maxLagNs)
                    {
                        // The pacer's credit cap: forget the schedule older than --max-lag-ms.
                        scheduleStartNs += nowNs - dueNs - maxLagNs;
                        dueNs = nowNs - maxLagNs;
                    }
                    final long stampNs = stampSendTime ? System.nanoTime() : dueNs;
                    buffer.putLong(batchLength + RawAeronMessage.SCHEDULED_TIME_OFFSET, stampNs + wallOffsetNs,
                        ByteOrder.LITTLE_ENDIAN);
                    buffer.putLong(batchLength + RawAeronMessage.SEQUENCE_OFFSET, sent, ByteOrder.LITTLE_ENDIAN);
                    batchLength += messageLength;
                    if (batchLength == capacity)
                    {
                        offers.offer(buffer, batchLength);
                        batchLength = 0;
                    }
                    sent++;
                    work++;
                    if (sent == warmupMessages)
                    {
                        // The measured rate starts now, owing nothing for the time the warm-up took.
                        phaseRate = rate;
                        phaseStartSent = sent;
                        measuredStartNs = System.nanoTime();
                        scheduleStartNs = measuredStartNs;
                        break;
                    }
                    if (0 == phaseRate && (work & 0xFFF) == 0)
                    {
                        break;
                    }
                }
                if (batchLength > 0)
                {
                    offers.offer(buffer, batchLength);
                    batchLength = 0;
                }
                idle.idle(work);
            }
            final long endNs = System.nanoTime();
            final double elapsedS = (endNs - startNs) / 1e9;
            final double measuredS = (endNs - measuredStartNs) / 1e9;

            buffer.putLong(RawAeronMessage.SCHEDULED_TIME_OFFSET, 0, ByteOrder.LITTLE_ENDIAN);
            buffer.putLong(RawAeronMessage.SEQUENCE_OFFSET, RawAeronMessage.END_SEQUENCE, ByteOrder.LITTLE_ENDIAN);
            offers.offer(buffer, messageLength);
            offers.linger();
            stdout.printf(Locale.ROOT, "raw-aeron-pub: done: messages=%d length=%d offers=%d elapsed=%.3fs " +
                "rate=%.0f msg/s backPressured=%d%s%n", sent, messageLength, offers.offers(), elapsedS,
                sent / Math.max(elapsedS, 1e-9), offers.backPressured(),
                0 == warmupMessages || sent <= warmupMessages ? "" : String.format(Locale.ROOT,
                " warmup(messages=%d) measuredMessages=%d measuredElapsed=%.3fs measuredRate=%.0f", warmupMessages,
                sent - warmupMessages, measuredS, (sent - warmupMessages) / Math.max(measuredS, 1e-9)));
            return sent == messages ? ExitCodes.OK : ExitCodes.DATA_LOSS;
        }
        catch (final RuntimeException ex)
        {
            stderr.println("raw-aeron-pub: " + ex.getMessage());
            return ExitCodes.FAILURE;
        }
    }

    /**
     * Run from the command line (ad-hoc; the mdfanout CLI registers this command).
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new RawAeronPubCommand()).execute(args));
    }

    /** The channel with a log that is not sparse, unless it names its own choice. */
    static String notSparse(final String channel)
    {
        final ChannelUri uri = ChannelUri.parse(channel);
        if (!uri.containsKey(CommonContext.SPARSE_PARAM_NAME))
        {
            uri.put(CommonContext.SPARSE_PARAM_NAME, "false");
        }
        return uri.toString();
    }
}
