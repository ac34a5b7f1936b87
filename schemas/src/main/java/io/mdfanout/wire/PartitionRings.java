package io.mdfanout.wire;

import org.agrona.BitUtil;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.locks.LockSupport;

/**
 * The ring-buffer contract between feed handler and fanout: one Agrona
 * {@link OneToOneRingBuffer} per partition, memory-mapped from
 * {@code <dir>/partition-<n>.ring} (normally under /dev/shm). Each record's type id is the
 * SBE template id and its payload is one complete SBE message, header included, exactly as it
 * will appear on the wire after the packet header.
 * <p>
 * A ring file is the ring's data, Agrona's trailer (head and tail positions), then a header of this
 * project ({@link #RING_HEADER_LENGTH} bytes): magic, layout version, partition and partition
 * count, capacity, schema id and version, the generation the file belongs to (see
 * {@link RingSetHeader}), and the producer's commit marks: the exchange sequence of the last record
 * made visible, and where the last batch starts and ends, so that a restarted producer can
 * tell whether the batch it was publishing when it died became visible ({@link MappedRing#recoverProducer()}).
 * <p>
 * The producer creates the files of a new generation under temporary names and renames them into
 * place: a consumer still mapped to the previous files keeps a valid mapping until it follows the
 * generation. The consumer's position lives in the ring's trailer, so a restarted fanout resumes
 * where it left off.
 */
public final class PartitionRings
{
    public static final int DEFAULT_CAPACITY = 8 * 1024 * 1024;
    /** Length of this project's header after Agrona's trailer. */
    public static final int RING_HEADER_LENGTH = 128;
    /** "MDFRING1" as a little-endian long. */
    public static final long RING_MAGIC = 0x31474E4952464D44L;

    static final int MAGIC_OFFSET = 0;
    static final int LAYOUT_VERSION_OFFSET = 8;
    static final int PARTITION_OFFSET = 12;
    static final int PARTITION_COUNT_OFFSET = 16;
    static final int CAPACITY_OFFSET = 20;
    static final int SCHEMA_ID_OFFSET = 24;
    static final int SCHEMA_VERSION_OFFSET = 28;
    static final int GENERATION_OFFSET = 32;
    static final int PENDING_START_OFFSET = 64;
    static final int PENDING_END_OFFSET = 72;
    static final int PENDING_SEQUENCE_OFFSET = 80;
    static final int COMMITTED_SEQUENCE_OFFSET = 88;

    private PartitionRings()
    {
    }

    public static Path ringFile(final Path directory, final int partition)
    {
        return directory.resolve("partition-" + partition + ".ring");
    }

    /** File length for a data capacity: the capacity (a power of two), Agrona's trailer and this project's header. */
    public static int fileLength(final int capacity)
    {
        if (!BitUtil.isPowerOfTwo(capacity))
        {
            throw new IllegalArgumentException("ring capacity must be a power of two: " + capacity);
        }
        return capacity + RingBufferDescriptor.TRAILER_LENGTH + RING_HEADER_LENGTH;
    }

    /** The data capacity of a ring file of this layout, or -1 when its length fits none. */
    public static int capacityOf(final long fileLength)
    {
        final long capacity = fileLength - RingBufferDescriptor.TRAILER_LENGTH - RING_HEADER_LENGTH;
        return capacity > 0 && capacity <= Integer.MAX_VALUE && BitUtil.isPowerOfTwo((int)capacity) ? (int)capacity : -1;
    }

    /**
     * Create one ring file outside any ring set (tests, benchmarks, peers): generation 1, no header
     * file beside it. A fanout needs a producer's ring set ({@code rings.header}) to follow generations.
     */
    public static MappedRing create(final Path directory, final int partition, final int capacity)
    {
        return create(directory, partition, partition + 1, capacity, 1);
    }

