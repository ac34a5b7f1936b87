package io.mdfanout.feed.normalize;

import io.mdfanout.wire.PartitionRings;
import org.agrona.BitUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import static org.agrona.concurrent.ringbuffer.RecordDescriptor.ALIGNMENT;
import static org.agrona.concurrent.ringbuffer.RecordDescriptor.HEADER_LENGTH;
import static org.agrona.concurrent.ringbuffer.RecordDescriptor.lengthOffset;
import static org.agrona.concurrent.ringbuffer.RecordDescriptor.typeOffset;

/**
 * The single producer of one partition ring, writing records in the layout of Agrona's
 * {@link org.agrona.concurrent.ringbuffer.OneToOneRingBuffer} (so the fanout reads them with that
 * class, unchanged) but publishing them a batch at a time, as the LMAX Disruptor's batch publish
 * does: {@link #claim(int, int)} reserves and heads a record, the caller writes its body, and
 * {@link #publish()} makes every record claimed since the last publish visible with one release
 * store, however many there are.
 * <p>
 * Why not {@code tryClaim}/{@code commit} per record: they cost two release stores, a fence, a
 * read-back of the length and a tail store per record, as much as decoding, normalizing and
 * encoding the message, and a datagram carries ten or more messages ({@code RingBufferBenchmark}
 * compares the two; the figures: docs/bench/CODE-NOTES.md).
 * <p>
 * How a batch stays invisible until published: the reader of that layout stops at the first
 * record whose length is not positive, and the producer keeps the header after its last record
 * zeroed. The first record of a batch is written with its length left 0 and every later one with
 * its length in place; {@link #publish()} then stores the first record's length with release
 * semantics, so a reader that sees it also sees everything written before it: the whole batch.
 * The tail position is stored at publish too, so {@code producerPosition()} never counts a record
 * that cannot be read yet.
 * <p>
 * A claim that does not fit publishes the batch first, so that the reader can free the space,
 * and returns {@link RingBuffer#INSUFFICIENT_CAPACITY}: the caller waits and claims again.
 * <p>
 * With the ring file's commit marks ({@link PartitionRings.MappedRing}), each publish also records
 * where the batch starts and ends and the exchange sequence of its last record before making it
 * visible, and that sequence as committed after: a restarted producer learns from them exactly
 * which records the ring holds ({@link PartitionRings.MappedRing#recoverProducer()}), so that it
 * writes none twice and loses none. Two plain stores and one release store per batch.
 * <p>
 * Single-threaded, and the only producer of its ring: no other writer may claim in the same ring.
 */
public final class BatchingRingWriter
{
    private static final int NO_BATCH = -1;

    private final AtomicBuffer buffer;
    private final long addressOffset;
    private final int capacity;
    private final int mask;
    private final int maxMsgLength;
    private final int headPositionIndex;
    private final int tailPositionIndex;

    /** Producer position after the last claimed record, published or not. */
    private long tail;
    /** The reader's position when last read: space before it is free. */
    private long headCache;
    /**
     * Producer position up to which a record and the zeroed header after it fit with neither a wrap
     * nor a fresh read of the head: the lesser of the end of the space known free and the end of
     * the buffer's current lap. A claim below it takes the short path: one comparison instead of
     * the padding and free-space arithmetic (about a fifth of the normalizer's work was its claims).
     */
    private long fastLimit;
    /** Index of the batch's first record, whose length is stored at publish, or {@link #NO_BATCH}. */
    private int batchFirstIndex = NO_BATCH;
    private int batchFirstLength;
    /** Producer position of the batch's first record. */
    private long batchStartPosition;
    /** Exchange sequence of the last record claimed. */
    private long lastClaimSequence;
    private final PartitionRings.MappedRing marks;
    private final RingBuffer ring;

    /**
     * Write into a ring; picks up its producer position, so that a writer can follow another.
     *
     * @param ring the ring, whose buffer has Agrona's one-to-one layout.
     */
    public BatchingRingWriter(final RingBuffer ring)
    {
        this(ring, null);
    }

