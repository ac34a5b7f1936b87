package io.mdfanout.sdk;

import java.util.Arrays;
import java.util.Map;

/**
 * Where a subscriber that replays from an archive starts delivering ({@link FeedSubscriber.Context#replayFrom}):
 * the beginning of the session, a stream sequence (one for every partition, or one per partition), or an
 * exchange time (the first message of each partition stamped at or after it). What comes before the start point
 * is replayed too, delivered with {@link MessageContext#isSnapshot()} true: it is the state at the start point, so
 * books kept by the listener are exact from the first message it is given. Immutable.
 */
public final class ReplayStart
{
    private static final long[] NO_SEQUENCES = new long[0];

    private final long sequence;
    private final long[] sequenceByPartition;
    private final long exchangeTimestamp;

    private ReplayStart(final long sequence, final long[] sequenceByPartition, final long exchangeTimestamp)
    {
        this.sequence = sequence;
        this.sequenceByPartition = sequenceByPartition;
        this.exchangeTimestamp = exchangeTimestamp;
    }

    /** @return the start of the session: everything recorded is delivered as it came. */
    public static ReplayStart beginning()
    {
        return new ReplayStart(1, NO_SEQUENCES, -1);
    }

    /**
     * Start at a stream sequence, on every partition.
     *
     * @param streamSequence the first stream sequence delivered, 1 or more.
     * @return the start point.
     */
    public static ReplayStart streamSequence(final long streamSequence)
    {
        if (streamSequence < 1)
        {
            throw new IllegalArgumentException("stream sequences start at 1: " + streamSequence);
        }
        return new ReplayStart(streamSequence, NO_SEQUENCES, -1);
    }

    /**
     * Start at a stream sequence of each partition; a partition not named starts at the beginning.
     *
     * @param streamSequences partition to its first stream sequence delivered.
     * @return the start point.
     */
    public static ReplayStart streamSequences(final Map<Integer, Long> streamSequences)
    {
        int maxPartition = -1;
        for (final Map.Entry<Integer, Long> entry : streamSequences.entrySet())
        {
            if (entry.getKey() < 0 || entry.getValue() < 1)
            {
                throw new IllegalArgumentException("partition >= 0 and stream sequence >= 1: " + entry);
            }
            maxPartition = Math.max(maxPartition, entry.getKey());
        }
        final long[] byPartition = new long[maxPartition + 1];
        Arrays.fill(byPartition, 1);
        streamSequences.forEach((partition, sequence) -> byPartition[partition] = sequence);
        return new ReplayStart(1, byPartition, -1);
    }

    /**
     * Start at an exchange time: on each partition, the first message stamped at or after it.
     *
     * @param nanosSinceMidnight exchange time (ITCH: nanoseconds since midnight of the trading day).
     * @return the start point.
     */
    public static ReplayStart exchangeTime(final long nanosSinceMidnight)
    {
        if (nanosSinceMidnight < 0)
        {
            throw new IllegalArgumentException("exchange time must not be negative: " + nanosSinceMidnight);
        }
        return new ReplayStart(1, NO_SEQUENCES, nanosSinceMidnight);
    }

    /**
     * Whether a message is at or past the start point; the messages before it are the state at the start.
     *
     * @param partition         the message's partition.
     * @param streamSequence    its stream sequence.
     * @param exchangeTimestamp its exchange time.
     * @return true from the start point on.
     */
    public boolean reached(final int partition, final long streamSequence, final long exchangeTimestamp)
    {
        if (this.exchangeTimestamp >= 0)
        {
            return exchangeTimestamp >= this.exchangeTimestamp;
        }
        return streamSequence >= (partition < sequenceByPartition.length ? sequenceByPartition[partition] : sequence);
    }

    /** {@inheritDoc} */
    public String toString()
    {
        if (exchangeTimestamp >= 0)
        {
            return "exchange time " + exchangeTimestamp;
        }
        return sequenceByPartition.length > 0 ? "stream sequences " + Arrays.toString(sequenceByPartition) :
            1 == sequence ? "the beginning" : "stream sequence " + sequence;
    }
}
