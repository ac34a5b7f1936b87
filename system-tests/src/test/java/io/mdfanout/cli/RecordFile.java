package io.mdfanout.cli;

import org.agrona.concurrent.UnsafeBuffer;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads the binary capture written by {@code mdfanout record}: per message
 * [int32 LE length][uint16 LE partition][int64 LE stream sequence][SBE message bytes].
 */
final class RecordFile implements AutoCloseable
{
    private final DataInputStream in;
    private final byte[] header = new byte[14];
    private final UnsafeBuffer headerBuffer = new UnsafeBuffer(header);
    private byte[] message = new byte[256];

    private int length;
    private int partition;
    private long streamSequence;

    RecordFile(final Path path) throws IOException
    {
        in = new DataInputStream(new BufferedInputStream(Files.newInputStream(path), 1 << 20));
    }

    /** Advance to the next record; false at the end of the file. */
    boolean next() throws IOException
    {
        try
        {
            in.readFully(header);
        }
        catch (final EOFException ex)
        {
            return false;
        }
        length = headerBuffer.getInt(0, java.nio.ByteOrder.LITTLE_ENDIAN);
        partition = headerBuffer.getShort(4, java.nio.ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        streamSequence = headerBuffer.getLong(6, java.nio.ByteOrder.LITTLE_ENDIAN);
        if (length <= 0 || length > 65536)
        {
            throw new IOException("corrupt record file: message length " + length);
        }
        if (message.length < length)
        {
            message = new byte[length];
        }
        in.readFully(message, 0, length);
        return true;
    }

    /**
     * A recording's streams, one per partition: each message's stream sequence and bytes, in order.
     * Partitions are independent streams, so how their messages interleave in the file is not part
     * of what a subscriber receives; this is.
     */
    static byte[][] streamsByPartition(final Path path, final int partitions) throws IOException
    {
        final java.io.ByteArrayOutputStream[] streams = new java.io.ByteArrayOutputStream[partitions];
        for (int p = 0; p < partitions; p++)
        {
            streams[p] = new java.io.ByteArrayOutputStream();
        }
        try (RecordFile records = new RecordFile(path))
        {
            while (records.next())
            {
                final java.io.ByteArrayOutputStream stream = streams[records.partition()];
                final long sequence = records.streamSequence();
                for (int shift = 56; shift >= 0; shift -= 8)
                {
                    stream.write((int)(sequence >>> shift));
                }
                stream.write(records.message(), 0, records.length());
            }
        }
        final byte[][] result = new byte[partitions][];
        for (int p = 0; p < partitions; p++)
        {
            result[p] = streams[p].toByteArray();
        }
        return result;
    }

    int length()
    {
        return length;
    }

    int partition()
    {
        return partition;
    }

    long streamSequence()
    {
        return streamSequence;
    }

    byte[] message()
    {
        return message;
    }

    public void close() throws IOException
    {
        in.close();
    }
}
