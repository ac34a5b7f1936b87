package io.mdfanout.fanout;

import io.mdfanout.affinity.IdleStrategies;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class IdleStrategyTypeTest
{
    @Test
    void backoffAndParkAreTheSharedStrategies()
    {
        assertEquals(IdleStrategyType.PARK, IdleStrategyType.fromName("park"));
        assertEquals(IdleStrategies.park(50_000).toString(), IdleStrategyType.PARK.newIdleStrategy(50_000).toString());
        assertEquals(IdleStrategies.backoff(IdleStrategyType.DEFAULT_MAX_PARK_NS).toString(),
            IdleStrategyType.BACKOFF.newIdleStrategy().toString());
    }

    @Test
    void onSharedCoresOnlySpinningAndYieldingBecomeBackoff()
    {
        for (final IdleStrategyType type : IdleStrategyType.values())
        {
            final boolean spins = IdleStrategyType.YIELD == type || IdleStrategyType.BUSY_SPIN == type;
            assertEquals(spins ? IdleStrategyType.BACKOFF : type, type.onSharedCores(), type.cliName());
        }
    }
}
