package io.mdfanout.bench;

import org.agrona.BufferUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * Partition rings for the benchmarks: Agrona {@link OneToOneRingBuffer}s off heap and cache-line
 * aligned, as {@code PartitionRings} maps them, and a no-op consumer that drains them.
 */
final class BenchRings
{
    private BenchRings()
    {
    }

    /**
     * One ring.
     *
     * @param capacity data capacity, a power of two.
     * @return the ring.
     */
    static RingBuffer newRing(final int capacity)
    {
        final int length = capacity + RingBufferDescriptor.TRAILER_LENGTH;
        return new OneToOneRingBuffer(new UnsafeBuffer(BufferUtil.allocateDirectAligned(length, 64)));
    }

    /**
     * One ring per partition.
     *
     * @param partitions how many.
     * @param capacity   data capacity of each, a power of two.
     * @return the rings, indexed by partition.
     */
    static RingBuffer[] newRings(final int partitions, final int capacity)
    {
        final RingBuffer[] rings = new RingBuffer[partitions];
        for (int i = 0; i < partitions; i++)
        {
            rings[i] = newRing(capacity);
        }
        return rings;
    }

    /**
     * Moves every ring's head to its published tail without reading a record: the consumer's
     * release of the space without its reads, which run on another core in the feed handler.
     *
     * @param rings the rings.
     * @return the sum of the heads, so that nothing is dead code.
     */
    static long advanceAll(final RingBuffer[] rings)
    {
        long sum = 0;
        for (int i = 0; i < rings.length; i++)
        {
            final RingBuffer ring = rings[i];
            final long tail = ring.producerPosition();
            ring.buffer().putLongRelease(ring.capacity() + RingBufferDescriptor.HEAD_POSITION_OFFSET, tail);
            sum += tail;
        }
        return sum;
    }

    /** Reads every record and only counts it: the consumer's cost without a consumer's work. */
    static final class Drain implements MessageHandler
    {
        private long records;

        public void onMessage(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
        {
            records++;
        }

        /**
         * Read every published record of every ring.
         *
         * @param rings the rings.
         * @return records drained so far.
         */
        long drainAll(final RingBuffer[] rings)
        {
            for (int i = 0; i < rings.length; i++)
            {
                rings[i].read(this, Integer.MAX_VALUE);
            }
            return records;
        }
    }
}
