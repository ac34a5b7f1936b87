package io.mdfanout.fanout;

import io.mdfanout.sbe.AddOrderAttributedEncoder;
import io.mdfanout.sbe.AddOrderEncoder;
import io.mdfanout.sbe.GapNoticeEncoder;
import io.mdfanout.sbe.GapReason;
import io.mdfanout.sbe.InstrumentDirectoryEncoder;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.MwcbStatusEncoder;
import io.mdfanout.sbe.OrderCancelEncoder;
import io.mdfanout.sbe.OrderDeleteEncoder;
import io.mdfanout.sbe.OrderExecutedEncoder;
import io.mdfanout.sbe.OrderExecutedWithPriceEncoder;
import io.mdfanout.sbe.OrderReplaceEncoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventEncoder;
import io.mdfanout.sbe.TradeEncoder;
import io.mdfanout.sbe.TradingState;
import io.mdfanout.sbe.TradingStatusEncoder;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;

import java.util.Arrays;

/**
 * Encodes every kind of normalized message the partition state cares about, each into
 * {@link #buffer} at 0, stamping a running exchange sequence. After an encode, {@link #templateId}
 * and {@link #length} describe the message. Reuses its buffer and encoders: no allocation.
 */
public final class StateMessages
{
    public final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
    public int templateId;
    public int length;
    private long exchangeSequence;
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final AddOrderEncoder addOrder = new AddOrderEncoder();
    private final AddOrderAttributedEncoder addOrderAttributed = new AddOrderAttributedEncoder();
    private final OrderExecutedEncoder executed = new OrderExecutedEncoder();
    private final OrderExecutedWithPriceEncoder executedWithPrice = new OrderExecutedWithPriceEncoder();
    private final OrderCancelEncoder cancel = new OrderCancelEncoder();
    private final OrderDeleteEncoder delete = new OrderDeleteEncoder();
    private final OrderReplaceEncoder replace = new OrderReplaceEncoder();
    private final InstrumentDirectoryEncoder directory = new InstrumentDirectoryEncoder();
    private final TradingStatusEncoder tradingStatus = new TradingStatusEncoder();
    private final SystemEventEncoder systemEvent = new SystemEventEncoder();
    private final MwcbStatusEncoder mwcbStatus = new MwcbStatusEncoder();
    private final GapNoticeEncoder gapNotice = new GapNoticeEncoder();
    private final TradeEncoder trade = new TradeEncoder();

    private StateMessages done(final int templateId, final int blockLength)
    {
        this.templateId = templateId;
        this.length = MessageHeaderEncoder.ENCODED_LENGTH + blockLength;
        return this;
    }

    public StateMessages addOrder(final long instrumentId, final long orderId, final boolean buy, final long price,
        final long shares)
    {
        addOrder.wrapAndApplyHeader(buffer, 0, header).exchangeSequence(++exchangeSequence)
            .exchangeTimestamp(exchangeSequence * 10).instrumentId(instrumentId).orderId(orderId)
            .shares(shares).side(buy ? Side.BUY : Side.SELL).price().mantissa(price);
        return done(AddOrderEncoder.TEMPLATE_ID, AddOrderEncoder.BLOCK_LENGTH);
    }

    public StateMessages addOrderAttributed(final long instrumentId, final long orderId, final boolean buy,
        final long price, final long shares, final String mpid)
    {
        addOrderAttributed.wrapAndApplyHeader(buffer, 0, header).exchangeSequence(++exchangeSequence)
            .exchangeTimestamp(exchangeSequence * 10).instrumentId(instrumentId).orderId(orderId)
            .shares(shares).side(buy ? Side.BUY : Side.SELL).attribution(mpid).price().mantissa(price);
        return done(AddOrderAttributedEncoder.TEMPLATE_ID, AddOrderAttributedEncoder.BLOCK_LENGTH);
    }

    public StateMessages executed(final long instrumentId, final long orderId, final long shares)
    {
        executed.wrapAndApplyHeader(buffer, 0, header).exchangeSequence(++exchangeSequence)
            .exchangeTimestamp(exchangeSequence * 10).instrumentId(instrumentId).orderId(orderId)
            .matchNumber(exchangeSequence).executedShares(shares);
        return done(OrderExecutedEncoder.TEMPLATE_ID, OrderExecutedEncoder.BLOCK_LENGTH);
    }

    public StateMessages executedWithPrice(final long instrumentId, final long orderId, final long shares)
    {
        executedWithPrice.wrapAndApplyHeader(buffer, 0, header).exchangeSequence(++exchangeSequence)
            .exchangeTimestamp(exchangeSequence * 10).instrumentId(instrumentId).orderId(orderId)
            .matchNumber(exchangeSequence).executedShares(shares).printable((byte)'Y').executionPrice().mantissa(1);
        return done(OrderExecutedWithPriceEncoder.TEMPLATE_ID, OrderExecutedWithPriceEncoder.BLOCK_LENGTH);
    }

    public StateMessages cancel(final long instrumentId, final long orderId, final long shares)
    {
        cancel.wrapAndApplyHeader(buffer, 0, header).exchangeSequence(++exchangeSequence)
            .exchangeTimestamp(exchangeSequence * 10).instrumentId(instrumentId).orderId(orderId).cancelledShares(shares);
        return done(OrderCancelEncoder.TEMPLATE_ID, OrderCancelEncoder.BLOCK_LENGTH);
    }

