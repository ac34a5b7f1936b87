package io.mdfanout.wire;

import org.agrona.ErrorHandler;
import org.agrona.IoUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.errors.DistinctErrorLog;
import org.agrona.concurrent.errors.ErrorLogReader;

import java.io.File;
import java.io.PrintStream;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Instant;

/**
 * The one way a role (feed handler, replay, simulator, fanout, subscriber tools) handles an unexpected error: each
 * distinct error (type, message and stack trace) is written once, with its stack trace, first and last time and a
 * count of its observations, to an Agrona {@link DistinctErrorLog} in a memory-mapped file, which stays readable
 * after the process died (as Aeron's driver keeps its errors in its CnC file for {@code ErrorStat}); and the
 * operator gets the role's usual one line on stderr for every observation.
 * <p>
 * <b>Where</b>: {@code <role>-<pid>-errors.dat} in the directory holding the instance's own files: the ring
 * directory for the feed handler and replay, the state directory for the fanout, and {@code java.io.tmpdir} for the
 * roles that own none (simulator, subscriber tools). The file is made on the first error only, so that a healthy
 * run leaves nothing behind, and its path is printed on stderr then; a file of the same name (a restarted
 * container's previous instance had the same pid) is renamed {@code <file>.prev} first. Read it with
 * {@link #read(Path, PrintStream)} ({@code mdfanout error-stat <file>}).
 * <p>
 * Errors are rare and off the message path: recording takes a lock and may allocate.
 */
public final class RoleErrorLog implements ErrorHandler, AutoCloseable
{
    /** Ending of every error log file's name. */
    public static final String FILE_SUFFIX = "-errors.dat";
    /** Length of the mapped file: 1 MiB, as Aeron's driver error buffer, room for hundreds of distinct errors. */
    public static final int DEFAULT_LENGTH = 1024 * 1024;

    private final String role;
    private final Path file;
    private final int length;
    private final ErrorHandler oneLine;
    private final PrintStream err;
    private final EpochClock clock;
    private DistinctErrorLog log;
    private MappedByteBuffer mapped;
    private boolean unavailable;
    private boolean full;
    private boolean closed;
    private long observations;

    /**
     * An error log for a role instance, made lazily in {@code directory}.
     *
     * @param directory where the instance keeps its own files ({@link #tempDirectory()} if it has none).
     * @param role      the role's name, e.g. {@code feed-handler}, the prefix of its stderr lines.
     * @param oneLine   prints the role's one line on stderr for an error (its existing message); null for none.
     * @return the error log.
     */
    public static RoleErrorLog open(final Path directory, final String role, final ErrorHandler oneLine)
    {
        return open(directory, role, oneLine, System.err);
    }

    /**
     * An error log for a role instance, made lazily in {@code directory}, for a role that writes its stderr lines to
     * a stream of its own.
     *
     * @param directory where the instance keeps its own files ({@link #tempDirectory()} if it has none).
     * @param role      the role's name, e.g. {@code simulator}, the prefix of its stderr lines.
     * @param oneLine   prints the role's one line on stderr for an error (its existing message); null for none.
     * @param err       where the line naming the file goes.
     * @return the error log.
     */
    public static RoleErrorLog open(
        final Path directory, final String role, final ErrorHandler oneLine, final PrintStream err)
    {
        return new RoleErrorLog(file(directory, role), role, DEFAULT_LENGTH, oneLine, err, SystemEpochClock.INSTANCE);
    }

    /**
     * @param file    the error log file (made on the first error; an existing one is renamed {@code .prev} then).
     * @param role    the role's name, the prefix of the line that names the file.
     * @param length  the file's length in bytes.
     * @param oneLine prints the role's one line on stderr for an error; null for none.
     * @param err     where the line naming the file goes.
     * @param clock   timestamps of the observations.
     */
    public RoleErrorLog(
        final Path file,
        final String role,
        final int length,
        final ErrorHandler oneLine,
        final PrintStream err,
        final EpochClock clock)
    {
        this.file = file;
        this.role = role;
        this.length = length;
        this.oneLine = oneLine;
        this.err = err;
        this.clock = clock;
    }

