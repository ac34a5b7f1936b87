package io.mdfanout.feed.replay;

import io.mdfanout.feed.itch.ItchMessageType;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.InputStream;

/**
 * Frames the records of a NASDAQ binary ITCH 5.0 stream (a 2-byte big-endian length, then the message), read in
 * large chunks into one buffer: the framing the {@code replay} command ({@code ItchFileReplayer}) and the
 * simulator's file source share. A record of length 0 followed by a type byte takes that type's specified length,
 * the form some published samples use.
 * <p>
 * Why chunks: one bulk read per chunk instead of an {@code InputStream.read()} per length byte and a read per
 * message, measurably faster in {@code ItchReplayBenchmark} (the figures: docs/bench/CODE-NOTES.md). A record is
 * framed in place: its bytes stay in {@link #buffer()} until the next {@link #next()}. Records
 * of any length up to {@value #MAX_RECORD_LENGTH} are framed; what a length means (the simulator refuses more than
 * an ITCH message can have, the normalizer counts a long one) is the caller's business.
 * <p>
 * Single-threaded; reusable across streams ({@link #reset(InputStream)}); allocates nothing per record.
 */
public final class ItchRecordReader
{
    /** The longest record a 2-byte length can frame. */
    public static final int MAX_RECORD_LENGTH = 0xFFFF;

    private static final int LENGTH_PREFIX = 2;
    private static final int CHUNK_BYTES = 1 << 20;

    /** What {@link #next()} found. */
    public enum Status
    {
        /** A record, at {@link #offset()} in {@link #buffer()}, {@link #length()} bytes. */
        RECORD,
        /** The end of the stream, between two records. */
        END,
        /** The stream ends inside a record (its length prefix or its message). */
        TRUNCATED,
        /** A record of length 0 whose type byte is no ITCH 5.0 type: its end, and so the framing, is lost. */
        UNFRAMEABLE
    }

    private final byte[] bytes = new byte[CHUNK_BYTES];
    private final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
    private InputStream stream;
    private int position;
    private int end;
    private boolean eof;
    private long consumedBefore;
    private int recordOffset;
    private int recordLength;
    private int recordStart;

    /**
     * Read records from a stream.
     *
     * @param stream the records, already decompressed.
     */
    public ItchRecordReader(final InputStream stream)
    {
        reset(stream);
    }

    /**
     * Start over on another stream, keeping the buffer.
     *
     * @param stream the records, already decompressed.
     */
    public void reset(final InputStream stream)
    {
        this.stream = stream;
        position = 0;
        end = 0;
        eof = false;
        consumedBefore = 0;
        recordOffset = 0;
        recordLength = 0;
        recordStart = 0;
    }

    /**
     * Frame the next record.
     *
     * @return {@link Status#RECORD} with the record at {@link #offset()}, or why there is none; after END,
     * TRUNCATED or UNFRAMEABLE nothing more is read.
     * @throws IOException when the stream fails.
     */
    public Status next() throws IOException
    {
        // One check per record: refill while less than the longest record is buffered. A refill moves at most that
        // much (64 KiB) to the front of a 1 MiB buffer, a few microseconds per ~30,000 messages.
        if (end - position < LENGTH_PREFIX + MAX_RECORD_LENGTH && !eof)
        {
            refill();
        }
        final int recordStart = position;
        this.recordStart = recordStart;
        final int buffered = end - recordStart;
        if (buffered < LENGTH_PREFIX)
        {
            return 0 == buffered ? Status.END : Status.TRUNCATED;
        }
        final byte[] bytes = this.bytes;
        final int start = recordStart + LENGTH_PREFIX;
        int length = ((bytes[recordStart] & 0xFF) << 8) | (bytes[recordStart + 1] & 0xFF);
        if (0 == length)
        {
            if (end - start < 1)
            {
                return Status.TRUNCATED;
            }
            length = ItchMessageType.specLength(bytes[start]);
            if (length < 0)
            {
                return Status.UNFRAMEABLE;
            }
        }
        if (end - start < length)
        {
            return Status.TRUNCATED; // only at the end of the stream: otherwise the whole record is buffered
        }
        recordOffset = start;
        recordLength = length;
        position = start + length;
        return Status.RECORD;
    }

    /** @return the buffer holding the record {@link #next()} framed, writable in place. */
    public UnsafeBuffer buffer()
    {
        return buffer;
    }

    /** @return where the record's message (its type byte) starts in {@link #buffer()}. */
    public int offset()
    {
        return recordOffset;
    }

    /** @return the record's message length. */
    public int length()
    {
        return recordLength;
    }

    /** @return the byte offset in the stream of the record {@link #next()} last looked at (its length prefix). */
    public long recordStreamOffset()
    {
        return consumedBefore + recordStart;
    }

    /** Move what is left to the front and read behind it until the buffer is full or the stream ends. */
    private void refill() throws IOException
    {
        final int left = end - position;
        System.arraycopy(bytes, position, bytes, 0, left);
        consumedBefore += position;
        position = 0;
        end = left;
        while (end < CHUNK_BYTES)
        {
            final int n = stream.read(bytes, end, CHUNK_BYTES - end);
            if (n < 0)
            {
                eof = true;
                break;
            }
            end += n;
        }
    }
}
