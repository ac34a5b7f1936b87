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
}
