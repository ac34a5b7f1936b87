package io.mdfanout.feed.replay;

import io.mdfanout.feed.handler.FeedHandlerCounters;
import io.mdfanout.feed.handler.ArbitrationCounters;
import io.mdfanout.feed.handler.LineArbiter;
import io.mdfanout.feed.handler.FeedStats;
import io.mdfanout.feed.handler.PeriodicPrinter;
import io.mdfanout.feed.handler.RingOptions;
import io.mdfanout.feed.handler.InMemoryCounters;
import io.mdfanout.feed.normalize.ItchNormalizer;
import io.mdfanout.feed.normalize.NormalizerCounters;
import io.mdfanout.feed.normalize.PartitionRingSet;
import io.mdfanout.wire.Defaults;
import io.mdfanout.wire.ExitCodes;
import io.mdfanout.wire.IdleStrategyType;
import io.mdfanout.wire.RoleErrorLog;
import io.mdfanout.wire.StopSignals;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code replay}: normalize a recorded feed into the partition rings, as fast as possible or at the
 * original pace, then print a summary. The format is told by the magic bytes (after any gzip
 * layer): a NASDAQ binary ITCH 5.0 file (the exchange sequence of each message is its 1-based
 * record index), or a pcap/pcapng capture of MoldUDP64 traffic (each selected UDP payload goes
 * through the same {@link LineArbiter} as live traffic, as a single line with no recovery, so the exchange
 * sequence is the MoldUDP64 sequence and every gap publishes a GapNotice at once). Ring files are created at start
 * and left in place.
 * <p>
 * On a terminal a progress line (percent of the file, messages/s, ETA) is redrawn in place; otherwise
 * periodic stats lines go to stderr. A summary line ends the replay either way.
 */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    showDefaultValues = true,
    description = "Replay a NASDAQ binary ITCH 5.0 file or a pcap/pcapng capture of MoldUDP64 traffic " +
        "(format told by its magic bytes; plain or gzip) into the partition ring buffers. " +
        "Ring files are created at start and left in place on exit.")
public final class ReplayCommand implements Callable<Integer>
{
    private static final long PROGRESS_REDRAW_MS = 250;

    @Option(names = "--file", required = true,
        description = "ITCH 5.0 binary file (2-byte length + message), pcap or pcapng capture; gzip detected.")
    Path file;

    @Option(names = "--group",
        description = "Captures only: replay UDP datagrams to this destination IPv4 address (default: any).")
    String group;

    @Option(names = "--port", defaultValue = "-1",
        description = "Captures only: replay UDP datagrams to this destination port; -1 = any.")
    int port;

    @Option(names = "--session",
        description = "Captures only: MoldUDP64 session to accept (default: the first one seen).")
    String session;

    @Option(names = "--progress", defaultValue = "auto",
        description = "auto: a progress line redrawn in place when on a terminal, else --stats-interval-s lines; " +
            "on: always the progress line; off: always the stats lines.")
    String progress;

    @Mixin
    RingOptions ringOptions;

    @Option(names = "--pace", defaultValue = "max",
        description = "max: as fast as the rings accept; original: at the pace of the ITCH timestamps " +
            "(of the capture timestamps for a capture).")
    String pace;

    @Option(names = "--start-delay-ms", defaultValue = "0",
        description = "After creating the rings, wait this long before the first message, so the fanout and " +
            "subscribers can join first (the fanout drops what it publishes while no subscriber is connected).")
    long startDelayMs;

    @Option(names = "--wait-for-file",
        description = "After creating the rings, wait until this file exists before the first message " +
            "(for orchestration: e.g. a subscriber's ready file).")
    Path waitForFile;

    @Option(names = "--wait-for-consumer", defaultValue = "false",
        description = "After the last message, wait until the consumer (fanout) has drained every ring.")
    boolean waitForConsumer;

    @Option(names = "--idle-strategy", defaultValue = Defaults.IDLE_STRATEGY,
        description = "How to wait while a ring is full: backoff, park, yield or busy-spin.")
    String idleStrategy;

    @Option(names = "--stats-interval-s", defaultValue = "5",
        description = "Seconds between progress lines on stderr; 0 = off.")
    int statsIntervalS;

