package io.mdfanout.sdk;

import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.BarDecoder;
import io.mdfanout.sbe.BestBidOfferDecoder;
import io.mdfanout.sbe.BookDepthDecoder;
import io.mdfanout.sbe.BrokenTradeDecoder;
import io.mdfanout.sbe.CrossTradeDecoder;
import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sbe.ImbalanceDecoder;
import io.mdfanout.sbe.InstrumentDirectoryDecoder;
import io.mdfanout.sbe.MwcbDeclineLevelDecoder;
import io.mdfanout.sbe.MwcbStatusDecoder;
import io.mdfanout.sbe.OperationalHaltDecoder;
import io.mdfanout.sbe.OrderCancelDecoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import io.mdfanout.sbe.OrderExecutedDecoder;
import io.mdfanout.sbe.OrderExecutedWithPriceDecoder;
import io.mdfanout.sbe.OrderReplaceDecoder;
import io.mdfanout.sbe.RegShoRestrictionDecoder;
import io.mdfanout.sbe.SnapshotInstrumentDecoder;
import io.mdfanout.sbe.SnapshotOrderDecoder;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sbe.TradeDecoder;
import io.mdfanout.sbe.TradePrintDecoder;
import io.mdfanout.sbe.TradingStatusDecoder;
import org.agrona.DirectBuffer;

/**
 * Listeners that compose: every callback goes to each listener given, in the order given, so that books and the
 * application's own logic share one subscriber without the application forwarding every callback by hand
 * ({@code new CompositeListener(books, strategy)}: the strategy's callbacks see the books already changed). A listener
 * that throws stops the callback's delivery to those after it, as a single listener's exception would (the subscriber
 * counts and reports it). Allocates nothing per message.
 */
public final class CompositeListener implements MarketDataListener
{
    private final MarketDataListener[] listeners;

    /**
     * @param listeners the listeners, each told every callback in this order.
     */
    public CompositeListener(final MarketDataListener... listeners)
    {
        if (null == listeners || 0 == listeners.length)
        {
            throw new IllegalArgumentException("at least one listener is required");
        }
        for (final MarketDataListener listener : listeners)
        {
            if (null == listener)
            {
                throw new IllegalArgumentException("a listener is null");
            }
        }
        this.listeners = listeners.clone();
    }

    /** {@inheritDoc} */
    public void onStreamJoined(final int partition, final long streamSequence)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onStreamJoined(partition, streamSequence);
        }
    }

    /** {@inheritDoc} */
    public void onNewDay(final int partition)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onNewDay(partition);
        }
    }

    /** {@inheritDoc} */
    public void onReplayLive(final int partition, final long nextStreamSequence, final long replayedMessages)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onReplayLive(partition, nextStreamSequence, replayedMessages);
        }
    }

    /** {@inheritDoc} */
    public void onReplayEnd(final int partition, final long nextStreamSequence)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onReplayEnd(partition, nextStreamSequence);
        }
    }

    /** {@inheritDoc} */
    public void onStreamGap(final int partition, final long firstMissing, final long lastMissing)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onStreamGap(partition, firstMissing, lastMissing);
        }
    }

    /** {@inheritDoc} */
    public void onHeartbeat(final int partition, final long nextStreamSequence, final long sendingTime)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onHeartbeat(partition, nextStreamSequence, sendingTime);
        }
    }

    /** {@inheritDoc} */
    public void onRawMessage(
        final MessageContext context, final DirectBuffer buffer, final int offset, final int length)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onRawMessage(context, buffer, offset, length);
        }
    }

    /** {@inheritDoc} */
    public void onGapNotice(final MessageContext context, final GapNoticeDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onGapNotice(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onSystemEvent(final MessageContext context, final SystemEventDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onSystemEvent(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onInstrumentDirectory(final MessageContext context, final InstrumentDirectoryDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onInstrumentDirectory(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onTradingStatus(final MessageContext context, final TradingStatusDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onTradingStatus(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onRegShoRestriction(final MessageContext context, final RegShoRestrictionDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onRegShoRestriction(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onMwcbDeclineLevel(final MessageContext context, final MwcbDeclineLevelDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onMwcbDeclineLevel(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onMwcbStatus(final MessageContext context, final MwcbStatusDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onMwcbStatus(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onOperationalHalt(final MessageContext context, final OperationalHaltDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onOperationalHalt(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onAddOrder(final MessageContext context, final AddOrderDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onAddOrder(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onAddOrderAttributed(final MessageContext context, final AddOrderAttributedDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onAddOrderAttributed(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onOrderExecuted(final MessageContext context, final OrderExecutedDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onOrderExecuted(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onOrderExecutedWithPrice(final MessageContext context, final OrderExecutedWithPriceDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onOrderExecutedWithPrice(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onOrderCancel(final MessageContext context, final OrderCancelDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onOrderCancel(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onOrderDelete(final MessageContext context, final OrderDeleteDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onOrderDelete(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onOrderReplace(final MessageContext context, final OrderReplaceDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onOrderReplace(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onTrade(final MessageContext context, final TradeDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onTrade(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onCrossTrade(final MessageContext context, final CrossTradeDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onCrossTrade(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onBrokenTrade(final MessageContext context, final BrokenTradeDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onBrokenTrade(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onImbalance(final MessageContext context, final ImbalanceDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onImbalance(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onBestBidOffer(final MessageContext context, final BestBidOfferDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onBestBidOffer(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onBookDepth(final MessageContext context, final BookDepthDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onBookDepth(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onTradePrint(final MessageContext context, final TradePrintDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onTradePrint(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onBar(final MessageContext context, final BarDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onBar(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onStale(final int partition, final StaleReason reason, final long streamSequence)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onStale(partition, reason, streamSequence);
        }
    }

    /** {@inheritDoc} */
    public void onSnapshotBegin(final int partition, final long snapshotId, final long lastStreamSequence)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onSnapshotBegin(partition, snapshotId, lastStreamSequence);
        }
    }

    /** {@inheritDoc} */
    public void onSnapshotEnd(
        final int partition, final long snapshotId, final long coveredFromInstrumentId, final long lastStreamSequence)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onSnapshotEnd(partition, snapshotId, coveredFromInstrumentId, lastStreamSequence);
        }
    }

    /** {@inheritDoc} */
    public void onSnapshotInstrument(final MessageContext context, final SnapshotInstrumentDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onSnapshotInstrument(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onSnapshotOrder(final MessageContext context, final SnapshotOrderDecoder message)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onSnapshotOrder(context, message);
        }
    }

    /** {@inheritDoc} */
    public void onRecovered(
        final int partition, final long snapshotId, final long lastStreamSequence, final long staleForNanos)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onRecovered(partition, snapshotId, lastStreamSequence, staleForNanos);
        }
    }

    /** {@inheritDoc} */
    public void onStreamSilent(final int partition, final long silentForNanos)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onStreamSilent(partition, silentForNanos);
        }
    }

    /** {@inheritDoc} */
    public void onStreamActive(final int partition)
    {
        for (final MarketDataListener listener : listeners)
        {
            listener.onStreamActive(partition);
        }
    }

}
