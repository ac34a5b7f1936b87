package io.mdfanout.feed.moldudp;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MulticastLineTest
{
    private static final int PORT = 26411;

    @Test
    void receivesTheGroupsDatagramsOnLoopbackWithTheBufferAskedForNonBlocking() throws Exception
    {
        final InetAddress group = InetAddress.getByName("239.5.5.11");
        final NetworkInterface loopback = NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress());
        try (DatagramChannel line = MulticastLine.open(group, PORT, loopback, null, 1024 * 1024);
            DatagramChannel sender = sender(loopback))
        {
            assertFalse(line.isBlocking());
            // Linux doubles what is asked for (its bookkeeping), capped at rmem_max: never less than asked where allowed.
            assertTrue(line.getOption(StandardSocketOptions.SO_RCVBUF) >= Math.min(1024 * 1024, rmemMax()),
                "SO_RCVBUF " + line.getOption(StandardSocketOptions.SO_RCVBUF));
            sender.send(ByteBuffer.wrap("line A".getBytes(StandardCharsets.US_ASCII)), new InetSocketAddress(group, PORT));
            assertEquals("line A", receive(line));
        }
    }

    @Test
    void aSourceSpecificLineTakesOnlyItsSourcesDatagrams() throws Exception
    {
        final InetAddress group = InetAddress.getByName("232.5.5.12");
        final NetworkInterface loopback = NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress());
        try (DatagramChannel fromOther = MulticastLine.open(
            group, PORT + 1, loopback, InetAddress.getByName("127.0.0.2"), MulticastLine.DEFAULT_RECEIVE_BUFFER_BYTES);
            DatagramChannel fromLoopback = MulticastLine.open(
                group, PORT + 1, loopback, InetAddress.getByName("127.0.0.1"), MulticastLine.DEFAULT_RECEIVE_BUFFER_BYTES);
            DatagramChannel sender = sender(loopback))
        {
            sender.send(ByteBuffer.wrap("from 127.0.0.1".getBytes(StandardCharsets.US_ASCII)),
                new InetSocketAddress(group, PORT + 1));
            assertEquals("from 127.0.0.1", receive(fromLoopback));
            assertNull(fromOther.receive(ByteBuffer.allocate(64)), "another source's datagram");
        }
    }

    @Test
    void anAddressThatIsNoGroupIsRefusedAndLeavesNothingBound() throws Exception
    {
        final NetworkInterface loopback = NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress());
        final InetAddress notAGroup = InetAddress.getByName("127.0.0.1");
        assertThrows(IllegalArgumentException.class, () -> MulticastLine.open(notAGroup, PORT + 2, loopback, null, 65536));
        // Closed on the way out: the port binds again without SO_REUSEADDR.
        try (DatagramChannel again = DatagramChannel.open(StandardProtocolFamily.INET))
        {
            again.bind(new InetSocketAddress(notAGroup, PORT + 2));
        }
    }

    private static DatagramChannel sender(final NetworkInterface loopback) throws IOException
    {
        final DatagramChannel sender = DatagramChannel.open(StandardProtocolFamily.INET);
        sender.setOption(StandardSocketOptions.IP_MULTICAST_IF, loopback);
        sender.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
        return sender;
    }

    private static String receive(final DatagramChannel line) throws Exception
    {
        final ByteBuffer buffer = ByteBuffer.allocate(64);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (null == line.receive(buffer))
        {
            assertTrue(System.nanoTime() < deadline, "nothing received in 5 s");
            Thread.sleep(1);
        }
        buffer.flip();
        return StandardCharsets.US_ASCII.decode(buffer).toString();
    }

    private static int rmemMax() throws IOException
    {
        return Integer.parseInt(java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/net/core/rmem_max")).trim());
    }
}
