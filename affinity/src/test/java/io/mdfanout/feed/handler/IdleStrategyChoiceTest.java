package io.mdfanout.feed.handler;

import io.mdfanout.affinity.IdleStrategies;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class IdleStrategyChoiceTest
{
    @Test
    void parkIsTheSharedStrategyAndKeptOnSharedCores()
    {
        final IdleStrategyChoice park = IdleStrategyChoice.parse("park");
        assertEquals(IdleStrategies.park(50_000).toString(), park.newIdleStrategy(50_000).toString());
        assertEquals(park, park.onSharedCores());
        assertEquals(IdleStrategyChoice.BACKOFF, IdleStrategyChoice.parse("busy-spin").onSharedCores());
        assertEquals(IdleStrategyChoice.BACKOFF, IdleStrategyChoice.parse("yield").onSharedCores());
    }

    @Test
    void unknownNamesListTheChoices()
    {
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> IdleStrategyChoice.parse("nap"));
        assertEquals("unknown idle strategy 'nap' (backoff, park, yield or busy-spin)", ex.getMessage());
    }
}
