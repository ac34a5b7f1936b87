package io.mdfanout.wire;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The header of a ring directory, {@code <dir>/rings.header}: one small memory-mapped file that says
 * what the partition rings beside it are (layout version, partition count, capacity, schema id and
 * version), which generation of them is current, and how their producer is doing (a heartbeat,
 * the last exchange timestamp it wrote and the state of its source; who it is, the lock file says).
 * <p>
 * The file is created once and then only ever written in place: a consumer keeps it mapped for its
 * whole life and learns of new rings by the generation changing here, never by the file being
 * replaced under it (which is how a fanout used to stay mapped to deleted rings after a feed handler
 * restart). The producer writes it while it holds the directory's lock ({@link RingDirectoryLock});
 * readers only read.
 * <p>
 * Generation protocol: a producer that must replace the rings writes the new ring files (each
 * carrying the new generation in its own header, see {@link PartitionRings}) and then stores the
 * generation here with release semantics. A consumer reads the generation here each duty cycle
 * (one acquire load) and, when it changed, maps the rings again and checks that each carries it.
 */
public final class RingSetHeader implements AutoCloseable
{
    /** Name of the header file in a ring directory. */
    public static final String FILE_NAME = "rings.header";
    /** Length of the file. */
    public static final int LENGTH = 4096;
    /** "MDFRSET1" read as a little-endian long: tells this file from anything else. */
    public static final long MAGIC = 0x3154455346444D4DL;
    /** Version of the layout of this header and of the ring files; a change means incompatible rings. */
    public static final int LAYOUT_VERSION = 1;

    /** Source state: nothing written yet. */
    public static final int SOURCE_UNKNOWN = 0;
    /** Source state: the producer is running and its feed delivers (packets or exchange heartbeats). */
    public static final int SOURCE_LIVE = 1;
    /** Source state: the producer runs but every line of its feed is silent. */
    public static final int SOURCE_LINES_SILENT = 2;
    /** Source state: the producer is loading a snapshot of the exchange (GLIMPSE) into a new generation. */
    public static final int SOURCE_LOADING = 3;
    /** Source state: the producer stopped cleanly (a replay that ended, a feed handler that was told to stop). */
    public static final int SOURCE_STOPPED = 4;

    static final int MAGIC_OFFSET = 0;
    static final int LAYOUT_VERSION_OFFSET = 8;
    static final int PARTITION_COUNT_OFFSET = 12;
    static final int CAPACITY_OFFSET = 16;
    static final int SCHEMA_ID_OFFSET = 20;
    static final int SCHEMA_VERSION_OFFSET = 24;
    static final int GENERATION_OFFSET = 64;
    static final int HEARTBEAT_OFFSET = 136;
    static final int LAST_EXCHANGE_TIMESTAMP_OFFSET = 144;
    static final int SOURCE_STATE_OFFSET = 152;
    static final int SESSION_OFFSET = 192;
    /** Length of a MoldUDP64 session name. */
    public static final int SESSION_LENGTH = 10;
    static final int COMMITTED_SEQUENCE_OFFSET = 256;

    private final Path file;
    private final MappedByteBuffer mapped;
    private final UnsafeBuffer buffer;

    private RingSetHeader(final Path file, final MappedByteBuffer mapped)
    {
        this.file = file;
        this.mapped = mapped;
        this.buffer = new UnsafeBuffer(mapped);
    }

    /** The header file of a ring directory. */
    public static Path file(final Path directory)
    {
        return directory.resolve(FILE_NAME);
    }

