package io.mdfanout.feed.replay;

import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteOrder;

/**
 * Streams a pcapng capture: Section Header blocks (either byte order, several sections),
 * Interface Description blocks (link type, snap length and {@code if_tsresol} per interface),
 * Enhanced Packet and Simple Packet blocks; every other block is counted and skipped. Memory is
 * constant: one block buffer, reused; a block larger than it is counted and skipped.
 * <p>
 * A block whose length field is impossible (under 12 bytes or not a multiple of 4) loses the
 * framing: it is counted as malformed and the reading ends as
 * {@link ItchFileReplayer.Outcome#UNFRAMEABLE}. A block cut short by the end of the file ends it as
 * {@link ItchFileReplayer.Outcome#TRUNCATED}.
 */
public final class PcapNgReader implements CaptureReader
{
    /** Block type of the Section Header Block, also the file's magic (the same in both byte orders). */
    public static final int SECTION_HEADER_BLOCK = CaptureMagic.PCAPNG_SECTION_HEADER_BLOCK;
    /** Byte-order magic inside the Section Header Block. */
    public static final int BYTE_ORDER_MAGIC = 0x1A2B3C4D;
    /** Interface Description Block. */
    public static final int INTERFACE_DESCRIPTION_BLOCK = 1;
    /** Simple Packet Block. */
    public static final int SIMPLE_PACKET_BLOCK = 3;
    /** Enhanced Packet Block. */
    public static final int ENHANCED_PACKET_BLOCK = 6;

    /** Interfaces remembered per section; packets of later ones are counted as of unknown link type. */
    public static final int MAX_INTERFACES = 256;

    private static final int MIN_BLOCK_LENGTH = 12;
    private static final int MAX_BLOCK_LENGTH = MAX_FRAME_LENGTH + 65_536;
    private static final int OPTION_END = 0;
    private static final int OPTION_IF_TSRESOL = 9;
    private static final int ENHANCED_PACKET_HEADER_LENGTH = 20;
    private static final int SIMPLE_PACKET_HEADER_LENGTH = 4;
    private static final long[] POWERS_OF_TEN = new long[19];

    static
    {
        POWERS_OF_TEN[0] = 1;
        for (int i = 1; i < POWERS_OF_TEN.length; i++)
        {
            POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10;
        }
    }

    private final CaptureFrameDecoder decoder;
    private final CaptureCounters counters;
    private final ReplayPace pace;
    private final OriginalPacer pacer = new OriginalPacer();
    private final byte[] block = new byte[MAX_BLOCK_LENGTH];
    private final UnsafeBuffer blockBuffer = new UnsafeBuffer(block);
    private final int[] linkTypes = new int[MAX_INTERFACES];
    private final long[] snapLengths = new long[MAX_INTERFACES];
    /** if_tsresol: bit 7 clear, a negative power of ten; set, a negative power of two. */
    private final int[] resolutions = new int[MAX_INTERFACES];
    private int interfaceCount;
    private ByteOrder order = ByteOrder.LITTLE_ENDIAN;

    /**
     * Create a reader.
     *
     * @param decoder  where frames go.
     * @param counters record counters.
     * @param pace     max, or original to follow the capture timestamps.
     */
    public PcapNgReader(final CaptureFrameDecoder decoder, final CaptureCounters counters, final ReplayPace pace)
    {
        this.decoder = decoder;
        this.counters = counters;
        this.pace = pace;
    }

