package io.mdfanout.bench.peers;

import io.mdfanout.sdk.LocalCounters;
import io.mdfanout.sdk.PacketStreamDecoder;
import io.mdfanout.sdk.SubscriberCounters;
import io.mdfanout.tools.LatencyRecorder;
import io.mdfanout.tools.StopSignal;
import io.mdfanout.wire.PreciseEpochNanoClock;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import org.agrona.concurrent.UnsafeBuffer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code nats-latency}: the {@code latency} tool for the NATS peer. Subscribes to {@code <prefix>.<partition>}
 * for each partition on one jnats dispatcher (one thread, so one SDK decoder), hands each NATS message (one
 * packet of our wire format) to the SDK's {@link PacketStreamDecoder} (the same validation, sequencing and
 * dispatch as an Aeron subscriber, without recovery: NATS has no snapshot stream here) and records
 * now - exchangeTimestamp per incremental message with the latency tool's {@link LatencyRecorder}, clock and
 * warm-up rule. Output: the same summary line, JSON and .hgrm as {@code latency}.
 * <p>
 * Per message, jnats allocates a Message and its body array (the peer's cost); the decoding allocates nothing.
 * Core NATS is at-most-once: a subscriber that falls behind its pending limits loses messages (dropped), so the
 * limits are raised and any loss is reported (gaps from the stream sequences, dropped from the client).
 * <p>
 * Exit codes as {@code latency}: 0 clean, 1 configuration or connection error, 2 data lost (gaps or drops),
 * 3 timeout.
 */
@Command(name = "nats-latency", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = "Benchmark peer: measure end-to-end latency (now - exchange timestamp) of the packets "
        + "nats-bridge publishes; run the simulator with --latency-timestamps.")
public final class NatsLatencyCommand implements Callable<Integer>
{
    static final int EXIT_CLEAN = 0;
    static final int EXIT_ERROR = 1;
    static final int EXIT_DATA_LOSS = 2;
    static final int EXIT_TIMEOUT = 3;
    /** The decoder treats a new session id as a re-join; NATS has no sessions, so one constant. */
    private static final int SESSION_ID = 1;

    @Option(names = "--url", defaultValue = "nats://127.0.0.1:4222", description = "NATS server URL.")
    String url;

    @Option(names = "--subject-prefix", defaultValue = "mdfanout", description = "Subject prefix; partition p "
        + "is on <prefix>.<p>.")
    String subjectPrefix;

    @Option(names = "--partitions", defaultValue = "4", description = "Number of partitions (0..N-1).")
    int partitions;

    @Option(names = "--messages", defaultValue = "0", description = "Stop after this many measured messages "
        + "(0 = at END_OF_MESSAGES on every partition).")
    long messages;

    @Option(names = "--warmup-messages", defaultValue = "0",
        description = "Leave the first N measured messages out of the histogram (JIT warm-up, joins).")
    long warmupMessages;

    @Option(names = "--timeout-s", defaultValue = "0", description = "Give up after this many seconds with exit "
        + "code 3 (0 = no limit).")
    long timeoutS;

    @Option(names = "--ready-file", description = "Create this file once the subscriptions are registered on the "
        + "server.")
    Path readyFile;

    @Option(names = "--json-out", description = "Write the percentiles (microseconds) and counters as one JSON "
        + "object to this file at exit.")
    Path jsonOut;

    @Option(names = "--hgrm-out", description = "Write the HdrHistogram percentile distribution (.hgrm, "
        + "microseconds) to this file at exit.")
    Path hgrmOut;

    @Option(names = "--label", defaultValue = "nats", description = "Name of the measured system in the JSON.")
    String label;

    /** {@inheritDoc} */
    public Integer call()
    {
        if (partitions < 1 || partitions > 0xFFFF || messages < 0 || timeoutS < 0)
        {
            System.err.println("nats-latency: --partitions must be 1..65535, --messages and --timeout-s not negative");
            return EXIT_ERROR;
        }
        final LatencyRecorder recorder;
        try
        {
            recorder = new LatencyRecorder(warmupMessages);
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("nats-latency: " + ex.getMessage());
            return EXIT_ERROR;
        }

        final int[] partitionIds = new int[partitions];
        for (int i = 0; i < partitions; i++)
        {
            partitionIds[i] = i;
        }
        final SubscriberCounters counters = new SubscriberCounters(
            LocalCounters.create(SubscriberCounters.COUNTER_COUNT), "nats-latency");
        final NatsLatencyListener listener = new NatsLatencyListener(
            recorder, new PreciseEpochNanoClock(), partitionIds, messages);
        final AtomicLong decodeErrors = new AtomicLong();
        final PacketStreamDecoder decoder = new PacketStreamDecoder(
            partitionIds, listener, counters, ex -> decodeErrors.incrementAndGet());
        final Options options = new Options.Builder()
            .server(url)
            .connectionTimeout(Duration.ofSeconds(5))
            .noReconnect()
            .bufferSize(256 * 1024)
            .build();

        int exitCode;
        long dropped = 0;
        try (StopSignal shutdown = new StopSignal())
        {
            try (Connection connection = Nats.connect(options))
            {
                final UnsafeBuffer packet = new UnsafeBuffer(new byte[0]);
                final Dispatcher dispatcher = connection.createDispatcher();
                // Never drop for being slow while measuring: a drop would hide the latency it causes.
                dispatcher.setPendingLimits(100_000_000L, 8L * 1024 * 1024 * 1024);
                for (int slot = 0; slot < partitions; slot++)
                {
                    final int partitionSlot = slot;
                    dispatcher.subscribe(subjectPrefix + "." + slot,
                        (Message msg) -> onPacket(decoder, packet, partitionSlot, msg.getData()));
                }
                connection.flush(Duration.ofSeconds(5)); // the subscriptions are on the server now
                if (null != readyFile)
                {
                    Files.createFile(readyFile);
                }

                final long deadlineNs = timeoutS > 0 ? System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS) : 0;
                exitCode = EXIT_CLEAN;
                while (!listener.isDone())
                {
                    if (!shutdown.isRunning())
                    {
                        break;
                    }
                    if (deadlineNs != 0 && System.nanoTime() - deadlineNs >= 0)
                    {
                        exitCode = EXIT_TIMEOUT;
                        break;
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
                dropped = dispatcher.getDroppedCount();
                connection.closeDispatcher(dispatcher);
            }
            if (EXIT_CLEAN == exitCode && (counters.gaps() > 0 || dropped > 0 || counters.malformed() > 0))
            {
                exitCode = EXIT_DATA_LOSS;
            }
            System.out.println(recorder.summary("nats-latency"));
            System.out.println("nats-latency: messages=" + counters.messages() + " gaps=" + counters.gaps() +
                " missing=" + counters.missingMessages() + " malformed=" + counters.malformed() +
                " dropped=" + dropped + " packets=" + counters.packets() + " decodeErrors=" + decodeErrors.get() +
                " ended=" + listener.endedPartitions() + "/" + partitions +
                (EXIT_TIMEOUT == exitCode ? " (timed out)" : ""));
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
                    "recoveries", "0",
                    "dropped", Long.toString(dropped),
                    "exit", Integer.toString(exitCode));
            }
            return exitCode;
        }
        catch (final IOException ex)
        {
            System.err.println("nats-latency: " + ex.getMessage());
            return EXIT_ERROR;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            System.err.println("nats-latency: interrupted");
            return EXIT_ERROR;
        }
        catch (final RuntimeException | java.util.concurrent.TimeoutException ex)
        {
            System.err.println("nats-latency: cannot use the NATS server at " + url + ": " + ex);
            return EXIT_ERROR;
        }
    }

    private static void onPacket(
        final PacketStreamDecoder decoder, final UnsafeBuffer packet, final int slot, final byte[] data)
    {
        if (null != data && data.length > 0)
        {
            packet.wrap(data);
            decoder.onMessage(slot, SESSION_ID, packet, 0, data.length);
        }
    }

    /**
     * Run from the command line.
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new NatsLatencyCommand()).execute(args));
    }
}
