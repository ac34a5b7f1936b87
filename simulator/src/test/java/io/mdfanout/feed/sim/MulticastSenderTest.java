package io.mdfanout.feed.sim;

import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real UDP multicast send on the loopback interface, received by a plain DatagramChannel joined to the group.
 */
class MulticastSenderTest
{
    static final String GROUP = "239.255.44.1";
    static final int PORT = 44001;

    private final SimulatorCounters counters = SimulatorCounters.create();

    @AfterEach
    void tearDown()
    {
        counters.close();
    }

    /**
     * Opens a receiver joined to the group on the loopback interface.
     */
    static DatagramChannel joinedReceiver(final String group, final int port) throws IOException
    {
        final DatagramChannel receiver = DatagramChannel.open(StandardProtocolFamily.INET);
        receiver.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        receiver.setOption(StandardSocketOptions.SO_RCVBUF, 4 * 1024 * 1024);
        receiver.bind(new InetSocketAddress(port));
        receiver.join(InetAddress.getByName(group), MulticastSender.interfaceOf("127.0.0.1"));
        receiver.configureBlocking(false);
        return receiver;
    }

    /**
     * Receives packets until one has MoldUDP64 count 0xFFFF or the deadline passes.
     */
    static List<byte[]> receiveUntilEndOfSession(final DatagramChannel receiver, final long timeoutMs) throws IOException
    {
        final List<byte[]> received = new ArrayList<>();
        final ByteBuffer buffer = ByteBuffer.allocate(65_536);
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (System.nanoTime() < deadline)
        {
            buffer.clear();
            if (null == receiver.receive(buffer))
            {
                Thread.onSpinWait();
                continue;
            }
            buffer.flip();
            final byte[] packet = new byte[buffer.remaining()];
            buffer.get(packet);
            received.add(packet);
            if (packet.length == 20 && (packet[18] & 0xFF) == 0xFF && (packet[19] & 0xFF) == 0xFF)
            {
                break;
            }
        }
        return received;
    }

    @Test
    void packetsArriveByteForByteOverLoopbackMulticast() throws Exception
    {
        final int messages = 5_000;
        final List<byte[]> sent = new ArrayList<>();
        try (DatagramChannel receiver = joinedReceiver(GROUP, PORT);
            MulticastSender sender = new MulticastSender(GROUP, PORT, "127.0.0.1", 0, 1400, counters))
        {
            final MoldUdp64Packetizer packetizer = new MoldUdp64Packetizer("MDFSIMTEST", 1400, 1_000_000_000L,
                SystemNanoClock.INSTANCE,
                (buffer, offset, length) ->
                {
                    final byte[] copy = new byte[length];
                    buffer.getBytes(offset, copy);
                    sent.add(copy);
                    sender.onPacket(buffer, offset, length);
                },
                counters);
            final SessionGenerator generator =
                new SessionGenerator(11, new SessionConfig().symbols(10).messageCount(messages));
            final ItchEvent event = new ItchEvent();
            while (generator.next(event))
            {
                packetizer.append(event);
            }
            packetizer.endOfSession();

            final List<byte[]> received = receiveUntilEndOfSession(receiver, 5_000);
            assertEquals(sent.size(), received.size(), "every packet arrives");
            long bytes = 0;
            for (int i = 0; i < sent.size(); i++)
            {
                assertArrayEquals(sent.get(i), received.get(i), "packet " + i);
                bytes += sent.get(i).length;
            }
            assertTrue(sent.size() < messages / 10, "many messages per packet: " + sent.size() + " packets");
            assertEquals(bytes, counters.bytesSent().get());
            assertEquals(0, counters.sendErrors().get());
            assertEquals(messages, counters.messagesSent().get());
            assertEquals(0xFFFF, ((received.get(received.size() - 1)[18] & 0xFF) << 8)
                | (received.get(received.size() - 1)[19] & 0xFF));
            assertTrue(Arrays.equals("MDFSIMTEST".getBytes(), Arrays.copyOf(received.get(0), 10)));
        }
    }

    @Test
    void rejectsBadAddresses()
    {
        assertThrows(IllegalArgumentException.class,
            () -> new MulticastSender("10.0.0.1", PORT, "127.0.0.1", 0, 1400, counters), "not multicast");
        assertThrows(IllegalArgumentException.class,
            () -> new MulticastSender(GROUP, 0, "127.0.0.1", 0, 1400, counters), "port");
        assertThrows(IllegalArgumentException.class,
            () -> new MulticastSender(GROUP, PORT, "192.0.2.123", 0, 1400, counters), "no such interface");
        assertThrows(IllegalArgumentException.class,
            () -> new MulticastSender(GROUP, PORT, "127.0.0.1", 256, 1400, counters), "ttl");
    }
}
