package io.mdfanout.feed.moldudp;

import org.agrona.CloseHelper;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;

/**
 * Receiving one MoldUDP64 multicast line: the socket every receiver of the exchange's datagrams opens the same way
 * (the feed handler's lines A and B, the benchmarks' raw Aeron relay), so that what one measures the other receives.
 */
public final class MulticastLine
{
    /**
     * Socket receive buffer asked for by default: 32 MiB. An exchange does not wait for its receivers, so the socket
     * buffer is all that holds the feed while a receiver is held up (the feed handler's ring full behind a slow fanout,
     * a core shared with busier threads). At a few million messages a second on shared cores, 4 MiB overflowed often
     * enough that gaps were declared; 32 MiB overflowed little enough that re-requests filled every gap (the figures:
     * docs/OPERATIONS.md). The kernel caps it at net.core.rmem_max.
     */
    public static final int DEFAULT_RECEIVE_BUFFER_BYTES = 32 * 1024 * 1024;

    private MulticastLine()
    {
    }

    /**
     * Open, bind and join one line, non-blocking. With a source the join is source-specific (IGMPv3): the kernel
     * delivers only that sender's datagrams, so another sender on the same group and port (another feed, a test, a
     * misconfigured replay) can neither interleave its packets with the feed's nor end its session.
     *
     * @param group              the multicast group.
     * @param port               its port.
     * @param networkInterface   the interface to join on.
     * @param source             the only sender to take datagrams from, or null for any.
     * @param receiveBufferBytes SO_RCVBUF asked for.
     * @return the joined channel; the caller closes it.
     * @throws IOException              when it cannot be opened, bound or joined (nothing is left open then).
     * @throws IllegalArgumentException when the group is no multicast address (nothing is left open then).
     */
    public static DatagramChannel open(
        final InetAddress group,
        final int port,
        final NetworkInterface networkInterface,
        final InetAddress source,
        final int receiveBufferBytes) throws IOException
    {
        final DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET);
        try
        {
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            channel.setOption(StandardSocketOptions.SO_RCVBUF, receiveBufferBytes);
            channel.bind(new InetSocketAddress(group, port));
            if (null == source)
            {
                channel.join(group, networkInterface);
            }
            else
            {
                channel.join(group, networkInterface, source);
            }
            channel.configureBlocking(false);
            return channel;
        }
        catch (final IOException | RuntimeException ex)
        {
            CloseHelper.quietClose(channel);
            throw ex;
        }
    }
}
