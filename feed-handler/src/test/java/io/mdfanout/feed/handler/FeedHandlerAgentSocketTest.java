package io.mdfanout.feed.handler;

import io.mdfanout.feed.glimpse.GlimpseException;
import io.mdfanout.feed.glimpse.GlimpseResult;
import io.mdfanout.feed.normalize.PartitionRingSet;
import io.mdfanout.feed.support.ItchBytes;
import io.mdfanout.feed.support.MoldPackets;
import io.mdfanout.feed.support.Rings;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.wire.PartitionRings;
import org.agrona.IoUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** MoldUDP64 datagrams over real UDP multicast on loopback into the agent and out of mapped ring files. */
class FeedHandlerAgentSocketTest
{
    private static final String GROUP = "239.255.43.1";
    private static final int PORT = 43001;
    private static final int H = MessageHeaderDecoder.ENCODED_LENGTH;

    @TempDir
    Path ringDir;

    private PartitionRingSet rings;
    private FeedHandlerAgent agent;

    @AfterEach
    void tearDown()
    {
        if (null != agent)
        {
            agent.onClose();
        }
        if (null != rings)
        {
            rings.close();
        }
    }

    @Test
    void receivesMulticastIntoRingFiles() throws Exception
    {
        final FeedHandlerConfig config = new FeedHandlerConfig()
            .group(GROUP).port(PORT).interfaceAddress("127.0.0.1").session("FEED01")
            .ringDir(ringDir).partitions(2).ringCapacity(64 * 1024).maxHeldMessages(1024);
        rings = new PartitionRingSet(ringDir, 2, 64 * 1024);
        agent = new FeedHandlerAgent(config, rings.rings(), new InMemoryCounters(128).countersManager());
        agent.onStart();
        assertTrue(agent.grantedReceiveBufferBytes() > 0);
        assertTrue(PartitionRings.ringFile(ringDir, 0).toFile().isFile());

        try (UdpSender sender = new UdpSender(GROUP, PORT))
        {
            sender.send(MoldPackets.packet("FEED01", 1,
                new ItchBytes(12, 'S', 0, 0, 100).ch(11, 'O').bytes(),
                new ItchBytes(36, 'A', 3, 0, 101).u64(11, 555).ch(19, 'B').u32(20, 100).alpha(24, 8, "AAPL")
                    .u32(32, 1_500_000).bytes()));
            sender.send(new byte[5]);
            sender.send(MoldPackets.packet("FEED01", 4,
                new ItchBytes(36, 'A', 3, 0, 102).u64(11, 556).ch(19, 'S').u32(20, 7).u32(32, 1).bytes()));

            final long deadline = System.nanoTime() + 5_000_000_000L;
            // the gap (message 3) is declared once the gap wait passes: there is no line B nor server
            while ((agent.counters().packetsReceived().get() < 3 || agent.counters().gaps().get() < 1) &&
                System.nanoTime() < deadline)
            {
                if (agent.doWork() == 0)
                {
                    Thread.sleep(1);
                }
            }
        }

        assertEquals(3, agent.counters().packetsReceived().get());
        assertEquals(1, agent.counters().truncatedPackets().get());
        assertEquals(1, agent.counters().gaps().get());

        // Read back through a second mapping of the files, as the fanout would.
        final PartitionRings.MappedRing consumer0 = PartitionRings.map(ringDir, 0);
        final PartitionRings.MappedRing consumer1 = PartitionRings.map(ringDir, 1);
        try
        {
            final List<Rings.Rec> p0 = Rings.drain(consumer0.ring());
            assertEquals(2, p0.size());
            assertEquals(SystemEventDecoder.TEMPLATE_ID, p0.get(0).typeId());
            assertEquals(GapNoticeDecoder.TEMPLATE_ID, p0.get(1).typeId());

            final List<Rings.Rec> p1 = Rings.drain(consumer1.ring());
            assertEquals(4, p1.size());
            assertEquals(SystemEventDecoder.TEMPLATE_ID, p1.get(0).typeId());
            final AddOrderDecoder add = new AddOrderDecoder()
                .wrap(p1.get(1).buffer(), H, AddOrderDecoder.BLOCK_LENGTH, 0);
            assertEquals(2, add.exchangeSequence());
            assertEquals(101, add.exchangeTimestamp());
            assertEquals(3, add.instrumentId());
            assertEquals(555, add.orderId());
            assertEquals(1_500_000, add.price().mantissa());
            assertEquals(100, add.shares());
            assertEquals(Side.BUY, add.side());

            final GapNoticeDecoder gap = new GapNoticeDecoder()
                .wrap(p1.get(2).buffer(), H, GapNoticeDecoder.BLOCK_LENGTH, 0);
            assertEquals(3, gap.exchangeSequence());
            assertEquals(3, gap.lastMissingSequence());
            assertEquals(101, gap.exchangeTimestamp());

            final AddOrderDecoder second = new AddOrderDecoder()
                .wrap(p1.get(3).buffer(), H, AddOrderDecoder.BLOCK_LENGTH, 0);
            assertEquals(4, second.exchangeSequence());
            assertEquals(Side.SELL, second.side());
        }
        finally
        {
            consumer0.close();
            consumer1.close();
        }
    }

