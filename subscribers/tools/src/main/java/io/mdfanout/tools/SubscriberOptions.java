package io.mdfanout.tools;

import io.aeron.ChannelUri;
import io.aeron.CommonContext;
import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.metrics.MetricsOptions;
import io.mdfanout.wire.Defaults;
import io.mdfanout.wire.FeedStream;
import io.mdfanout.wire.RoleErrorLog;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Options every subscriber tool shares: where the feed is, which partitions to read, recovery and liveness. */
public final class SubscriberOptions
{
    @Option(names = "--channel", description = "Aeron channel the fanout publishes on.",
        defaultValue = Defaults.CHANNEL)
    String channel;

    @Option(names = "--stream-id-base", description = "Aeron stream id of partition 0 (partition p uses base + p).",
        defaultValue = Defaults.STREAM_ID_BASE_STRING)
    int streamIdBase;

    @Option(names = "--partitions", description = "Number of partitions the fanout publishes.",
        defaultValue = Defaults.PARTITION_COUNT_STRING)
    int partitionCount;

    @Option(names = "--partition", description = "Subscribe to this partition only (repeatable); default all.")
    List<Integer> partitions = new ArrayList<>();

    @Option(names = "--aeron-dir",
        description = "Aeron directory of an external media driver; absent = launch an embedded driver.")
    String aeronDir;

    @Option(names = "--advertise-interface",
        description = "Multi-destination-cast: put this network interface's IPv4 address into the channel's endpoint, " +
            "the address the fanout sends to (e.g. net1, the first Multus interface of a pod, whose address the " +
            "pod's status does not show); absent: the endpoint as given.")
    String advertiseInterface;

    @Option(names = "--snapshot-channel",
        description = "Aeron channel of the snapshot streams; absent = the same channel as the incrementals.")
    String snapshotChannel;

    @Option(names = "--snapshot-stream-id-base",
        description = "Aeron stream id of partition 0's snapshot stream; absent = --stream-id-base + 10000.")
    Integer snapshotStreamIdBase;

    @Option(names = "--pair-channel",
        description = "Side B of a pair: the Aeron channel of the feed's second side (a chain of its own). The " +
            "subscriber then arbitrates the two sides per partition by exchange sequence: the first copy wins, what " +
            "one side lacks is taken from the other. Absent: one fanout, on --channel.")
    String pairChannel;

    @Option(names = "--pair-stream-id-base",
        description = "Side B's stream id of partition 0; absent = --stream-id-base.")
    Integer pairStreamIdBase;

    @Option(names = "--pair-snapshot-channel",
        description = "Side B's snapshot channel; absent = --pair-channel.")
    String pairSnapshotChannel;

    @Option(names = "--arbitration-wait-ms", defaultValue = "20",
        description = "A pair: how long a message one side lacks waits for the other side before it is a gap.")
    long arbitrationWaitMs;

    @Option(names = "--no-recovery", defaultValue = "false",
        description = "Do not recover from snapshots: deliver every message as received, only report gaps.")
    boolean noRecovery;

    @Option(names = "--recovery-buffer-bytes", defaultValue = "16777216",
        description = "Bytes of incremental packets buffered per partition while recovering (64 KiB..1 GiB).")
    int recoveryBufferBytes;

    @Option(names = "--stream", defaultValue = "mbo", converter = FeedStreamConverter.class,
        description = "Which of the feed's streams: mbo (every order event, the default), bbo (top of book), mbp-10 " +
        "(ten levels a side), trades, ohlcv (1 s and 1 min bars); the derived ones are published when the fanout's " +
        "--derived-streams names them (docs/WIRE.md).")
    FeedStream stream = FeedStream.MBO;

    @Option(names = "--silent-timeout-ms", defaultValue = "2000",
        description = "Report a stream silent (and re-subscribe it) after this long without a packet or heartbeat.")
    long silentTimeoutMs;

