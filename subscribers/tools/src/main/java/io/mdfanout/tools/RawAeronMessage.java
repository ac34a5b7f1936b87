package io.mdfanout.tools;

/**
 * Layout of the raw-Aeron baseline's messages ({@code raw-aeron-pub} -> {@code raw-aeron-sub}): the scheduled
 * send time (nanoseconds since the epoch) at offset 0, the message's sequence from 0 at offset 8, padding to the
 * chosen length; little-endian. A sequence of {@link #END_SEQUENCE} ends the run.
 */
final class RawAeronMessage
{
    static final int SCHEDULED_TIME_OFFSET = 0;
    static final int SEQUENCE_OFFSET = 8;
    static final int MIN_LENGTH = 16;
    static final long END_SEQUENCE = -1;
    static final String DEFAULT_CHANNEL = "aeron:udp?endpoint=224.0.1.5:40470|interface=127.0.0.1|mtu=8192";
    static final String DEFAULT_STREAM_ID = "2000";

    private RawAeronMessage()
    {
    }
}
