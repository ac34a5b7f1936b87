package io.mdfanout.feed.sim;

import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.NanoClock;

import java.io.IOException;

/**
 * The simulator's duty cycle: generate (or read from an ITCH file, {@link ItchFileSource}), pace, packetize,
 * heartbeat, and optionally record to an ITCH file.
 * <p>
 * Each {@link #doWork()} asks the {@link RatePacer} how many messages are due, generates and packs up to a batch
 * of them, and flushes the packet, so a light rate still produces small packets promptly while an unlimited rate
 * fills them. When nothing is due it sends a heartbeat if the line has been idle. At the end of a finite session
 * it sends the end-of-session packet. Never throws from {@link #doWork()}: a file write error is counted, reported
 * through {@link #fileError()}, and file output stops while sending goes on. Single-threaded, allocation-free in
 * steady state.
 */
public final class Simulator implements SessionSender
{
    /** Most messages generated per duty cycle, to bound the time between heartbeat and stop checks. */
    public static final int MAX_BATCH = 4096;

    private static final long NANOS_PER_DAY = 86_400_000_000_000L;
    private static final long NEVER_SENT = Long.MIN_VALUE;

    private final SessionGenerator generator;
    private final ItchFileSource fileSource;
    private final MoldUdp64Packetizer packetizer;
    private final RatePacer pacer;
    private final NanoClock clock;
    private final SimulatorCounters counters;
    private final ItchEvent event = new ItchEvent();
    private final EpochNanoClock latencyClock;
    private ItchFileWriter fileWriter;
    private IOException fileError;
    private boolean done;
    private RatePacer warmupPacer;
    private long warmupMessages;
    private long measuredStartNs = -1;
    private long coalesceNs;
    private long lastSendNs = NEVER_SENT;

    /**
     * Creates the duty cycle.
     *
     * @param generator  the session.
     * @param packetizer the packetizer (already connected to its sink).
     * @param pacer      the rate control.
     * @param clock      the clock the pacer runs on.
     * @param fileWriter where to record the session too, or null.
     * @param counters   the counters (file errors are counted here).
     */
    public Simulator(
        final SessionGenerator generator,
        final MoldUdp64Packetizer packetizer,
        final RatePacer pacer,
        final NanoClock clock,
        final ItchFileWriter fileWriter,
        final SimulatorCounters counters)
    {
        this(generator, packetizer, pacer, clock, fileWriter, counters, null);
    }

    /**
     * Creates the duty cycle, optionally stamping messages for latency measurement: with a {@code latencyClock},
     * every message's ITCH timestamp is replaced by the wall-clock time (nanoseconds since midnight UTC) at which
     * the pacer scheduled it to be sent ({@link RatePacer#scheduledTimeNs(long, long)}), so a subscriber can
     * measure scheduled send to delivery, corrected for coordinated omission.
     *
     * @param generator    the session.
     * @param packetizer   the packetizer (already connected to its sink).
     * @param pacer        the rate control.
     * @param clock        the clock the pacer runs on.
     * @param fileWriter   where to record the session too, or null.
     * @param counters     the counters (file errors are counted here).
     * @param latencyClock the wall clock for latency timestamps, or null to keep the session's own timestamps.
     */
    public Simulator(
        final SessionGenerator generator,
        final MoldUdp64Packetizer packetizer,
        final RatePacer pacer,
        final NanoClock clock,
        final ItchFileWriter fileWriter,
        final SimulatorCounters counters,
        final EpochNanoClock latencyClock)
    {
        this(generator, null, packetizer, pacer, clock, fileWriter, counters, latencyClock);
    }

    /**
     * Creates the duty cycle for a session read from an ITCH file instead of generated: the same pacing, warm-up,
     * latency stamping (the file's timestamps are replaced when a {@code latencyClock} is given) and end of session,
     * which comes at the end of the file, at its message limit or at a record that cannot be sent
     * ({@link ItchFileSource#error()}).
     *
     * @param fileSource   the messages.
     * @param packetizer   the packetizer (already connected to its sink).
     * @param pacer        the rate control.
     * @param clock        the clock the pacer runs on.
     * @param counters     the counters.
     * @param latencyClock the wall clock for latency timestamps, or null to keep the file's own timestamps.
     */
    public Simulator(
        final ItchFileSource fileSource,
        final MoldUdp64Packetizer packetizer,
        final RatePacer pacer,
        final NanoClock clock,
        final SimulatorCounters counters,
        final EpochNanoClock latencyClock)
    {
        this(null, fileSource, packetizer, pacer, clock, null, counters, latencyClock);
    }

    /** One of generator and fileSource is null. */
    private Simulator(
        final SessionGenerator generator,
        final ItchFileSource fileSource,
        final MoldUdp64Packetizer packetizer,
        final RatePacer pacer,
        final NanoClock clock,
        final ItchFileWriter fileWriter,
        final SimulatorCounters counters,
        final EpochNanoClock latencyClock)
    {
        this.latencyClock = latencyClock;
        this.generator = generator;
        this.fileSource = fileSource;
        this.packetizer = packetizer;
        this.pacer = pacer;
        this.clock = clock;
        this.fileWriter = fileWriter;
        this.counters = counters;
    }

