package io.mdfanout.tools;

import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.wire.Partitioning;

import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/**
 * Says so when a live subscriber tool's partitions have no publisher (no fanout on the channel, or none reaching
 * this host), rather than printing zero rates with no reason: one line once a partition has been without a
 * connected publisher for {@link #FIRST_WARNING_NS}, then again every {@link #REPEAT_NS} while it lasts,
 * {@code <tool>: no publisher on <channel> stream <ids> after <n> s}. Looked at once a second, off the messages.
 */
final class PublisherWatch
{
    /** How long partitions may be without a publisher before the first line: a fanout's start, a late join. */
    static final long FIRST_WARNING_NS = TimeUnit.SECONDS.toNanos(5);
    /** How often the line is repeated while no publisher comes. */
    static final long REPEAT_NS = TimeUnit.SECONDS.toNanos(30);
    private static final long CHECK_INTERVAL_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long NONE = Long.MIN_VALUE;

    private final String tool;
    private final String channel;
    private final int streamIdBase;
    private final FeedSubscriber subscriber;
    private final int[] partitions;
    private final PrintStream err;
    private long nextCheckNs;
    private long missingSinceNs;
    private long nextWarningNs;
    private int missing;

    PublisherWatch(
        final String tool,
        final String channel,
        final int streamIdBase,
        final FeedSubscriber subscriber,
        final PrintStream err,
        final long nowNs)
    {
        this.tool = tool;
        this.channel = channel;
        this.streamIdBase = streamIdBase;
        this.subscriber = subscriber;
        this.partitions = subscriber.partitions();
        this.err = err;
        this.missingSinceNs = nowNs;
        this.nextWarningNs = nowNs + FIRST_WARNING_NS;
        this.nextCheckNs = nowNs;
    }

    /**
     * Look at the partitions' publishers, at most once a second, and say so when they have been missing long enough.
     *
     * @param nowNs {@link System#nanoTime()}.
     */
    void check(final long nowNs)
    {
        if (nowNs < nextCheckNs)
        {
            return;
        }
        nextCheckNs = nowNs + CHECK_INTERVAL_NS;
        int count = 0;
        for (final int partition : partitions)
        {
            if (!subscriber.isConnected(partition))
            {
                count++;
            }
        }
        if (0 == count)
        {
            missing = 0;
            missingSinceNs = NONE;
            return;
        }
        if (NONE == missingSinceNs)
        {
            // Connected before: the time counts from the loss of the publisher.
            missingSinceNs = nowNs;
            nextWarningNs = nowNs + FIRST_WARNING_NS;
        }
        missing = count;
        if (nowNs >= nextWarningNs)
        {
            nextWarningNs = nowNs + REPEAT_NS;
            err.println(line(nowNs));
        }
    }

    /** @return how many subscribed partitions had no connected publisher when last looked at. */
    int missing()
    {
        return missing;
    }

    String line(final long nowNs)
    {
        final StringBuilder streams = new StringBuilder();
        for (final int partition : partitions)
        {
            if (!subscriber.isConnected(partition))
            {
                streams.append(0 == streams.length() ? "" : ",").append(Partitioning.streamId(streamIdBase, partition));
            }
        }
        return tool + ": no publisher on " + channel + " stream " + streams + " after " +
            TimeUnit.NANOSECONDS.toSeconds(nowNs - missingSinceNs) + " s (is the fanout running, on this channel and " +
            "stream id base, and does its traffic reach this host?)";
    }
}
