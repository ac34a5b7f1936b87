package io.mdfanout.feed.normalize;

import io.mdfanout.wire.PartitionRings;
import org.agrona.CloseHelper;
import org.agrona.concurrent.ringbuffer.RingBuffer;

import java.nio.file.Path;

/**
 * The producer side of the partition rings: creates (or re-creates) one memory-mapped ring file
 * per partition with {@link PartitionRings#create(Path, int, int)} and unmaps them on close.
 * <p>
 * Closing unmaps but never deletes the files: the fanout may still be draining them.
 */
public final class PartitionRingSet implements AutoCloseable
{
    private final Path directory;
    private final PartitionRings.MappedRing[] mappedRings;
    private final RingBuffer[] rings;

    /**
     * Create the ring files.
     *
     * @param directory      ring directory, normally under /dev/shm.
     * @param partitionCount number of partitions (1 or more).
     * @param capacity       data capacity of each ring, a power of two.
     */
    public PartitionRingSet(final Path directory, final int partitionCount, final int capacity)
    {
        if (partitionCount < 1)
        {
            throw new IllegalArgumentException("partition count must be at least 1: " + partitionCount);
        }
        this.directory = directory;
        mappedRings = new PartitionRings.MappedRing[partitionCount];
        rings = new RingBuffer[partitionCount];
        try
        {
            for (int i = 0; i < partitionCount; i++)
            {
                mappedRings[i] = PartitionRings.create(directory, i, capacity);
                rings[i] = mappedRings[i].ring();
            }
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.closeAll(mappedRings);
            throw ex;
        }
    }

    /** The ring directory. */
    public Path directory()
    {
        return directory;
    }

    /** The rings, indexed by partition; the array is shared, do not modify it. */
    public RingBuffer[] rings()
    {
        return rings;
    }

    /** Unmap every ring; the files stay. */
    public void close()
    {
        CloseHelper.closeAll(mappedRings);
    }
}
