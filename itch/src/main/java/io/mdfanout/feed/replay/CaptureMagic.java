package io.mdfanout.feed.replay;

/**
 * The magic numbers that tell a capture file's format, as read big-endian from its first four bytes: one home for
 * the format detection ({@link ReplayFormat}) and the feed handler's capture readers.
 */
public final class CaptureMagic
{
    /** Magic number of classic pcap captures with microsecond timestamps. */
    public static final int PCAP_MICROS = 0xA1B2C3D4;
    /** Magic number of classic pcap captures with nanosecond timestamps. */
    public static final int PCAP_NANOS = 0xA1B23C4D;
    /** Block type of pcapng's Section Header Block, also the file's magic (the same in both byte orders). */
    public static final int PCAPNG_SECTION_HEADER_BLOCK = 0x0A0D0D0A;

    private CaptureMagic()
    {
    }

    /**
     * True when the first four bytes are one of the pcap magic numbers, in either byte order.
     *
     * @param firstFourBigEndian the first four bytes of the file read as a big-endian int.
     * @return whether the file is a classic pcap capture.
     */
    public static boolean isPcap(final int firstFourBigEndian)
    {
        return PCAP_MICROS == firstFourBigEndian || PCAP_MICROS == Integer.reverseBytes(firstFourBigEndian) ||
            PCAP_NANOS == firstFourBigEndian || PCAP_NANOS == Integer.reverseBytes(firstFourBigEndian);
    }
}
