package io.mdfanout.tools;

import org.junit.jupiter.api.Test;

import java.io.PrintStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The latency tool's split of each message's latency at the fanout's send. */
class LatencyListenerTest
{
    private static final long DAY = LatencyRecorder.NANOS_PER_DAY;
    private static final long MIDNIGHT = 20_000 * DAY;

    @Test
    void splitsEachLatencyAtTheFanoutsSend()
    {
        final LatencyRecorder whole = new LatencyRecorder(0);
        final LatencyRecorder toSend = new LatencyRecorder(0);
        final LatencyRecorder fromSend = new LatencyRecorder(0);
        final LatencyCommand.LatencyListener listener = newListener(whole, toSend, fromSend);

        // Received by the feed handler at 10 ms past midnight, sent by the fanout 30 us later, called back 70 us
        // after that.
        final long stamped = 10_000_000L;
        listener.record(MIDNIGHT + stamped + 100_000L, MIDNIGHT + stamped + 30_000L, stamped);

        assertEquals(100.0, whole.maxMicros(), 0.1);
        assertEquals(30.0, toSend.maxMicros(), 0.1);
        assertEquals(70.0, fromSend.maxMicros(), 0.1);
    }

    @Test
    void theFirstHopCrossesMidnightAsTheWholeDoes()
    {
        final LatencyRecorder whole = new LatencyRecorder(0);
        final LatencyRecorder toSend = new LatencyRecorder(0);
        final LatencyRecorder fromSend = new LatencyRecorder(0);
        final LatencyCommand.LatencyListener listener = newListener(whole, toSend, fromSend);

        // Stamped 20 us before midnight, sent 5 us after it, called back 15 us later.
        listener.record(MIDNIGHT + 20_000L, MIDNIGHT + 5_000L, DAY - 20_000L);

        assertEquals(40.0, whole.maxMicros(), 0.1);
        assertEquals(25.0, toSend.maxMicros(), 0.1);
        assertEquals(15.0, fromSend.maxMicros(), 0.1);
        assertEquals(0, whole.negative() + toSend.negative() + fromSend.negative());
    }

    @Test
    void eachHopLeavesTheSameWarmupOutAndNestsInTheJson()
    {
        final LatencyRecorder whole = new LatencyRecorder(2);
        final LatencyRecorder toSend = new LatencyRecorder(2);
        final LatencyRecorder fromSend = new LatencyRecorder(2);
        final LatencyCommand.LatencyListener listener = newListener(whole, toSend, fromSend);
        for (int i = 0; i < 5; i++)
        {
            listener.record(MIDNIGHT + 3_000L, MIDNIGHT + 2_000L, 0L);
        }

        assertEquals(3, whole.count());
        assertEquals(3, toSend.count());
        assertEquals(3, fromSend.count());
        final String json = whole.toJson("chain", "to_fanout_send", toSend.toJsonPercentiles());
        assertTrue(json.contains("\"to_fanout_send\":{\"count\":3,\"p50_us\":2.000,"), json);
        assertTrue(json.trim().endsWith("\"mean_us\":2.000}}"), json);
    }

    private static LatencyCommand.LatencyListener newListener(
        final LatencyRecorder whole, final LatencyRecorder toSend, final LatencyRecorder fromSend)
    {
        final PrintStream events = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        return new LatencyCommand.LatencyListener(
            whole, toSend, fromSend, () -> 0L, new int[] {0}, new RecoveryEvents(events));
    }
}
