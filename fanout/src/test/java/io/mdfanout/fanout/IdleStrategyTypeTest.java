package io.mdfanout.fanout;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IdleStrategyTypeTest
{
    @Test
    void parkIsBackoffWithoutYields()
    {
        assertEquals(IdleStrategyType.PARK, IdleStrategyType.fromName("park"));
        assertEquals("park", IdleStrategyType.PARK.cliName());
        final String strategy = IdleStrategyType.PARK.newIdleStrategy(50_000).toString();
        assertTrue(IdleStrategyType.PARK.newIdleStrategy() instanceof BackoffIdleStrategy);
        assertTrue(strategy.contains("maxSpins=10, maxYields=0, minParkPeriodNs=1000, maxParkPeriodNs=50000"), strategy);
        assertTrue(IdleStrategyType.BACKOFF.newIdleStrategy().toString().contains("maxYields=20"));
    }

    @Test
    void onlySpinningStrategiesBackOffOnSharedCores()
    {
        assertEquals(IdleStrategyType.BACKOFF, IdleStrategyType.BUSY_SPIN.onSharedCores());
        assertEquals(IdleStrategyType.BACKOFF, IdleStrategyType.YIELD.onSharedCores());
        assertEquals(IdleStrategyType.PARK, IdleStrategyType.PARK.onSharedCores());
        assertEquals(IdleStrategyType.SLEEP, IdleStrategyType.SLEEP.onSharedCores());
        assertTrue(IdleStrategyType.SLEEP.onSharedCores().newIdleStrategy() instanceof SleepingIdleStrategy);
    }
}
