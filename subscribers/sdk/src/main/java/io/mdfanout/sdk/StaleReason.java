package io.mdfanout.sdk;

/**
 * Why a partition's books stopped being known good ({@link MarketDataListener#onStale}). Each
 * reason has its own counter in {@link SubscriberCounters}.
 */
public enum StaleReason
{
    /** The first packet or heartbeat of the stream says it began before this subscriber joined. */
    LATE_JOIN("late join"),
    /** Stream sequences were lost (including a malformed packet dropped whole). */
    GAP("gap"),
    /** A new publisher session appeared on a stream already followed: the fanout restarted. */
    NEW_PUBLICATION("new publication"),
    /** Nothing (not even a heartbeat) arrived for the configured silent timeout. */
    SILENT("silent"),
    /** The Aeron image being followed went away (publisher gone or receiver fell too far behind). */
    LOST_IMAGE("lost image"),
    /**
     * The bounded recovery buffer filled before a usable snapshot completed: the buffer was
     * dropped and restarted. Reported while already stale, since the recovery starts over.
     */
    RECOVERY_BUFFER_OVERFLOW("recovery buffer overflow"),
    /**
     * The fanout's heartbeat says its source does not deliver: the feed handler is down (dead, hung or
     * stopped), stopped cleanly, loading an exchange snapshot, or all its exchange lines are silent. The
     * stream itself is intact, so nothing is held back and no snapshot is needed: the partition recovers
     * ({@link MarketDataListener#onRecovered} with snapshot id 0) as soon as a heartbeat says the source is
     * live or data arrives again, unless a gap or another reason made it stale meanwhile, in which case the
     * usual snapshot recovery applies. Reported once per outage, even if the partition was already stale.
     */
    SOURCE_DOWN("source down"),
    /**
     * A GapNotice (reason UNRECOVERED): exchange messages were lost upstream of the fanout and no re-request could
     * fill them. The stream is intact, but the books of the partition lack those messages, and so do the fanout's
     * own snapshots, so no snapshot recovery makes them right: the partition stays stale, whatever else recovers,
     * until the exchange starts a new session (a SystemEvent START_OF_MESSAGES). Reported once per such loss.
     */
    EXCHANGE_GAP("exchange gap");

    private final String label;

    StaleReason(final String label)
    {
        this.label = label;
    }

    /**
     * Human-readable label, used in counter labels.
     *
     * @return the label.
     */
    public String label()
    {
        return label;
    }
}