    /**
     * The exchange ends a session and starts the next day's (a new MoldUDP64 session from sequence 1): the day's
     * messages stay in the old generation's rings, the new day starts in a new generation with nothing of the old
     * one, the header names the new session, and the order ids of the day before may be used again.
     */
    @Test
    void aNewSessionAfterTheEndOfTheDayStartsANewRingGeneration() throws Exception
    {
        final FeedHandlerConfig config = new FeedHandlerConfig()
            .group(GROUP).port(PORT + 4).interfaceAddress("127.0.0.1")
            .ringDir(ringDir).partitions(1).ringCapacity(64 * 1024).maxHeldMessages(1024);
        rings = new PartitionRingSet(ringDir, 1, 64 * 1024);
        final long firstGeneration = rings.generation();
        final PartitionRings.MappedRing dayOne = PartitionRings.map(ringDir, 0);
        agent = new FeedHandlerAgent(config, rings, new InMemoryCounters(128).countersManager(), null);
        agent.onStart();
        try (UdpSender sender = new UdpSender(GROUP, PORT + 4))
        {
            sender.send(MoldPackets.packet("DAY0000001", 1,
                new ItchBytes(12, 'S', 0, 0, 100).ch(11, 'O').bytes(),
                new ItchBytes(36, 'A', 3, 0, 101).u64(11, 555).ch(19, 'B').u32(20, 100).alpha(24, 8, "AAPL")
                    .u32(32, 1_500_000).bytes(),
                new ItchBytes(12, 'S', 0, 0, 102).ch(11, 'C').bytes()));
            sender.send(MoldPackets.endOfSession("DAY0000001", 4));
            sender.send(MoldPackets.packet("DAY0000002", 1,
                new ItchBytes(12, 'S', 0, 0, 200).ch(11, 'O').bytes(),
                new ItchBytes(36, 'A', 3, 0, 201).u64(11, 555).ch(19, 'S').u32(20, 300).alpha(24, 8, "AAPL")
                    .u32(32, 1_600_000).bytes()));
            final long deadline = System.nanoTime() + 5_000_000_000L;
            while (agent.counters().packetsReceived().get() < 3 && System.nanoTime() < deadline)
            {
                if (agent.doWork() == 0)
                {
                    Thread.sleep(1);
                }
            }
        }
        try
        {
            assertEquals(3, agent.counters().packetsReceived().get());
            assertEquals(1, agent.arbitrationCounters().sessionsAdopted().get());
            assertTrue(rings.generation() > firstGeneration, "a new generation: " + rings.describe());
            assertEquals("DAY0000002", rings.session().trim());
            assertEquals(rings.generation(), rings.header().generation(), "the header says so, for the fanout");

            final List<Rings.Rec> first = Rings.drain(dayOne.ring());
            assertEquals(3, first.size(), "the whole first day in the first generation's ring");
            assertEquals(SystemEventDecoder.TEMPLATE_ID, first.get(2).typeId());

            try (PartitionRings.MappedRing dayTwo = PartitionRings.map(ringDir, 0))
            {
                assertEquals(rings.generation(), dayTwo.generation());
                final List<Rings.Rec> second = Rings.drain(dayTwo.ring());
                assertEquals(2, second.size(), "only the new day in the new generation's ring");
                final AddOrderDecoder add = new AddOrderDecoder()
                    .wrap(second.get(1).buffer(), H, AddOrderDecoder.BLOCK_LENGTH, 0);
                assertEquals(2, add.exchangeSequence());
                assertEquals(555, add.orderId());
                assertEquals(Side.SELL, add.side());
            }
        }
        finally
        {
            dayOne.close();
        }
    }

