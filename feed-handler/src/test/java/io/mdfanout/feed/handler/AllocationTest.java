package io.mdfanout.feed.handler;

import io.mdfanout.feed.normalize.ItchNormalizer;
import io.mdfanout.feed.normalize.NormalizerCounters;
import io.mdfanout.feed.normalize.PartitionRingSet;
import io.mdfanout.feed.support.ItchBytes;
import io.mdfanout.feed.support.MoldPackets;
import io.mdfanout.feed.support.RingWaitDeadline;
import io.mdfanout.feed.support.Rings;
import io.mdfanout.testing.AllocationWindows;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Steady state of the message path allocates nothing: packet sequencing (the single-line arbiter of replays),
 * decode, normalize, ring write, receive, and gap recovery by retransmission over real sockets.
 */
class AllocationTest
{
    private static final int PARTITIONS = 4;

    private static final MessageHandler NO_OP = (typeId, buffer, index, length) -> {};

    private static long allocatedBytes()
    {
        return AllocationWindows.allocatedBytes();
    }

    /** One packet holding every published type (a market-wide one included) plus a dropped type. */
    private static byte[] everyTypePacket()
    {
        return MoldPackets.packet("ALLOC", 1,
            new ItchBytes(12, 'S', 0, 0, 1).ch(11, 'Q').bytes(),
            new ItchBytes(39, 'R', 1, 0, 1).alpha(11, 8, "AAPL").bytes(),
            new ItchBytes(25, 'H', 2, 0, 1).ch(19, 'T').alpha(21, 4, "X").bytes(),
            new ItchBytes(20, 'Y', 3, 0, 1).ch(19, '0').bytes(),
            new ItchBytes(35, 'V', 0, 0, 1).u64(11, 1).bytes(),
            new ItchBytes(12, 'W', 0, 0, 1).ch(11, '1').bytes(),
            new ItchBytes(21, 'h', 5, 0, 1).ch(19, 'Q').ch(20, 'H').bytes(),
            new ItchBytes(36, 'A', 6, 0, 1).ch(19, 'B').bytes(),
            new ItchBytes(40, 'F', 7, 0, 1).ch(19, 'S').bytes(),
            new ItchBytes(31, 'E', 8, 0, 1).bytes(),
            new ItchBytes(36, 'C', 9, 0, 1).ch(31, 'Y').bytes(),
            new ItchBytes(23, 'X', 10, 0, 1).bytes(),
            new ItchBytes(19, 'D', 11, 0, 1).bytes(),
            new ItchBytes(35, 'U', 12, 0, 1).bytes(),
            new ItchBytes(44, 'P', 13, 0, 1).ch(19, 'B').bytes(),
            new ItchBytes(40, 'Q', 14, 0, 1).bytes(),
            new ItchBytes(19, 'B', 15, 0, 1).bytes(),
            new ItchBytes(50, 'I', 16, 0, 1).bytes(),
            new ItchBytes(26, 'L', 17, 0, 1).bytes());
    }

    @Test
    void packetToRingAllocatesNothing() throws Exception
    {
        final RingBuffer[] rings = Rings.inMemory(PARTITIONS, 64 * 1024);
        final InMemoryCounters counters = new InMemoryCounters(128);
        final FeedHandlerCounters feedCounters = new FeedHandlerCounters(counters.countersManager(), "a");
        final NormalizerCounters normalizerCounters =
            new NormalizerCounters(counters.countersManager(), "a", PARTITIONS);
        final LineArbiter arbiter = LineArbiter.singleLine(
            "ALLOC", new ItchNormalizer(rings, new RingWaitDeadline(), normalizerCounters), feedCounters,
            new ArbitrationCounters(counters.countersManager(), "a"));

        final byte[] bytes = everyTypePacket();
        final UnsafeBuffer packet = new UnsafeBuffer(bytes);
        final int count = 19;
        final long[] sequence = { 1 };

        // long enough for the JIT to settle: early windows allocate while code is still interpreted
        for (int i = 0; i < 100_000; i++)
        {
            sequence[0] = step(arbiter, rings, packet, sequence[0], count);
        }
        final long publishedBefore = normalizerCounters.messagesPublished().get();
        final long gapsBefore = feedCounters.gaps().get();
        final int windows = AllocationWindows.assertOneWindowAllocatesNothing(
            "on the message path over 20,000 packets", AllocationWindows.WINDOWS, () ->
            {
                for (int i = 0; i < 20_000; i++)
                {
                    sequence[0] = step(arbiter, rings, packet, sequence[0], count);
                }
            });

        assertEquals(windows * 20_000L * 18, normalizerCounters.messagesPublished().get() - publishedBefore);
        assertTrue(feedCounters.gaps().get() > gapsBefore, "gap notices were on the measured path");
        assertEquals(0, normalizerCounters.invalidField().get());
    }

