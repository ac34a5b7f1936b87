package io.mdfanout.feed.sim;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SimulatorTest
{
    private final SimulatorCounters counters = SimulatorCounters.create();
    private final List<Integer> packetCounts = new ArrayList<>();

    @AfterEach
    void tearDown()
    {
        counters.close();
    }

    @Test
    void aLightRateSendsSmallPacketsAndNeverRunsAhead()
    {
        final long rate = 2_000;
        final SystemNanoClock clock = SystemNanoClock.INSTANCE;
        final Simulator simulator = simulator(new SessionConfig().symbols(5).messageCount(0),
            RatePacer.steady(rate, clock.nanoTime()), clock);
        final BackoffIdleStrategy idle = new BackoffIdleStrategy(1, 1, 1_000, 100_000);
        final long start = clock.nanoTime();
        while (clock.nanoTime() - start < 200_000_000L)
        {
            idle.idle(simulator.doWork());
        }
        final double elapsedS = (clock.nanoTime() - start) / 1e9;
        simulator.finish();

        // The pacer caps its credit at 10 ms worth (20 messages at 2,000/s): no packet can carry more.
        for (final int count : packetCounts.subList(0, packetCounts.size() - 1))
        {
            assertTrue(count >= 1 && count <= 20, "messages in a paced packet: " + count);
        }
        assertEquals(0xFFFF, packetCounts.get(packetCounts.size() - 1).intValue(), "ends with end of session");
        assertTrue(simulator.messages() <= rate * elapsedS + 20, "not ahead of the rate: " + simulator.messages());
        assertTrue(simulator.messages() > 0);
    }

    @Test
    void unlimitedRateFillsPacketsAndEndsWithEndOfSession()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        final Simulator simulator = simulator(new SessionConfig().symbols(5).messageCount(20_000),
            RatePacer.steady(0, 0), clock);
        int cycles = 0;
        while (!simulator.isDone())
        {
            simulator.doWork();
            cycles++;
        }
        assertEquals(20_000, simulator.messages());
        assertEquals(20_000, counters.messagesSent().get());
        assertTrue(cycles <= 20_000 / Simulator.MAX_BATCH + 2);
        assertTrue(packetCounts.size() < 20_000 / 20, "full packets");
        assertEquals(0xFFFF, packetCounts.get(packetCounts.size() - 1).intValue());
        assertEquals(0, simulator.doWork(), "nothing after the end");
    }

    @Test
    void idleLineSendsHeartbeatsAndAPausedLineCatchesUpOnlyTheCappedCredit()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        final Simulator simulator = simulator(new SessionConfig().symbols(5).messageCount(0),
            RatePacer.steady(1, 0), clock, 100_000_000L);
        clock.advance(50_000_000L);
        assertEquals(0, simulator.doWork(), "nothing due after 50 ms at 1/s");
        assertTrue(packetCounts.isEmpty(), "and not idle for 100 ms yet");
        clock.advance(60_000_000L);
        assertEquals(0, simulator.doWork());
        assertEquals(List.of(0), packetCounts, "a heartbeat after 110 ms idle");
        assertEquals(1, counters.heartbeatsSent().get());

        clock.advance(900_000_000L);
        assertEquals(1, simulator.doWork(), "one message due after 1.01 s");
        clock.advance(5_000_000_000L);
        assertEquals(1, simulator.doWork(), "credit capped at one message at 1/s, however long the pause");
        assertEquals(List.of(0, 1, 1), packetCounts);
    }

    @Test
    void aWarmUpPacesTheFirstMessagesThenTheMainRateStartsWithoutCredit()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        final RatePacer main = RatePacer.steady(1_000_000, 0);
        final Simulator simulator = simulator(new SessionConfig().symbols(5).messageCount(0), main, clock);
        simulator.warmup(25, RatePacer.steady(1_000, 0));

        clock.advance(10_000_000L);
        assertEquals(10, simulator.doWork(), "10 ms at the warm-up's 1,000/s");
        clock.advance(10_000_000L);
        assertEquals(10, simulator.doWork());
        assertEquals(-1, simulator.measuredStartNs(), "still warming up");
        clock.advance(100_000_000L);
        assertEquals(5, simulator.doWork(), "the warm-up's last 5 messages, not its 10 ms of credit");
        assertEquals(120_000_000L, simulator.measuredStartNs(), "the main rate starts at the warm-up's last send");
        assertEquals(0, simulator.doWork(), "and starts with no credit: the main pacer's 120 ms are not owed");
        clock.advance(1_000_000L);
        assertEquals(1_000, simulator.doWork(), "1 ms at the main 1,000,000/s");
        assertEquals(1_025, simulator.messages());
    }

    @Test
    void coalescingHoldsDueMessagesSoThatTheyShareAPacket()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        final Simulator simulator = simulator(new SessionConfig().symbols(5).messageCount(0),
            RatePacer.steady(1_000_000, 0), clock);
        simulator.coalesce(10_000L);

        clock.advance(1_000L);
        assertEquals(1, simulator.doWork(), "the first due message goes at once");
        for (int i = 0; i < 9; i++)
        {
            clock.advance(1_000L);
            assertEquals(0, simulator.doWork(), "held: " + (i + 1) + " us since the last send");
        }
        clock.advance(1_000L);
        assertEquals(10, simulator.doWork(), "10 us after the last send: the 10 messages due since, together");
        assertEquals(List.of(1, 10), packetCounts, "one packet each time");
        clock.advance(5_000L);
        assertEquals(0, simulator.doWork());
        clock.advance(5_000L);
        assertEquals(10, simulator.doWork(), "the rate is kept");
        assertEquals(21, simulator.messages());
    }

    @Test
    void withoutCoalescingEveryCycleSendsWhatIsDue()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        final Simulator simulator = simulator(new SessionConfig().symbols(5).messageCount(0),
            RatePacer.steady(1_000_000, 0), clock);
        for (int i = 0; i < 10; i++)
        {
            clock.advance(1_000L);
            assertEquals(1, simulator.doWork());
        }
        assertEquals(10, packetCounts.size(), "a packet per cycle: one message each");
        assertThrows(IllegalArgumentException.class, () -> simulator.coalesce(-1));
    }

    private Simulator simulator(final SessionConfig config, final RatePacer pacer, final org.agrona.concurrent.NanoClock clock)
    {
        return simulator(config, pacer, clock, 1_000_000_000L);
    }

    private Simulator simulator(
        final SessionConfig config,
        final RatePacer pacer,
        final org.agrona.concurrent.NanoClock clock,
        final long heartbeatIntervalNs)
    {
        final MoldUdp64Packetizer packetizer = new MoldUdp64Packetizer("SIMTEST", 1400, heartbeatIntervalNs, clock,
            (buffer, offset, length) ->
            {
                final ByteBuffer view = ByteBuffer.allocate(length).order(ByteOrder.BIG_ENDIAN);
                buffer.getBytes(offset, view, length);
                packetCounts.add(view.getShort(18) & 0xFFFF);
            },
            counters);
        return new Simulator(new SessionGenerator(1, config), packetizer, pacer, clock, null, counters);
    }
}
