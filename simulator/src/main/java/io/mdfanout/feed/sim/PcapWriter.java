package io.mdfanout.feed.sim;

import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static java.nio.ByteOrder.BIG_ENDIAN;
import static java.nio.ByteOrder.LITTLE_ENDIAN;

/**
 * Writes MoldUDP64 packets as a classic pcap capture (magic 0xa1b2c3d4 written little-endian, microsecond
 * timestamps, LINKTYPE_ETHERNET), as a capture of line A would show them: each packet gets a synthesized
 * Ethernet II header (destination = the IPv4 multicast MAC 01:00:5e + the low 23 bits of the group, a fixed locally
 * administered source), an IPv4 header (source = the sending interface, destination = the group, the TTL,
 * protocol UDP, identification = packet number, correct header checksum) and a UDP header (fixed source port
 * {@link #SOURCE_PORT}, destination = the line's port, checksum 0 = not computed, which UDP over IPv4 allows).
 * <p>
 * Everything but the timestamps is a function of the packets, so two runs with the same seed give the same file
 * apart from them. Records are staged in a pre-allocated direct buffer and written in large blocks. An I/O error is
 * kept, counted in {@link SimulatorCounters#pcapErrors()} and stops the capture; {@link #onPacket} never throws.
 */
public final class PcapWriter implements PacketSink, AutoCloseable
{
    /** The pcap magic number of microsecond captures. */
    public static final int MAGIC_MICROSECONDS = 0xA1B2C3D4;
    /** LINKTYPE_ETHERNET. */
    public static final int LINKTYPE_ETHERNET = 1;
    /** Snapshot length declared in the global header: every record is written whole. */
    public static final int SNAPLEN = 65_535;
    /** Length of the pcap global header. */
    public static final int GLOBAL_HEADER_LENGTH = 24;
    /** Length of a pcap record header. */
    public static final int RECORD_HEADER_LENGTH = 16;
    /** Ethernet II + IPv4 (no options) + UDP header bytes before the payload. */
    public static final int FRAME_HEADERS_LENGTH = 14 + 20 + 8;
    /** UDP source port of every packet in the capture. */
    public static final int SOURCE_PORT = 26_477;