    /**
     * The path of a restarted feed handler: rings re-attached, the commit marks kept at every publish and
     * the committed sequence stored in the ring header at every flush, records of resumed sequences skipped.
     */
    @Test
    void resumedRingsWithCommitMarksAllocateNothing(@org.junit.jupiter.api.io.TempDir final Path dir) throws Exception
    {
        final Path ringDir = dir.resolve("rings");
        long sequence = 1;
        try (PartitionRingSet first = new PartitionRingSet(
            ringDir, PARTITIONS, 64 * 1024, "test", PartitionRingSet.Mode.RESUME, null))
        {
            final LineArbiter arbiter = arbiter(first, new InMemoryCounters(128));
            final UnsafeBuffer packet = new UnsafeBuffer(everyTypePacket());
            for (int i = 0; i < 1_000; i++)
            {
                sequence = step(arbiter, first.rings(), packet, sequence, 19);
            }
        }

        try (PartitionRingSet resumed = new PartitionRingSet(
            ringDir, PARTITIONS, 64 * 1024, "test", PartitionRingSet.Mode.RESUME, null))
        {
            assertTrue(resumed.isResumed(), resumed.describe());
            assertEquals(sequence - 1, resumed.committedSequence(), "committed through the last packet");
            final InMemoryCounters counters = new InMemoryCounters(128);
            final LineArbiter arbiter = arbiter(resumed, counters);
            final UnsafeBuffer packet = new UnsafeBuffer(everyTypePacket());
            final long[] next = { resumed.committedSequence() + 1 };
            for (int i = 0; i < 100_000; i++)
            {
                next[0] = step(arbiter, resumed.rings(), packet, next[0], 19);
            }
            AllocationWindows.assertOneWindowAllocatesNothing(
                "on the resumed message path over 20,000 packets", AllocationWindows.WINDOWS, () ->
                {
                    for (int i = 0; i < 20_000; i++)
                    {
                        next[0] = step(arbiter, resumed.rings(), packet, next[0], 19);
                    }
                });
            assertEquals(next[0] - 1, resumed.header().committedSequence(), "the header follows every flush");
        }
    }

    private static LineArbiter arbiter(final PartitionRingSet rings, final InMemoryCounters counters)
    {
        final ItchNormalizer normalizer = new ItchNormalizer(rings.rings(), rings.ringFiles(), rings.header(),
            new RingWaitDeadline(), new NormalizerCounters(counters.countersManager(), "a", PARTITIONS));
        if (rings.isResumed())
        {
            normalizer.resume(rings.committedSequence(), rings.lastRecordSequences());
        }
        return LineArbiter.singleLine("ALLOC", normalizer, new FeedHandlerCounters(counters.countersManager(), "a"),
            new ArbitrationCounters(counters.countersManager(), "a"));
    }

