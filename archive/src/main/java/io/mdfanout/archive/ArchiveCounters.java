package io.mdfanout.archive;

import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_DISK_FREE_BYTES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_DISK_TOTAL_BYTES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_DUTY_CYCLE_ERRORS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_HOLES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_HOLE_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_LAG_BYTES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_RECORDED_BYTES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_RECORDED_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_RECORDING_ACTIVE_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_RECORDING_ERRORS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_SESSIONS_DELETED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_SESSIONS_RETAINED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_SESSIONS_ROLLED_TYPE_ID;

/**
 * The archive role's counters, in the embedded driver's counters file (so {@code mdfanout stats} and the metrics
 * endpoint read them like every role's). Written by the archive's agent thread only.
 */
final class ArchiveCounters
{
    static final String DISK_FULL = "disk full";
    static final String IO_ERROR = "io error";

    final AtomicCounter diskFreeBytes;
    final AtomicCounter diskTotalBytes;
    final AtomicCounter sessionsRetained;
    final AtomicCounter sessionsDeleted;
    final AtomicCounter sessionsRolled;
    final AtomicCounter dutyCycleErrors;
    private final CountersManager countersManager;

    ArchiveCounters(final CountersManager countersManager)
    {
        this.countersManager = countersManager;
        diskFreeBytes = newCounter(ARCHIVE_DISK_FREE_BYTES_TYPE_ID, -1, "disk free bytes");
        diskTotalBytes = newCounter(ARCHIVE_DISK_TOTAL_BYTES_TYPE_ID, -1, "disk total bytes");
        sessionsRetained = newCounter(ARCHIVE_SESSIONS_RETAINED_TYPE_ID, -1, "sessions retained");
        sessionsDeleted = newCounter(ARCHIVE_SESSIONS_DELETED_TYPE_ID, -1, "sessions deleted by retention");
        sessionsRolled = newCounter(ARCHIVE_SESSIONS_ROLLED_TYPE_ID, -1, "sessions ended and rolled on from");
        dutyCycleErrors = newCounter(ARCHIVE_DUTY_CYCLE_ERRORS_TYPE_ID, -1, "duty cycle errors");
    }

    /** The counters of one partition's recordings: per side, and its holes (what no side recorded). */
    Partition partition(final int partition)
    {
        return new Partition(partition);
    }

    /** The counters of one side's recording of a partition. */
    Side side(final int partition, final int side)
    {
        return new Side(partition, side);
    }

    private AtomicCounter newSideCounter(final int typeId, final int partition, final int side, final String name)
    {
        return countersManager.newCounter(
            "archive side=" + (char)('A' + side) + " partition=" + partition + " " + name, typeId,
            (key) ->
            {
                key.putInt(0, partition);
                key.putInt(Integer.BYTES, side);
            });
    }

    private AtomicCounter newCounter(final int typeId, final int partition, final String name)
    {
        return countersManager.newCounter(
            "archive " + (partition < 0 ? "" : "partition=" + partition + " ") + name, typeId,
            (key) -> key.putInt(0, partition));
    }

    private AtomicCounter newReasonCounter(final int partition, final int side, final String reason)
    {
        return countersManager.newCounter(
            "archive side=" + (char)('A' + side) + " partition=" + partition + " recordings stopped: " + reason,
            ARCHIVE_RECORDING_ERRORS_TYPE_ID,
            (key) ->
            {
                key.putInt(0, partition);
                key.putInt(Integer.BYTES, side);
                key.putStringAscii(2 * Integer.BYTES, reason);
            });
    }

    /** One partition's holes: the stretches no side recorded. */
    final class Partition
    {
        final AtomicCounter holes;
        final AtomicCounter holeMessages;

        private Partition(final int partition)
        {
            holes = newCounter(ARCHIVE_HOLES_TYPE_ID, partition, "holes (stretches not recorded)");
            holeMessages = newCounter(ARCHIVE_HOLE_MESSAGES_TYPE_ID, partition, "messages in holes");
        }
    }

    /** One side's recording of a partition (side A for one fanout). */
    final class Side
    {
        final AtomicCounter recordedBytes;
        final AtomicCounter recordedMessages;
        final AtomicCounter lagBytes;
        final AtomicCounter recordingActive;
        final AtomicCounter diskFullStops;
        final AtomicCounter ioErrorStops;

        private Side(final int partition, final int side)
        {
            recordedBytes = newSideCounter(ARCHIVE_RECORDED_BYTES_TYPE_ID, partition, side, "recorded bytes");
            recordedMessages = newSideCounter(ARCHIVE_RECORDED_MESSAGES_TYPE_ID, partition, side, "recorded messages");
            lagBytes = newSideCounter(ARCHIVE_LAG_BYTES_TYPE_ID, partition, side, "lag bytes (received, not yet written)");
            recordingActive = newSideCounter(ARCHIVE_RECORDING_ACTIVE_TYPE_ID, partition, side, "recording active");
            diskFullStops = newReasonCounter(partition, side, DISK_FULL);
            ioErrorStops = newReasonCounter(partition, side, IO_ERROR);
        }
    }
}
