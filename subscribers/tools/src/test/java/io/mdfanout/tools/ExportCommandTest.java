package io.mdfanout.tools;

import io.mdfanout.wire.ExitCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The export's options that are wrong on their own, refused before it connects to anything: an unknown schema, an
 * option of one schema given with another, and a derived stream (the export derives them itself, from MBO). Each is
 * a configuration error (exit 3) whose message names the choices, and no file is written.
 */
class ExportCommandTest
{
    private static final String SCHEMAS = "mbo, mbp-1, mbp-10, tbbo, trades, ohlcv-1s, ohlcv-1m";

    @TempDir
    Path tempDir;

    @Test
    void anUnknownSchemaIsRefusedNamingTheSchemas()
    {
        assertRefused("export: unknown --schema 'mbp10': one of " + SCHEMAS, "--schema", "mbp10");
        assertRefused("export: unknown --schema 'ohlcv-1h': one of " + SCHEMAS, "--schema", "ohlcv-1h");
    }

    @Test
    void mboOnlyWithADerivedSchemaIsRefused()
    {
        assertRefused("export: --mbo-only applies to --schema mbo only: a trades file holds trades records only " +
            "(schemas: " + SCHEMAS + ")", "--schema", "trades", "--mbo-only");
    }

    @Test
    void aDerivedStreamIsRefusedPointingAtTheSchemas()
    {
        assertRefused("export: --stream mbp-10 does not apply: export replays the MBO stream and derives the others " +
            "itself; ask for their records with --schema (one of " + SCHEMAS + ")", "--stream", "mbp-10");
    }

    private void assertRefused(final String message, final String... options)
    {
        final Path out = tempDir.resolve("refused.dbn");
        final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        final ExportCommand command = new ExportCommand();
        command.stderr = new PrintStream(stderr, true, StandardCharsets.UTF_8);
        final String[] args = new String[options.length + 6];
        System.arraycopy(new String[]{"--archive-control-channel", "aeron:udp?endpoint=localhost:1", "--date",
            "2026-11-27", "--out", out.toString()}, 0, args, 0, 6);
        System.arraycopy(options, 0, args, 6, options.length);
        assertEquals(ExitCodes.CONFIG, new CommandLine(command).execute(args), stderr.toString(StandardCharsets.UTF_8));
        assertEquals(message, stderr.toString(StandardCharsets.UTF_8).trim());
        assertFalse(Files.exists(out), "no file");
    }
}
