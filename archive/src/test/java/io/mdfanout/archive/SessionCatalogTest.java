package io.mdfanout.archive;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SessionCatalogTest
{
    @Test
    void whatIsAppendedIsOnDiskAndReadBackByANewCatalog(@TempDir final Path dir) throws Exception
    {
        try (SessionCatalog catalog = new SessionCatalog(dir))
        {
            catalog.recordingStarted("2026-11-27", 0, 3, -12, 1, 0);
            catalog.recordingStarted("2026-11-27", 1, 4, -13, 1, 0);
            catalog.recordingStarted("2026-11-26", 0, 1, -10, 1, 0);
            catalog.hole("2026-11-27", 0, 1201, 3450, PartitionRecorder.REASON_NOT_RECORDED);
            catalog.recordingStarted("2026-11-27", 0, 7, -14, 3451, 6292352);
        }
        final List<String> lines = Files.readAllLines(dir.resolve(SessionCatalog.FILE_NAME));
        assertEquals(5, lines.size());
        assertTrue(lines.get(3).startsWith("hole session=2026-11-27 partition=0 first-missing=1201 last-missing=3450 " +
            "messages=2250 reason=not-recorded time="), lines.get(3));

        try (SessionCatalog reopened = new SessionCatalog(dir))
        {
            assertEquals(List.of(3L, 7L), reopened.recordings("2026-11-27", 0), "a session's partition, oldest first");
            assertEquals(List.of(4L), reopened.recordings("2026-11-27", 1));
            assertEquals(List.of(1L), reopened.recordings("2026-11-26", 0));
            assertEquals(List.of(), reopened.recordings("2026-11-28", 0));
            assertEquals(1, reopened.holes().size());
            assertEquals("3451", SessionCatalog.fields(lines.get(4)).get("first-sequence"));
        }
    }
}
