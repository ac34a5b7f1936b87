package io.mdfanout.feed.replay;

import org.agrona.concurrent.status.AtomicCounter;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.FileInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/**
 * A replay file opened for streaming: gzip unwrapped when its magic (1f 8b) is there, the format
 * told by the magic bytes of the content, and the bytes of the file read so far counted (of the
 * file on disk, compressed or not) for a progress display.
 */
public final class ReplayInput implements AutoCloseable
{
    private static final int BUFFER_SIZE = 1 << 16;

    private final InputStream stream;
    private final ReplayFormat format;
    private final long fileSize;
    private final boolean gzip;

    private ReplayInput(final InputStream stream, final ReplayFormat format, final long fileSize, final boolean gzip)
    {
        this.stream = stream;
        this.format = format;
        this.fileSize = fileSize;
        this.gzip = gzip;
    }

    /**
     * Open a file.
     *
     * @param file          the file.
     * @param fileBytesRead counts the bytes read from the file, or null.
     * @return the opened input, positioned at the first byte of the content.
     * @throws NoSuchFileException when it does not exist or is not a regular file.
     * @throws IOException         when it cannot be read or its gzip header is broken.
     */
    public static ReplayInput open(final Path file, final AtomicCounter fileBytesRead) throws IOException
    {
        if (!Files.isRegularFile(file))
        {
            throw new NoSuchFileException(file.toString(), null, "not a readable file");
        }
        final long size = Files.size(file);
        // FileInputStream, not a channel stream: an interrupt must not close the file under us.
        final InputStream raw = new FileInputStream(file.toFile());
        try
        {
            final BufferedInputStream fileStream = new BufferedInputStream(
                null == fileBytesRead ? raw : new CountingInputStream(raw, fileBytesRead), BUFFER_SIZE);
            final boolean gzip = 0x1F8B == peek(fileStream, 2);
            final BufferedInputStream content;
            if (gzip)
            {
                try
                {
                    content = new BufferedInputStream(new GZIPInputStream(fileStream, BUFFER_SIZE), BUFFER_SIZE);
                }
                catch (final EOFException ex)
                {
                    throw new IOException("gzip header is truncated", ex);
                }
            }
            else
            {
                content = fileStream;
            }
            return new ReplayInput(content, ReplayFormat.detect(peek(content, 4)), size, gzip);
        }
        catch (final IOException | RuntimeException ex)
        {
            raw.close();
            throw ex;
        }
    }

    /** The content, decompressed, from its first byte. */
    public InputStream stream()
    {
        return stream;
    }

    /** The format told by the magic bytes. */
    public ReplayFormat format()
    {
        return format;
    }

    /** Size of the file on disk, the denominator of the progress. */
    public long fileSize()
    {
        return fileSize;
    }

    /** True when the file is gzip compressed. */
    public boolean isGzip()
    {
        return gzip;
    }

    /** Close the file. */
    public void close() throws IOException
    {
        stream.close();
    }

    /** The first bytes, big-endian, zero-padded when the stream is shorter; the stream is left where it was. */
    private static int peek(final BufferedInputStream in, final int count) throws IOException
    {
        in.mark(count);
        int value = 0;
        for (int i = 0; i < count; i++)
        {
            final int b = in.read();
            value = (value << 8) | (b < 0 ? 0 : b);
        }
        in.reset();
        return value;
    }

    /** Counts what is read from the file; called once per buffer fill, not per record. */
    private static final class CountingInputStream extends FilterInputStream
    {
        private final AtomicCounter counter;

        CountingInputStream(final InputStream in, final AtomicCounter counter)
        {
            super(in);
            this.counter = counter;
        }

        public int read() throws IOException
        {
            final int b = in.read();
            if (b >= 0)
            {
                counter.incrementRelease();
            }
            return b;
        }

        public int read(final byte[] bytes, final int offset, final int length) throws IOException
        {
            final int n = in.read(bytes, offset, length);
            if (n > 0)
            {
                counter.getAndAddRelease(n);
            }
            return n;
        }

        public long skip(final long n) throws IOException
        {
            final long skipped = in.skip(n);
            if (skipped > 0)
            {
                counter.getAndAddRelease(skipped);
            }
            return skipped;
        }
    }
}
