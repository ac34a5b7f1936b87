package io.mdfanout.feed.sim;

import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.EpochNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The simulator's latency timestamps: the pacer's intended send time in wall-clock time of day, and the session's
 * own timestamps when the option is off.
 */
class LatencyTimestampsTest
{
    private static final long WALL_START_NS = 1_700_000_000_000_000_000L; // 2023-11-14T22:13:20Z
    private static final long NANOS_PER_DAY = 86_400_000_000_000L;

    private final SimulatorCounters counters = SimulatorCounters.create();

    @AfterEach
    void tearDown()
    {
        counters.close();
    }

    @Test
    void stampsEachMessageWithTheTimeThePacerScheduledIt()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(1_000_000L);
        final long startNs = clock.nanoTime();
        final EpochNanoClock wall = () -> WALL_START_NS + (clock.nanoTime() - startNs);
        final List<Long> timestamps = new ArrayList<>();
        final Simulator simulator = simulator(RatePacer.steady(1_000, startNs), clock, wall, timestamps);

        clock.advance(5_000_000L);  // 5 ms at 1,000/s: five messages due, at 1, 2, 3, 4 and 5 ms
        assertEquals(5, simulator.doWork());
        final long startOfDay = Math.floorMod(WALL_START_NS, NANOS_PER_DAY);
        assertEquals(List.of(startOfDay + 1_000_000L, startOfDay + 2_000_000L, startOfDay + 3_000_000L,
            startOfDay + 4_000_000L, startOfDay + 5_000_000L), timestamps);

        // Sent late (2.5 ms after the next was due): stamped with when it was due, not when it went out.
        timestamps.clear();
        clock.advance(3_500_000L);
        assertEquals(3, simulator.doWork());
        assertEquals(List.of(startOfDay + 6_000_000L, startOfDay + 7_000_000L, startOfDay + 8_000_000L), timestamps);
    }

    @Test
    void withoutTheOptionTheSessionKeepsItsOwnTimestamps()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        final List<Long> timestamps = new ArrayList<>();
        final Simulator simulator = simulator(RatePacer.steady(0, 0), clock, null, timestamps);
        simulator.doWork();

        final SessionGenerator reference = new SessionGenerator(1, new SessionConfig().symbols(5).messageCount(0));
        final ItchEvent event = new ItchEvent();
        for (final long timestamp : timestamps)
        {
            reference.next(event);
            assertEquals(event.timestamp, timestamp);
        }
        assertEquals(Simulator.MAX_BATCH, timestamps.size());
    }

    private Simulator simulator(
        final RatePacer pacer, final CachedNanoClock clock, final EpochNanoClock wall, final List<Long> timestamps)
    {
        final MoldUdp64Packetizer packetizer = new MoldUdp64Packetizer("SIMTEST", 1400, 1_000_000_000L, clock,
            (buffer, offset, length) ->
            {
                final ByteBuffer view = ByteBuffer.allocate(length).order(ByteOrder.BIG_ENDIAN);
                buffer.getBytes(offset, view, length);
                int position = MoldUdp64Packetizer.HEADER_LENGTH;
                final int count = view.getShort(MoldUdp64Packetizer.COUNT_OFFSET) & 0xFFFF;
                for (int i = 0; i < count && count != 0xFFFF; i++)
                {
                    final int messageLength = view.getShort(position) & 0xFFFF;
                    final int stamp = position + 2 + 5;
                    timestamps.add(((view.getShort(stamp) & 0xFFFFL) << 32) | (view.getInt(stamp + 2) & 0xFFFF_FFFFL));
                    position += 2 + messageLength;
                }
            },
            counters);
        return new Simulator(new SessionGenerator(1, new SessionConfig().symbols(5).messageCount(0)), packetizer, pacer,
            clock, null, counters, wall);
    }
}