    /**
     * Create a partition's ring file of a generation and map it: written under a temporary name and
     * renamed over any file of that name, so that whoever still maps the old one keeps a valid
     * mapping. Used by the producer, holding the directory's lock.
     */
    public static MappedRing create(
        final Path directory, final int partition, final int partitionCount, final int capacity, final long generation)
    {
        try
        {
            Files.createDirectories(directory);
            final Path target = ringFile(directory, partition);
            final Path temporary = directory.resolve(target.getFileName() + "." + generation + ".new");
            Files.deleteIfExists(temporary);
            final MappedByteBuffer mapped = IoUtil.mapNewFile(temporary.toFile(), fileLength(capacity), true);
            final MappedRing ring = new MappedRing(target, mapped, capacity);
            ring.writeHeader(partition, partitionCount, capacity, generation);
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return ring;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create ring for partition " + partition + " in " + directory, ex);
        }
    }

    /**
     * Map an existing partition ring file and check that it is one of this layout.
     *
     * @throws IllegalStateException naming the file and what is wrong with it.
     */
    public static MappedRing map(final Path directory, final int partition)
    {
        final File file = ringFile(directory, partition).toFile();
        if (!file.isFile())
        {
            throw new ConfigurationException(
                "ring file not found: " + file + " (is the feed handler running with the same --ring-dir?)");
        }
        final int capacity = capacityOf(file.length());
        if (capacity < 0)
        {
            throw new ConfigurationException("ring file " + file + " has another layout (" + file.length() +
                " bytes fit no ring of layout version " + RingSetHeader.LAYOUT_VERSION + ")");
        }
        final MappedByteBuffer mapped = IoUtil.mapExistingFile(file, "partition-" + partition);
        final MappedRing ring = new MappedRing(file.toPath(), mapped, capacity);
        final String problem = ring.layoutProblem(partition);
        if (null != problem)
        {
            ring.close();
            throw new ConfigurationException("ring file " + file + " " + problem);
        }
        return ring;
    }

    /** A mapped ring file, the ring buffer over it and its header; close to unmap. */
    public static final class MappedRing implements AutoCloseable
    {
        private final Path file;
        private final MappedByteBuffer mapped;
        private final OneToOneRingBuffer ring;
        private final UnsafeBuffer header;
        private final int capacity;

        MappedRing(final Path file, final MappedByteBuffer mapped, final int capacity)
        {
            this.file = file;
            this.mapped = mapped;
            this.capacity = capacity;
            final int ringLength = capacity + RingBufferDescriptor.TRAILER_LENGTH;
            this.ring = new OneToOneRingBuffer(new UnsafeBuffer(mapped, 0, ringLength));
            this.header = new UnsafeBuffer(mapped, ringLength, RING_HEADER_LENGTH);
        }

        void writeHeader(final int partition, final int partitionCount, final int capacity, final long generation)
        {
            header.putInt(LAYOUT_VERSION_OFFSET, RingSetHeader.LAYOUT_VERSION);
            header.putInt(PARTITION_OFFSET, partition);
            header.putInt(PARTITION_COUNT_OFFSET, partitionCount);
            header.putInt(CAPACITY_OFFSET, capacity);
            header.putInt(SCHEMA_ID_OFFSET, WireFormat.SCHEMA_ID);
            header.putInt(SCHEMA_VERSION_OFFSET, WireFormat.SCHEMA_VERSION);
            header.putLong(GENERATION_OFFSET, generation);
            header.putLongRelease(MAGIC_OFFSET, RING_MAGIC);
        }

        /** @return what makes this file unusable as partition {@code partition}'s ring, or null when nothing. */
        String layoutProblem(final int partition)
        {
            final long magic = header.getLongVolatile(MAGIC_OFFSET);
            if (RING_MAGIC != magic)
            {
                return "has another layout (no ring header of layout version " + RingSetHeader.LAYOUT_VERSION + ")";
            }
            if (RingSetHeader.LAYOUT_VERSION != header.getInt(LAYOUT_VERSION_OFFSET))
            {
                return "has layout version " + header.getInt(LAYOUT_VERSION_OFFSET) + ", this build reads " +
                    RingSetHeader.LAYOUT_VERSION;
            }
            if (partition != header.getInt(PARTITION_OFFSET))
            {
                return "is the ring of partition " + header.getInt(PARTITION_OFFSET) + ", not " + partition;
            }
            if (WireFormat.SCHEMA_ID != header.getInt(SCHEMA_ID_OFFSET))
            {
                return "holds records of schema id " + header.getInt(SCHEMA_ID_OFFSET) + ", this build reads " +
                    WireFormat.SCHEMA_ID;
            }
            return null;
        }

