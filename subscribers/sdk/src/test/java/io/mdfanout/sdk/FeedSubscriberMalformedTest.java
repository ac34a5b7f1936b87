package io.mdfanout.sdk;

import io.aeron.ExclusivePublication;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.AddOrderEncoder;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import io.mdfanout.sbe.PacketHeaderEncoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.wire.Partitioning;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Malformed Aeron messages are counted by reason and skipped without an exception out of poll;
 * valid packets before and after them (including one from a newer schema version) all arrive.
 */
class FeedSubscriberMalformedTest
{
    private static final int PORT = 42301;
    private static final int PARTITION = 0;
    private static final int PACKET_HEADER_END = PacketWriter.HEADER_LENGTH + PacketHeaderEncoder.BLOCK_LENGTH;

    @RegisterExtension
    static final TestMedia media = TestMedia.perClass();

    private final PacketWriter writer = new PacketWriter();

    @Test
    void shouldCountEachMalformedPacketByReasonAndKeepDeliveringValidOnes()
    {
        final int streamIdBase = 1300;
        final String channel = TestMedia.channel(PORT);
        final RecordingListener listener = new RecordingListener();
        try (FeedSubscriber subscriber = new FeedSubscriber(
                media.context(channel, streamIdBase).partitionCount(1).listener(listener));
            ExclusivePublication publication = media.publication(channel, Partitioning.streamId(streamIdBase, PARTITION)))
        {
            TestMedia.awaitConnected(subscriber, publication);
            final UnsafeBuffer buffer = writer.buffer();

            offer(publication, twoOrders(1));

            // Bad schema id in the packet header, then in a message inside the packet.
            int length = twoOrders(3);
            buffer.putShort(6 - 2, (short)999);
            offer(publication, length);
            length = twoOrders(3);
            buffer.putShort(PACKET_HEADER_END + 4, (short)999);
            offer(publication, length);

            // Unknown template inside the packet.
            length = twoOrders(3);
            buffer.putShort(PACKET_HEADER_END + 2, (short)99);
            offer(publication, length);

            // Block length shorter than this build's.
            length = twoOrders(3);
            buffer.putShort(PACKET_HEADER_END, (short)(AddOrderEncoder.BLOCK_LENGTH - 1));
            offer(publication, length);

            // messageCount past the end of the packet, and short of it.
            length = twoOrders(3);
            buffer.putShort(PacketWriter.HEADER_LENGTH + 18, (short)3);
            offer(publication, length);
            length = twoOrders(3);
            buffer.putShort(PacketWriter.HEADER_LENGTH + 18, (short)1);
            offer(publication, length);

            // Truncated: the last message cut short, and a message shorter than a header.
            offer(publication, twoOrders(3) - 5);
            offer(publication, 6);

            // Not a packet: a bare normalized message.
            new AddOrderEncoder().wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder()).orderId(1);
            offer(publication, PacketWriter.HEADER_LENGTH + AddOrderEncoder.BLOCK_LENGTH);

            // A packet claiming another partition.
            length = twoOrders(3);
            buffer.putShort(PacketWriter.HEADER_LENGTH + 16, (short)1);
            offer(publication, length);

            offer(publication, newerVersionPacket(3));
            offer(publication, twoOrders(5));

            TestMedia.pollUntil(subscriber, () -> listener.sequences.contains(6L));
            TestMedia.pollFor(subscriber, 50);

            final SubscriberCounters counters = subscriber.counters();
            assertEquals(2, counters.malformed(MalformedReason.BAD_SCHEMA_ID));
            assertEquals(1, counters.malformed(MalformedReason.UNKNOWN_TEMPLATE));
            assertEquals(1, counters.malformed(MalformedReason.SHORT_BLOCK_LENGTH));
            assertEquals(2, counters.malformed(MalformedReason.BAD_MESSAGE_COUNT));
            assertEquals(2, counters.malformed(MalformedReason.TRUNCATED));
            assertEquals(1, counters.malformed(MalformedReason.NOT_A_PACKET));
            assertEquals(1, counters.malformed(MalformedReason.WRONG_PARTITION));
            assertEquals(10, counters.malformed());

            assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L), listener.sequences);
            assertEquals(List.of("joined 0 1"), listener.events);
            assertEquals(0, counters.gaps());
            assertEquals(3, counters.packets());
            // The newer-version messages decode with this build's fields; the extra bytes were skipped.
            assertEquals(List.of(
                "onAddOrder p=0 seq=1", "onAddOrder p=0 seq=2", "onAddOrder p=0 seq=3", "onOrderDelete p=0 seq=4",
                "onAddOrder p=0 seq=5", "onAddOrder p=0 seq=6"), callbacksOf(listener));
            assertEquals(AddOrderDecoder.BLOCK_LENGTH + 6 + PacketWriter.HEADER_LENGTH, listener.raw.get(2).length);
            assertEquals(true, listener.typed.get(3).contains("orderId=3"), listener.typed.get(3));
        }
    }

    @Test
    void shouldCountListenerExceptionsAndCarryOn()
    {
        final int streamIdBase = 1310;
        final String channel = TestMedia.channel(PORT + 1);
        final List<Long> delivered = new ArrayList<>();
        final MarketDataListener throwing = new MarketDataListener()
        {
            public void onAddOrder(final MessageContext context, final io.mdfanout.sbe.AddOrderDecoder message)
            {
                delivered.add(context.streamSequence());
                if (1 == context.streamSequence())
                {
                    throw new IllegalStateException("listener bug (expected by the test)");
                }
            }
        };
        final List<Throwable> errors = new ArrayList<>();
        try (FeedSubscriber subscriber = new FeedSubscriber(
            media.context(channel, streamIdBase, PARTITION).listener(throwing).errorHandler(errors::add));
            ExclusivePublication publication = media.publication(channel, Partitioning.streamId(streamIdBase, PARTITION)))
        {
            TestMedia.awaitConnected(subscriber, publication);
            offer(publication, twoOrders(1));
            TestMedia.pollUntil(subscriber, () -> delivered.size() == 2);

            assertEquals(List.of(1L, 2L), delivered);
            assertEquals(1, subscriber.counters().listenerErrors());
            assertEquals(1, errors.size());
        }
    }

    private static List<String> callbacksOf(final RecordingListener listener)
    {
        final List<String> callbacks = new ArrayList<>();
        for (final String line : listener.typed)
        {
            final String[] parts = line.split(" ");
            callbacks.add(parts[0] + " " + parts[1] + " " + parts[2]);
        }
        return callbacks;
    }

    private void offer(final ExclusivePublication publication, final int length)
    {
        TestMedia.offer(publication, writer.buffer(), length);
    }

    private int twoOrders(final long firstSequence)
    {
        writer.begin(PARTITION, firstSequence, 5);
        for (int i = 0; i < 2; i++)
        {
            writer.addOrder().exchangeSequence(firstSequence + i).instrumentId(7).orderId(firstSequence + i)
                .shares(100).side(Side.SELL).price().mantissa(20_000);
        }
        return writer.finish();
    }

    /** Packet as a newer schema version would send it: bigger blocks (extra fields at the end), version 1. */
    private int newerVersionPacket(final long firstSequence)
    {
        final UnsafeBuffer buffer = writer.buffer();
        final MessageHeaderEncoder header = new MessageHeaderEncoder();
        writer.begin(PARTITION, firstSequence, 5);
        // Grow the packet header block by 4 bytes: move nothing yet, messages follow the bigger block.
        final int packetBlockLength = PacketHeaderEncoder.BLOCK_LENGTH + 4;
        buffer.putShort(0, (short)packetBlockLength);
        buffer.putShort(6, (short)1);
        writer.reserve(4 - PacketWriter.HEADER_LENGTH); // advance past the extra bytes (reserve adds a header)

        final int addOffset = writer.reserve(AddOrderEncoder.BLOCK_LENGTH + 6);
        new AddOrderEncoder().wrapAndApplyHeader(buffer, addOffset, header).exchangeSequence(3).instrumentId(7)
            .orderId(3).shares(100).side(Side.SELL).price().mantissa(20_000);
        buffer.putShort(addOffset, (short)(AddOrderEncoder.BLOCK_LENGTH + 6));
        buffer.putShort(addOffset + 6, (short)1);
        buffer.setMemory(addOffset + PacketWriter.HEADER_LENGTH + AddOrderEncoder.BLOCK_LENGTH, 6, (byte)0x7F);

        final int deleteOffset = writer.reserve(OrderDeleteDecoder.BLOCK_LENGTH);
        new io.mdfanout.sbe.OrderDeleteEncoder().wrapAndApplyHeader(buffer, deleteOffset, header)
            .exchangeSequence(4).instrumentId(7).orderId(3);

        final int length = writer.limit();
        // reserve() counted the padding step as a message: the packet carries two.
        writer.buffer().putShort(PacketWriter.HEADER_LENGTH + 18, (short)2);
        return length;
    }
}