    /**
     * Write into a mapped ring file, keeping its commit marks; picks up its producer position, so call
     * {@link PartitionRings.MappedRing#recoverProducer()} first when the ring was written before.
     *
     * @param ring  the ring, whose buffer has Agrona's one-to-one layout.
     * @param marks the ring file whose commit marks each publish keeps, or null for none.
     */
    public BatchingRingWriter(final RingBuffer ring, final PartitionRings.MappedRing marks)
    {
        this.marks = marks;
        this.ring = ring;
        this.lastClaimSequence = null == marks ? 0 : marks.committedSequence();
        if (null != ring.buffer().byteArray())
        {
            throw new IllegalArgumentException("a partition ring is off heap (a mapped file or a direct buffer), " +
                "not a byte[]");
        }
        this.buffer = ring.buffer();
        this.addressOffset = buffer.addressOffset();
        this.capacity = ring.capacity();
        this.mask = capacity - 1;
        this.maxMsgLength = ring.maxMsgLength();
        this.headPositionIndex = capacity + RingBufferDescriptor.HEAD_POSITION_OFFSET;
        this.tailPositionIndex = capacity + RingBufferDescriptor.TAIL_POSITION_OFFSET;
        this.tail = buffer.getLongVolatile(tailPositionIndex);
        this.headCache = buffer.getLongVolatile(headPositionIndex);
        updateFastLimit();
    }

    /** Largest message a claim accepts, as the ring's own {@link RingBuffer#maxMsgLength()}. */
    public int maxMsgLength()
    {
        return maxMsgLength;
    }

    /** The ring's buffer, where claimed records are written. */
    public AtomicBuffer buffer()
    {
        return buffer;
    }

    /** Whether records have been claimed since the last {@link #publish()}. */
    public boolean hasUnpublished()
    {
        return NO_BATCH != batchFirstIndex;
    }

    /**
     * Claim a record for a message of a type, to be written by the caller and published by the
     * next {@link #publish()}. There is no commit and no abort: the caller writes the whole message.
     *
     * @param msgTypeId the record's type, positive.
     * @param length    of the message, at most {@link #maxMsgLength()}.
     * @return index in {@link #buffer()} where the message starts, or
     * {@link RingBuffer#INSUFFICIENT_CAPACITY} after publishing the batch when the ring is too full.
     */
    public int claim(final int msgTypeId, final int length)
    {
        return claim(msgTypeId, length, lastClaimSequence);
    }

    /**
     * {@link #claim(int, int)} for a record of an exchange message: its sequence goes into the commit
     * marks when the batch is published.
     *
     * @param msgTypeId the record's type, positive.
     * @param length    of the message, at most {@link #maxMsgLength()}.
     * @param sequence  exchange sequence of the message the record carries.
     * @return as {@link #claim(int, int)}.
     */
    public int claim(final int msgTypeId, final int length, final long sequence)
    {
        if (msgTypeId < 1 || length < 0 || length > maxMsgLength)
        {
            throw new IllegalArgumentException("bad claim: type " + msgTypeId + ", length " + length);
        }
        final int recordLength = length + HEADER_LENGTH;
        final int alignedLength = BitUtil.align(recordLength, ALIGNMENT);
        final long tail = this.tail;
        if (tail + alignedLength + HEADER_LENGTH <= fastLimit)
        {
            final int recordIndex = (int)tail & mask;
            putHeader(recordIndex, recordLength, msgTypeId);
            // Inside the buffer: the record and the header after it end at or before fastLimit.
            UnsafeApi.putLong(null, addressOffset + recordIndex + alignedLength, 0L);
            this.tail = tail + alignedLength;
            lastClaimSequence = sequence;
            return recordIndex + HEADER_LENGTH;
        }
        final int index = claimAtLimit(msgTypeId, recordLength, alignedLength);
        if (index > 0)
        {
            lastClaimSequence = sequence;
        }
        updateFastLimit();
        return index;
    }

