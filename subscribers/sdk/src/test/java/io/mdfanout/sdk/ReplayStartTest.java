package io.mdfanout.sdk;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReplayStartTest
{
    @Test
    void theBeginningIsReachedAtOnce()
    {
        assertTrue(ReplayStart.beginning().reached(0, 1, 0));
        assertEquals("the beginning", ReplayStart.beginning().toString());
    }

    @Test
    void aStreamSequenceIsReachedAtItOnEveryPartition()
    {
        final ReplayStart start = ReplayStart.streamSequence(100);
        assertFalse(start.reached(0, 99, Long.MAX_VALUE), "the exchange time plays no part");
        assertTrue(start.reached(0, 100, 0));
        assertTrue(start.reached(7, 101, 0));
        assertThrows(IllegalArgumentException.class, () -> ReplayStart.streamSequence(0));
    }

    @Test
    void sequencesPerPartitionStartEachWhereNamedAndTheOthersAtTheBeginning()
    {
        final ReplayStart start = ReplayStart.streamSequences(Map.of(0, 10L, 2, 30L));
        assertFalse(start.reached(0, 9, 0));
        assertTrue(start.reached(0, 10, 0));
        assertTrue(start.reached(1, 1, 0), "partition 1 is not named: from its beginning");
        assertFalse(start.reached(2, 29, 0));
        assertTrue(start.reached(2, 30, 0));
        assertTrue(start.reached(5, 1, 0), "a partition past the highest named one: from its beginning");
        assertThrows(IllegalArgumentException.class, () -> ReplayStart.streamSequences(Map.of(-1, 5L)));
        assertThrows(IllegalArgumentException.class, () -> ReplayStart.streamSequences(Map.of(1, 0L)));
    }

    @Test
    void anExchangeTimeIsReachedByTheFirstMessageStampedAtOrAfterIt()
    {
        final long tenThirty = (10 * 3600 + 30 * 60) * 1_000_000_000L;
        final ReplayStart start = ReplayStart.exchangeTime(tenThirty);
        assertFalse(start.reached(0, 1_000_000, tenThirty - 1), "the stream sequence plays no part");
        assertTrue(start.reached(0, 1, tenThirty));
        assertThrows(IllegalArgumentException.class, () -> ReplayStart.exchangeTime(-1));
    }
}