    /**
     * A gap re-requests cannot fill is declared, then, with the exchange's snapshot service configured, the rings
     * are rebuilt from its snapshot in a new generation: the old generation keeps the day as it was (the gap notice
     * included), the new one holds the snapshot (exchange sequence 0) and continues at the snapshot's sequence;
     * what arrives below it is a duplicate.
     */
    @Test
    void aDeclaredGapIsFollowedByARebuildFromTheExchangesSnapshotInANewGeneration() throws Exception
    {
        final FeedHandlerConfig config = new FeedHandlerConfig()
            .group(GROUP).port(PORT + 5).interfaceAddress("127.0.0.1")
            .ringDir(ringDir).partitions(1).ringCapacity(64 * 1024).maxHeldMessages(1024);
        rings = new PartitionRingSet(ringDir, 1, 64 * 1024);
        final long firstGeneration = rings.generation();
        final PartitionRings.MappedRing before = PartitionRings.map(ringDir, 0);
        agent = new FeedHandlerAgent(config, rings, new InMemoryCounters(128).countersManager(), null);
        final List<Long> loads = new java.util.ArrayList<>();
        agent.rebuildFrom((listener) ->
        {
            loads.add(agent.arbiter().nextExpected());
            final byte[] order = new ItchBytes(36, 'A', 3, 0, 150).u64(11, 777).ch(19, 'B').u32(20, 40)
                .alpha(24, 8, "AAPL").u32(32, 1_400_000).bytes();
            listener.onMessage(new org.agrona.concurrent.UnsafeBuffer(order), 0, order.length);
            return new GlimpseResult("test:1", "DAY0000001", 6, 1, order.length, 0);
        });
        agent.onStart();
        try (UdpSender sender = new UdpSender(GROUP, PORT + 5))
        {
            sender.send(MoldPackets.packet("DAY0000001", 1,
                new ItchBytes(12, 'S', 0, 0, 100).ch(11, 'O').bytes(),
                new ItchBytes(36, 'A', 3, 0, 101).u64(11, 555).ch(19, 'B').u32(20, 100).alpha(24, 8, "AAPL")
                    .u32(32, 1_500_000).bytes()));
            // 3 is lost for good (no re-request server): declared after the gap wait, then the rebuild.
            sender.send(MoldPackets.packet("DAY0000001", 4,
                new ItchBytes(36, 'A', 3, 0, 104).u64(11, 556).ch(19, 'S').u32(20, 100).alpha(24, 8, "AAPL")
                    .u32(32, 1_600_000).bytes()));
            runUntil(() -> agent.arbitrationCounters().glimpseRebuilds().get() == 1);
            // 5 was in the snapshot already; 6 is the first the new generation takes from the feed.
            sender.send(MoldPackets.packet("DAY0000001", 5,
                new ItchBytes(19, 'D', 3, 0, 105).u64(11, 555).bytes(),
                new ItchBytes(19, 'D', 3, 0, 106).u64(11, 777).bytes()));
            runUntil(() -> agent.arbiter().nextExpected() == 7);
        }
        try
        {
            assertEquals(List.of(5L), loads, "loaded once the gap was declared and nothing else waited");
            assertEquals(1, agent.arbitrationCounters().gapsDeclared().get());
            assertEquals(1, agent.arbitrationCounters().glimpseRebuilds().get(), "mdfanout_feed_glimpse_rebuilds_total");
            assertTrue(rings.generation() > firstGeneration, "a new generation: " + rings.describe());
            assertEquals(6, rings.header().committedSequence(), "a restart would continue after 6");

            final List<Rings.Rec> old = Rings.drain(before.ring());
            assertEquals(4, old.size(), "the day as it was in the old generation: S, A 555, the gap notice, A 556");
            assertEquals(GapNoticeDecoder.TEMPLATE_ID, old.get(2).typeId());
            try (PartitionRings.MappedRing rebuilt = PartitionRings.map(ringDir, 0))
            {
                assertEquals(rings.generation(), rebuilt.generation());
                final List<Rings.Rec> records = Rings.drain(rebuilt.ring());
                assertEquals(2, records.size(), "the snapshot's order, then the feed from 6: " + records);
                final AddOrderDecoder snapshotOrder = new AddOrderDecoder()
                    .wrap(records.get(0).buffer(), H, AddOrderDecoder.BLOCK_LENGTH, 0);
                assertEquals(0, snapshotOrder.exchangeSequence(), "state, not a sequenced event");
                assertEquals(777, snapshotOrder.orderId());
                assertEquals(6, new org.agrona.concurrent.UnsafeBuffer(records.get(1).buffer())
                    .getLong(H, java.nio.ByteOrder.LITTLE_ENDIAN), "the delete of 777 at exchange sequence 6");
            }
        }
        finally
        {
            before.close();
        }
    }

