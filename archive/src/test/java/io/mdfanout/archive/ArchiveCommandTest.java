package io.mdfanout.archive;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ArchiveCommandTest
{
    @Test
    void sizesTakeBinarySuffixes()
    {
        assertEquals(0, ArchiveCommand.parseSize("--x", "0"));
        assertEquals(1024, ArchiveCommand.parseSize("--x", "1024"));
        assertEquals(64L * 1024, ArchiveCommand.parseSize("--x", "64k"));
        assertEquals(512L * 1024 * 1024, ArchiveCommand.parseSize("--x", "512M"));
        assertEquals(50L * 1024 * 1024 * 1024, ArchiveCommand.parseSize("--x", "50g"));
        assertEquals(2L << 40, ArchiveCommand.parseSize("--x", "2TiB"));
        assertEquals(3L << 30, ArchiveCommand.parseSize("--x", "3gb"));
    }

    @Test
    void aBadSizeIsRefusedNamingTheOption()
    {
        for (final String bad : new String[]{ "", "g", "12x", "-1", "1.5g", "99999999999t" })
        {
            final IllegalArgumentException ex =
                assertThrows(IllegalArgumentException.class, () -> ArchiveCommand.parseSize("--retain-bytes", bad), bad);
            assertTrue(ex.getMessage().startsWith("--retain-bytes must be a size"), ex.getMessage());
        }
    }

    @Test
    void settingsHaveNamedDefaultsAndRefuseWhatCannotWork(@TempDir final Path dir)
    {
        final ArchiveSettings settings = parse(dir).settings();
        assertEquals(ArchiveSettings.DEFAULT_CONTROL_CHANNEL, settings.controlChannel());
        assertEquals(ArchiveSettings.DEFAULT_SEGMENT_FILE_LENGTH, settings.segmentFileLength());
        assertEquals(1L << 30, settings.minFreeBytes());
        assertTrue(settings.session().matches("\\d{4}-\\d{2}-\\d{2}"), "a date: " + settings.session());

        assertRefused(dir, "--partitions must be 1 to 256", "--partitions", "0");
        assertRefused(dir, "--session must be", "--session", "a b");
        assertRefused(dir, "--session must be", "--session", "../up");
        assertRefused(dir, "--segment-file-bytes must be a power of two", "--segment-file-bytes", "3000000");
        assertRefused(dir, "--retain-sessions must be 0 or more", "--retain-sessions", "-1");
        assertRefused(dir, "--idle-max-park-us must be", "--idle-max-park-us", "0");
        assertRefused(dir, "--zone must be a time zone", "--zone", "Mars/Olympus");
    }

    @Test
    void theDefaultSessionIsTheTradingDayInTheExchangesZoneNotUtcs(@TempDir final Path dir)
    {
        // 20:30 in New York on 27 November (after-hours trading) is already 28 November in UTC.
        final Instant afterHours = Instant.parse("2026-11-28T01:30:00Z");
        assertEquals("2026-11-27", parseAt(dir, afterHours).settings().session());
        assertEquals("2026-11-28", parseAt(dir, afterHours, "--zone", "UTC").settings().session());
        assertEquals("2026-11-28", parseAt(dir, afterHours, "--zone", "Asia/Tokyo").settings().session());
        // Daylight saving time: 23:30 in New York on 30 June is 03:30 UTC on 1 July.
        assertEquals("2026-06-30", parseAt(dir, Instant.parse("2026-07-01T03:30:00Z")).settings().session());
        assertEquals("given", parseAt(dir, afterHours, "--session", "given").settings().session());
    }

    private static ArchiveCommand parseAt(final Path dir, final Instant now, final String... args)
    {
        final ArchiveCommand command = parse(dir, args);
        command.clock = Clock.fixed(now, ZoneOffset.UTC);
        return command;
    }

    private static void assertRefused(final Path dir, final String message, final String... args)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> parse(dir, args).settings());
        assertTrue(ex.getMessage().startsWith(message), ex.getMessage());
    }

    private static ArchiveCommand parse(final Path dir, final String... args)
    {
        final ArchiveCommand command = new ArchiveCommand();
        final String[] all = new String[args.length + 2];
        all[0] = "--archive-dir";
        all[1] = dir.toString();
        System.arraycopy(args, 0, all, 2, args.length);
        new CommandLine(command).parseArgs(all);
        return command;
    }
}
