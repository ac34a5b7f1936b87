package io.mdfanout.bench.peers;

import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.PacketHeaderEncoder;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;

/**
 * Drains one partition ring into packets of our wire format (WIRE.md): SBE MessageHeader + PacketHeader
 * (streamSequence of the first message, sendingTime, partitionId, messageCount), then the ring records copied
 * byte for byte. The same packing rule as the fanout's PartitionPublisher: take whatever the ring holds (up to a
 * limit), never wait to fill a packet, a record that does not fit goes into the next one, invalid records are
 * counted and skipped; stream sequences are consecutive from 1.
 * <p>
 * The transport is the caller's: each finished packet is handed to a {@link PacketSink}. The peer's sink
 * (NATS) never refuses a packet (jnats queues it), so there is no retry state here, unlike the fanout's.
 * Not thread safe; allocates nothing per message.
 */
public final class RingPacketizer
{
    /** Length of the SBE header plus PacketHeader block that starts every packet. */
    public static final int PACKET_HEADER_LENGTH = MessageHeaderEncoder.ENCODED_LENGTH + PacketHeaderEncoder.BLOCK_LENGTH;
    /** messageCount is a uint16. */
    static final int MAX_MESSAGES_PER_PACKET = 0xFFFF;

    /** Receives each finished packet; the buffer is reused once the call returns. */
    @FunctionalInterface
    public interface PacketSink
    {
        /**
         * A packet is complete.
         *
         * @param partitionId  the partition the packet belongs to.
         * @param buffer       holding the packet.
         * @param offset       of the packet's SBE header.
         * @param length       of the whole packet.
         * @param messageCount messages in the packet.
         */
        void onPacket(int partitionId, DirectBuffer buffer, int offset, int length, int messageCount);
    }

    private final int partitionId;
    private final RingBuffer ring;
    private final int maxPacketLength;
    private final EpochNanoClock epochClock;
    private final UnsafeBuffer packetBuffer;
    private final PacketHeaderEncoder packetHeaderEncoder = new PacketHeaderEncoder();
    private final ControlledMessageHandler recordHandler = this::onRingRecord;

    private long nextStreamSequence = 1;
    private int packetLength = PACKET_HEADER_LENGTH;
    private int packetMessageCount;
    private boolean packetFull;
    private long invalidRecords;
    private long packets;
    private long messages;

    /**
     * Create a packetizer for one partition.
     *
     * @param partitionId     stamped into every packet (0..65535).
     * @param ring            the partition ring this packetizer is the single consumer of.
     * @param maxPacketLength the largest packet, e.g. the Aeron channel's max payload (8160 for mtu 8192).
     * @param epochClock      sending-time source (epoch nanos); must not allocate.
     */
    public RingPacketizer(
        final int partitionId, final RingBuffer ring, final int maxPacketLength, final EpochNanoClock epochClock)
    {
        if (partitionId < 0 || partitionId > 0xFFFF)
        {
            throw new IllegalArgumentException("partitionId must be 0..65535: " + partitionId);
        }
        if (maxPacketLength < PACKET_HEADER_LENGTH + WireFormat.MAX_MESSAGE_LENGTH)
        {
            throw new IllegalArgumentException("max packet length " + maxPacketLength +
                " cannot hold a packet header and the largest message (" +
                (PACKET_HEADER_LENGTH + WireFormat.MAX_MESSAGE_LENGTH) + ")");
        }
        this.partitionId = partitionId;
        this.ring = ring;
        this.maxPacketLength = maxPacketLength;
        this.epochClock = epochClock;
        this.packetBuffer = new UnsafeBuffer(new byte[maxPacketLength]);
        packetHeaderEncoder.wrapAndApplyHeader(packetBuffer, 0, new MessageHeaderEncoder());
        packetHeaderEncoder.partitionId(partitionId)
            .previousExchangeSequence(PacketHeaderEncoder.previousExchangeSequenceNullValue()); // the chain: the fanout's
    }

    /**
     * Drain the ring into packets, handing each to the sink as soon as it is full or the ring has nothing more.
     *
     * @param recordLimit most ring records consumed in this call.
     * @param sink        receives the packets.
     * @return records consumed (valid or not).
     */
    public int drain(final int recordLimit, final PacketSink sink)
    {
        int recordsRead = 0;
        while (true)
        {
            final int limit = recordLimit - recordsRead;
            final int read = limit > 0 ? ring.controlledRead(recordHandler, limit) : 0;
            recordsRead += read;
            if (packetMessageCount > 0 && (packetFull || read == 0))
            {
                packetFull = false;
                emit(sink);
            }
            else if (read == 0)
            {
                return recordsRead;
            }
        }
    }

    /** @return the partition this packetizer serves. */
    public int partitionId()
    {
        return partitionId;
    }

    /** @return the stream sequence the next message will carry. */
    public long nextStreamSequence()
    {
        return nextStreamSequence;
    }

    /** @return ring records skipped because they were not one complete normalized message. */
    public long invalidRecords()
    {
        return invalidRecords;
    }

    /** @return packets handed to the sink. */
    public long packets()
    {
        return packets;
    }

    /** @return messages handed to the sink. */
    public long messages()
    {
        return messages;
    }

    private void emit(final PacketSink sink)
    {
        final int messageCount = packetMessageCount;
        packetHeaderEncoder
            .streamSequence(nextStreamSequence)
            .sendingTime(epochClock.nanoTime())
            .messageCount(messageCount);
        sink.onPacket(partitionId, packetBuffer, 0, packetLength, messageCount);
        nextStreamSequence += messageCount;
        packets++;
        messages += messageCount;
        packetLength = PACKET_HEADER_LENGTH;
        packetMessageCount = 0;
    }

    private ControlledMessageHandler.Action onRingRecord(
        final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        if (!isValidRecord(msgTypeId, buffer, index, length))
        {
            invalidRecords++;
            return ControlledMessageHandler.Action.CONTINUE; // consumed and skipped
        }
        if (packetLength + length > maxPacketLength || packetMessageCount == MAX_MESSAGES_PER_PACKET)
        {
            packetFull = true;
            return ControlledMessageHandler.Action.ABORT; // stays in the ring for the next packet
        }
        packetBuffer.putBytes(packetLength, buffer, index, length);
        packetLength += length;
        packetMessageCount++;
        return ControlledMessageHandler.Action.CONTINUE;
    }

    /** {@link WireFormat#isPublishableRecord}: the rule shared with every publisher of our packets. */
    private boolean isValidRecord(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        return WireFormat.isPublishableRecord(msgTypeId, buffer, index, length, maxPacketLength - PACKET_HEADER_LENGTH);
    }
}
