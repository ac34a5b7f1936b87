package io.mdfanout.wire;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The clock agrees with the wall clock (clock_gettime(CLOCK_REALTIME) through {@link Instant#now()}) to
 * microseconds at every reading, which a clock sampled from System.currentTimeMillis() does not: its readings lag
 * the wall clock by up to a millisecond.
 */
class PreciseEpochNanoClockTest
{
    private static final long TOLERANCE_NS = TimeUnit.MICROSECONDS.toNanos(50);

    @Test
    void everyReadingAgreesWithTheWallClockToMicroseconds()
    {
        final PreciseEpochNanoClock clock = new PreciseEpochNanoClock();
        for (int i = 0; i < 1_000; i++)
        {
            final long beforeNs = clock.nanoTime();
            final long wallNs = wallClockNs();
            final long afterNs = clock.nanoTime();
            assertTrue(wallNs >= beforeNs - TOLERANCE_NS && wallNs <= afterNs + TOLERANCE_NS,
                "reading " + i + ": wall clock " + wallNs + " outside [" + beforeNs + ", " + afterNs + "] +- " +
                TOLERANCE_NS + " ns");
        }
    }

    @Test
    void aResampleKeepsItOnTheWallClock()
    {
        final PreciseEpochNanoClock clock = new PreciseEpochNanoClock();
        clock.sample();
        final long beforeNs = clock.nanoTime();
        final long wallNs = wallClockNs();
        final long afterNs = clock.nanoTime();
        assertTrue(wallNs >= beforeNs - TOLERANCE_NS && wallNs <= afterNs + TOLERANCE_NS);
    }

    private static long wallClockNs()
    {
        final Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }
}
