package io.mdfanout.feed.handler;

import io.mdfanout.feed.support.ItchBytes;
import io.mdfanout.feed.support.MoldPackets;
import io.mdfanout.feed.support.Rings;
import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import static io.mdfanout.feed.handler.ArbitrationCounters.LINE_A;
import static io.mdfanout.feed.handler.ArbitrationCounters.LINE_B;
import static io.mdfanout.feed.handler.ArbitrationCounters.LINE_R;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lines A and B over real UDP multicast on loopback, and retransmission over a real unicast
 * request socket answered by a test "server" socket. Packet k carries order deletes 3k-2 .. 3k.
 */
class FeedHandlerRecoverySocketTest
{
    private static final int H = MessageHeaderDecoder.ENCODED_LENGTH;

    private final org.agrona.concurrent.ringbuffer.RingBuffer[] rings = Rings.inMemory(2, 256 * 1024);
    private FeedHandlerAgent agent;

    @AfterEach
    void tearDown()
    {
        if (null != agent)
        {
            agent.onClose();
        }
    }

    private static byte[] messages(final long from, final long to)
    {
        final byte[][] messages = new byte[(int)(to - from + 1)][];
        for (long s = from; s <= to; s++)
        {
            messages[(int)(s - from)] = new ItchBytes(19, 'D', 1, 0, 1000 + s).u64(11, s).bytes();
        }
        return MoldPackets.packet("SESS", from, messages);
    }

    private static byte[] packet(final int k)
    {
        return messages(3L * k - 2, 3L * k);
    }

    private List<String> events(final int partition)
    {
        final List<String> events = new ArrayList<>();
        for (final Rings.Rec r : Rings.drain(rings[partition]))
        {
            if (r.typeId() == GapNoticeDecoder.TEMPLATE_ID)
            {
                final GapNoticeDecoder g = new GapNoticeDecoder().wrap(r.buffer(), H, GapNoticeDecoder.BLOCK_LENGTH, 0);
                events.add("gap " + g.exchangeSequence() + "-" + g.lastMissingSequence());
            }
            else
            {
                events.add(Long.toString(
                    new OrderDeleteDecoder().wrap(r.buffer(), H, OrderDeleteDecoder.BLOCK_LENGTH, 0).exchangeSequence()));
            }
        }
        return events;
    }

