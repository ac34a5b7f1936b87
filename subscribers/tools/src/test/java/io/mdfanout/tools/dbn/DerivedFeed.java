package io.mdfanout.tools.dbn;

import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.AddOrderEncoder;
import io.mdfanout.sbe.CrossTradeDecoder;
import io.mdfanout.sbe.CrossTradeEncoder;
import io.mdfanout.sbe.InstrumentDirectoryDecoder;
import io.mdfanout.sbe.InstrumentDirectoryEncoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.OrderCancelDecoder;
import io.mdfanout.sbe.OrderCancelEncoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import io.mdfanout.sbe.OrderDeleteEncoder;
import io.mdfanout.sbe.OrderExecutedDecoder;
import io.mdfanout.sbe.OrderExecutedEncoder;
import io.mdfanout.sbe.OrderExecutedWithPriceDecoder;
import io.mdfanout.sbe.OrderExecutedWithPriceEncoder;
import io.mdfanout.sbe.OrderReplaceDecoder;
import io.mdfanout.sbe.OrderReplaceEncoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sbe.SystemEventEncoder;
import io.mdfanout.sbe.TradeDecoder;
import io.mdfanout.sbe.TradeEncoder;
import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.TestMessageContexts;
import io.mdfanout.wire.WireFormat;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Feeds a listener one normalized message at a time, as a dispatcher does (onRawMessage with the whole message, then
 * its typed callback), at exchange times the test gives: for sessions written by hand, whose derived records the test
 * can list. One partition; the sending time (ts_recv) is the exchange time plus 1 µs.
 */
final class DerivedFeed
{
    static final long TS_RECV_DELAY = 1_000;

    private static final int H = WireFormat.HEADER_LENGTH;

    private final MarketDataListener listener;
    private final long midnight;
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();
    private final MessageContext context = new MessageContext();
    private long sequence = 100;
    private long time;

    DerivedFeed(final MarketDataListener listener, final long midnightEpochNs)
    {
        this.listener = listener;
        this.midnight = midnightEpochNs;
    }

    /** @return the exchange sequence of the last message fed. */
    long sequence()
    {
        return sequence;
    }

    /** @return the ts_recv of the last message fed. */
    long tsRecv()
    {
        return midnight + time + TS_RECV_DELAY;
    }

    /** The exchange time (ns since midnight) of the messages that follow. */
    DerivedFeed at(final long exchangeTime)
    {
        this.time = exchangeTime;
        return this;
    }

    private MessageContext raw(final int templateId)
    {
        sequence++;
        TestMessageContexts.set(context, 0, midnight + time + TS_RECV_DELAY, sequence, templateId, false);
        headerDecoder.wrap(buffer, 0);
        listener.onRawMessage(context, buffer, 0, H + headerDecoder.blockLength());
        return context;
    }

    void systemEvent(final SystemEventCode code)
    {
        new SystemEventEncoder().wrapAndApplyHeader(buffer, 0, header).exchangeSequence(sequence + 1)
            .exchangeTimestamp(time).instrumentId(0).eventCode(code);
        listener.onSystemEvent(raw(SystemEventEncoder.TEMPLATE_ID), new SystemEventDecoder().wrap(
            buffer, H, SystemEventEncoder.BLOCK_LENGTH, SystemEventEncoder.SCHEMA_VERSION));
    }

    void directory(final long instrumentId, final String symbol)
    {
        new InstrumentDirectoryEncoder().wrapAndApplyHeader(buffer, 0, header).exchangeSequence(sequence + 1)
            .exchangeTimestamp(time).instrumentId(instrumentId).symbol(String.format("%-8s", symbol)).roundLotSize(100)
            .etpLeverageFactor(0).marketCategory((byte)'Q').financialStatusIndicator((byte)'N')
            .roundLotsOnly((byte)'N').issueClassification((byte)'C').issueSubType("Z ").authenticity((byte)'P')
            .shortSaleThresholdIndicator((byte)'N').ipoFlag((byte)' ').luldReferencePriceTier((byte)'1')
            .etpFlag((byte)'N').inverseIndicator((byte)'N');
        listener.onInstrumentDirectory(raw(InstrumentDirectoryEncoder.TEMPLATE_ID), new InstrumentDirectoryDecoder().wrap(
            buffer, H, InstrumentDirectoryEncoder.BLOCK_LENGTH, InstrumentDirectoryEncoder.SCHEMA_VERSION));
    }

    void add(final long instrumentId, final long orderId, final Side side, final long shares, final long mantissa)
    {
        final AddOrderEncoder e = new AddOrderEncoder().wrapAndApplyHeader(buffer, 0, header);
        e.exchangeSequence(sequence + 1).exchangeTimestamp(time).instrumentId(instrumentId).orderId(orderId)
            .shares(shares).side(side);
        e.price().mantissa(mantissa);
        listener.onAddOrder(raw(AddOrderEncoder.TEMPLATE_ID), new AddOrderDecoder().wrap(
            buffer, H, AddOrderEncoder.BLOCK_LENGTH, AddOrderEncoder.SCHEMA_VERSION));
    }

