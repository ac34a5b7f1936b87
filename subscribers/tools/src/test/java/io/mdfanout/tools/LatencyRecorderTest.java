package io.mdfanout.tools;

import io.mdfanout.testing.AllocationWindows;
import io.mdfanout.wire.PreciseEpochNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LatencyRecorderTest
{
    @Test
    void leavesTheWarmupOutAndReportsPercentilesInMicroseconds()
    {
        final LatencyRecorder recorder = new LatencyRecorder(10);
        for (int i = 0; i < 10; i++)
        {
            recorder.record(1_000_000_000L);  // warm-up: would dominate max if it were recorded
        }
        for (int i = 1; i <= 1_000; i++)
        {
            recorder.record(i * 1_000L);  // 1..1000 us
        }
        assertEquals(1_010, recorder.seen());
        assertEquals(1_000, recorder.count());
        assertEquals(500.0, recorder.percentileMicros(50), 1.0);
        assertEquals(990.0, recorder.percentileMicros(99), 1.0);
        assertEquals(1_000.0, recorder.maxMicros(), 1.0);
        assertTrue(recorder.summary("latency").startsWith("latency: latency count=1000 p50=500."));
    }

    @Test
    void countsNegativeAndOutOfRangeValues()
    {
        final LatencyRecorder recorder = new LatencyRecorder(0);
        recorder.record(-5);
        recorder.record(LatencyRecorder.HIGHEST_TRACKABLE_NS * 2);
        assertEquals(2, recorder.count());
        assertEquals(1, recorder.negative());
        assertEquals(1, recorder.clamped());
        assertThrows(IllegalArgumentException.class, () -> new LatencyRecorder(-1));
    }

    @Test
    void timeOfDayLatencyCrossesMidnight()
    {
        final long day = LatencyRecorder.NANOS_PER_DAY;
        final long midnight = 20_000 * day;
        assertEquals(3_000L, LatencyRecorder.sinceTimeOfDay(midnight + 5_000L, 2_000L));
        assertEquals(7_000L, LatencyRecorder.sinceTimeOfDay(midnight + 5_000L, day - 2_000L), "sent before midnight");
        assertEquals(-1_000L, LatencyRecorder.sinceTimeOfDay(midnight + day - 1_000L, 0L), "clock behind, no wrap");
    }

    @Test
    void writesJsonAndHgrm(@TempDir final Path dir) throws Exception
    {
        final LatencyRecorder recorder = new LatencyRecorder(0);
        recorder.record(2_000);
        recorder.writeJson(dir.resolve("r.json"), "chain", "gaps", "0");
        recorder.writeHgrm(dir.resolve("r.hgrm"));
        final String json = Files.readString(dir.resolve("r.json"));
        assertTrue(json.startsWith("{\"system\":\"chain\",\"count\":1,"), json);
        assertTrue(json.contains("\"p99_us\":2.000") && json.trim().endsWith("\"gaps\":0}"), json);
        assertTrue(Files.readString(dir.resolve("r.hgrm")).contains("Value     Percentile"));
    }

    @Test
    void recordingAllocatesNothing() throws Exception
    {
        final LatencyRecorder recorder = new LatencyRecorder(100);
        final PreciseEpochNanoClock clock = new PreciseEpochNanoClock();
        for (int round = 0; round < 3; round++)
        {
            recordMany(recorder, clock);  // warm-up: the same path, compiled
        }
        AllocationWindows.assertOneWindowAllocatesNothing(
            "recording 500,000 latencies", AllocationWindows.WINDOWS, () -> recordMany(recorder, clock));
    }

    private static void recordMany(final LatencyRecorder recorder, final PreciseEpochNanoClock clock)
    {
        for (int i = 0; i < 500_000; i++)
        {
            recorder.record(LatencyRecorder.sinceTimeOfDay(clock.nanoTime(), i * 997L));
        }
    }
}
