package io.mdfanout.feed.sim;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Pacing arithmetic on a simulated clock (no real time involved). */
class RatePacerTest
{
    private static final long MS = 1_000_000L;

    @Test
    void accumulatesCreditAtTheRate()
    {
        final RatePacer pacer = RatePacer.steady(100_000, 0);
        assertEquals(0, pacer.available(0));
        assertEquals(100, pacer.available(MS));
        pacer.consume(60);
        assertEquals(40 + 50, pacer.available(MS + MS / 2));
        pacer.consume(90);

        // One message per 10 microseconds: a light rate still gets single messages promptly.
        assertEquals(0, pacer.available(MS + MS / 2 + 9_999));
        assertEquals(1, pacer.available(MS + MS / 2 + 10_000));
    }

    @Test
    void sustainsTheRateOverManySmallSteps()
    {
        final RatePacer pacer = RatePacer.steady(1_000, 0);
        long sent = 0;
        for (long t = 0; t <= 10_000 * MS; t += 37_000)
        {
            final long n = pacer.available(t);
            pacer.consume(n);
            sent += n;
        }
        assertTrue(sent >= 9_999 && sent <= 10_000, "sent " + sent + " in 10 s at 1000/s");
    }

    @Test
    void creditIsCappedAfterAStall()
    {
        final RatePacer pacer = RatePacer.steady(100_000, 0);
        assertEquals(1_000, pacer.available(5_000 * MS), "at most about 10 ms worth after a stall");
    }

    @Test
    void aCapLongerThanASecondIsKeptWhole()
    {
        final RatePacer pacer = new RatePacer(100_000, 0, 0, 0, 0, 5_000 * MS);
        assertEquals(300_000, pacer.available(3_000 * MS), "a 3 s stall under a 5 s cap: all of it owed");
        assertEquals(500_000, pacer.available(60_000 * MS), "then capped at 5 s worth");
        final RatePacer huge = new RatePacer(1_000_000_000, 0, 0, 0, 0, Long.MAX_VALUE / 2);
        assertTrue(huge.available(1_000 * MS) > 0, "a cap past what a long holds does not overflow");
    }

    @Test
    void withoutACapAStallOwesEveryMessageEachStampedWhenItWasDue()
    {
        final RatePacer pacer = new RatePacer(100_000, 0, 0, 0, 0, 0);
        assertEquals(500_000, pacer.available(5_000 * MS), "5 s stalled at 100,000/s: all of them owed");
        assertEquals(10 * MS / 1_000, pacer.scheduledTimeNs(5_000 * MS, 0), "the oldest was due 10 us in");
        assertEquals(5_000 * MS, pacer.scheduledTimeNs(5_000 * MS, 499_999), "the newest is due now");
        pacer.consume(500_000);
        assertEquals(0, pacer.available(5_000 * MS));
        // A stall longer than the second the capped pacer clamps to is not forgotten either.
        assertEquals(2_000_000, pacer.available(25_000 * MS), "20 s more");
    }

    @Test
    void burstsApplyTheirRateInsideTheWindow()
    {
        final RatePacer pacer = new RatePacer(1_000, 100_000, 100 * MS, 1_000 * MS, 0);
        assertEquals(100_000, pacer.currentRate(50 * MS));
        assertEquals(1_000, pacer.currentRate(500 * MS));
        assertEquals(100_000, pacer.currentRate(1_050 * MS));
        assertEquals(500, pacer.available(5 * MS), "5 ms at 100,000/s");
        pacer.consume(500);
        assertEquals(500, pacer.available(10 * MS), "5 ms at 100,000/s");
        pacer.consume(500);
        assertEquals(0, pacer.available(200 * MS) > 1_000 ? 1 : 0, "outside the burst: at most 10 ms worth");
        pacer.consume(pacer.available(200 * MS));
        assertEquals(10, pacer.available(210 * MS), "10 ms at 1,000/s");
    }

    @Test
    void zeroRateIsUnlimited()
    {
        assertEquals(Long.MAX_VALUE, RatePacer.steady(0, 0).available(1));
    }

    @Test
    void rejectsBadSettings()
    {
        assertThrows(IllegalArgumentException.class, () -> RatePacer.steady(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> new RatePacer(1, 10, 200 * MS, 100 * MS, 0));
        assertThrows(IllegalArgumentException.class, () -> new RatePacer(1, 10, 0, 100 * MS, 0));
    }
}
