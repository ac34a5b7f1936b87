package io.mdfanout.wire;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class DefaultsTest
{
    @Test
    void stringFormsForPicocliMatchTheValues()
    {
        assertEquals(Defaults.PARTITION_COUNT, Integer.parseInt(Defaults.PARTITION_COUNT_STRING));
        assertEquals(Defaults.STREAM_ID_BASE, Integer.parseInt(Defaults.STREAM_ID_BASE_STRING));
        assertEquals(Defaults.FEED_PORT, Integer.parseInt(Defaults.FEED_PORT_STRING));
        assertEquals(IdleStrategyType.DEFAULT_MAX_PARK_NS / 1000, Long.parseLong(Defaults.IDLE_MAX_PARK_US_STRING));
        assertEquals(IdleStrategyType.BACKOFF, IdleStrategyType.parse(Defaults.IDLE_STRATEGY));
    }

    @Test
    void snapshotStreamsFollowTheIncrementalOnesByTheOffset()
    {
        assertEquals(Defaults.STREAM_ID_BASE + Defaults.SNAPSHOT_STREAM_ID_OFFSET,
            Partitioning.defaultSnapshotStreamIdBase(Defaults.STREAM_ID_BASE));
    }
}
