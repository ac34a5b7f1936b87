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

    /** Aeron stream id carrying a partition's incremental messages. */
    public static int streamId(final int streamIdBase, final int partition)
    {
        return streamIdBase + partition;
    }
}
