package io.mdfanout.feed.replay;

import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * Decodes one captured frame down to its UDP payload: link layer (Ethernet with 802.1Q/802.1ad
 * tags, Linux cooked SLL and SLL2, raw IPv4, BSD loopback), IPv4 (honouring the header length,
 * trimming link-layer padding) and UDP, then filters by destination group and port and hands the
 * payload to a {@link DatagramHandler}.
 * <p>
 * Every frame that is not a complete UDP datagram is counted by its reason and skipped. IPv4 is not
 * reassembled: a fragment after the first is skipped, a first fragment hands on the part of the
 * payload it carries (the MoldUDP64 line arbiter keeps the complete messages in it and the rest
 * shows as a gap). Works on flyweight offsets only: no allocation per frame.
 */
public final class CaptureFrameDecoder
{
    /** LINKTYPE_NULL: BSD loopback, a 4-byte address family in the capturing host's byte order. */
    public static final int LINKTYPE_NULL = 0;
    /** LINKTYPE_ETHERNET. */
    public static final int LINKTYPE_ETHERNET = 1;
    /** LINKTYPE_RAW: the frame is an IP datagram. */
    public static final int LINKTYPE_RAW = 101;
    /** LINKTYPE_LINUX_SLL: Linux cooked capture v1 ({@code tcpdump -i any}). */
    public static final int LINKTYPE_LINUX_SLL = 113;
    /** LINKTYPE_IPV4: the frame is an IPv4 datagram. */
    public static final int LINKTYPE_IPV4 = 228;
    /** LINKTYPE_LINUX_SLL2: Linux cooked capture v2. */
    public static final int LINKTYPE_LINUX_SLL2 = 276;

    /** Match any destination group or port. */
    public static final int ANY_PORT = -1;

    private static final int ETHERNET_HEADER_LENGTH = 14;
    private static final int VLAN_TAG_LENGTH = 4;
    private static final int SLL_HEADER_LENGTH = 16;
    private static final int SLL2_HEADER_LENGTH = 20;
    private static final int NULL_HEADER_LENGTH = 4;
    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int ETHERTYPE_VLAN = 0x8100;
    private static final int ETHERTYPE_QINQ = 0x88A8;
    private static final int ETHERTYPE_QINQ_OLD = 0x9100;
    private static final int AF_INET = 2;
    private static final int IPV4_MIN_HEADER_LENGTH = 20;
    private static final int IP_PROTOCOL_UDP = 17;
    private static final int UDP_HEADER_LENGTH = 8;
    private static final int MORE_FRAGMENTS = 0x2000;
    private static final int FRAGMENT_OFFSET_MASK = 0x1FFF;

    private final boolean anyGroup;
    private final int group;
    private final int port;
    private final DatagramHandler handler;
    private final CaptureCounters counters;

    /**
     * Create a decoder.
     *
     * @param anyGroup true to accept every destination address.
     * @param group    the destination IPv4 address to accept (network order as an int) when not anyGroup.
     * @param port     the destination UDP port to accept, or {@link #ANY_PORT}.
     * @param handler  where the selected UDP payloads go.
     * @param counters where skipped frames are counted.
     */
    public CaptureFrameDecoder(
        final boolean anyGroup,
        final int group,
        final int port,
        final DatagramHandler handler,
        final CaptureCounters counters)
    {
        this.anyGroup = anyGroup;
        this.group = group;
        this.port = port;
        this.handler = handler;
        this.counters = counters;
    }

    /**
     * True when the link type is one this decoder understands.
     *
     * @param linkType a LINKTYPE_ value.
     * @return whether frames of this type can be decoded.
     */
    public static boolean isSupported(final int linkType)
    {
        switch (linkType)
        {
            case LINKTYPE_NULL:
            case LINKTYPE_ETHERNET:
            case LINKTYPE_RAW:
            case LINKTYPE_LINUX_SLL:
            case LINKTYPE_IPV4:
            case LINKTYPE_LINUX_SLL2:
                return true;
            default:
                return false;
        }
    }

    /**
     * Decode one complete captured frame.
     *
     * @param linkType the capture's LINKTYPE_ value for this frame.
     * @param buffer   holding the frame.
     * @param offset   of its first byte.
     * @param length   captured length (equal to the original length).
     */
    public void onFrame(final int linkType, final DirectBuffer buffer, final int offset, final int length)
    {
        switch (linkType)
        {
            case LINKTYPE_ETHERNET:
                onEthernet(buffer, offset, length);
                break;

            case LINKTYPE_LINUX_SLL:
                onCooked(buffer, offset, length, SLL_HEADER_LENGTH, SLL_HEADER_LENGTH - 2);
                break;

            case LINKTYPE_LINUX_SLL2:
                onCooked(buffer, offset, length, SLL2_HEADER_LENGTH, 0);
                break;

            case LINKTYPE_RAW:
            case LINKTYPE_IPV4:
                onIpv4(buffer, offset, length);
                break;

            case LINKTYPE_NULL:
                onLoopback(buffer, offset, length);
                break;

            default:
                counters.unknownLinkType().incrementRelease();
                break;
        }
    }

