package io.mdfanout.wire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * A ring directory has one producer: it holds an exclusive lock on {@code <dir>/rings.lock} for as
 * long as it runs, and writes who it is into the file so that a second one is refused with the
 * holder's name. The kernel drops the lock when the process dies, kill -9 included, so a restart
 * is never refused by a dead predecessor.
 */
public final class RingDirectoryLock implements AutoCloseable
{
    /** Name of the lock file in a ring directory. */
    public static final String FILE_NAME = "rings.lock";

    private final FileChannel channel;
    private final FileLock lock;

    private RingDirectoryLock(final FileChannel channel, final FileLock lock)
    {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Take the directory's lock.
     *
     * @param directory the ring directory, created when missing.
     * @param role      who takes it ("feed-handler", "replay"), written into the lock file.
     * @return the held lock; close it to release.
     * @throws IllegalStateException naming the holder when another producer has it.
     */
    public static RingDirectoryLock acquire(final Path directory, final String role)
    {
        return acquire(directory, FILE_NAME, role,
            "one feed handler or replay per ring directory; stop it or use another --ring-dir");
    }

    /**
     * Take the lock of another kind of directory with one owner (the archive's), in a file of its own.
     *
     * @param directory the directory, created when missing.
     * @param fileName  the lock file's name in it.
     * @param role      who takes it, written into the lock file.
     * @param advice    what the refusal tells the user to do.
     * @return the held lock; close it to release.
     * @throws ConfigurationException naming the holder when another process has it.
     */
    public static RingDirectoryLock acquire(
        final Path directory, final String fileName, final String role, final String advice)
    {
        final Path file = directory.resolve(fileName);
        FileChannel channel = null;
        try
        {
            Files.createDirectories(directory);
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock lock;
            try
            {
                lock = channel.tryLock();
            }
            catch (final OverlappingFileLockException ex)
            {
                lock = null; // held in this very JVM
            }
            if (null == lock)
            {
                final String holder = readHolder(channel);
                channel.close();
                throw new ConfigurationException("directory " + directory + " is in use by " +
                    (holder.isEmpty() ? "another process" : holder) + " (it holds " + file + "): " + advice);
            }
            final byte[] holder = (role + " pid " + ProcessHandle.current().pid() + " since " + Instant.now())
                .getBytes(StandardCharsets.US_ASCII);
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(holder), 0);
            channel.force(false);
            return new RingDirectoryLock(channel, lock);
        }
        catch (final IOException ex)
        {
            try
            {
                if (null != channel)
                {
                    channel.close();
                }
            }
            catch (final IOException ignore)
            {
                // reporting the first failure
            }
            throw new IllegalStateException("cannot lock " + file + ": " + ex.getMessage(), ex);
        }
    }

    private static String readHolder(final FileChannel channel) throws IOException
    {
        final ByteBuffer bytes = ByteBuffer.allocate(256);
        channel.read(bytes, 0);
        return new String(bytes.array(), 0, bytes.position(), StandardCharsets.US_ASCII).trim();
    }

    /** Release the lock; the file stays (removing it would race a producer taking it). */
    public void close()
    {
        try
        {
            lock.release();
            channel.close();
        }
        catch (final IOException ignore)
        {
            // the kernel releases it with the descriptor anyway
        }
    }
}