    public StateMessages delete(final long instrumentId, final long orderId)
    {
        delete.wrapAndApplyHeader(buffer, 0, header).exchangeSequence(++exchangeSequence)
            .exchangeTimestamp(exchangeSequence * 10).instrumentId(instrumentId).orderId(orderId);
        return done(OrderDeleteEncoder.TEMPLATE_ID, OrderDeleteEncoder.BLOCK_LENGTH);
    }

    public StateMessages replace(final long instrumentId, final long originalOrderId, final long newOrderId,
        final long price, final long shares)
    {
        replace.wrapAndApplyHeader(buffer, 0, header).exchangeSequence(++exchangeSequence)
            .exchangeTimestamp(exchangeSequence * 10).instrumentId(instrumentId).originalOrderId(originalOrderId)
            .newOrderId(newOrderId).shares(shares).price().mantissa(price);
        return done(OrderReplaceEncoder.TEMPLATE_ID, OrderReplaceEncoder.BLOCK_LENGTH);
    }

    public StateMessages directory(final long instrumentId, final String symbol)
    {
        directory.wrapAndApplyHeader(buffer, 0, header).exchangeSequence(++exchangeSequence)
            .exchangeTimestamp(exchangeSequence * 10).instrumentId(instrumentId).symbol(symbol).roundLotSize(100)
            .etpLeverageFactor(0).marketCategory((byte)'Q').financialStatusIndicator((byte)'N')
            .roundLotsOnly((byte)'N').issueClassification((byte)'C').issueSubType("Z ").authenticity((byte)'P')
            .shortSaleThresholdIndicator((byte)'N').ipoFlag((byte)' ').luldReferencePriceTier((byte)'1')
            .etpFlag((byte)'N').inverseIndicator((byte)'N');
        return done(InstrumentDirectoryEncoder.TEMPLATE_ID, InstrumentDirectoryEncoder.BLOCK_LENGTH);
    }

    public StateMessages tradingStatus(final long instrumentId, final boolean trading)
    {
        tradingStatus.wrapAndApplyHeader(buffer, 0, header).exchangeSequence(++exchangeSequence)
            .exchangeTimestamp(exchangeSequence * 10).instrumentId(instrumentId)
            .tradingState(trading ? TradingState.TRADING : TradingState.HALTED).reason("    ");
        return done(TradingStatusEncoder.TEMPLATE_ID, TradingStatusEncoder.BLOCK_LENGTH);
    }

    public StateMessages systemEvent(final SystemEventCode code)
    {
        systemEvent.wrapAndApplyHeader(buffer, 0, header).exchangeSequence(++exchangeSequence)
            .exchangeTimestamp(exchangeSequence * 10).instrumentId(0).eventCode(code);
        return done(SystemEventEncoder.TEMPLATE_ID, SystemEventEncoder.BLOCK_LENGTH);
    }

    /** The feed handler's notice of exchange messages {@code first..last} lost, for every instrument. */
    public StateMessages gapNotice(final long first, final long last, final GapReason reason)
    {
        gapNotice.wrapAndApplyHeader(buffer, 0, header).exchangeSequence(first)
            .exchangeTimestamp(exchangeSequence * 10).instrumentId(0).lastMissingSequence(last).reason(reason);
        exchangeSequence = last;
        return done(GapNoticeEncoder.TEMPLATE_ID, GapNoticeEncoder.BLOCK_LENGTH);
    }

    public StateMessages mwcbStatus(final byte level)
    {
        mwcbStatus.wrapAndApplyHeader(buffer, 0, header).exchangeSequence(++exchangeSequence)
            .exchangeTimestamp(exchangeSequence * 10).instrumentId(0).breachedLevel(level);
        return done(MwcbStatusEncoder.TEMPLATE_ID, MwcbStatusEncoder.BLOCK_LENGTH);
    }

    public StateMessages trade(final long instrumentId)
    {
        trade.wrapAndApplyHeader(buffer, 0, header).exchangeSequence(++exchangeSequence)
            .exchangeTimestamp(exchangeSequence * 10).instrumentId(instrumentId).orderId(0).matchNumber(exchangeSequence)
            .shares(100).side(Side.BUY).price().mantissa(5);
        return done(TradeEncoder.TEMPLATE_ID, TradeEncoder.BLOCK_LENGTH);
    }

    /** The next message encoded carries exchange sequence {@code next} (the ones after it count on from there). */
    public StateMessages nextExchangeSequence(final long next)
    {
        exchangeSequence = next - 1;
        return this;
    }

    /** Give the last encoded message exchange sequence 0, as the feed handler writes an exchange snapshot's. */
    public StateMessages asLoadedSnapshotMessage()
    {
        buffer.putLong(MessageHeaderEncoder.ENCODED_LENGTH, 0, java.nio.ByteOrder.LITTLE_ENDIAN);
        return this;
    }

    /** Start the exchange sequence again, so a sequence of encodes can be repeated byte for byte. */
    public void resetExchangeSequence()
    {
        exchangeSequence = 0;
    }

    /** Write the last encoded message into a ring; false when full. */
    public boolean writeTo(final RingBuffer ring)
    {
        return ring.write(templateId, buffer, 0, length);
    }

    /** @return the last encoded message's bytes. */
    public byte[] bytes()
    {
        return Arrays.copyOf(buffer.byteArray(), length);
    }
}
