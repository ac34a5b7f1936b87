package io.mdfanout.fanout;

import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.wire.RingSetHeader;
import org.agrona.concurrent.EpochClock;

import java.util.concurrent.TimeUnit;

/**
 * What a fanout knows of its source, the feed handler that writes its rings, read from the ring
 * directory's {@link RingSetHeader}: the feed handler stores its wall-clock time there about every
 * {@value #PRODUCER_HEARTBEAT_INTERVAL_MS} ms from its duty cycle, with the state of its feed.
 * <p>
 * Why: when the feed handler dies, hangs or is stopped by a signal, the rings just go quiet. An idle
 * ring is also what a quiet market looks like, so the fanout kept sending its heartbeats and every
 * subscriber saw a healthy, idle stream while the feed was dead. The heartbeat in the header is
 * the only signal that tells the two apart; this class turns it into a {@link SourceStatus} that
 * every fanout heartbeat carries to the subscribers and that the fanout exports as metrics.
 * <p>
 * The status, first match wins:
 * <ul>
 *     <li>{@link SourceStatus#STOPPED}: the feed handler said it stopped cleanly (its heartbeat then ages
 *     as expected);</li>
 *     <li>{@link SourceStatus#UNKNOWN}: rings without a header (a test's, a benchmark's or a peer's, which the
 *     fanout reads as they are): nothing says how their producer is;</li>
 *     <li>{@link SourceStatus#FEED_HANDLER_DOWN}: a heartbeat older than the source timeout (a header the
 *     feed handler never heartbeat in counts from when this monitor was created, so a fanout that starts
 *     just before its feed handler does not report it down at once);</li>
 *     <li>{@link SourceStatus#UNKNOWN}: no heartbeat yet, within the timeout;</li>
 *     <li>otherwise the feed handler's own word: {@link SourceStatus#LIVE}, {@link SourceStatus#LINES_SILENT},
 *     {@link SourceStatus#LOADING} (or UNKNOWN).</li>
 * </ul>
 * The age compares the feed handler's wall clock with this process's: both run on one host (they share
 * the rings' memory), so only a step of that clock (not a slew) can make it wrong, by the step, for one
 * timeout at most.
 * <p>
 * Cost: {@link #poll(long)} re-reads the header at most every {@link #CHECK_INTERVAL_NS} (three acquire
 * loads and one clock read); in between it returns the last status. Nothing allocates. Not thread safe:
 * one monitor per publisher thread, each over the same read-only header.
 */
public final class SourceMonitor
{
    /** How often the feed handler stores its heartbeat in the ring header: the contract both sides rely on. */
    public static final long PRODUCER_HEARTBEAT_INTERVAL_MS = 100;
    /** Default age of the feed handler's heartbeat after which its source is reported down. */
    public static final long DEFAULT_SOURCE_TIMEOUT_MS = 500;
    /** Shortest source timeout accepted: two heartbeats of the feed handler may be late, not one. */
    public static final long MIN_SOURCE_TIMEOUT_MS = 2 * PRODUCER_HEARTBEAT_INTERVAL_MS;
    /** Longest source timeout accepted. */
    public static final long MAX_SOURCE_TIMEOUT_MS = 60_000;
    /** How often {@link #poll(long)} reads the header again; a status change is seen this much later at most. */
    public static final long CHECK_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(10);
    /** Largest age the wire carries (uint32 ms, its null value excluded). */
    static final long MAX_WIRE_AGE_MS = 0xFFFF_FFFEL;

    private final RingSetHeader header;
    private final EpochClock epochClock;
    private final long timeoutMs;
    private final SourceCounters counters;
    private final long startMs;
    private boolean checked;
    private long lastCheckNs;
    private SourceStatus status = SourceStatus.UNKNOWN;
    private long heartbeatAgeMs;
    private long lastExchangeTimestampNs;

