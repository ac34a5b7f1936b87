package io.mdfanout.feed.sim;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * Writes a session as a NASDAQ binary ITCH file: for each message a 2-byte big-endian length, then the message.
 * A path ending in ".gz" is gzip-compressed. Allocation-free per message (a reused scratch array and a
 * buffered stream).
 */
public final class ItchFileWriter implements AutoCloseable
{
    private static final int BUFFER_BYTES = 1 << 16;

    private final OutputStream out;
    private final byte[] scratch = new byte[2 + ItchEncoder.MAX_MESSAGE_LENGTH];
    private final UnsafeBuffer scratchBuffer = new UnsafeBuffer(scratch);
    private long messages;

    /**
     * Creates (or truncates) the file.
     *
     * @param path the file; gzip when it ends in ".gz".
     * @throws IOException when it cannot be created.
     */
    public ItchFileWriter(final Path path) throws IOException
    {
        final OutputStream file = Files.newOutputStream(path);
        try
        {
            out = path.toString().endsWith(".gz") ?
                new BufferedOutputStream(new GZIPOutputStream(file, BUFFER_BYTES), BUFFER_BYTES) :
                new BufferedOutputStream(file, BUFFER_BYTES);
        }
        catch (final IOException ex)
        {
            file.close();
            throw ex;
        }
    }

    /**
     * Encodes and writes one message.
     *
     * @param event the message.
     * @throws IOException on a write error.
     */
    public void write(final ItchEvent event) throws IOException
    {
        final int length = ItchEncoder.encode(event, scratchBuffer, 2);
        scratchBuffer.putShort(0, (short)length, BIG_ENDIAN);
        out.write(scratch, 0, 2 + length);
        messages++;
    }

    /**
     * Writes one already encoded message.
     *
     * @param buffer holding the message.
     * @param offset where it starts.
     * @param length its length, 1..50.
     * @throws IOException on a write error.
     */
    public void write(final DirectBuffer buffer, final int offset, final int length) throws IOException
    {
        if (length < 1 || length > ItchEncoder.MAX_MESSAGE_LENGTH)
        {
            throw new IllegalArgumentException("not an ITCH 5.0 message length: " + length);
        }
        scratchBuffer.putShort(0, (short)length, BIG_ENDIAN);
        buffer.getBytes(offset, scratch, 2, length);
        out.write(scratch, 0, 2 + length);
        messages++;
    }

    /**
     * Number of messages written.
     *
     * @return the count.
     */
    public long messages()
    {
        return messages;
    }

    /**
     * Flushes and closes the file (finishing the gzip stream).
     *
     * @throws IOException on a write error.
     */
    public void close() throws IOException
    {
        out.close();
    }
}
