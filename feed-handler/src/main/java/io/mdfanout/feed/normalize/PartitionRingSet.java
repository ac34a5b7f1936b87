package io.mdfanout.feed.normalize;

import io.mdfanout.wire.PartitionRings;
import io.mdfanout.wire.RingDirectoryLock;
import io.mdfanout.wire.RingSetHeader;
import io.mdfanout.wire.WireFormat;
import org.agrona.CloseHelper;
import org.agrona.concurrent.ringbuffer.RingBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The producer side of a ring directory: takes its lock ({@link RingDirectoryLock}: one producer at a
 * time, a second one is refused naming the holder), maps its header ({@link RingSetHeader}), and
 * either re-attaches to the rings already there or creates a new generation of them.
 * <p>
 * Re-attach ({@link Mode#RESUME}): when the header and every ring file are of this layout, with the
 * same partition count, capacity and schema, and carry the header's generation, the rings are mapped
 * as they are (the fanout may be draining them right now), each ring's last batch is recovered
 * ({@link PartitionRings.MappedRing#recoverProducer()}) and {@link #isResumed()} is true: the caller
 * continues after {@link #committedSequence()}. Anything else, or {@link Mode#NEW_GENERATION}, makes a
 * new generation: new ring files are renamed over the old ones (a fanout still mapping those keeps a
 * valid mapping), then the header's generation changes, which is what tells a fanout to follow.
 * Nothing in use is ever unlinked in place.
 * <p>
 * Closing unmaps and releases the lock but never deletes the files: the fanout may still be draining them.
 */
public final class PartitionRingSet implements AutoCloseable
{
    /** How a producer treats the rings it finds. */
    public enum Mode
    {
        /** Re-attach to compatible rings of the current generation and continue; a new generation otherwise. */
        RESUME,
        /** Always a new generation (a replay from the start of a file, a snapshot load). */
        NEW_GENERATION
    }

    private final Path directory;
    private final RingDirectoryLock lock;
    private final RingSetHeader header;
    private final PartitionRings.MappedRing[] mappedRings;
    /** The producer's mappings of the generation before the current one: see {@link #newGeneration(String)}. */
    private PartitionRings.MappedRing[] previousRings;
    private final RingBuffer[] rings;
    private final long[] lastRecordSequences;
    private final boolean resumed;
    private String newGenerationReason;
    private long generation;
    private long committedSequence;
    private String session;

    /**
     * Create the ring files of a new generation (the behaviour of a replay).
     *
     * @param directory      ring directory, normally under /dev/shm.
     * @param partitionCount number of partitions (1 or more).
     * @param capacity       data capacity of each ring, a power of two.
     */
    public PartitionRingSet(final Path directory, final int partitionCount, final int capacity)
    {
        this(directory, partitionCount, capacity, "producer", Mode.NEW_GENERATION, null);
    }

    /**
     * Lock the directory and re-attach to its rings or create a new generation.
     *
     * @param directory      ring directory, normally under /dev/shm.
     * @param partitionCount number of partitions (1 or more).
     * @param capacity       data capacity of each ring, a power of two.
     * @param role           who produces ("feed-handler", "replay"), named to a second producer.
     * @param mode           whether rings found may be resumed.
     * @param session        the MoldUDP64 session the producer is configured for, or null for any: rings of
     *                       another session are not resumed.
     * @throws IllegalStateException when another producer holds the directory.
     */
    public PartitionRingSet(
        final Path directory,
        final int partitionCount,
        final int capacity,
        final String role,
        final Mode mode,
        final String session)
    {
        if (partitionCount < 1)
        {
            throw new IllegalArgumentException("partition count must be at least 1: " + partitionCount);
        }
        this.directory = directory;
        mappedRings = new PartitionRings.MappedRing[partitionCount];
        rings = new RingBuffer[partitionCount];
        lastRecordSequences = new long[partitionCount];
        lock = RingDirectoryLock.acquire(directory, role);
        RingSetHeader mappedHeader = null;
        try
        {
            mappedHeader = RingSetHeader.openForProducer(directory);
            header = mappedHeader;
            final String refusal = Mode.RESUME == mode ?
                resumeRefusal(partitionCount, capacity, session) : "a new generation was asked for";
            if (null == refusal)
            {
                resumed = true;
                newGenerationReason = null;
                generation = header.generation();
                for (int i = 0; i < partitionCount; i++)
                {
                    lastRecordSequences[i] = mappedRings[i].recoverProducer();
                }
                committedSequence = header.committedSequence();
                this.session = header.session();
            }
            else
            {
                CloseHelper.closeAll(mappedRings);
                java.util.Arrays.fill(mappedRings, null);
                resumed = false;
                newGenerationReason = refusal;
                createGeneration(partitionCount, capacity);
            }
            for (int i = 0; i < partitionCount; i++)
            {
                rings[i] = mappedRings[i].ring();
            }
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.closeAll(mappedRings);
            CloseHelper.quietCloseAll(mappedHeader, lock);
            throw ex;
        }
    }

    /** @return why the rings found cannot be resumed, or null when they can (then they are mapped). */
    private String resumeRefusal(final int partitionCount, final int capacity, final String session)
    {
        if (!header.isInitialised() || 0 == header.generation())
        {
            return "no rings in " + directory;
        }
        if (RingSetHeader.SOURCE_LOADING == header.sourceState())
        {
            return "the last exchange snapshot load into them did not complete";
        }
        if (header.partitionCount() != partitionCount)
        {
            return "the rings have " + header.partitionCount() + " partitions, --partitions is " + partitionCount;
        }
        if (header.capacity() != capacity)
        {
            return "the rings hold " + header.capacity() + " bytes each, --ring-capacity-bytes is " + capacity;
        }
        if (header.schemaId() != WireFormat.SCHEMA_ID || header.schemaVersion() != WireFormat.SCHEMA_VERSION)
        {
            return "the rings hold schema " + header.schemaId() + " version " + header.schemaVersion() +
                ", this build writes " + WireFormat.SCHEMA_ID + " version " + WireFormat.SCHEMA_VERSION;
        }
        if (null != session && !header.session().isEmpty() && !header.session().trim().equals(session.trim()))
        {
            return "the rings hold session '" + header.session().trim() + "', --session is '" + session + "'";
        }
        for (int i = 0; i < partitionCount; i++)
        {
            try
            {
                mappedRings[i] = PartitionRings.map(directory, i);
            }
            catch (final RuntimeException ex)
            {
                return ex.getMessage();
            }
            if (mappedRings[i].generation() != header.generation() || mappedRings[i].capacity() != capacity)
            {
                return "ring " + mappedRings[i].file() + " is of generation " + mappedRings[i].generation() +
                    ", the header's is " + header.generation();
            }
        }
        return null;
    }

    private void createGeneration(final int partitionCount, final int capacity)
    {
        generation = Math.max(header.generation() + 1, System.currentTimeMillis());
        header.layout(partitionCount, capacity);
        header.committedSequence(0);
        header.session(new byte[RingSetHeader.SESSION_LENGTH]);
        for (int i = 0; i < partitionCount; i++)
        {
            mappedRings[i] = PartitionRings.create(directory, i, partitionCount, capacity, generation);
        }
        removeRingsFrom(partitionCount);
        header.generation(generation);
        committedSequence = 0;
        session = "";
    }

    /**
     * Replace the rings with a new generation while producing (the exchange started a new session: a new trading
     * day starts from nothing). The caller publishes what it wrote first; a fanout drains the old generation, then
     * follows the new one. {@link #rings()} and {@link #ringFiles()} then hold the new rings (same arrays). This
     * producer's mappings of the old generation stay mapped until the next change, because other threads of this
     * process (the metrics' ring collector) may still be reading them.
     *
     * @param reason why, for {@link #describe()}.
     */
    public void newGeneration(final String reason)
    {
        if (null != previousRings)
        {
            CloseHelper.closeAll(previousRings);
        }
        previousRings = mappedRings.clone();
        createGeneration(mappedRings.length, header.capacity());
        for (int i = 0; i < rings.length; i++)
        {
            rings[i] = mappedRings[i].ring();
        }
        newGenerationReason = reason;
    }

    /** Ring files of partitions a previous, larger layout had: unlinked (whoever maps them keeps its mapping). */
    private void removeRingsFrom(final int partitionCount)
    {
        try
        {
            for (int i = partitionCount; ; i++)
            {
                if (!Files.deleteIfExists(PartitionRings.ringFile(directory, i)))
                {
                    break;
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot remove old ring files in " + directory, ex);
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

    /** The mapped ring files, indexed by partition, for their commit marks; the array is shared. */
    public PartitionRings.MappedRing[] ringFiles()
    {
        return mappedRings;
    }

    /** The ring set's header: generation, heartbeat, committed sequence. */
    public RingSetHeader header()
    {
        return header;
    }

    /** @return true when the rings were re-attached rather than created. */
    public boolean isResumed()
    {
        return resumed;
    }


    /** @return the current generation. */
    public long generation()
    {
        return generation;
    }

    /** @return the sequence the feed was processed through when resumed (0 for a new generation). */
    public long committedSequence()
    {
        return committedSequence;
    }

    /** @return per partition, the exchange sequence of the last record its ring holds (all 0 for a new generation). */
    public long[] lastRecordSequences()
    {
        return lastRecordSequences;
    }

    /** @return the MoldUDP64 session of the resumed data (10 characters), or "" when none is known. */
    public String session()
    {
        return session;
    }

    /** Record the session the rings' data comes from (10 ASCII bytes), e.g. when the feed handler adopts one. */
    public void session(final byte[] sessionBytes)
    {
        header.session(sessionBytes);
        session = new String(sessionBytes, StandardCharsets.US_ASCII);
    }

    /** A line for the log: resumed or new, and why. */
    public String describe()
    {
        return resumed ?
            "re-attached to generation " + generation + " in " + directory + ", session '" + session.trim() +
                "' processed through sequence " + committedSequence :
            "new generation " + generation + " in " + directory + " (" + newGenerationReason + ")";
    }

    /** Unmap every ring and the header and release the lock; the files stay. */
    public void close()
    {
        if (null != previousRings)
        {
            CloseHelper.closeAll(previousRings);
        }
        CloseHelper.closeAll(mappedRings);
        CloseHelper.quietCloseAll(header, lock);
    }
}
