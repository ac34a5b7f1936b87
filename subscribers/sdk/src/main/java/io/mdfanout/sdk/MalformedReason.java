package io.mdfanout.sdk;

/**
 * Why a received Aeron message was rejected as malformed. Each reason has its own counter in
 * {@link SubscriberCounters}.
 */
public enum MalformedReason
{
    /** An SBE header carries a schema id other than {@link io.mdfanout.wire.WireFormat#SCHEMA_ID}. */
    BAD_SCHEMA_ID("bad schema id"),
    /** A message inside a packet has a template id this build does not know as a normalized message. */
    UNKNOWN_TEMPLATE("unknown template"),
    /** A header's blockLength is shorter than this build's block length for the template. */
    SHORT_BLOCK_LENGTH("short block length"),
    /** A header or a message does not fit in what remains of the Aeron message. */
    TRUNCATED("truncated"),
    /** messageCount disagrees with the packet length (too many, too few, zero, or bytes after a heartbeat). */
    BAD_MESSAGE_COUNT("bad message count"),
    /** The Aeron message starts with neither a PacketHeader nor a Heartbeat. */
    NOT_A_PACKET("not a packet"),
    /** The partition id in the packet or heartbeat is not the partition of the stream it arrived on. */
    WRONG_PARTITION("wrong partition");

    private final String label;

    MalformedReason(final String label)
    {
        this.label = label;
    }

    /**
     * Human-readable label, used in counter labels.
     *
     * @return the label.
     */
    public String label()
    {
        return label;
    }
}
