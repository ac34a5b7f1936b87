package io.mdfanout.affinity;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class IdleStrategiesTest
{
    // Agrona's description of a BackoffIdleStrategy names its spins, yields and parks.
    @Test
    void backoffSpinsYieldsThenParks()
    {
        assertEquals("BackoffIdleStrategy{alias=backoff, maxSpins=10, maxYields=20, minParkPeriodNs=1000, " +
            "maxParkPeriodNs=50000}", IdleStrategies.backoff(50_000).toString());
    }

    @Test
    void parkNeverYields()
    {
        assertEquals("BackoffIdleStrategy{alias=backoff, maxSpins=10, maxYields=0, minParkPeriodNs=1000, " +
            "maxParkPeriodNs=100000}", IdleStrategies.park(IdleStrategies.DEFAULT_MAX_PARK_NS).toString());
    }

    @Test
    void theLongestParkIsAtLeastTheFirst()
    {
        assertEquals(IdleStrategies.park(IdleStrategies.MIN_PARK_NS).toString(), IdleStrategies.park(0).toString());
    }
}