    private static long step(
        final LineArbiter arbiter,
        final RingBuffer[] rings,
        final UnsafeBuffer packet,
        final long sequence,
        final int count)
    {
        // every 10th packet or so skips one sequence, so gap notices are on the measured path too
        final long next = (sequence % 10 == 1) ? sequence + 1 : sequence;
        packet.putLong(10, next, ByteOrder.BIG_ENDIAN);
        arbiter.onDatagram(packet, 0, packet.capacity());
        for (final RingBuffer ring : rings)
        {
            ring.read(NO_OP);
        }
        return next + count;
    }

    @Test
    void socketReceivePathAllocatesNothing() throws Exception
    {
        final Path ringDir = Files.createTempDirectory("feed-alloc");
        final FeedHandlerConfig config = new FeedHandlerConfig()
            .group("239.255.43.3").port(43003).session("ALLOC").ringDir(ringDir).partitions(PARTITIONS)
            .datagramsPerPoll(64).maxHeldMessages(1024);
        final RingBuffer[] rings = Rings.inMemory(PARTITIONS, 1024 * 1024);
        final FeedHandlerAgent agent = new FeedHandlerAgent(config, rings, new InMemoryCounters(128).countersManager());
        final byte[] bytes = everyTypePacket();
        final UnsafeBuffer packet = new UnsafeBuffer(bytes);
        long sequence = 1;
        try (UdpSender sender = new UdpSender("239.255.43.3", 43003))
        {
            // warm the processing path without the socket, then the receive path with it
            for (int i = 0; i < 100_000; i++)
            {
                packet.putLong(10, sequence, ByteOrder.BIG_ENDIAN);
                sequence += 19;
                agent.arbiter().onPacket(ArbitrationCounters.LINE_A, packet, 0, bytes.length, System.nanoTime());
                for (final RingBuffer ring : rings)
                {
                    ring.read(NO_OP);
                }
            }
            // 15 rounds to warm the socket path, then up to five measured rounds
            final long[] next = { sequence };
            final long[] allocated = new long[1];
            final AllocationWindows.MeasuredWindow receiveRound = () ->
            {
                next[0] = round(agent, rings, sender, packet, bytes, next[0], false, allocated);
                return allocated[0];
            };
            for (int r = 0; r < 15; r++)
            {
                receiveRound.allocatedBytes();
            }
            AllocationWindows.assertOneMeasuredWindowAllocatesNothing(
                "receiving a round of 200 datagrams", 5, receiveRound);
        }
        finally
        {
            agent.onClose();
            org.agrona.IoUtil.delete(ringDir.toFile(), true);
        }
        assertEquals(0, agent.counters().gaps().get());
        assertEquals(0, agent.counters().receiveErrors().get());
    }

    /**
     * The live chain under loss: line A over real multicast loses packets, the agent requests them
     * from a real re-request server over its unicast socket and the replies fill the gaps. The
     * server runs on its own thread, so only the agent's receive, arbitration, hold, request and
     * fill work is measured.
     */
    @Test
    void socketGapRecoveryByRetransmissionAllocatesNothing() throws Exception
    {
        final Path ringDir = Files.createTempDirectory("feed-alloc-gap");
        final byte[] bytes = everyTypePacket();
        final int count = 19;
        try (DatagramChannel server = DatagramChannel.open(StandardProtocolFamily.INET))
        {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            final FeedHandlerConfig config = new FeedHandlerConfig()
                .group("239.255.43.5").port(43005).session("ALLOC").ringDir(ringDir).partitions(PARTITIONS)
                .datagramsPerPoll(64).maxHeldMessages(65536).gapWaitMs(1).retransmitTimeoutMs(2000)
                .lineSilenceMs(Integer.MAX_VALUE)
                .retransmitServer("127.0.0.1:" + ((InetSocketAddress)server.getLocalAddress()).getPort());
            final RingBuffer[] rings = Rings.inMemory(PARTITIONS, 4 * 1024 * 1024);
            final FeedHandlerAgent agent = new FeedHandlerAgent(
                config, rings, new InMemoryCounters(256).countersManager());
            final Thread serverThread = new Thread(() -> serve(server, bytes, count), "retransmit-server");
            serverThread.setDaemon(true);
            serverThread.start();
            final UnsafeBuffer packet = new UnsafeBuffer(bytes);
            final long[] sequence = { 1 };
            final long[] allocated = new long[1];
            try (UdpSender sender = new UdpSender("239.255.43.5", 43005))
            {
                final AllocationWindows.MeasuredWindow recoveryRound = () ->
                {
                    final long filledBefore = agent.arbitrationCounters().gapsFilled().get();
                    sequence[0] = round(agent, rings, sender, packet, bytes, sequence[0], true, allocated);
                    assertTrue(agent.arbitrationCounters().gapsFilled().get() - filledBefore >= 10,
                        "gaps filled by retransmission in the round");
                    return allocated[0];
                };
                // 35 rounds to warm the path, then up to five measured rounds
                for (int r = 0; r < 35; r++)
                {
                    recoveryRound.allocatedBytes();
                }
                AllocationWindows.assertOneMeasuredWindowAllocatesNothing(
                    "recovering a round's 10 gaps by retransmission", 5, recoveryRound);
            }
            finally
            {
                agent.onClose();
                server.close();
                serverThread.join(5_000);
                org.agrona.IoUtil.delete(ringDir.toFile(), true);
            }
            assertEquals(0, agent.arbitrationCounters().gapsDeclared().get());
            assertTrue(agent.arbitrationCounters().fills(ArbitrationCounters.LINE_R).get() >= 36L * 10 * count);
            assertEquals(0, agent.counters().receiveErrors().get());
        }
    }

