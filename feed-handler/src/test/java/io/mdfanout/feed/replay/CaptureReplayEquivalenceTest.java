package io.mdfanout.feed.replay;

import io.mdfanout.feed.handler.ArbitrationCounters;
import io.mdfanout.feed.handler.FeedHandlerCounters;
import io.mdfanout.feed.handler.InMemoryCounters;
import io.mdfanout.feed.handler.LineArbiter;
import io.mdfanout.feed.normalize.ItchNormalizer;
import io.mdfanout.feed.normalize.NormalizerCounters;
import io.mdfanout.feed.sim.ItchEvent;
import io.mdfanout.feed.sim.ItchFileWriter;
import io.mdfanout.feed.sim.MoldUdp64Packetizer;
import io.mdfanout.feed.sim.SessionConfig;
import io.mdfanout.feed.sim.SessionGenerator;
import io.mdfanout.feed.sim.SimulatorCounters;
import io.mdfanout.feed.support.RingWaitDeadline;
import io.mdfanout.feed.support.Rings;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import static io.mdfanout.feed.replay.CaptureFiles.ip;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One simulated session written both as a NASDAQ ITCH file and as captures of its MoldUDP64
 * packets (with heartbeats, the end of session and unrelated traffic): replaying any of them fills
 * the rings with exactly the same records, byte for byte.
 */
class CaptureReplayEquivalenceTest
{
    private static final int PARTITIONS = 4;
    private static final int RING_CAPACITY = 4 << 20;
    private static final int GROUP = ip(239, 255, 48, 11);
    private static final int PORT = 48011;
    private static final int MESSAGES = 20_000;

    @TempDir
    Path dir;

    private final List<byte[]> packets = new ArrayList<>();

    /** Writes the ITCH file and collects the packets of the same session. */
    private Path simulate() throws IOException
    {
        final Path itch = dir.resolve("session.itch");
        final CachedNanoClock clock = new CachedNanoClock();
        final SimulatorCounters simCounters = new SimulatorCounters(new InMemoryCounters(64).countersManager());
        final MoldUdp64Packetizer packetizer = new MoldUdp64Packetizer(
            "EQUIV", 1400, 1_000_000L, clock,
            (buffer, offset, length) ->
            {
                final byte[] copy = new byte[length];
                buffer.getBytes(offset, copy);
                packets.add(copy);
            },
            simCounters);
        final SessionGenerator generator = new SessionGenerator(42, new SessionConfig().symbols(30).messageCount(MESSAGES));
        final ItchEvent event = new ItchEvent();
        try (ItchFileWriter writer = new ItchFileWriter(itch))
        {
            int i = 0;
            while (generator.next(event))
            {
                writer.write(event);
                packetizer.append(event);
                if (++i % 1000 == 0)
                {
                    packetizer.flush();
                    clock.advance(2_000_000L);
                    assertTrue(packetizer.heartbeatIfIdle());
                }
            }
        }
        packetizer.flush();
        packetizer.endOfSession();
        return itch;
    }

    private byte[] pcap(final ByteOrder order)
    {
        final CaptureFiles.Pcap pcap = new CaptureFiles.Pcap(order, true, CaptureFiles.ETHERNET);
        long time = 1_700_000_000_000_000_000L;
        for (final byte[] packet : packets)
        {
            pcap.record(time++, CaptureFiles.ethernet(CaptureFiles.ipv4Udp(GROUP, PORT, packet)));
            // the same session on another port (line B of another feed): filtered out
            pcap.record(time++, CaptureFiles.ethernet(CaptureFiles.ipv4Udp(GROUP, PORT + 1, packets.get(0))));
        }
        return pcap.bytes();
    }

    private byte[] pcapng()
    {
        final CaptureFiles.PcapNg pcapng = new CaptureFiles.PcapNg().section(ByteOrder.BIG_ENDIAN)
            .iface(CaptureFiles.SLL, 0, 9).iface(CaptureFiles.ETHERNET, 0, -1);
        long time = 1_700_000_000_000_000_000L;
        int i = 0;
        for (final byte[] packet : packets)
        {
            final byte[] ip = CaptureFiles.ipv4Udp(GROUP, PORT, packet);
            if (i++ % 2 == 0)
            {
                pcapng.epb(0, time++, CaptureFiles.sll(ip));
            }
            else
            {
                pcapng.epb(1, time++, CaptureFiles.ethernet(ip, 0x8100));
            }
        }
        return pcapng.bytes();
    }

