package io.mdfanout.wire;

import org.agrona.BitUtil;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The ring-buffer contract between feed handler and fanout: one Agrona
 * {@link OneToOneRingBuffer} per partition, memory-mapped from
 * {@code <dir>/partition-<n>.ring} (normally under /dev/shm). Each record's type id is the
 * SBE template id and its payload is one complete SBE message, header included, exactly as it
 * will appear on the wire after the packet header.
 * <p>
 * The feed handler creates the files (the single producer); the fanout maps existing ones (the
 * single consumer). The consumer's position lives in the ring's trailer, so a restarted fanout
 * resumes where it left off.
 */
public final class PartitionRings
{
    public static final int DEFAULT_CAPACITY = 8 * 1024 * 1024;

    private PartitionRings()
    {
    }

    public static Path ringFile(final Path directory, final int partition)
    {
        return directory.resolve("partition-" + partition + ".ring");
    }

    /** Map length for a data capacity: the capacity (a power of two) plus Agrona's trailer. */
    public static int fileLength(final int capacity)
    {
        if (!BitUtil.isPowerOfTwo(capacity))
        {
            throw new IllegalArgumentException("ring capacity must be a power of two: " + capacity);
        }
        return capacity + RingBufferDescriptor.TRAILER_LENGTH;
    }

    /** Create (or truncate and re-create) a partition's ring file and map it. Used by the producer. */
    public static MappedRing create(final Path directory, final int partition, final int capacity)
    {
        try
        {
            Files.createDirectories(directory);
            final File file = ringFile(directory, partition).toFile();
            if (file.exists() && !file.delete())
            {
                throw new IOException("cannot replace existing ring file " + file);
            }
            final MappedByteBuffer mapped = IoUtil.mapNewFile(file, fileLength(capacity), true);
            return new MappedRing(file.toPath(), mapped);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create ring for partition " + partition + " in " + directory, ex);
        }
    }

    /** Map an existing partition ring file. Used by the consumer. */
    public static MappedRing map(final Path directory, final int partition)
    {
        final File file = ringFile(directory, partition).toFile();
        if (!file.isFile())
        {
            throw new IllegalStateException("ring file not found: " + file + " (is the feed handler running with the same --ring-dir?)");
        }
        final MappedByteBuffer mapped = IoUtil.mapExistingFile(file, "partition-" + partition);
        return new MappedRing(file.toPath(), mapped);
    }

    /** A mapped ring file and the ring buffer over it; close to unmap. */
    public static final class MappedRing implements AutoCloseable
    {
        private final Path file;
        private final MappedByteBuffer mapped;
        private final OneToOneRingBuffer ring;

        MappedRing(final Path file, final MappedByteBuffer mapped)
        {
            this.file = file;
            this.mapped = mapped;
            this.ring = new OneToOneRingBuffer(new UnsafeBuffer(mapped));
        }

        public Path file()
        {
            return file;
        }

        public RingBuffer ring()
        {
            return ring;
        }

        public void close()
        {
            IoUtil.unmap(mapped);
        }
    }
}
