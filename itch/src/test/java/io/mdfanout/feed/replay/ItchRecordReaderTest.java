package io.mdfanout.feed.replay;

import io.mdfanout.feed.itch.ItchMessageType;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class ItchRecordReaderTest
{
    @Test
    void framesRecordsAcrossChunksIncludingZeroLengthAndLongOnes() throws IOException
    {
        // About 3 MiB of records: several chunk refills, with records of every kind cut by them.
        final List<byte[]> messages = new ArrayList<>();
        final ByteArrayOutputStream file = new ByteArrayOutputStream();
        int i = 0;
        while (file.size() < 3 * (1 << 20))
        {
            final byte[] message;
            if (i % 97 == 0)
            {
                message = filled(60_000 + i % 5_000, (byte)'A'); // longer than any ITCH message: framed all the same
                writeRecord(file, message, false);
            }
            else if (i % 3 == 0)
            {
                message = filled(ItchMessageType.specLength((byte)'D'), (byte)'D');
                writeRecord(file, message, true); // the zero-length form
            }
            else
            {
                message = filled(1 + i % 50, (byte)'E');
                writeRecord(file, message, false);
            }
            messages.add(message);
            i++;
        }

        for (final boolean trickle : new boolean[]{ false, true })
        {
            final InputStream in = new ByteArrayInputStream(file.toByteArray());
            final ItchRecordReader reader = new ItchRecordReader(trickle ? oneByteAtATime(in) : in);
            long offset = 0;
            for (final byte[] expected : messages)
            {
                assertEquals(ItchRecordReader.Status.RECORD, reader.next());
                assertEquals(offset, reader.recordStreamOffset());
                final byte[] actual = new byte[reader.length()];
                reader.buffer().getBytes(reader.offset(), actual);
                assertArrayEquals(expected, actual);
                offset += 2 + expected.length;
            }
            assertEquals(ItchRecordReader.Status.END, reader.next());
            assertEquals(ItchRecordReader.Status.END, reader.next(), "and stays at the end");
        }
    }

    @Test
    void tellsTruncatedAndUnframeableRecordsApart() throws IOException
    {
        final byte[] add = filled(ItchMessageType.specLength((byte)'A'), (byte)'A');
        final ByteArrayOutputStream whole = new ByteArrayOutputStream();
        writeRecord(whole, add, false);
        final byte[] one = whole.toByteArray();

        assertEquals(ItchRecordReader.Status.END, new ItchRecordReader(stream()).next(), "empty");
        assertAfterOne(one, new byte[]{ 0 }, ItchRecordReader.Status.TRUNCATED); // inside the length
        assertAfterOne(one, new byte[]{ 0, 36, 'A', 1, 2 }, ItchRecordReader.Status.TRUNCATED); // inside the message
        assertAfterOne(one, new byte[]{ 0, 0 }, ItchRecordReader.Status.TRUNCATED); // length 0, no type byte
        assertAfterOne(one, new byte[]{ 0, 0, 'A', 1 }, ItchRecordReader.Status.TRUNCATED); // length 0, type, cut
        assertAfterOne(one, new byte[]{ 0, 0, '?', 1, 2, 3 }, ItchRecordReader.Status.UNFRAMEABLE);
    }

    @Test
    void resetStartsOverOnAnotherStream() throws IOException
    {
        final ItchRecordReader reader = new ItchRecordReader(stream(0, 2, 'S', 'x', 0, 1));
        assertEquals(ItchRecordReader.Status.RECORD, reader.next());
        assertEquals(ItchRecordReader.Status.TRUNCATED, reader.next());
        reader.reset(stream(0, 1, 'Z'));
        assertEquals(ItchRecordReader.Status.RECORD, reader.next());
        assertEquals(0, reader.recordStreamOffset());
        assertEquals(1, reader.length());
        assertEquals('Z', reader.buffer().getByte(reader.offset()));
        assertEquals(ItchRecordReader.Status.END, reader.next());
    }

    private static void assertAfterOne(final byte[] one, final byte[] tail, final ItchRecordReader.Status expected)
        throws IOException
    {
        final byte[] bytes = Arrays.copyOf(one, one.length + tail.length);
        System.arraycopy(tail, 0, bytes, one.length, tail.length);
        final ItchRecordReader reader = new ItchRecordReader(new ByteArrayInputStream(bytes));
        assertEquals(ItchRecordReader.Status.RECORD, reader.next());
        assertEquals(expected, reader.next(), Arrays.toString(tail));
        assertEquals(one.length, reader.recordStreamOffset(), "where the bad record starts");
    }

    private static void writeRecord(final ByteArrayOutputStream out, final byte[] message, final boolean zeroLength)
    {
        final int length = zeroLength ? 0 : message.length;
        out.write(length >>> 8);
        out.write(length & 0xFF);
        out.write(message, 0, message.length);
    }

    private static byte[] filled(final int length, final byte type)
    {
        final byte[] message = new byte[length];
        for (int i = 0; i < length; i++)
        {
            message[i] = (byte)(i * 31 + length);
        }
        message[0] = type;
        return message;
    }

    private static InputStream stream(final int... bytes)
    {
        final byte[] array = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++)
        {
            array[i] = (byte)bytes[i];
        }
        return new ByteArrayInputStream(array);
    }

    /** A stream that returns at most one byte per read, as a slow pipe may. */
    private static InputStream oneByteAtATime(final InputStream in)
    {
        return new FilterInputStream(in)
        {
            public int read(final byte[] b, final int off, final int len) throws IOException
            {
                return super.read(b, off, Math.min(1, len));
            }
        };
    }
}