    private void onEthernet(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < ETHERNET_HEADER_LENGTH)
        {
            counters.malformedRecords().incrementRelease();
            return;
        }
        int position = ETHERNET_HEADER_LENGTH;
        int etherType = u16(buffer, offset + ETHERNET_HEADER_LENGTH - 2);
        // Each tag moves the header on by 4 bytes; the loop ends because position grows to length.
        while (ETHERTYPE_VLAN == etherType || ETHERTYPE_QINQ == etherType || ETHERTYPE_QINQ_OLD == etherType)
        {
            if (position + VLAN_TAG_LENGTH > length)
            {
                counters.malformedRecords().incrementRelease();
                return;
            }
            etherType = u16(buffer, offset + position + 2);
            position += VLAN_TAG_LENGTH;
        }
        if (ETHERTYPE_IPV4 != etherType)
        {
            counters.nonIpv4().incrementRelease();
            return;
        }
        onIpv4(buffer, offset + position, length - position);
    }

    private void onCooked(
        final DirectBuffer buffer, final int offset, final int length, final int headerLength, final int protocolOffset)
    {
        if (length < headerLength)
        {
            counters.malformedRecords().incrementRelease();
            return;
        }
        if (ETHERTYPE_IPV4 != u16(buffer, offset + protocolOffset))
        {
            counters.nonIpv4().incrementRelease();
            return;
        }
        onIpv4(buffer, offset + headerLength, length - headerLength);
    }

    private void onLoopback(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < NULL_HEADER_LENGTH)
        {
            counters.malformedRecords().incrementRelease();
            return;
        }
        // The family is in the byte order of the host that captured: accept either.
        final int family = buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN);
        if (AF_INET != family && AF_INET != Integer.reverseBytes(family))
        {
            counters.nonIpv4().incrementRelease();
            return;
        }
        onIpv4(buffer, offset + NULL_HEADER_LENGTH, length - NULL_HEADER_LENGTH);
    }

    private void onIpv4(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < 1)
        {
            counters.malformedRecords().incrementRelease();
            return;
        }
        final int versionAndLength = buffer.getByte(offset) & 0xFF;
        if (4 != versionAndLength >>> 4)
        {
            counters.nonIpv4().incrementRelease();
            return;
        }
        final int headerLength = (versionAndLength & 0x0F) * 4;
        if (length < IPV4_MIN_HEADER_LENGTH || headerLength < IPV4_MIN_HEADER_LENGTH || headerLength > length)
        {
            counters.malformedRecords().incrementRelease();
            return;
        }
        // Total length, not the frame length: Ethernet pads short frames with trailing bytes.
        final int totalLength = u16(buffer, offset + 2);
        if (totalLength < headerLength || totalLength > length)
        {
            counters.malformedRecords().incrementRelease();
            return;
        }
        final int fragment = u16(buffer, offset + 6);
        if (0 != (fragment & FRAGMENT_OFFSET_MASK))
        {
            counters.fragmentsSkipped().incrementRelease();
            return;
        }
        if (IP_PROTOCOL_UDP != (buffer.getByte(offset + 9) & 0xFF))
        {
            counters.nonUdp().incrementRelease();
            return;
        }

        final int udpOffset = offset + headerLength;
        final int udpAvailable = totalLength - headerLength;
        if (udpAvailable < UDP_HEADER_LENGTH)
        {
            counters.malformedRecords().incrementRelease();
            return;
        }
        final int udpLength = u16(buffer, udpOffset + 4);
        final int payloadLength;
        if (0 != (fragment & MORE_FRAGMENTS))
        {
            counters.firstFragments().incrementRelease();
            payloadLength = Math.min(udpAvailable, Math.max(udpLength, UDP_HEADER_LENGTH)) - UDP_HEADER_LENGTH;
        }
        else if (udpLength < UDP_HEADER_LENGTH || udpLength > udpAvailable)
        {
            counters.malformedRecords().incrementRelease();
            return;
        }
        else
        {
            payloadLength = udpLength - UDP_HEADER_LENGTH;
        }

        final int destination = buffer.getInt(offset + 16, ByteOrder.BIG_ENDIAN);
        final int destinationPort = u16(buffer, udpOffset + 2);
        if ((!anyGroup && destination != group) || (ANY_PORT != port && destinationPort != port))
        {
            counters.filteredOut().incrementRelease();
            return;
        }

        counters.datagrams().incrementRelease();
        handler.onDatagram(buffer, udpOffset + UDP_HEADER_LENGTH, payloadLength);
    }

    private static int u16(final DirectBuffer buffer, final int index)
    {
        return buffer.getShort(index, ByteOrder.BIG_ENDIAN) & 0xFFFF;
    }
}
