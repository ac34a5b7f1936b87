package io.mdfanout.wire;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class IdleStrategyTypeTest
{
    // Agrona's description of a BackoffIdleStrategy names its spins, yields and parks.
    @Test
    void backoffSpinsYieldsThenParks()
    {
        assertEquals("BackoffIdleStrategy{alias=backoff, maxSpins=10, maxYields=20, minParkPeriodNs=1000, " +
            "maxParkPeriodNs=50000}", IdleStrategyType.backoff(50_000).toString());
    }

    @Test
    void parkNeverYields()
    {
        assertEquals("BackoffIdleStrategy{alias=backoff, maxSpins=10, maxYields=0, minParkPeriodNs=1000, " +
            "maxParkPeriodNs=100000}", IdleStrategyType.park(IdleStrategyType.DEFAULT_MAX_PARK_NS).toString());
    }

    @Test
    void theLongestParkIsAtLeastTheFirst()
    {
        assertEquals(IdleStrategyType.park(IdleStrategyType.MIN_PARK_NS).toString(),
            IdleStrategyType.park(0).toString());
    }

    @Test
    void backoffAndParkAreTheSharedStrategies()
    {
        assertEquals(IdleStrategyType.PARK, IdleStrategyType.parse("park"));
        assertEquals(IdleStrategyType.park(50_000).toString(),
            IdleStrategyType.PARK.newIdleStrategy(50_000).toString());
        assertEquals(IdleStrategyType.backoff(IdleStrategyType.DEFAULT_MAX_PARK_NS).toString(),
            IdleStrategyType.BACKOFF.newIdleStrategy().toString());
    }

    @Test
    void onSharedCoresOnlySpinningAndYieldingBecomeBackoff()
    {
        for (final IdleStrategyType type : IdleStrategyType.values())
        {
            final boolean spins = IdleStrategyType.YIELD == type || IdleStrategyType.BUSY_SPIN == type ||
                IdleStrategyType.NOOP == type;
            assertEquals(spins ? IdleStrategyType.BACKOFF : type, type.onSharedCores(), type.cliName());
        }
    }

    @Test
    void parkIsKeptOnSharedCores()
    {
        final IdleStrategyType park = IdleStrategyType.parse("park");
        assertEquals(park, park.onSharedCores());
        assertEquals(IdleStrategyType.BACKOFF, IdleStrategyType.parse("busy-spin").onSharedCores());
        assertEquals(IdleStrategyType.BACKOFF, IdleStrategyType.parse("yield").onSharedCores());
    }

    @Test
    void todaysNamesAndAgronasAliasesAreAccepted()
    {
        assertEquals(IdleStrategyType.BACKOFF, IdleStrategyType.parse("backoff"));
        assertEquals(IdleStrategyType.BACKOFF, IdleStrategyType.parse(BackoffIdleStrategy.ALIAS));
        assertEquals(IdleStrategyType.YIELD, IdleStrategyType.parse(YieldingIdleStrategy.ALIAS));
        assertEquals(IdleStrategyType.BUSY_SPIN, IdleStrategyType.parse("busy-spin"));
        assertEquals(IdleStrategyType.BUSY_SPIN, IdleStrategyType.parse(BusySpinIdleStrategy.ALIAS));
        assertEquals(IdleStrategyType.SLEEP, IdleStrategyType.parse("sleep"));
        assertEquals(IdleStrategyType.SLEEP, IdleStrategyType.parse(SleepingIdleStrategy.ALIAS));
        assertEquals(IdleStrategyType.SLEEP_MS, IdleStrategyType.parse(SleepingMillisIdleStrategy.ALIAS));
        assertEquals(IdleStrategyType.NOOP, IdleStrategyType.parse(NoOpIdleStrategy.ALIAS));
        // The fanout's parser was case-insensitive with '_' for '-': still so.
        assertEquals(IdleStrategyType.BUSY_SPIN, IdleStrategyType.parse("BUSY_SPIN"));
        for (final IdleStrategyType type : IdleStrategyType.values())
        {
            assertEquals(type, IdleStrategyType.parse(type.cliName()));
            assertEquals(type.cliName(), type.toString());
        }
    }

    @Test
    void eachTypeMakesItsAgronaStrategy()
    {
        assertEquals(BusySpinIdleStrategy.ALIAS, IdleStrategyType.BUSY_SPIN.newIdleStrategy().alias());
        assertEquals(YieldingIdleStrategy.ALIAS, IdleStrategyType.YIELD.newIdleStrategy().alias());
        assertEquals(NoOpIdleStrategy.ALIAS, IdleStrategyType.NOOP.newIdleStrategy().alias());
        assertEquals("SleepingIdleStrategy{alias=sleep-ns, sleepPeriodNs=50000}",
            IdleStrategyType.SLEEP.newIdleStrategy(50_000).toString());
        // Whole milliseconds, at least one.
        assertEquals("SleepingMillisIdleStrategy{alias=sleep-ms, sleepPeriodMs=1}",
            IdleStrategyType.SLEEP_MS.newIdleStrategy(50_000).toString());
        assertEquals("SleepingMillisIdleStrategy{alias=sleep-ms, sleepPeriodMs=3}",
            IdleStrategyType.SLEEP_MS.newIdleStrategy(2_500_000).toString());
    }

    @Test
    void unknownNamesListTheChoices()
    {
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> IdleStrategyType.parse("nap"));
        assertEquals("unknown --idle-strategy 'nap' (backoff, park, yield or busy-spin)", ex.getMessage());
    }
}
