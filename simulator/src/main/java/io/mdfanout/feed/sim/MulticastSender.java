package io.mdfanout.feed.sim;

import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

/**
 * Sends packets to a UDP multicast group through the interface that has a given IP address.
 * <p>
 * The channel is connected to the group so each send is a plain write from a pre-allocated direct buffer:
 * nothing is allocated per packet. A failed send is counted in {@link SimulatorCounters#sendErrors()} and
 * the packet dropped, as the exchange's own line would; the sender never throws on the send path.
 */
public final class MulticastSender implements PacketSink, AutoCloseable
{
    /** Requested socket send buffer: 4 MiB (the machine's wmem_max). */
    public static final int SEND_BUFFER_BYTES = 4 * 1024 * 1024;

    /**
     * Tries before a packet is given up when the socket's send buffer is full. The channel is non-blocking
     * because a blocking NIO write parks through a path that allocates; spinning briefly lets the kernel drain.
     */
    static final int MAX_SEND_ATTEMPTS = 1_000_000;

    private final DatagramChannel channel;
    private final ByteBuffer sendBuffer;
    private final SimulatorCounters counters;

    /**
     * Opens the sender.
     *
     * @param group            the IPv4 multicast group, e.g. 239.1.1.1.
     * @param port             the UDP port.
     * @param interfaceAddress the IP address of the interface to send through, e.g. 127.0.0.1.
     * @param ttl              the multicast TTL, 0..255.
     * @param maxPacketBytes   the largest packet that will be sent.
     * @param counters         bytes and errors are counted here.
     * @throws IllegalArgumentException for a bad group, port, interface or TTL.
     * @throws IOException              when the socket cannot be opened or configured.
     */
    public MulticastSender(
        final String group,
        final int port,
        final String interfaceAddress,
        final int ttl,
        final int maxPacketBytes,
        final SimulatorCounters counters) throws IOException
    {
        final InetAddress groupAddress = resolve(group, "group");
        if (!groupAddress.isMulticastAddress() || groupAddress.getAddress().length != 4)
        {
            throw new IllegalArgumentException("not an IPv4 multicast group: " + group);
        }
        if (port < 1 || port > 65_535)
        {
            throw new IllegalArgumentException("port must be 1..65535: " + port);
        }
        if (ttl < 0 || ttl > 255)
        {
            throw new IllegalArgumentException("ttl must be 0..255: " + ttl);
        }
        final NetworkInterface networkInterface = interfaceOf(interfaceAddress);

        this.counters = counters;
        sendBuffer = ByteBuffer.allocateDirect(maxPacketBytes);
        channel = DatagramChannel.open(StandardProtocolFamily.INET);
        try
        {
            channel.setOption(StandardSocketOptions.SO_SNDBUF, SEND_BUFFER_BYTES);
            channel.setOption(StandardSocketOptions.IP_MULTICAST_IF, networkInterface);
            channel.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, true);
            channel.setOption(StandardSocketOptions.IP_MULTICAST_TTL, ttl);
            channel.bind(new InetSocketAddress(resolve(interfaceAddress, "interface"), 0));
            channel.connect(new InetSocketAddress(groupAddress, port));
            channel.configureBlocking(false);
        }
        catch (final IOException | RuntimeException ex)
        {
            CloseHelper.quietClose(channel);
            throw ex;
        }
    }

    /**
     * Finds the network interface that has the given address.
     *
     * @param interfaceAddress an IP address of a local interface.
     * @return the interface.
     * @throws IllegalArgumentException when no local interface has it.
     */
    public static NetworkInterface interfaceOf(final String interfaceAddress)
    {
        final InetAddress address = resolve(interfaceAddress, "interface");
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

    /**
     * Sends one packet; on failure counts it in sendErrors and drops it.
     *
     * @param buffer holding the packet.
     * @param offset where it starts.
     * @param length its length.
     */
    public void onPacket(final DirectBuffer buffer, final int offset, final int length)
    {
        sendBuffer.clear();
        buffer.getBytes(offset, sendBuffer, 0, length);
        sendBuffer.limit(length);
        try
        {
            int attempts = 0;
            int written;
            while (0 == (written = channel.write(sendBuffer)) && ++attempts < MAX_SEND_ATTEMPTS)
            {
                Thread.onSpinWait();
            }
            if (written == length)
            {
                counters.bytesSent().getAndAddRelease(length);
            }
            else
            {
                counters.sendErrors().incrementRelease();
            }
        }
        catch (final IOException ex)
        {
            counters.sendErrors().incrementRelease();
        }
    }

    /**
     * Closes the socket.
     */
    public void close()
    {
        CloseHelper.quietClose(channel);
    }

    private static InetAddress resolve(final String address, final String what)
    {
        try
        {
            return InetAddress.getByName(address);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("bad " + what + " address: " + address);
        }
    }
}
