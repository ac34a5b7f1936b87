package io.mdfanout.sdk;

import io.mdfanout.wire.Partitioning;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

import java.util.concurrent.TimeUnit;

/**
 * Recovery and liveness settings of a {@link FeedSubscriber}. Defaults: recovery on, snapshots on
 * the incremental channel at {@link Partitioning#defaultSnapshotStreamIdBase(int)}, a 16 MiB
 * recovery buffer per partition, streams silent after 2 s, silent streams re-subscribed.
 * Fluent setters; {@link #validate(String, int, int[])} is called by the subscriber.
 */
public final class FeedSubscriberOptions
{
    /** Default bytes of incremental packets buffered per partition while recovering. */
    public static final int DEFAULT_RECOVERY_BUFFER_BYTES = 16 * 1024 * 1024;
    /** Smallest recovery buffer accepted: it must hold the largest Aeron message. */
    public static final int MIN_RECOVERY_BUFFER_BYTES = 64 * 1024;
    /** Largest recovery buffer accepted. */
    public static final int MAX_RECOVERY_BUFFER_BYTES = 1024 * 1024 * 1024;
    /** Default time without a packet or heartbeat after which a joined stream is reported silent. */
    public static final long DEFAULT_SILENT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(2);
    /** Marks the snapshot stream id base as "derive from the incremental stream id base". */
    public static final int DEFAULT_SNAPSHOT_STREAM_ID_BASE = Integer.MIN_VALUE;

    private String snapshotChannel;
    private int snapshotStreamIdBase = DEFAULT_SNAPSHOT_STREAM_ID_BASE;
    private boolean recoveryEnabled = true;
    private int recoveryBufferBytes = DEFAULT_RECOVERY_BUFFER_BYTES;
    private long silentTimeoutNs = DEFAULT_SILENT_TIMEOUT_NS;
    private boolean resubscribeOnSilence = true;
    private NanoClock nanoClock = SystemNanoClock.INSTANCE;
    private DeliveryLatencyRecorder deliveryLatencyRecorder;

    /**
     * Channel of the snapshot streams.
     *
     * @param channel an Aeron channel, or null for the incremental channel.
     * @return this.
     */
    public FeedSubscriberOptions snapshotChannel(final String channel)
    {
        this.snapshotChannel = channel;
        return this;
    }

    /** @return the snapshot channel, or null for the incremental channel. */
    public String snapshotChannel()
    {
        return snapshotChannel;
    }

    /**
     * Stream id of partition 0's snapshot stream (partition p uses base + p).
     *
     * @param streamIdBase the base, or {@link #DEFAULT_SNAPSHOT_STREAM_ID_BASE}.
     * @return this.
     */
    public FeedSubscriberOptions snapshotStreamIdBase(final int streamIdBase)
    {
        this.snapshotStreamIdBase = streamIdBase;
        return this;
    }

    /** @return the snapshot stream id base, or {@link #DEFAULT_SNAPSHOT_STREAM_ID_BASE}. */
    public int snapshotStreamIdBase()
    {
        return snapshotStreamIdBase;
    }

    /**
     * Whether late joins, gaps and restarts are recovered from the snapshot stream. Off: every
     * message is delivered as received and gaps are only reported.
     *
     * @param enabled true to recover.
     * @return this.
     */
    public FeedSubscriberOptions recoveryEnabled(final boolean enabled)
    {
        this.recoveryEnabled = enabled;
        return this;
    }

    /** @return whether recovery is on. */
    public boolean recoveryEnabled()
    {
        return recoveryEnabled;
    }

    /**
     * Bytes of incremental packets buffered per partition while waiting for and applying a
     * snapshot. Allocated once, on the partition's first recovery.
     *
     * @param bytes between {@link #MIN_RECOVERY_BUFFER_BYTES} and {@link #MAX_RECOVERY_BUFFER_BYTES}.
     * @return this.
     */
    public FeedSubscriberOptions recoveryBufferBytes(final int bytes)
    {
        this.recoveryBufferBytes = bytes;
        return this;
    }

    /** @return the recovery buffer size per partition. */
    public int recoveryBufferBytes()
    {
        return recoveryBufferBytes;
    }

    /**
     * Time without a packet or heartbeat after which a joined stream is reported silent.
     *
     * @param timeoutNs positive nanoseconds.
     * @return this.
     */
    public FeedSubscriberOptions silentTimeoutNs(final long timeoutNs)
    {
        this.silentTimeoutNs = timeoutNs;
        return this;
    }

