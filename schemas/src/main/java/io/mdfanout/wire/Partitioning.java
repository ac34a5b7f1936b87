package io.mdfanout.wire;

/**
 * How instruments map to partitions. The feed handler writes with it, the fanout publishes one
 * stream per partition, and a subscriber uses it to know which stream carries an instrument.
 * Whole-market messages (instrumentId 0) go to every partition.
 */
public final class Partitioning
{
    private Partitioning()
    {
    }

    public static int partitionOf(final long instrumentId, final int partitionCount)
    {
        return (int)(instrumentId % partitionCount);
    }

    public static boolean isMarketWide(final long instrumentId)
    {
        return instrumentId == WireFormat.MARKET_WIDE_INSTRUMENT_ID;
    }

    /**
     * Default distance between the incremental and snapshot stream id bases: partition p's
     * snapshots go on stream {@code streamIdBase + DEFAULT_SNAPSHOT_STREAM_ID_OFFSET + p} unless
     * a snapshot stream id base is configured.
     */
    public static final int DEFAULT_SNAPSHOT_STREAM_ID_OFFSET = Defaults.SNAPSHOT_STREAM_ID_OFFSET;

    /** The snapshot stream id base used when none is configured. */
    public static int defaultSnapshotStreamIdBase(final int streamIdBase)
    {
        return streamIdBase + DEFAULT_SNAPSHOT_STREAM_ID_OFFSET;
    }

    /** Aeron stream id carrying a partition's snapshots. */
    public static int snapshotStreamId(final int snapshotStreamIdBase, final int partition)
    {
        return snapshotStreamIdBase + partition;
    }

    /** Aeron stream id carrying a partition's incremental messages. */
    public static int streamId(final int streamIdBase, final int partition)
    {
        return streamIdBase + partition;
    }
}
