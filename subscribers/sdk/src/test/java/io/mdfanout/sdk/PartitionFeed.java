package io.mdfanout.sdk;

import org.agrona.CloseHelper;

/**
 * One partition's two streams as a fanout publishes them, incrementals and snapshots (on the default
 * snapshot stream ids), on a channel and stream id base of the test's own.
 */
final class PartitionFeed implements AutoCloseable
{
    final String channel;
    final int streamIdBase;
    final StreamPublisher incremental;
    final StreamPublisher snapshots;

    PartitionFeed(final TestMedia media, final String channel, final int streamIdBase, final int partition)
    {
        this.channel = channel;
        this.streamIdBase = streamIdBase;
        this.incremental = media.incremental(channel, streamIdBase, partition);
        try
        {
            this.snapshots = media.snapshots(channel, streamIdBase, partition);
        }
        catch (final RuntimeException ex)
        {
            incremental.close();
            throw ex;
        }
    }

    public void close()
    {
        CloseHelper.closeAll(snapshots, incremental);
    }
}
