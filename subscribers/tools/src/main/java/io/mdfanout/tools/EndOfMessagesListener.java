package io.mdfanout.tools;

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
    private int endedCount;
    private io.mdfanout.sdk.ReplayStart to;

    EndOfMessagesListener(final int[] partitions, final RecoveryEvents events)
    {
        super(events);
        this.partitions = partitions;
        this.ended = new boolean[partitions.length];
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
        return endedCount == partitions.length;
    }

    public void onSystemEvent(final MessageContext context, final SystemEventDecoder message)
    {
        if (SystemEventCode.END_OF_MESSAGES.value() == message.eventCodeRaw())
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
                endedCount++;
            }
        }
    }
}
