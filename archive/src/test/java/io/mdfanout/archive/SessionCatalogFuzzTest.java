package io.mdfanout.archive;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.io.TempDir;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The session catalog ({@code mdfanout-catalog.txt}) from arbitrary file content: an archive that starts on it
 * either reads it (and answers every query about it) or refuses it with an error that names the file; no other
 * exception, ever. Regression mode (every test run) replays the committed inputs in
 * {@code src/test/resources/io/mdfanout/archive/SessionCatalogFuzzTestInputs}; {@code make fuzz} fuzzes.
 */
class SessionCatalogFuzzTest
{
    @TempDir
    static Path dir;

    @FuzzTest
    void anyCatalogIsReadOrRefusedNamingTheFile(final byte[] content) throws Exception
    {
        final Path file = dir.resolve(SessionCatalog.FILE_NAME);
        Files.write(file, content);
        final SessionCatalog catalog;
        try
        {
            catalog = new SessionCatalog(dir);
        }
        catch (final IllegalStateException | UncheckedIOException ex)
        {
            assertTrue(ex.getMessage().contains(file.toString()), "the error names the catalog: " + ex.getMessage());
            return;
        }
        try (catalog)
        {
            catalog.holes();
            catalog.recordings("2026-11-27", 0, 0);
            // Every session and partition the content names, as a restarted recorder asks for its own.
            for (final String line : new String(content, StandardCharsets.ISO_8859_1).split("\n"))
            {
                final Map<String, String> fields = SessionCatalog.fields(line);
                final String session = fields.get("session");
                final String partition = fields.get("partition");
                if (null != session && null != partition && partition.matches("-?\\d{1,9}"))
                {
                    catalog.recordings(session, Integer.parseInt(partition), 0);
                }
            }
        }
    }
}
