package io.mdfanout.feed.replay;

import io.mdfanout.testing.AllocationWindows;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.ByteOrder;

import static io.mdfanout.feed.replay.CaptureFiles.ip;
import static io.mdfanout.feed.replay.CaptureFiles.ipv4Udp;
import static io.mdfanout.feed.replay.CaptureFixture.moldPacket;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The capture replay path (reader -> frame decoder -> MoldUDP64 line arbiter -> normalizer -> ring)
 * allocates nothing per record in steady state, for pcap and pcapng alike.
 */
class CaptureAllocationTest
{
    private static final int GROUP = ip(239, 255, 48, 31);
    private static final int PORT = 48031;
    private static final int PACKETS = 2_000;
    private static final int PER_PACKET = 4;
    private static final MessageHandler DISCARD = (typeId, buffer, index, length) -> { };

    private static byte[] pcap(final long firstSequence)
    {
        final CaptureFiles.Pcap pcap = new CaptureFiles.Pcap(ByteOrder.LITTLE_ENDIAN, true, CaptureFiles.ETHERNET);
        for (int i = 0; i < PACKETS; i++)
        {
            pcap.record(i, CaptureFiles.ethernet(ipv4Udp(GROUP, PORT, moldPacket(firstSequence + i * PER_PACKET, PER_PACKET)),
                0x8100));
        }
        return pcap.bytes();
    }

    private static byte[] pcapng(final long firstSequence)
    {
        final CaptureFiles.PcapNg pcapng = new CaptureFiles.PcapNg().section(ByteOrder.BIG_ENDIAN)
            .iface(CaptureFiles.SLL, 0, 9);
        for (int i = 0; i < PACKETS; i++)
        {
            pcapng.epb(0, i, CaptureFiles.sll(ipv4Udp(GROUP, PORT, moldPacket(firstSequence + i * PER_PACKET, PER_PACKET))));
            pcapng.other(5, 16);
        }
        return pcapng.bytes();
    }

    private static void drain(final RingBuffer ring)
    {
        while (ring.read(DISCARD) > 0 || ring.consumerPosition() < ring.producerPosition())
        {
            // until empty
        }
    }

    @Test
    void pcapAndPcapngReplayAllocateNothingPerRecord() throws Exception
    {
        final CaptureFixture fixture = new CaptureFixture(false, GROUP, PORT, ReplayPace.MAX);
        final PcapReader pcapReader = new PcapReader(
            new CaptureFrameDecoder(false, GROUP, PORT, fixture.arbiter::onDatagram, fixture.captureCounters),
            fixture.captureCounters, ReplayPace.MAX);
        final PcapNgReader pcapNgReader = new PcapNgReader(
            new CaptureFrameDecoder(false, GROUP, PORT, fixture.arbiter::onDatagram, fixture.captureCounters),
            fixture.captureCounters, ReplayPace.MAX);

        final int rounds = 20;
        final ByteArrayInputStream[] pcaps = new ByteArrayInputStream[rounds];
        final ByteArrayInputStream[] pcapngs = new ByteArrayInputStream[rounds];
        long sequence = 1;
        for (int r = 0; r < rounds; r++)
        {
            pcaps[r] = new ByteArrayInputStream(pcap(sequence));
            sequence += PACKETS * PER_PACKET;
            pcapngs[r] = new ByteArrayInputStream(pcapng(sequence));
            sequence += PACKETS * PER_PACKET;
        }

        // The first rounds warm up (and let the JIT settle), then up to four measured rounds, then the rest.
        final int[] round = { 0 };
        final AllocationWindows.MeasuredWindow replayRound = () ->
        {
            final int r = round[0]++;
            final long before = AllocationWindows.allocatedBytes();
            final ItchFileReplayer.Outcome pcapOutcome = pcapReader.read(pcaps[r]);
            final ItchFileReplayer.Outcome pcapNgOutcome = pcapNgReader.read(pcapngs[r]);
            final long allocated = AllocationWindows.allocatedBytes() - before;
            assertEquals(ItchFileReplayer.Outcome.COMPLETED, pcapOutcome);
            assertEquals(ItchFileReplayer.Outcome.COMPLETED, pcapNgOutcome);
            drain(fixture.rings[0]);
            return allocated;
        };
        while (round[0] < rounds - 4)
        {
            replayRound.allocatedBytes();
        }
        AllocationWindows.assertOneMeasuredWindowAllocatesNothing(
            "replaying a pcap and a pcapng of " + PACKETS + " records each", 4, replayRound);
        while (round[0] < rounds)
        {
            replayRound.allocatedBytes();
        }

        assertEquals(sequence - 1, fixture.normalizerCounters.messagesPublished().get(), "every message published");
        assertEquals(0, fixture.feedCounters.gaps().get());
    }
}
