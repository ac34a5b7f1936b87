package io.mdfanout.feed.handler;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

/** Sends test datagrams to a multicast group over the loopback interface. */
final class UdpSender implements AutoCloseable
{
    private final DatagramChannel channel;
    private final InetSocketAddress destination;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(65536);

    UdpSender(final String group, final int port) throws IOException
    {
        this(group, port, null);
    }

    /**
     * @param sourceAddress local address to send from (any 127.x.y.z is on loopback), or null for the default.
     */
    UdpSender(final String group, final int port, final String sourceAddress) throws IOException
    {
        channel = DatagramChannel.open(StandardProtocolFamily.INET);
        if (null != sourceAddress)
        {
            channel.bind(new InetSocketAddress(InetAddress.getByName(sourceAddress), 0));
        }
        channel.setOption(StandardSocketOptions.IP_MULTICAST_IF,
            NetworkInterface.getByInetAddress(InetAddress.getByName("127.0.0.1")));
        channel.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, true);
        destination = new InetSocketAddress(InetAddress.getByName(group), port);
    }

    void send(final byte[] datagram) throws IOException
    {
        buffer.clear();
        buffer.put(datagram).flip();
        channel.send(buffer, destination);
    }

    public void close() throws IOException
    {
        channel.close();
    }
}