    /** A snapshot that cannot be loaded leaves the rings as they are: no generation, the feed goes on. */
    @Test
    void aRebuildWhoseSnapshotCannotBeLoadedLeavesTheRingsAsTheyAre() throws Exception
    {
        final FeedHandlerConfig config = new FeedHandlerConfig()
            .group(GROUP).port(PORT + 6).interfaceAddress("127.0.0.1")
            .ringDir(ringDir).partitions(1).ringCapacity(64 * 1024).maxHeldMessages(1024);
        rings = new PartitionRingSet(ringDir, 1, 64 * 1024);
        final long firstGeneration = rings.generation();
        agent = new FeedHandlerAgent(config, rings, new InMemoryCounters(128).countersManager(), null);
        final int[] tries = new int[1];
        agent.rebuildFrom((listener) ->
        {
            tries[0]++;
            throw new GlimpseException(GlimpseException.Reason.CONNECT_FAILED, "connection refused", null);
        });
        agent.onStart();
        try (UdpSender sender = new UdpSender(GROUP, PORT + 6))
        {
            sender.send(MoldPackets.packet("DAY0000001", 1, new ItchBytes(12, 'S', 0, 0, 100).ch(11, 'O').bytes()));
            sender.send(MoldPackets.packet("DAY0000001", 3, new ItchBytes(12, 'S', 0, 0, 103).ch(11, 'S').bytes()));
            runUntil(() -> tries[0] == 1);
            sender.send(MoldPackets.packet("DAY0000001", 4, new ItchBytes(12, 'S', 0, 0, 104).ch(11, 'Q').bytes()));
            runUntil(() -> agent.arbiter().nextExpected() == 5);
        }
        assertEquals(1, tries[0], "tried once; the next try waits " + FeedHandlerAgent.REBUILD_RETRY_INTERVAL_NS + " ns");
        assertEquals(0, agent.arbitrationCounters().glimpseRebuilds().get());
        assertEquals(1, agent.arbitrationCounters().glimpseRebuildFailures().get(),
            "mdfanout_feed_glimpse_rebuild_failures_total");
        assertEquals(firstGeneration, rings.generation(), "no generation made for a snapshot that did not load");
    }

