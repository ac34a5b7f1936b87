package io.mdfanout.bench.peers;

import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.tools.LatencyRecorder;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.EpochNanoClock;

/**
 * What the {@code latency} tool does per delivered message, for the NATS peer: records now - exchangeTimestamp
 * of every incremental normalized message (not snapshots, not GapNotices) into a {@link LatencyRecorder} with the
 * same clock, and knows when the session is over: END_OF_MESSAGES seen on every partition, or a message limit
 * reached. Written by one thread (the NATS dispatcher); {@link #isDone()} may be read from any.
 */
final class NatsLatencyListener implements MarketDataListener
{
    private final LatencyRecorder recorder;
    private final EpochNanoClock clock;
    private final int[] partitions;
    private final boolean[] ended;
    private final long messageLimit;
    private int endedCount;
    private long measured;
    private volatile boolean done;

    /**
     * @param recorder     where latencies go.
     * @param clock        wall clock (epoch nanos), the latency tool's.
     * @param partitions   the subscribed partitions.
     * @param messageLimit stop after this many measured messages (0 = only at END_OF_MESSAGES).
     */
    NatsLatencyListener(
        final LatencyRecorder recorder, final EpochNanoClock clock, final int[] partitions, final long messageLimit)
    {
        this.recorder = recorder;
        this.clock = clock;
        this.partitions = partitions.clone();
        this.ended = new boolean[partitions.length];
        this.messageLimit = messageLimit;
    }

    /** @return true once every partition carried END_OF_MESSAGES or the message limit was reached. */
    boolean isDone()
    {
        return done;
    }

    /** @return incremental normalized messages measured (warm-up included). */
    long measured()
    {
        return measured;
    }

    /** @return partitions that carried END_OF_MESSAGES. */
    int endedPartitions()
    {
        return endedCount;
    }

    public void onRawMessage(final MessageContext context, final DirectBuffer buffer, final int offset, final int length)
    {
        final int templateId = context.templateId();
        if (!context.isSnapshot() && GapNoticeDecoder.TEMPLATE_ID != templateId &&
            WireFormat.isNormalizedMessage(templateId))
        {
            recorder.record(LatencyRecorder.sinceTimeOfDay(clock.nanoTime(), WireFormat.exchangeTimestamp(buffer, offset)));
            if (++measured == messageLimit)
            {
                done = true;
            }
        }
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
                    if (++endedCount == partitions.length)
                    {
                        done = true;
                    }
                }
            }
        }
    }
}
