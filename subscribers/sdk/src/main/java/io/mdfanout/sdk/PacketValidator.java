package io.mdfanout.sdk;

import io.mdfanout.sbe.HeartbeatDecoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.PacketHeaderDecoder;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;

/**
 * Checks a whole Aeron message (a packet or a heartbeat, see WIRE.md) against the wire contract before
 * any of it is delivered, so that a listener never sees part of a malformed packet. Only headers are
 * read; the decoders wrap the messages during dispatch. Holds its own flyweights: not thread safe,
 * allocates nothing.
 */
final class PacketValidator
{
    /** What {@link #validate} answers for a valid message. */
    static final int VALID = -1;

    private static final MalformedReason[] REASONS = MalformedReason.values();

    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final PacketHeaderDecoder packetHeader = new PacketHeaderDecoder();
    private final HeartbeatDecoder heartbeat = new HeartbeatDecoder();

    /**
     * The reason {@link #validate} answered.
     *
     * @param reason an answer of {@link #validate} other than {@link #VALID}.
     * @return the reason.
     */
    static MalformedReason reason(final int reason)
    {
        return REASONS[reason];
    }

    /**
     * Check every SBE header in the Aeron message against the wire contract: an incremental packet
     * carries normalized messages, a snapshot packet snapshot and state messages.
     *
     * @param partition the partition whose stream the message came on.
     * @param buffer    holding the message.
     * @param offset    of the SBE message header.
     * @param length    of the whole message.
     * @param snapshot  true for a message of the snapshot stream.
     * @return {@link #VALID} or the ordinal of the {@link MalformedReason}.
     */
    int validate(
        final int partition, final DirectBuffer buffer, final int offset, final int length, final boolean snapshot)
    {
        if (length < WireFormat.HEADER_LENGTH)
        {
            return MalformedReason.TRUNCATED.ordinal();
        }
        final MessageHeaderDecoder header = this.header;
        header.wrap(buffer, offset);
        if (WireFormat.SCHEMA_ID != header.schemaId())
        {
            return MalformedReason.BAD_SCHEMA_ID.ordinal();
        }

        final int templateId = header.templateId();
        final int blockLength = header.blockLength();
        if (PacketHeaderDecoder.TEMPLATE_ID != templateId && HeartbeatDecoder.TEMPLATE_ID != templateId)
        {
            return WireFormat.knownBlockLength(templateId) > 0 ?
                MalformedReason.NOT_A_PACKET.ordinal() : MalformedReason.UNKNOWN_TEMPLATE.ordinal();
        }
        // A heartbeat of an older fanout is shorter and complete: its version says so (WireFormat.minimumBlockLength).
        if (blockLength < WireFormat.minimumBlockLength(templateId, header.version()))
        {
            return MalformedReason.SHORT_BLOCK_LENGTH.ordinal();
        }
        final int end = offset + length;
        int position = offset + WireFormat.HEADER_LENGTH + blockLength;
        if (position > end)
        {
            return MalformedReason.TRUNCATED.ordinal();
        }

        if (HeartbeatDecoder.TEMPLATE_ID == templateId)
        {
            heartbeat.wrap(buffer, offset + WireFormat.HEADER_LENGTH, blockLength, header.version());
            if (heartbeat.partitionId() != partition)
            {
                return MalformedReason.WRONG_PARTITION.ordinal();
            }
            return position == end ? VALID : MalformedReason.BAD_MESSAGE_COUNT.ordinal();
        }

        packetHeader.wrap(buffer, offset + WireFormat.HEADER_LENGTH, blockLength, header.version());
        if (packetHeader.partitionId() != partition)
        {
            return MalformedReason.WRONG_PARTITION.ordinal();
        }
        final int messageCount = packetHeader.messageCount();
        if (0 == messageCount)
        {
            return MalformedReason.BAD_MESSAGE_COUNT.ordinal();
        }

        for (int i = 0; i < messageCount; i++)
        {
            final int remaining = end - position;
            if (0 == remaining)
            {
                return MalformedReason.BAD_MESSAGE_COUNT.ordinal();
            }
            if (remaining < WireFormat.HEADER_LENGTH)
            {
                return MalformedReason.TRUNCATED.ordinal();
            }
            // The whole header in one read, and the template's admission and block length in one table
            // load: this loop runs for every message, before delivery walks the packet again.
            final long headerWord = WireFormat.headerWord(buffer, position);
            if (WireFormat.SCHEMA_ID != WireFormat.schemaIdOf(headerWord))
            {
                return MalformedReason.BAD_SCHEMA_ID.ordinal();
            }
            final int messageTemplateId = WireFormat.templateIdOf(headerWord);
            final int schemaBlockLength = snapshot ?
                WireFormat.snapshotStreamBlockLength(messageTemplateId) :
                WireFormat.streamBlockLength(messageTemplateId);
            if (0 == schemaBlockLength)
            {
                return MalformedReason.UNKNOWN_TEMPLATE.ordinal();
            }
            final int messageBlockLength = WireFormat.blockLengthOf(headerWord);
            // A message that grew in a later version (a SnapshotBegin of an older fanout) is shorter and
            // complete: its version says so. Only a short block pays for the second look.
            if (messageBlockLength < schemaBlockLength && messageBlockLength <
                WireFormat.minimumBlockLength(messageTemplateId, WireFormat.versionOf(headerWord)))
            {
                return MalformedReason.SHORT_BLOCK_LENGTH.ordinal();
            }
            if (WireFormat.HEADER_LENGTH + messageBlockLength > remaining)
            {
                return MalformedReason.TRUNCATED.ordinal();
            }
            position += WireFormat.HEADER_LENGTH + messageBlockLength;
        }

        return position == end ? VALID : MalformedReason.BAD_MESSAGE_COUNT.ordinal();
    }
}