    /** @return the silent timeout in nanoseconds. */
    public long silentTimeoutNs()
    {
        return silentTimeoutNs;
    }

    /**
     * Whether a silent stream's subscription is closed and added again, so that a stuck image is
     * dropped and the stream re-joined at its live position.
     *
     * @param resubscribe true to re-subscribe.
     * @return this.
     */
    public FeedSubscriberOptions resubscribeOnSilence(final boolean resubscribe)
    {
        this.resubscribeOnSilence = resubscribe;
        return this;
    }

    /** @return whether silent streams are re-subscribed. */
    public boolean resubscribeOnSilence()
    {
        return resubscribeOnSilence;
    }

    /**
     * Clock for liveness and stale durations, read once per poll.
     *
     * @param clock the clock.
     * @return this.
     */
    public FeedSubscriberOptions nanoClock(final NanoClock clock)
    {
        this.nanoClock = clock;
        return this;
    }

    /**
     * Where to record, per live incremental packet, the time from the fanout's send to delivery
     * (for a latency histogram); null (the default) records nothing.
     *
     * @param recorder the recorder, or null.
     * @return this.
     */
    public FeedSubscriberOptions deliveryLatencyRecorder(final DeliveryLatencyRecorder recorder)
    {
        this.deliveryLatencyRecorder = recorder;
        return this;
    }

    /** @return the delivery latency recorder, or null. */
    public DeliveryLatencyRecorder deliveryLatencyRecorder()
    {
        return deliveryLatencyRecorder;
    }

    /** @return the clock for liveness and staleness timing. */
    public NanoClock nanoClock()
    {
        return nanoClock;
    }

    /**
     * The snapshot channel in effect.
     *
     * @param channel the incremental channel.
     * @return the snapshot channel.
     */
    public String resolveSnapshotChannel(final String channel)
    {
        return null != snapshotChannel ? snapshotChannel : channel;
    }

    /**
     * The snapshot stream id base in effect.
     *
     * @param streamIdBase the incremental stream id base.
     * @return the snapshot stream id base.
     */
    public int resolveSnapshotStreamIdBase(final int streamIdBase)
    {
        return DEFAULT_SNAPSHOT_STREAM_ID_BASE != snapshotStreamIdBase ?
            snapshotStreamIdBase : Partitioning.defaultSnapshotStreamIdBase(streamIdBase);
    }

    /**
     * Check the options against the incremental streams they go with.
     *
     * @param channel the incremental channel.
     * @param streamIdBase the incremental stream id base.
     * @param partitions the partitions subscribed.
     * @throws IllegalArgumentException with a one-line message naming the bad setting.
     */
    public void validate(final String channel, final int streamIdBase, final int[] partitions)
    {
        if (null == nanoClock)
        {
            throw new IllegalArgumentException("nanoClock is required");
        }
        if (silentTimeoutNs <= 0)
        {
            throw new IllegalArgumentException("silent timeout must be positive: " + silentTimeoutNs + " ns");
        }
        if (!recoveryEnabled)
        {
            return;
        }
        if (recoveryBufferBytes < MIN_RECOVERY_BUFFER_BYTES || recoveryBufferBytes > MAX_RECOVERY_BUFFER_BYTES)
        {
            throw new IllegalArgumentException("recovery buffer must be " + MIN_RECOVERY_BUFFER_BYTES + ".." +
                MAX_RECOVERY_BUFFER_BYTES + " bytes: " + recoveryBufferBytes);
        }
        final String resolvedChannel = resolveSnapshotChannel(channel);
        if (!resolvedChannel.startsWith("aeron:"))
        {
            throw new IllegalArgumentException("snapshot channel is not an Aeron channel: " + resolvedChannel);
        }
        final int snapshotBase = resolveSnapshotStreamIdBase(streamIdBase);
        if (snapshotBase < 0)
        {
            throw new IllegalArgumentException("snapshot stream id base must not be negative: " + snapshotBase);
        }
        if (resolvedChannel.equals(channel))
        {
            for (final int snapshotPartition : partitions)
            {
                for (final int partition : partitions)
                {
                    if (Partitioning.snapshotStreamId(snapshotBase, snapshotPartition) ==
                        Partitioning.streamId(streamIdBase, partition))
                    {
                        throw new IllegalArgumentException("snapshot stream id " +
                            Partitioning.snapshotStreamId(snapshotBase, snapshotPartition) +
                            " (partition " + snapshotPartition + ") is also the incremental stream of partition " +
                            partition + " on the same channel");
                    }
                }
            }
        }
    }
}
