package io.mdfanout.fanout;

import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SOURCE_DOWN_EVENTS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SOURCE_HEARTBEAT_AGE_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SOURCE_STATUS_TYPE_ID;

/**
 * The fanout's view of its source, the feed handler writing its rings, for export: the status its
 * heartbeats announce, the age of the feed handler's last heartbeat and how often the source was
 * seen going down. Fanout-wide (no partition key): every partition reads the same ring header, so
 * one {@link SourceMonitor} (partition 0's) is their single writer; any thread may read them.
 */
public final class SourceCounters implements AutoCloseable
{
    private final AtomicCounter status;
    private final AtomicCounter heartbeatAgeMs;
    private final AtomicCounter downEvents;

    /**
     * Allocate the counters.
     *
     * @param countersManager to allocate from; allocation is not thread safe, so call it from the thread that owns it.
     */
    public SourceCounters(final CountersManager countersManager)
    {
        status = countersManager.newCounter("fanout source status", FANOUT_SOURCE_STATUS_TYPE_ID);
        heartbeatAgeMs = countersManager.newCounter(
            "fanout source heartbeat age (ms)", FANOUT_SOURCE_HEARTBEAT_AGE_TYPE_ID);
        downEvents = countersManager.newCounter("fanout source down events", FANOUT_SOURCE_DOWN_EVENTS_TYPE_ID);
    }

    /**
     * @return the {@code SourceStatus} value last derived (0 unknown, 1 live, 2 lines silent, 3 loading, 4 stopped,
     * 5 feed handler down).
     */
    public AtomicCounter status()
    {
        return status;
    }

    /** @return milliseconds since the feed handler's last heartbeat, when last derived. */
    public AtomicCounter heartbeatAgeMs()
    {
        return heartbeatAgeMs;
    }

    /** @return times the source status went from live (or unknown) to anything else. */
    public AtomicCounter downEvents()
    {
        return downEvents;
    }

    /** Free the counters in their manager. */
    public void close()
    {
        CloseHelper.closeAll(status, heartbeatAgeMs, downEvents);
    }
}
