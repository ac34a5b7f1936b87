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
