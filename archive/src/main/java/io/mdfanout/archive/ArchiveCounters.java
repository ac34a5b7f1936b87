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

    /** The counters of one partition's recording. */
    Partition partition(final int partition)
    {
        return new Partition(partition);
    }

    private AtomicCounter newCounter(final int typeId, final int partition, final String name)
    {
        return countersManager.newCounter(
            "archive " + (partition < 0 ? "" : "partition=" + partition + " ") + name, typeId,
            (key) -> key.putInt(0, partition));
    }

    private AtomicCounter newReasonCounter(final int partition, final String reason)
    {
        return countersManager.newCounter(
            "archive partition=" + partition + " recordings stopped: " + reason, ARCHIVE_RECORDING_ERRORS_TYPE_ID,
            (key) ->
            {
                key.putInt(0, partition);
                key.putStringAscii(Integer.BYTES, reason);
            });
    }

    /** One partition's. */
    final class Partition
    {
        final AtomicCounter recordedBytes;
        final AtomicCounter recordedMessages;
        final AtomicCounter lagBytes;
        final AtomicCounter recordingActive;
        final AtomicCounter holes;
        final AtomicCounter holeMessages;
        final AtomicCounter diskFullStops;
        final AtomicCounter ioErrorStops;

        private Partition(final int partition)
        {
            recordedBytes = newCounter(ARCHIVE_RECORDED_BYTES_TYPE_ID, partition, "recorded bytes");
            recordedMessages = newCounter(ARCHIVE_RECORDED_MESSAGES_TYPE_ID, partition, "recorded messages");
            lagBytes = newCounter(ARCHIVE_LAG_BYTES_TYPE_ID, partition, "lag bytes (received, not yet written)");
            recordingActive = newCounter(ARCHIVE_RECORDING_ACTIVE_TYPE_ID, partition, "recording active");
            holes = newCounter(ARCHIVE_HOLES_TYPE_ID, partition, "holes (stretches not recorded)");
            holeMessages = newCounter(ARCHIVE_HOLE_MESSAGES_TYPE_ID, partition, "messages in holes");
            diskFullStops = newReasonCounter(partition, DISK_FULL);
            ioErrorStops = newReasonCounter(partition, IO_ERROR);
        }
    }
}
