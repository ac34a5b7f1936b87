package io.mdfanout.feed.replay;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static io.mdfanout.feed.replay.CaptureFiles.ip;
import static io.mdfanout.feed.replay.CaptureFiles.ipv4Udp;
import static io.mdfanout.feed.replay.CaptureFixture.moldPacket;
import static io.mdfanout.feed.replay.CaptureFixture.range;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** pcapng captures: several interfaces and link types, simple packets, other blocks, both byte orders. */
class PcapNgReaderTest
{
    private static final int GROUP = ip(239, 255, 48, 9);
    private static final int PORT = 48009;

    @TempDir
    Path dir;

    private static byte[] udp(final long sequence, final int count)
    {
        return ipv4Udp(GROUP, PORT, moldPacket(sequence, count));
    }

    @Test
    void severalInterfacesLinkTypesAndSectionsOfBothByteOrders() throws IOException
    {
        final byte[] capture = new CaptureFiles.PcapNg()
            .section(ByteOrder.LITTLE_ENDIAN)
            .iface(CaptureFiles.ETHERNET, 0, -1)
            .iface(CaptureFiles.SLL, 65535, 9)   // nanoseconds
            .iface(CaptureFiles.RAW, 0, 0x80 | 20) // 2^-20 seconds
            .other(4, 24)                          // name resolution block
            .epb(0, 1, CaptureFiles.ethernet(udp(1, 2)))
            .epb(1, 2, CaptureFiles.sll(udp(3, 2)))
            .other(5, 32)                          // interface statistics
            .epb(2, 3, udp(5, 1))
            .other(0x00000BAD, 8)                  // custom
            .section(ByteOrder.BIG_ENDIAN)         // a new section restarts the interface numbering
            .iface(CaptureFiles.RAW, 0, -1)
            .epb(0, 4, udp(6, 3))
            .spb(udp(9, 1))
            .bytes();
        final CaptureFixture fixture = new CaptureFixture(false, GROUP, PORT, ReplayPace.MAX);
        assertEquals(ItchFileReplayer.Outcome.COMPLETED, fixture.replay(dir, capture, false));
        assertEquals(range(1, 9), fixture.drainSequences());
        assertEquals(5, fixture.captureCounters.records().get());
        assertEquals(3, fixture.captureCounters.otherBlocks().get());
        assertEquals(0, fixture.captureCounters.malformedRecords().get());
    }

    @Test
    void gzippedCaptureWithSnappedAndBadPackets() throws IOException
    {
        final byte[] capture = new CaptureFiles.PcapNg()
            .section(ByteOrder.BIG_ENDIAN)
            .iface(CaptureFiles.ETHERNET, 0, -1)
            .epb(0, 1, CaptureFiles.ethernet(udp(1, 2)))
            .epb(0, 2, CaptureFiles.ethernet(udp(3, 1)), 9000) // captured shorter than on the wire
            .epb(7, 3, CaptureFiles.ethernet(udp(3, 1)))       // no such interface
            .epb(0, 4, CaptureFiles.ethernet(ipv4Udp(GROUP, PORT + 2, moldPacket(50, 1))))
            .epb(0, 5, CaptureFiles.ethernet(udp(4, 2)))
            .bytes();
        final CaptureFixture fixture = new CaptureFixture(false, GROUP, PORT, ReplayPace.MAX);
        assertEquals(ItchFileReplayer.Outcome.COMPLETED, fixture.replay(dir, capture, true));
        assertEquals(List.of(1L, 2L, -3L, 4L, 5L), fixture.drainSequences());
        assertEquals(1, fixture.captureCounters.snappedRecords().get());
        assertEquals(1, fixture.captureCounters.unknownLinkType().get());
        assertEquals(1, fixture.captureCounters.filteredOut().get());
    }

    @Test
    void simplePacketWithoutInterfaceAndImpossibleBlockLength() throws IOException
    {
        final byte[] noInterface = new CaptureFiles.PcapNg()
            .section(ByteOrder.LITTLE_ENDIAN)
            .spb(udp(1, 1))
            .iface(CaptureFiles.RAW, 0, -1)
            .spb(udp(1, 1))
            .bytes();
        final CaptureFixture fixture = new CaptureFixture();
        assertEquals(ItchFileReplayer.Outcome.COMPLETED, fixture.replay(dir, noInterface, false));
        assertEquals(1, fixture.captureCounters.unknownLinkType().get());
        assertEquals(range(1, 1), fixture.drainSequences());

        // a block length that is not a multiple of 4: the framing is lost, what came before is kept
        final byte[] broken = new CaptureFiles.PcapNg()
            .section(ByteOrder.LITTLE_ENDIAN)
            .iface(CaptureFiles.RAW, 0, -1)
            .epb(0, 1, udp(1, 2))
            .raw(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(6).putInt(33).array())
            .epb(0, 2, udp(3, 2))
            .bytes();
        final CaptureFixture brokenFixture = new CaptureFixture();
        assertEquals(ItchFileReplayer.Outcome.UNFRAMEABLE, brokenFixture.replay(dir, broken, false));
        assertEquals(range(1, 2), brokenFixture.drainSequences());
        assertEquals(1, brokenFixture.captureCounters.malformedRecords().get());
    }

    @Test
    void truncatedLastBlockAndCapturedLengthPastTheBlock() throws IOException
    {
        final byte[] whole = new CaptureFiles.PcapNg()
            .section(ByteOrder.BIG_ENDIAN)
            .iface(CaptureFiles.RAW, 0, -1)
            .epb(0, 1, udp(1, 2))
            .epb(0, 2, udp(3, 2))
            .bytes();
        final CaptureFixture fixture = new CaptureFixture();
        assertEquals(ItchFileReplayer.Outcome.TRUNCATED, fixture.replay(dir, Arrays.copyOf(whole, whole.length - 6), false));
        assertEquals(range(1, 2), fixture.drainSequences());
        assertEquals(1, fixture.captureCounters.truncatedAtEnd().get());

        final byte[] lying = whole.clone();
        // first EPB starts after the SHB (28) and the IDB (20): its captured length is at +8+12
        final int capturedLengthOffset = 28 + 20 + 8 + 12;
        lying[capturedLengthOffset] = 0x7F;
        final CaptureFixture lyingFixture = new CaptureFixture();
        assertEquals(ItchFileReplayer.Outcome.COMPLETED, lyingFixture.replay(dir, lying, false));
        assertEquals(1, lyingFixture.captureCounters.malformedRecords().get());
        assertEquals(List.of(-1L, 3L, 4L), lyingFixture.drainSequences());
    }

    @Test
    void timestampResolutions()
    {
        assertEquals(1_500_000_000L, PcapNgReader.toNanos(1_500_000, 6));
        assertEquals(1_500_000_000L, PcapNgReader.toNanos(1_500_000_000L, 9));
        assertEquals(1_500_000_000L, PcapNgReader.toNanos(15_000_000_000L, 10));
        assertEquals(1_500_000_000L, PcapNgReader.toNanos(3L << 19, 0x80 | 20));
        assertTrue(PcapNgReader.toNanos(Long.MAX_VALUE, 30) >= 0);
    }
}