    /** {@inheritDoc} */
    public ItchFileReplayer.Outcome read(final InputStream in) throws IOException
    {
        pacer.reset();
        interfaceCount = 0;
        boolean first = true;
        while (true)
        {
            if (Thread.currentThread().isInterrupted())
            {
                return ItchFileReplayer.Outcome.INTERRUPTED;
            }

            final int headerRead = Streams.readFully(in, block, 0, 8);
            if (0 == headerRead && !first)
            {
                return ItchFileReplayer.Outcome.COMPLETED;
            }
            if (headerRead < 8)
            {
                if (first)
                {
                    throw new IOException("not a pcapng capture: the section header is truncated");
                }
                counters.truncatedAtEnd().incrementRelease();
                return ItchFileReplayer.Outcome.TRUNCATED;
            }

            final int type = blockBuffer.getInt(0, ByteOrder.BIG_ENDIAN);
            if (first && SECTION_HEADER_BLOCK != type)
            {
                throw new IOException(String.format("not a pcapng capture: first block type %08x", type));
            }
            first = false;

            if (SECTION_HEADER_BLOCK == type)
            {
                final ItchFileReplayer.Outcome outcome = onSectionHeader(in);
                if (null != outcome)
                {
                    return outcome;
                }
                continue;
            }

            final long blockLength = blockBuffer.getInt(4, order) & 0xFFFF_FFFFL;
            if (blockLength < MIN_BLOCK_LENGTH || 0 != (blockLength & 3))
            {
                counters.malformedRecords().incrementRelease();
                return ItchFileReplayer.Outcome.UNFRAMEABLE;
            }
            if (blockLength > MAX_BLOCK_LENGTH)
            {
                countSkipped(type(type));
                if (!Streams.skipFully(in, blockLength - 8))
                {
                    counters.truncatedAtEnd().incrementRelease();
                    return ItchFileReplayer.Outcome.TRUNCATED;
                }
                continue;
            }

            final int rest = (int)blockLength - 8;
            if (Streams.readFully(in, block, 0, rest) < rest)
            {
                counters.truncatedAtEnd().incrementRelease();
                return ItchFileReplayer.Outcome.TRUNCATED;
            }
            // The body is the block less its type, its length and the trailing copy of the length.
            onBlock(type(type), rest - 4);
        }
    }

    /** The block type in the section's byte order, from its first four bytes read big-endian. */
    private int type(final int bigEndianType)
    {
        return ByteOrder.BIG_ENDIAN == order ? bigEndianType : Integer.reverseBytes(bigEndianType);
    }

    private ItchFileReplayer.Outcome onSectionHeader(final InputStream in) throws IOException
    {
        if (Streams.readFully(in, block, 8, 4) < 4)
        {
            counters.truncatedAtEnd().incrementRelease();
            return ItchFileReplayer.Outcome.TRUNCATED;
        }
        final int magic = blockBuffer.getInt(8, ByteOrder.BIG_ENDIAN);
        if (BYTE_ORDER_MAGIC == magic)
        {
            order = ByteOrder.BIG_ENDIAN;
        }
        else if (BYTE_ORDER_MAGIC == Integer.reverseBytes(magic))
        {
            order = ByteOrder.LITTLE_ENDIAN;
        }
        else
        {
            counters.malformedRecords().incrementRelease();
            return ItchFileReplayer.Outcome.UNFRAMEABLE;
        }

        final long blockLength = blockBuffer.getInt(4, order) & 0xFFFF_FFFFL;
        if (blockLength < MIN_BLOCK_LENGTH + 4 || 0 != (blockLength & 3))
        {
            counters.malformedRecords().incrementRelease();
            return ItchFileReplayer.Outcome.UNFRAMEABLE;
        }
        // A new section starts its own interface numbering.
        interfaceCount = 0;
        if (!Streams.skipFully(in, blockLength - 12))
        {
            counters.truncatedAtEnd().incrementRelease();
            return ItchFileReplayer.Outcome.TRUNCATED;
        }
        return null;
    }

    private void onBlock(final int type, final int bodyLength)
    {
        switch (type)
        {
            case INTERFACE_DESCRIPTION_BLOCK:
                onInterfaceDescription(bodyLength);
                break;

            case ENHANCED_PACKET_BLOCK:
                onEnhancedPacket(bodyLength);
                break;

            case SIMPLE_PACKET_BLOCK:
                onSimplePacket(bodyLength);
                break;

            default:
                counters.otherBlocks().incrementRelease();
                break;
        }
    }

    private void countSkipped(final int type)
    {
        if (ENHANCED_PACKET_BLOCK == type || SIMPLE_PACKET_BLOCK == type)
        {
            counters.records().incrementRelease();
            counters.malformedRecords().incrementRelease();
        }
        else
        {
            counters.otherBlocks().incrementRelease();
        }
    }

