package io.mdfanout.feed.fuzz;

import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.BrokenTradeDecoder;
import io.mdfanout.sbe.CrossTradeDecoder;
import io.mdfanout.sbe.GapNoticeDecoder;
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
import io.mdfanout.sbe.RegShoRestrictionDecoder;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sbe.TradeDecoder;
import io.mdfanout.sbe.TradingStatusDecoder;
import io.mdfanout.wire.WireFormat;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.ringbuffer.RingBuffer;

/**
 * Drains partition rings and checks every record: the record type is the SBE template id, a
 * normalized template of this schema, the header's block length and schema are this build's, the
 * record length is exactly one message, every field decodes through the generated decoder (whose
 * enum accessors throw on a value outside the schema), and exchange sequences never go back within
 * a partition. Throws {@link AssertionError} on the first bad record.
 */
final class RingValidator implements MessageHandler
{
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
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
    private final StringBuilder text = new StringBuilder(512);

    private final long[] lastSequence;
    private int partition;
    private long records;
    private long gapNotices;

    /** Last record seen, for the oracle of single-message tests. */
    long lastExchangeSequence;
    long lastExchangeTimestamp;
    long lastInstrumentId;

    RingValidator(final int partitions)
    {
        lastSequence = new long[partitions];
    }

    /** Forget the sequences seen (a new session). */
    void reset()
    {
        java.util.Arrays.fill(lastSequence, 0);
    }

    /** Drain every ring, validating each record; returns the number of records. */
    long drain(final RingBuffer[] rings)
    {
        final long before = records;
        for (partition = 0; partition < rings.length; partition++)
        {
            final RingBuffer ring = rings[partition];
            // read returns 0 when it only skipped the padding at the end of the buffer: go on to the head
            while (ring.read(this) > 0 || ring.consumerPosition() < ring.producerPosition())
            {
                // until empty
            }
        }
        return records - before;
    }

    long records()
    {
        return records;
    }

    long gapNotices()
    {
        return gapNotices;
    }

    public void onMessage(final int typeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        check(length >= WireFormat.HEADER_LENGTH, "record shorter than an SBE header");
        header.wrap(buffer, index);
        final int templateId = header.templateId();
        check(typeId == templateId, "record type id is not the template id");
        check(WireFormat.isNormalizedMessage(templateId), "not a normalized template");
        check(header.schemaId() == WireFormat.SCHEMA_ID && header.version() == WireFormat.SCHEMA_VERSION, "schema");
        check(header.blockLength() == WireFormat.knownBlockLength(templateId), "block length");
        check(length == WireFormat.messageLength(header.blockLength()), "record length is not one message");

        text.setLength(0);
        decoderFor(templateId).appendTo(buffer, index, header, text);

        final long sequence = WireFormat.exchangeSequence(buffer, index);
        check(sequence >= lastSequence[partition], "exchange sequence went back in a partition");
        lastSequence[partition] = sequence;
        lastExchangeSequence = sequence;
        lastExchangeTimestamp = WireFormat.exchangeTimestamp(buffer, index);
        lastInstrumentId = WireFormat.instrumentId(buffer, index);
        if (GapNoticeDecoder.TEMPLATE_ID == templateId)
        {
            gapNotice.wrapAndApplyHeader(buffer, index, header);
            check(gapNotice.lastMissingSequence() >= gapNotice.exchangeSequence(), "gap notice range");
            gapNotices++;
        }
        records++;
    }

    private interface Appender
    {
        void appendTo(MutableDirectBuffer buffer, int index, MessageHeaderDecoder header, StringBuilder text);
    }

    private Appender decoderFor(final int templateId)
    {
        switch (templateId)
        {
            case GapNoticeDecoder.TEMPLATE_ID: return (b, i, h, t) -> gapNotice.wrapAndApplyHeader(b, i, h).appendTo(t);
            case SystemEventDecoder.TEMPLATE_ID: return (b, i, h, t) -> systemEvent.wrapAndApplyHeader(b, i, h).appendTo(t);
            case InstrumentDirectoryDecoder.TEMPLATE_ID:
                return (b, i, h, t) -> instrumentDirectory.wrapAndApplyHeader(b, i, h).appendTo(t);
            case TradingStatusDecoder.TEMPLATE_ID: return (b, i, h, t) -> tradingStatus.wrapAndApplyHeader(b, i, h).appendTo(t);
            case RegShoRestrictionDecoder.TEMPLATE_ID:
                return (b, i, h, t) -> regShoRestriction.wrapAndApplyHeader(b, i, h).appendTo(t);
            case MwcbDeclineLevelDecoder.TEMPLATE_ID:
                return (b, i, h, t) -> mwcbDeclineLevel.wrapAndApplyHeader(b, i, h).appendTo(t);
            case MwcbStatusDecoder.TEMPLATE_ID: return (b, i, h, t) -> mwcbStatus.wrapAndApplyHeader(b, i, h).appendTo(t);
            case OperationalHaltDecoder.TEMPLATE_ID:
                return (b, i, h, t) -> operationalHalt.wrapAndApplyHeader(b, i, h).appendTo(t);
            case AddOrderDecoder.TEMPLATE_ID: return (b, i, h, t) -> addOrder.wrapAndApplyHeader(b, i, h).appendTo(t);
            case AddOrderAttributedDecoder.TEMPLATE_ID:
                return (b, i, h, t) -> addOrderAttributed.wrapAndApplyHeader(b, i, h).appendTo(t);
            case OrderExecutedDecoder.TEMPLATE_ID: return (b, i, h, t) -> orderExecuted.wrapAndApplyHeader(b, i, h).appendTo(t);
            case OrderExecutedWithPriceDecoder.TEMPLATE_ID:
                return (b, i, h, t) -> orderExecutedWithPrice.wrapAndApplyHeader(b, i, h).appendTo(t);
            case OrderCancelDecoder.TEMPLATE_ID: return (b, i, h, t) -> orderCancel.wrapAndApplyHeader(b, i, h).appendTo(t);
            case OrderDeleteDecoder.TEMPLATE_ID: return (b, i, h, t) -> orderDelete.wrapAndApplyHeader(b, i, h).appendTo(t);
            case OrderReplaceDecoder.TEMPLATE_ID: return (b, i, h, t) -> orderReplace.wrapAndApplyHeader(b, i, h).appendTo(t);
            case TradeDecoder.TEMPLATE_ID: return (b, i, h, t) -> trade.wrapAndApplyHeader(b, i, h).appendTo(t);
            case CrossTradeDecoder.TEMPLATE_ID: return (b, i, h, t) -> crossTrade.wrapAndApplyHeader(b, i, h).appendTo(t);
            case BrokenTradeDecoder.TEMPLATE_ID: return (b, i, h, t) -> brokenTrade.wrapAndApplyHeader(b, i, h).appendTo(t);
            case ImbalanceDecoder.TEMPLATE_ID: return (b, i, h, t) -> imbalance.wrapAndApplyHeader(b, i, h).appendTo(t);
            default:
                throw new AssertionError("no decoder for template " + templateId);
        }
    }

    private static void check(final boolean condition, final String what)
    {
        if (!condition)
        {
            throw new AssertionError("bad ring record: " + what);
        }
    }
}
