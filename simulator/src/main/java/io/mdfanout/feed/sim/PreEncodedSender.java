package io.mdfanout.feed.sim;

import org.agrona.concurrent.NanoClock;

/**
 * Sends a {@link PreEncodedSession} at the pacer's rate, whole packets at a time: each duty cycle hands every packet
 * whose messages are due to the sink (the lines, the retransmission history), back to back. The live
 * {@link MoldUdp64Packetizer} is told of each packet ({@link MoldUdp64Packetizer#sent}) so that its heartbeats, the
 * end of session and the counters carry the session's sequence as if it had packed the messages itself.
 * <p>
 * A packet goes as soon as the pacer has credit for its first message and the rest is owed, so the rate holds
 * over a packet's messages (a packet of 1,400 bytes holds about 40) and is exact on average. The warm-up ends on a
 * packet boundary: the session is packed with a packet ending at the warm-up's last message. Single-threaded,
 * allocation-free.
 */
public final class PreEncodedSender implements SessionSender
{
    private final PreEncodedSession session;
    private final MoldUdp64Packetizer packetizer;
    private final PacketSink sink;
    private final RatePacer pacer;
    private final NanoClock clock;

    private long warmupMessages;
    private RatePacer warmupPacer;
    private long measuredStartNs = -1;
    private int next;
    private long messages;
    private long debt;
    private boolean done;

    /**
     * @param session    the packets to send.
     * @param packetizer the live packetizer, told of every packet sent; it sends heartbeats and the end of session.
     * @param sink       where each packet goes (the simulator's distributor).
     * @param pacer      the rate control.
     * @param clock      the clock the pacer runs on.
     */
    public PreEncodedSender(
        final PreEncodedSession session,
        final MoldUdp64Packetizer packetizer,
        final PacketSink sink,
        final RatePacer pacer,
        final NanoClock clock)
    {
        this.session = session;
        this.packetizer = packetizer;
        this.sink = sink;
        this.pacer = pacer;
        this.clock = clock;
    }

    /**
     * The first messages at another rate, as {@link Simulator#warmup}.
     *
     * @param messages how many; the session must have a packet ending there.
     * @param pacer    the warm-up's rate control.
     */
    public void warmup(final long messages, final RatePacer pacer)
    {
        this.warmupMessages = messages;
        this.warmupPacer = pacer;
    }

    /** {@inheritDoc} */
    public int doWork()
    {
        if (done)
        {
            return 0;
        }
        final long nowNs = clock.nanoTime();
        final boolean warmingUp = messages < warmupMessages;
        final RatePacer pacer = warmingUp ? warmupPacer : this.pacer;
        long credit = pacer.available(nowNs);
        // A packet sent on part of its credit leaves a debt, paid from the credit that accrues next: the rate holds
        // on average, a packet at most ahead, and a packet of more messages than the pacer's credit cap still goes.
        final long paid = Math.min(credit, debt);
        pacer.consume(paid);
        debt -= paid;
        credit -= paid;
        final long due = Math.min(Simulator.MAX_BATCH, credit);
        final long limit = warmingUp ? warmupMessages - messages : Long.MAX_VALUE;
        final PreEncodedSession session = this.session;
        int sent = 0;
        while (next < session.packets() && due > 0)
        {
            final int count = session.messageCount(next);
            if (sent > 0 && (sent + count > due || sent + count > limit))
            {
                break;
            }
            sink.onPacket(session.buffer(next), session.offset(next), session.length(next));
            packetizer.sent(count);
            sent += count;
            next++;
        }
        if (sent > 0)
        {
            pacer.consume(Math.min(sent, credit));
            debt += Math.max(0, sent - credit);
            messages += sent;
            if (warmingUp && messages >= warmupMessages)
            {
                measuredStartNs = clock.nanoTime();
                this.pacer.restart(measuredStartNs);
                debt = 0;
            }
        }
        if (next == session.packets())
        {
            finish();
        }
        else if (0 == sent)
        {
            packetizer.heartbeatIfIdle();
        }
        return sent;
    }

    /** {@inheritDoc} */
    public boolean isDone()
    {
        return done;
    }

    /** {@inheritDoc} */
    public void finish()
    {
        if (!done)
        {
            done = true;
            packetizer.endOfSession();
        }
    }

    /** {@inheritDoc} */
    public long measuredStartNs()
    {
        return measuredStartNs;
    }

    /** @return the messages sent so far. */
    public long messages()
    {
        return messages;
    }
}
