package io.mdfanout.wire;

/**
 * The market session of a feed as its exchange announces it, the one home of the trading day's state machine: the
 * fanout exports it per partition ({@code mdfanout_market_session_state}), the SDK keeps it per partition
 * ({@code FeedSubscriber.marketSession}), and the alert rules read the metric to tell a silent feed at night from a
 * silent feed in the session.
 * <p>
 * The transitions are ITCH's System Event codes: {@code O} start of messages, {@code S} start of system hours,
 * {@code Q} start of market hours, {@code M} end of market hours, {@code E} end of system hours, {@code C} end of
 * messages. Each code enters its state from whichever state the machine is in, and any other code changes nothing:
 * the state is a function of the last System Event alone. That is what keeps the three homes in agreement, because
 * the fanout's state and a snapshot carry only the last System Event of the market (a subscriber that recovers from
 * a snapshot, or a fanout that restarts on its state file, has no earlier one), and it means a System Event lost in
 * a declared gap never wedges the machine: the next one puts it right. A new session after {@code C} starts again
 * at {@code O}.
 * <p>
 * {@link #value()} is the number the fanout's counter holds; values never change once released (dashboards and
 * alert rules read the {@link #label()} the metrics module derives from them). Clock-free and allocation-free.
 */
public enum MarketSession
{
    /** No System Event seen yet (a fresh state, a subscriber that has joined no snapshot or start of day). */
    UNKNOWN(0, "unknown", (byte)0),
    /** After {@code O}, start of messages: the feed runs, system hours have not begun. */
    PRE_SESSION(1, "pre_session", (byte)'O'),
    /** After {@code S}, start of system hours: the pre-market. */
    PRE_MARKET(2, "pre_market", (byte)'S'),
    /** After {@code Q}, start of market hours: the market is open. */
    OPEN(3, "open", (byte)'Q'),
    /** After {@code M}, end of market hours: the post-market. */
    POST_MARKET(4, "post_market", (byte)'M'),
    /** After {@code E}, end of system hours: the feed may still send, nothing trades. */
    CLOSED(5, "closed", (byte)'E'),
    /** After {@code C}, end of messages: the exchange has finished the day's session. */
    ENDED(6, "ended", (byte)'C');

    private static final MarketSession[] BY_VALUE = values();

    private final int value;
    private final String label;
    private final byte eventCode;

    MarketSession(final int value, final String label, final byte eventCode)
    {
        this.value = value;
        this.label = label;
        this.eventCode = eventCode;
    }

    /** @return the number that stands for this state in a counter; stable. */
    public int value()
    {
        return value;
    }

    /** @return the metric's label value, e.g. {@code pre_market}; stable. */
    public String label()
    {
        return label;
    }

    /** @return the System Event code that enters this state, 0 for {@link #UNKNOWN}. */
    public byte eventCode()
    {
        return eventCode;
    }

    /**
     * Between start of system hours ({@code S}) and end of system hours ({@code E}): pre-market, open or
     * post-market, the hours in which a silent feed or a subscriber without data is a fault.
     *
     * @return true in system hours.
     */
    public boolean isSystemHours()
    {
        return PRE_MARKET == this || OPEN == this || POST_MARKET == this;
    }

    /**
     * The transition on a System Event.
     *
     * @param code the System Event's event code, an ASCII character.
     * @return the state the code enters, or this state for a code that is none of {@code O S Q M E C}.
     */
    public MarketSession onSystemEvent(final byte code)
    {
        final MarketSession next = entered(code);
        return null == next ? this : next;
    }

    /**
     * The state after a last System Event, as a fanout's state or a snapshot holds it.
     *
     * @param code the last System Event's event code, or 0 when there was none.
     * @return the state that code enters, {@link #UNKNOWN} when none (or an unknown code).
     */
    public static MarketSession afterLastEvent(final byte code)
    {
        return UNKNOWN.onSystemEvent(code);
    }

    /**
     * The state a counter's value stands for.
     *
     * @param value a {@link #value()}.
     * @return the state, {@link #UNKNOWN} for a value no state has.
     */
    public static MarketSession get(final long value)
    {
        return value >= 0 && value < BY_VALUE.length ? BY_VALUE[(int)value] : UNKNOWN;
    }

    /** @return every state, in value order (a copy). */
    public static MarketSession[] all()
    {
        return BY_VALUE.clone();
    }

    private static MarketSession entered(final byte code)
    {
        switch (code)
        {
            case 'O': return PRE_SESSION;
            case 'S': return PRE_MARKET;
            case 'Q': return OPEN;
            case 'M': return POST_MARKET;
            case 'E': return CLOSED;
            case 'C': return ENDED;
            default: return null;
        }
    }
}
