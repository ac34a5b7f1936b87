package io.mdfanout.cli;

import io.mdfanout.feed.sim.ItchEvent;
import io.mdfanout.sbe.AddOrderAttributedEncoder;
import io.mdfanout.sbe.AddOrderEncoder;
import io.mdfanout.sbe.BrokenTradeEncoder;
import io.mdfanout.sbe.CrossTradeEncoder;
import io.mdfanout.sbe.ImbalanceEncoder;
import io.mdfanout.sbe.InstrumentDirectoryEncoder;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.MwcbDeclineLevelEncoder;
import io.mdfanout.sbe.MwcbStatusEncoder;
import io.mdfanout.sbe.OperationalHaltEncoder;
import io.mdfanout.sbe.OrderCancelEncoder;
import io.mdfanout.sbe.OrderDeleteEncoder;
import io.mdfanout.sbe.OrderExecutedEncoder;
import io.mdfanout.sbe.OrderExecutedWithPriceEncoder;
import io.mdfanout.sbe.OrderReplaceEncoder;
import io.mdfanout.sbe.RegShoRestrictionEncoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventEncoder;
import io.mdfanout.sbe.TradeEncoder;
import io.mdfanout.sbe.TradingState;
import io.mdfanout.sbe.TradingStatusEncoder;
import org.agrona.MutableDirectBuffer;

/**
 * The integration test's oracle: the normalized message the chain must deliver for a simulator
 * event, built from the simulator's own field values (never from ITCH bytes), following the
 * mapping documented in docs/WIRE.md. It is independent of the feed handler's decoder and
 * normalizer on purpose: if both agree byte for byte, both read the specification the same way.
 */
final class ExpectedNormalizer
{
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final SystemEventEncoder systemEvent = new SystemEventEncoder();
    private final InstrumentDirectoryEncoder directory = new InstrumentDirectoryEncoder();
    private final TradingStatusEncoder tradingStatus = new TradingStatusEncoder();
    private final RegShoRestrictionEncoder regSho = new RegShoRestrictionEncoder();
    private final MwcbDeclineLevelEncoder mwcbDecline = new MwcbDeclineLevelEncoder();
    private final MwcbStatusEncoder mwcbStatus = new MwcbStatusEncoder();
    private final OperationalHaltEncoder operationalHalt = new OperationalHaltEncoder();
    private final AddOrderEncoder addOrder = new AddOrderEncoder();
    private final AddOrderAttributedEncoder addOrderAttributed = new AddOrderAttributedEncoder();
    private final OrderExecutedEncoder executed = new OrderExecutedEncoder();
    private final OrderExecutedWithPriceEncoder executedWithPrice = new OrderExecutedWithPriceEncoder();
    private final OrderCancelEncoder cancel = new OrderCancelEncoder();
    private final OrderDeleteEncoder delete = new OrderDeleteEncoder();
    private final OrderReplaceEncoder replace = new OrderReplaceEncoder();
    private final TradeEncoder trade = new TradeEncoder();
    private final CrossTradeEncoder crossTrade = new CrossTradeEncoder();
    private final BrokenTradeEncoder brokenTrade = new BrokenTradeEncoder();
    private final ImbalanceEncoder imbalance = new ImbalanceEncoder();

