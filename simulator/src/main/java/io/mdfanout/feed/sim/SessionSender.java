package io.mdfanout.feed.sim;

/**
 * The simulator's send loop as the command drives it: {@link Simulator} encodes and packs each message as it is
 * due, {@link PreEncodedSender} sends packets packed before the first.
 */
public interface SessionSender
{
    /**
     * One duty cycle: sends what the pacer says is due.
     *
     * @return the messages sent (0 when idle or done).
     */
    int doWork();

    /** @return true once the session has ended and its end-of-session packet was sent. */
    boolean isDone();

    /** Ends the session now: the end-of-session packet. Idempotent. */
    void finish();

    /** @return when the messages after the warm-up began (the pacer's clock), or -1 without a warm-up or before its end. */
    long measuredStartNs();
}
