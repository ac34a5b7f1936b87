package io.mdfanout.tools;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
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
        final Split split = new Split(0);

        // Received by the feed handler at 10 ms past midnight, sent by the fanout 30 us later, called back 70 us
        // after that.
        final long stamped = 10_000_000L;
        split.listener.record(MIDNIGHT + stamped + 100_000L, MIDNIGHT + stamped + 30_000L, stamped);

        assertEquals(100.0, split.whole.maxMicros(), 0.1);
        assertEquals(30.0, split.toSend.maxMicros(), 0.1);
        assertEquals(70.0, split.fromSend.maxMicros(), 0.1);
    }

    @Test
    void theFirstHopCrossesMidnightAsTheWholeDoes()
    {
        final Split split = new Split(0);

        // Stamped 20 us before midnight, sent 5 us after it, called back 15 us later.
        split.listener.record(MIDNIGHT + 20_000L, MIDNIGHT + 5_000L, DAY - 20_000L);

        assertEquals(40.0, split.whole.maxMicros(), 0.1);
        assertEquals(25.0, split.toSend.maxMicros(), 0.1);
        assertEquals(15.0, split.fromSend.maxMicros(), 0.1);
        assertEquals(0, split.whole.negative() + split.toSend.negative() + split.fromSend.negative());
    }

    @Test
    void eachHopLeavesTheSameWarmupOutAndNestsInTheJson()
    {
        final Split split = new Split(2);
        for (int i = 0; i < 5; i++)
        {
            split.listener.record(MIDNIGHT + 3_000L, MIDNIGHT + 2_000L, 0L);
        }

        assertEquals(3, split.whole.count());
        assertEquals(3, split.toSend.count());
        assertEquals(3, split.fromSend.count());
        final String json = split.whole.toJson("chain", "to_fanout_send", split.toSend.toJsonPercentiles());
        assertTrue(json.contains("\"to_fanout_send\":{\"count\":3,\"p50_us\":2.000,"), json);
        assertTrue(json.trim().endsWith("\"mean_us\":2.000}}"), json);
    }

    /** The three recorders of one listener, each leaving the same warm-up out. */
    private static final class Split
    {
        final LatencyRecorder whole;
        final LatencyRecorder toSend;
        final LatencyRecorder fromSend;
        final LatencyCommand.LatencyListener listener;

        Split(final long warmup)
        {
            whole = new LatencyRecorder(warmup);
            toSend = new LatencyRecorder(warmup);
            fromSend = new LatencyRecorder(warmup);
            final PrintStream events = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
            listener = new LatencyCommand.LatencyListener(
                whole, toSend, fromSend, () -> 0L, new int[] {0}, new RecoveryEvents(events));
        }
    }
}
