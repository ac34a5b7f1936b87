package io.mdfanout.feed.sim;

import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The retransmission server over real UDP on the loopback interface: a plain DatagramChannel sends MoldUDP64
 * requests and reads the replies, checked against the messages the packetizer generated.
 */
class RetransmissionServerTest
{
    private static final String SESSION = "RETRANS01";
    private static final int MESSAGES = 5_000;
    private static final int HISTORY = 1_000;
    private static final int MAX_PACKET_BYTES = 200;

    private static final RetransmissionServer.Answering STREAMING =
        new RetransmissionServer.Answering(true, 0, 0, 0, 0);

    private final SimulatorCounters counters = SimulatorCounters.create();
    /** Every generated message by sequence (index 0 unused). */
    private final byte[][] messages = new byte[MESSAGES + 1][];
    private RetransmissionHistory history;
    private RetransmissionServer server;
    private DatagramChannel client;

    @BeforeEach
    void setUp() throws IOException
    {
        history = new RetransmissionHistory(HISTORY, ItchEncoder.MAX_MESSAGE_LENGTH);
        final MoldUdp64Packetizer packetizer = new MoldUdp64Packetizer(SESSION, 1400, 1_000_000_000L,
            SystemNanoClock.INSTANCE, new PacketDistributor(this::recordMessages, history), counters);
        final SessionGenerator generator = new SessionGenerator(21, new SessionConfig().symbols(10).messageCount(MESSAGES));
        final ItchEvent event = new ItchEvent();
        while (generator.next(event))
        {
            packetizer.append(event);
        }
        packetizer.endOfSession();
        assertEquals(MESSAGES - HISTORY + 1, history.oldestSequence());
        assertEquals(MESSAGES + 1, history.nextSequence());

        server = new RetransmissionServer("127.0.0.1", 0, SESSION, MAX_PACKET_BYTES, history, counters, STREAMING);
        client = DatagramChannel.open();
        client.bind(new InetSocketAddress("127.0.0.1", 0));
        client.configureBlocking(false);
    }

    @AfterEach
    void tearDown()
    {
        server.close();
        org.agrona.CloseHelper.quietClose(client);
        counters.close();
    }

    private void restart(final RetransmissionServer.Answering answering) throws IOException
    {
        server.close();
        server = new RetransmissionServer("127.0.0.1", 0, SESSION, MAX_PACKET_BYTES, history, counters, answering);
    }

    @Test
    void asSpecifiedARequestIsAnsweredWithOnePacketFromItsFirstSequence() throws IOException
    {
        restart(RetransmissionServer.Answering.SPECIFIED);
        request(SESSION, 4_200, 300);
        final List<byte[]> packets = receiveFor(300);
        assertEquals(1, packets.size(), "one packet");
        final ByteBuffer view = ByteBuffer.wrap(packets.get(0)).order(ByteOrder.BIG_ENDIAN);
        assertEquals(4_200, view.getLong(10));
        final int count = view.getShort(18) & 0xFFFF;
        assertTrue(count > 1 && count < 300, "as many as fit one packet: " + count);
        assertEquals(1, counters.retransmitPacketsSent().get());
        assertEquals(count, counters.retransmitMessagesSent().get());

        request(SESSION, 4_200 + count, 300 - count);
        assertEquals(4_200 + count, ByteBuffer.wrap(receiveFor(300).get(0)).getLong(10), "asked again for the rest");
    }

    @Test
    void droppedAnswersAreCountedAndASilentServerIgnoresEveryRequest() throws IOException
    {
        restart(new RetransmissionServer.Answering(false, 0, 50, 7, 100));
        for (int i = 0; i < 40; i++)
        {
            request(SESSION, 4_200 + i * 3L, 3);
        }
        pollUntilRequests(40);
        receiveFor(300);
        final long sent = counters.retransmitPacketsSent().get();
        final long dropped = counters.retransmitPacketsDropped().get();
        assertTrue(sent > 0 && dropped > 0, "sent " + sent + " dropped " + dropped);
        assertEquals(34, sent + dropped, "silent after 100 messages: 34 answers of 3");
        assertEquals(6, counters.retransmitRequestsIgnored().get());
    }