    /**
     * The error log file of this process for a role.
     *
     * @param directory the instance's directory.
     * @param role      the role's name.
     * @return {@code <directory>/<role>-<pid>-errors.dat}.
     */
    public static Path file(final Path directory, final String role)
    {
        return directory.resolve(role + "-" + ProcessHandle.current().pid() + FILE_SUFFIX);
    }

    /** @return {@code java.io.tmpdir}, the directory of roles that own none. */
    public static Path tempDirectory()
    {
        return Paths.get(System.getProperty("java.io.tmpdir"));
    }

    /**
     * Record an error in the file and print the role's one line.
     *
     * @param throwable the error.
     */
    public void onError(final Throwable throwable)
    {
        record(throwable);
        if (null != oneLine)
        {
            oneLine.onError(throwable);
        }
    }

    /**
     * Record an error in the file only, for a caller that prints its own line.
     *
     * @param throwable the error.
     * @return whether it is in the file (false when the file cannot be made or is full, or after {@link #close()}).
     */
    public synchronized boolean record(final Throwable throwable)
    {
        observations++;
        if (closed || !map())
        {
            return false;
        }
        final boolean recorded = log.record(throwable);
        if (!recorded && !full)
        {
            full = true;
            err.println(role + ": error log " + file + " is full: further distinct errors are on stderr only");
        }
        return recorded;
    }

    /** @return errors observed so far, repeats included. */
    public synchronized long observations()
    {
        return observations;
    }

    /** @return the file, which exists once an error was recorded. */
    public Path file()
    {
        return file;
    }

    /** Flush the file; later errors reach stderr only. The mapping is left to the collector: no thread can fault. */
    public synchronized void close()
    {
        if (null != mapped && !closed)
        {
            mapped.force();
        }
        closed = true;
    }

    private boolean map()
    {
        if (null != log)
        {
            return true;
        }
        if (unavailable)
        {
            return false;
        }
        try
        {
            Files.createDirectories(file.toAbsolutePath().getParent());
            if (Files.exists(file))
            {
                // Same name, so same pid: a restarted container's. Keep the last instance's errors one restart longer.
                Files.move(
                    file, file.resolveSibling(file.getFileName() + ".prev"), StandardCopyOption.REPLACE_EXISTING);
            }
            mapped = IoUtil.mapNewFile(file.toFile(), length, true);
            log = new DistinctErrorLog(new UnsafeBuffer(mapped), clock);
            err.println(role + ": error log: " + file + " (mdfanout error-stat " + file + ")");
            return true;
        }
        catch (final Exception | LinkageError ex)
        {
            unavailable = true;
            err.println(role + ": cannot make the error log " + file + ": " + ex.getMessage());
            return false;
        }
    }

    /**
     * Print the distinct errors of an error log file, as Aeron's {@code ErrorStat} prints a driver's: each with its
     * count, first and last observation and stack trace. The file may be one of a process that died.
     *
     * @param file the error log file.
     * @param out  where to print.
     * @return the number of distinct errors.
     * @throws IllegalArgumentException when the file does not exist.
     */
    public static int read(final Path file, final PrintStream out)
    {
        final File f = file.toFile();
        if (!f.isFile())
        {
            throw new IllegalArgumentException("no error log file " + file);
        }
        final MappedByteBuffer buffer = IoUtil.mapExistingFile(f, FileChannel.MapMode.READ_ONLY, "error log");
        try
        {
            final AtomicBuffer errors = new UnsafeBuffer(buffer);
            final int distinct = ErrorLogReader.read(errors,
                (count, firstTimestamp, lastTimestamp, encodedException) -> out.format(
                    "***%n%d observations from %s to %s for:%n %s%n", count, Instant.ofEpochMilli(firstTimestamp),
                    Instant.ofEpochMilli(lastTimestamp), encodedException));
            out.format("%n%d distinct errors observed.%n", distinct);
            return distinct;
        }
        finally
        {
            IoUtil.unmap(buffer);
        }
    }
}
