package io.mdfanout.feed.replay;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static io.mdfanout.feed.replay.CaptureFiles.ip;
import static io.mdfanout.feed.replay.CaptureFiles.ipv4Udp;
import static io.mdfanout.feed.replay.CaptureFixture.moldPacket;
import static io.mdfanout.feed.replay.CaptureFixture.range;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Classic pcap captures of MoldUDP64 traffic replayed through the line arbiter into a ring. */
class PcapReaderTest
{
    private static final int GROUP = ip(239, 255, 48, 5);
    private static final int PORT = 48005;

    @TempDir
    Path dir;

    private static byte[] frame(final long sequence, final int count)
    {
        return CaptureFiles.ethernet(ipv4Udp(GROUP, PORT, moldPacket(sequence, count)), 0x8100);
    }

    @ParameterizedTest
    @CsvSource({"BIG_ENDIAN,false,false", "LITTLE_ENDIAN,false,false", "BIG_ENDIAN,true,false",
        "LITTLE_ENDIAN,true,true"})
    void bothByteOrdersAndResolutions(final String orderName, final boolean nanos, final boolean gzip) throws IOException
    {
        final ByteOrder order = "BIG_ENDIAN".equals(orderName) ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        final byte[] capture = new CaptureFiles.Pcap(order, nanos, CaptureFiles.ETHERNET)
            .record(1_000_000_000L, frame(1, 3))
            .record(1_000_001_000L, frame(4, 2))
            .record(1_000_002_000L, frame(6, 4))
            .bytes();
        final CaptureFixture fixture = new CaptureFixture(false, GROUP, PORT, ReplayPace.MAX);
        assertEquals(ItchFileReplayer.Outcome.COMPLETED, fixture.replay(dir, capture, gzip));
        assertEquals(range(1, 9), fixture.drainSequences());
        assertEquals(3, fixture.captureCounters.records().get());
        assertEquals(3, fixture.captureCounters.datagrams().get());
        assertEquals(9, fixture.normalizerCounters.messagesPublished().get());
    }

    @Test
    void sllCaptureWithOtherTrafficAndSnappedRecords() throws IOException
    {
        final byte[] capture = new CaptureFiles.Pcap(ByteOrder.LITTLE_ENDIAN, false, CaptureFiles.SLL)
            .record(1, CaptureFiles.sll(ipv4Udp(GROUP, PORT, moldPacket(1, 2))))
            .record(2, CaptureFiles.sll(ipv4Udp(GROUP, PORT + 2, moldPacket(100, 2))))      // other port
            .record(3, CaptureFiles.sll(ipv4Udp(ip(239, 255, 48, 7), PORT, moldPacket(200, 2)))) // other group
            .record(4, CaptureFiles.sll(CaptureFiles.ipv4Tcp(GROUP)))
            .record(5, CaptureFiles.sll(ipv4Udp(GROUP, PORT, moldPacket(3, 2))), 40, 90)      // snapped: skipped
            .record(6, CaptureFiles.sll(ipv4Udp(GROUP, PORT, moldPacket(5, 1))))
            .bytes();
        final CaptureFixture fixture = new CaptureFixture(false, GROUP, PORT, ReplayPace.MAX);
        assertEquals(ItchFileReplayer.Outcome.COMPLETED, fixture.replay(dir, capture, false));
        // 3 and 4 were in the snapped record: a gap, announced by a GapNotice, then 5
        assertEquals(List.of(1L, 2L, -3L, 5L), fixture.drainSequences());
        assertEquals(6, fixture.captureCounters.records().get());
        assertEquals(2, fixture.captureCounters.filteredOut().get());
        assertEquals(1, fixture.captureCounters.nonUdp().get());
        assertEquals(1, fixture.captureCounters.snappedRecords().get());
        assertEquals(1, fixture.feedCounters.gaps().get());
    }

    @Test
    void linkTypeWithFcsBitsAndFramesWithAnFcs() throws IOException
    {
        // link type field: Ethernet, F bit set, FCS length 2 x 16 bits; each frame ends with its 4-byte FCS
        final int linkTypeField = CaptureFiles.ETHERNET | (1 << 28) | (2 << 26);
        final byte[] withFcs1 = Arrays.copyOf(frame(1, 2), frame(1, 2).length + 4);
        final byte[] withFcs2 = Arrays.copyOf(frame(3, 1), frame(3, 1).length + 4);
        final byte[] capture = new CaptureFiles.Pcap(ByteOrder.BIG_ENDIAN, false, linkTypeField)
            .record(1, withFcs1).record(2, withFcs2).bytes();
        final CaptureFixture fixture = new CaptureFixture(false, GROUP, PORT, ReplayPace.MAX);
        assertEquals(ItchFileReplayer.Outcome.COMPLETED, fixture.replay(dir, capture, false));
        assertEquals(range(1, 3), fixture.drainSequences());
    }

