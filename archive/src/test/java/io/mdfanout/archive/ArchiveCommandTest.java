package io.mdfanout.archive;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Path;

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
        assertTrue(settings.session().matches("\\d{4}-\\d{2}-\\d{2}"), "the UTC date: " + settings.session());

        assertRefused(dir, "--partitions must be 1 to 256", "--partitions", "0");
        assertRefused(dir, "--session must be", "--session", "a b");
        assertRefused(dir, "--session must be", "--session", "../up");
        assertRefused(dir, "--segment-file-bytes must be a power of two", "--segment-file-bytes", "3000000");
        assertRefused(dir, "--retain-sessions must be 0 or more", "--retain-sessions", "-1");
        assertRefused(dir, "--idle-max-park-us must be", "--idle-max-park-us", "0");
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
