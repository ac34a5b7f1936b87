package io.mdfanout.fanout;

import io.mdfanout.wire.FeedStream;
import io.aeron.driver.Configuration;
import io.aeron.driver.MediaDriver;
import io.aeron.logbuffer.LogBufferDescriptor;
import io.mdfanout.fanout.state.PartitionState;
import io.mdfanout.wire.ConfigurationException;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The memory-backed file space a fanout is about to fill, checked before it maps anything: its partition state
 * files (pre-touched, so wholly resident) and, with an embedded media driver, the driver's CnC file, loss report
 * and the log buffers of its publications. A mapped file that cannot grow on a full tmpfs does not fail its
 * write: the process dies of a SIGBUS ({@code InternalError: a fault occurred in a recent unsafe memory access
 * operation}), long after the cause. Refusing to start with the figures is the clear error instead.
 */
final class SharedMemoryBudget
{
    private static final long MIB = 1024 * 1024;

    private SharedMemoryBudget()
    {
    }

    /**
     * @param partitions      partition count.
     * @param maxOrders       live orders per partition state.
     * @param stateDirectory  where the state files go.
     * @return the bytes the state files still need (files already of full length need nothing more).
     */
    static long stateBytes(final int partitions, final int maxOrders, final Path stateDirectory)
    {
        final long length = PartitionState.fileLength(maxOrders);
        long needed = 0;
        for (int partition = 0; partition < partitions; partition++)
        {
            final File file = PartitionState.stateFile(stateDirectory, partition).toFile();
            needed += Math.max(0, length - (file.isFile() ? file.length() : 0));
        }
        return needed;
    }

    /**
     * @param partitions partition count.
     * @param termLength term length of the publications.
     * @return the bytes an embedded driver maps: its CnC file and loss report with Aeron's default buffer lengths,
     * and three terms and the log metadata for the incremental and the snapshot publication of each partition.
     */
    static long embeddedDriverBytes(final int partitions, final int termLength)
    {
        return embeddedDriverBytes(partitions, termLength, 0, 0, false);
    }

    /**
     * @param partitions        partition count.
     * @param termLength        term length of the MBO publications.
     * @param derivedStreams    derived streams published.
     * @param derivedTermLength term length of their publications.
     * @param directory         whether the symbol directory is published too.
     * @return as {@link #embeddedDriverBytes(int, int)}, with an incremental and a snapshot publication of each derived
     * stream of each partition, and of its symbol directory.
     */
    static long embeddedDriverBytes(
        final int partitions, final int termLength, final int derivedStreams, final int derivedTermLength,
        final boolean directory)
    {
        final MediaDriver.Context defaults = new MediaDriver.Context();
        final long cnc = defaults.conductorBufferLength() + defaults.toClientsBufferLength() +
            defaults.counterValuesBufferLength() +
            (long)Configuration.countersMetadataBufferLength(defaults.counterValuesBufferLength()) +
            defaults.errorBufferLength() + defaults.lossReportBufferLength();
        final long logs = 2L * partitions * (3L * termLength + LogBufferDescriptor.LOG_META_DATA_LENGTH);
        final long derivedLogs =
            2L * partitions * derivedStreams * (3L * derivedTermLength + LogBufferDescriptor.LOG_META_DATA_LENGTH);
        final long directoryLogs = !directory ? 0 :
            2L * partitions * (3L * Fanout.DIRECTORY_TERM_LENGTH + LogBufferDescriptor.LOG_META_DATA_LENGTH);
        return cnc + logs + derivedLogs + directoryLogs;
    }

    /**
     * @param what       what needs the room, for the message.
     * @param directory  where it goes (an existing directory or one to be made under an existing one).
     * @param needed     bytes it needs.
     * @param usable     bytes free there.
     * @return null when it fits, else the one-line reason.
     */
    static String shortfall(final String what, final Path directory, final long needed, final long usable)
    {
        if (needed <= usable)
        {
            return null;
        }
        return directory + " has " + usable / MIB + " MiB free but the fanout needs " + (needed + MIB - 1) / MIB +
            " MiB there (" + what + "): give it more room (the chart's shmHeadroom, docker --shm-size) or lower " +
            "--max-orders, --term-length-bytes or --derived-term-length-bytes";
    }

    /**
     * Refuse to start when the state files and the embedded driver would not fit where they go.
     *
     * @param config        the fanout's configuration.
     * @param driverDirectory the embedded driver's directory, or null when the driver is external.
     * @throws IllegalStateException with the figures when they would not fit.
     */
    static void check(final FanoutConfig config, final String driverDirectory)
    {
        final Path stateDirectory = config.resolvedStateDirectory();
        final long state = stateBytes(config.partitionCount(), config.maxOrders(), stateDirectory);
        final long driver = null == driverDirectory ? 0 : embeddedDriverBytes(config.partitionCount(),
            config.termLength(), config.derivedStreams().length, config.derivedTermLength(),
            java.util.Arrays.asList(Fanout.publishedStreams(config)).contains(FeedStream.DIRECTORY));
        final Path stateStore = existingAncestor(stateDirectory);
        final Path driverStore = null == driverDirectory ? null : existingAncestor(Path.of(driverDirectory));
        // A previous run's driver directory is deleted when the embedded driver starts: its files free up.
        final long driverLeftover = null == driverDirectory ? 0 : sizeOf(Path.of(driverDirectory));
        try
        {
            final boolean sameStore = null != driverStore &&
                Files.getFileStore(stateStore).equals(Files.getFileStore(driverStore));
            final long stateUsable = Files.getFileStore(stateStore).getUsableSpace();
            final String problem = sameStore ?
                shortfall(describe(state, driver), stateStore, state + driver, stateUsable + driverLeftover) :
                shortfall(describe(state, 0), stateStore, state, stateUsable);
            final String driverProblem = sameStore || null == driverStore ? null : shortfall(describe(0, driver),
                driverStore, driver, Files.getFileStore(driverStore).getUsableSpace() + driverLeftover);
            if (null != problem || null != driverProblem)
            {
                throw new ConfigurationException(null != problem ? problem : driverProblem);
            }
        }
        catch (final IOException ex)
        {
            // No figures to judge by: the mapping itself reports what goes wrong.
        }
    }

    private static String describe(final long state, final long driver)
    {
        final StringBuilder b = new StringBuilder();
        if (state > 0)
        {
            b.append("state files ").append((state + MIB - 1) / MIB).append(" MiB");
        }
        if (driver > 0)
        {
            b.append(b.length() > 0 ? ", " : "").append("embedded media driver ")
                .append((driver + MIB - 1) / MIB).append(" MiB");
        }
        return b.toString();
    }

    private static long sizeOf(final Path directory)
    {
        if (!Files.isDirectory(directory))
        {
            return 0;
        }
        try (var files = Files.walk(directory))
        {
            return files.filter(Files::isRegularFile).mapToLong((file) -> file.toFile().length()).sum();
        }
        catch (final IOException | RuntimeException ex)
        {
            return 0;
        }
    }

    private static Path existingAncestor(final Path path)
    {
        Path p = path.toAbsolutePath().normalize();
        while (null != p && !Files.exists(p))
        {
            p = p.getParent();
        }
        return null == p ? path.toAbsolutePath().getRoot() : p;
    }
}
