package io.mdfanout.tools.dbn;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A DBN file as Databento's own decoder reads it: scripts/dbn/read_dbn.py (databento-dbn into pandas) run with the
 * venv of {@code make dbn-tools}, its JSON summary parsed, and accessors for its columns. Shared by the export's tests.
 */
final class DbnReadBack
{
    private DbnReadBack()
    {
    }

    /** @return the venv's Python; fails the test, saying how to make it, when it is missing. */
    static Path python()
    {
        final String venv = System.getenv("MDFANOUT_DBN_VENV");
        final Path root = venv != null ? Paths.get(venv) :
            Paths.get(System.getProperty("user.home"), ".cache", "mdfanout", "dbn-venv");
        final Path python = root.resolve("bin").resolve("python");
        if (!Files.isExecutable(python))
        {
            fail("The DBN reader's Python venv is missing (" + python + "): run `make dbn-tools` " +
                "(scripts/dbn/setup-venv.sh installs databento-dbn and pandas)");
        }
        return python;
    }

    /** @return a script of scripts/dbn, found above the working directory. */
    static Path script(final String name)
    {
        Path dir = Paths.get("").toAbsolutePath();
        while (dir != null)
        {
            final Path script = dir.resolve("scripts").resolve("dbn").resolve(name);
            if (Files.isRegularFile(script))
            {
                return script;
            }
            dir = dir.getParent();
        }
        return fail("scripts/dbn/" + name + " not found above " + Paths.get("").toAbsolutePath());
    }

    /**
     * Reads a DBN file back with read_dbn.py.
     *
     * @param file    the DBN file.
     * @param workDir where the summary and the reader's errors are kept.
     * @return the summary: metadata, counts, columns per record type.
     */
    static Map<String, Object> read(final Path file, final Path workDir) throws IOException, InterruptedException
    {
        final Path output = workDir.resolve(file.getFileName() + ".json");
        final Path errors = workDir.resolve(file.getFileName() + ".err");
        final Process process = new ProcessBuilder(python().toString(), script("read_dbn.py").toString(), file.toString())
            .redirectOutput(output.toFile())
            .redirectError(errors.toFile())
            .start();
        if (!process.waitFor(120, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            fail("read_dbn.py did not finish in 120 s");
        }
        if (process.exitValue() != 0)
        {
            fail("read_dbn.py failed (" + process.exitValue() + "): " + Files.readString(errors, StandardCharsets.UTF_8));
        }
        return cast(MiniJson.parse(Files.readString(output, StandardCharsets.UTF_8)));
    }

    static Map<String, Object> metadata(final Map<String, Object> summary)
    {
        return cast(summary.get("metadata"));
    }

    static Map<String, Object> columns(final Map<String, Object> summary, final String type)
    {
        final Map<String, Object> all = cast(summary.get("columns"));
        final Object columns = all.get(type);
        assertTrue(columns != null, "no " + type + " records in " + all.keySet());
        return cast(columns);
    }

    @SuppressWarnings("unchecked")
    static List<Object> column(final Map<String, Object> columns, final String name)
    {
        final Object column = columns.get(name);
        assertTrue(column != null, "no column " + name);
        return (List<Object>)column;
    }

    static long at(final Map<String, Object> columns, final String name, final int index)
    {
        return ((Number)column(columns, name).get(index)).longValue();
    }

    static String text(final Map<String, Object> columns, final String name, final int index)
    {
        return String.valueOf(column(columns, name).get(index));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> cast(final Object value)
    {
        return (Map<String, Object>)value;
    }
}
