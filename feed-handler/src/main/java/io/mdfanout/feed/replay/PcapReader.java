package io.mdfanout.feed.replay;

import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteOrder;

/**
 * Streams a classic libpcap capture: either byte order, microsecond (a1b2c3d4) or nanosecond
 * (a1b23c4d) timestamps, one link type for the file. Memory is constant: one frame buffer of
 * {@link #MAX_FRAME_LENGTH} bytes, reused.
 * <p>
 * A record captured shorter than it was on the wire, or longer than the largest frame, is counted
 * and skipped; a record cut short by the end of the file ends the reading as
 * {@link ItchFileReplayer.Outcome#TRUNCATED}. A file whose link type is not supported is read
 * through, every record counted as of an unknown link type.
 */
public final class PcapReader implements CaptureReader
{
    /** Magic number of microsecond captures, as read big-endian. */
    public static final int MAGIC_MICROS = CaptureMagic.PCAP_MICROS;
    /** Magic number of nanosecond captures, as read big-endian. */
    public static final int MAGIC_NANOS = CaptureMagic.PCAP_NANOS;

    private static final int GLOBAL_HEADER_LENGTH = 24;
    private static final int RECORD_HEADER_LENGTH = 16;
    private static final int LINK_TYPE_MASK = 0xFFFF; // the upper 16 bits carry FCS information, not the type

    private final CaptureFrameDecoder decoder;
    private final CaptureCounters counters;
    private final ReplayPace pace;
    private final OriginalPacer pacer = new OriginalPacer();
    private final byte[] header = new byte[GLOBAL_HEADER_LENGTH];
    private final UnsafeBuffer headerBuffer = new UnsafeBuffer(header);
    private final byte[] frame = new byte[MAX_FRAME_LENGTH];
    private final UnsafeBuffer frameBuffer = new UnsafeBuffer(frame);

    /**
     * Create a reader.
     *
     * @param decoder  where frames go.
     * @param counters record counters.
     * @param pace     max, or original to follow the capture timestamps.
     */
    public PcapReader(final CaptureFrameDecoder decoder, final CaptureCounters counters, final ReplayPace pace)
    {
        this.decoder = decoder;
        this.counters = counters;
        this.pace = pace;
    }

    /** {@inheritDoc} */
    public ItchFileReplayer.Outcome read(final InputStream in) throws IOException
    {
        pacer.reset();
        if (Streams.readFully(in, header, 0, GLOBAL_HEADER_LENGTH) < GLOBAL_HEADER_LENGTH)
        {
            throw new IOException("not a pcap capture: the global header is truncated");
        }
        final int magic = headerBuffer.getInt(0, ByteOrder.BIG_ENDIAN);
        final ByteOrder order;
        final boolean nanos;
        if (MAGIC_MICROS == magic || MAGIC_NANOS == magic)
        {
            order = ByteOrder.BIG_ENDIAN;
            nanos = MAGIC_NANOS == magic;
        }
        else if (MAGIC_MICROS == Integer.reverseBytes(magic) || MAGIC_NANOS == Integer.reverseBytes(magic))
        {
            order = ByteOrder.LITTLE_ENDIAN;
            nanos = MAGIC_NANOS == Integer.reverseBytes(magic);
        }
        else
        {
            throw new IOException(String.format("not a pcap capture: magic %08x", magic));
        }
        final int linkType = headerBuffer.getInt(20, order) & LINK_TYPE_MASK;
        final long fractionToNanos = nanos ? 1 : 1000;

        while (true)
        {
            if (Thread.currentThread().isInterrupted())
            {
                return ItchFileReplayer.Outcome.INTERRUPTED;
            }

            final int headerRead = Streams.readFully(in, header, 0, RECORD_HEADER_LENGTH);
            if (0 == headerRead)
            {
                return ItchFileReplayer.Outcome.COMPLETED;
            }
            if (headerRead < RECORD_HEADER_LENGTH)
            {
                counters.truncatedAtEnd().incrementRelease();
                return ItchFileReplayer.Outcome.TRUNCATED;
            }

            counters.records().incrementRelease();
            final long seconds = headerBuffer.getInt(0, order) & 0xFFFF_FFFFL;
            final long fraction = headerBuffer.getInt(4, order) & 0xFFFF_FFFFL;
            final long capturedLength = headerBuffer.getInt(8, order) & 0xFFFF_FFFFL;
            final long originalLength = headerBuffer.getInt(12, order) & 0xFFFF_FFFFL;

            if (capturedLength > MAX_FRAME_LENGTH)
            {
                counters.malformedRecords().incrementRelease();
                if (!Streams.skipFully(in, capturedLength))
                {
                    counters.truncatedAtEnd().incrementRelease();
                    return ItchFileReplayer.Outcome.TRUNCATED;
                }
                continue;
            }

            final int length = (int)capturedLength;
            if (Streams.readFully(in, frame, 0, length) < length)
            {
                counters.truncatedAtEnd().incrementRelease();
                return ItchFileReplayer.Outcome.TRUNCATED;
            }
            if (capturedLength < originalLength)
            {
                counters.snappedRecords().incrementRelease();
                continue;
            }

            if (ReplayPace.ORIGINAL == pace)
            {
                pacer.awaitTime(seconds * 1_000_000_000L + fraction * fractionToNanos);
            }
            decoder.onFrame(linkType, frameBuffer, 0, length);
        }
    }
}
