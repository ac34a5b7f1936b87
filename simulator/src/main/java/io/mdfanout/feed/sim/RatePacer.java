package io.mdfanout.feed.sim;

/**
 * Paces messages to a target rate, with optional periodic bursts, on a nanosecond clock and without sleeping
 * per message: credit accumulates with elapsed time and the caller asks how many messages it may send now.
 * <p>
 * Credit is capped (about 10 ms worth, at least one message) so a stall is not followed by an unbounded catch-up
 * burst. A rate of 0 means as fast as possible. During a burst window ({@code burstDurationNs} at the start of
 * every {@code burstEveryNs}) the burst rate applies instead of the base rate. Single-threaded, allocation-free.
 */
public final class RatePacer
{
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    /** The default credit cap: 10 ms worth of messages. */
    public static final long DEFAULT_MAX_CREDIT_WINDOW_NS = 10_000_000L;
    /** The credit without a cap stops here (about 9 s of messages at 1e9/s), far from overflow. */
    private static final long UNCAPPED_CREDIT = Long.MAX_VALUE / 2;

    private final long rate;
    private final long burstRate;
    private final long burstDurationNs;
    private final long burstEveryNs;
    private final long maxCreditWindowNs;
    private long startNs;

    private long lastNs;
    /** Credit in message-nanoseconds-per-second units: credit / 1e9 = messages allowed. */
    private long scaledCredit;

    /**
     * Creates a pacer.
     *
     * @param rate            messages per second, 0 = unlimited.
     * @param burstRate       messages per second during bursts, 0 = no bursts.
     * @param burstDurationNs length of a burst.
     * @param burstEveryNs    period of the bursts (burst start to burst start).
     * @param nowNs           the current time, the start of the first period.
     * @throws IllegalArgumentException for negative values or a burst longer than its period.
     */
    public RatePacer(
        final long rate, final long burstRate, final long burstDurationNs, final long burstEveryNs, final long nowNs)
    {
        this(rate, burstRate, burstDurationNs, burstEveryNs, nowNs, DEFAULT_MAX_CREDIT_WINDOW_NS);
    }

    /**
     * Creates a pacer with a credit cap of its own.
     * <p>
     * Why without a cap: a sender stalled for longer than the cap forgets the messages it owed beyond it, so a
     * latency measured from the schedule ({@link #scheduledTimeNs}) forgets that part of the stall's cost too. With no
     * cap every message owed is sent after a stall, as fast as the sender can, each stamped with the time it was due:
     * the coordinated-omission correction without a limit (wrk2 keeps none either).
     *
     * @param rate              messages per second, 0 = unlimited.
     * @param burstRate         messages per second during bursts, 0 = no bursts.
     * @param burstDurationNs   length of a burst.
     * @param burstEveryNs      period of the bursts (burst start to burst start).
     * @param nowNs             the current time, the start of the first period.
     * @param maxCreditWindowNs the most credit kept, as time at the rate in force; 0 = no cap.
     * @throws IllegalArgumentException for negative values or a burst longer than its period.
     */
    public RatePacer(
        final long rate,
        final long burstRate,
        final long burstDurationNs,
        final long burstEveryNs,
        final long nowNs,
        final long maxCreditWindowNs)
    {
        if (rate < 0 || burstRate < 0 || burstDurationNs < 0 || burstEveryNs < 0 || maxCreditWindowNs < 0)
        {
            throw new IllegalArgumentException("rates and durations must be >= 0");
        }
        if (burstRate > 0 && (burstEveryNs <= 0 || burstDurationNs <= 0 || burstDurationNs > burstEveryNs))
        {
            throw new IllegalArgumentException("a burst needs 0 < burst duration <= burst period");
        }
        if (rate > NANOS_PER_SECOND || burstRate > NANOS_PER_SECOND)
        {
            throw new IllegalArgumentException("rates must be <= " + NANOS_PER_SECOND + " messages/s");
        }
        this.rate = rate;
        this.burstRate = burstRate;
        this.burstDurationNs = burstDurationNs;
        this.burstEveryNs = burstEveryNs;
        this.maxCreditWindowNs = maxCreditWindowNs;
        this.startNs = nowNs;
        this.lastNs = nowNs;
    }

