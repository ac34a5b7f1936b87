package io.mdfanout.feed.replay;

/** The kind of file a replay reads, told by its first bytes (after any gzip layer). */
public enum ReplayFormat
{
    /** NASDAQ binary ITCH 5.0: 2-byte big-endian length, then the message. */
    ITCH,
    /** Classic libpcap capture. */
    PCAP,
    /** pcapng capture. */
    PCAPNG;

    /** Magic number of classic pcap captures with microsecond timestamps, as read big-endian. */
    public static final int PCAP_MAGIC_MICROS = 0xA1B2C3D4;
    /** Magic number of classic pcap captures with nanosecond timestamps, as read big-endian. */
    public static final int PCAP_MAGIC_NANOS = 0xA1B23C4D;
    /** Block type of pcapng's Section Header Block, also the file's magic (the same in both byte orders). */
    public static final int PCAPNG_SECTION_HEADER_BLOCK = 0x0A0D0D0A;

    /**
     * Tell the format from the first four bytes.
     *
     * @param firstFourBigEndian the first four bytes read as a big-endian int (zero-padded when the file is shorter).
     * @return the format; anything that is not a capture magic is taken for ITCH.
     */
    public static ReplayFormat detect(final int firstFourBigEndian)
    {
        if (isPcapMagic(firstFourBigEndian))
        {
            return PCAP;
        }
        if (PCAPNG_SECTION_HEADER_BLOCK == firstFourBigEndian)
        {
            return PCAPNG;
        }
        return ITCH;
    }

    /**
     * True when the first four bytes are one of the pcap magic numbers, in either byte order.
     *
     * @param firstFourBigEndian the first four bytes of the file read as a big-endian int.
     * @return whether the file is a classic pcap capture.
     */
    public static boolean isPcapMagic(final int firstFourBigEndian)
    {
        return PCAP_MAGIC_MICROS == firstFourBigEndian ||
            PCAP_MAGIC_MICROS == Integer.reverseBytes(firstFourBigEndian) ||
            PCAP_MAGIC_NANOS == firstFourBigEndian ||
            PCAP_MAGIC_NANOS == Integer.reverseBytes(firstFourBigEndian);
    }
}
