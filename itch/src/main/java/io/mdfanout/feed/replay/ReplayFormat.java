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

    /**
     * Tell the format from the first four bytes.
     *
     * @param firstFourBigEndian the first four bytes read as a big-endian int (zero-padded when the file is shorter).
     * @return the format; anything that is not a capture magic is taken for ITCH.
     */
    public static ReplayFormat detect(final int firstFourBigEndian)
    {
        if (CaptureMagic.isPcap(firstFourBigEndian))
        {
            return PCAP;
        }
        if (CaptureMagic.PCAPNG_SECTION_HEADER_BLOCK == firstFourBigEndian)
        {
            return PCAPNG;
        }
        return ITCH;
    }
}
