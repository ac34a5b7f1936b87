package io.mdfanout.feed.normalize;

import io.mdfanout.feed.itch.ItchMessageType;
import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

import static io.mdfanout.wire.MdfanoutCounters.FEED_GAP_NOTICES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_INVALID_FIELD_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_INVALID_LENGTH_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_MESSAGES_DECODED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_MESSAGES_NORMALIZED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RING_FULL_WAITS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RING_RECORDS_WRITTEN_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RING_WRITES_ABANDONED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_UNKNOWN_TYPE_MESSAGES_TYPE_ID;

/**
 * Counters of the ITCH to SBE normalization step. Single writer (the thread that calls
 * {@link ItchNormalizer}), read by any thread through the {@link CountersManager}'s buffers.
 */
public final class NormalizerCounters implements AutoCloseable
{
    private final AtomicCounter[] decodedByType = new AtomicCounter[256];
    private final AtomicCounter messagesPublished;
    private final AtomicCounter ringRecordsWritten;
    private final AtomicCounter gapNoticesPublished;
    private final AtomicCounter unknownTypes;
    private final AtomicCounter invalidLength;
    private final AtomicCounter invalidField;
    private final AtomicCounter ringWritesAbandoned;
    private final AtomicCounter[] ringFullWaits;

    /**
     * Allocate the counters.
     *
     * @param countersManager to allocate from.
     * @param labelPrefix     prefix of every label, e.g. "feed-handler" or "replay".
     * @param partitionCount  number of partition rings (one ring-full counter each).
     */
    public NormalizerCounters(final CountersManager countersManager, final String labelPrefix, final int partitionCount)
    {
        for (final byte type : ItchMessageType.ALL_TYPES)
        {
            // Key: the ITCH message type character, from which the metrics' label type is derived.
            decodedByType[type & 0xFF] = countersManager.newCounter(
                labelPrefix + ": ITCH messages decoded type=" + (char)type,
                FEED_MESSAGES_DECODED_TYPE_ID,
                (key) -> key.putInt(0, type));
        }
        messagesPublished = countersManager.newCounter(
            labelPrefix + ": messages published", FEED_MESSAGES_NORMALIZED_TYPE_ID);
        ringRecordsWritten = countersManager.newCounter(
            labelPrefix + ": ring records written", FEED_RING_RECORDS_WRITTEN_TYPE_ID);
        gapNoticesPublished = countersManager.newCounter(
            labelPrefix + ": gap notices published", FEED_GAP_NOTICES_TYPE_ID);
        unknownTypes = countersManager.newCounter(
            labelPrefix + ": unknown message types", FEED_UNKNOWN_TYPE_MESSAGES_TYPE_ID);
        invalidLength = countersManager.newCounter(
            labelPrefix + ": messages shorter than their type", FEED_INVALID_LENGTH_MESSAGES_TYPE_ID);
        invalidField = countersManager.newCounter(
            labelPrefix + ": messages with an invalid field", FEED_INVALID_FIELD_MESSAGES_TYPE_ID);
        ringWritesAbandoned = countersManager.newCounter(
            labelPrefix + ": ring writes abandoned on interrupt", FEED_RING_WRITES_ABANDONED_TYPE_ID);
        ringFullWaits = new AtomicCounter[partitionCount];
        for (int i = 0; i < partitionCount; i++)
        {
            final int partition = i;
            ringFullWaits[i] = countersManager.newCounter(
                labelPrefix + ": ring full waits partition=" + i,
                FEED_RING_FULL_WAITS_TYPE_ID,
                (key) -> key.putInt(0, partition));
        }
    }

    /** Messages of an ITCH type that passed the length check, whether published or not; null for unknown types. */
    public AtomicCounter decoded(final byte type)
    {
        return decodedByType[type & 0xFF];
    }

    /** ITCH messages normalized and written (once per message, however many partitions received it). */
    public AtomicCounter messagesPublished()
    {
        return messagesPublished;
    }

    /** Records committed to rings: a market-wide message counts once per partition. */
    public AtomicCounter ringRecordsWritten()
    {
        return ringRecordsWritten;
    }

    /** GapNotice messages published (once per gap, however many partitions received it). */
    public AtomicCounter gapNoticesPublished()
    {
        return gapNoticesPublished;
    }

    /** Messages whose type byte is not ITCH 5.0: skipped. */
    public AtomicCounter unknownTypes()
    {
        return unknownTypes;
    }

    /** Messages shorter than the length of their type: skipped. */
    public AtomicCounter invalidLength()
    {
        return invalidLength;
    }

    /** Messages with an enumerated field (side, event code, trading state) outside the specification: skipped. */
    public AtomicCounter invalidField()
    {
        return invalidField;
    }

    /** Writes given up because the thread was interrupted (shutdown) while the ring stayed full. */
    public AtomicCounter ringWritesAbandoned()
    {
        return ringWritesAbandoned;
    }

    /** Times a write found the partition's ring full and had to wait for the consumer. */
    public AtomicCounter ringFullWaits(final int partition)
    {
        return ringFullWaits[partition];
    }

    /** Number of partitions with a ring-full counter. */
    public int partitionCount()
    {
        return ringFullWaits.length;
    }

    /** Sum of messages decoded over every ITCH type. */
    public long totalDecoded()
    {
        long total = 0;
        for (final byte type : ItchMessageType.ALL_TYPES)
        {
            total += decodedByType[type & 0xFF].get();
        }
        return total;
    }

    /** Free the counters in their manager. */
    public void close()
    {
        for (final byte type : ItchMessageType.ALL_TYPES)
        {
            CloseHelper.close(decodedByType[type & 0xFF]);
        }
        CloseHelper.closeAll(
            messagesPublished, ringRecordsWritten, gapNoticesPublished, unknownTypes, invalidLength, invalidField,
            ringWritesAbandoned);
        CloseHelper.closeAll(ringFullWaits);
    }
}
