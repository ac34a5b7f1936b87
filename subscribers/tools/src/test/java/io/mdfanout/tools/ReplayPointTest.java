package io.mdfanout.tools;

import io.mdfanout.sdk.ReplayStart;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReplayPointTest
{
    @Test
    void everyFormParses()
    {
        assertTrue(ReplayPoint.parse("--from", "start").reached(0, 1, 0));
        final ReplayStart sequence = ReplayPoint.parse("--from", "seq:500");
        assertFalse(sequence.reached(3, 499, 0));
        assertTrue(sequence.reached(3, 500, 0));
        final ReplayStart perPartition = ReplayPoint.parse("--from", "seq:0=10, 1=20");
        assertTrue(perPartition.reached(0, 10, 0));
        assertFalse(perPartition.reached(1, 19, 0));
        final ReplayStart time = ReplayPoint.parse("--from", "09:30:00.5");
        final long expected = (9 * 3600 + 30 * 60) * 1_000_000_000L + 500_000_000L;
        assertFalse(time.reached(0, 1, expected - 1));
        assertTrue(time.reached(0, 1, expected));
        assertTrue(ReplayPoint.parse("--to", "ns:42").reached(0, 1, 42));
    }

    @Test
    void aBadPointIsRefusedNamingTheOptionAndTheForms()
    {
        for (final String bad : new String[]{ "", "yesterday", "seq:", "seq:x", "seq:0=", "seq:0", "25:00", "ns:-1" })
        {
            final IllegalArgumentException ex =
                assertThrows(IllegalArgumentException.class, () -> ReplayPoint.parse("--to", bad), bad);
            assertTrue(ex.getMessage().startsWith("--to "), ex.getMessage());
        }
        assertEquals(IllegalArgumentException.class,
            assertThrows(IllegalArgumentException.class, () -> ReplayPoint.parse("--from", "seq:0=1,0")).getClass());
    }
}
