package io.mdfanout.feed.handler;

import org.agrona.BitUtil;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Configuration of a feed handler: where the MoldUDP64 feed arrives and how the partition rings
 * are laid out. Fluent setters with the command-line defaults; {@link #validate()} checks
 * everything and reports the first problem as a one-line {@link IllegalArgumentException}.
 */
public final class FeedHandlerConfig
{
    /** Default multicast group of the feed. */
    public static final String DEFAULT_GROUP = "239.1.1.1";
    /** Default UDP port of the feed. */
    public static final int DEFAULT_PORT = 26400;
    /** Default interface address the group is joined on. */
    public static final String DEFAULT_INTERFACE = "127.0.0.1";
    /** Default ring directory. */
    public static final String DEFAULT_RING_DIR = "/dev/shm/mdfanout/feed-1";
    /** Default partition count. */
    public static final int DEFAULT_PARTITIONS = 4;
    /** Default ring data capacity in bytes. */
    public static final int DEFAULT_RING_CAPACITY = 8 * 1024 * 1024;
    /** Default requested socket receive buffer. */
    public static final int DEFAULT_RCVBUF_BYTES = 4 * 1024 * 1024;
    /** Default datagrams processed per duty cycle. */
    public static final int DEFAULT_DATAGRAMS_PER_POLL = 16;
    /** Smallest ring capacity accepted: comfortably above the largest normalized message. */
    public static final int MIN_RING_CAPACITY = 4096;
    /** Largest partition count accepted. */
    public static final int MAX_PARTITIONS = 1024;

    private String group = DEFAULT_GROUP;
    private int port = DEFAULT_PORT;
    private String interfaceAddress = DEFAULT_INTERFACE;
    private String session;
    private Path ringDir = Paths.get(DEFAULT_RING_DIR);
    private int partitions = DEFAULT_PARTITIONS;
    private int ringCapacity = DEFAULT_RING_CAPACITY;
    private IdleStrategyChoice idleStrategy = IdleStrategyChoice.BACKOFF;
    private int receiveBufferBytes = DEFAULT_RCVBUF_BYTES;
    private int datagramsPerPoll = DEFAULT_DATAGRAMS_PER_POLL;

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
    public FeedHandlerConfig idleStrategy(final IdleStrategyChoice idleStrategy)
    {
        this.idleStrategy = idleStrategy;
        return this;
    }

    /** Idle strategy. */
    public IdleStrategyChoice idleStrategy()
    {
        return idleStrategy;
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
            MoldUdp64PacketProcessor.sessionBytes(session);
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
        if (receiveBufferBytes < 1)
        {
            throw new IllegalArgumentException("receive buffer must be positive: " + receiveBufferBytes);
        }
        if (datagramsPerPoll < 1)
        {
            throw new IllegalArgumentException("datagrams per poll must be positive: " + datagramsPerPoll);
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

    public String toString()
    {
        return "group=" + group + ":" + port + " interface=" + interfaceAddress +
            " session=" + (null == session ? "(first seen)" : session) + " ringDir=" + ringDir +
            " partitions=" + partitions + " ringCapacity=" + ringCapacity + " idle=" + idleStrategy +
            " rcvbuf=" + receiveBufferBytes;
    }
}