    @Mixin
    MetricsOptions metrics = new MetricsOptions();

    @Mixin
    IdleOptions idle = new IdleOptions();

    @Mixin
    ReplayOptions replay = new ReplayOptions();

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
        if (silentTimeoutMs <= 0)
        {
            throw new IllegalArgumentException("--silent-timeout-ms must be positive: " + silentTimeoutMs);
        }
        if (null != pairChannel && !pairChannel.startsWith("aeron:"))
        {
            throw new IllegalArgumentException("--pair-channel is not an Aeron channel: " + pairChannel);
        }
        if (null == pairChannel && (null != pairStreamIdBase || null != pairSnapshotChannel))
        {
            throw new IllegalArgumentException("--pair-stream-id-base and --pair-snapshot-channel need --pair-channel");
        }
        if (arbitrationWaitMs < 0)
        {
            throw new IllegalArgumentException("--arbitration-wait-ms must not be negative: " + arbitrationWaitMs);
        }
        if (!noRecovery)
        {
            if (recoveryBufferBytes < FeedSubscriber.Context.MIN_RECOVERY_BUFFER_BYTES ||
                recoveryBufferBytes > FeedSubscriber.Context.MAX_RECOVERY_BUFFER_BYTES)
            {
                throw new IllegalArgumentException("--recovery-buffer-bytes must be " +
                    FeedSubscriber.Context.MIN_RECOVERY_BUFFER_BYTES + ".." + FeedSubscriber.Context.MAX_RECOVERY_BUFFER_BYTES +
                    ": " + recoveryBufferBytes);
            }
            if (null != snapshotChannel && !snapshotChannel.startsWith("aeron:"))
            {
                throw new IllegalArgumentException("--snapshot-channel is not an Aeron channel: " + snapshotChannel);
            }
            if (null != snapshotStreamIdBase && snapshotStreamIdBase < 0)
            {
                throw new IllegalArgumentException(
                    "--snapshot-stream-id-base must not be negative: " + snapshotStreamIdBase);
            }
        }
        metrics.validate();
        idle.validate();
        replay.validate();
        if (null != advertiseInterface)
        {
            final String address = ipv4AddressOf(advertiseInterface);
            channel = withEndpointHost(channel, address, "--channel");
            if (null != pairChannel)
            {
                pairChannel = withEndpointHost(pairChannel, address, "--pair-channel");
            }
            if (null != snapshotChannel)
            {
                snapshotChannel = withEndpointHost(snapshotChannel, address, "--snapshot-channel");
            }
        }
        final int[] resolved = resolvePartitionList();
        feedSubscriberContext().partitions(resolved).validate();
        return resolved;
    }

    /**
     * The SDK's settings these command-line options describe: the channel and stream id base, recovery and
     * liveness; the partitions, the Aeron client and the listener are the caller's to set.
     *
     * @return a new context.
     */
    public FeedSubscriber.Context feedSubscriberContext()
    {
        return replay.applyTo(new FeedSubscriber.Context())
            .channel(channel)
            .streamIdBase(streamIdBase)
            .stream(stream)
            .partitionCount(partitionCount)
            .recoveryEnabled(recoveryEnabled())
            .snapshotChannel(snapshotChannel)
            .snapshotStreamIdBase(null != snapshotStreamIdBase ?
                snapshotStreamIdBase : FeedSubscriber.Context.DEFAULT_SNAPSHOT_STREAM_ID_BASE)
            .recoveryBufferBytes(recoveryBufferBytes)
            .silentTimeoutNs(TimeUnit.MILLISECONDS.toNanos(silentTimeoutMs))
            .pairChannel(pairChannel)
            .pairStreamIdBase(null != pairStreamIdBase ? pairStreamIdBase : FeedSubscriber.Context.SAME_AS_SIDE_A)
            .pairSnapshotChannel(pairSnapshotChannel)
            .arbitrationWaitNs(TimeUnit.MILLISECONDS.toNanos(arbitrationWaitMs));
    }

    /** @return the stream subscribed to (--stream). */
    public FeedStream stream()
    {
        return stream;
    }

    /** Reads --stream, naming the streams there are when the name is none of them. */
    static final class FeedStreamConverter implements CommandLine.ITypeConverter<FeedStream>
    {
        public FeedStream convert(final String value)
        {
            try
            {
                return FeedStream.fromName(value);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new CommandLine.TypeConversionException(ex.getMessage());
            }
        }
    }

    /** @return whether the tool replays from the archive (--from). */
    public boolean replays()
    {
        return null != replay.from;
    }

    /** @return whether the tool replays only, with no live stream (--replay-only). */
    public boolean replayOnly()
    {
        return replay.replayOnly;
    }

    /** @return whether the subscriber recovers from snapshots (no {@code --no-recovery}, no {@code --replay-only}). */
    public boolean recoveryEnabled()
    {
        // A replay-only run has no live stream to take snapshots from: a hole in the archive is a reported gap.
        return !noRecovery && !(null != replay.from && replay.replayOnly);
    }

    /** The first IPv4 address of a network interface, or a one-line error naming the interfaces there are. */
    static String ipv4AddressOf(final String interfaceName)
    {
        try
        {
            final NetworkInterface networkInterface = NetworkInterface.getByName(interfaceName);
            if (null == networkInterface)
            {
                final List<String> names = new ArrayList<>();
                for (final NetworkInterface each : Collections.list(NetworkInterface.getNetworkInterfaces()))
                {
                    names.add(each.getName());
                }
                throw new IllegalArgumentException(
                    "--advertise-interface " + interfaceName + ": no such interface here (there are " + names + ")");
            }
            for (final InetAddress address : Collections.list(networkInterface.getInetAddresses()))
            {
                if (address instanceof Inet4Address)
                {
                    return address.getHostAddress();
                }
            }
            throw new IllegalArgumentException("--advertise-interface " + interfaceName + " has no IPv4 address");
        }
        catch (final SocketException ex)
        {
            throw new IllegalArgumentException("--advertise-interface " + interfaceName + ": " + ex.getMessage(), ex);
        }
    }

    /** The channel with its endpoint's host replaced, its port kept; a channel without an endpoint is refused. */
    static String withEndpointHost(final String channel, final String host, final String option)
    {
        final ChannelUri uri = ChannelUri.parse(channel);
        final String endpoint = uri.get(CommonContext.ENDPOINT_PARAM_NAME);
        if (null == endpoint || endpoint.lastIndexOf(':') < 0)
        {
            throw new IllegalArgumentException(
                "--advertise-interface needs an endpoint host:port in " + option + ": " + channel);
        }
        uri.put(CommonContext.ENDPOINT_PARAM_NAME, host + endpoint.substring(endpoint.lastIndexOf(':')));
        return uri.toString();
    }

    private int[] resolvePartitionList()
    {
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

    /** @return where to serve Prometheus metrics. */
    public MetricsOptions metrics()
    {
        return metrics;
    }

    /**
     * Where a tool's unexpected errors (a listener that threw) go: the error log every role has, in
     * {@code java.io.tmpdir} (a tool owns no directory), and one line on stderr for each.
     *
     * @param tool the tool's name, e.g. {@code tail}.
     * @return the error handler for the subscriber.
     */
    public RoleErrorLog errorLog(final String tool)
    {
        return RoleErrorLog.open(
            RoleErrorLog.tempDirectory(), tool, (throwable) -> System.err.println(tool + ": error: " + throwable));
    }

    /** @return idle strategy of the poll thread and the embedded media driver. */
    public IdleOptions idle()
    {
        return idle;
    }

    /** @return directory of an external media driver, or null for an embedded one. */
    public String aeronDir()
    {
        return aeronDir;
    }
}
