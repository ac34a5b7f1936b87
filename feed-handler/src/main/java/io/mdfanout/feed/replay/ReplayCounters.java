package io.mdfanout.feed.replay;

import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

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
        recordsRead = countersManager.newCounter("replay: records read");
        bytesRead = countersManager.newCounter("replay: message bytes read");
        truncatedRecords = countersManager.newCounter("replay: records truncated by the end of the file");
        unframeableRecords = countersManager.newCounter("replay: zero-length records of unknown type (replay stopped)");
        fileBytesRead = countersManager.newCounter("replay: bytes of the file read (compressed if gzip)");
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