    @Test
    void truncatedLastRecordEndsTheReplayKeepingWhatCameBefore() throws IOException
    {
        final byte[] whole = new CaptureFiles.Pcap(ByteOrder.BIG_ENDIAN, false, CaptureFiles.RAW)
            .record(1, ipv4Udp(GROUP, PORT, moldPacket(1, 2)))
            .record(2, ipv4Udp(GROUP, PORT, moldPacket(3, 2)))
            .bytes();
        final CaptureFixture fixture = new CaptureFixture();
        assertEquals(ItchFileReplayer.Outcome.TRUNCATED, fixture.replay(dir, Arrays.copyOf(whole, whole.length - 5), false));
        assertEquals(range(1, 2), fixture.drainSequences());
        assertEquals(1, fixture.captureCounters.truncatedAtEnd().get());

        final CaptureFixture headerCut = new CaptureFixture();
        final int secondRecordHeader = 24 + 16 + ipv4Udp(GROUP, PORT, moldPacket(1, 2)).length;
        assertEquals(ItchFileReplayer.Outcome.TRUNCATED,
            headerCut.replay(dir, Arrays.copyOf(whole, secondRecordHeader + 7), false));
        assertEquals(range(1, 2), headerCut.drainSequences());
    }

    @Test
    void oversizedRecordIsSkippedAndUnknownLinkTypeIsCounted() throws IOException
    {
        final byte[] big = new byte[CaptureReader.MAX_FRAME_LENGTH + 100];
        final byte[] capture = new CaptureFiles.Pcap(ByteOrder.LITTLE_ENDIAN, true, CaptureFiles.RAW)
            .record(1, ipv4Udp(GROUP, PORT, moldPacket(1, 1)))
            .record(2, big)
            .record(3, ipv4Udp(GROUP, PORT, moldPacket(2, 1)))
            .bytes();
        final CaptureFixture fixture = new CaptureFixture();
        assertEquals(ItchFileReplayer.Outcome.COMPLETED, fixture.replay(dir, capture, false));
        assertEquals(range(1, 2), fixture.drainSequences());
        assertEquals(1, fixture.captureCounters.malformedRecords().get());

        final byte[] tokenRing = new CaptureFiles.Pcap(ByteOrder.LITTLE_ENDIAN, false, 6)
            .record(1, ipv4Udp(GROUP, PORT, moldPacket(1, 1)))
            .record(2, ipv4Udp(GROUP, PORT, moldPacket(2, 1)))
            .bytes();
        final CaptureFixture unknown = new CaptureFixture();
        assertEquals(ItchFileReplayer.Outcome.COMPLETED, unknown.replay(dir, tokenRing, false));
        assertEquals(2, unknown.captureCounters.unknownLinkType().get());
        assertEquals(List.of(), unknown.drainSequences());
    }

    @Test
    void originalPaceFollowsTheCaptureTimestamps() throws IOException
    {
        final byte[] capture = new CaptureFiles.Pcap(ByteOrder.LITTLE_ENDIAN, false, CaptureFiles.RAW)
            .record(5_000_000_000L, ipv4Udp(GROUP, PORT, moldPacket(1, 1)))
            .record(5_060_000_000L, ipv4Udp(GROUP, PORT, moldPacket(2, 1)))
            .bytes();
        final CaptureFixture fixture = new CaptureFixture(true, 0, -1, ReplayPace.ORIGINAL);
        final long start = System.nanoTime();
        assertEquals(ItchFileReplayer.Outcome.COMPLETED, fixture.replay(dir, capture, false));
        assertTrue(System.nanoTime() - start >= 60_000_000L, "the second packet waited 60 ms after the first");
        assertEquals(range(1, 2), fixture.drainSequences());
    }

    @Test
    void unreadableFilesAreErrors() throws IOException
    {
        final CaptureFixture fixture = new CaptureFixture();
        assertThrows(NoSuchFileException.class, () -> fixture.replayer.replay(dir.resolve("absent.pcap")));
        final Path headerOnly = dir.resolve("short.pcap");
        Files.write(headerOnly, Arrays.copyOf(new CaptureFiles.Pcap(ByteOrder.BIG_ENDIAN, false, 1).bytes(), 10));
        final IOException ex = assertThrows(IOException.class, () -> fixture.replayer.replay(headerOnly));
        assertTrue(ex.getMessage().contains("pcap"), ex.getMessage());
        final Path itch = dir.resolve("not-a-capture");
        Files.write(itch, new byte[] {0, 12, 'S'});
        assertThrows(IOException.class, () -> fixture.replayer.replay(itch));
    }
}