        public Path file()
        {
            return file;
        }

        public RingBuffer ring()
        {
            return ring;
        }

        /** @return data capacity of the ring. */
        public int capacity()
        {
            return capacity;
        }

        /** @return the generation this ring file was created for. */
        public long generation()
        {
            return header.getLongVolatile(GENERATION_OFFSET);
        }

        /** @return exchange sequence of the last record known visible (0 for none). */
        public long committedSequence()
        {
            return header.getLongVolatile(COMMITTED_SEQUENCE_OFFSET);
        }

        /**
         * Producer, before making a batch visible: where it starts and ends and the exchange sequence of its last record.
         * Plain stores: the release store that publishes the batch orders them.
         */
        public void pending(final long startPosition, final long endPosition, final long sequence)
        {
            header.putLong(PENDING_START_OFFSET, startPosition);
            header.putLong(PENDING_END_OFFSET, endPosition);
            header.putLong(PENDING_SEQUENCE_OFFSET, sequence);
        }

        /** Producer, after the batch is visible: the exchange sequence of its last record. */
        public void commit(final long sequence)
        {
            header.putLongRelease(COMMITTED_SEQUENCE_OFFSET, sequence);
        }

        /**
         * A restarted producer's first step: work out the exchange sequence of the last record the ring
         * holds and put the tail where the visible records end. The one uncertain batch is the last one
         * published: its marks were stored before it was made visible and the commit after, so it is
         * visible exactly when its first record has its length or the consumer went past it. A batch that
         * never became visible is dropped (the tail goes back to its start), so the producer writes it again.
         *
         * @return exchange sequence of the last record in the ring, 0 for none.
         */
        public long recoverProducer()
        {
            final UnsafeBuffer buffer = (UnsafeBuffer)ring.buffer();
            final int tailIndex = capacity + RingBufferDescriptor.TAIL_POSITION_OFFSET;
            final int headIndex = capacity + RingBufferDescriptor.HEAD_POSITION_OFFSET;
            final long committed = header.getLongVolatile(COMMITTED_SEQUENCE_OFFSET);
            final long start = header.getLongVolatile(PENDING_START_OFFSET);
            final long end = header.getLongVolatile(PENDING_END_OFFSET);
            if (end <= start)
            {
                return committed;
            }
            if (isVisible(buffer, headIndex, start))
            {
                final long last = Math.max(committed, header.getLongVolatile(PENDING_SEQUENCE_OFFSET));
                buffer.putLongRelease(tailIndex, end);
                commit(last);
                return last;
            }
            buffer.putLongRelease(tailIndex, start);
            header.putLong(PENDING_END_OFFSET, start);
            return committed;
        }

        /** Forget the commit marks (a new MoldUDP64 session starts its sequences again). */
        public void resetMarks()
        {
            header.putLong(PENDING_SEQUENCE_OFFSET, 0);
            header.putLong(PENDING_END_OFFSET, header.getLong(PENDING_START_OFFSET));
            commit(0);
        }

        private boolean isVisible(final UnsafeBuffer buffer, final int headIndex, final long start)
        {
            final int lengthIndex = RecordDescriptor.lengthOffset((int)start & (capacity - 1));
            // A consumer zeroes what it read before it moves its head: a zero length with the head not
            // past it yet may be a read in flight, which ends within microseconds.
            for (int attempt = 0; attempt < 10; attempt++)
            {
                if (buffer.getIntVolatile(lengthIndex) > 0 || buffer.getLongVolatile(headIndex) > start)
                {
                    return true;
                }
                LockSupport.parkNanos(1_000_000);
            }
            return false;
        }

        public void close()
        {
            IoUtil.unmap(mapped);
        }
    }
}
