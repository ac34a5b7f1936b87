package io.mdfanout.feed.handler;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IdleStrategyChoiceTest
{
    @Test
    void parkIsBackoffWithoutYields()
    {
        final IdleStrategyChoice park = IdleStrategyChoice.parse("park");
        assertEquals(IdleStrategyChoice.PARK, park);
        final String strategy = park.newIdleStrategy(50_000).toString();
        assertTrue(park.newIdleStrategy() instanceof BackoffIdleStrategy);
        assertTrue(strategy.contains("maxSpins=10, maxYields=0, minParkPeriodNs=1000, maxParkPeriodNs=50000"), strategy);
        assertTrue(IdleStrategyChoice.BACKOFF.newIdleStrategy().toString().contains("maxYields=20"));
    }

    @Test
    void onlySpinningStrategiesBackOffOnSharedCores()
    {
        assertEquals(IdleStrategyChoice.BACKOFF, IdleStrategyChoice.BUSY_SPIN.onSharedCores());
        assertEquals(IdleStrategyChoice.BACKOFF, IdleStrategyChoice.YIELD.onSharedCores());
        assertEquals(IdleStrategyChoice.BACKOFF, IdleStrategyChoice.BACKOFF.onSharedCores());
        assertEquals(IdleStrategyChoice.PARK, IdleStrategyChoice.PARK.onSharedCores());
        assertTrue(IdleStrategyChoice.PARK.parks());
        assertFalse(IdleStrategyChoice.YIELD.parks());
    }

    @Test
    void unknownNamesListTheChoices()
    {
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> IdleStrategyChoice.parse("nap"));
        assertEquals("unknown idle strategy 'nap' (backoff, park, yield or busy-spin)", ex.getMessage());
    }
}
