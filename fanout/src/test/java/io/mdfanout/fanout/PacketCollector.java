package io.mdfanout.fanout;

import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.mdfanout.sbe.HeartbeatDecoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.PacketHeaderDecoder;
import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;

import java.util.ArrayList;
import java.util.List;

/** Decodes what a subscription receives into packets and heartbeats, recording any malformed frame. */
final class PacketCollector implements FragmentHandler
{
    record Packet(int streamId, long streamSequence, long sendingTime, int partitionId, List<byte[]> messages, int length,
        int sessionId, long previousExchangeSequence)
    {
    }

    record Heartbeat(int streamId, long nextStreamSequence, long sendingTime, int partitionId, int length,
        SourceStatus sourceStatus, long sourceHeartbeatAgeMs, long lastExchangeTimestamp, long lastExchangeSequence,
        int partitionCount, String exchangeSession)
    {
    }

    final List<Packet> packets = new ArrayList<>();
    final List<Heartbeat> heartbeats = new ArrayList<>();
    final List<String> errors = new ArrayList<>();
    private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();
    private final PacketHeaderDecoder packetDecoder = new PacketHeaderDecoder();
    private final HeartbeatDecoder heartbeatDecoder = new HeartbeatDecoder();

    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        if ((header.flags() & io.aeron.logbuffer.FrameDescriptor.UNFRAGMENTED) != io.aeron.logbuffer.FrameDescriptor.UNFRAGMENTED)
        {
            errors.add("fragmented frame");
        }
        headerDecoder.wrap(buffer, offset);
        final int templateId = headerDecoder.templateId();
        if (templateId == HeartbeatDecoder.TEMPLATE_ID)
        {
            heartbeatDecoder.wrapAndApplyHeader(buffer, offset, headerDecoder);
            heartbeats.add(new Heartbeat(header.streamId(), heartbeatDecoder.nextStreamSequence(),
                heartbeatDecoder.sendingTime(), heartbeatDecoder.partitionId(), length, heartbeatDecoder.sourceStatus(),
                heartbeatDecoder.sourceHeartbeatAge(), heartbeatDecoder.lastExchangeTimestamp(),
                heartbeatDecoder.lastExchangeSequence(), heartbeatDecoder.partitionCount(), heartbeatDecoder.exchangeSession()));
            return;
        }
        if (templateId != PacketHeaderDecoder.TEMPLATE_ID)
        {
            errors.add("unexpected template " + templateId);
            return;
        }
        packetDecoder.wrapAndApplyHeader(buffer, offset, headerDecoder);
        final List<byte[]> messages = new ArrayList<>();
        int position = offset + WireFormat.HEADER_LENGTH + headerDecoder.blockLength();
        for (int i = 0; i < packetDecoder.messageCount(); i++)
        {
            headerDecoder.wrap(buffer, position);
            final int messageLength = WireFormat.messageLength(headerDecoder.blockLength());
            final byte[] bytes = new byte[messageLength];
            buffer.getBytes(position, bytes);
            messages.add(bytes);
            position += messageLength;
        }
        if (position != offset + length)
        {
            errors.add("packet length " + length + " but messages end at " + (position - offset));
        }
        packets.add(new Packet(header.streamId(), packetDecoder.streamSequence(), packetDecoder.sendingTime(),
            packetDecoder.partitionId(), messages, length, header.sessionId(), packetDecoder.previousExchangeSequence()));
    }

    int messageCount()
    {
        int count = 0;
        for (final Packet packet : packets)
        {
            count += packet.messages().size();
        }
        return count;
    }

    List<byte[]> messages()
    {
        final List<byte[]> all = new ArrayList<>();
        for (final Packet packet : packets)
        {
            all.addAll(packet.messages());
        }
        return all;
    }
}
