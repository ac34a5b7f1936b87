package io.mdfanout.tools;

import io.mdfanout.sdk.FeedSubscriber;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;

/** Options every subscriber tool shares: where the feed is and which partitions to read. */
public final class SubscriberOptions
{
    @Option(names = "--channel", description = "Aeron channel the fanout publishes on.",
        defaultValue = "aeron:udp?endpoint=224.0.1.1:40456|interface=127.0.0.1|mtu=8192")
    String channel;

    @Option(names = "--stream-id-base", description = "Aeron stream id of partition 0 (partition p uses base + p).",
        defaultValue = "1000")
    int streamIdBase;

    @Option(names = "--partitions", description = "Number of partitions the fanout publishes.", defaultValue = "4")
    int partitionCount;

    @Option(names = "--partition", description = "Subscribe to this partition only (repeatable); default all.")
    List<Integer> partitions = new ArrayList<>();

    @Option(names = "--aeron-dir",
        description = "Aeron directory of an external media driver; absent = launch an embedded driver.")
    String aeronDir;

    /**
     * The partitions to subscribe to, checked against the partition count.
     *
     * @return the partitions.
     * @throws IllegalArgumentException with a one-line message when the options are inconsistent.
     */
    public int[] resolvePartitions()
    {
        if (partitionCount <= 0)
        {
            throw new IllegalArgumentException("--partitions must be positive: " + partitionCount);
        }
        if (streamIdBase < 0)
        {
            throw new IllegalArgumentException("--stream-id-base must not be negative: " + streamIdBase);
        }
        if (null == channel || !channel.startsWith("aeron:"))
        {
            throw new IllegalArgumentException("--channel is not an Aeron channel: " + channel);
        }
        if (partitions.isEmpty())
        {
            return FeedSubscriber.allPartitions(partitionCount);
        }
        final int[] result = partitions.stream().mapToInt(Integer::intValue).distinct().toArray();
        for (final int partition : result)
        {
            if (partition < 0 || partition >= partitionCount)
            {
                throw new IllegalArgumentException(
                    "--partition " + partition + " is outside 0.." + (partitionCount - 1) + " (--partitions " +
                    partitionCount + ")");
            }
        }
        return result;
    }

    /** @return the Aeron channel. */
    public String channel()
    {
        return channel;
    }

    /** @return the stream id of partition 0. */
    public int streamIdBase()
    {
        return streamIdBase;
    }

    /** @return the external driver's directory, or null for an embedded driver. */
    public String aeronDir()
    {
        return aeronDir;
    }
}
