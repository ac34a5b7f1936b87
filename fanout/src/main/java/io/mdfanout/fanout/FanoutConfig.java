package io.mdfanout.fanout;

import io.aeron.ChannelUri;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.LogBufferDescriptor;
import io.mdfanout.affinity.CpuSelection;
import io.mdfanout.fanout.state.StateLayout;
import io.mdfanout.wire.FeedStream;
import io.mdfanout.wire.Defaults;
import io.mdfanout.wire.IdleStrategyType;
import io.mdfanout.wire.Partitioning;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.status.CountersManager;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Everything a {@link Fanout} needs, with the defaults of the {@code fanout} command. Fluent
 * setters in the style of Aeron's contexts; {@link #validate()} checks the whole and says what is
 * wrong in one line.
 */
public final class FanoutConfig
{
    /** Default directory holding the partition ring files. */
    public static final String DEFAULT_RING_DIRECTORY = Defaults.RING_DIR;
    /** Default number of partitions. */
    public static final int DEFAULT_PARTITION_COUNT = Defaults.PARTITION_COUNT;
    /** Default publication channel: multicast on the loopback interface, one 8 KiB frame per packet. */
    public static final String DEFAULT_CHANNEL = Defaults.CHANNEL;
    /** Default stream id of partition 0. */
    public static final int DEFAULT_STREAM_ID_BASE = Defaults.STREAM_ID_BASE;
    /** Default heartbeat interval. */
    public static final long DEFAULT_HEARTBEAT_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(250);
    /**
     * Default age of the feed handler's heartbeat in the ring header after which the fanout reports its
     * source down ({@link SourceMonitor}). With the default heartbeat interval it is well inside the
     * subscribers' default silent timeout ({@link #SUBSCRIBER_SILENT_TIMEOUT_NS}), so a dead feed handler is
     * known to the subscribers as soon as a dead fanout would be.
     */
    public static final long DEFAULT_SOURCE_TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(SourceMonitor.DEFAULT_SOURCE_TIMEOUT_MS);
    /**
     * The SDK's default silent timeout (FeedSubscriber.Context.DEFAULT_SILENT_TIMEOUT_NS, repeated here: the
     * fanout does not depend on the SDK). A source timeout plus heartbeat interval at or above it means a
     * subscriber learns of a dead feed handler later than of a dead fanout: the command warns.
     */
    public static final long SUBSCRIBER_SILENT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(2);
    /** Default publication term length. */
    public static final int DEFAULT_TERM_LENGTH = 16 * 1024 * 1024;
    /** Default time to wait for the feed handler to create the ring files. */
    public static final long DEFAULT_RING_WAIT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);
    /** Default most ring records a publisher consumes per duty cycle. */
    public static final int DEFAULT_RING_READ_LIMIT = 1024;
    /** Name of the default state directory inside the ring directory. */
    public static final String DEFAULT_STATE_DIRECTORY_NAME = "fanout-state";
    /** Default live orders the state of one partition holds. */
    public static final int DEFAULT_MAX_ORDERS = 1_048_576;
    /** Default time between snapshot starts. */
    public static final long DEFAULT_SNAPSHOT_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(1000);
    /** Default bytes of whole instruments a snapshot captures per duty cycle. */
    public static final int DEFAULT_SNAPSHOT_BYTES_PER_CYCLE = 65536;
    /** Marks "not set" for the snapshot stream id base: the default base is derived from the stream id base. */
    public static final int SNAPSHOT_STREAM_ID_BASE_DEFAULT = Integer.MIN_VALUE;
    /** Largest maximum park of the idle strategies accepted: one second. */
    public static final long MAX_IDLE_MAX_PARK_NS = TimeUnit.SECONDS.toNanos(1);
    /** Socket send and receive buffer of the embedded driver. */
    public static final int EMBEDDED_DRIVER_SOCKET_BUFFER_LENGTH = 2 * 1024 * 1024;
    /** Initial receiver window of the embedded driver. */
    public static final int EMBEDDED_DRIVER_RECEIVER_WINDOW_LENGTH = 2 * 1024 * 1024;

    private Path ringDirectory = Path.of(DEFAULT_RING_DIRECTORY);
    private int partitionCount = DEFAULT_PARTITION_COUNT;
    private String channel = DEFAULT_CHANNEL;
    private int streamIdBase = DEFAULT_STREAM_ID_BASE;
    private String aeronDirectoryName;
    private ThreadingMode driverThreadingMode = ThreadingMode.SHARED;
    private FanoutThreading threading = FanoutThreading.SHARED;
    private IdleStrategyType idleStrategy = IdleStrategyType.BACKOFF;
    private long idleMaxParkNs = IdleStrategyType.DEFAULT_MAX_PARK_NS;
    private long heartbeatIntervalNs = DEFAULT_HEARTBEAT_INTERVAL_NS;
    private long sourceTimeoutNs = DEFAULT_SOURCE_TIMEOUT_NS;
    private int termLength = DEFAULT_TERM_LENGTH;
    private long ringWaitTimeoutNs = DEFAULT_RING_WAIT_TIMEOUT_NS;
    private int ringReadLimit = DEFAULT_RING_READ_LIMIT;
    private Path stateDirectory;
    private int maxOrders = DEFAULT_MAX_ORDERS;
    private boolean statePretouch = true;
    private long snapshotIntervalNs = DEFAULT_SNAPSHOT_INTERVAL_NS;
    private boolean stateUpkeep = true;
    private String snapshotChannel;
    private int snapshotStreamIdBase = SNAPSHOT_STREAM_ID_BASE_DEFAULT;
    private int snapshotBytesPerCycle = DEFAULT_SNAPSHOT_BYTES_PER_CYCLE;
    private FeedStream[] derivedStreams = new FeedStream[0];
    private int derivedTermLength;
    private CpuSelection cpus = CpuSelection.AUTO;
    private CountersManager countersManager;
    private ErrorHandler errorHandler;

    /**
     * Check the configuration as a whole.
     *
     * @return this.
     * @throws IllegalArgumentException with a one-line description of the first problem.
     */
    public FanoutConfig validate()
    {
        require(ringDirectory != null, "ring directory is not set");
        require(partitionCount >= 1 && partitionCount <= 0xFFFF, "partitions must be 1..65535, not " + partitionCount);
        require(channel != null && !channel.isBlank(), "channel is not set");
        try
        {
            ChannelUri.parse(channel);
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalArgumentException("invalid channel '" + channel + "': " + ex.getMessage(), ex);
        }
        require(
            (long)streamIdBase + partitionCount - 1 <= Integer.MAX_VALUE,
            "stream id base " + streamIdBase + " + partitions overflows an int stream id");
        require(driverThreadingMode != ThreadingMode.INVOKER || threading == FanoutThreading.SHARED,
            "--driver-threading invoker needs --threading shared: the one publisher thread runs the driver");
        require(driverThreadingMode != ThreadingMode.INVOKER || null == aeronDirectoryName,
            "--driver-threading invoker is for the embedded driver: not with --aeron-dir");
        require(threading != null, "threading is not set");
        require(idleStrategy != null, "idle strategy is not set");
        require(idleMaxParkNs >= IdleStrategyType.MIN_PARK_NS && idleMaxParkNs <= MAX_IDLE_MAX_PARK_NS,
            "idle max park must be 1 us to 1 s, not " + idleMaxParkNs + "ns");
        require(cpus != null, "cpus is not set");
        require(heartbeatIntervalNs > 0, "heartbeat interval must be positive, not " + heartbeatIntervalNs + "ns");
        require(sourceTimeoutNs >= TimeUnit.MILLISECONDS.toNanos(SourceMonitor.MIN_SOURCE_TIMEOUT_MS) &&
            sourceTimeoutNs <= TimeUnit.MILLISECONDS.toNanos(SourceMonitor.MAX_SOURCE_TIMEOUT_MS),
            "--source-timeout-ms must be " + SourceMonitor.MIN_SOURCE_TIMEOUT_MS + ".." +
            SourceMonitor.MAX_SOURCE_TIMEOUT_MS + " (at least twice the feed handler's " +
            SourceMonitor.PRODUCER_HEARTBEAT_INTERVAL_MS + " ms heartbeat), not " +
            TimeUnit.NANOSECONDS.toMillis(sourceTimeoutNs));
        try
        {
            LogBufferDescriptor.checkTermLength(termLength);
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalArgumentException("invalid term length " + termLength + ": " + ex.getMessage(), ex);
        }
        require(ringWaitTimeoutNs >= 0, "ring wait timeout must not be negative");
        require(ringReadLimit > 0, "ring read limit must be positive, not " + ringReadLimit);
        require(maxOrders >= 1 && maxOrders <= StateLayout.MAX_ORDERS_LIMIT,
            "--max-orders must be 1.." + StateLayout.MAX_ORDERS_LIMIT + ", not " + maxOrders);
        require(snapshotIntervalNs >= 0, "--snapshot-interval-ms must not be negative");
        require(snapshotBytesPerCycle > 0, "--snapshot-bytes-per-cycle must be positive, not " + snapshotBytesPerCycle);
        require(null != derivedStreams, "derived streams are not set");
        for (int i = 0; i < derivedStreams.length; i++)
        {
            require(null != derivedStreams[i] && derivedStreams[i].isDerived(),
                "--derived-streams takes derived streams only (" + derivedStreamNames() + "), not " + derivedStreams[i]);
            for (int j = 0; j < i; j++)
            {
                require(derivedStreams[i] != derivedStreams[j],
                    "--derived-streams names " + derivedStreams[i].streamName() + " twice");
            }
        }
        if (derivedStreams.length > 0)
        {
            require(partitionCount <= FeedStream.MAX_PARTITIONS, "--derived-streams needs at most " +
                FeedStream.MAX_PARTITIONS + " partitions (a stream's ids are " + FeedStream.MAX_PARTITIONS +
                " apart), not " + partitionCount);
            require((long)streamIdBase + FeedStream.BARS.streamIdOffset() + partitionCount - 1 <= Integer.MAX_VALUE,
                "stream id base " + streamIdBase + " + the derived streams' offsets overflows an int stream id");
            require(stateUpkeep, "--derived-streams needs the partitions' state (their snapshots are taken with it)");
        }
        if (0 != derivedTermLength)
        {
            try
            {
                LogBufferDescriptor.checkTermLength(derivedTermLength);
            }
            catch (final RuntimeException ex)
            {
                throw new IllegalArgumentException(
                    "invalid --derived-term-length-bytes " + derivedTermLength + ": " + ex.getMessage(), ex);
            }
        }
        if (null != snapshotChannel)
        {
            require(!snapshotChannel.isBlank(), "--snapshot-channel is blank");
            try
            {
                ChannelUri.parse(snapshotChannel);
            }
            catch (final RuntimeException ex)
            {
                throw new IllegalArgumentException(
                    "invalid --snapshot-channel '" + snapshotChannel + "': " + ex.getMessage(), ex);
            }
        }
        final long snapshotBase = resolvedSnapshotStreamIdBase();
        require(snapshotBase + partitionCount - 1 <= Integer.MAX_VALUE,
            "snapshot stream id base " + snapshotBase + " + partitions overflows an int stream id");
        require(!resolvedSnapshotChannel().equals(channel) ||
            snapshotBase >= (long)streamIdBase + partitionCount || snapshotBase + partitionCount <= streamIdBase,
            "snapshot stream ids " + snapshotBase + ".." + (snapshotBase + partitionCount - 1) +
            " overlap the incremental stream ids " + streamIdBase + ".." + ((long)streamIdBase + partitionCount - 1) +
            " on the same channel: change --snapshot-stream-id-base or --snapshot-channel");
        return this;
    }

    private static void require(final boolean condition, final String message)
    {
        if (!condition)
        {
            throw new IllegalArgumentException(message);
        }
    }

    /** @return directory holding {@code partition-<n>.ring} files. */
    public Path ringDirectory()
    {
        return ringDirectory;
    }

    /**
     * @param ringDirectory directory holding {@code partition-<n>.ring} files (the feed handler's --ring-dir).
     * @return this.
     */
    public FanoutConfig ringDirectory(final Path ringDirectory)
    {
        this.ringDirectory = ringDirectory;
        return this;
    }

    /** @return number of partitions (rings and streams). */
    public int partitionCount()
    {
        return partitionCount;
    }

    /**
     * @param partitionCount number of partitions; must match the feed handler's.
     * @return this.
     */
    public FanoutConfig partitionCount(final int partitionCount)
    {
        this.partitionCount = partitionCount;
        return this;
    }

    /** @return Aeron channel all partition streams are published on. */
    public String channel()
    {
        return channel;
    }

    /**
     * @param channel Aeron channel all partition streams are published on; a term-length in the URI wins over
     *                {@link #termLength(int)}.
     * @return this.
     */
    public FanoutConfig channel(final String channel)
    {
        this.channel = channel;
        return this;
    }

    /** @return stream id of partition 0; partition p uses base + p. */
    public int streamIdBase()
    {
        return streamIdBase;
    }

    /**
     * @param streamIdBase stream id of partition 0; partition p uses base + p.
     * @return this.
     */
    public FanoutConfig streamIdBase(final int streamIdBase)
    {
        this.streamIdBase = streamIdBase;
        return this;
    }

    /** @return directory of an external media driver, or null for an embedded one. */
    public String aeronDirectoryName()
    {
        return aeronDirectoryName;
    }

    /**
     * @param aeronDirectoryName directory of an external media driver, or null to launch an embedded one.
     * @return this.
     */
    public FanoutConfig aeronDirectoryName(final String aeronDirectoryName)
    {
        this.aeronDirectoryName = aeronDirectoryName;
        return this;
    }

    /** @return threading mode of the embedded media driver. */
    public ThreadingMode driverThreadingMode()
    {
        return driverThreadingMode;
    }

    /**
     * @param driverThreadingMode threading mode of the embedded media driver (SHARED, SHARED_NETWORK, DEDICATED).
     * @return this.
     */
    public FanoutConfig driverThreadingMode(final ThreadingMode driverThreadingMode)
    {
        this.driverThreadingMode = driverThreadingMode;
        return this;
    }

    /** @return how publishers map onto threads. */
    public FanoutThreading threading()
    {
        return threading;
    }

    /**
     * @param threading how publishers map onto threads.
     * @return this.
     */
    public FanoutConfig threading(final FanoutThreading threading)
    {
        this.threading = threading;
        return this;
    }

    /** @return idle strategy of the publisher threads. */
    public IdleStrategyType idleStrategy()
    {
        return idleStrategy;
    }

    /**
     * @param idleStrategy idle strategy of the publisher threads.
     * @return this.
     */
    public FanoutConfig idleStrategy(final IdleStrategyType idleStrategy)
    {
        this.idleStrategy = idleStrategy;
        return this;
    }

    /** @return longest park of the backoff idle strategy (the park of sleep), publishers and embedded driver. */
    public long idleMaxParkNs()
    {
        return idleMaxParkNs;
    }

    /**
     * @param idleMaxParkNs longest park of the backoff idle strategy (the park of sleep) of the publisher threads
     *                      and the embedded driver's threads, 1 us to 1 s.
     * @return this.
     */
    public FanoutConfig idleMaxParkNs(final long idleMaxParkNs)
    {
        this.idleMaxParkNs = idleMaxParkNs;
        return this;
    }

    /** @return idle time after which a stream sends a heartbeat, in nanoseconds. */
    public long heartbeatIntervalNs()
    {
        return heartbeatIntervalNs;
    }

    /**
     * @param heartbeatIntervalNs idle time after which a stream sends a heartbeat, in nanoseconds.
     * @return this.
     */
    public FanoutConfig heartbeatIntervalNs(final long heartbeatIntervalNs)
    {
        this.heartbeatIntervalNs = heartbeatIntervalNs;
        return this;
    }

    /** @return age of the feed handler's heartbeat after which its source is reported down, in nanoseconds. */
    public long sourceTimeoutNs()
    {
        return sourceTimeoutNs;
    }

    /**
     * @param sourceTimeoutNs age of the feed handler's heartbeat in the ring header after which the fanout's
     *                        heartbeats and metrics say its source is down, 200 ms to 60 s.
     *                        Keep it plus the heartbeat interval well under the subscribers' silent timeout.
     * @return this.
     */
    public FanoutConfig sourceTimeoutNs(final long sourceTimeoutNs)
    {
        this.sourceTimeoutNs = sourceTimeoutNs;
        return this;
    }

    /**
     * @return true when a subscriber with the SDK's default silent timeout would learn of a dead feed handler
     * (source timeout, then a heartbeat) no sooner than of a dead fanout.
     */
    public boolean sourceTimeoutReachesSilentTimeout()
    {
        return sourceTimeoutNs + heartbeatIntervalNs >= SUBSCRIBER_SILENT_TIMEOUT_NS;
    }

    /** @return publication term length in bytes. */
    public int termLength()
    {
        return termLength;
    }

    /**
     * @param termLength publication term length in bytes (a power of two, 64 KiB to 1 GiB).
     * @return this.
     */
    public FanoutConfig termLength(final int termLength)
    {
        this.termLength = termLength;
        return this;
    }

    /** @return how long to wait for the ring files to appear, in nanoseconds. */
    public long ringWaitTimeoutNs()
    {
        return ringWaitTimeoutNs;
    }

    /**
     * @param ringWaitTimeoutNs how long to wait for the feed handler to create the ring files, in nanoseconds.
     * @return this.
     */
    public FanoutConfig ringWaitTimeoutNs(final long ringWaitTimeoutNs)
    {
        this.ringWaitTimeoutNs = ringWaitTimeoutNs;
        return this;
    }

    /** @return most ring records a publisher consumes per duty cycle. */
    public int ringReadLimit()
    {
        return ringReadLimit;
    }

    /**
     * @param ringReadLimit most ring records a publisher consumes per duty cycle.
     * @return this.
     */
    public FanoutConfig ringReadLimit(final int ringReadLimit)
    {
        this.ringReadLimit = ringReadLimit;
        return this;
    }

    /** @return directory of the partition state files, or null for {@code <ring-dir>/fanout-state}. */
    public Path stateDirectory()
    {
        return stateDirectory;
    }

    /**
     * @param stateDirectory directory of the partition state files; null for {@code <ring-dir>/fanout-state}.
     * @return this.
     */
    public FanoutConfig stateDirectory(final Path stateDirectory)
    {
        this.stateDirectory = stateDirectory;
        return this;
    }

    /** @return the state directory in effect: the configured one or {@code <ring-dir>/fanout-state}. */
    public Path resolvedStateDirectory()
    {
        return null != stateDirectory ? stateDirectory : ringDirectory.resolve(DEFAULT_STATE_DIRECTORY_NAME);
    }

    /** @return live orders the state of one partition holds. */
    public int maxOrders()
    {
        return maxOrders;
    }

    /** @return whether every page of the state files is touched at start (see {@link #statePretouch(boolean)}). */
    public boolean statePretouch()
    {
        return statePretouch;
    }

    /**
     * @param statePretouch touch every page of the state files at start, so that no page fault stalls
     *                      the message path later; the files then take their full size in memory.
     * @return this for a fluent API.
     */
    public FanoutConfig statePretouch(final boolean statePretouch)
    {
        this.statePretouch = statePretouch;
        return this;
    }

    /**
     * @param maxOrders live orders the state of one partition holds; must match existing state files.
     * @return this.
     */
    public FanoutConfig maxOrders(final int maxOrders)
    {
        this.maxOrders = maxOrders;
        return this;
    }

    /** @return time between snapshot starts in nanoseconds; 0 = no snapshots. */
    public long snapshotIntervalNs()
    {
        return snapshotIntervalNs;
    }

    /**
     * @param snapshotIntervalNs time between snapshot starts in nanoseconds; 0 disables snapshots.
     * @return this.
     */
    public FanoutConfig snapshotIntervalNs(final long snapshotIntervalNs)
    {
        this.snapshotIntervalNs = snapshotIntervalNs;
        return this;
    }

    /** @return whether each published message is applied to its partition's state (always, but in benchmarks). */
    public boolean stateUpkeep()
    {
        return stateUpkeep;
    }

    /**
     * Benchmark-only: with false, no message is applied to the partitions' states and no snapshot is published, so
     * that a benchmark measures what the state upkeep costs the chain (the most any cheaper upkeep could win). The
     * state files are still opened and locked as always.
     *
     * @param stateUpkeep false to publish without keeping state.
     * @return this.
     */
    public FanoutConfig stateUpkeep(final boolean stateUpkeep)
    {
        this.stateUpkeep = stateUpkeep;
        return this;
    }

    /** @return the derived streams this fanout publishes besides the MBO stream (docs/WIRE.md); none by default. */
    public FeedStream[] derivedStreams()
    {
        return derivedStreams.clone();
    }

    /**
     * @param streams the derived streams to publish (BBO, DEPTH, TRADES, BARS), each on streams of its own.
     * @return this.
     */
    public FanoutConfig derivedStreams(final FeedStream... streams)
    {
        this.derivedStreams = null == streams ? null : streams.clone();
        return this;
    }

    /** @return the term length of the derived streams' publications: {@link #termLength()} unless set. */
    public int derivedTermLength()
    {
        return 0 != derivedTermLength ? derivedTermLength : termLength;
    }

    /**
     * @param termLength the derived streams' publication term length (a power of two, 64 KiB to 1 GiB); 0 for the
     *                   MBO stream's. Each derived stream of each partition has a publication and a snapshot
     *                   publication of three terms in shared memory.
     * @return this.
     */
    public FanoutConfig derivedTermLength(final int termLength)
    {
        this.derivedTermLength = termLength;
        return this;
    }

    /** @return the names of the derived streams there are. */
    public static String derivedStreamNames()
    {
        final StringBuilder names = new StringBuilder();
        for (final FeedStream stream : FeedStream.values())
        {
            if (stream.isDerived())
            {
                names.append(names.length() > 0 ? ", " : "").append(stream.streamName());
            }
        }
        return names.toString();
    }

    /** @return channel of the snapshot streams, or null for the incremental channel. */
    public String snapshotChannel()
    {
        return snapshotChannel;
    }

    /**
     * @param snapshotChannel channel of the snapshot streams; null for the same channel as the incrementals.
     * @return this.
     */
    public FanoutConfig snapshotChannel(final String snapshotChannel)
    {
        this.snapshotChannel = snapshotChannel;
        return this;
    }

    /** @return the snapshot channel in effect. */
    public String resolvedSnapshotChannel()
    {
        return null != snapshotChannel ? snapshotChannel : channel;
    }

    /** @return stream id of partition 0's snapshot stream, or {@link #SNAPSHOT_STREAM_ID_BASE_DEFAULT}. */
    public int snapshotStreamIdBase()
    {
        return snapshotStreamIdBase;
    }

    /**
     * @param snapshotStreamIdBase stream id of partition 0's snapshot stream; {@link #SNAPSHOT_STREAM_ID_BASE_DEFAULT}
     *                             for {@code Partitioning.defaultSnapshotStreamIdBase(streamIdBase)}.
     * @return this.
     */
    public FanoutConfig snapshotStreamIdBase(final int snapshotStreamIdBase)
    {
        this.snapshotStreamIdBase = snapshotStreamIdBase;
        return this;
    }

    /** @return the snapshot stream id base in effect. */
    public long resolvedSnapshotStreamIdBase()
    {
        return SNAPSHOT_STREAM_ID_BASE_DEFAULT != snapshotStreamIdBase ? snapshotStreamIdBase :
            (long)streamIdBase + Partitioning.DEFAULT_SNAPSHOT_STREAM_ID_OFFSET;
    }

    /** @return bytes of whole instruments a snapshot captures per duty cycle. */
    public int snapshotBytesPerCycle()
    {
        return snapshotBytesPerCycle;
    }

    /**
     * @param snapshotBytesPerCycle bytes of whole instruments a snapshot captures per duty cycle (an instrument
     *                              larger than this still goes whole).
     * @return this.
     */
    public FanoutConfig snapshotBytesPerCycle(final int snapshotBytesPerCycle)
    {
        this.snapshotBytesPerCycle = snapshotBytesPerCycle;
        return this;
    }

    /** @return CPU pinning of the busy threads (publishers, embedded driver): auto, none or a CPU list. */
    public CpuSelection cpus()
    {
        return cpus;
    }

    /**
     * @param cpus CPU pinning of the busy threads: {@link CpuSelection#AUTO} (the default: pin when the allowed set
     *             has a CPU per busy thread plus one, else run shared, backing-off threads unpinned),
     *             {@link CpuSelection#NONE} or an explicit list. See {@link Fanout#planAffinity(FanoutConfig)}.
     * @return this.
     */
    public FanoutConfig cpus(final CpuSelection cpus)
    {
        this.cpus = cpus;
        return this;
    }

    /** @return counters manager to allocate from, or null to let the fanout create its own. */
    public CountersManager countersManager()
    {
        return countersManager;
    }

    /**
     * @param countersManager counters manager to allocate the fanout's counters from (e.g. one an exporter reads),
     *                        or null to let the fanout create its own.
     * @return this.
     */
    public FanoutConfig countersManager(final CountersManager countersManager)
    {
        this.countersManager = countersManager;
        return this;
    }

    /** @return error handler for agent and driver errors, or null for the default (one line on stderr). */
    public ErrorHandler errorHandler()
    {
        return errorHandler;
    }

    /**
     * @param errorHandler error handler for agent, client and driver errors; null for one line on stderr.
     * @return this.
     */
    public FanoutConfig errorHandler(final ErrorHandler errorHandler)
    {
        this.errorHandler = errorHandler;
        return this;
    }

    /** {@inheritDoc} */
    public String toString()
    {
        return "ringDir=" + ringDirectory +
            " partitions=" + partitionCount +
            " channel=" + channel +
            " streamIdBase=" + streamIdBase +
            " aeronDir=" + (aeronDirectoryName == null ? "(embedded driver)" : aeronDirectoryName) +
            " driverThreading=" + EnumNames.cliName(driverThreadingMode) +
            " threading=" + threading.cliName() +
            " idle=" + idleStrategy.cliName() + "(maxPark=" + idleMaxParkNs / 1000 + "us)" +
            " cpus=" + cpus +
            " heartbeatMs=" + TimeUnit.NANOSECONDS.toMillis(heartbeatIntervalNs) +
            " sourceTimeoutMs=" + TimeUnit.NANOSECONDS.toMillis(sourceTimeoutNs) +
            " termLength=" + termLength +
            " stateDir=" + resolvedStateDirectory() +
            " maxOrders=" + maxOrders +
            " statePretouch=" + statePretouch +
            " snapshotIntervalMs=" + TimeUnit.NANOSECONDS.toMillis(snapshotIntervalNs) +
            " snapshotChannel=" + resolvedSnapshotChannel() +
            " snapshotStreamIdBase=" + resolvedSnapshotStreamIdBase() +
            " snapshotBytesPerCycle=" + snapshotBytesPerCycle +
            " derivedStreams=" + derivedStreamList() +
            (derivedStreams.length > 0 ? " derivedTermLength=" + derivedTermLength() : "");
    }

    private String derivedStreamList()
    {
        final StringBuilder list = new StringBuilder();
        for (final FeedStream stream : derivedStreams)
        {
            list.append(list.length() > 0 ? "," : "").append(stream.streamName());
        }
        return list.length() > 0 ? list.toString() : "none";
    }
}