    @Test
    void aRateLimitedServerSpreadsItsAnswersAndQueuesTheRequests() throws IOException
    {
        restart(new RetransmissionServer.Answering(true, 10_000, 0, 0, 0));
        final long start = System.nanoTime();
        request(SESSION, 4_001, 1_000);
        final List<byte[]> packets = receive(1_000);
        final long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(1_000, counters.retransmitMessagesSent().get());
        assertTrue(packets.size() > 10);
        // 1,000 messages at 10,000 a second with a bucket of 100. A packet goes out whenever a token is left, so the
        // last one leaves once all but it (less one) were paid for: (1,000 - last - 100 + 1) / 10 ms, on any machine.
        final int last = ByteBuffer.wrap(packets.get(packets.size() - 1)).order(ByteOrder.BIG_ENDIAN).getShort(18) &
            0xFFFF;
        final long leastMs = (1_000 - last - 100 + 1) / 10;
        assertTrue(leastMs >= 80, "a packet is a few dozen messages: " + last);
        assertTrue(elapsedMs >= leastMs, "answered in " + elapsedMs + " ms, at least " + leastMs + " due");
    }

    @Test
    void answersWithExactlyTheRequestedMessagesSplitAtTheMaxPacketSize() throws IOException
    {
        final long first = 4_200;
        final int count = 300;
        request(SESSION, first, count);
        final List<byte[]> packets = receive(300);

        long expected = first;
        for (final byte[] packet : packets)
        {
            assertTrue(packet.length <= MAX_PACKET_BYTES, "packet of " + packet.length + " bytes");
            assertEquals(SESSION + " ", new String(packet, 0, 10, StandardCharsets.US_ASCII));
            final ByteBuffer view = ByteBuffer.wrap(packet).order(ByteOrder.BIG_ENDIAN);
            assertEquals(expected, view.getLong(10), "packets continue the sequence");
            final int messagesInPacket = view.getShort(18) & 0xFFFF;
            int position = 20;
            for (int i = 0; i < messagesInPacket; i++)
            {
                final int length = view.getShort(position) & 0xFFFF;
                assertArrayEquals(messages[(int)expected], Arrays.copyOfRange(packet, position + 2, position + 2 + length),
                    "message " + expected);
                position += 2 + length;
                expected++;
            }
            assertEquals(packet.length, position, "no trailing bytes");
        }
        assertEquals(first + count, expected, "all requested messages and no more");
        assertTrue(packets.size() > 10, "split over many packets: " + packets.size());
        assertEquals(1, counters.retransmitRequestsReceived().get());
        assertEquals(0, counters.retransmitRequestsRejected().get());
        assertEquals(count, counters.retransmitMessagesSent().get());
        assertEquals(packets.size(), counters.retransmitPacketsSent().get());
    }

    @Test
    void rejectsAndCountsWhatItCannotServeAndKeepsServing() throws IOException
    {
        request("OTHERSESS", 4_500, 10);                     // another session
        request(SESSION, 10, 5);                             // long gone from the history
        request(SESSION, MESSAGES + 1, 5);                   // not sent yet
        request(SESSION, 4_500, 0);                          // zero messages
        request(SESSION, 0, 5);                              // sequence 0
        client.send(ByteBuffer.wrap(new byte[19]), serverAddress());  // malformed: too short
        client.send(ByteBuffer.wrap(new byte[1000]), serverAddress()); // malformed: too long
        pollUntilRequests(7);
        assertEquals(7, counters.retransmitRequestsRejected().get());
        assertEquals(0, counters.retransmitMessagesSent().get());
        assertTrue(receive(0).isEmpty(), "no reply to a rejected request");

        // Partly outside the history: only the part it holds comes back.
        request(SESSION, HISTORY * 4 - 5, 10);
        final List<byte[]> tail = receive(4);
        assertEquals(MESSAGES - HISTORY + 1, ByteBuffer.wrap(tail.get(0)).getLong(10));
        assertEquals(1, counters.retransmitRequestsPartlyServed().get());
        request(SESSION, MESSAGES - 1, 10);
        final List<byte[]> end = receive(2);
        assertEquals(MESSAGES - 1, ByteBuffer.wrap(end.get(0)).getLong(10));
        assertEquals(2, counters.retransmitRequestsPartlyServed().get());
        assertEquals(6, counters.retransmitMessagesSent().get());
        assertEquals(7, counters.retransmitRequestsRejected().get());
        assertEquals(9, counters.retransmitRequestsReceived().get());
    }

