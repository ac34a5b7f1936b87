package io.mdfanout.archive;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SessionRollTest
{
    @Test
    void aDateIsFollowedByTheNextWeekday()
    {
        assertEquals("2026-11-27", SessionRoll.next("2026-11-26"));
        assertEquals("2026-11-30", SessionRoll.next("2026-11-27"), "Friday by Monday");
        assertEquals("2027-01-01", SessionRoll.next("2026-12-31"));
    }

    @Test
    void anArchiveStartedWithoutASessionContinuesTheNewestDateItRolledInto()
    {
        assertEquals("2026-11-28", SessionRoll.current("2026-11-28", List.of()));
        assertEquals("2026-11-28", SessionRoll.current("2026-11-28", List.of("2026-11-26", "2026-11-27", "day-1")),
            "a new day after the ones held");
        assertEquals("2026-11-30", SessionRoll.current("2026-11-28", List.of("2026-11-27", "2026-11-30")),
            "rolled into Monday's on Friday evening, restarted on Saturday");
    }

    @Test
    void anyOtherNameGetsACounter()
    {
        assertEquals("test-2", SessionRoll.next("test"));
        assertEquals("test-3", SessionRoll.next("test-2"));
        assertEquals("a-b-2", SessionRoll.next("a-b"));
        assertEquals("2026-11-27x-2", SessionRoll.next("2026-11-27x"));
        assertEquals("x-123456789-2", SessionRoll.next("x-123456789"), "no counter overflows");
    }
}