    private void pollUntil(final BooleanSupplier done) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (!done.getAsBoolean() && System.nanoTime() < deadline)
        {
            if (agent.doWork() == 0)
            {
                Thread.sleep(1);
            }
        }
    }

    private static List<String> range(final long from, final long to)
    {
        final List<String> list = new ArrayList<>();
        for (long s = from; s <= to; s++)
        {
            list.add(Long.toString(s));
        }
        return list;
    }

    @Test
    void lineBFillsWhatLineALostOverMulticast() throws Exception
    {
        final FeedHandlerConfig config = new FeedHandlerConfig()
            .group("239.255.46.1").port(46001).groupB("239.255.46.3").portB(46003).session("SESS")
            .partitions(2).maxHeldMessages(1024).gapWaitMs(2000);
        agent = new FeedHandlerAgent(config, rings, new InMemoryCounters(256).countersManager());
        agent.onStart();
        try (UdpSender a = new UdpSender("239.255.46.1", 46001); UdpSender b = new UdpSender("239.255.46.3", 46003))
        {
            a.send(packet(1));
            a.send(packet(2));
            a.send(packet(4)); // A lost packet 3
            pollUntil(() -> agent.arbitrationCounters().packets(LINE_A).get() == 3);
            assertEquals(1, agent.arbiter().openGaps());
            for (int k = 1; k <= 4; k++)
            {
                b.send(packet(k));
            }
            pollUntil(() -> agent.arbitrationCounters().packets(LINE_B).get() == 4);
        }

        final ArbitrationCounters c = agent.arbitrationCounters();
        assertEquals(range(1, 12), events(1));
        assertEquals(List.of(), events(0));
        assertEquals(3, c.fills(LINE_B).get());
        assertEquals(9, c.accepted(LINE_A).get());
        assertEquals(9, c.duplicates(LINE_B).get());
        assertEquals(1, c.gapsFilled().get());
        assertEquals(0, c.gapsDeclared().get());
        assertEquals(0, c.packets(LINE_R).get());
    }

    @Test
    void gapOnTheOnlyLineIsRequestedRetriedAfterALostReplyAndFilled() throws Exception
    {
        try (DatagramChannel server = DatagramChannel.open())
        {
            server.bind(new InetSocketAddress("127.0.0.1", 46101));
            server.configureBlocking(false);
            final FeedHandlerConfig config = new FeedHandlerConfig()
                .group("239.255.46.5").port(46005).session("SESS").partitions(2).maxHeldMessages(1024)
                .retransmitServer("127.0.0.1:46101").gapWaitMs(5).retransmitTimeoutMs(100).recoverySilenceBudgetMs(300);
            agent = new FeedHandlerAgent(config, rings, new InMemoryCounters(256).countersManager());

            final List<String> requests = new ArrayList<>();
            final ByteBuffer request = ByteBuffer.allocate(100).order(ByteOrder.BIG_ENDIAN);
            try (UdpSender a = new UdpSender("239.255.46.5", 46005))
            {
                a.send(packet(1));
                a.send(packet(3)); // packet 2 lost
                pollUntil(() ->
                {
                    try
                    {
                        request.clear();
                        final SocketAddress from = server.receive(request);
                        if (null != from)
                        {
                            request.flip();
                            final byte[] session = new byte[10];
                            request.get(session);
                            requests.add(new String(session, StandardCharsets.US_ASCII) + " " + request.getLong() +
                                " " + (request.getShort() & 0xFFFF) + " len " + request.limit());
                            if (requests.size() == 2)
                            {
                                // the first request's reply is "lost"; answer the retry in two packets
                                server.send(ByteBuffer.wrap(messages(4, 5)), from);
                                server.send(ByteBuffer.wrap(messages(6, 6)), from);
                            }
                        }
                        return agent.arbiter().nextExpected() == 10;
                    }
                    catch (final java.io.IOException ex)
                    {
                        throw new java.io.UncheckedIOException(ex);
                    }
                });
            }

            final ArbitrationCounters c = agent.arbitrationCounters();
            assertEquals(List.of("SESS       4 3 len 20", "SESS       4 3 len 20"), requests);
            assertEquals(range(1, 9), events(1));
            assertEquals(2, c.packets(LINE_R).get());
            assertEquals(3, c.fills(LINE_R).get());
            assertEquals(1, c.requestsSent().get());
            assertEquals(1, c.requestsRetried().get());
            assertEquals(1, c.requestsTimedOut().get());
            assertEquals(1, c.gapsFilled().get());
            assertEquals(0, c.gapsDeclared().get());
            assertTrue(agent.counters().gaps().get() == 0);
        }
    }

    @Test
    void theOutstandingCapHoldsAtTheServer() throws Exception
    {
        // Requests allowed at once (1000 a second): the cap of 3 outstanding is what holds ten gaps back.
        final List<Long> requestTimes = requestsSeenAtTheServer(1000, 3, 400);
        assertEquals(10, agent.arbiter().openGaps());
        assertEquals(3, requestTimes.size(), "never more than 3 outstanding");
        assertEquals(3, agent.arbitrationCounters().requestsSent().get());
    }

    @Test
    void theRateLimitHoldsAtTheServer() throws Exception
    {
        // One request a second and room for 10 outstanding: in the 800 ms after the gaps only the first may go, the
        // next not before 1 s after it. No time is asserted (LineArbiterTest proves the pace at exact times): the
        // window and the agent read the same clock, so a slow machine cannot let a second request in.
        final List<Long> requestTimes = requestsSeenAtTheServer(1, 10, 800);
        assertEquals(10, agent.arbiter().openGaps());
        assertEquals(1, requestTimes.size(), "one request a second");
        assertEquals(1, agent.arbitrationCounters().requestsSent().get());
    }

    /** Ten one-message gaps on line A; the request server's receive times within {@code windowMs} of them. */
    private List<Long> requestsSeenAtTheServer(final int perSecond, final int outstanding, final long windowMs)
        throws Exception
    {
        try (DatagramChannel server = DatagramChannel.open())
        {
            server.bind(new InetSocketAddress("127.0.0.1", 46103));
            server.configureBlocking(false);
            final FeedHandlerConfig config = new FeedHandlerConfig()
                .group("239.255.46.7").port(46007).session("SESS").partitions(2).maxHeldMessages(1024)
                .retransmitServer("127.0.0.1:46103").gapWaitMs(0).retransmitTimeoutMs(60_000)
                .recoverySilenceBudgetMs(60_000).maxOutstandingRequests(outstanding).maxRequestsPerSecond(perSecond);
            agent = new FeedHandlerAgent(config, rings, new InMemoryCounters(256).countersManager());

            final List<Long> requestTimes = new ArrayList<>();
            final ByteBuffer request = ByteBuffer.allocate(100);
            try (UdpSender a = new UdpSender("239.255.46.7", 46007))
            {
                final long end = System.nanoTime() + windowMs * 1_000_000L;
                for (long s = 1; s <= 21; s += 2)
                {
                    a.send(messages(s, s)); // ten one-message gaps
                }
                pollUntil(() ->
                {
                    try
                    {
                        request.clear();
                        if (null != server.receive(request))
                        {
                            requestTimes.add(System.nanoTime());
                        }
                    }
                    catch (final java.io.IOException ex)
                    {
                        throw new java.io.UncheckedIOException(ex);
                    }
                    return System.nanoTime() > end;
                });
            }
            return requestTimes;
        }
    }
}
