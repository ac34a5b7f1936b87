package io.mdfanout.fanout.snapshot;

import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

/**
 * Counters of one partition's snapshot stream. Single writer (the partition's consumer thread,
 * release-ordered updates); any thread may read them. Own type ids, partition id as 4-byte key.
 */
public final class SnapshotCounters implements AutoCloseable
{
    /** Type id of the "snapshots started" counter. */
    public static final int STARTED_TYPE_ID = 3030;
    /** Type id of the "snapshots completed" counter. */
    public static final int COMPLETED_TYPE_ID = 3031;
    /** Type id of the "snapshots abandoned" counter. */
    public static final int ABANDONED_TYPE_ID = 3032;
    /** Type id of the "snapshots skipped, not connected" counter. */
    public static final int SKIPPED_TYPE_ID = 3033;
    /** Type id of the "snapshot messages sent" counter. */
    public static final int MESSAGES_SENT_TYPE_ID = 3034;
    /** Type id of the "snapshot bytes sent" counter. */
    public static final int BYTES_SENT_TYPE_ID = 3035;
    /** Type id of the "snapshot back-pressure events" counter. */
    public static final int BACK_PRESSURE_EVENTS_TYPE_ID = 3036;

    private final int partitionId;
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
        this.partitionId = partitionId;
        started = newCounter(countersManager, STARTED_TYPE_ID, "snapshots started");
        completed = newCounter(countersManager, COMPLETED_TYPE_ID, "snapshots completed");
        abandoned = newCounter(countersManager, ABANDONED_TYPE_ID, "snapshots abandoned (not connected or closed)");
        skipped = newCounter(countersManager, SKIPPED_TYPE_ID, "snapshots skipped, no snapshot subscriber connected");
        messagesSent = newCounter(countersManager, MESSAGES_SENT_TYPE_ID, "snapshot messages sent");
        bytesSent = newCounter(countersManager, BYTES_SENT_TYPE_ID, "snapshot bytes sent");
        backPressureEvents = newCounter(
            countersManager, BACK_PRESSURE_EVENTS_TYPE_ID, "snapshot back-pressure events (packet held for retry)");
    }

    private AtomicCounter newCounter(final CountersManager countersManager, final int typeId, final String name)
    {
        final int partition = partitionId;
        return countersManager.newCounter(
            "fanout partition=" + partition + " " + name, typeId, (keyBuffer) -> keyBuffer.putInt(0, partition));
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