    /**
     * Send a round of 200 packets on line A over real multicast, losing every 20th when lossy (10
     * gaps for the re-request server to fill), and run the agent until it has every message;
     * returns the next sequence and puts the agent's allocation in allocated[0].
     */
    private static long round(
        final FeedHandlerAgent agent,
        final RingBuffer[] rings,
        final UdpSender sender,
        final UnsafeBuffer packet,
        final byte[] bytes,
        final long firstSequence,
        final boolean lossy,
        final long[] allocated) throws IOException
    {
        final int count = 19;
        long sequence = firstSequence;
        for (int i = 0; i < 200; i++)
        {
            if (!lossy || i % 20 != 7)
            {
                packet.putLong(10, sequence, ByteOrder.BIG_ENDIAN);
                sender.send(bytes);
            }
            sequence += count;
        }

        final long deadline = System.nanoTime() + 10_000_000_000L;
        final long before = allocatedBytes();
        while ((agent.arbiter().nextExpected() < sequence || agent.arbiter().openGaps() > 0) &&
            System.nanoTime() < deadline)
        {
            agent.doWork();
            for (final RingBuffer ring : rings)
            {
                ring.read(NO_OP, Integer.MAX_VALUE);
            }
        }
        allocated[0] = allocatedBytes() - before;
        assertEquals(sequence, agent.arbiter().nextExpected(), "every message of the round arrived");
        return sequence;
    }

    /** The re-request server: answers each request with packets of the template renumbered from its sequence. */
    private static void serve(final DatagramChannel server, final byte[] template, final int count)
    {
        final ByteBuffer request = ByteBuffer.allocate(64);
        final ByteBuffer reply = ByteBuffer.allocate(template.length);
        try
        {
            while (true)
            {
                request.clear();
                final SocketAddress requester = server.receive(request);
                if (request.position() != 20)
                {
                    continue;
                }
                final long first = request.getLong(10);
                final int wanted = request.getShort(18) & 0xFFFF;
                for (long s = first; s < first + wanted; s += count)
                {
                    reply.clear();
                    reply.put(template).putLong(10, s).flip();
                    server.send(reply, requester);
                }
            }
        }
        catch (final IOException ex)
        {
            // closed: the test is over
        }
    }

