package io.mdfanout.fanout.snapshot;

import io.mdfanout.wire.FeedStream;
import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SNAPSHOTS_ABANDONED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SNAPSHOTS_COMPLETED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SNAPSHOTS_SKIPPED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SNAPSHOTS_STARTED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SNAPSHOT_BACK_PRESSURE_EVENTS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SNAPSHOT_BYTES_SENT_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SNAPSHOT_MESSAGES_SENT_TYPE_ID;

/**
 * Counters of one partition's snapshot stream. Single writer (the partition's consumer thread,
 * release-ordered updates); any thread may read them. Own type ids; key: the partition id (int at 0) and the
 * {@link FeedStream} whose snapshots they count (its ordinal, an int at 4: 0 for the MBO stream).
 */
public final class SnapshotCounters implements AutoCloseable
{
    private final int partitionId;
    private final FeedStream stream;
    private final AtomicCounter started;
    private final AtomicCounter completed;
    private final AtomicCounter abandoned;
    private final AtomicCounter skipped;
    private final AtomicCounter messagesSent;
    private final AtomicCounter bytesSent;
    private final AtomicCounter backPressureEvents;

    /**
     * @param countersManager to allocate from (from the thread that owns it).
     * @param partitionId     the partition, used as key and in the labels.
     */
    public SnapshotCounters(final CountersManager countersManager, final int partitionId)
    {
        this(countersManager, partitionId, FeedStream.MBO);
    }

    /**
     * @param countersManager to allocate from (from the thread that owns it).
     * @param partitionId     the partition, used as key and in the labels.
     * @param stream          the stream whose snapshots these count.
     */
    public SnapshotCounters(final CountersManager countersManager, final int partitionId, final FeedStream stream)
    {
        this.partitionId = partitionId;
        this.stream = stream;
        started = newCounter(countersManager, FANOUT_SNAPSHOTS_STARTED_TYPE_ID, "snapshots started");
        completed = newCounter(countersManager, FANOUT_SNAPSHOTS_COMPLETED_TYPE_ID, "snapshots completed");
        abandoned = newCounter(
            countersManager, FANOUT_SNAPSHOTS_ABANDONED_TYPE_ID, "snapshots abandoned (not connected or closed)");
        skipped = newCounter(
            countersManager, FANOUT_SNAPSHOTS_SKIPPED_TYPE_ID, "snapshots skipped, no snapshot subscriber connected");
        messagesSent = newCounter(countersManager, FANOUT_SNAPSHOT_MESSAGES_SENT_TYPE_ID, "snapshot messages sent");
        bytesSent = newCounter(countersManager, FANOUT_SNAPSHOT_BYTES_SENT_TYPE_ID, "snapshot bytes sent");
        backPressureEvents = newCounter(
            countersManager,
            FANOUT_SNAPSHOT_BACK_PRESSURE_EVENTS_TYPE_ID,
            "snapshot back-pressure events (packet held for retry)");
    }

    private AtomicCounter newCounter(final CountersManager countersManager, final int typeId, final String name)
    {
        final int partition = partitionId;
        final int ordinal = stream.ordinal();
        final String label = FeedStream.MBO == stream ? "" : " stream=" + stream.streamName();
        return countersManager.newCounter(
            "fanout partition=" + partition + label + " " + name, typeId,
            (keyBuffer) ->
            {
                keyBuffer.putInt(0, partition);
                keyBuffer.putInt(Integer.BYTES, ordinal);
            });
    }

    /** @return the partition. */
    public int partitionId()
    {
        return partitionId;
    }

    /** @return snapshots started (a SnapshotBegin was captured). */
    public AtomicCounter started()
    {
        return started;
    }

    /** @return snapshots whose SnapshotEnd was sent. */
    public AtomicCounter completed()
    {
        return completed;
    }

    /** @return snapshots given up half way because the publication was no longer connected, or failed. */
    public AtomicCounter abandoned()
    {
        return abandoned;
    }

    /** @return snapshots due while nobody subscribed to the snapshot stream (nothing sent). */
    public AtomicCounter skipped()
    {
        return skipped;
    }

    /** @return messages sent on the snapshot stream. */
    public AtomicCounter messagesSent()
    {
        return messagesSent;
    }

    /** @return packet bytes sent on the snapshot stream. */
    public AtomicCounter bytesSent()
    {
        return bytesSent;
    }

    /** @return snapshot packets refused with BACK_PRESSURED or ADMIN_ACTION and retried on a later cycle. */
    public AtomicCounter backPressureEvents()
    {
        return backPressureEvents;
    }

    /** Free the counters in their manager. */
    public void close()
    {
        CloseHelper.closeAll(started, completed, abandoned, skipped, messagesSent, bytesSent, backPressureEvents);
    }
}
