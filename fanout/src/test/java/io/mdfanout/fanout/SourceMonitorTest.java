package io.mdfanout.fanout;

import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.wire.RingSetHeader;
import org.agrona.CloseHelper;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.status.CountersManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The source status a fanout derives from the feed handler's heartbeat in the ring header, on a clock the
 * test moves: the producer side is a real {@link RingSetHeader} mapped for the producer, written here.
 */
final class SourceMonitorTest
{
    private static final long TIMEOUT_MS = 500;
    private static final long START_MS = 1_700_000_000_000L;
    private static final long EXCHANGE_TIME_NS = 34_200_000_000_123L;

    @TempDir
    Path ringDirectory;

    private final CachedEpochClock clock = new CachedEpochClock();
    private final CountersManager countersManager = TestCounters.newManager();
    private RingSetHeader producer;
    private RingSetHeader consumer;
    private SourceCounters counters;

    @BeforeEach
    void setUp()
    {
        clock.update(START_MS);
        producer = RingSetHeader.openForProducer(ringDirectory);
        producer.layout(2, 64 * 1024);
        consumer = RingSetHeader.openExisting(ringDirectory);
        counters = new SourceCounters(countersManager);
    }

    @AfterEach
    void tearDown()
    {
        CloseHelper.closeAll(counters, consumer, producer);
    }

    @Test
    void followsTheFeedHandlersHeartbeatAndItsWordOnItsFeed()
    {
        final SourceMonitor monitor = new SourceMonitor(consumer, clock, TIMEOUT_MS, counters);
        assertEquals(SourceStatus.UNKNOWN, monitor.update(), "no heartbeat yet, within the timeout");

        clock.advance(TIMEOUT_MS + 1);
        assertEquals(SourceStatus.FEED_HANDLER_DOWN, monitor.update(), "never heard from since the monitor started");
        assertEquals(TIMEOUT_MS + 1, monitor.heartbeatAgeMs());
        assertEquals(1, counters.downEvents().get());

        producer.heartbeat(clock.time(), EXCHANGE_TIME_NS, RingSetHeader.SOURCE_LIVE);
        assertEquals(SourceStatus.LIVE, monitor.update());
        assertEquals(0, monitor.heartbeatAgeMs());
        assertEquals(EXCHANGE_TIME_NS, monitor.lastExchangeTimestampNs());
        assertEquals(SourceStatus.LIVE.value(), counters.status().get());

        clock.advance(TIMEOUT_MS);
        assertEquals(SourceStatus.LIVE, monitor.update(), "a heartbeat exactly the timeout old is still live");
        assertEquals(TIMEOUT_MS, counters.heartbeatAgeMs().get());
        clock.advance(1);
        assertEquals(SourceStatus.FEED_HANDLER_DOWN, monitor.update(), "SIGSTOP, hang or death: the heartbeat ages");
        assertEquals(SourceStatus.FEED_HANDLER_DOWN.value(), counters.status().get());
        assertEquals(2, counters.downEvents().get());

        producer.heartbeat(clock.time(), EXCHANGE_TIME_NS + 1, RingSetHeader.SOURCE_LINES_SILENT);
        assertEquals(SourceStatus.LINES_SILENT, monitor.update());
        assertEquals(2, counters.downEvents().get(), "down to down is the same outage");
        producer.heartbeat(clock.time(), EXCHANGE_TIME_NS + 1, RingSetHeader.SOURCE_LOADING);
        assertEquals(SourceStatus.LOADING, monitor.update());
        producer.heartbeat(clock.time(), EXCHANGE_TIME_NS + 2, RingSetHeader.SOURCE_LIVE);
        assertEquals(SourceStatus.LIVE, monitor.update());

        producer.sourceState(RingSetHeader.SOURCE_STOPPED);
        clock.advance(60_000);
        assertEquals(SourceStatus.STOPPED, monitor.update(), "a clean stop says so, however old its last heartbeat");
        assertEquals(3, counters.downEvents().get());
        assertEquals(60_000, monitor.heartbeatAgeMs());
    }

    @Test
    void readsTheHeaderAtMostEveryCheckInterval()
    {
        final SourceMonitor monitor = new SourceMonitor(consumer, clock, TIMEOUT_MS, null);
        producer.heartbeat(clock.time(), 0, RingSetHeader.SOURCE_LIVE);
        assertEquals(SourceStatus.LIVE, monitor.poll(1_000));

        producer.heartbeat(clock.time(), 0, RingSetHeader.SOURCE_LINES_SILENT);
        assertEquals(SourceStatus.LIVE, monitor.poll(1_000 + SourceMonitor.CHECK_INTERVAL_NS - 1), "not read again yet");
        assertEquals(SourceStatus.LINES_SILENT, monitor.poll(1_000 + SourceMonitor.CHECK_INTERVAL_NS));
        assertEquals(SourceStatus.LINES_SILENT, monitor.status());
    }

    @Test
    void ringsWithoutAHeaderHaveAnUnknownSource()
    {
        final SourceMonitor monitor = new SourceMonitor(null, clock, TIMEOUT_MS, counters);
        clock.advance(3_600_000);
        assertEquals(SourceStatus.UNKNOWN, monitor.update(), "a test's or a peer's rings: nothing says how their producer is");
        assertEquals(0, counters.downEvents().get());
        assertEquals(0, monitor.lastExchangeTimestampNs());
    }

    @Test
    void aClockStepBackwardsIsNoNegativeAgeAndTheWireAgeIsCapped()
    {
        final SourceMonitor monitor = new SourceMonitor(consumer, clock, TIMEOUT_MS, null);
        producer.heartbeat(START_MS + 10_000, 0, RingSetHeader.SOURCE_LIVE);
        assertEquals(SourceStatus.LIVE, monitor.update());
        assertEquals(0, monitor.heartbeatAgeMs());

        clock.advance(100L * 24 * 3600 * 1000);
        assertEquals(SourceStatus.FEED_HANDLER_DOWN, monitor.update());
        assertTrue(monitor.heartbeatAgeMs() > SourceMonitor.MAX_WIRE_AGE_MS);
        assertEquals(SourceMonitor.MAX_WIRE_AGE_MS, monitor.wireHeartbeatAgeMs(), "below the uint32 null value");
    }

    @Test
    void downMeansTheFeedDoesNotDeliverAndTheTimeoutMustBePositive()
    {
        assertTrue(SourceMonitor.isDown(SourceStatus.FEED_HANDLER_DOWN));
        assertTrue(SourceMonitor.isDown(SourceStatus.LINES_SILENT));
        assertTrue(SourceMonitor.isDown(SourceStatus.LOADING));
        assertTrue(SourceMonitor.isDown(SourceStatus.STOPPED));
        assertFalse(SourceMonitor.isDown(SourceStatus.LIVE));
        assertFalse(SourceMonitor.isDown(SourceStatus.UNKNOWN));
        assertThrows(IllegalArgumentException.class, () -> new SourceMonitor(consumer, clock, 0, null));
    }
}
