package io.mdfanout.feed.sim;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ItchFileWriterTest
{
    @TempDir
    Path dir;

    @Test
    void plainFileRoundTrip() throws IOException
    {
        final Path file = dir.resolve("session.itch");
        final byte[] expected = writeSession(file);
        try (InputStream in = Files.newInputStream(file))
        {
            assertArrayEquals(expected, readBack(in));
        }
        assertEquals(expected.length + 2 * 3_000, Files.size(file), "messages plus a 2-byte length each");
    }

    @Test
    void gzipFileRoundTrip() throws IOException
    {
        final Path file = dir.resolve("session.itch.gz");
        final byte[] expected = writeSession(file);
        final byte[] magic = new byte[2];
        try (InputStream in = Files.newInputStream(file))
        {
            assertEquals(2, in.read(magic));
        }
        assertEquals((byte)0x1f, magic[0], "gzip magic");
        assertEquals((byte)0x8b, magic[1], "gzip magic");
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file)))
        {
            assertArrayEquals(expected, readBack(in));
        }
    }

    @Test
    void missingDirectoryIsAnIoError()
    {
        assertThrows(IOException.class, () -> new ItchFileWriter(dir.resolve("no/such/dir/x.itch")));
    }

    /** Writes a session and returns the expected concatenation of its messages (length prefixes stripped). */
    private static byte[] writeSession(final Path file) throws IOException
    {
        final ByteArrayOutputStream expected = new ByteArrayOutputStream();
        final SessionGenerator generator = new SessionGenerator(2, new SessionConfig().symbols(5).messageCount(3_000));
        final ItchEvent event = new ItchEvent();
        final byte[] bytes = new byte[64];
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        try (ItchFileWriter writer = new ItchFileWriter(file))
        {
            int i = 0;
            while (generator.next(event))
            {
                final int length = ItchEncoder.encode(event, buffer, 0);
                expected.write(bytes, 0, length);
                if (i++ % 2 == 0)
                {
                    writer.write(event);
                }
                else
                {
                    writer.write(buffer, 0, length);
                }
            }
            assertEquals(3_000, writer.messages());
        }
        return expected.toByteArray();
    }

    /** Reads a NASDAQ binary ITCH file independently: u16 big-endian length, then the message. */
    private static byte[] readBack(final InputStream in) throws IOException
    {
        final DataInputStream data = new DataInputStream(in);
        final ByteArrayOutputStream messages = new ByteArrayOutputStream();
        int count = 0;
        while (true)
        {
            final int length;
            try
            {
                length = data.readUnsignedShort();
            }
            catch (final EOFException end)
            {
                break;
            }
            final byte[] message = new byte[length];
            data.readFully(message);
            assertEquals(length, ItchEncoder.messageLength((char)message[0]), "length prefix matches the type");
            messages.write(message);
            count++;
        }
        assertEquals(3_000, count);
        return messages.toByteArray();
    }
}