    private static final class Chain
    {
        final RingBuffer[] rings = Rings.inMemory(PARTITIONS, RING_CAPACITY);
        final InMemoryCounters counters = new InMemoryCounters(256);
        final NormalizerCounters normalizerCounters =
            new NormalizerCounters(counters.countersManager(), "t", PARTITIONS);
        final ItchNormalizer normalizer = new ItchNormalizer(rings, new RingWaitDeadline(), normalizerCounters);

        List<List<Rings.Rec>> drain()
        {
            final List<List<Rings.Rec>> all = new ArrayList<>();
            for (final RingBuffer ring : rings)
            {
                all.add(Rings.drain(ring));
            }
            return all;
        }
    }

    private List<List<Rings.Rec>> replayItch(final Path itch) throws IOException
    {
        final Chain chain = new Chain();
        final ReplayCounters replayCounters = new ReplayCounters(chain.counters.countersManager());
        assertEquals(ItchFileReplayer.Outcome.COMPLETED,
            new ItchFileReplayer(chain.normalizer, replayCounters, ReplayPace.MAX).replay(itch));
        assertEquals(MESSAGES, replayCounters.recordsRead().get());
        assertEquals(Files.size(itch), replayCounters.fileBytesRead().get());
        return chain.drain();
    }

    private List<List<Rings.Rec>> replayCapture(final Path capture) throws IOException
    {
        final Chain chain = new Chain();
        final FeedHandlerCounters feedCounters = new FeedHandlerCounters(chain.counters.countersManager(), "t");
        final CaptureCounters captureCounters = new CaptureCounters(chain.counters.countersManager());
        final LineArbiter arbiter = LineArbiter.singleLine("EQUIV", chain.normalizer, feedCounters,
            new ArbitrationCounters(chain.counters.countersManager(), "t"));
        final CaptureReplayer replayer = new CaptureReplayer(
            new CaptureFrameDecoder(false, GROUP, PORT, arbiter::onDatagram, captureCounters), captureCounters,
            ReplayPace.MAX);
        assertEquals(ItchFileReplayer.Outcome.COMPLETED, replayer.replay(capture));
        assertEquals(packets.size(), captureCounters.datagrams().get());
        assertEquals(0, feedCounters.gaps().get());
        assertEquals(1, feedCounters.endOfSession().get());
        assertTrue(feedCounters.heartbeats().get() >= MESSAGES / 1000);
        return chain.drain();
    }

    private static void assertSameRecords(final List<List<Rings.Rec>> expected, final List<List<Rings.Rec>> actual)
    {
        long total = 0;
        for (int p = 0; p < PARTITIONS; p++)
        {
            assertEquals(expected.get(p).size(), actual.get(p).size(), "records in partition " + p);
            for (int i = 0; i < expected.get(p).size(); i++)
            {
                final Rings.Rec e = expected.get(p).get(i);
                final Rings.Rec a = actual.get(p).get(i);
                assertEquals(e.typeId(), a.typeId());
                assertArrayEquals(e.buffer().byteArray(), a.buffer().byteArray(), "partition " + p + " record " + i);
            }
            total += expected.get(p).size();
        }
        assertTrue(total >= MESSAGES / 2, "the session filled the rings: " + total);
    }

    @Test
    void pcapAndPcapngReplaysEqualTheItchFileReplay() throws IOException
    {
        final Path itch = simulate();
        final List<List<Rings.Rec>> expected = replayItch(itch);

        final Path pcap = dir.resolve("session.pcap");
        Files.write(pcap, pcap(ByteOrder.LITTLE_ENDIAN));
        assertSameRecords(expected, replayCapture(pcap));

        final Path pcapGz = dir.resolve("session.pcap.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(pcapGz)))
        {
            out.write(pcap(ByteOrder.BIG_ENDIAN));
        }
        assertSameRecords(expected, replayCapture(pcapGz));

        final Path pcapng = dir.resolve("session.pcapng");
        Files.write(pcapng, pcapng());
        assertSameRecords(expected, replayCapture(pcapng));
    }
}
