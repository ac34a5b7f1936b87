package io.mdfanout.sdk;

import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderDecoder;
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
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sbe.TradeDecoder;
import io.mdfanout.sbe.TradingStatusDecoder;
import org.agrona.DirectBuffer;

import java.util.ArrayList;
import java.util.List;

/** Test listener: records every callback as a line of text (allocates; tests only). */
final class RecordingListener implements MarketDataListener
{
    final List<String> events = new ArrayList<>();
    final List<String> typed = new ArrayList<>();
    final List<byte[]> raw = new ArrayList<>();
    final List<Long> sequences = new ArrayList<>();

    public void onStreamJoined(final int partition, final long streamSequence)
    {
        events.add("joined " + partition + " " + streamSequence);
    }

    public void onStreamGap(final int partition, final long firstMissing, final long lastMissing)
    {
        events.add("gap " + partition + " " + firstMissing + " " + lastMissing);
    }

    public void onHeartbeat(final int partition, final long nextStreamSequence, final long sendingTime)
    {
        events.add("heartbeat " + partition + " " + nextStreamSequence + " " + sendingTime);
    }

    public void onRawMessage(final MessageContext context, final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        raw.add(bytes);
        sequences.add(context.streamSequence());
    }

    private void typed(final String callback, final MessageContext context, final Object decoder)
    {
        typed.add(callback + " p=" + context.partition() + " seq=" + context.streamSequence() +
            " sent=" + context.sendingTime() + " " + decoder);
    }

    public void onGapNotice(final MessageContext context, final GapNoticeDecoder message)
    {
        typed("onGapNotice", context, message);
    }

    public void onSystemEvent(final MessageContext context, final SystemEventDecoder message)
    {
        typed("onSystemEvent", context, message);
    }

    public void onInstrumentDirectory(final MessageContext context, final InstrumentDirectoryDecoder message)
    {
        typed("onInstrumentDirectory", context, message);
    }

    public void onTradingStatus(final MessageContext context, final TradingStatusDecoder message)
    {
        typed("onTradingStatus", context, message);
    }

    public void onRegShoRestriction(final MessageContext context, final RegShoRestrictionDecoder message)
    {
        typed("onRegShoRestriction", context, message);
    }

    public void onMwcbDeclineLevel(final MessageContext context, final MwcbDeclineLevelDecoder message)
    {
        typed("onMwcbDeclineLevel", context, message);
    }

    public void onMwcbStatus(final MessageContext context, final MwcbStatusDecoder message)
    {
        typed("onMwcbStatus", context, message);
    }

    public void onOperationalHalt(final MessageContext context, final OperationalHaltDecoder message)
    {
        typed("onOperationalHalt", context, message);
    }

    public void onAddOrder(final MessageContext context, final AddOrderDecoder message)
    {
        typed("onAddOrder", context, message);
    }

    public void onAddOrderAttributed(final MessageContext context, final AddOrderAttributedDecoder message)
    {
        typed("onAddOrderAttributed", context, message);
    }

    public void onOrderExecuted(final MessageContext context, final OrderExecutedDecoder message)
    {
        typed("onOrderExecuted", context, message);
    }

    public void onOrderExecutedWithPrice(final MessageContext context, final OrderExecutedWithPriceDecoder message)
    {
        typed("onOrderExecutedWithPrice", context, message);
    }

    public void onOrderCancel(final MessageContext context, final OrderCancelDecoder message)
    {
        typed("onOrderCancel", context, message);
    }

    public void onOrderDelete(final MessageContext context, final OrderDeleteDecoder message)
    {
        typed("onOrderDelete", context, message);
    }

    public void onOrderReplace(final MessageContext context, final OrderReplaceDecoder message)
    {
        typed("onOrderReplace", context, message);
    }

    public void onTrade(final MessageContext context, final TradeDecoder message)
    {
        typed("onTrade", context, message);
    }

    public void onCrossTrade(final MessageContext context, final CrossTradeDecoder message)
    {
        typed("onCrossTrade", context, message);
    }

    public void onBrokenTrade(final MessageContext context, final BrokenTradeDecoder message)
    {
        typed("onBrokenTrade", context, message);
    }

    public void onImbalance(final MessageContext context, final ImbalanceDecoder message)
    {
        typed("onImbalance", context, message);
    }
}