    /** {@link #claim(int, int)} where the record may need padding, the head a fresh read, or the ring is full. */
    private int claimAtLimit(final int msgTypeId, final int recordLength, final int alignedLength)
    {
        final AtomicBuffer buffer = this.buffer;
        // Room for the record and for the zeroed header after it, as the one-to-one ring keeps.
        final int required = alignedLength + HEADER_LENGTH;
        final int capacity = this.capacity;
        final long tail = this.tail;
        final int recordIndex = (int)tail & mask;
        final int toBufferEnd = capacity - recordIndex;
        final int padding = required > toBufferEnd && alignedLength != toBufferEnd ? toBufferEnd : 0;

        if (padding + required > capacity - (int)(tail - headCache))
        {
            headCache = buffer.getLongVolatile(headPositionIndex);
            if (padding + required > capacity - (int)(tail - headCache))
            {
                publish();
                return RingBuffer.INSUFFICIENT_CAPACITY;
            }
        }

        int writeIndex = recordIndex;
        if (0 != padding)
        {
            // The rest of the buffer is a padding record that the reader skips; the message goes at 0.
            putHeader(recordIndex, padding, RingBuffer.PADDING_MSG_TYPE_ID);
            writeIndex = 0;
        }
        final int nextIndex = writeIndex + alignedLength;
        // The reader stops at the zeroed header. Plain stores by address: every index here is inside
        // the buffer by the arithmetic above (a record and the header after it fit before capacity),
        // so Agrona's per-store bounds check would only repeat it.
        UnsafeApi.putLong(null, addressOffset + (nextIndex == capacity ? 0 : nextIndex), 0L);
        putHeader(writeIndex, recordLength, msgTypeId);
        this.tail = tail + padding + alignedLength;

        return writeIndex + HEADER_LENGTH;
    }

    private void updateFastLimit()
    {
        final long lapStart = tail - ((int)tail & mask);
        fastLimit = Math.min(headCache, lapStart) + capacity;
    }

    /** Make every record claimed since the last publish visible to the reader, in order. */
    public void publish()
    {
        final int firstIndex = batchFirstIndex;
        if (NO_BATCH != firstIndex)
        {
            batchFirstIndex = NO_BATCH;
            final PartitionRings.MappedRing marks = this.marks;
            if (null != marks)
            {
                marks.pending(batchStartPosition, tail, lastClaimSequence);
            }
            buffer.putLongRelease(tailPositionIndex, tail);
            buffer.putIntRelease(lengthOffset(firstIndex), batchFirstLength);
            if (null != marks)
            {
                marks.commit(lastClaimSequence);
            }
        }
    }

    /** Exchange sequence of the last record claimed (published or not). */
    public long lastClaimSequence()
    {
        return lastClaimSequence;
    }

    /** The ring written. */
    public RingBuffer ring()
    {
        return ring;
    }


    /**
     * Forget the commit marks: a new MoldUDP64 session numbers its messages from 1 again. Publish first.
     */
    public void resetSequence()
    {
        lastClaimSequence = 0;
        if (null != marks)
        {
            marks.resetMarks();
        }
    }

    private void putHeader(final int recordIndex, final int recordLength, final int msgTypeId)
    {
        if (NO_BATCH == batchFirstIndex)
        {
            // Length stays 0, as pre-zeroed: the reader stops here until publish stores it.
            batchFirstIndex = recordIndex;
            batchStartPosition = tail;
            batchFirstLength = recordLength;
            UnsafeApi.putInt(null, addressOffset + typeOffset(recordIndex), msgTypeId);
        }
        else
        {
            // Length and type as one store, in native order as the ring's reader loads them.
            final long lengthAndType = (long)msgTypeId << 32 | (recordLength & 0xFFFF_FFFFL);
            UnsafeApi.putLong(null, addressOffset + lengthOffset(recordIndex), lengthAndType);
        }
    }
}