    void executed(final long instrumentId, final long orderId, final long shares)
    {
        new OrderExecutedEncoder().wrapAndApplyHeader(buffer, 0, header).exchangeSequence(sequence + 1)
            .exchangeTimestamp(time).instrumentId(instrumentId).orderId(orderId).matchNumber(sequence + 1)
            .executedShares(shares);
        listener.onOrderExecuted(raw(OrderExecutedEncoder.TEMPLATE_ID), new OrderExecutedDecoder().wrap(
            buffer, H, OrderExecutedEncoder.BLOCK_LENGTH, OrderExecutedEncoder.SCHEMA_VERSION));
    }

    void executedWithPrice(
        final long instrumentId, final long orderId, final long shares, final long mantissa, final boolean printable)
    {
        final OrderExecutedWithPriceEncoder e = new OrderExecutedWithPriceEncoder().wrapAndApplyHeader(buffer, 0, header);
        e.exchangeSequence(sequence + 1).exchangeTimestamp(time).instrumentId(instrumentId).orderId(orderId)
            .matchNumber(sequence + 1).executedShares(shares).printable(printable ? (byte)'Y' : (byte)'N');
        e.executionPrice().mantissa(mantissa);
        listener.onOrderExecutedWithPrice(raw(OrderExecutedWithPriceEncoder.TEMPLATE_ID),
            new OrderExecutedWithPriceDecoder().wrap(
                buffer, H, OrderExecutedWithPriceEncoder.BLOCK_LENGTH, OrderExecutedWithPriceEncoder.SCHEMA_VERSION));
    }

    void cancel(final long instrumentId, final long orderId, final long shares)
    {
        new OrderCancelEncoder().wrapAndApplyHeader(buffer, 0, header).exchangeSequence(sequence + 1)
            .exchangeTimestamp(time).instrumentId(instrumentId).orderId(orderId).cancelledShares(shares);
        listener.onOrderCancel(raw(OrderCancelEncoder.TEMPLATE_ID), new OrderCancelDecoder().wrap(
            buffer, H, OrderCancelEncoder.BLOCK_LENGTH, OrderCancelEncoder.SCHEMA_VERSION));
    }

    void delete(final long instrumentId, final long orderId)
    {
        new OrderDeleteEncoder().wrapAndApplyHeader(buffer, 0, header).exchangeSequence(sequence + 1)
            .exchangeTimestamp(time).instrumentId(instrumentId).orderId(orderId);
        listener.onOrderDelete(raw(OrderDeleteEncoder.TEMPLATE_ID), new OrderDeleteDecoder().wrap(
            buffer, H, OrderDeleteEncoder.BLOCK_LENGTH, OrderDeleteEncoder.SCHEMA_VERSION));
    }

    void replace(
        final long instrumentId, final long orderId, final long newOrderId, final long shares, final long mantissa)
    {
        final OrderReplaceEncoder e = new OrderReplaceEncoder().wrapAndApplyHeader(buffer, 0, header);
        e.exchangeSequence(sequence + 1).exchangeTimestamp(time).instrumentId(instrumentId).originalOrderId(orderId)
            .newOrderId(newOrderId).shares(shares);
        e.price().mantissa(mantissa);
        listener.onOrderReplace(raw(OrderReplaceEncoder.TEMPLATE_ID), new OrderReplaceDecoder().wrap(
            buffer, H, OrderReplaceEncoder.BLOCK_LENGTH, OrderReplaceEncoder.SCHEMA_VERSION));
    }

    void trade(final long instrumentId, final long shares, final long mantissa)
    {
        final TradeEncoder e = new TradeEncoder().wrapAndApplyHeader(buffer, 0, header);
        e.exchangeSequence(sequence + 1).exchangeTimestamp(time).instrumentId(instrumentId).orderId(0)
            .matchNumber(sequence + 1).shares(shares).side(Side.BUY);
        e.price().mantissa(mantissa);
        listener.onTrade(raw(TradeEncoder.TEMPLATE_ID), new TradeDecoder().wrap(
            buffer, H, TradeEncoder.BLOCK_LENGTH, TradeEncoder.SCHEMA_VERSION));
    }

    void cross(final long instrumentId, final long shares, final long mantissa)
    {
        final CrossTradeEncoder e = new CrossTradeEncoder().wrapAndApplyHeader(buffer, 0, header);
        e.exchangeSequence(sequence + 1).exchangeTimestamp(time).instrumentId(instrumentId).shares(shares)
            .matchNumber(sequence + 1).crossType((byte)'O');
        e.crossPrice().mantissa(mantissa);
        listener.onCrossTrade(raw(CrossTradeEncoder.TEMPLATE_ID), new CrossTradeDecoder().wrap(
            buffer, H, CrossTradeEncoder.BLOCK_LENGTH, CrossTradeEncoder.SCHEMA_VERSION));
    }
}
