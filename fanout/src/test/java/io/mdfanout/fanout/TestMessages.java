package io.mdfanout.fanout;

import io.mdfanout.sbe.AddOrderEncoder;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventEncoder;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;

import java.util.Arrays;

/** Encodes normalized messages for tests and writes them into rings. Reuses its buffer: no allocation. */
final class TestMessages
{
    static final int ADD_ORDER_LENGTH = MessageHeaderEncoder.ENCODED_LENGTH + AddOrderEncoder.BLOCK_LENGTH;

    final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final AddOrderEncoder addOrderEncoder = new AddOrderEncoder();
    private final SystemEventEncoder systemEventEncoder = new SystemEventEncoder();

    /** Encode an AddOrder whose fields all derive from {@code id}; returns its length. */
    int addOrder(final long id, final long instrumentId)
    {
        addOrderEncoder.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .exchangeSequence(id)
            .exchangeTimestamp(id * 1000)
            .instrumentId(instrumentId)
            .orderId(id * 7)
            .shares((int)(id % 1000) + 1)
            .side(id % 2 == 0 ? Side.BUY : Side.SELL)
            .price().mantissa(1_000_000 + id);
        return MessageHeaderEncoder.ENCODED_LENGTH + addOrderEncoder.encodedLength();
    }

    /** Encode a SystemEvent (a shorter message); returns its length. */
    int systemEvent(final long id)
    {
        systemEventEncoder.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .exchangeSequence(id)
            .exchangeTimestamp(id * 1000)
            .instrumentId(0)
            .eventCode(SystemEventCode.START_OF_MARKET_HOURS);
        return MessageHeaderEncoder.ENCODED_LENGTH + systemEventEncoder.encodedLength();
    }

    /** Write an AddOrder into a ring; returns false when the ring is full. */
    boolean writeAddOrder(final RingBuffer ring, final long id, final long instrumentId)
    {
        final int length = addOrder(id, instrumentId);
        return ring.write(AddOrderEncoder.TEMPLATE_ID, buffer, 0, length);
    }

    /** The bytes of the AddOrder {@link #addOrder(long, long)} encodes. */
    byte[] addOrderBytes(final long id, final long instrumentId)
    {
        final int length = addOrder(id, instrumentId);
        return Arrays.copyOf(buffer.byteArray(), length);
    }
}