    /**
     * The producer's view: map the directory's header, creating it when it is missing, or replacing it
     * (by an atomic rename, so that nothing mapped changes) when it is not a header of this layout.
     * Call only while holding the directory's {@link RingDirectoryLock}.
     *
     * @param directory the ring directory, created when missing.
     * @return the mapped header; {@link #isInitialised()} is false for a new one.
     */
    public static RingSetHeader openForProducer(final Path directory)
    {
        final Path path = file(directory);
        try
        {
            Files.createDirectories(directory);
            if (!isHeaderFile(path))
            {
                final Path temporary = directory.resolve(FILE_NAME + ".new");
                Files.deleteIfExists(temporary);
                IoUtil.unmap(IoUtil.mapNewFile(temporary.toFile(), LENGTH, true));
                Files.move(temporary, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
            return new RingSetHeader(path, IoUtil.mapExistingFile(path.toFile(), FILE_NAME));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot open the ring header " + path + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * A consumer's view: map an existing header.
     *
     * @param directory the ring directory.
     * @return the mapped header, or null when there is none yet (the producer has not started).
     * @throws IllegalStateException when the file is not a ring header of this layout version.
     */
    public static RingSetHeader openExisting(final Path directory)
    {
        final Path path = file(directory);
        final File asFile = path.toFile();
        if (!asFile.isFile())
        {
            return null;
        }
        if (asFile.length() != LENGTH)
        {
            throw new ConfigurationException(path + " is not a ring header of this version (" + asFile.length() +
                " bytes, expected " + LENGTH + "): rings of another layout; stop their producer and remove " +
                path.getParent());
        }
        final RingSetHeader header = new RingSetHeader(path, IoUtil.mapExistingFile(asFile, FILE_NAME));
        final long magic = header.buffer.getLongVolatile(MAGIC_OFFSET);
        if (0 != magic && MAGIC != magic)
        {
            header.close();
            throw new ConfigurationException(path + " is not a ring header (magic " + Long.toHexString(magic) + ")");
        }
        if (0 != magic && LAYOUT_VERSION != header.layoutVersion())
        {
            final int version = header.layoutVersion();
            header.close();
            throw new ConfigurationException("the rings in " + path.getParent() + " have layout version " + version +
                ", this build reads version " + LAYOUT_VERSION + ": run a feed handler and fanout of the same release");
        }
        return header;
    }

    /**
     * The generation in the directory's header file as the file is now, read without mapping it: a
     * consumer compares it with its own mapping's to learn that the file was replaced under it (the
     * directory emptied and made again), which no mapping of the old file can show.
     *
     * @param directory the ring directory.
     * @return the generation, or -1 when there is no readable header.
     */
    public static long readGeneration(final Path directory)
    {
        try (FileChannel channel = FileChannel.open(file(directory), StandardOpenOption.READ))
        {
            final java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.nativeOrder());
            return channel.read(bytes, GENERATION_OFFSET) == 8 ? bytes.getLong(0) : -1;
        }
        catch (final IOException ex)
        {
            return -1;
        }
    }

    private static boolean isHeaderFile(final Path path) throws IOException
    {
        if (!Files.isRegularFile(path) || Files.size(path) != LENGTH)
        {
            return false;
        }
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ))
        {
            final java.nio.ByteBuffer head = java.nio.ByteBuffer.allocate(12).order(java.nio.ByteOrder.nativeOrder());
            channel.read(head, 0);
            return head.getLong(0) == MAGIC && head.getInt(8) == LAYOUT_VERSION;
        }
    }

    /** @return true once a producer wrote a layout into it. */
    public boolean isInitialised()
    {
        return MAGIC == buffer.getLongVolatile(MAGIC_OFFSET);
    }

    /**
     * Write the layout of a new set of rings; the generation is stored separately, after the rings exist.
     *
     * @param partitionCount partitions, one ring each.
     * @param capacity       data capacity of each ring.
     */
    public void layout(final int partitionCount, final int capacity)
    {
        buffer.putInt(LAYOUT_VERSION_OFFSET, LAYOUT_VERSION);
        buffer.putInt(PARTITION_COUNT_OFFSET, partitionCount);
        buffer.putInt(CAPACITY_OFFSET, capacity);
        buffer.putInt(SCHEMA_ID_OFFSET, WireFormat.SCHEMA_ID);
        buffer.putInt(SCHEMA_VERSION_OFFSET, WireFormat.SCHEMA_VERSION);
        buffer.putLongRelease(MAGIC_OFFSET, MAGIC);
    }

    /** @return the layout version the producer wrote. */
    public int layoutVersion()
    {
        return buffer.getInt(LAYOUT_VERSION_OFFSET);
    }

    /** @return partitions of the current rings. */
    public int partitionCount()
    {
        return buffer.getIntVolatile(PARTITION_COUNT_OFFSET);
    }

    /** @return data capacity of each ring. */
    public int capacity()
    {
        return buffer.getIntVolatile(CAPACITY_OFFSET);
    }

    /** @return SBE schema id of the records. */
    public int schemaId()
    {
        return buffer.getInt(SCHEMA_ID_OFFSET);
    }

    /** @return SBE schema version of the records. */
    public int schemaVersion()
    {
        return buffer.getInt(SCHEMA_VERSION_OFFSET);
    }

    /** @return the current generation, 0 before the first rings exist. One acquire load: call it every duty cycle. */
    public long generation()
    {
        return buffer.getLongVolatile(GENERATION_OFFSET);
    }

    /** Make a generation current, after its ring files exist. */
    public void generation(final long generation)
    {
        buffer.putLongRelease(GENERATION_OFFSET, generation);
    }



    /** @return epoch milliseconds of the producer's last heartbeat, 0 for none. */
    public long heartbeatEpochMs()
    {
        return buffer.getLongVolatile(HEARTBEAT_OFFSET);
    }

    /** @return ITCH timestamp (ns since midnight) of the last exchange message the producer wrote. */
    public long lastExchangeTimestampNs()
    {
        return buffer.getLongVolatile(LAST_EXCHANGE_TIMESTAMP_OFFSET);
    }

    /** @return one of the {@code SOURCE_*} states. */
    public int sourceState()
    {
        return buffer.getIntVolatile(SOURCE_STATE_OFFSET);
    }

    /**
     * The producer's heartbeat: its clock, the last exchange timestamp and the state of its source.
     * Three ordered stores, no allocation: a producer calls it from its duty cycle.
     */
    public void heartbeat(final long epochMs, final long lastExchangeTimestampNs, final int sourceState)
    {
        buffer.putIntRelease(SOURCE_STATE_OFFSET, sourceState);
        buffer.putLongRelease(LAST_EXCHANGE_TIMESTAMP_OFFSET, lastExchangeTimestampNs);
        buffer.putLongRelease(HEARTBEAT_OFFSET, epochMs);
    }

    /** Only the source state (a clean stop, a snapshot load). */
    public void sourceState(final int sourceState)
    {
        buffer.putIntRelease(SOURCE_STATE_OFFSET, sourceState);
    }

    /** @return the MoldUDP64 session of the rings' data (10 characters, space padded), or "" before any. */
    public String session()
    {
        final byte[] bytes = new byte[SESSION_LENGTH];
        buffer.getBytes(SESSION_OFFSET, bytes);
        return 0 == bytes[0] ? "" : new String(bytes, StandardCharsets.US_ASCII);
    }

    /**
     * Copy the MoldUDP64 session of the rings' data without allocating.
     *
     * @param dst at least {@link #SESSION_LENGTH} bytes; left as it is before any session.
     * @return true when the rings have a session and it was copied.
     */
    public boolean copySession(final byte[] dst)
    {
        if (0 == buffer.getByte(SESSION_OFFSET))
        {
            return false;
        }
        buffer.getBytes(SESSION_OFFSET, dst, 0, SESSION_LENGTH);
        return true;
    }

    /** Record the MoldUDP64 session whose messages the rings hold (10 bytes). */
    public void session(final byte[] session)
    {
        if (SESSION_LENGTH != session.length)
        {
            throw new IllegalArgumentException("a MoldUDP64 session is " + SESSION_LENGTH + " bytes: " + session.length);
        }
        buffer.putBytes(SESSION_OFFSET, session);
    }



    /**
     * @return the MoldUDP64 sequence through which the producer processed the feed into every ring: a
     * restarted producer continues after it.
     */
    public long committedSequence()
    {
        return buffer.getLongVolatile(COMMITTED_SEQUENCE_OFFSET);
    }

    /** Producer, after a batch is visible in every ring: processed through {@code sequence}. */
    public void committedSequence(final long sequence)
    {
        buffer.putLongRelease(COMMITTED_SEQUENCE_OFFSET, sequence);
    }

    /** Human-readable name of a source state, for logs and metrics labels. */
    public static String sourceStateName(final int state)
    {
        switch (state)
        {
            case SOURCE_LIVE:
                return "live";
            case SOURCE_LINES_SILENT:
                return "lines-silent";
            case SOURCE_LOADING:
                return "loading";
            case SOURCE_STOPPED:
                return "stopped";
            default:
                return "unknown";
        }
    }

    /** @return the file. */
    public Path file()
    {
        return file;
    }

    /** Unmap; the file stays. */
    public void close()
    {
        IoUtil.unmap(mapped);
    }
}
