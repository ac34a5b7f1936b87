package io.mdfanout.tools;

import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.MessageContext;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes every normalized message it is given to a file as binary records:
 * {@code [int32 LE length of the SBE message][uint16 LE partition][int64 LE streamSequence][SBE message, header included]}.
 * Records are staged in a direct buffer and written in large blocks; nothing allocates per message.
 */
public final class MessageRecorder implements MarketDataListener, AutoCloseable
{
    /** Bytes before the SBE message in each record. */
    public static final int RECORD_HEADER_LENGTH = 4 + 2 + 8;

    private static final int STAGING_LENGTH = 1024 * 1024;

    private final FileChannel channel;
    private final ByteBuffer staging = ByteBuffer.allocateDirect(STAGING_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    private final UnsafeBuffer stagingBuffer = new UnsafeBuffer(staging);
    private int position;
    private long records;

    /**
     * Create (or truncate) the file.
     *
     * @param file where to record.
     * @throws UncheckedIOException when the file cannot be created.
     */
    public MessageRecorder(final Path file)
    {
        try
        {
            channel = FileChannel.open(
                file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create record file " + file + ": " + ex.getMessage(), ex);
        }
    }

    /** @return records written so far. */
    public long records()
    {
        return records;
    }

    /** {@inheritDoc} */
    public void onRawMessage(final MessageContext context, final DirectBuffer buffer, final int offset, final int length)
    {
        if (position + RECORD_HEADER_LENGTH + length > STAGING_LENGTH)
        {
            flush();
        }
        stagingBuffer.putInt(position, length, ByteOrder.LITTLE_ENDIAN);
        stagingBuffer.putShort(position + 4, (short)context.partition(), ByteOrder.LITTLE_ENDIAN);
        stagingBuffer.putLong(position + 6, context.streamSequence(), ByteOrder.LITTLE_ENDIAN);
        stagingBuffer.putBytes(position + RECORD_HEADER_LENGTH, buffer, offset, length);
        position += RECORD_HEADER_LENGTH + length;
        records++;
    }

    /** Write the staged records to the file. */
    public void flush()
    {
        try
        {
            staging.clear().limit(position);
            while (staging.hasRemaining())
            {
                channel.write(staging);
            }
            position = 0;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write record file: " + ex.getMessage(), ex);
        }
    }

    /** Flush and close the file. */
    public void close()
    {
        try
        {
            flush();
        }
        finally
        {
            try
            {
                channel.close();
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
    }
}
