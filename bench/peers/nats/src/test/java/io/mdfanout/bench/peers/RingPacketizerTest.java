package io.mdfanout.bench.peers;

import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import io.mdfanout.sbe.OrderDeleteEncoder;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sbe.SystemEventEncoder;
import io.mdfanout.sdk.LocalCounters;
import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.PacketStreamDecoder;
import io.mdfanout.sdk.SubscriberCounters;
import io.mdfanout.tools.LatencyRecorder;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bridge's packets are our wire format: what the packetizer builds from a ring, the SDK's decoder (the one
 * every subscriber runs) accepts whole, in order, with consecutive stream sequences and no gap; an invalid ring
 * record is counted and skipped without losing its neighbours; nats-latency's listener measures and stops.
 */
final class RingPacketizerTest
{
    private static final int PARTITION = 3;
    private static final int MAX_PACKET_LENGTH = 1024;
    private static final int ORDERS = 2_000;

    private final OneToOneRingBuffer ring = new OneToOneRingBuffer(new UnsafeBuffer(
        ByteBuffer.allocateDirect(1024 * 1024 + RingBufferDescriptor.TRAILER_LENGTH)));
    private final ExpandableArrayBuffer scratch = new ExpandableArrayBuffer(256);
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();

    @Test
    void packetsDecodeWholeAndInOrderWithTheSdkDecoder()
    {
        for (int i = 1; i <= ORDERS / 2; i++)
        {
            writeOrderDelete(i);
        }
        // A record of a normalized type whose length does not match its header: must be skipped, not published.
        assertTrue(ring.write(OrderDeleteEncoder.TEMPLATE_ID, scratch, 0, 5));
        for (int i = ORDERS / 2 + 1; i <= ORDERS; i++)
        {
            writeOrderDelete(i);
        }
        writeEndOfMessages();

        final long[] orderIds = new long[ORDERS + 10];
        final int[] count = new int[1];
        final LatencyRecorder recorder = new LatencyRecorder(0);
        final long nowEpochNs = 5 * LatencyRecorder.NANOS_PER_DAY + 1_000_000_000L;
        final NatsLatencyListener latency = new NatsLatencyListener(recorder, () -> nowEpochNs, new int[]{PARTITION}, 0);
        final MarketDataListener listener = new MarketDataListener()
        {
            public void onRawMessage(final MessageContext context, final DirectBuffer buffer, final int offset,
                final int length)
            {
                latency.onRawMessage(context, buffer, offset, length);
            }

            public void onSystemEvent(final MessageContext context, final SystemEventDecoder message)
            {
                latency.onSystemEvent(context, message);
            }

            public void onOrderDelete(final MessageContext context, final OrderDeleteDecoder message)
            {
                orderIds[count[0]++] = message.orderId();
            }
        };
        final SubscriberCounters counters = new SubscriberCounters(
            LocalCounters.create(SubscriberCounters.COUNTER_COUNT), "test");
        final PacketStreamDecoder decoder = new PacketStreamDecoder(
            new int[]{PARTITION}, listener, counters, Throwable::printStackTrace);

        final RingPacketizer packetizer = new RingPacketizer(PARTITION, ring, MAX_PACKET_LENGTH, () -> 42L);
        final int[] packets = new int[1];
        final int consumed = packetizer.drain(10_000, (partitionId, buffer, offset, length, messageCount) ->
        {
            assertEquals(PARTITION, partitionId);
            assertTrue(length <= MAX_PACKET_LENGTH, "packet of " + length + " bytes");
            // Through a byte[] copy, as the bridge publishes it and NATS delivers it.
            final byte[] body = new byte[length];
            buffer.getBytes(offset, body);
            decoder.onMessage(0, 1, new UnsafeBuffer(body), 0, length);
            packets[0]++;
        });

        assertEquals(ORDERS + 2, consumed);
        assertEquals(1, packetizer.invalidRecords());
        assertEquals(ORDERS + 1, packetizer.messages());
        assertEquals(ORDERS + 2, packetizer.nextStreamSequence());
        assertTrue(packets[0] > 1, "several packets: " + packets[0]);
        assertEquals(packets[0], packetizer.packets());
        assertEquals(ORDERS, count[0]);
        for (int i = 0; i < ORDERS; i++)
        {
            assertEquals(i + 1, orderIds[i]);
        }
        assertEquals(0, counters.gaps());
        assertEquals(0, counters.malformed());
        assertEquals(ORDERS + 1, counters.messages());
        assertTrue(latency.isDone(), "END_OF_MESSAGES seen");
        assertEquals(ORDERS + 1, recorder.count());
        assertEquals(1_000.0, recorder.percentileMicros(50), 1.0); // 1 s after midnight - 999 ms = 1 ms
    }

