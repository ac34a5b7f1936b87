package io.mdfanout.feed.handler;

import io.mdfanout.affinity.CpuSelection;
import io.mdfanout.feed.moldudp.MulticastLine;
import io.mdfanout.feed.recovery.HoldBuffer;
import io.mdfanout.wire.Defaults;
import io.mdfanout.wire.IdleStrategyType;
import org.agrona.BitUtil;
import org.agrona.concurrent.IdleStrategy;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Configuration of a feed handler: where the MoldUDP64 feed arrives (line A, optionally line B),
 * how gaps are recovered and how the partition rings are laid out. Fluent setters with the command-line defaults;
 * {@link #validate()} checks everything and reports the first problem as a one-line {@link IllegalArgumentException}.
 */
public final class FeedHandlerConfig
{
    /** Default multicast group of the feed. */
    public static final String DEFAULT_GROUP = Defaults.FEED_GROUP;
    /** Default UDP port of the feed. */
    public static final int DEFAULT_PORT = Defaults.FEED_PORT;
    /** Default interface address the group is joined on. */
    public static final String DEFAULT_INTERFACE = Defaults.FEED_INTERFACE;
    /** Default ring directory. */
    public static final String DEFAULT_RING_DIR = Defaults.RING_DIR;
    /** Default partition count. */
    public static final int DEFAULT_PARTITIONS = Defaults.PARTITION_COUNT;
    /** Default ring data capacity in bytes. */
    public static final int DEFAULT_RING_CAPACITY = 8 * 1024 * 1024;
    /** Largest maximum park of the backoff idle strategy accepted: one second. */
    public static final long MAX_IDLE_MAX_PARK_NS = 1_000_000_000L;
    /** Default requested socket receive buffer of each line: {@link MulticastLine#DEFAULT_RECEIVE_BUFFER_BYTES}. */
    public static final int DEFAULT_RCVBUF_BYTES = MulticastLine.DEFAULT_RECEIVE_BUFFER_BYTES;
    /** Default datagrams processed per duty cycle. */
    public static final int DEFAULT_DATAGRAMS_PER_POLL = 16;
    /** Smallest ring capacity accepted: comfortably above the largest normalized message. */
    public static final int MIN_RING_CAPACITY = 4096;
    /** Largest partition count accepted. */
    public static final int MAX_PARTITIONS = 1024;
    /** Default wait for the other line before a gap is requested, in milliseconds. */
    public static final int DEFAULT_GAP_WAIT_MS = 5;
    /** Default timeout of a retransmission request, in milliseconds. */
    public static final int DEFAULT_RETRANSMIT_TIMEOUT_MS = 50;
    /**
     * Default recovery silence budget, in milliseconds: a gap nothing of which arrives for this long while the
     * re-request server is silent as long is declared (never while its fills are arriving).
     */
    public static final int DEFAULT_RECOVERY_SILENCE_BUDGET_MS = 5000;
    /** Default bound of outstanding retransmission requests. */
    public static final int DEFAULT_MAX_OUTSTANDING_REQUESTS = 16;
    /** Default rate limit of retransmission requests per second. */
    public static final int DEFAULT_MAX_REQUESTS_PER_SECOND = 2000;
    /** Default bound of messages held behind an open gap. */
    public static final int DEFAULT_MAX_HELD_MESSAGES = 1_000_000;
    /** Default silence after which a line is reported, in milliseconds. */
    public static final int DEFAULT_LINE_SILENCE_MS = 2000;
    /** Default longest wait for a full partition ring before the feed handler stalls and reads on, in ms. */
    public static final int DEFAULT_RING_FULL_WAIT_MS = 1000;

    private String group = DEFAULT_GROUP;
    private int port = DEFAULT_PORT;
    private String interfaceAddress = DEFAULT_INTERFACE;
    private String session;
    private Path ringDir = Paths.get(DEFAULT_RING_DIR);
    private int partitions = DEFAULT_PARTITIONS;
    private int ringCapacity = DEFAULT_RING_CAPACITY;
    private IdleStrategyType idleStrategy = IdleStrategyType.BACKOFF;
    private long idleMaxParkNs = IdleStrategyType.DEFAULT_MAX_PARK_NS;
    private CpuSelection cpus = CpuSelection.AUTO;
    private int receiveBufferBytes = DEFAULT_RCVBUF_BYTES;
    private int datagramsPerPoll = DEFAULT_DATAGRAMS_PER_POLL;
    private boolean stampReceiveTime;
    private String groupB;
    private int portB;
    private String interfaceAddressB;
    private String source;
    private String sourceB;
    private String retransmitServer;
    private int gapWaitMs = DEFAULT_GAP_WAIT_MS;
    private int retransmitTimeoutMs = DEFAULT_RETRANSMIT_TIMEOUT_MS;
    private int recoverySilenceBudgetMs = DEFAULT_RECOVERY_SILENCE_BUDGET_MS;
    private int maxOutstandingRequests = DEFAULT_MAX_OUTSTANDING_REQUESTS;
    private int maxRequestsPerSecond = DEFAULT_MAX_REQUESTS_PER_SECOND;
    private int maxHeldMessages = DEFAULT_MAX_HELD_MESSAGES;
    private int lineSilenceMs = DEFAULT_LINE_SILENCE_MS;
    private int ringFullWaitMs = DEFAULT_RING_FULL_WAIT_MS;

    /** Multicast group (IPv4) the feed is sent to. */
    public FeedHandlerConfig group(final String group)
    {
        this.group = group;
        return this;
    }

    /** Multicast group. */
    public String group()
    {
        return group;
    }

    /** UDP port of the feed. */
    public FeedHandlerConfig port(final int port)
    {
        this.port = port;
        return this;
    }

    /** UDP port. */
    public int port()
    {
        return port;
    }

    /** IPv4 address of the local interface to join the group on. */
    public FeedHandlerConfig interfaceAddress(final String interfaceAddress)
    {
        this.interfaceAddress = interfaceAddress;
        return this;
    }

    /** Interface address. */
    public String interfaceAddress()
    {
        return interfaceAddress;
    }

    /** MoldUDP64 session to accept, or null to adopt the first one seen. */
    public FeedHandlerConfig session(final String session)
    {
        this.session = session;
        return this;
    }

    /** Session, or null. */
    public String session()
    {
        return session;
    }

    /** Directory of the partition ring files. */
    public FeedHandlerConfig ringDir(final Path ringDir)
    {
        this.ringDir = ringDir;
        return this;
    }

    /** Ring directory. */
    public Path ringDir()
    {
        return ringDir;
    }

    /** Number of partitions (one ring each). */
    public FeedHandlerConfig partitions(final int partitions)
    {
        this.partitions = partitions;
        return this;
    }

    /** Partitions. */
    public int partitions()
    {
        return partitions;
    }

    /** Data capacity of each ring in bytes, a power of two. */
    public FeedHandlerConfig ringCapacity(final int ringCapacity)
    {
        this.ringCapacity = ringCapacity;
        return this;
    }

    /** Ring capacity. */
    public int ringCapacity()
    {
        return ringCapacity;
    }

    /** Idle strategy of the receive loop and of ring-full waits. */
    public FeedHandlerConfig idleStrategy(final IdleStrategyType idleStrategy)
    {
        this.idleStrategy = idleStrategy;
        return this;
    }

    /** Idle strategy. */
    public IdleStrategyType idleStrategy()
    {
        return idleStrategy;
    }

    /**
     * Longest park of the backoff idle strategy (receive loop and ring-full waits).
     *
     * @param idleMaxParkNs at least {@link IdleStrategyType#MIN_PARK_NS}.
     * @return this.
     */
    public FeedHandlerConfig idleMaxParkNs(final long idleMaxParkNs)
    {
        this.idleMaxParkNs = idleMaxParkNs;
        return this;
    }

    /** Longest park of the backoff idle strategy, in nanoseconds. */
    public long idleMaxParkNs()
    {
        return idleMaxParkNs;
    }

    /** A new idle strategy of the configured kind and maximum park (one per thread or wait loop). */
    public IdleStrategy newIdleStrategy()
    {
        return idleStrategy.newIdleStrategy(idleMaxParkNs);
    }

    /** SO_RCVBUF to request; the kernel may grant less (net.core.rmem_max). */
    public FeedHandlerConfig receiveBufferBytes(final int receiveBufferBytes)
    {
        this.receiveBufferBytes = receiveBufferBytes;
        return this;
    }

    /** Requested receive buffer. */
    public int receiveBufferBytes()
    {
        return receiveBufferBytes;
    }

    /**
     * @param stampReceiveTime benchmarking only: publish the datagram's receive time (ns since midnight
     *                         UTC) as each message's exchangeTimestamp, so latency is measured from the
     *                         feed handler's receive; it replaces the exchange's timestamp.
     * @return this for a fluent API.
     */
    public FeedHandlerConfig stampReceiveTime(final boolean stampReceiveTime)
    {
        this.stampReceiveTime = stampReceiveTime;
        return this;
    }

    /** @return whether messages carry the receive time instead of the exchange's timestamp. */
    public boolean stampReceiveTime()
    {
        return stampReceiveTime;
    }

    /** Datagrams processed at most per duty cycle, bounding the time between idle checks. */
    public FeedHandlerConfig datagramsPerPoll(final int datagramsPerPoll)
    {
        this.datagramsPerPoll = datagramsPerPoll;
        return this;
    }

    /** Datagrams per poll. */
    public int datagramsPerPoll()
    {
        return datagramsPerPoll;
    }

    /** Multicast group of line B, or null for a single line. */
    public FeedHandlerConfig groupB(final String groupB)
    {
        this.groupB = groupB;
        return this;
    }

    /** Line B group, or null. */
    public String groupB()
    {
        return groupB;
    }

    /** UDP port of line B. */
    public FeedHandlerConfig portB(final int portB)
    {
        this.portB = portB;
        return this;
    }

    /** Line B port. */
    public int portB()
    {
        return portB;
    }

    /** IPv4 address of the interface to join line B on, or null for the line A interface. */
    public FeedHandlerConfig interfaceAddressB(final String interfaceAddressB)
    {
        this.interfaceAddressB = interfaceAddressB;
        return this;
    }

    /** Line B interface address (the line A one when not set). */
    public String interfaceAddressB()
    {
        return null == interfaceAddressB ? interfaceAddress : interfaceAddressB;
    }

    /** True when line B is configured. */
    public boolean hasLineB()
    {
        return null != groupB;
    }

    /** MoldUDP64 re-request server as HOST:PORT, or null for none (gaps are declared after the gap wait). */
    public FeedHandlerConfig retransmitServer(final String retransmitServer)
    {
        this.retransmitServer = retransmitServer;
        return this;
    }

    /** Re-request server HOST:PORT, or null. */
    public String retransmitServer()
    {
        return retransmitServer;
    }

    /** How long a gap may wait for the other line before it is requested (or declared), in ms. */
    public FeedHandlerConfig gapWaitMs(final int gapWaitMs)
    {
        this.gapWaitMs = gapWaitMs;
        return this;
    }

    /** Gap wait in ms. */
    public int gapWaitMs()
    {
        return gapWaitMs;
    }

    /** How long a retransmission request may stay unanswered before it is retried, in ms. */
    public FeedHandlerConfig retransmitTimeoutMs(final int retransmitTimeoutMs)
    {
        this.retransmitTimeoutMs = retransmitTimeoutMs;
        return this;
    }

    /** Request timeout in ms. */
    public int retransmitTimeoutMs()
    {
        return retransmitTimeoutMs;
    }

    /** Silence of the re-request server and of a gap's fills after which the gap is declared, in milliseconds. */
    public FeedHandlerConfig recoverySilenceBudgetMs(final int recoverySilenceBudgetMs)
    {
        this.recoverySilenceBudgetMs = recoverySilenceBudgetMs;
        return this;
    }

    /** Recovery silence budget, in milliseconds. */
    public int recoverySilenceBudgetMs()
    {
        return recoverySilenceBudgetMs;
    }

    /** Most retransmission requests outstanding at once. */
    public FeedHandlerConfig maxOutstandingRequests(final int maxOutstandingRequests)
    {
        this.maxOutstandingRequests = maxOutstandingRequests;
        return this;
    }

    /** Outstanding request bound. */
    public int maxOutstandingRequests()
    {
        return maxOutstandingRequests;
    }

    /** Most retransmission requests sent per second (retries included). */
    public FeedHandlerConfig maxRequestsPerSecond(final int maxRequestsPerSecond)
    {
        this.maxRequestsPerSecond = maxRequestsPerSecond;
        return this;
    }

    /** Request rate limit. */
    public int maxRequestsPerSecond()
    {
        return maxRequestsPerSecond;
    }

    /**
     * Bound of the messages held behind an open gap; the hold spans this many sequences after the
     * next expected one (rounded up to a power of two, 64 bytes each, allocated at start). Beyond
     * it the oldest gap is declared.
     */
    public FeedHandlerConfig maxHeldMessages(final int maxHeldMessages)
    {
        this.maxHeldMessages = maxHeldMessages;
        return this;
    }

    /** Held message bound. */
    public int maxHeldMessages()
    {
        return maxHeldMessages;
    }

    /** A line with no packet (heartbeats count) for this long is reported silent, in ms. */
    public FeedHandlerConfig lineSilenceMs(final int lineSilenceMs)
    {
        this.lineSilenceMs = lineSilenceMs;
        return this;
    }

    /** Line silence threshold in ms. */
    public int lineSilenceMs()
    {
        return lineSilenceMs;
    }

    /**
     * A ring full for this long (nothing drains it: the fanout is down) stops the writes: the feed handler
     * reads on and requests (or declares) what it could not write once the rings drain.
     */
    public FeedHandlerConfig ringFullWaitMs(final int ringFullWaitMs)
    {
        this.ringFullWaitMs = ringFullWaitMs;
        return this;
    }

    /** Longest wait for a full ring, in ms. */
    public int ringFullWaitMs()
    {
        return ringFullWaitMs;
    }

    /** The re-request server as a resolved address, or null when none is configured. */
    public InetSocketAddress retransmitServerAddress()
    {
        if (null == retransmitServer)
        {
            return null;
        }
        final int colon = retransmitServer.lastIndexOf(':');
        if (colon < 1 || colon == retransmitServer.length() - 1)
        {
            throw new IllegalArgumentException("retransmit server must be HOST:PORT: " + retransmitServer);
        }
        final int serverPort;
        try
        {
            serverPort = Integer.parseInt(retransmitServer.substring(colon + 1));
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("retransmit server port is not a number: " + retransmitServer);
        }
        if (serverPort < 1 || serverPort > 65535)
        {
            throw new IllegalArgumentException("retransmit server port must be 1 to 65535: " + retransmitServer);
        }
        final InetAddress host = resolveIpv4("retransmit server", retransmitServer.substring(0, colon));
        return new InetSocketAddress(host, serverPort);
    }

    /**
     * @param source IPv4 address of the one sender to receive line A from (a source-specific join), or
     *               null to receive from any sender on the group.
     * @return this for a fluent API.
     */
    public FeedHandlerConfig source(final String source)
    {
        this.source = source;
        return this;
    }

    /** @return the only sender line A is received from, or null for any. */
    public String source()
    {
        return source;
    }

    /**
     * @param sourceB IPv4 address of the one sender to receive line B from, or null for any.
     * @return this for a fluent API.
     */
    public FeedHandlerConfig sourceB(final String sourceB)
    {
        this.sourceB = sourceB;
        return this;
    }

    /** @return the only sender line B is received from, or null for any. */
    public String sourceB()
    {
        return sourceB;
    }

    /** Line A's source as an address, or null; call {@link #validate()} first. */
    public InetAddress sourceAddress()
    {
        return null == source ? null : resolveIpv4("source", source);
    }

    /** Line B's source as an address, or null; call {@link #validate()} first. */
    public InetAddress sourceBAddress()
    {
        return null == sourceB ? null : resolveIpv4("line B source", sourceB);
    }

    /** The line B group as an address; call {@link #validate()} first. */
    public InetAddress groupBAddress()
    {
        return resolveIpv4("line B group", groupB);
    }

    /** The local interface that owns {@link #interfaceAddressB()}. */
    public NetworkInterface networkInterfaceB()
    {
        return lookUpInterface(interfaceAddressB());
    }

    /**
     * Check the configuration.
     *
     * @return this for a fluent API.
     * @throws IllegalArgumentException with a one-line explanation of the first problem found.
     */
    public FeedHandlerConfig validate()
    {
        final InetAddress groupAddress = resolveIpv4("group", group);
        if (!groupAddress.isMulticastAddress())
        {
            throw new IllegalArgumentException("group " + group + " is not a multicast address");
        }
        if (port < 1 || port > 65535)
        {
            throw new IllegalArgumentException("port must be 1 to 65535: " + port);
        }
        networkInterface();
        if (null != session)
        {
            LineArbiter.sessionBytes(session);
        }
        if (null == ringDir)
        {
            throw new IllegalArgumentException("ring directory is required");
        }
        if (partitions < 1 || partitions > MAX_PARTITIONS)
        {
            throw new IllegalArgumentException("partitions must be 1 to " + MAX_PARTITIONS + ": " + partitions);
        }
        if (!BitUtil.isPowerOfTwo(ringCapacity) || ringCapacity < MIN_RING_CAPACITY)
        {
            throw new IllegalArgumentException(
                "ring capacity must be a power of two of at least " + MIN_RING_CAPACITY + ": " + ringCapacity);
        }
        if (null == idleStrategy)
        {
            throw new IllegalArgumentException("idle strategy is required");
        }
        if (idleMaxParkNs < IdleStrategyType.MIN_PARK_NS || idleMaxParkNs > MAX_IDLE_MAX_PARK_NS)
        {
            throw new IllegalArgumentException("idle max park must be 1 us to 1 s: " + idleMaxParkNs + " ns");
        }
        if (receiveBufferBytes < 1)
        {
            throw new IllegalArgumentException("receive buffer must be positive: " + receiveBufferBytes);
        }
        if (datagramsPerPoll < 1)
        {
            throw new IllegalArgumentException("datagrams per poll must be positive: " + datagramsPerPoll);
        }
        if (null != groupB)
        {
            if (!groupBAddress().isMulticastAddress())
            {
                throw new IllegalArgumentException("line B group " + groupB + " is not a multicast address");
            }
            if (portB < 1 || portB > 65535)
            {
                throw new IllegalArgumentException("line B port must be 1 to 65535: " + portB);
            }
            if (groupB.equals(group) && portB == port)
            {
                throw new IllegalArgumentException("line B must differ from line A: " + groupB + ":" + portB);
            }
            networkInterfaceB();
        }
        else if (0 != portB || null != interfaceAddressB || null != sourceB)
        {
            throw new IllegalArgumentException("line B port, interface or source given without a line B group");
        }
        if (null != source && sourceAddress().isMulticastAddress())
        {
            throw new IllegalArgumentException("source " + source + " must be a sender's unicast address");
        }
        if (null != sourceB && sourceBAddress().isMulticastAddress())
        {
            throw new IllegalArgumentException("line B source " + sourceB + " must be a sender's unicast address");
        }
        retransmitServerAddress();
        requireAtLeast("gap wait ms", gapWaitMs, 0);
        requireAtLeast("retransmit timeout ms", retransmitTimeoutMs, 1);
        if (recoverySilenceBudgetMs < retransmitTimeoutMs)
        {
            throw new IllegalArgumentException("--recovery-silence-budget-ms (" + recoverySilenceBudgetMs +
                ") must be at least --retransmit-timeout-ms (" + retransmitTimeoutMs + "): a budget shorter than " +
                "one request's timeout would give up before the server could answer");
        }
        requireAtLeast("max outstanding requests", maxOutstandingRequests, 1);
        requireAtLeast("max requests per second", maxRequestsPerSecond, 1);
        requireAtLeast("line silence ms", lineSilenceMs, 1);
        requireAtLeast("ring full wait ms", ringFullWaitMs, 1);
        if (maxHeldMessages < 1 || maxHeldMessages > HoldBuffer.MAX_CAPACITY)
        {
            throw new IllegalArgumentException(
                "max held messages must be 1 to " + HoldBuffer.MAX_CAPACITY + ": " + maxHeldMessages);
        }
        return this;
    }

    /** The group as an address; call {@link #validate()} first. */
    public InetAddress groupAddress()
    {
        return resolveIpv4("group", group);
    }

    /**
     * The local interface that owns {@link #interfaceAddress()}.
     *
     * @throws IllegalArgumentException when no local interface has that address.
     */
    public NetworkInterface networkInterface()
    {
        return lookUpInterface(interfaceAddress);
    }

    private static void requireAtLeast(final String what, final int value, final int min)
    {
        if (value < min)
        {
            throw new IllegalArgumentException(what + " must be at least " + min + ": " + value);
        }
    }

    private static NetworkInterface lookUpInterface(final String interfaceAddress)
    {
        final InetAddress address = resolveIpv4("interface", interfaceAddress);
        try
        {
            final NetworkInterface networkInterface = NetworkInterface.getByInetAddress(address);
            if (null == networkInterface)
            {
                throw new IllegalArgumentException("no local network interface has address " + interfaceAddress);
            }
            return networkInterface;
        }
        catch (final SocketException ex)
        {
            throw new IllegalArgumentException("cannot look up interface " + interfaceAddress + ": " + ex.getMessage());
        }
    }

    private static InetAddress resolveIpv4(final String what, final String text)
    {
        if (null == text || text.isEmpty())
        {
            throw new IllegalArgumentException(what + " address is required");
        }
        try
        {
            final InetAddress address = InetAddress.getByName(text);
            if (!(address instanceof Inet4Address))
            {
                throw new IllegalArgumentException(what + " must be an IPv4 address: " + text);
            }
            return address;
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("cannot resolve " + what + " address: " + text);
        }
    }

    /** @return CPU pinning of the receive/decode thread: auto, none or a CPU list. */
    public CpuSelection cpus()
    {
        return cpus;
    }

    /**
     * @param cpus CPU pinning of the receive/decode thread: {@link CpuSelection#AUTO} (the default: pin it when the
     *             allowed set has 2 CPUs or more, leaving the first to the JVM, else run it unpinned with the
     *             backoff idle strategy), {@link CpuSelection#NONE} or an explicit list (its first CPU is used).
     * @return this.
     */
    public FeedHandlerConfig cpus(final CpuSelection cpus)
    {
        this.cpus = null == cpus ? CpuSelection.AUTO : cpus;
        return this;
    }

    /** {@inheritDoc} */
    public String toString()
    {
        return "group=" + group + ":" + port + " interface=" + interfaceAddress +
            " source=" + (null == source ? "any" : source) + (null == sourceB ? "" : " sourceB=" + sourceB) +
            " session=" + (null == session ? "(first seen)" : session) + " ringDir=" + ringDir +
            " partitions=" + partitions + " ringCapacity=" + ringCapacity + " idle=" + idleStrategy +
            (idleStrategy.parks() ? "(maxPark=" + idleMaxParkNs / 1000 + "us)" : "") + " cpus=" + cpus +
            " rcvbuf=" + receiveBufferBytes +
            (null == groupB ? " lineB=none" : " lineB=" + groupB + ":" + portB + " interfaceB=" + interfaceAddressB()) +
            " retransmitServer=" + (null == retransmitServer ? "none" : retransmitServer) +
            " gapWaitMs=" + gapWaitMs + " retransmitTimeoutMs=" + retransmitTimeoutMs +
            " silenceBudgetMs=" + recoverySilenceBudgetMs + " maxOutstanding=" + maxOutstandingRequests +
            " maxRequestsPerSecond=" + maxRequestsPerSecond + " maxHeld=" + maxHeldMessages +
            " lineSilenceMs=" + lineSilenceMs + " ringFullWaitMs=" + ringFullWaitMs;
    }
}