    /**
     * Encode the expected normalized message at offset 0.
     *
     * @return its length, header included, or 0 for ITCH types the normalized feed drops.
     */
    int encode(final ItchEvent e, final long exchangeSequence, final MutableDirectBuffer buffer)
    {
        final long instrumentId = e.stockLocate;
        switch (e.type)
        {
            case 'S':
                systemEvent.wrapAndApplyHeader(buffer, 0, header)
                    .exchangeSequence(exchangeSequence).exchangeTimestamp(e.timestamp).instrumentId(instrumentId)
                    .eventCode(SystemEventCode.get((byte)e.eventCode));
                return MessageHeaderEncoder.ENCODED_LENGTH + systemEvent.encodedLength();
            case 'R':
                directory.wrapAndApplyHeader(buffer, 0, header)
                    .exchangeSequence(exchangeSequence).exchangeTimestamp(e.timestamp).instrumentId(instrumentId)
                    .putSymbol(e.stock, 0)
                    .roundLotSize(e.roundLotSize)
                    .etpLeverageFactor(e.etpLeverageFactor)
                    .marketCategory((byte)e.marketCategory)
                    .financialStatusIndicator((byte)e.financialStatusIndicator)
                    .roundLotsOnly((byte)e.roundLotsOnly)
                    .issueClassification((byte)e.issueClassification)
                    .putIssueSubType(e.issueSubType, 0)
                    .authenticity((byte)e.authenticity)
                    .shortSaleThresholdIndicator((byte)e.shortSaleThresholdIndicator)
                    .ipoFlag((byte)e.ipoFlag)
                    .luldReferencePriceTier((byte)e.luldReferencePriceTier)
                    .etpFlag((byte)e.etpFlag)
                    .inverseIndicator((byte)e.inverseIndicator);
                return MessageHeaderEncoder.ENCODED_LENGTH + directory.encodedLength();
            case 'H':
                tradingStatus.wrapAndApplyHeader(buffer, 0, header)
                    .exchangeSequence(exchangeSequence).exchangeTimestamp(e.timestamp).instrumentId(instrumentId)
                    .tradingState(TradingState.get((byte)e.tradingState))
                    .putReason(e.reason, 0);
                return MessageHeaderEncoder.ENCODED_LENGTH + tradingStatus.encodedLength();
            case 'Y':
                regSho.wrapAndApplyHeader(buffer, 0, header)
                    .exchangeSequence(exchangeSequence).exchangeTimestamp(e.timestamp).instrumentId(instrumentId)
                    .regShoAction((byte)e.regShoAction);
                return MessageHeaderEncoder.ENCODED_LENGTH + regSho.encodedLength();
            case 'V':
                mwcbDecline.wrapAndApplyHeader(buffer, 0, header)
                    .exchangeSequence(exchangeSequence).exchangeTimestamp(e.timestamp).instrumentId(instrumentId);
                mwcbDecline.level1().mantissa(e.level1Price);
                mwcbDecline.level2().mantissa(e.level2Price);
                mwcbDecline.level3().mantissa(e.level3Price);
                return MessageHeaderEncoder.ENCODED_LENGTH + mwcbDecline.encodedLength();
            case 'W':
                mwcbStatus.wrapAndApplyHeader(buffer, 0, header)
                    .exchangeSequence(exchangeSequence).exchangeTimestamp(e.timestamp).instrumentId(instrumentId)
                    .breachedLevel((byte)e.breachedLevel);
                return MessageHeaderEncoder.ENCODED_LENGTH + mwcbStatus.encodedLength();
            case 'h':
                operationalHalt.wrapAndApplyHeader(buffer, 0, header)
                    .exchangeSequence(exchangeSequence).exchangeTimestamp(e.timestamp).instrumentId(instrumentId)
                    .marketCode((byte)e.marketCode)
                    .haltAction((byte)e.operationalHaltAction);
                return MessageHeaderEncoder.ENCODED_LENGTH + operationalHalt.encodedLength();
            case 'A':
                addOrder.wrapAndApplyHeader(buffer, 0, header)
                    .exchangeSequence(exchangeSequence).exchangeTimestamp(e.timestamp).instrumentId(instrumentId)
                    .orderId(e.orderReferenceNumber);
                addOrder.price().mantissa(e.price);
                addOrder.shares(e.shares).side(Side.get((byte)e.side));
                return MessageHeaderEncoder.ENCODED_LENGTH + addOrder.encodedLength();
            case 'F':
                addOrderAttributed.wrapAndApplyHeader(buffer, 0, header)
                    .exchangeSequence(exchangeSequence).exchangeTimestamp(e.timestamp).instrumentId(instrumentId)
                    .orderId(e.orderReferenceNumber);
                addOrderAttributed.price().mantissa(e.price);
                addOrderAttributed.shares(e.shares).side(Side.get((byte)e.side)).putAttribution(e.attribution, 0);
                return MessageHeaderEncoder.ENCODED_LENGTH + addOrderAttributed.encodedLength();
            case 'E':
                executed.wrapAndApplyHeader(buffer, 0, header)
                    .exchangeSequence(exchangeSequence).exchangeTimestamp(e.timestamp).instrumentId(instrumentId)
                    .orderId(e.orderReferenceNumber).matchNumber(e.matchNumber).executedShares(e.shares);
                return MessageHeaderEncoder.ENCODED_LENGTH + executed.encodedLength();
            case 'C':
                executedWithPrice.wrapAndApplyHeader(buffer, 0, header)
                    .exchangeSequence(exchangeSequence).exchangeTimestamp(e.timestamp).instrumentId(instrumentId)
                    .orderId(e.orderReferenceNumber).matchNumber(e.matchNumber);
                executedWithPrice.executionPrice().mantissa(e.price);
                executedWithPrice.executedShares(e.shares).printable((byte)e.printable);
                return MessageHeaderEncoder.ENCODED_LENGTH + executedWithPrice.encodedLength();
            case 'X':
                cancel.wrapAndApplyHeader(buffer, 0, header)
                    .exchangeSequence(exchangeSequence).exchangeTimestamp(e.timestamp).instrumentId(instrumentId)
                    .orderId(e.orderReferenceNumber).cancelledShares(e.shares);
                return MessageHeaderEncoder.ENCODED_LENGTH + cancel.encodedLength();
            case 'D':
                delete.wrapAndApplyHeader(buffer, 0, header)
                    .exchangeSequence(exchangeSequence).exchangeTimestamp(e.timestamp).instrumentId(instrumentId)
                    .orderId(e.orderReferenceNumber);
                return MessageHeaderEncoder.ENCODED_LENGTH + delete.encodedLength();
            case 'U':
                replace.wrapAndApplyHeader(buffer, 0, header)
                    .exchangeSequence(exchangeSequence).exchangeTimestamp(e.timestamp).instrumentId(instrumentId)
                    .originalOrderId(e.orderReferenceNumber).newOrderId(e.newOrderReferenceNumber);
                replace.price().mantissa(e.price);
                replace.shares(e.shares);
                return MessageHeaderEncoder.ENCODED_LENGTH + replace.encodedLength();
            case 'P':
                trade.wrapAndApplyHeader(buffer, 0, header)
                    .exchangeSequence(exchangeSequence).exchangeTimestamp(e.timestamp).instrumentId(instrumentId)
                    .orderId(e.orderReferenceNumber).matchNumber(e.matchNumber);
                trade.price().mantissa(e.price);
                trade.shares(e.shares).side(Side.get((byte)e.side));
                return MessageHeaderEncoder.ENCODED_LENGTH + trade.encodedLength();
            case 'Q':
                crossTrade.wrapAndApplyHeader(buffer, 0, header)
                    .exchangeSequence(exchangeSequence).exchangeTimestamp(e.timestamp).instrumentId(instrumentId)
                    .shares(e.longShares).matchNumber(e.matchNumber);
                crossTrade.crossPrice().mantissa(e.price);
                crossTrade.crossType((byte)e.crossType);
                return MessageHeaderEncoder.ENCODED_LENGTH + crossTrade.encodedLength();
            case 'B':
                brokenTrade.wrapAndApplyHeader(buffer, 0, header)
                    .exchangeSequence(exchangeSequence).exchangeTimestamp(e.timestamp).instrumentId(instrumentId)
                    .matchNumber(e.matchNumber);
                return MessageHeaderEncoder.ENCODED_LENGTH + brokenTrade.encodedLength();
            case 'I':
                imbalance.wrapAndApplyHeader(buffer, 0, header)
                    .exchangeSequence(exchangeSequence).exchangeTimestamp(e.timestamp).instrumentId(instrumentId)
                    .pairedShares(e.pairedShares).imbalanceShares(e.imbalanceShares);
                imbalance.farPrice().mantissa(e.farPrice);
                imbalance.nearPrice().mantissa(e.nearPrice);
                imbalance.currentReferencePrice().mantissa(e.currentReferencePrice);
                imbalance.imbalanceDirection((byte)e.imbalanceDirection)
                    .crossType((byte)e.crossType)
                    .priceVariationIndicator((byte)e.priceVariationIndicator);
                return MessageHeaderEncoder.ENCODED_LENGTH + imbalance.encodedLength();
            case 'L':
            case 'K':
            case 'J':
            case 'N':
            case 'O':
                return 0;
            default:
                throw new IllegalStateException("simulator produced an unknown ITCH type: " + e.type);
        }
    }
}