    private void runUntil(final java.util.function.BooleanSupplier condition) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (!condition.getAsBoolean() && System.nanoTime() < deadline)
        {
            if (agent.doWork() == 0)
            {
                Thread.sleep(1);
            }
        }
        assertTrue(condition.getAsBoolean(), "in time: " + agent.arbitrationCounters().gapsDeclared().get() +
            " declared, next expected " + agent.arbiter().nextExpected());
    }

    /**
     * Another sender on the same group and port (here 127.0.0.2, with the same session name, sending a
     * stray end of session and conflicting messages) never reaches a feed handler that joined for the
     * exchange's source only; without --source it would.
     */
    @Test
    void sourceSpecificJoinKeepsOtherSendersOut() throws Exception
    {
        final FeedHandlerConfig config = new FeedHandlerConfig()
            .group(GROUP).port(PORT + 2).interfaceAddress("127.0.0.1").source("127.0.0.1").session("FEED01")
            .ringDir(ringDir).partitions(1).ringCapacity(64 * 1024).maxHeldMessages(1024);
        rings = new PartitionRingSet(ringDir, 1, 64 * 1024);
        agent = new FeedHandlerAgent(config, rings.rings(), new InMemoryCounters(128).countersManager());
        agent.onStart();

        try (UdpSender exchange = new UdpSender(GROUP, PORT + 2, "127.0.0.1");
            UdpSender stranger = new UdpSender(GROUP, PORT + 2, "127.0.0.2"))
        {
            stranger.send(MoldPackets.packet("FEED01", 1,
                new ItchBytes(19, 'D', 3, 0, 50).u64(11, 1).bytes()));
            stranger.send(MoldPackets.endOfSession("FEED01", 2));
            exchange.send(MoldPackets.packet("FEED01", 1,
                new ItchBytes(12, 'S', 0, 0, 100).ch(11, 'O').bytes(),
                new ItchBytes(36, 'A', 3, 0, 101).u64(11, 555).ch(19, 'B').u32(20, 100).alpha(24, 8, "AAPL")
                    .u32(32, 1_500_000).bytes()));
            stranger.send(MoldPackets.packet("FEED01", 3,
                new ItchBytes(19, 'D', 3, 0, 51).u64(11, 555).bytes()));
            exchange.send(MoldPackets.packet("FEED01", 3,
                new ItchBytes(19, 'D', 3, 0, 102).u64(11, 555).bytes()));

            final long deadline = System.nanoTime() + 5_000_000_000L;
            while (agent.counters().packetsReceived().get() < 2 && System.nanoTime() < deadline)
            {
                if (agent.doWork() == 0)
                {
                    Thread.sleep(1);
                }
            }
            for (int i = 0; i < 50; i++) // anything else that might arrive
            {
                agent.doWork();
                Thread.sleep(1);
            }
        }

        assertEquals(2, agent.counters().packetsReceived().get(), "only the exchange's datagrams");
        assertEquals(0, agent.counters().endOfSession().get());
        assertEquals(0, agent.counters().gaps().get());
        final PartitionRings.MappedRing consumer = PartitionRings.map(ringDir, 0);
        try
        {
            final List<Rings.Rec> records = Rings.drain(consumer.ring());
            assertEquals(3, records.size());
            assertEquals(102, io.mdfanout.wire.WireFormat.exchangeTimestamp(records.get(2).buffer(), 0),
                "the exchange's delete, not the stranger's");
        }
        finally
        {
            consumer.close();
        }
    }

    @Test
    void sourceMustBeAUnicastAddress()
    {
        final FeedHandlerConfig config = new FeedHandlerConfig()
            .group(GROUP).port(PORT).interfaceAddress("127.0.0.1").source("239.1.2.3").ringDir(ringDir).partitions(1);
        final IllegalArgumentException ex = org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, config::validate);
        assertTrue(ex.getMessage().contains("239.1.2.3"), ex.getMessage());
    }

    @Test
    void wrongInterfaceIsAClearError()
    {
        final FeedHandlerConfig config = new FeedHandlerConfig()
            .group(GROUP).port(PORT + 1).interfaceAddress("10.255.255.254").ringDir(ringDir).partitions(1);
        final IllegalArgumentException ex = org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () -> new FeedHandlerAgent(config, Rings.inMemory(1, 4096), new InMemoryCounters(64).countersManager()));
        assertTrue(ex.getMessage().contains("10.255.255.254"), ex.getMessage());
        IoUtil.delete(ringDir.toFile(), true);
    }
}
