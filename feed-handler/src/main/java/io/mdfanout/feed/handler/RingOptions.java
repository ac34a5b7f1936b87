package io.mdfanout.feed.handler;

import io.mdfanout.wire.Defaults;
import org.agrona.BitUtil;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/**
 * The command-line options of whatever writes the partition rings (the feed handler, a replay):
 * where the ring files are, how many partitions, and how large each ring is. A picocli mixin, so
 * every writer names and documents them the same way.
 */
public final class RingOptions
{
    @Option(names = "--ring-dir", defaultValue = Defaults.RING_DIR,
        description = "Directory of the partition ring files (partition-<n>.ring).")
    Path ringDir;

    @Option(names = "--partitions", defaultValue = Defaults.PARTITION_COUNT_STRING,
        description = "Number of partitions (one ring each).")
    int partitions;

    @Option(names = "--ring-capacity-bytes", defaultValue = "" + FeedHandlerConfig.DEFAULT_RING_CAPACITY,
        description = "Data capacity of each ring in bytes (power of two).")
    int ringCapacity;

    /** Directory of the ring files. */
    public Path ringDir()
    {
        return ringDir;
    }

    /** Number of partitions, one ring each. */
    public int partitions()
    {
        return partitions;
    }

    /** Data capacity of each ring in bytes. */
    public int ringCapacity()
    {
        return ringCapacity;
    }

    /**
     * Check the values, naming the option at fault.
     *
     * @throws IllegalArgumentException for a value out of range.
     */
    public void validate()
    {
        if (partitions < 1 || partitions > FeedHandlerConfig.MAX_PARTITIONS)
        {
            throw new IllegalArgumentException(
                "--partitions must be 1 to " + FeedHandlerConfig.MAX_PARTITIONS + ": " + partitions);
        }
        if (!BitUtil.isPowerOfTwo(ringCapacity) || ringCapacity < FeedHandlerConfig.MIN_RING_CAPACITY)
        {
            throw new IllegalArgumentException("--ring-capacity-bytes must be a power of two of at least " +
                FeedHandlerConfig.MIN_RING_CAPACITY + ": " + ringCapacity);
        }
    }
}