    /**
     * @param header     the ring directory's header, mapped by the caller (who unmaps it); null for rings without
     *                   one, whose source is then always {@link SourceStatus#UNKNOWN}.
     * @param epochClock wall clock in milliseconds, the one the feed handler's heartbeat is compared with.
     * @param timeoutMs  age of the feed handler's heartbeat after which the source is down.
     * @param counters   where to publish the status, or null: only one monitor of a fanout publishes them.
     */
    public SourceMonitor(
        final RingSetHeader header, final EpochClock epochClock, final long timeoutMs, final SourceCounters counters)
    {
        if (timeoutMs <= 0)
        {
            throw new IllegalArgumentException("source timeout must be positive: " + timeoutMs + "ms");
        }
        this.header = header;
        this.epochClock = epochClock;
        this.timeoutMs = timeoutMs;
        this.counters = counters;
        this.startMs = epochClock.time();
    }

    /**
     * The source status, read from the header again when the last read is {@link #CHECK_INTERVAL_NS} old:
     * cheap enough for every duty cycle.
     *
     * @param nowNs the caller's monotonic time.
     * @return the status.
     */
    public SourceStatus poll(final long nowNs)
    {
        if (!checked || nowNs - lastCheckNs >= CHECK_INTERVAL_NS)
        {
            checked = true;
            lastCheckNs = nowNs;
            update();
        }
        return status;
    }

    /**
     * Read the header now and derive the status.
     *
     * @return the status.
     */
    public SourceStatus update()
    {
        final long nowMs = epochClock.time();
        final RingSetHeader header = this.header;
        if (null == header)
        {
            return publish(SourceStatus.UNKNOWN, Math.max(0, nowMs - startMs));
        }
        final int state = header.sourceState();
        lastExchangeTimestampNs = header.lastExchangeTimestampNs();
        final long heartbeatMs = header.heartbeatEpochMs();
        final long ageMs = Math.max(0, nowMs - (0 != heartbeatMs ? heartbeatMs : startMs));

        final SourceStatus next;
        if (RingSetHeader.SOURCE_STOPPED == state)
        {
            next = SourceStatus.STOPPED;
        }
        else if (ageMs > timeoutMs)
        {
            next = SourceStatus.FEED_HANDLER_DOWN;
        }
        else if (0 == heartbeatMs)
        {
            next = SourceStatus.UNKNOWN;
        }
        else
        {
            next = fromHeaderState(state);
        }
        return publish(next, ageMs);
    }

    private SourceStatus publish(final SourceStatus next, final long ageMs)
    {
        final SourceCounters counters = this.counters;
        if (null != counters)
        {
            if (isDown(next) && !isDown(status))
            {
                counters.downEvents().incrementRelease();
            }
            counters.status().setRelease(next.value());
            counters.heartbeatAgeMs().setRelease(ageMs);
        }
        heartbeatAgeMs = ageMs;
        status = next;
        return next;
    }

    private static SourceStatus fromHeaderState(final int state)
    {
        switch (state)
        {
            case RingSetHeader.SOURCE_LIVE:
                return SourceStatus.LIVE;
            case RingSetHeader.SOURCE_LINES_SILENT:
                return SourceStatus.LINES_SILENT;
            case RingSetHeader.SOURCE_LOADING:
                return SourceStatus.LOADING;
            default:
                return SourceStatus.UNKNOWN;
        }
    }

    /**
     * @param status a source status.
     * @return true when it says the feed does not deliver: lines silent, loading, stopped or feed handler down.
     */
    public static boolean isDown(final SourceStatus status)
    {
        return SourceStatus.LINES_SILENT == status || SourceStatus.LOADING == status ||
            SourceStatus.STOPPED == status || SourceStatus.FEED_HANDLER_DOWN == status;
    }

    /** @return the status last derived. */
    public SourceStatus status()
    {
        return status;
    }

    /**
     * @return milliseconds since the feed handler's last heartbeat (or since this monitor started, before one), when
     * last derived.
     */
    public long heartbeatAgeMs()
    {
        return heartbeatAgeMs;
    }

    /** @return the heartbeat age as the wire carries it: capped below the uint32 null value. */
    public long wireHeartbeatAgeMs()
    {
        return Math.min(heartbeatAgeMs, MAX_WIRE_AGE_MS);
    }

    /** @return ITCH timestamp (ns since midnight) of the last exchange message the feed handler wrote, 0 for none. */
    public long lastExchangeTimestampNs()
    {
        return lastExchangeTimestampNs;
    }

    /** @return the age of the feed handler's heartbeat after which the source is down. */
    public long timeoutMs()
    {
        return timeoutMs;
    }
}
