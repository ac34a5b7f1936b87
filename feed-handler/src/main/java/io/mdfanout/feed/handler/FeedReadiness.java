package io.mdfanout.feed.handler;

import io.mdfanout.metrics.Readiness;
import io.mdfanout.wire.RingSetHeader;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * Whether a feed handler is caught up with the exchange ({@code GET /ready}): its duty cycle heartbeats the ring
 * header, it is not loading a GLIMPSE snapshot, and nothing is held behind a gap (a re-request in progress holds the
 * live stream until the gap is filled or declared). A feed whose lines are silent is ready: at night and at weekends
 * there is nothing to catch up with, and a pair must not look broken then.
 * <p>
 * Reads what the receive thread stores with ordered writes (the header's state and heartbeat, the held-messages
 * gauge) from the metrics server's thread.
 */
public final class FeedReadiness implements Readiness
{
    /**
     * A heartbeat older than this means the duty cycle is stalled (the producer heartbeats every 100 ms): a blocked
     * ring or a hung thread.
     */
    public static final long STALLED_HEARTBEAT_MS = 2_000;

    private final RingSetHeader header;
    private final AtomicCounter messagesHeld;
    private final EpochClock clock;

    /**
     * @param header       the rings' header the receive thread heartbeats.
     * @param messagesHeld the gauge of messages held behind a gap.
     * @param clock        the wall clock the heartbeat is stored in.
     */
    public FeedReadiness(final RingSetHeader header, final AtomicCounter messagesHeld, final EpochClock clock)
    {
        this.header = header;
        this.messagesHeld = messagesHeld;
        this.clock = clock;
    }

    /** {@inheritDoc} */
    public String notReadyReason()
    {
        final int state = header.sourceState();
        if (RingSetHeader.SOURCE_LIVE != state && RingSetHeader.SOURCE_LINES_SILENT != state)
        {
            return RingSetHeader.SOURCE_LOADING == state ? "loading the exchange's snapshot (GLIMPSE)" :
                "feed " + RingSetHeader.sourceStateName(state);
        }
        final long ageMs = clock.time() - header.heartbeatEpochMs();
        if (ageMs > STALLED_HEARTBEAT_MS)
        {
            return "the receive thread has not heartbeat for " + ageMs + " ms";
        }
        final long held = messagesHeld.get();
        if (held > 0)
        {
            return "recovering a gap: " + held + " messages held until it is filled";
        }
        return null;
    }
}
