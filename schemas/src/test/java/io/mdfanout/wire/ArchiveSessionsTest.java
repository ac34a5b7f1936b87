package io.mdfanout.wire;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class ArchiveSessionsTest
{
    @Test
    void aSessionIsFoundInTheChannelItsAliasIsIn()
    {
        final String alias = ArchiveSessions.alias("2026-11-27");
        assertEquals("mdfanout-session-2026-11-27", alias);
        assertEquals("2026-11-27", ArchiveSessions.sessionOf("aeron:udp?endpoint=224.0.1.1:40456|alias=" + alias));
        assertEquals("2026-11-27", ArchiveSessions.sessionOf(
            "aeron:udp?endpoint=224.0.1.1:40456|alias=" + alias + "|interface=127.0.0.1"));
        assertNull(ArchiveSessions.sessionOf("aeron:udp?endpoint=224.0.1.1:40456|alias=something-else"));
        assertNull(ArchiveSessions.sessionOf("aeron:ipc"));
    }

    @Test
    void sideBOfAPairIsTheSameSessionUnderAnAliasOfItsOwn()
    {
        assertEquals("mdfanout-session-2026-11-27", ArchiveSessions.alias("2026-11-27", 0));
        final String sideB = ArchiveSessions.alias("2026-11-27", 1);
        assertEquals("mdfanout-session-2026-11-27~side-B", sideB);
        final String channelB = "aeron:udp?endpoint=224.0.1.3:40456|alias=" + sideB + "|interface=127.0.0.1";
        assertEquals("2026-11-27", ArchiveSessions.sessionOf(channelB));
        assertEquals(1, ArchiveSessions.sideOf(channelB));
        assertEquals(0, ArchiveSessions.sideOf("aeron:udp?endpoint=224.0.1.1:40456|alias=mdfanout-session-2026-11-27"));
        assertEquals(-1, ArchiveSessions.sideOf("aeron:ipc"));
        assertEquals(-1, ArchiveSessions.sideOf("aeron:udp?endpoint=224.0.1.1:1|alias=mdfanout-session-x~side-?"));
    }
}
