package io.mdfanout.feed.replay;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Builds capture files byte by byte for tests, after the libpcap and pcapng specifications, with
 * their own offsets and constants (not the readers'), so a wrong offset in a reader fails a test.
 */
public final class CaptureFiles
{
    public static final int ETHERNET = 1;
    public static final int RAW = 101;
    public static final int SLL = 113;
    public static final int SLL2 = 276;
    public static final int NULL = 0;

    private CaptureFiles()
    {
    }

    /** An IPv4 address as an int, e.g. ip(239, 255, 48, 1). */
    public static int ip(final int a, final int b, final int c, final int d)
    {
        return (a << 24) | (b << 16) | (c << 8) | d;
    }

    /** An IPv4 datagram carrying UDP; {@code ihlWords} >= 5 adds option bytes; {@code fragment} is the flags/offset field. */
    public static byte[] ipv4Udp(
        final int source, final int destination, final int destinationPort, final byte[] payload,
        final int ihlWords, final int fragment)
    {
        final int headerLength = ihlWords * 4;
        final int total = headerLength + 8 + payload.length;
        final ByteBuffer b = ByteBuffer.allocate(total).order(ByteOrder.BIG_ENDIAN);
        b.put((byte)(0x40 | ihlWords)).put((byte)0).putShort((short)total).putShort((short)1).putShort((short)fragment)
            .put((byte)64).put((byte)17).putShort((short)0).putInt(source).putInt(destination);
        for (int i = 20; i < headerLength; i++)
        {
            b.put((byte)1); // NOP options
        }
        b.putShort((short)40000).putShort((short)destinationPort).putShort((short)(8 + payload.length)).putShort((short)0)
            .put(payload);
        return b.array();
    }

    /** A UDP datagram to a group and port, plain 20-byte IP header. */
    public static byte[] ipv4Udp(final int destination, final int destinationPort, final byte[] payload)
    {
        return ipv4Udp(ip(10, 0, 0, 1), destination, destinationPort, payload, 5, 0);
    }

    /** An IPv4 datagram of another protocol. */
    public static byte[] ipv4Tcp(final int destination)
    {
        final byte[] b = ipv4Udp(destination, 80, new byte[12]);
        b[9] = 6;
        return b;
    }

    /** An Ethernet II frame around an IPv4 datagram, with optional 802.1Q/802.1ad tags (each a TPID). */
    public static byte[] ethernet(final byte[] ip, final int... tagTpids)
    {
        return ethernet(0x0800, ip, tagTpids);
    }

    /** An Ethernet II frame of any ethertype. */
    public static byte[] ethernet(final int etherType, final byte[] payload, final int... tagTpids)
    {
        final ByteBuffer b = ByteBuffer.allocate(14 + 4 * tagTpids.length + payload.length).order(ByteOrder.BIG_ENDIAN);
        b.put(new byte[] {1, 0, 0x5e, 0x7f, 0x30, 1}).put(new byte[] {2, 0, 0, 0, 0, 1});
        for (final int tpid : tagTpids)
        {
            b.putShort((short)tpid).putShort((short)0x0064);
        }
        b.putShort((short)etherType).put(payload);
        return b.array();
    }

    /** A Linux cooked (SLL) frame. */
    public static byte[] sll(final byte[] ip)
    {
        final ByteBuffer b = ByteBuffer.allocate(16 + ip.length).order(ByteOrder.BIG_ENDIAN);
        b.putShort((short)0).putShort((short)1).putShort((short)6).put(new byte[8]).putShort((short)0x0800).put(ip);
        return b.array();
    }

    /** A Linux cooked v2 (SLL2) frame. */
    public static byte[] sll2(final byte[] ip)
    {
        final ByteBuffer b = ByteBuffer.allocate(20 + ip.length).order(ByteOrder.BIG_ENDIAN);
        b.putShort((short)0x0800).putShort((short)0).putInt(2).putShort((short)1).put((byte)0).put((byte)6)
            .put(new byte[8]).put(ip);
        return b.array();
    }

    /** A BSD loopback frame: address family 2 in the given byte order. */
    public static byte[] loopback(final byte[] ip, final ByteOrder order)
    {
        return ByteBuffer.allocate(4 + ip.length).order(order).putInt(2).put(ip).array();
    }

    /** A classic pcap file. */
    public static final class Pcap
    {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final ByteOrder order;
        private final boolean nanos;

        public Pcap(final ByteOrder order, final boolean nanos, final int linkType)
        {
            this.order = order;
            this.nanos = nanos;
            out.writeBytes(ByteBuffer.allocate(24).order(order).putInt(nanos ? 0xA1B23C4D : 0xA1B2C3D4)
                .putShort((short)2).putShort((short)4).putInt(0).putInt(0).putInt(65535).putInt(linkType).array());
        }

        public Pcap record(final long timestampNs, final byte[] frame)
        {
            return record(timestampNs, frame, frame.length, frame.length);
        }

        public Pcap record(final long timestampNs, final byte[] frame, final int capturedLength, final int originalLength)
        {
            final long fraction = timestampNs % 1_000_000_000L;
            out.writeBytes(ByteBuffer.allocate(16).order(order).putInt((int)(timestampNs / 1_000_000_000L))
                .putInt((int)(nanos ? fraction : fraction / 1000)).putInt(capturedLength).putInt(originalLength).array());
            out.write(frame, 0, Math.min(frame.length, capturedLength));
            return this;
        }

        public byte[] bytes()
        {
            return out.toByteArray();
        }
    }

    /** A pcapng file: sections, interfaces and packet blocks in the order they are added. */
    public static final class PcapNg
    {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private ByteOrder order = ByteOrder.LITTLE_ENDIAN;

        public PcapNg section(final ByteOrder order)
        {
            this.order = order;
            // type, length, byte-order magic, version 1.0, section length -1, an empty comment option, end
            block(0x0A0D0D0A, ByteBuffer.allocate(16).order(order).putInt(0x1A2B3C4D).putShort((short)1)
                .putShort((short)0).putLong(-1).array());
            return this;
        }

        /** An interface; {@code tsresol} < 0 leaves the default (microseconds). */
        public PcapNg iface(final int linkType, final int snapLength, final int tsresol)
        {
            final ByteBuffer b = ByteBuffer.allocate(tsresol < 0 ? 8 : 8 + 8 + 4).order(order)
                .putShort((short)linkType).putShort((short)0).putInt(snapLength);
            if (tsresol >= 0)
            {
                b.putShort((short)9).putShort((short)1).put((byte)tsresol).put(new byte[3]).putShort((short)0)
                    .putShort((short)0);
            }
            block(1, b.array());
            return this;
        }

        public PcapNg epb(final int interfaceId, final long timestampUnits, final byte[] frame)
        {
            return epb(interfaceId, timestampUnits, frame, frame.length);
        }

        public PcapNg epb(final int interfaceId, final long timestampUnits, final byte[] frame, final int originalLength)
        {
            final int padded = (frame.length + 3) & ~3;
            final ByteBuffer b = ByteBuffer.allocate(20 + padded).order(order).putInt(interfaceId)
                .putInt((int)(timestampUnits >>> 32)).putInt((int)timestampUnits).putInt(frame.length)
                .putInt(originalLength).put(frame);
            block(6, b.array());
            return this;
        }

        public PcapNg spb(final byte[] frame)
        {
            final int padded = (frame.length + 3) & ~3;
            block(3, ByteBuffer.allocate(4 + padded).order(order).putInt(frame.length).put(frame).array());
            return this;
        }

        /** A block of another type (name resolution, statistics, custom, ...). */
        public PcapNg other(final int type, final int bodyLength)
        {
            block(type, new byte[(bodyLength + 3) & ~3]);
            return this;
        }

        /** Raw bytes, for corrupt framing. */
        public PcapNg raw(final byte[] bytes)
        {
            out.writeBytes(bytes);
            return this;
        }

        private void block(final int type, final byte[] body)
        {
            final int length = 12 + body.length;
            out.writeBytes(ByteBuffer.allocate(length).order(order).putInt(type).putInt(length).put(body)
                .putInt(length).array());
        }

        public byte[] bytes()
        {
            return out.toByteArray();
        }
    }
}
