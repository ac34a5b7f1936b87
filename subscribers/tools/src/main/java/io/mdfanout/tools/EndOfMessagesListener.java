package io.mdfanout.tools;

import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sbe.GapReason;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sdk.MessageContext;

/**
 * A tool listener that knows when the session is over: END_OF_MESSAGES seen on every subscribed
 * partition (the system event is market-wide, so each partition's stream carries it).
 */
abstract class EndOfMessagesListener extends RecoveryReportingListener
{
    private final int[] partitions;
    private final boolean[] ended;
    /** Per partition slot: the sessions the exchange ended on it (each day's End of Messages once). */
    private final int[] endedDays;
    private int sessions = 1;
    private io.mdfanout.sdk.ReplayStart to;

    EndOfMessagesListener(final int[] partitions, final RecoveryEvents events)
    {
        super(events);
        this.partitions = partitions;
        this.ended = new boolean[partitions.length];
        this.endedDays = new int[partitions.length];
    }

    /**
     * Stop after this many trading sessions ({@code --sessions}): the N-th End of Messages on every partition.
     *
     * @param sessions 1 or more.
     */
    final void endAfterSessions(final int sessions)
    {
        this.sessions = sessions;
    }

    /**
     * Stop each partition at a point ({@code --to}): its messages from the point on are not taken, and the
     * partition counts as ended there.
     *
     * @param to the end point, exclusive; null for none.
     */
    final void endAt(final io.mdfanout.sdk.ReplayStart to)
    {
        this.to = to;
    }

    /**
     * Whether a message is at or past the {@code --to} point (and so not taken); the first such message ends its
     * partition.
     *
     * @param context the message's context.
     * @param buffer  the buffer holding it.
     * @param offset  the offset of its SBE header.
     * @return true when the message is not to be taken.
     */
    final boolean pastEnd(final MessageContext context, final org.agrona.DirectBuffer buffer, final int offset)
    {
        if (null == to || context.isSnapshot())
        {
            return false;
        }
        if (!to.reached(
            context.partition(), context.streamSequence(), io.mdfanout.wire.WireFormat.exchangeTimestamp(buffer, offset)))
        {
            return false;
        }
        markEnded(context.partition());
        return true;
    }

    /** @return true when an end point ({@code --to}) was set. */
    final boolean hasEndPoint()
    {
        return null != to;
    }

    /** @return true once every subscribed partition carried END_OF_MESSAGES. */
    final boolean allEnded()
    {
        for (final int days : endedDays)
        {
            if (days < sessions)
            {
                return false;
            }
        }
        return true;
    }

    /** A new trading day on the partition: its End of Messages is waited for again. */
    public void onNewDay(final int partition)
    {
        super.onNewDay(partition);
        onSessionRunning(partition);
    }

    private void onSessionRunning(final int partition)
    {
        for (int slot = 0; slot < partitions.length; slot++)
        {
            if (partitions[slot] == partition)
            {
                ended[slot] = false;
            }
        }
    }

    public void onSystemEvent(final MessageContext context, final SystemEventDecoder message)
    {
        if (SystemEventCode.END_OF_MESSAGES.value() == message.eventCodeRaw())
        {
            markEnded(context.partition());
        }
        else if (!context.isSnapshot())
        {
            // The session runs (a day joined mid-way, after a restarted fanout, counts when its end comes): its
            // End of Messages is waited for. A snapshot's market state after the end repeats the end, not a new day.
            onSessionRunning(context.partition());
        }
    }

    /**
     * A GapNotice STALE: the feed handler saw the exchange end its session while the session's last messages, its
     * End of Messages among them, were declared lost. The partition's session is over all the same (the loss itself
     * came as a GapNotice UNRECOVERED before it, and the partition is stale with it).
     */
    public void onGapNotice(final MessageContext context, final GapNoticeDecoder message)
    {
        super.onGapNotice(context, message);
        if (GapReason.STALE == message.reason() && !context.isSnapshot())
        {
            markEnded(context.partition());
        }
    }

    private void markEnded(final int partition)
    {
        for (int slot = 0; slot < partitions.length; slot++)
        {
            if (partitions[slot] == partition && !ended[slot])
            {
                ended[slot] = true;
                endedDays[slot]++;
            }
        }
    }
}
