package io.mdfanout.feed.sim;

import io.mdfanout.feed.itch.ItchMessage;
import io.mdfanout.feed.itch.ItchMessageType;
import io.mdfanout.feed.replay.ItchRecordReader;
import io.mdfanout.feed.replay.ReplayFormat;
import io.mdfanout.feed.replay.ReplayInput;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * The simulator's messages read from a NASDAQ binary ITCH 5.0 file (2-byte big-endian length, then the message;
 * gzip detected) instead of generated: a recorded or a real trading day sent over MoldUDP64, as a capture is
 * replayed onto a wire. Reading costs a copy per message where generating costs ~100 ns, so a benchmark that sends
 * a session written beforehand leaves that CPU to the processes it measures.
 * <p>
 * The file is framed by an {@link ItchRecordReader} (large chunks into one buffer, as the {@code replay} command
 * reads it) and each message appended to the packetizer from there,
 * optionally with its ITCH timestamp replaced (latency stamping). A record that cannot be an ITCH 5.0 message (a
 * length of more than {@value ItchEncoder#MAX_MESSAGE_LENGTH} bytes), a truncated last record or a read error ends
 * the session where it is: the messages before it are sent, and {@link #error()} says what and where, because
 * after a bad length the framing of the rest of the file is lost. A record of length 0 followed by a type byte
 * takes that type's length, as the {@code replay} command reads it. Single-threaded, allocation-free per message.
 */
public final class ItchFileSource implements AutoCloseable
{
    /** {@link #appendNext} keeps the message's own timestamp. */
    public static final long KEEP_TIMESTAMP = -1;

    private static final long NANOS_PER_DAY = 86_400_000_000_000L;

    private final Path file;
    private final ReplayInput input;
    private final ItchRecordReader reader;
    private final long limit;
    private long emitted;
    private String error;

    private ItchFileSource(final Path file, final ReplayInput input, final long limit)
    {
        this.file = file;
        this.input = input;
        this.reader = new ItchRecordReader(input.stream());
        this.limit = limit;
    }

    /**
     * Open a file.
     *
     * @param file  NASDAQ binary ITCH 5.0, plain or gzip.
     * @param limit the most messages to read, 0 = the whole file.
     * @return the open source, at the first message.
     * @throws IOException              when the file is missing or unreadable.
     * @throws IllegalArgumentException when it is a capture, not an ITCH file, or the limit is negative.
     */
    public static ItchFileSource open(final Path file, final long limit) throws IOException
    {
        if (limit < 0)
        {
            throw new IllegalArgumentException("message limit must be >= 0: " + limit);
        }
        final ReplayInput input = ReplayInput.open(file, null);
        if (ReplayFormat.ITCH != input.format())
        {
            input.close();
            throw new IllegalArgumentException(file + " is a " + input.format().name().toLowerCase(java.util.Locale.ROOT) +
                " capture, not a NASDAQ binary ITCH file: the simulator sends ITCH files (the replay command " +
                "reads captures)");
        }
        return new ItchFileSource(file, input, limit);
    }

    /**
     * Append the next message of the file to a packet.
     *
     * @param packetizer  where the message goes.
     * @param timestampNs ITCH timestamp (ns since midnight) to put in the message, or {@link #KEEP_TIMESTAMP}.
     * @return false at the end of the file, at the limit, or at a record that ends the session ({@link #error()}):
     * nothing was appended.
     */
    public boolean appendNext(final MoldUdp64Packetizer packetizer, final long timestampNs)
    {
        if ((limit > 0 && emitted >= limit) || null != error)
        {
            return false;
        }
        final ItchRecordReader reader = this.reader;
        final ItchRecordReader.Status status;
        try
        {
            status = reader.next();
        }
        catch (final IOException ex)
        {
            error = "read error at byte " + reader.recordStreamOffset() + ": " + ex;
            return false;
        }
        if (ItchRecordReader.Status.RECORD != status)
        {
            if (ItchRecordReader.Status.TRUNCATED == status)
            {
                error = "truncated record at byte " + reader.recordStreamOffset() + " (the file ends inside it)";
            }
            else if (ItchRecordReader.Status.UNFRAMEABLE == status)
            {
                error = "record at byte " + reader.recordStreamOffset() +
                    " has length 0 and no known ITCH message type after it";
            }
            return false;
        }

        final int start = reader.offset();
        final int length = reader.length();
        if (length > ItchEncoder.MAX_MESSAGE_LENGTH)
        {
            error = "record at byte " + reader.recordStreamOffset() + " has length " + length +
                ", longer than any ITCH 5.0 message (" + ItchEncoder.MAX_MESSAGE_LENGTH + "): not an ITCH file?";
            return false;
        }
        final UnsafeBuffer buffer = reader.buffer();
        if (KEEP_TIMESTAMP != timestampNs && length >= ItchMessageType.COMMON_HEADER_LENGTH)
        {
            putTimestamp(buffer, start + ItchMessage.TIMESTAMP_OFFSET, Math.floorMod(timestampNs, NANOS_PER_DAY));
        }
        packetizer.append(buffer, start, length);
        emitted++;
        return true;
    }

    /** @return messages appended so far. */
    public long emitted()
    {
        return emitted;
    }

    /** @return why the file ended the session early, or null (the end of the file or the limit ended it). */
    public String error()
    {
        return null == error ? null : file + ": " + error;
    }

    /** Close the file. */
    public void close() throws IOException
    {
        input.close();
    }

    /** The 6-byte big-endian ITCH timestamp: the high 2 bytes, then the low 4. */
    private static void putTimestamp(final UnsafeBuffer buffer, final int at, final long value)
    {
        buffer.putShort(at, (short)(value >>> 32), ByteOrder.BIG_ENDIAN);
        buffer.putInt(at + 2, (int)value, ByteOrder.BIG_ENDIAN);
    }
}