    private static final int STAGING_BYTES = 1024 * 1024;
    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int PROTOCOL_UDP = 17;
    private static final byte[] SOURCE_MAC = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };

    private final FileChannel channel;
    private final ByteBuffer staging = ByteBuffer.allocateDirect(STAGING_BYTES);
    private final UnsafeBuffer stagingBuffer = new UnsafeBuffer(staging);
    private final byte[] destinationMac = new byte[6];
    private final int sourceAddress;
    private final int groupAddress;
    private final int port;
    private final int ttl;
    private final long epochAnchorNs;
    private final long nanoAnchorNs;
    private final SimulatorCounters counters;

    private int position;
    private int identification;
    private long records;
    private IOException error;

    /**
     * Creates (or truncates) the capture file and writes its global header.
     *
     * @param file             the capture file.
     * @param sourceAddress    the IPv4 address of the sending interface.
     * @param group            the IPv4 multicast group of line A.
     * @param port             the UDP port of line A.
     * @param ttl              the IP TTL, 0..255.
     * @param counters         write errors are counted here.
     * @throws IllegalArgumentException for bad addresses, port or TTL.
     * @throws IOException              when the file cannot be created.
     */
    public PcapWriter(
        final Path file,
        final String sourceAddress,
        final String group,
        final int port,
        final int ttl,
        final SimulatorCounters counters) throws IOException
    {
        this.groupAddress = ipv4(group, "group");
        this.sourceAddress = ipv4(sourceAddress, "interface");
        if ((groupAddress >>> 28) != 0xE)
        {
            throw new IllegalArgumentException("not an IPv4 multicast group: " + group);
        }
        if (port < 1 || port > 65_535 || ttl < 0 || ttl > 255)
        {
            throw new IllegalArgumentException("pcap needs port 1..65535 and ttl 0..255: " + port + ", " + ttl);
        }
        this.port = port;
        this.ttl = ttl;
        this.counters = counters;
        destinationMac[0] = 0x01;
        destinationMac[1] = 0x00;
        destinationMac[2] = 0x5E;
        destinationMac[3] = (byte)((groupAddress >>> 16) & 0x7F);
        destinationMac[4] = (byte)(groupAddress >>> 8);
        destinationMac[5] = (byte)groupAddress;
        epochAnchorNs = System.currentTimeMillis() * 1_000_000L;
        nanoAnchorNs = System.nanoTime();

        channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING);
        stagingBuffer.putInt(0, MAGIC_MICROSECONDS, LITTLE_ENDIAN);
        stagingBuffer.putShort(4, (short)2, LITTLE_ENDIAN);
        stagingBuffer.putShort(6, (short)4, LITTLE_ENDIAN);
        stagingBuffer.putInt(8, 0, LITTLE_ENDIAN);
        stagingBuffer.putInt(12, 0, LITTLE_ENDIAN);
        stagingBuffer.putInt(16, SNAPLEN, LITTLE_ENDIAN);
        stagingBuffer.putInt(20, LINKTYPE_ETHERNET, LITTLE_ENDIAN);
        position = GLOBAL_HEADER_LENGTH;
    }

    /**
     * Appends one packet, stamped with the current time.
     *
     * @param buffer holding the UDP payload (the MoldUDP64 packet).
     * @param offset where it starts.
     * @param length its length, at most 65,507.
     */
    public void onPacket(final DirectBuffer buffer, final int offset, final int length)
    {
        write(buffer, offset, length, epochAnchorNs + (System.nanoTime() - nanoAnchorNs));
    }

    /**
     * Appends one packet with the given timestamp.
     *
     * @param buffer       holding the UDP payload.
     * @param offset       where it starts.
     * @param length       its length, at most 65,507.
     * @param epochNanos   the timestamp, nanoseconds since the epoch (written to the microsecond).
     */
    public void write(final DirectBuffer buffer, final int offset, final int length, final long epochNanos)
    {
        if (null != error)
        {
            return;
        }
        if (length < 0 || length > MoldUdp64Packetizer.MAX_UDP_PAYLOAD)
        {
            return;
        }
        final int frameLength = FRAME_HEADERS_LENGTH + length;
        if (position + RECORD_HEADER_LENGTH + frameLength > STAGING_BYTES && !drain())
        {
            return;
        }

        final UnsafeBuffer out = stagingBuffer;
        int p = position;
        out.putInt(p, (int)(epochNanos / 1_000_000_000L), LITTLE_ENDIAN);
        out.putInt(p + 4, (int)((epochNanos % 1_000_000_000L) / 1_000L), LITTLE_ENDIAN);
        out.putInt(p + 8, frameLength, LITTLE_ENDIAN);
        out.putInt(p + 12, frameLength, LITTLE_ENDIAN);
        p += RECORD_HEADER_LENGTH;

        out.putBytes(p, destinationMac);
        out.putBytes(p + 6, SOURCE_MAC);
        out.putShort(p + 12, (short)ETHERTYPE_IPV4, BIG_ENDIAN);
        p += 14;

        final int ip = p;
        out.putByte(ip, (byte)0x45);
        out.putByte(ip + 1, (byte)0);
        out.putShort(ip + 2, (short)(20 + 8 + length), BIG_ENDIAN);
        out.putShort(ip + 4, (short)identification++, BIG_ENDIAN);
        out.putShort(ip + 6, (short)0, BIG_ENDIAN);
        out.putByte(ip + 8, (byte)ttl);
        out.putByte(ip + 9, (byte)PROTOCOL_UDP);
        out.putShort(ip + 10, (short)0, BIG_ENDIAN);
        out.putInt(ip + 12, sourceAddress, BIG_ENDIAN);
        out.putInt(ip + 16, groupAddress, BIG_ENDIAN);
        out.putShort(ip + 10, (short)ipv4HeaderChecksum(out, ip), BIG_ENDIAN);
        p += 20;

        out.putShort(p, (short)SOURCE_PORT, BIG_ENDIAN);
        out.putShort(p + 2, (short)port, BIG_ENDIAN);
        out.putShort(p + 4, (short)(8 + length), BIG_ENDIAN);
        out.putShort(p + 6, (short)0, BIG_ENDIAN);
        p += 8;

        out.putBytes(p, buffer, offset, length);
        position = p + length;
        records++;
    }

    /**
     * Records written so far.
     *
     * @return the count.
     */
    public long records()
    {
        return records;
    }

    /**
     * The error that stopped the capture, if any.
     *
     * @return the error or null.
     */
    public IOException error()
    {
        return error;
    }

    /**
     * Writes what is staged to the file.
     *
     * @return true unless the capture has failed.
     */
    public boolean flush()
    {
        return null == error && drain();
    }

    /**
     * Flushes and closes the file.
     */
    public void close()
    {
        flush();
        CloseHelper.quietClose(channel);
    }

    /**
     * The IPv4 header checksum: the ones' complement of the ones' complement sum of the header's 16-bit words,
     * computed with the checksum field holding whatever it holds (zero when computing, the checksum when verifying:
     * then a correct header gives 0).
     *
     * @param buffer holding the header.
     * @param offset where it starts.
     * @return the checksum, 0..0xFFFF.
     */
    public static int ipv4HeaderChecksum(final DirectBuffer buffer, final int offset)
    {
        final int headerLength = (buffer.getByte(offset) & 0x0F) * 4;
        int sum = 0;
        for (int i = 0; i < headerLength; i += 2)
        {
            sum += buffer.getShort(offset + i, BIG_ENDIAN) & 0xFFFF;
        }
        while ((sum >>> 16) != 0)
        {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return ~sum & 0xFFFF;
    }

    private boolean drain()
    {
        staging.clear().limit(position);
        try
        {
            while (staging.hasRemaining())
            {
                channel.write(staging);
            }
            position = 0;
            return true;
        }
        catch (final IOException ex)
        {
            error = ex;
            counters.pcapErrors().incrementRelease();
            return false;
        }
    }

    private static int ipv4(final String address, final String what)
    {
        try
        {
            final byte[] bytes = InetAddress.getByName(address).getAddress();
            if (4 != bytes.length)
            {
                throw new IllegalArgumentException("not an IPv4 " + what + " address: " + address);
            }
            return ((bytes[0] & 0xFF) << 24) | ((bytes[1] & 0xFF) << 16) | ((bytes[2] & 0xFF) << 8) | (bytes[3] & 0xFF);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("bad " + what + " address: " + address);
        }
    }
}
