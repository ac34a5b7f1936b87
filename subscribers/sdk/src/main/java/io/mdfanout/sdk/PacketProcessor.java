package io.mdfanout.sdk;

import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.BrokenTradeDecoder;
import io.mdfanout.sbe.CrossTradeDecoder;
import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sbe.HeartbeatDecoder;
import io.mdfanout.sbe.ImbalanceDecoder;
import io.mdfanout.sbe.InstrumentDirectoryDecoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.MwcbDeclineLevelDecoder;
import io.mdfanout.sbe.MwcbStatusDecoder;
import io.mdfanout.sbe.OperationalHaltDecoder;
import io.mdfanout.sbe.OrderCancelDecoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import io.mdfanout.sbe.OrderExecutedDecoder;
import io.mdfanout.sbe.OrderExecutedWithPriceDecoder;
import io.mdfanout.sbe.OrderReplaceDecoder;
import io.mdfanout.sbe.PacketHeaderDecoder;
import io.mdfanout.sbe.RegShoRestrictionDecoder;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sbe.TradeDecoder;
import io.mdfanout.sbe.TradingStatusDecoder;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;

/**
 * Validates, sequences and dispatches the Aeron messages of a set of partition streams.
 * <p>
 * Each Aeron message is validated as a whole before any of it is delivered, so a listener never
 * sees part of a malformed packet: the packet is counted by reason and dropped, and the stream
 * sequences it carried surface as a gap on the next valid packet. Only headers are read during
 * validation; the decoders wrap the messages during dispatch. Nothing here allocates.
 */
final class PacketProcessor
{
    private static final int NOT_JOINED = -1;
    private static final MalformedReason[] REASONS = MalformedReason.values();
    private static final int VALID = -1;

    private final MarketDataListener listener;
    private final SubscriberCounters counters;
    private final ErrorHandler errorHandler;
    private final int[] partitions;
    private final long[] expectedSequence;
    private final int[] sessionIds;

    private final MessageContext context = new MessageContext();
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final PacketHeaderDecoder packetHeader = new PacketHeaderDecoder();
    private final HeartbeatDecoder heartbeat = new HeartbeatDecoder();
    private final GapNoticeDecoder gapNotice = new GapNoticeDecoder();
    private final SystemEventDecoder systemEvent = new SystemEventDecoder();
    private final InstrumentDirectoryDecoder instrumentDirectory = new InstrumentDirectoryDecoder();
    private final TradingStatusDecoder tradingStatus = new TradingStatusDecoder();
    private final RegShoRestrictionDecoder regShoRestriction = new RegShoRestrictionDecoder();
    private final MwcbDeclineLevelDecoder mwcbDeclineLevel = new MwcbDeclineLevelDecoder();
    private final MwcbStatusDecoder mwcbStatus = new MwcbStatusDecoder();
    private final OperationalHaltDecoder operationalHalt = new OperationalHaltDecoder();
    private final AddOrderDecoder addOrder = new AddOrderDecoder();
    private final AddOrderAttributedDecoder addOrderAttributed = new AddOrderAttributedDecoder();
    private final OrderExecutedDecoder orderExecuted = new OrderExecutedDecoder();
    private final OrderExecutedWithPriceDecoder orderExecutedWithPrice = new OrderExecutedWithPriceDecoder();
    private final OrderCancelDecoder orderCancel = new OrderCancelDecoder();
    private final OrderDeleteDecoder orderDelete = new OrderDeleteDecoder();
    private final OrderReplaceDecoder orderReplace = new OrderReplaceDecoder();
    private final TradeDecoder trade = new TradeDecoder();
    private final CrossTradeDecoder crossTrade = new CrossTradeDecoder();
    private final BrokenTradeDecoder brokenTrade = new BrokenTradeDecoder();
    private final ImbalanceDecoder imbalance = new ImbalanceDecoder();

    PacketProcessor(
        final int[] partitions,
        final MarketDataListener listener,
        final SubscriberCounters counters,
        final ErrorHandler errorHandler)
    {
        this.partitions = partitions.clone();
        this.listener = listener;
        this.counters = counters;
        this.errorHandler = errorHandler;
        this.expectedSequence = new long[partitions.length];
        this.sessionIds = new int[partitions.length];
        java.util.Arrays.fill(expectedSequence, NOT_JOINED);
    }