    /**
     * A pacer without bursts.
     *
     * @param rate  messages per second, 0 = unlimited.
     * @param nowNs the current time.
     * @return the pacer.
     */
    public static RatePacer steady(final long rate, final long nowNs)
    {
        return new RatePacer(rate, 0, 0, 0, nowNs);
    }

    /**
     * The rate in force at the given time.
     *
     * @param nowNs the time.
     * @return messages per second; 0 = unlimited.
     */
    public long currentRate(final long nowNs)
    {
        if (burstRate > 0 && (nowNs - startNs) % burstEveryNs < burstDurationNs)
        {
            return burstRate;
        }
        return rate;
    }

    /**
     * Start again from now with no credit, as if just created: the rate in force after a warm-up paced by another
     * pacer starts without the credit this one would have accrued meanwhile.
     *
     * @param nowNs the current time, the start of the first burst period.
     */
    public void restart(final long nowNs)
    {
        startNs = nowNs;
        lastNs = nowNs;
        scaledCredit = 0;
    }

    /**
     * How many messages may be sent now; call {@link #consume(long)} with how many were.
     *
     * @param nowNs the current time.
     * @return the number of messages allowed, {@code Long.MAX_VALUE} when unlimited.
     */
    public long available(final long nowNs)
    {
        final long currentRate = currentRate(nowNs);
        if (0 == currentRate)
        {
            lastNs = nowNs;
            return Long.MAX_VALUE;
        }

        // Both clamped so that no product or sum below can overflow (the credit and what accrues each stay under
        // half of a long): the cap beyond that, and a stall longer than that (over 4 s at 1e9/s), are no limit.
        final long longestNs = UNCAPPED_CREDIT / currentRate;
        final long elapsedNs = Math.min(Math.max(0, nowNs - lastNs), longestNs);
        lastNs = nowNs;
        final long cap = 0 == maxCreditWindowNs ?
            UNCAPPED_CREDIT : Math.max(NANOS_PER_SECOND, currentRate * Math.min(maxCreditWindowNs, longestNs));
        scaledCredit = Math.min(cap, scaledCredit + elapsedNs * currentRate);
        return scaledCredit / NANOS_PER_SECOND;
    }

    /**
     * When the pacer intended the {@code index}-th message of the current credit (0 = the oldest due) to be sent:
     * the moment the credit for it accrued, not the moment it is actually sent. Stamping messages with this time
     * corrects latency measurements for coordinated omission (as wrk2 does): a stalled sender does not hide the
     * delay its stall caused. Call after {@link #available(long)} and before {@link #consume(long)}. Credit beyond
     * the cap is forgotten, so a message is never stamped more than the cap (10 ms by default) before the call; with
     * no cap, nothing is forgotten.
     *
     * @param nowNs the time given to the last {@link #available(long)}.
     * @param index the message's position among the messages available now.
     * @return the intended send time on the pacer's clock; {@code nowNs} when the rate is unlimited.
     */
    public long scheduledTimeNs(final long nowNs, final long index)
    {
        final long currentRate = currentRate(nowNs);
        if (0 == currentRate)
        {
            return nowNs;
        }
        final long creditAfterNs = (scaledCredit - (index + 1) * NANOS_PER_SECOND) / currentRate;
        return nowNs - Math.max(0, creditAfterNs);
    }

    /**
     * Takes sent messages off the credit.
     *
     * @param messages how many were sent since the last {@link #available(long)}.
     */
    public void consume(final long messages)
    {
        if (messages > 0 && scaledCredit > 0)
        {
            scaledCredit = Math.max(0, scaledCredit - messages * NANOS_PER_SECOND);
        }
    }
}