    /**
     * Replay the file.
     *
     * @return 0 when the whole file was replayed, 1 when it could not be read or stopped early, 2 for a
     * wrong configuration.
     */
    public Integer call()
    {
        final ReplayPace replayPace;
        final IdleStrategyType idle;
        int groupAddress = 0;
        try
        {
            replayPace = ReplayPace.parse(pace);
            idle = IdleStrategyType.parse(idleStrategy);
            ringOptions.validate();
            if (statsIntervalS < 0)
            {
                throw new IllegalArgumentException("--stats-interval-s must be 0 or more: " + statsIntervalS);
            }
            if (startDelayMs < 0)
            {
                throw new IllegalArgumentException("--start-delay-ms must be 0 or more: " + startDelayMs);
            }
            if (!file.toFile().isFile())
            {
                throw new IllegalArgumentException("file not found: " + file);
            }
            if (port < -1 || port > 65_535)
            {
                throw new IllegalArgumentException("--port must be -1 (any) or 0 to 65535: " + port);
            }
            if (null != group)
            {
                groupAddress = parseIpv4(group);
            }
            if (null != session)
            {
                LineArbiter.sessionBytes(session);
            }
            if (!"auto".equals(progress) && !"on".equals(progress) && !"off".equals(progress))
            {
                throw new IllegalArgumentException("--progress must be auto, on or off: " + progress);
            }
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("replay: error: " + ex.getMessage());
            return ExitCodes.CONFIG;
        }

        // On SIGINT/SIGTERM: interrupt the replay (it stops at the next record or ring wait) and
        // hold the JVM until the rings are unmapped.
        final Thread replayThread = Thread.currentThread();
        final CountDownLatch finished = new CountDownLatch(1);
        final Thread hook = new Thread(
            () ->
            {
                replayThread.interrupt();
                try
                {
                    finished.await(10, TimeUnit.SECONDS);
                }
                catch (final InterruptedException ignore)
                {
                    // exit anyway
                }
            },
            "replay-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        // SIGTERM/SIGINT without a JVM shutdown: the replay stops and returns its own exit code (0, stopped).
        final StopSignals.Registration stopRegistration = StopSignals.onStop(replayThread::interrupt);

        Thread statsThread = null;
        final InMemoryCounters counters = new InMemoryCounters(256);
        final NormalizerCounters normalizerCounters =
            new NormalizerCounters(counters.countersManager(), "replay", ringOptions.partitions());
        final ReplayCounters replayCounters = new ReplayCounters(counters.countersManager());
        // A resource after the rings: closed (stopped and joined) before they are unmapped on every path, so the
        // heartbeat never writes to an unmapped header.
        try (PartitionRingSet rings = new PartitionRingSet(ringOptions.ringDir(), ringOptions.partitions(),
            ringOptions.ringCapacity(), "replay", PartitionRingSet.Mode.NEW_GENERATION, null);
            Heartbeat heartbeat = new Heartbeat(startHeartbeatThread(rings));
            ReplayInput input = ReplayInput.open(file, replayCounters.fileBytesRead()))
        {
            System.err.println("replay: rings: " + rings.describe());
            final ItchNormalizer normalizer =
                new ItchNormalizer(rings.rings(), idle.newIdleStrategy(), normalizerCounters);
            final boolean capture = ReplayFormat.ITCH != input.format();
            if (!capture && (null != group || -1 != port || null != session))
            {
                System.err.println("replay: note: --group, --port and --session apply to captures only; " +
                    file + " is an ITCH file");
            }
            final FeedHandlerCounters feedCounters =
                capture ? new FeedHandlerCounters(counters.countersManager(), "replay") : null;
            final CaptureCounters captureCounters =
                capture ? new CaptureCounters(counters.countersManager()) : null;

            final boolean terminal = "on".equals(progress) || ("auto".equals(progress) && null != System.console());
            if (terminal)
            {
                statsThread = startProgressThread(input.fileSize(), replayCounters, normalizerCounters);
            }
            else if (statsIntervalS > 0)
            {
                statsThread = startStatsThread(
                    input.fileSize(), replayCounters, feedCounters, captureCounters, normalizerCounters, statsIntervalS);
            }

            awaitStart();
            final long startNs = System.nanoTime();
            final ItchFileReplayer.Outcome outcome;
            if (capture)
            {
                final LineArbiter arbiter = LineArbiter.singleLine(session, normalizer, feedCounters,
                    new ArbitrationCounters(counters.countersManager(), "replay"));
                final CaptureFrameDecoder decoder = new CaptureFrameDecoder(
                    null == group, groupAddress, port, arbiter::onDatagram, captureCounters);
                outcome = new CaptureReplayer(decoder, captureCounters, replayPace).replay(input);
            }
            else
            {
                outcome = new ItchFileReplayer(normalizer, replayCounters, replayPace).replay(input.stream());
            }
            final long elapsedNs = Math.max(1, System.nanoTime() - startNs);
            stop(statsThread);
            statsThread = null;
            if (terminal)
            {
                System.err.println();
            }

            final long messages = normalizerCounters.totalDecoded();
            System.err.printf(
                "replay: %s: %s %s, %d messages in %.3f s (%.0f msg/s), %s%n",
                file, input.format(), outcome, messages, elapsedNs / 1e9, messages * 1e9 / elapsedNs,
                framingLine(replayCounters, captureCounters) + " " +
                FeedStats.line(feedCounters, normalizerCounters));

            if (waitForConsumer && ItchFileReplayer.Outcome.INTERRUPTED != outcome)
            {
                System.err.println("replay: waiting for the consumer to drain " + ringOptions.partitions() + " ring(s)");
                if (!awaitDrained(rings.rings()))
                {
                    System.err.println("replay: interrupted while waiting for the consumer");
                    return ExitCodes.FAILURE;
                }
            }
            heartbeat.close();
            rings.header().sourceState(io.mdfanout.wire.RingSetHeader.SOURCE_STOPPED);
            if (ItchFileReplayer.Outcome.INTERRUPTED == outcome && StopSignals.isSignalled())
            {
                System.err.println("replay: stopped");
                return ExitCodes.OK;
            }
            return ItchFileReplayer.Outcome.COMPLETED == outcome ? ExitCodes.OK : ExitCodes.FAILURE;
        }
        catch (final InterruptedException ex)
        {
            System.err.println("replay: stopped before the first message");
            return StopSignals.isSignalled() ? ExitCodes.OK : ExitCodes.FAILURE;
        }
        catch (final NoSuchFileException ex)
        {
            System.err.println("replay: error: file not found: " + ex.getFile());
            return ExitCodes.CONFIG;
        }
        catch (final IOException | RuntimeException ex)
        {
            RoleErrorLog.open(ringOptions.ringDir(), "replay", null).record(ex);
            System.err.println("replay: error: " + file + ": " + ex.getMessage());
            return ExitCodes.of(ex);
        }
        finally
        {
            if (null != statsThread)
            {
                statsThread.interrupt();
            }
            stopRegistration.close();
            finished.countDown();
            try
            {
                Runtime.getRuntime().removeShutdownHook(hook);
            }
            catch (final IllegalStateException ignore)
            {
                // already shutting down: the hook is running
            }
            Thread.interrupted(); // clear our own interrupt before returning to the caller
        }
    }

    private static boolean awaitDrained(final RingBuffer[] rings)
    {
        for (final RingBuffer ring : rings)
        {
            while (ring.consumerPosition() < ring.producerPosition())
            {
                if (Thread.currentThread().isInterrupted())
                {
                    return false;
                }
                try
                {
                    Thread.sleep(1);
                }
                catch (final InterruptedException ex)
                {
                    return false;
                }
            }
        }
        return true;
    }

    /** The heartbeat thread as a resource: closing it stops it and waits for it, once. */
    private static final class Heartbeat implements AutoCloseable
    {
        private Thread thread;

        Heartbeat(final Thread thread)
        {
            this.thread = thread;
        }

        public void close()
        {
            stop(thread);
            thread = null;
        }
    }

    /** Stop the display thread and wait for its last line, keeping this thread's interrupt status. */
    private static void stop(final Thread thread)
    {
        if (null == thread)
        {
            return;
        }
        thread.interrupt();
        boolean interrupted = Thread.interrupted();
        try
        {
            thread.join(1000);
        }
        catch (final InterruptedException ex)
        {
            interrupted = true;
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static String framingLine(final ReplayCounters replayCounters, final CaptureCounters captureCounters)
    {
        if (null == captureCounters)
        {
            return "records=" + replayCounters.recordsRead().get() +
                " truncated=" + replayCounters.truncatedRecords().get() +
                " unframeable=" + replayCounters.unframeableRecords().get();
        }
        return "captureRecords=" + captureCounters.records().get() +
            " datagrams=" + captureCounters.datagrams().get() +
            " filteredOut=" + captureCounters.filteredOut().get() +
            " snapped=" + captureCounters.snappedRecords().get() +
            " malformed=" + captureCounters.malformedRecords().get() +
            " unknownLinkType=" + captureCounters.unknownLinkType().get() +
            " nonIpv4=" + captureCounters.nonIpv4().get() +
            " nonUdp=" + captureCounters.nonUdp().get() +
            " fragmentsSkipped=" + captureCounters.fragmentsSkipped().get() +
            " firstFragments=" + captureCounters.firstFragments().get() +
            " otherBlocks=" + captureCounters.otherBlocks().get() +
            " truncatedAtEnd=" + captureCounters.truncatedAtEnd().get();
    }

    private static int parseIpv4(final String text)
    {
        final String[] parts = text.split("\\.", -1);
        if (4 != parts.length)
        {
            throw new IllegalArgumentException("--group must be a dotted IPv4 address: " + text);
        }
        int address = 0;
        for (final String part : parts)
        {
            final int octet;
            try
            {
                octet = Integer.parseInt(part);
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException("--group must be a dotted IPv4 address: " + text);
            }
            if (octet < 0 || octet > 255 || part.isEmpty() || part.length() > 3)
            {
                throw new IllegalArgumentException("--group must be a dotted IPv4 address: " + text);
            }
            address = (address << 8) | octet;
        }
        return address;
    }

    /** The start gates: a fixed delay, then the file to wait for; a stop signal interrupts both. */
    private void awaitStart() throws InterruptedException
    {
        if (startDelayMs > 0)
        {
            Thread.sleep(startDelayMs);
        }
        if (null != waitForFile)
        {
            while (!java.nio.file.Files.exists(waitForFile))
            {
                Thread.sleep(10);
            }
        }
    }

    private static Thread startProgressThread(
        final long fileSize, final ReplayCounters replayCounters, final NormalizerCounters normalizerCounters)
    {
        final ReplayProgress progress = new ReplayProgress(fileSize, System.nanoTime());
        return PeriodicPrinter.start("replay-progress", PROGRESS_REDRAW_MS,
            () ->
            {
                System.err.print(progress.redraw(
                    replayCounters.fileBytesRead().get(), normalizerCounters.totalDecoded(), System.nanoTime()));
                System.err.flush();
            },
            true);
    }

    private static Thread startStatsThread(
        final long fileSize,
        final ReplayCounters replayCounters,
        final FeedHandlerCounters feedCounters,
        final CaptureCounters captureCounters,
        final NormalizerCounters normalizerCounters,
        final int intervalS)
    {
        return PeriodicPrinter.start("replay-stats", TimeUnit.SECONDS.toMillis(intervalS),
            () ->
            {
                final long read = replayCounters.fileBytesRead().get();
                System.err.printf("replay: %.1f%% of the file read, %s %s%n",
                    fileSize <= 0 ? 100.0 : Math.min(100.0, read * 100.0 / fileSize),
                    framingLine(replayCounters, captureCounters),
                    FeedStats.line(feedCounters, normalizerCounters));
            },
            false);
    }

    /**
     * Run the command on its own, outside the {@code mdfanout} entry point.
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new ReplayCommand()).execute(args));
    }

    /**
     * The producer heartbeat in the ring header, from a thread of its own: a replay has no duty cycle,
     * and its reads block on the file or on a full ring, which is not the source being down.
     */
    private static Thread startHeartbeatThread(final PartitionRingSet rings)
    {
        final Thread thread = new Thread(() ->
        {
            while (!Thread.currentThread().isInterrupted())
            {
                rings.header().heartbeat(System.currentTimeMillis(), 0, io.mdfanout.wire.RingSetHeader.SOURCE_LIVE);
                try
                {
                    Thread.sleep(100);
                }
                catch (final InterruptedException ex)
                {
                    return;
                }
            }
        }, "replay-heartbeat");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

}
