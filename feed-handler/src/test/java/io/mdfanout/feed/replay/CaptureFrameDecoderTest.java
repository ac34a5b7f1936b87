package io.mdfanout.feed.replay;

import io.mdfanout.feed.handler.InMemoryCounters;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.Arrays;

import static io.mdfanout.feed.replay.CaptureFiles.ip;
import static io.mdfanout.feed.replay.CaptureFiles.ipv4Udp;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Link layers, IPv4 and UDP parsing, filtering and every skipped-frame counter. */
class CaptureFrameDecoderTest
{
    private static final int GROUP = ip(239, 255, 48, 1);
    private static final int PORT = 48001;
    private static final byte[] PAYLOAD = "MOLDUDP64-PAYLOAD".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final CaptureCounters counters = new CaptureCounters(new InMemoryCounters(64).countersManager());
    private final CollectingHandler handler = new CollectingHandler();
    private final CaptureFrameDecoder filtered = new CaptureFrameDecoder(false, GROUP, PORT, handler, counters);
    private final CaptureFrameDecoder any =
        new CaptureFrameDecoder(true, 0, CaptureFrameDecoder.ANY_PORT, handler, counters);

    private void decode(final CaptureFrameDecoder decoder, final int linkType, final byte[] frame)
    {
        // at an offset inside a larger buffer, as the readers do
        final byte[] backing = new byte[frame.length + 40];
        System.arraycopy(frame, 0, backing, 20, frame.length);
        decoder.onFrame(linkType, new UnsafeBuffer(backing), 20, frame.length);
    }

    private void assertDelivered(final int count)
    {
        assertEquals(count, handler.payloads.size());
        for (final byte[] p : handler.payloads)
        {
            assertArrayEquals(PAYLOAD, p);
        }
        assertEquals(count, counters.datagrams().get());
    }

    @Test
    void everyLinkTypeDeliversTheUdpPayload()
    {
        final byte[] ip = ipv4Udp(GROUP, PORT, PAYLOAD);
        decode(filtered, CaptureFiles.ETHERNET, CaptureFiles.ethernet(ip));
        decode(filtered, CaptureFiles.ETHERNET, CaptureFiles.ethernet(ip, 0x8100));
        decode(filtered, CaptureFiles.ETHERNET, CaptureFiles.ethernet(ip, 0x88A8, 0x8100));
        decode(filtered, CaptureFiles.SLL, CaptureFiles.sll(ip));
        decode(filtered, CaptureFiles.SLL2, CaptureFiles.sll2(ip));
        decode(filtered, CaptureFiles.RAW, ip);
        decode(filtered, 228, ip);
        decode(filtered, CaptureFiles.NULL, CaptureFiles.loopback(ip, ByteOrder.LITTLE_ENDIAN));
        decode(filtered, CaptureFiles.NULL, CaptureFiles.loopback(ip, ByteOrder.BIG_ENDIAN));
        assertDelivered(9);
    }

    @Test
    void ipOptionsAreHonouredAndEthernetPaddingIsTrimmed()
    {
        final byte[] withOptions = CaptureFiles.ipv4Udp(ip(10, 0, 0, 1), GROUP, PORT, PAYLOAD, 7, 0);
        decode(filtered, CaptureFiles.RAW, withOptions);
        // a short frame padded to the Ethernet minimum: the IP total length says where the datagram ends
        decode(filtered, CaptureFiles.ETHERNET, Arrays.copyOf(CaptureFiles.ethernet(withOptions), 120));
        assertDelivered(2);
    }

    @Test
    void groupAndPortFilter()
    {
        decode(filtered, CaptureFiles.RAW, ipv4Udp(ip(239, 255, 48, 3), PORT, PAYLOAD));
        decode(filtered, CaptureFiles.RAW, ipv4Udp(GROUP, PORT + 2, PAYLOAD));
        assertEquals(2, counters.filteredOut().get());
        assertDelivered(0);

        decode(any, CaptureFiles.RAW, ipv4Udp(ip(239, 255, 48, 3), PORT + 2, PAYLOAD));
        final CaptureFrameDecoder portOnly = new CaptureFrameDecoder(true, 0, PORT, handler, counters);
        decode(portOnly, CaptureFiles.RAW, ipv4Udp(ip(239, 255, 48, 3), PORT, PAYLOAD));
        decode(portOnly, CaptureFiles.RAW, ipv4Udp(ip(239, 255, 48, 3), PORT + 4, PAYLOAD));
        assertEquals(3, counters.filteredOut().get());
        assertDelivered(2);
    }

