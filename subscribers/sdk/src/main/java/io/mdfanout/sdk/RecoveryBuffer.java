package io.mdfanout.sdk;

import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Bounded store of the incremental Aeron messages received while a partition recovers, replayed
 * in arrival order once a snapshot is applied. Records are laid out back to back, 8-byte aligned:
 * {@code int length, int toIndex, long fromSequence, bytes}; {@code fromSequence} is the first
 * stream sequence of the packet still to be delivered (the packet may overlap what came before). A pair's records
 * ({@link #appendRange}) hold the index range of the packet's messages its arbitration chose instead.
 * Capacity is fixed at construction; {@link #append} refuses what does not fit.
 */
final class RecoveryBuffer
{
    static final int RECORD_HEADER_LENGTH = 16;
    private static final int LENGTH_OFFSET = 0;
    private static final int TO_INDEX_OFFSET = 4;
    private static final int FROM_SEQUENCE_OFFSET = 8;

    private final UnsafeBuffer buffer;
    private int limit;
    private int records;

    RecoveryBuffer(final int capacity)
    {
        buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(capacity));
    }

    /** @return true when the message was stored, false when it does not fit (nothing stored). */
    boolean append(final DirectBuffer source, final int offset, final int length, final long fromSequence)
    {
        return append(source, offset, length, fromSequence, 0);
    }

    /**
     * Store a packet of which messages {@code [fromIndex, toIndex)} are to be delivered.
     *
     * @return true when the packet was stored, false when it does not fit (nothing stored).
     */
    boolean appendRange(
        final DirectBuffer source, final int offset, final int length, final int fromIndex, final int toIndex)
    {
        return append(source, offset, length, fromIndex, toIndex);
    }

    private boolean append(
        final DirectBuffer source, final int offset, final int length, final long from, final int toIndex)
    {
        final int recordLength = BitUtil.align(RECORD_HEADER_LENGTH + length, 8);
        if (recordLength > buffer.capacity() - limit)
        {
            return false;
        }
        buffer.putInt(limit + LENGTH_OFFSET, length);
        buffer.putInt(limit + TO_INDEX_OFFSET, toIndex);
        buffer.putLong(limit + FROM_SEQUENCE_OFFSET, from);
        buffer.putBytes(limit + RECORD_HEADER_LENGTH, source, offset, length);
        limit += recordLength;
        records++;
        return true;
    }

    void reset()
    {
        limit = 0;
        records = 0;
    }

    boolean isEmpty()
    {
        return 0 == records;
    }

    int records()
    {
        return records;
    }

    UnsafeBuffer buffer()
    {
        return buffer;
    }

    /** Offset just past the last record: iterate from 0 while below it. */
    int limit()
    {
        return limit;
    }

    int messageLength(final int recordOffset)
    {
        return buffer.getInt(recordOffset + LENGTH_OFFSET);
    }

    long fromSequence(final int recordOffset)
    {
        return buffer.getLong(recordOffset + FROM_SEQUENCE_OFFSET);
    }

    /** @return one past the last message of a {@link #appendRange} record to deliver. */
    int toIndex(final int recordOffset)
    {
        return buffer.getInt(recordOffset + TO_INDEX_OFFSET);
    }

    static int messageOffset(final int recordOffset)
    {
        return recordOffset + RECORD_HEADER_LENGTH;
    }

    static int nextRecord(final int recordOffset, final int messageLength)
    {
        return recordOffset + BitUtil.align(RECORD_HEADER_LENGTH + messageLength, 8);
    }
}
