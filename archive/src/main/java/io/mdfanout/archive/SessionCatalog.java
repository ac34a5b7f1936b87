package io.mdfanout.archive;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The archive's own catalog, beside Aeron Archive's: which recording holds which trading session's partition
 * from which stream sequence, and every stretch of a stream the archive did not record (a hole), with why. One
 * line per event, appended and forced to disk before the event is reported, so that it survives a kill -9 and
 * an operator reads it with {@code cat}:
 * <pre>
 * recording session=2026-11-27 partition=0 recording-id=3 aeron-session=-1234 first-sequence=1 start-position=0 time=...
 * hole session=2026-11-27 partition=0 first-missing=1201 last-missing=3450 messages=2250 reason=not-recorded time=...
 * </pre>
 * The subscriber SDK does not read it: it finds a session's recordings in Aeron's catalog by the alias
 * {@link io.mdfanout.wire.ArchiveSessions#alias(String)} their channel carries, and sees a hole as a gap in the
 * stream sequences it replays.
 */
final class SessionCatalog implements AutoCloseable
{
    static final String FILE_NAME = "mdfanout-catalog.txt";

    private final Path file;
    private final FileChannel channel;
    private final List<String> lines = new ArrayList<>();

    /**
     * Opens (or creates) the catalog of an archive directory and reads what it lists.
     *
     * @param archiveDir the archive's directory.
     * @throws IllegalStateException naming the file and the line when the catalog is not one this class wrote: not
     *                               ASCII text, or a recording line without a recording-id number.
     * @throws UncheckedIOException  when the file cannot be read or opened for appending.
     */
    SessionCatalog(final Path archiveDir)
    {
        this.file = archiveDir.resolve(FILE_NAME);
        try
        {
            if (Files.exists(file))
            {
                final long whole = read(Files.readAllBytes(file));
                if (whole < Files.size(file))
                {
                    try (FileChannel torn = FileChannel.open(file, StandardOpenOption.WRITE))
                    {
                        torn.truncate(whole);
                    }
                }
            }
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("archive: cannot open the session catalog " + file + ": " + ex.getMessage(), ex);
        }
    }

    Path file()
    {
        return file;
    }

    void recordingStarted(
        final String session,
        final int partition,
        final int side,
        final long recordingId,
        final int aeronSessionId,
        final long firstSequence,
        final long startPosition)
    {
        append("recording session=" + session + sideField(side) + " partition=" + partition + " recording-id=" +
            recordingId + " aeron-session=" + aeronSessionId + " first-sequence=" + firstSequence + " start-position=" +
            startPosition);
    }

    /** A stretch of a stream not recorded: the archive's hole (one fanout), or one side's (a pair: the other may have it). */
    void hole(
        final String session,
        final int partition,
        final int side,
        final boolean pair,
        final long firstMissing,
        final long lastMissing,
        final String reason)
    {
        append((pair ? "side-hole" : "hole") + " session=" + session + sideField(side) + " partition=" + partition +
            " first-missing=" + firstMissing + " last-missing=" + lastMissing + " messages=" +
            (lastMissing - firstMissing + 1) + " reason=" + reason);
    }

    /** A hole of a pair: the partition's chain positions after {@code afterChain} through {@code throughChain}. */
    void pairHole(final String session, final int partition, final long afterChain, final long throughChain,
        final String reason)
    {
        append("hole session=" + session + " partition=" + partition + " sides=both after-chain=" + afterChain +
            " through-chain=" + throughChain + " reason=" + reason);
    }

    /** Side A's lines carry no side (as before pairs); side B's say {@code side=B}. */
    private static String sideField(final int side)
    {
        return 0 == side ? "" : " side=" + (char)('A' + side);
    }

    /**
     * The recordings this catalog lists for a session's partition, oldest first.
     *
     * @param side 0 for side A (or one fanout), 1 for side B.
     * @return recording ids.
     */
    List<Long> recordings(final String session, final int partition, final int side)
    {
        final List<Long> ids = new ArrayList<>();
        final String sideName = 0 == side ? null : String.valueOf((char)('A' + side));
        for (final String line : lines)
        {
            final Map<String, String> fields = fields(line);
            if (line.startsWith("recording ") && session.equals(fields.get("session")) &&
                Integer.toString(partition).equals(fields.get("partition")) &&
                java.util.Objects.equals(sideName, fields.get("side")))
            {
                ids.add(Long.parseLong(fields.get("recording-id")));
            }
        }
        return ids;
    }

    /** @return the sessions with a recording in this catalog, in the order their first recording was listed. */
    List<String> sessions()
    {
        final List<String> sessions = new ArrayList<>();
        for (final String line : lines)
        {
            final String session = fields(line).get("session");
            if (line.startsWith("recording ") && null != session && !sessions.contains(session))
            {
                sessions.add(session);
            }
        }
        return sessions;
    }

    /** The holes listed, as their lines. */
    List<String> holes()
    {
        final List<String> holes = new ArrayList<>();
        for (final String line : lines)
        {
            if (line.startsWith("hole "))
            {
                holes.add(line);
            }
        }
        return holes;
    }

    /**
     * Reads the catalog's lines, checking what {@link #recordings} parses. A last line without its newline is an
     * append that did not complete (a full disk, a kill mid-write): nothing reported it, so it is left out (and cut
     * off the file, so that the next line does not run on from it).
     *
     * @return the length of the content up to its last newline.
     */
    private long read(final byte[] content)
    {
        int lineNumber = 1;
        for (final byte b : content)
        {
            if (b < 0)
            {
                throw new IllegalStateException("archive: the session catalog " + file + " is not ASCII text (line " +
                    lineNumber + "): not one this archive wrote; move it away to start a new one");
            }
            lineNumber += '\n' == b ? 1 : 0;
        }
        final String text = new String(content, StandardCharsets.US_ASCII);
        int start = 0;
        lineNumber = 1;
        for (int end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start), lineNumber++)
        {
            final String line = text.substring(start, end);
            start = end + 1;
            if (line.startsWith("recording ") && !isLong(fields(line).get("recording-id")))
            {
                throw new IllegalStateException("archive: the session catalog " + file + " line " + lineNumber +
                    " is a recording without a recording-id number: '" + line + "'");
            }
            lines.add(line);
        }
        return start;
    }

    private static boolean isLong(final String value)
    {
        try
        {
            Long.parseLong(value);
            return true;
        }
        catch (final NumberFormatException ex)
        {
            return false;
        }
    }

    static Map<String, String> fields(final String line)
    {
        final Map<String, String> fields = new HashMap<>();
        for (final String token : line.split(" "))
        {
            final int eq = token.indexOf('=');
            if (eq > 0)
            {
                fields.put(token.substring(0, eq), token.substring(eq + 1));
            }
        }
        return fields;
    }

    private void append(final String event)
    {
        final String line = event + " time=" + Instant.now();
        try
        {
            final ByteBuffer bytes = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.US_ASCII));
            while (bytes.hasRemaining())
            {
                channel.write(bytes);
            }
            channel.force(false);
            lines.add(line);
        }
        catch (final IOException ex)
        {
            // A full disk stops the catalog too: the event still reaches the log and the counters.
            throw new UncheckedIOException("archive: cannot append to the session catalog " + file + ": " +
                ex.getMessage() + " (" + line + ")", ex);
        }
    }

    public void close()
    {
        try
        {
            channel.close();
        }
        catch (final IOException ignore)
        {
            // Closing: nothing left to write.
        }
    }
}
