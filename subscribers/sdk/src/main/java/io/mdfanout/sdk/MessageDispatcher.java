package io.mdfanout.sdk;

import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.BarDecoder;
import io.mdfanout.sbe.BestBidOfferDecoder;
import io.mdfanout.sbe.BookDepthDecoder;
import io.mdfanout.sbe.BrokenTradeDecoder;
import io.mdfanout.sbe.CrossTradeDecoder;
import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sbe.GapReason;
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
import io.mdfanout.sbe.SnapshotInstrumentDecoder;
import io.mdfanout.sbe.SnapshotOrderDecoder;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sbe.TradeDecoder;
import io.mdfanout.sbe.TradePrintDecoder;
import io.mdfanout.sbe.TradingStatusDecoder;
import io.mdfanout.wire.MarketSession;
import io.mdfanout.wire.WireFormat;
import io.mdfanout.wire.Partitioning;
import org.agrona.DirectBuffer;
import org.agrona.collections.LongHashSet;
import org.agrona.ErrorHandler;

/**
 * Decodes validated messages with reused flyweights and dispatches them, and the stream events the
 * sequencer and the recovery raise, to the {@link MarketDataListener}; it decides nothing. An exception
 * thrown by the listener is counted and handed to the error handler, never thrown on: nothing received
 * may make a poll throw. Not thread safe; allocates nothing.
 */
final class MessageDispatcher
{
    private final MarketDataListener listener;
    private final SubscriberCounters counters;
    private final ErrorHandler errorHandler;
    private final PartitionStream[] streams;

    private final MessageContext context = new MessageContext();
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final PacketHeaderDecoder packetHeader = new PacketHeaderDecoder();
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
    private final BestBidOfferDecoder bestBidOffer = new BestBidOfferDecoder();
    private final BookDepthDecoder bookDepth = new BookDepthDecoder();
    private final TradePrintDecoder tradePrint = new TradePrintDecoder();
    private final BarDecoder bar = new BarDecoder();
    private final SnapshotOrderDecoder snapshotOrder = new SnapshotOrderDecoder();

    /** The instruments to deliver, market-wide messages always; null: every instrument. */
    private LongHashSet instruments;

    MessageDispatcher(
        final MarketDataListener listener,
        final SubscriberCounters counters,
        final ErrorHandler errorHandler,
        final PartitionStream[] streams)
    {
        this.listener = listener;
        this.counters = counters;
        this.errorHandler = errorHandler;
        this.streams = streams;
    }

    /**
     * Deliver only these instruments' messages (and the market-wide ones): the others are skipped by the instrument id
     * of their common prefix, without being decoded.
     *
     * @param instrumentIds the instruments; null or empty for every instrument.
     */
    void instruments(final long[] instrumentIds)
    {
        if (null == instrumentIds || 0 == instrumentIds.length)
        {
            instruments = null;
            return;
        }
        instruments = new LongHashSet(instrumentIds.length * 2);
        for (final long instrumentId : instrumentIds)
        {
            instruments.add(instrumentId);
        }
    }

    private boolean isSkipped(final long instrumentId)
    {
        final LongHashSet wanted = instruments;
        return null != wanted && !Partitioning.isMarketWide(instrumentId) && !wanted.contains(instrumentId);
    }