    @Test
    void drainsNothingFromAnEmptyRingAndRespectsTheRecordLimit()
    {
        final RingPacketizer packetizer = new RingPacketizer(0, ring, MAX_PACKET_LENGTH, () -> 0L);
        final int[] packets = new int[1];
        assertEquals(0, packetizer.drain(100, (p, b, o, l, n) -> packets[0]++));
        assertEquals(0, packets[0]);

        for (int i = 1; i <= 10; i++)
        {
            writeOrderDelete(i);
        }
        assertEquals(4, packetizer.drain(4, (p, b, o, l, n) -> packets[0]++));
        assertEquals(1, packets[0]);
        assertEquals(5, packetizer.nextStreamSequence());
        assertEquals(6, packetizer.drain(100, (p, b, o, l, n) -> packets[0]++));
        assertEquals(11, packetizer.nextStreamSequence());
    }

    @Test
    void stopsAtTheMessageLimit()
    {
        final LatencyRecorder recorder = new LatencyRecorder(2);
        final NatsLatencyListener listener = new NatsLatencyListener(recorder, () -> 0L, new int[]{0}, 3);
        final SubscriberCounters counters = new SubscriberCounters(
            LocalCounters.create(SubscriberCounters.COUNTER_COUNT), "test");
        final PacketStreamDecoder decoder = new PacketStreamDecoder(
            new int[]{0}, listener, counters, Throwable::printStackTrace);
        for (int i = 1; i <= 3; i++)
        {
            writeOrderDelete(i);
        }
        final RingPacketizer packetizer = new RingPacketizer(0, ring, MAX_PACKET_LENGTH, () -> 0L);
        packetizer.drain(2, (p, buffer, offset, length, n) -> decoder.onMessage(0, 1, buffer, offset, length));
        assertEquals(false, listener.isDone());
        packetizer.drain(2, (p, buffer, offset, length, n) -> decoder.onMessage(0, 1, buffer, offset, length));
        assertTrue(listener.isDone());
        assertEquals(1, recorder.count()); // two were warm-up
    }

    @Test
    void rejectsAPacketLengthThatCannotHoldTheLargestMessage()
    {
        assertThrows(IllegalArgumentException.class, () -> new RingPacketizer(
            0, ring, RingPacketizer.PACKET_HEADER_LENGTH + WireFormat.MAX_MESSAGE_LENGTH - 1, () -> 0L));
        assertThrows(IllegalArgumentException.class, () -> new RingPacketizer(-1, ring, MAX_PACKET_LENGTH, () -> 0L));
    }

    /** exchangeTimestamp is a time of day; the test clock sits 1 s after midnight, the message 1 ms before it. */
    private void writeOrderDelete(final long orderId)
    {
        final OrderDeleteEncoder encoder = new OrderDeleteEncoder().wrapAndApplyHeader(scratch, 0, headerEncoder);
        encoder.exchangeSequence(orderId).exchangeTimestamp(999_000_000L).instrumentId(7).orderId(orderId);
        final int length = WireFormat.HEADER_LENGTH + encoder.encodedLength();
        assertTrue(ring.write(OrderDeleteEncoder.TEMPLATE_ID, scratch, 0, length));
    }

    private void writeEndOfMessages()
    {
        final SystemEventEncoder encoder = new SystemEventEncoder().wrapAndApplyHeader(scratch, 0, headerEncoder);
        encoder.exchangeSequence(ORDERS + 1).exchangeTimestamp(999_000_000L).instrumentId(0)
            .eventCode(SystemEventCode.END_OF_MESSAGES);
        final int length = WireFormat.HEADER_LENGTH + encoder.encodedLength();
        assertTrue(ring.write(SystemEventEncoder.TEMPLATE_ID, scratch, 0, length));
    }
}
