package io.mdfanout.feed.sim;

import io.mdfanout.wire.ExitCodes;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pcap capture, parsed back here independently of the writer: global header, record headers, Ethernet, IPv4
 * (with its checksum recomputed here), UDP, and the payload equal to the packets generated.
 */
class PcapWriterTest
{
    @TempDir
    Path dir;

    @Test
    void everyPacketIsARecordWithCorrectHeadersAndItsExactBytes() throws Exception
    {
        final Path file = dir.resolve("session.pcap");
        final List<byte[]> generated = new ArrayList<>();
        final long beforeUs = System.currentTimeMillis() * 1000 - 1_000_000;
        try (SimulatorCounters counters = SimulatorCounters.create();
            PcapWriter pcap = new PcapWriter(file, "127.0.0.1", "239.255.47.33", 47033, 7, counters))
        {
            final MoldUdp64Packetizer packetizer = new MoldUdp64Packetizer("PCAPTEST", 1400, 1_000_000L,
                SystemNanoClock.INSTANCE, new PacketDistributor(pcap, null, (buffer, offset, length) ->
                {
                    final byte[] copy = new byte[length];
                    buffer.getBytes(offset, copy);
                    generated.add(copy);
                }), counters);
            final SessionGenerator generator = new SessionGenerator(2, new SessionConfig().symbols(5).messageCount(20_000));
            final ItchEvent event = new ItchEvent();
            int i = 0;
            while (generator.next(event))
            {
                packetizer.append(event);
                if (++i % 5_000 == 0)
                {
                    packetizer.flush();
                    Thread.sleep(2);
                    packetizer.heartbeatIfIdle();  // 1 ms interval: a heartbeat lands in the capture too
                }
            }
            packetizer.endOfSession();
            assertEquals(generated.size(), pcap.records());
        }
        final long afterUs = System.currentTimeMillis() * 1000 + 1_000_000;

        final List<byte[]> payloads = parse(Files.readAllBytes(file), "127.0.0.1", 0xEFFF2F21, 47033, 7,
            beforeUs, afterUs);
        assertEquals(generated.size(), payloads.size());
        for (int p = 0; p < generated.size(); p++)
        {
            assertArrayEquals(generated.get(p), payloads.get(p), "packet " + p);
        }
        assertTrue(generated.stream().anyMatch(packet -> packet.length == 20 && packet[19] == 0), "has a heartbeat");
        assertEquals(0xFF, generated.get(generated.size() - 1)[18] & 0xFF, "ends with end of session");
    }

    @Test
    void noSendCaptureIsDeterministicApartFromTimestamps() throws Exception
    {
        final Path first = dir.resolve("a.pcap");
        final Path second = dir.resolve("b.pcap");
        for (final Path file : new Path[]{ first, second })
        {
            assertEquals(0, new CommandLine(new SimulatorCommand()).execute("--no-send", "--pcap-file",
                file.toString(), "--messages", "3000", "--symbols", "4", "--seed", "6", "--group", "239.255.47.35",
                "--port", "47035"));
        }
        final byte[] a = Files.readAllBytes(first);
        final byte[] b = Files.readAllBytes(second);
        zeroTimestamps(a);
        zeroTimestamps(b);
        assertArrayEquals(a, b);

        // The messages of the capture are the session of the seed, in sequence.
        final List<byte[]> payloads = parse(Files.readAllBytes(first), "127.0.0.1", 0xEFFF2F23, 47035, 1, 0,
            Long.MAX_VALUE);
        long expectedSequence = 1;
        for (final byte[] payload : payloads)
        {
            final ByteBuffer view = ByteBuffer.wrap(payload);
            assertEquals(expectedSequence, view.getLong(10));
            final int count = view.getShort(18) & 0xFFFF;
            expectedSequence += count == 0xFFFF ? 0 : count;
        }
        assertEquals(3001, expectedSequence);
    }

    @Test
    void aCaptureThatCannotBeCreatedIsAConfigurationError()
    {
        assertEquals(ExitCodes.CONFIG, new CommandLine(new SimulatorCommand()).execute("--no-send",
            "--pcap-file", dir.resolve("no/such/dir/x.pcap").toString(), "--messages", "1000"));
    }