    private void onInterfaceDescription(final int bodyLength)
    {
        final int index = interfaceCount++;
        if (index >= MAX_INTERFACES)
        {
            return;
        }
        if (bodyLength < 8)
        {
            counters.malformedRecords().incrementRelease();
            linkTypes[index] = -1;
            return;
        }
        linkTypes[index] = blockBuffer.getShort(0, order) & 0xFFFF;
        snapLengths[index] = blockBuffer.getInt(4, order) & 0xFFFF_FFFFL;
        resolutions[index] = 6;

        int position = 8;
        while (position + 4 <= bodyLength)
        {
            final int code = blockBuffer.getShort(position, order) & 0xFFFF;
            final int length = blockBuffer.getShort(position + 2, order) & 0xFFFF;
            if (OPTION_END == code || position + 4 + length > bodyLength)
            {
                break;
            }
            if (OPTION_IF_TSRESOL == code && length >= 1)
            {
                resolutions[index] = blockBuffer.getByte(position + 4) & 0xFF;
            }
            position += 4 + ((length + 3) & ~3);
        }
    }

    private void onEnhancedPacket(final int bodyLength)
    {
        counters.records().incrementRelease();
        if (bodyLength < ENHANCED_PACKET_HEADER_LENGTH)
        {
            counters.malformedRecords().incrementRelease();
            return;
        }
        final long interfaceId = blockBuffer.getInt(0, order) & 0xFFFF_FFFFL;
        final long capturedLength = blockBuffer.getInt(12, order) & 0xFFFF_FFFFL;
        final long originalLength = blockBuffer.getInt(16, order) & 0xFFFF_FFFFL;
        if (capturedLength > bodyLength - ENHANCED_PACKET_HEADER_LENGTH)
        {
            counters.malformedRecords().incrementRelease();
            return;
        }
        if (interfaceId >= Math.min(interfaceCount, MAX_INTERFACES) || linkTypes[(int)interfaceId] < 0)
        {
            counters.unknownLinkType().incrementRelease();
            return;
        }
        if (capturedLength < originalLength)
        {
            counters.snappedRecords().incrementRelease();
            return;
        }

        final int id = (int)interfaceId;
        if (ReplayPace.ORIGINAL == pace)
        {
            final long units = ((blockBuffer.getInt(4, order) & 0xFFFF_FFFFL) << 32) |
                (blockBuffer.getInt(8, order) & 0xFFFF_FFFFL);
            pacer.awaitTime(toNanos(units, resolutions[id]));
        }
        decoder.onFrame(linkTypes[id], blockBuffer, ENHANCED_PACKET_HEADER_LENGTH, (int)capturedLength);
    }

    private void onSimplePacket(final int bodyLength)
    {
        counters.records().incrementRelease();
        if (bodyLength < SIMPLE_PACKET_HEADER_LENGTH)
        {
            counters.malformedRecords().incrementRelease();
            return;
        }
        // A simple packet belongs to the first interface; its captured length is what the block holds.
        if (0 == interfaceCount || linkTypes[0] < 0)
        {
            counters.unknownLinkType().incrementRelease();
            return;
        }
        final long originalLength = blockBuffer.getInt(0, order) & 0xFFFF_FFFFL;
        long capturedLength = Math.min(originalLength, bodyLength - SIMPLE_PACKET_HEADER_LENGTH);
        if (0 != snapLengths[0])
        {
            capturedLength = Math.min(capturedLength, snapLengths[0]);
        }
        if (capturedLength < originalLength)
        {
            counters.snappedRecords().incrementRelease();
            return;
        }
        decoder.onFrame(linkTypes[0], blockBuffer, SIMPLE_PACKET_HEADER_LENGTH, (int)capturedLength);
    }

    /**
     * Convert a timestamp in interface units to nanoseconds.
     *
     * @param units      the 64-bit timestamp.
     * @param resolution the if_tsresol byte.
     * @return nanoseconds since the epoch.
     */
    static long toNanos(final long units, final int resolution)
    {
        final int exponent = resolution & 0x7F;
        if (0 != (resolution & 0x80))
        {
            return (long)(units * (1e9 / Math.pow(2, exponent)));
        }
        if (exponent <= 9)
        {
            return units * POWERS_OF_TEN[9 - exponent];
        }
        return units / POWERS_OF_TEN[Math.min(exponent - 9, POWERS_OF_TEN.length - 1)];
    }
}
