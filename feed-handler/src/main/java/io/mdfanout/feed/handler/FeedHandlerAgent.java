package io.mdfanout.feed.handler;

import io.mdfanout.feed.normalize.ItchNormalizer;
import io.mdfanout.feed.normalize.NormalizerCounters;
import org.agrona.CloseHelper;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

/**
 * The feed handler's duty cycle: receive MoldUDP64 datagrams from a multicast group and push them
 * through {@link MoldUdp64PacketProcessor} into the partition rings.
 * <p>
 * The socket is a non-blocking IPv4 {@link DatagramChannel} bound to the port with SO_REUSEADDR
 * and joined to the group on the configured interface; each duty cycle receives up to
 * {@link FeedHandlerConfig#datagramsPerPoll()} datagrams into one direct buffer, so the receive
 * path allocates nothing. Nothing escapes {@link #doWork()}: receive errors are counted.
 * <p>
 * The rings are given, not owned: whoever created them (the command, or a test) unmaps them.
 * The socket is opened by the constructor, so a wrong interface or port fails at construction,
 * and closed by {@link #onClose()}.
 */
public final class FeedHandlerAgent implements Agent
{
    /** Largest UDP payload. */
    public static final int MAX_DATAGRAM_LENGTH = 65535;

    private final FeedHandlerConfig config;
    private final FeedHandlerCounters counters;
    private final NormalizerCounters normalizerCounters;
    private final ItchNormalizer normalizer;
    private final MoldUdp64PacketProcessor processor;
    private final ByteBuffer receiveByteBuffer;
    private final UnsafeBuffer receiveBuffer;
    private final DatagramChannel channel;
    private final int grantedReceiveBufferBytes;

    /**
     * Create the agent and open its socket.
     *
     * @param config          validated here.
     * @param rings           one ring per partition ({@code config.partitions()} of them).
     * @param countersManager to allocate the counters from (freed on close).
     * @throws IllegalArgumentException for a wrong configuration.
     * @throws UncheckedIOException     when the socket cannot be opened, bound or joined.
     */
    public FeedHandlerAgent(
        final FeedHandlerConfig config, final RingBuffer[] rings, final CountersManager countersManager)
    {
        config.validate();
        if (rings.length != config.partitions())
        {
            throw new IllegalArgumentException(
                "config has " + config.partitions() + " partitions but " + rings.length + " rings were given");
        }
        this.config = config;
        counters = new FeedHandlerCounters(countersManager, "feed-handler");
        normalizerCounters = new NormalizerCounters(countersManager, "feed-handler", rings.length);
        normalizer = new ItchNormalizer(rings, config.idleStrategy().newIdleStrategy(), normalizerCounters);
        processor = new MoldUdp64PacketProcessor(config.session(), normalizer, counters);

        receiveByteBuffer = ByteBuffer.allocateDirect(MAX_DATAGRAM_LENGTH);
        receiveBuffer = new UnsafeBuffer(receiveByteBuffer);

        DatagramChannel channel = null;
        try
        {
            channel = DatagramChannel.open(StandardProtocolFamily.INET);
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            channel.setOption(StandardSocketOptions.SO_RCVBUF, config.receiveBufferBytes());
            channel.bind(new InetSocketAddress(config.port()));
            channel.join(config.groupAddress(), config.networkInterface());
            channel.configureBlocking(false);
            grantedReceiveBufferBytes = channel.getOption(StandardSocketOptions.SO_RCVBUF);
        }
        catch (final IOException ex)
        {
            CloseHelper.quietClose(channel);
            CloseHelper.quietCloseAll(normalizerCounters, counters);
            throw new UncheckedIOException(
                "cannot receive " + config.group() + ":" + config.port() + " on " + config.interfaceAddress() +
                ": " + ex.getMessage(), ex);
        }
        this.channel = channel;
    }

    /** {@inheritDoc} */
    public String roleName()
    {
        return "feed-handler";
    }

    /** {@inheritDoc} */
    public void onStart()
    {
        System.err.println("feed-handler: receiving " + config.group() + ":" + config.port() + " on " +
            config.interfaceAddress() + ", SO_RCVBUF requested " + config.receiveBufferBytes() + " granted " +
            grantedReceiveBufferBytes + " (Linux reports twice the usable size; raise net.core.rmem_max for more)");
    }

    /**
     * Receive and process up to {@code datagramsPerPoll} datagrams.
     *
     * @return the number of datagrams processed.
     */
    public int doWork()
    {
        final int limit = config.datagramsPerPoll();
        int workCount = 0;
        try
        {
            while (workCount < limit)
            {
                receiveByteBuffer.clear();
                if (null == channel.receive(receiveByteBuffer))
                {
                    break;
                }
                processor.onPacket(receiveBuffer, 0, receiveByteBuffer.position());
                workCount++;
            }
        }
        catch (final IOException ex)
        {
            counters.receiveErrors().incrementRelease();
        }
        return workCount;
    }

    /** Close the socket and free the counters; the rings stay mapped (their owner unmaps them). */
    public void onClose()
    {
        CloseHelper.quietClose(channel);
        CloseHelper.quietCloseAll(normalizerCounters, counters);
    }

    /** SO_RCVBUF as granted by the kernel. */
    public int grantedReceiveBufferBytes()
    {
        return grantedReceiveBufferBytes;
    }

    /** Packet, sequencing and socket counters. */
    public FeedHandlerCounters counters()
    {
        return counters;
    }

    /** Decode and ring-write counters. */
    public NormalizerCounters normalizerCounters()
    {
        return normalizerCounters;
    }

    /** The socket-free packet processor, for driving the agent without a network. */
    public MoldUdp64PacketProcessor processor()
    {
        return processor;
    }

    /** The configuration. */
    public FeedHandlerConfig config()
    {
        return config;
    }
}
