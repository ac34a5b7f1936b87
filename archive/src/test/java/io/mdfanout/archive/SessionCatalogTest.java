package io.mdfanout.archive;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SessionCatalogTest
{
    @Test
    void whatIsAppendedIsOnDiskAndReadBackByANewCatalog(@TempDir final Path dir) throws Exception
    {
        try (SessionCatalog catalog = new SessionCatalog(dir))
        {
            catalog.recordingStarted("2026-11-27", 0, 0, 3, -12, 1, 0);
            catalog.recordingStarted("2026-11-27", 1, 0, 4, -13, 1, 0);
            catalog.recordingStarted("2026-11-26", 0, 0, 1, -10, 1, 0);
            catalog.hole("2026-11-27", 0, 0, false, 1201, 3450, PartitionRecorder.REASON_NOT_RECORDED);
            catalog.recordingStarted("2026-11-27", 0, 0, 7, -14, 3451, 6292352);
        }
        final List<String> lines = Files.readAllLines(dir.resolve(SessionCatalog.FILE_NAME));
        assertEquals(5, lines.size());
        assertTrue(lines.get(3).startsWith("hole session=2026-11-27 partition=0 first-missing=1201 last-missing=3450 " +
            "messages=2250 reason=not-recorded time="), lines.get(3));

        try (SessionCatalog reopened = new SessionCatalog(dir))
        {
            assertEquals(List.of(3L, 7L), reopened.recordings("2026-11-27", 0, 0), "a session's partition, oldest first");
            assertEquals(List.of(4L), reopened.recordings("2026-11-27", 1, 0));
            assertEquals(List.of(1L), reopened.recordings("2026-11-26", 0, 0));
            assertEquals(List.of(), reopened.recordings("2026-11-28", 0, 0));
            assertEquals(1, reopened.holes().size());
            assertEquals("3451", SessionCatalog.fields(lines.get(4)).get("first-sequence"));
        }
    }

    @Test
    void aLastLineWithoutItsNewlineIsAnAppendThatDidNotCompleteAndIsCutOff(@TempDir final Path dir)
        throws Exception
    {
        final Path file = dir.resolve(SessionCatalog.FILE_NAME);
        Files.writeString(file, "recording session=2026-11-27 partition=0 recording-id=3 time=2026-11-27T09:00:00Z\n" +
            "recording session=2026-11-27 partition=0 recor");
        try (SessionCatalog catalog = new SessionCatalog(dir))
        {
            assertEquals(List.of(3L), catalog.recordings("2026-11-27", 0, 0), "the torn line is left out");
            catalog.recordingStarted("2026-11-27", 0, 0, 8, -15, 100, 0);
        }
        try (SessionCatalog reopened = new SessionCatalog(dir))
        {
            assertEquals(List.of(3L, 8L), reopened.recordings("2026-11-27", 0, 0));
        }
        assertEquals(2, Files.readAllLines(file).size(), "the torn line was cut off: the new one did not run on from it");
    }

    @Test
    void aCatalogThisArchiveDidNotWriteIsRefusedNamingTheFileAndTheLine(@TempDir final Path dir) throws Exception
    {
        final Path file = dir.resolve(SessionCatalog.FILE_NAME);
        Files.writeString(file, "hole session=x\nrecording session=2026-11-27 partition=0 recording-id=x3\n");
        final IllegalStateException notANumber = assertThrows(IllegalStateException.class, () -> new SessionCatalog(dir));
        assertTrue(notANumber.getMessage().contains(file + " line 2 "), notANumber.getMessage());

        Files.write(file, new byte[]{'h', 'o', 'l', 'e', '\n', (byte)0xE9, '\n'});
        final IllegalStateException notAscii = assertThrows(IllegalStateException.class, () -> new SessionCatalog(dir));
        assertTrue(notAscii.getMessage().contains(file + " is not ASCII text (line 2)"), notAscii.getMessage());
    }
}
