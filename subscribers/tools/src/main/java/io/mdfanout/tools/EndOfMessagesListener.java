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

    EndOfMessagesListener(final int[] partitions, final RecoveryEvents events)
    {
        super(events);
        this.partitions = partitions;
        this.ended = new boolean[partitions.length];
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
            for (int slot = 0; slot < partitions.length; slot++)
            {
                if (partitions[slot] == context.partition() && !ended[slot])
                {
                    ended[slot] = true;
                    endedCount++;
                }
            }
        }
    }
}