    /** Parses a classic little-endian microsecond pcap of Ethernet/IPv4/UDP frames and returns the UDP payloads. */
    static List<byte[]> parse(
        final byte[] capture,
        final String source,
        final int group,
        final int port,
        final int ttl,
        final long fromUs,
        final long toUs) throws Exception
    {
        final ByteBuffer in = ByteBuffer.wrap(capture).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(0xA1B2C3D4, in.getInt(0), "magic");
        assertEquals(2, in.getShort(4));
        assertEquals(4, in.getShort(6));
        assertEquals(0, in.getInt(8));
        assertEquals(0, in.getInt(12));
        assertEquals(65_535, in.getInt(16), "snaplen");
        assertEquals(1, in.getInt(20), "LINKTYPE_ETHERNET");

        final byte[] sourceAddress = java.net.InetAddress.getByName(source).getAddress();
        final List<byte[]> payloads = new ArrayList<>();
        int position = 24;
        long lastUs = 0;
        int identification = 0;
        while (position < capture.length)
        {
            final long seconds = in.getInt(position) & 0xFFFF_FFFFL;
            final long micros = in.getInt(position + 4) & 0xFFFF_FFFFL;
            final int included = in.getInt(position + 8);
            final int original = in.getInt(position + 12);
            assertTrue(micros < 1_000_000, "microseconds");
            final long timeUs = seconds * 1_000_000 + micros;
            assertTrue(timeUs >= fromUs && timeUs <= toUs && timeUs >= lastUs, "timestamp " + timeUs);
            lastUs = timeUs;
            assertEquals(original, included);
            position += 16;

            final ByteBuffer frame = ByteBuffer.wrap(capture, position, included).slice().order(ByteOrder.BIG_ENDIAN);
            final byte[] expectedMac = { 0x01, 0x00, 0x5E, (byte)((group >>> 16) & 0x7F), (byte)(group >>> 8),
                (byte)group };
            assertArrayEquals(expectedMac, Arrays.copyOfRange(capture, position, position + 6), "multicast MAC");
            assertEquals(0x0800, frame.getShort(12) & 0xFFFF, "ethertype IPv4");

            final int ip = 14;
            assertEquals(0x45, frame.get(ip) & 0xFF, "IPv4, 20-byte header");
            assertEquals(included - 14, frame.getShort(ip + 2) & 0xFFFF, "IP total length");
            assertEquals(identification++ & 0xFFFF, frame.getShort(ip + 4) & 0xFFFF, "identification");
            assertEquals(ttl, frame.get(ip + 8) & 0xFF, "TTL");
            assertEquals(17, frame.get(ip + 9), "protocol UDP");
            int sum = 0;
            for (int i = 0; i < 20; i += 2)
            {
                sum += frame.getShort(ip + i) & 0xFFFF;
            }
            sum = (sum & 0xFFFF) + (sum >>> 16);
            sum = (sum & 0xFFFF) + (sum >>> 16);
            assertEquals(0xFFFF, sum, "IPv4 header checksum verifies");
            assertArrayEquals(sourceAddress, Arrays.copyOfRange(capture, position + ip + 12, position + ip + 16));
            assertEquals(group, frame.getInt(ip + 16), "destination = group");

            final int udp = ip + 20;
            assertEquals(PcapWriter.SOURCE_PORT, frame.getShort(udp) & 0xFFFF);
            assertEquals(port, frame.getShort(udp + 2) & 0xFFFF);
            assertEquals(included - 34, frame.getShort(udp + 4) & 0xFFFF, "UDP length");
            assertEquals(0, frame.getShort(udp + 6), "UDP checksum not computed");

            payloads.add(Arrays.copyOfRange(capture, position + udp + 8, position + included));
            position += included;
        }
        assertEquals(capture.length, position, "no trailing bytes");
        return payloads;
    }

    private static void zeroTimestamps(final byte[] capture)
    {
        final ByteBuffer in = ByteBuffer.wrap(capture).order(ByteOrder.LITTLE_ENDIAN);
        int position = 24;
        while (position < capture.length)
        {
            final int included = in.getInt(position + 8);
            in.putLong(position, 0);
            position += 16 + included;
        }
    }
}