    private void recordMessages(final org.agrona.DirectBuffer buffer, final int offset, final int length)
    {
        final UnsafeBuffer packet = new UnsafeBuffer(buffer, offset, length);
        final int count = packet.getShort(18, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        if (0 == count || 0xFFFF == count)
        {
            return;
        }
        long sequence = packet.getLong(10, ByteOrder.BIG_ENDIAN);
        int position = 20;
        for (int i = 0; i < count; i++)
        {
            final int messageLength = packet.getShort(position, ByteOrder.BIG_ENDIAN) & 0xFFFF;
            final byte[] message = new byte[messageLength];
            packet.getBytes(position + 2, message);
            messages[(int)sequence++] = message;
            position += 2 + messageLength;
        }
    }

    private InetSocketAddress serverAddress()
    {
        return new InetSocketAddress("127.0.0.1", server.localPort());
    }

    private void request(final String session, final long sequence, final int count) throws IOException
    {
        final ByteBuffer request = ByteBuffer.allocate(20).order(ByteOrder.BIG_ENDIAN);
        final byte[] name = Arrays.copyOf((session + "          ").getBytes(StandardCharsets.US_ASCII), 10);
        request.put(name).putLong(sequence).putShort((short)count).flip();
        assertEquals(20, client.send(request, serverAddress()));
    }

    private void pollUntilRequests(final long requests)
    {
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (counters.retransmitRequestsReceived().get() < requests && System.nanoTime() < deadline)
        {
            if (0 == server.poll())
            {
                Thread.onSpinWait();
            }
        }
        assertEquals(requests, counters.retransmitRequestsReceived().get());
    }

    /** Polls the server and receives every reply for {@code ms} milliseconds. */
    private List<byte[]> receiveFor(final long ms) throws IOException
    {
        return receive(ms, Long.MAX_VALUE);
    }

    /** Polls the server and receives replies until they hold the given number of messages (or 200 ms, for 0). */
    private List<byte[]> receive(final int expectedMessages) throws IOException
    {
        final List<byte[]> packets = receive(0 == expectedMessages ? 200 : 5_000,
            0 == expectedMessages ? Long.MAX_VALUE : expectedMessages);
        long received = 0;
        for (final byte[] packet : packets)
        {
            received += ByteBuffer.wrap(packet).getShort(18) & 0xFFFF;
        }
        assertEquals(expectedMessages, received, "messages received");
        return packets;
    }

    /** Polls the server and receives replies for at most {@code ms}, until they hold {@code messages} messages. */
    private List<byte[]> receive(final long ms, final long messages) throws IOException
    {
        final List<byte[]> packets = new ArrayList<>();
        final ByteBuffer buffer = ByteBuffer.allocate(65_536);
        long received = 0;
        final long deadline = System.nanoTime() + ms * 1_000_000L;
        while (System.nanoTime() < deadline && received < messages)
        {
            server.poll();
            buffer.clear();
            if (null == client.receive(buffer))
            {
                Thread.onSpinWait();
                continue;
            }
            buffer.flip();
            final byte[] packet = new byte[buffer.remaining()];
            buffer.get(packet);
            packets.add(packet);
            received += ByteBuffer.wrap(packet).getShort(18) & 0xFFFF;
        }
        return packets;
    }
}
