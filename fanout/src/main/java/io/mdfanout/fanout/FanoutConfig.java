package io.mdfanout.fanout;

import io.aeron.ChannelUri;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.LogBufferDescriptor;
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
    public static final String DEFAULT_RING_DIRECTORY = "/dev/shm/mdfanout/feed-1";
    /** Default number of partitions. */
    public static final int DEFAULT_PARTITION_COUNT = 4;
    /** Default publication channel: multicast on the loopback interface, one 8 KiB frame per packet. */
    public static final String DEFAULT_CHANNEL = "aeron:udp?endpoint=224.0.1.1:40456|interface=127.0.0.1|mtu=8192";
    /** Default stream id of partition 0. */
    public static final int DEFAULT_STREAM_ID_BASE = 1000;
    /** Default heartbeat interval. */
    public static final long DEFAULT_HEARTBEAT_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(250);
    /** Default publication term length. */
    public static final int DEFAULT_TERM_LENGTH = 16 * 1024 * 1024;
    /** Default time to wait for the feed handler to create the ring files. */
    public static final long DEFAULT_RING_WAIT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);
    /** Default most ring records a publisher consumes per duty cycle. */
    public static final int DEFAULT_RING_READ_LIMIT = 1024;
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
    private long heartbeatIntervalNs = DEFAULT_HEARTBEAT_INTERVAL_NS;
    private int termLength = DEFAULT_TERM_LENGTH;
    private long ringWaitTimeoutNs = DEFAULT_RING_WAIT_TIMEOUT_NS;
    private int ringReadLimit = DEFAULT_RING_READ_LIMIT;
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
        require(driverThreadingMode != ThreadingMode.INVOKER, "driver threading 'invoker' is not supported");
        require(threading != null, "threading is not set");
        require(idleStrategy != null, "idle strategy is not set");
        require(heartbeatIntervalNs > 0, "heartbeat interval must be positive, not " + heartbeatIntervalNs + "ns");
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
            " idle=" + idleStrategy.cliName() +
            " heartbeatMs=" + TimeUnit.NANOSECONDS.toMillis(heartbeatIntervalNs) +
            " termLength=" + termLength;
    }
}