    /**
     * Deliver the messages of a validated incremental packet from {@code fromSequence} on, skipping those the
     * last snapshot applied to the partition already covers (its per-instrument filter).
     */
    void deliver(final PartitionStream stream, final DirectBuffer buffer, final int offset, final long fromSequence)
    {
        header.wrap(buffer, offset);
        packetHeader.wrap(buffer, offset + WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
        final long firstSequence = packetHeader.streamSequence();
        final int messageCount = packetHeader.messageCount();
        final long filterMaxSequence = stream.filterMaxSequence;
        context.packet(stream.partition, packetHeader.sendingTime());

        int position = offset + WireFormat.HEADER_LENGTH + header.blockLength();
        long sequence = firstSequence;
        for (int i = 0; i < messageCount; i++)
        {
            final long headerWord = WireFormat.headerWord(buffer, position);
            final int blockLength = WireFormat.blockLengthOf(headerWord);
            final int templateId = WireFormat.templateIdOf(headerWord);
            final int version = WireFormat.versionOf(headerWord);
            if (sequence >= fromSequence)
            {
                if (null != stream.primeUntil)
                {
                    prime(stream, buffer, position, sequence);
                }
                deliverMessage(stream, buffer, position, templateId, blockLength, version, sequence, filterMaxSequence);
            }
            position += WireFormat.HEADER_LENGTH + blockLength;
            sequence++;
        }
    }

    /**
     * Deliver messages {@code [fromIndex, toIndex)} of a validated incremental packet that a pair's arbitration chose
     * ({@link PairSequencer}), each keyed by its chain position (docs/WIRE.md) instead of a stream sequence: the
     * identity both sides share, which the snapshots of either side tag their state with. Messages the last snapshot
     * applied already covers are skipped, as in {@link #deliver}.
     */
    void deliverRange(
        final PartitionStream stream, final DirectBuffer buffer, final int offset, final int fromIndex, final int toIndex)
    {
        header.wrap(buffer, offset);
        packetHeader.wrap(buffer, offset + WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
        final long filterMaxSequence = stream.filterMaxSequence;
        context.packet(stream.partition, packetHeader.sendingTime());

        int position = offset + WireFormat.HEADER_LENGTH + header.blockLength();
        for (int i = 0; i < toIndex; i++)
        {
            final long headerWord = WireFormat.headerWord(buffer, position);
            final int blockLength = WireFormat.blockLengthOf(headerWord);
            final int templateId = WireFormat.templateIdOf(headerWord);
            if (i >= fromIndex)
            {
                final long chainPosition = buffer.getLong(position + WireFormat.HEADER_LENGTH +
                    WireFormat.chainPositionOffset(templateId), WireFormat.BYTE_ORDER);
                if (null != stream.primeUntil)
                {
                    prime(stream, buffer, position, chainPosition);
                }
                deliverMessage(stream, buffer, position, templateId, blockLength, WireFormat.versionOf(headerWord),
                    chainPosition, filterMaxSequence);
            }
            position += WireFormat.HEADER_LENGTH + blockLength;
        }
    }

    private void deliverMessage(
        final PartitionStream stream,
        final DirectBuffer buffer,
        final int position,
        final int templateId,
        final int blockLength,
        final int version,
        final long sequence,
        final long filterMaxSequence)
    {
        // 0: no snapshot filter (none allocated without recovery), whatever the packet's sequence says
        if (0 != filterMaxSequence && sequence <= filterMaxSequence &&
            sequence <= stream.coveringSequence(WireFormat.instrumentId(buffer, position)))
        {
            counters.onFiltered();
        }
        else
        {
            dispatch(buffer, position, templateId, blockLength, version, sequence);
            if (GapNoticeDecoder.TEMPLATE_ID == templateId || SystemEventDecoder.TEMPLATE_ID == templateId)
            {
                onSessionEvent(stream, buffer, position, templateId, blockLength, version, sequence);
            }
        }
    }

    /**
     * A GapNotice of exchange messages lost for good makes the partition stale ({@link StaleReason#EXCHANGE_GAP})
     * until the exchange starts a new session, whose START_OF_MESSAGES clears it.
     */
    private void onSessionEvent(
        final PartitionStream stream,
        final DirectBuffer buffer,
        final int position,
        final int templateId,
        final int blockLength,
        final int version,
        final long sequence)
    {
        final int blockOffset = position + WireFormat.HEADER_LENGTH;
        if (GapNoticeDecoder.TEMPLATE_ID == templateId)
        {
            final GapReason reason = gapNotice.wrap(buffer, blockOffset, blockLength, version).reason();
            if (GapReason.UNRECOVERED == reason)
            {
                onExchangeGap(stream, sequence);
            }
            else if (GapReason.STALE == reason)
            {
                // The feed handler's word that the session ended while its End of Messages was lost (declared
                // missing): the day is over as if it had come, so the next session starts as a new day.
                stream.marketSession = MarketSession.ENDED;
            }
        }
        else if (stream.exchangeGap && SystemEventCode.START_OF_MESSAGES ==
            systemEvent.wrap(buffer, blockOffset, blockLength, version).eventCode())
        {
            stream.exchangeGap = false;
        }
    }

    /**
     * Exchange messages lost for good: a GapNotice (UNRECOVERED) in the stream, or a snapshot of a state that lacks
     * them (its SnapshotBegin says so, schema version 3: a subscriber it recovers, a late joiner included, learns
     * that its books lack them too). The partition is stale with {@link StaleReason#EXCHANGE_GAP}, reported once
     * while it lasts: until the exchange's next session.
     */
    void onExchangeGap(final PartitionStream stream, final long sequence)
    {
        if (!stream.exchangeGap)
        {
            stream.exchangeGap = true;
            counters.onStale(StaleReason.EXCHANGE_GAP);
            onStale(stream.partition, StaleReason.EXCHANGE_GAP, sequence);
        }
    }

    /**
     * A replay delivers the state before its start point as snapshot content: each message is checked against the
     * start point until it is reached, and from there on the partition is delivered as it came.
     */
    private void prime(final PartitionStream stream, final DirectBuffer buffer, final int position, final long sequence)
    {
        if (stream.primeUntil.reached(stream.partition, sequence, WireFormat.exchangeTimestamp(buffer, position)))
        {
            stream.primeUntil = null;
            context.snapshot(false);
        }
        else
        {
            context.snapshot(true);
        }
    }

    /** The messages that follow come from a snapshot packet of the partition sent at {@code sendingTime}. */
    void snapshotPacket(final int partition, final long sendingTime)
    {
        context.snapshotPacket(partition, sendingTime);
    }

    /** Dispatch a snapshot's instrument (wrapped and checked by the recovery), covered up to {@code sequence}. */
    void onSnapshotInstrument(final SnapshotInstrumentDecoder instrument, final long sequence)
    {
        if (isSkipped(instrument.instrumentId()))
        {
            return;
        }
        context.message(sequence, SnapshotInstrumentDecoder.TEMPLATE_ID);
        try
        {
            listener.onSnapshotInstrument(context, instrument);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    /** Decode and dispatch a snapshot's order at {@code offset} (its SBE header), covered up to {@code sequence}. */
    void onSnapshotOrder(
        final DirectBuffer buffer, final int offset, final int blockLength, final int version, final long sequence)
    {
        if (isSkipped(WireFormat.instrumentId(buffer, offset)))
        {
            return;
        }
        context.message(sequence, SnapshotOrderDecoder.TEMPLATE_ID);
        try
        {
            listener.onSnapshotOrder(
                context, snapshotOrder.wrap(buffer, offset + WireFormat.HEADER_LENGTH, blockLength, version));
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    /**
     * Decode and dispatch one normalized message at {@code offset} (its SBE header) as stream sequence
     * {@code sequence}; the packet it came in was set on the context before.
     */
    void dispatch(
        final DirectBuffer buffer,
        final int offset,
        final int templateId,
        final int blockLength,
        final int version,
        final long sequence)
    {
        if (isSkipped(WireFormat.instrumentId(buffer, offset)))
        {
            return;
        }
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
                    systemEvent.wrap(buffer, blockOffset, blockLength, version);
                    onSystemEvent(context.partition(), systemEvent.eventCodeRaw());
                    listener.onSystemEvent(context, systemEvent);
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
                case BestBidOfferDecoder.TEMPLATE_ID:
                    listener.onBestBidOffer(context, bestBidOffer.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case BookDepthDecoder.TEMPLATE_ID:
                    listener.onBookDepth(context, bookDepth.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case TradePrintDecoder.TEMPLATE_ID:
                    listener.onTradePrint(context, tradePrint.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case BarDecoder.TEMPLATE_ID:
                    listener.onBar(context, bar.wrap(buffer, blockOffset, blockLength, version));
                    break;
                default:
                    // Unreachable: validation admits only normalized and derived templates, all listed above.
                    break;
            }
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    /**
     * The partition's market session moves on its System Events, live or a snapshot's (the last one of the market,
     * sent with the snapshot's state): before the listener hears of it, so that the listener reads the new state.
     */
    private void onSystemEvent(final int partition, final byte eventCode)
    {
        for (final PartitionStream stream : streams)
        {
            if (stream.partition == partition)
            {
                stream.marketSession = stream.marketSession.onSystemEvent(eventCode);
                return;
            }
        }
    }

    void onNewDay(final int partition)
    {
        try
        {
            listener.onNewDay(partition);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    void onStreamJoined(final int partition, final long sequence)
    {
        try
        {
            listener.onStreamJoined(partition, sequence);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    void onReplayLive(final int partition, final long nextStreamSequence, final long replayedMessages)
    {
        try
        {
            listener.onReplayLive(partition, nextStreamSequence, replayedMessages);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    void onReplayEnd(final int partition, final long nextStreamSequence)
    {
        try
        {
            listener.onReplayEnd(partition, nextStreamSequence);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    void onStreamGap(final int partition, final long firstMissing, final long lastMissing)
    {
        try
        {
            listener.onStreamGap(partition, firstMissing, lastMissing);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    void onHeartbeat(final int partition, final long nextSequence, final long sendingTime)
    {
        try
        {
            listener.onHeartbeat(partition, nextSequence, sendingTime);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    void onStreamSilent(final int partition, final long silentForNanos)
    {
        try
        {
            listener.onStreamSilent(partition, silentForNanos);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    void onStreamActive(final int partition)
    {
        try
        {
            listener.onStreamActive(partition);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    void onStale(final int partition, final StaleReason reason, final long sequence)
    {
        try
        {
            listener.onStale(partition, reason, sequence);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    void onSnapshotBegin(final int partition, final long snapshotId, final long lastStreamSequence)
    {
        try
        {
            listener.onSnapshotBegin(partition, snapshotId, lastStreamSequence);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    void onSnapshotEnd(
        final int partition, final long snapshotId, final long coveredFromInstrumentId, final long lastStreamSequence)
    {
        try
        {
            listener.onSnapshotEnd(partition, snapshotId, coveredFromInstrumentId, lastStreamSequence);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    void onRecovered(
        final int partition, final long snapshotId, final long lastStreamSequence, final long staleForNanos)
    {
        try
        {
            listener.onRecovered(partition, snapshotId, lastStreamSequence, staleForNanos);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    /** Count an exception of the listener (or of the subscription it is reported with) and hand it on. */
    void onListenerError(final RuntimeException ex)
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
}
