package io.mdfanout.feed.handler;

import io.mdfanout.wire.RingSetHeader;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class FeedReadinessTest
{
    @TempDir
    Path dir;

    @Test
    void readyWhenLiveOrSilentHeartbeatingAndHoldingNothingBehindAGap()
    {
        final CountersManager counters = new CountersManager(
            new UnsafeBuffer(ByteBuffer.allocateDirect(4 * CountersReader.METADATA_LENGTH)),
            new UnsafeBuffer(ByteBuffer.allocateDirect(4 * CountersReader.COUNTER_LENGTH)));
        final AtomicCounter held = counters.newCounter("held");
        final CachedEpochClock clock = new CachedEpochClock();
        clock.update(1_000_000);
        try (RingSetHeader header = RingSetHeader.openForProducer(dir))
        {
            final FeedReadiness readiness = new FeedReadiness(header, held, clock);
            assertEquals("feed unknown", readiness.notReadyReason(), "nothing said yet");

            header.heartbeat(1_000_000, 0, RingSetHeader.SOURCE_LOADING);
            assertEquals("loading the exchange's snapshot (GLIMPSE)", readiness.notReadyReason());

            header.heartbeat(1_000_000, 0, RingSetHeader.SOURCE_LIVE);
            assertNull(readiness.notReadyReason());

            held.setRelease(1200);
            assertEquals("recovering a gap: 1200 messages held until it is filled", readiness.notReadyReason());
            held.setRelease(0);
            assertNull(readiness.notReadyReason(), "the gap filled (or declared)");

            header.heartbeat(1_000_000, 0, RingSetHeader.SOURCE_LINES_SILENT);
            assertNull(readiness.notReadyReason(), "silent lines (a closed market): ready, nothing to catch up with");

            clock.update(1_000_000 + FeedReadiness.STALLED_HEARTBEAT_MS);
            assertNull(readiness.notReadyReason(), "a heartbeat exactly at the limit");
            clock.update(1_000_000 + FeedReadiness.STALLED_HEARTBEAT_MS + 1);
            assertEquals("the receive thread has not heartbeat for 2001 ms", readiness.notReadyReason());

            header.sourceState(RingSetHeader.SOURCE_STOPPED);
            assertEquals("feed stopped", readiness.notReadyReason());
        }
    }
}