    @Test
    void fragmentsAfterTheFirstAreSkippedAndTheFirstDeliversWhatItCarries()
    {
        decode(filtered, CaptureFiles.RAW, CaptureFiles.ipv4Udp(ip(10, 0, 0, 1), GROUP, PORT, PAYLOAD, 5, 185));
        assertEquals(1, counters.fragmentsSkipped().get());

        // first fragment: MF set, UDP length says 100 more bytes than are here
        final byte[] first = CaptureFiles.ipv4Udp(ip(10, 0, 0, 1), GROUP, PORT, PAYLOAD, 5, 0x2000);
        first[24] = 0;
        first[25] = (byte)(8 + PAYLOAD.length + 100);
        decode(filtered, CaptureFiles.RAW, first);
        assertEquals(1, counters.firstFragments().get());
        assertDelivered(1);
    }

    @Test
    void everyBadFrameIsCountedAndSkipped()
    {
        final byte[] ip = ipv4Udp(GROUP, PORT, PAYLOAD);
        decode(filtered, CaptureFiles.RAW, CaptureFiles.ipv4Tcp(GROUP));
        assertEquals(1, counters.nonUdp().get());

        decode(filtered, CaptureFiles.ETHERNET, CaptureFiles.ethernet(0x86DD, ip));
        decode(filtered, CaptureFiles.ETHERNET, CaptureFiles.ethernet(0x0806, new byte[28], 0x8100));
        final byte[] ipv6 = ip.clone();
        ipv6[0] = 0x60;
        decode(filtered, CaptureFiles.RAW, ipv6);
        final byte[] sllArp = CaptureFiles.sll(ip);
        sllArp[14] = 0x08;
        sllArp[15] = 0x06;
        decode(filtered, CaptureFiles.SLL, sllArp);
        decode(filtered, CaptureFiles.NULL, withFamily(CaptureFiles.loopback(ip, ByteOrder.LITTLE_ENDIAN), 24)); // IPv6
        assertEquals(5, counters.nonIpv4().get());

        decode(filtered, 147, ip);
        assertEquals(1, counters.unknownLinkType().get());

        long malformed = 0;
        decode(filtered, CaptureFiles.ETHERNET, Arrays.copyOf(CaptureFiles.ethernet(ip), 13));
        decode(filtered, CaptureFiles.ETHERNET, Arrays.copyOf(CaptureFiles.ethernet(ip, 0x8100), 16));
        decode(filtered, CaptureFiles.SLL, new byte[15]);
        decode(filtered, CaptureFiles.SLL2, new byte[19]);
        decode(filtered, CaptureFiles.NULL, new byte[3]);
        decode(filtered, CaptureFiles.RAW, new byte[0]);
        decode(filtered, CaptureFiles.RAW, Arrays.copyOf(ip, 19));
        malformed += 7;
        assertEquals(malformed, counters.malformedRecords().get());

        final byte[] badIhl = ip.clone();
        badIhl[0] = 0x44; // 16-byte header
        decode(filtered, CaptureFiles.RAW, badIhl);
        final byte[] ihlPastEnd = ip.clone();
        ihlPastEnd[0] = 0x4F; // 60-byte header in a shorter datagram
        decode(filtered, CaptureFiles.RAW, Arrays.copyOf(ihlPastEnd, 40));
        final byte[] totalTooLong = ip.clone();
        totalTooLong[2] = 0x10; // total length 4096 > frame
        decode(filtered, CaptureFiles.RAW, totalTooLong);
        final byte[] totalTooShort = ip.clone();
        totalTooShort[2] = 0;
        totalTooShort[3] = 10; // total length under the header
        decode(filtered, CaptureFiles.RAW, totalTooShort);
        final byte[] udpTooShort = ip.clone();
        udpTooShort[2] = 0;
        udpTooShort[3] = 24; // 4 bytes of UDP header
        decode(filtered, CaptureFiles.RAW, udpTooShort);
        final byte[] udpLengthPastEnd = ip.clone();
        udpLengthPastEnd[24] = 0x10;
        decode(filtered, CaptureFiles.RAW, udpLengthPastEnd);
        final byte[] udpLengthUnderHeader = ip.clone();
        udpLengthUnderHeader[24] = 0;
        udpLengthUnderHeader[25] = 7;
        decode(filtered, CaptureFiles.RAW, udpLengthUnderHeader);
        malformed += 7;
        assertEquals(malformed, counters.malformedRecords().get());
        assertDelivered(0);

        // and the decoder still works after all of that
        decode(filtered, CaptureFiles.RAW, ip);
        assertDelivered(1);
    }

    private static byte[] withFamily(final byte[] frame, final int family)
    {
        frame[0] = (byte)family;
        return frame;
    }
}