    /**
     * The next stream sequence expected on the partition in slot {@code slot}, or -1 before the stream was joined.
     */
    long expectedSequence(final int slot)
    {
        return expectedSequence[slot];
    }

    /**
     * Process one complete Aeron message received on the stream of partition slot {@code slot}.
     */
    void onMessage(final int slot, final int sessionId, final DirectBuffer buffer, final int offset, final int length)
    {
        final int reason = validate(slot, buffer, offset, length);
        if (VALID != reason)
        {
            counters.onMalformed(REASONS[reason]);
            return;
        }

        header.wrap(buffer, offset);
        if (HeartbeatDecoder.TEMPLATE_ID == header.templateId())
        {
            heartbeat.wrap(buffer, offset + WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
            onHeartbeat(slot, sessionId);
        }
        else
        {
            packetHeader.wrap(buffer, offset + WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
            onPacket(slot, sessionId, buffer, offset + WireFormat.HEADER_LENGTH + header.blockLength());
        }
    }

    private void onHeartbeat(final int slot, final int sessionId)
    {
        counters.onHeartbeat();
        final int partition = partitions[slot];
        final long next = heartbeat.nextStreamSequence();
        if (join(slot, sessionId, next))
        {
            listener.onStreamJoined(partition, next);
        }
        else if (next > expectedSequence[slot])
        {
            reportGap(slot, next);
        }

        try
        {
            listener.onHeartbeat(partition, next, heartbeat.sendingTime());
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    private void onPacket(final int slot, final int sessionId, final DirectBuffer buffer, final int firstMessageOffset)
    {
        counters.onPacket();
        final int partition = partitions[slot];
        final long firstSequence = packetHeader.streamSequence();
        final int messageCount = packetHeader.messageCount();
        final long endSequence = firstSequence + messageCount;

        if (join(slot, sessionId, firstSequence))
        {
            listener.onStreamJoined(partition, firstSequence);
        }

        final long expected = expectedSequence[slot];
        if (endSequence <= expected)
        {
            counters.onDuplicatePacket(messageCount);
            return;
        }
        if (firstSequence > expected)
        {
            reportGap(slot, firstSequence);
        }
        else if (firstSequence < expected)
        {
            counters.onOverlap(expected - firstSequence);
        }
        expectedSequence[slot] = endSequence;

        context.packet(partition, packetHeader.sendingTime());
        int position = firstMessageOffset;
        long sequence = firstSequence;
        for (int i = 0; i < messageCount; i++)
        {
            header.wrap(buffer, position);
            final int blockLength = header.blockLength();
            if (sequence >= expected)
            {
                dispatch(buffer, position, header.templateId(), blockLength, header.version(), sequence);
            }
            position += WireFormat.HEADER_LENGTH + blockLength;
            sequence++;
        }
    }

    private boolean join(final int slot, final int sessionId, final long sequence)
    {
        // A new publisher session (a restarted fanout) starts its sequences afresh: re-join it.
        if (NOT_JOINED == expectedSequence[slot] || sessionId != sessionIds[slot])
        {
            expectedSequence[slot] = sequence;
            sessionIds[slot] = sessionId;
            return true;
        }
        return false;
    }

    private void reportGap(final int slot, final long nextSequence)
    {
        final long firstMissing = expectedSequence[slot];
        final long lastMissing = nextSequence - 1;
        counters.onGap(nextSequence - firstMissing);
        expectedSequence[slot] = nextSequence;
        try
        {
            listener.onStreamGap(partitions[slot], firstMissing, lastMissing);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    private void dispatch(
        final DirectBuffer buffer,
        final int offset,
        final int templateId,
        final int blockLength,
        final int version,
        final long sequence)
    {
        final MessageContext context = this.context;
        final MarketDataListener listener = this.listener;
        final int blockOffset = offset + WireFormat.HEADER_LENGTH;
        context.message(sequence, templateId);
        counters.onMessage();

        try
        {
            listener.onRawMessage(context, buffer, offset, WireFormat.HEADER_LENGTH + blockLength);
            switch (templateId)
            {
                case GapNoticeDecoder.TEMPLATE_ID:
                    listener.onGapNotice(context, gapNotice.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case SystemEventDecoder.TEMPLATE_ID:
                    listener.onSystemEvent(context, systemEvent.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case InstrumentDirectoryDecoder.TEMPLATE_ID:
                    listener.onInstrumentDirectory(
                        context, instrumentDirectory.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case TradingStatusDecoder.TEMPLATE_ID:
                    listener.onTradingStatus(context, tradingStatus.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case RegShoRestrictionDecoder.TEMPLATE_ID:
                    listener.onRegShoRestriction(
                        context, regShoRestriction.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case MwcbDeclineLevelDecoder.TEMPLATE_ID:
                    listener.onMwcbDeclineLevel(
                        context, mwcbDeclineLevel.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case MwcbStatusDecoder.TEMPLATE_ID:
                    listener.onMwcbStatus(context, mwcbStatus.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case OperationalHaltDecoder.TEMPLATE_ID:
                    listener.onOperationalHalt(
                        context, operationalHalt.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case AddOrderDecoder.TEMPLATE_ID:
                    listener.onAddOrder(context, addOrder.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case AddOrderAttributedDecoder.TEMPLATE_ID:
                    listener.onAddOrderAttributed(
                        context, addOrderAttributed.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case OrderExecutedDecoder.TEMPLATE_ID:
                    listener.onOrderExecuted(context, orderExecuted.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case OrderExecutedWithPriceDecoder.TEMPLATE_ID:
                    listener.onOrderExecutedWithPrice(
                        context, orderExecutedWithPrice.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case OrderCancelDecoder.TEMPLATE_ID:
                    listener.onOrderCancel(context, orderCancel.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case OrderDeleteDecoder.TEMPLATE_ID:
                    listener.onOrderDelete(context, orderDelete.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case OrderReplaceDecoder.TEMPLATE_ID:
                    listener.onOrderReplace(context, orderReplace.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case TradeDecoder.TEMPLATE_ID:
                    listener.onTrade(context, trade.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case CrossTradeDecoder.TEMPLATE_ID:
                    listener.onCrossTrade(context, crossTrade.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case BrokenTradeDecoder.TEMPLATE_ID:
                    listener.onBrokenTrade(context, brokenTrade.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case ImbalanceDecoder.TEMPLATE_ID:
                    listener.onImbalance(context, imbalance.wrap(buffer, blockOffset, blockLength, version));
                    break;
                default:
                    // Unreachable: validation admits only normalized templates, all listed above.
                    break;
            }
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    private void onListenerError(final RuntimeException ex)
    {
        counters.onListenerError();
        try
        {
            errorHandler.onError(ex);
        }
        catch (final RuntimeException ignore)
        {
            // An error handler that throws must not take the poll loop down with it.
        }
    }

    /**
     * Check every SBE header in the Aeron message against the wire contract.
     *
     * @return {@link #VALID} or the ordinal of the {@link MalformedReason}.
     */
    private int validate(final int slot, final DirectBuffer buffer, final int offset, final int length)
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
        if (blockLength < WireFormat.knownBlockLength(templateId))
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
            if (heartbeat.partitionId() != partitions[slot])
            {
                return MalformedReason.WRONG_PARTITION.ordinal();
            }
            return position == end ? VALID : MalformedReason.BAD_MESSAGE_COUNT.ordinal();
        }

        packetHeader.wrap(buffer, offset + WireFormat.HEADER_LENGTH, blockLength, header.version());
        if (packetHeader.partitionId() != partitions[slot])
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
            header.wrap(buffer, position);
            if (WireFormat.SCHEMA_ID != header.schemaId())
            {
                return MalformedReason.BAD_SCHEMA_ID.ordinal();
            }
            final int messageTemplateId = header.templateId();
            if (!WireFormat.isNormalizedMessage(messageTemplateId))
            {
                return MalformedReason.UNKNOWN_TEMPLATE.ordinal();
            }
            final int messageBlockLength = header.blockLength();
            if (messageBlockLength < WireFormat.knownBlockLength(messageTemplateId))
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
