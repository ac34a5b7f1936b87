package io.mdfanout.sdk;

import io.mdfanout.sbe.HeartbeatDecoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.PacketHeaderDecoder;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;

/**
 * The first step of every incremental Aeron message, whoever sequences it ({@link StreamSequencer} for one fanout,
 * {@link PairSequencer} for a pair's sides): validated as a whole ({@link PacketValidator}), a malformed one counted
 * by reason and dropped, a valid one's header wrapped with its heartbeat or packet header. Reused flyweights; nothing
 * allocates. Polling thread only.
 */
final class IncrementalDecoder
{
    final MessageHeaderDecoder header = new MessageHeaderDecoder();
    final PacketHeaderDecoder packetHeader = new PacketHeaderDecoder();
    final HeartbeatDecoder heartbeat = new HeartbeatDecoder();
    private final PacketValidator validator;
    private final SubscriberCounters counters;

    IncrementalDecoder(final PacketValidator validator, final SubscriberCounters counters)
    {
        this.validator = validator;
        this.counters = counters;
    }

    /**
     * Validate one complete Aeron message of a partition's incremental stream and wrap its headers.
     *
     * @return false when it is malformed (counted, nothing wrapped); true with {@link #header} and, as
     * {@link #isHeartbeat()} says, {@link #heartbeat} or {@link #packetHeader} wrapped.
     */
    boolean decode(final int partition, final DirectBuffer buffer, final int offset, final int length)
    {
        counters.onReceived(length);
        final int reason = validator.validate(partition, buffer, offset, length, false);
        if (PacketValidator.VALID != reason)
        {
            counters.onMalformed(PacketValidator.reason(reason));
            return false;
        }
        header.wrap(buffer, offset);
        if (isHeartbeat())
        {
            heartbeat.wrap(buffer, offset + WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
        }
        else
        {
            packetHeader.wrap(buffer, offset + WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
        }
        return true;
    }

    /** @return whether the message decoded last is a heartbeat (else a packet of messages). */
    boolean isHeartbeat()
    {
        return HeartbeatDecoder.TEMPLATE_ID == header.templateId();
    }
}