    /**
     * Pace the first messages of the session with another pacer: a warm-up (every process of a benchmark compiles
     * its hot paths on the first messages) before the rate being measured. The main pacer starts, with no credit,
     * when the last warm-up message has been sent.
     *
     * @param messages the messages of the warm-up, at least 1.
     * @param pacer    the warm-up's rate control.
     */
    public void warmup(final long messages, final RatePacer pacer)
    {
        if (messages < 1)
        {
            throw new IllegalArgumentException("a warm-up needs at least one message: " + messages);
        }
        this.warmupMessages = messages;
        this.warmupPacer = pacer;
    }

    /**
     * Send due messages at most once every {@code intervalNs}, so that messages due in the meantime share packets.
     * <p>
     * Why: each duty cycle sends what the pacer says is due and flushes the packet, so a loop that spins faster than
     * messages fill a packet sends packets of a few messages (docs/OPERATIONS.md has the figures). An exchange's
     * packetizer under load fills its packets, and a receiver's cost is per packet as much as
     * per message (a system call, the kernel's delivery), so a throughput test fed tiny packets measures the feed's
     * packet rate, not its message rate. With an interval, a message waits at most that long after the previous send
     * (its latency timestamp stays the time it was due, so a latency run counts the wait).
     *
     * @param intervalNs the least time between two sends; 0 (the default) sends every cycle's due messages at once.
     */
    public void coalesce(final long intervalNs)
    {
        if (intervalNs < 0)
        {
            throw new IllegalArgumentException("the coalescing interval must be >= 0: " + intervalNs);
        }
        this.coalesceNs = intervalNs;
    }

    /**
     * One duty cycle.
     *
     * @return the number of messages generated (0 when idle or done).
     */
    public int doWork()
    {
        if (done)
        {
            return 0;
        }

        final long nowNs = clock.nanoTime();
        if (NEVER_SENT != lastSendNs && nowNs - lastSendNs < coalesceNs)
        {
            return 0; // holding due messages so that they share packets; heartbeats are for an idle line
        }
        final long warmupLeft = warmupMessages - messages();
        final RatePacer pacer = warmupLeft > 0 ? warmupPacer : this.pacer;
        final long due = Math.min(Math.min(MAX_BATCH, pacer.available(nowNs)), warmupLeft > 0 ? warmupLeft : MAX_BATCH);
        // Wall clock minus pacer clock, read once per cycle: turns the pacer's schedule into time of day.
        final long wallOffsetNs = null == latencyClock ? 0 : latencyClock.nanoTime() - nowNs;
        int generated = 0;
        final ItchFileSource fileSource = this.fileSource;
        while (generated < due)
        {
            final long timestampNs = null == latencyClock ? ItchFileSource.KEEP_TIMESTAMP :
                Math.floorMod(pacer.scheduledTimeNs(nowNs, generated) + wallOffsetNs, NANOS_PER_DAY);
            if (null != fileSource)
            {
                if (!fileSource.appendNext(packetizer, timestampNs))
                {
                    finish();
                    break;
                }
            }
            else
            {
                if (!generator.next(event))
                {
                    finish();
                    break;
                }
                if (null != latencyClock)
                {
                    event.timestamp = timestampNs;
                }
                packetizer.append(event);
                record();
            }
            generated++;
        }

        if (generated > 0)
        {
            pacer.consume(generated);
            packetizer.flush();
            lastSendNs = nowNs;
            if (warmupLeft > 0 && generated == warmupLeft)
            {
                measuredStartNs = clock.nanoTime();
                this.pacer.restart(measuredStartNs);
            }
        }
        else if (!done)
        {
            packetizer.heartbeatIfIdle();
        }
        return generated;
    }

    /**
     * Whether the session has ended and its end-of-session packet has been sent.
     *
     * @return true when done.
     */
    public boolean isDone()
    {
        return done;
    }

    /**
     * Ends the session now (e.g. on Ctrl-C in endless mode): flushes, sends the end-of-session packet. Idempotent.
     */
    public void finish()
    {
        if (!done)
        {
            done = true;
            packetizer.endOfSession();
        }
    }

    /**
     * When the messages after the warm-up began: the pacer clock's time the last warm-up message was sent.
     *
     * @return the time, or -1 without a warm-up or before its end.
     */
    public long measuredStartNs()
    {
        return measuredStartNs;
    }

    /**
     * Messages generated so far.
     *
     * @return the count.
     */
    public long messages()
    {
        return null != fileSource ? fileSource.emitted() : generator.emitted();
    }

    /**
     * The error that stopped file output, if any.
     *
     * @return the error or null.
     */
    public IOException fileError()
    {
        return fileError;
    }

    private void record()
    {
        if (null != fileWriter)
        {
            try
            {
                fileWriter.write(event);
            }
            catch (final IOException ex)
            {
                fileError = ex;
                fileWriter = null;
                counters.fileErrors().incrementRelease();
            }
        }
    }
}