    @Test
    void arbitrationGapHoldAndRetransmissionAllocateNothing() throws Exception
    {
        final RingBuffer[] rings = Rings.inMemory(PARTITIONS, 256 * 1024);
        final InMemoryCounters counters = new InMemoryCounters(256);
        final FeedHandlerCounters feedCounters = new FeedHandlerCounters(counters.countersManager(), "a");
        final ArbitrationCounters arbitration = new ArbitrationCounters(counters.countersManager(), "a");
        final NormalizerCounters normalizerCounters =
            new NormalizerCounters(counters.countersManager(), "a", PARTITIONS);
        final FeedHandlerConfig config = new FeedHandlerConfig().session("ALLOC").groupB("239.255.46.1").portB(46001)
            .gapWaitMs(5).retransmitTimeoutMs(50).maxHeldMessages(4096).lineSilenceMs(Integer.MAX_VALUE);
        final LineArbiter arbiter = new LineArbiter(
            config, new ItchNormalizer(rings, new RingWaitDeadline(), normalizerCounters), feedCounters,
            arbitration, (buffer, offset, length) -> true);

        final byte[] bytes = everyTypePacket();
        final UnsafeBuffer packet = new UnsafeBuffer(bytes);
        final long[] clock = { 1_000_000_000L };
        final long[] sequence = { 1 };

        for (int i = 0; i < 40_000; i++)
        {
            sequence[0] = arbitrationStep(arbiter, rings, packet, sequence[0], clock);
        }
        final long requestsBefore = arbitration.requestsSent().get();
        final long fillsBefore = arbitration.fills(ArbitrationCounters.LINE_B).get();
        final int windows = AllocationWindows.assertOneWindowAllocatesNothing(
            "arbitrating, holding, requesting and filling over 10,000 steps", AllocationWindows.WINDOWS, () ->
            {
                for (int i = 0; i < 10_000; i++)
                {
                    sequence[0] = arbitrationStep(arbiter, rings, packet, sequence[0], clock);
                }
            });

        assertEquals(windows * 10_000L, arbitration.requestsSent().get() - requestsBefore, "a request every step");
        assertEquals(windows * 10_000L * 19, arbitration.fills(ArbitrationCounters.LINE_B).get() - fillsBefore);
        assertEquals(0, arbitration.gapsDeclared().get());
        assertEquals(0, arbiter.heldMessages());
        assertEquals(sequence[0], arbiter.nextExpected());
    }

    /**
     * Five packets: A loses the second (B fills it late, its other packets are duplicates), both
     * lose the fourth (requested after the gap wait and filled by a reply on line R).
     */
    private static long arbitrationStep(
        final LineArbiter arbiter, final RingBuffer[] rings, final UnsafeBuffer packet, final long sequence,
        final long[] clock)
    {
        final int count = 19;
        final long now = clock[0];
        send(arbiter, ArbitrationCounters.LINE_A, packet, sequence, now);
        send(arbiter, ArbitrationCounters.LINE_A, packet, sequence + 2 * count, now);
        send(arbiter, ArbitrationCounters.LINE_B, packet, sequence, now);
        send(arbiter, ArbitrationCounters.LINE_B, packet, sequence + count, now);
        send(arbiter, ArbitrationCounters.LINE_B, packet, sequence + 2 * count, now);
        send(arbiter, ArbitrationCounters.LINE_A, packet, sequence + 4 * count, now);
        send(arbiter, ArbitrationCounters.LINE_B, packet, sequence + 4 * count, now);
        arbiter.poll(now);
        arbiter.poll(now + 6_000_000L);
        send(arbiter, ArbitrationCounters.LINE_R, packet, sequence + 3 * count, now + 7_000_000L);
        clock[0] = now + 10_000_000L;
        for (final RingBuffer ring : rings)
        {
            ring.read(NO_OP, Integer.MAX_VALUE);
        }
        return sequence + 5 * count;
    }

    private static void send(
        final LineArbiter arbiter, final int line, final UnsafeBuffer packet, final long sequence, final long now)
    {
        packet.putLong(10, sequence, ByteOrder.BIG_ENDIAN);
        arbiter.onPacket(line, packet, 0, packet.capacity(), now);
    }
}
