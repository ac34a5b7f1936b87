package io.mdfanout.feed.replay;

import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

import static io.mdfanout.wire.MdfanoutCounters.REPLAY_BYTES_READ_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.REPLAY_FILE_BYTES_READ_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.REPLAY_RECORDS_READ_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.REPLAY_TRUNCATED_RECORDS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.REPLAY_UNFRAMEABLE_RECORDS_TYPE_ID;

/**
 * Counters of the file reading and ITCH framing step of a replay (capture framing has
 * {@link CaptureCounters}); message-level counters (decoded per type,
 * published, bad messages) are the replay's {@link io.mdfanout.feed.normalize.NormalizerCounters}.
 */
public final class ReplayCounters implements AutoCloseable
{
    private final AtomicCounter recordsRead;
    private final AtomicCounter bytesRead;
    private final AtomicCounter truncatedRecords;
    private final AtomicCounter unframeableRecords;
    private final AtomicCounter fileBytesRead;

    /**
     * Allocate the counters.
     *
     * @param countersManager to allocate from.
     */
    public ReplayCounters(final CountersManager countersManager)
    {
        recordsRead = countersManager.newCounter("replay: records read", REPLAY_RECORDS_READ_TYPE_ID);
        bytesRead = countersManager.newCounter("replay: message bytes read", REPLAY_BYTES_READ_TYPE_ID);
        truncatedRecords = countersManager.newCounter(
            "replay: records truncated by the end of the file", REPLAY_TRUNCATED_RECORDS_TYPE_ID);
        unframeableRecords = countersManager.newCounter(
            "replay: zero-length records of unknown type (replay stopped)", REPLAY_UNFRAMEABLE_RECORDS_TYPE_ID);
        fileBytesRead = countersManager.newCounter(
            "replay: bytes of the file read (compressed if gzip)", REPLAY_FILE_BYTES_READ_TYPE_ID);
    }

    /** Records framed and handed to the normalizer (valid or not). */
    public AtomicCounter recordsRead()
    {
        return recordsRead;
    }

    /** Message bytes read, length prefixes excluded. */
    public AtomicCounter bytesRead()
    {
        return bytesRead;
    }

    /** A record cut short by the end of the file (the last one). */
    public AtomicCounter truncatedRecords()
    {
        return truncatedRecords;
    }

    /** A zero length prefix followed by an unknown type: the framing is lost and the replay stops. */
    public AtomicCounter unframeableRecords()
    {
        return unframeableRecords;
    }

    /** Bytes of the file on disk read so far (compressed bytes for a gzip file): the replay's progress. */
    public AtomicCounter fileBytesRead()
    {
        return fileBytesRead;
    }

    /** Free the counters. */
    public void close()
    {
        CloseHelper.closeAll(recordsRead, bytesRead, truncatedRecords, unframeableRecords, fileBytesRead);
    }
}
