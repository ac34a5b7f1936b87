package io.mdfanout.bench;

import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.AddOrderEncoder;
import io.mdfanout.sbe.ImbalanceDecoder;
import io.mdfanout.sbe.ImbalanceEncoder;
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
import io.mdfanout.sbe.OrderReplaceDecoder;
import io.mdfanout.sbe.OrderReplaceEncoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SnapshotOrderDecoder;
import io.mdfanout.sbe.SnapshotOrderEncoder;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sbe.SystemEventEncoder;
import io.mdfanout.sbe.TradeDecoder;
import io.mdfanout.sbe.TradeEncoder;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.concurrent.TimeUnit;

/**
 * SBE encode and decode of one normalized message, per template: encode = wrap the header and the
 * block and write every field (what the normalizer does into the ring); decode = wrap the header,
 * then the block, and read every field into a {@link Blackhole} (what a subscriber does).
 * <p>
 * Field values vary with a counter so that the JIT cannot fold them. One operation is one message.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = GeneratedSession.JVM_OPENS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class SbeCodecBenchmark
{
    /** The normalized message measured. */
    @Param({"AddOrder", "OrderExecuted", "OrderCancel", "OrderDelete", "OrderReplace", "Trade", "SystemEvent",
        "InstrumentDirectory", "Imbalance", "SnapshotOrder"})
    public String template;

    private static final byte[] SYMBOL = {'A', 'A', 'P', 'L', ' ', ' ', ' ', ' '};
    private static final int HEADER = MessageHeaderEncoder.ENCODED_LENGTH;

    private final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(256, 64));
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();

    private final AddOrderEncoder addOrderEncoder = new AddOrderEncoder();
    private final AddOrderDecoder addOrderDecoder = new AddOrderDecoder();
    private final OrderExecutedEncoder orderExecutedEncoder = new OrderExecutedEncoder();
    private final OrderExecutedDecoder orderExecutedDecoder = new OrderExecutedDecoder();
    private final OrderCancelEncoder orderCancelEncoder = new OrderCancelEncoder();
    private final OrderCancelDecoder orderCancelDecoder = new OrderCancelDecoder();
    private final OrderDeleteEncoder orderDeleteEncoder = new OrderDeleteEncoder();
    private final OrderDeleteDecoder orderDeleteDecoder = new OrderDeleteDecoder();
    private final OrderReplaceEncoder orderReplaceEncoder = new OrderReplaceEncoder();
    private final OrderReplaceDecoder orderReplaceDecoder = new OrderReplaceDecoder();
    private final TradeEncoder tradeEncoder = new TradeEncoder();
    private final TradeDecoder tradeDecoder = new TradeDecoder();
    private final SystemEventEncoder systemEventEncoder = new SystemEventEncoder();
    private final SystemEventDecoder systemEventDecoder = new SystemEventDecoder();
    private final InstrumentDirectoryEncoder instrumentDirectoryEncoder = new InstrumentDirectoryEncoder();
    private final InstrumentDirectoryDecoder instrumentDirectoryDecoder = new InstrumentDirectoryDecoder();
    private final ImbalanceEncoder imbalanceEncoder = new ImbalanceEncoder();
    private final ImbalanceDecoder imbalanceDecoder = new ImbalanceDecoder();
    private final SnapshotOrderEncoder snapshotOrderEncoder = new SnapshotOrderEncoder();
    private final SnapshotOrderDecoder snapshotOrderDecoder = new SnapshotOrderDecoder();

    private int templateIndex;
    private long counter;

    /** Resolve the template and encode one message, so that decode has something to read. */
    @Setup
    public void setup()
    {
        switch (template)
        {
            case "AddOrder": templateIndex = 0; break;
            case "OrderExecuted": templateIndex = 1; break;
            case "OrderCancel": templateIndex = 2; break;
            case "OrderDelete": templateIndex = 3; break;
            case "OrderReplace": templateIndex = 4; break;
            case "Trade": templateIndex = 5; break;
            case "SystemEvent": templateIndex = 6; break;
            case "InstrumentDirectory": templateIndex = 7; break;
            case "Imbalance": templateIndex = 8; break;
            case "SnapshotOrder": templateIndex = 9; break;
            default: throw new IllegalArgumentException("unknown template " + template);
        }
        encode();
    }

    /**
     * Encode one message.
     *
     * @return its length, so that nothing is dead code.
     */
    @Benchmark
    public int encode()
    {
        final long n = ++counter;
        final UnsafeBuffer buffer = this.buffer;
        switch (templateIndex)
        {
            case 0:
                addOrderEncoder.wrapAndApplyHeader(buffer, 0, headerEncoder)
                    .exchangeSequence(n).exchangeTimestamp(n + 1).instrumentId(n & 0xFFFF).orderId(n)
                    .price().mantissa(n * 100);
                addOrderEncoder.shares(100).side((n & 1) == 0 ? Side.BUY : Side.SELL);
                return HEADER + addOrderEncoder.encodedLength();
            case 1:
                orderExecutedEncoder.wrapAndApplyHeader(buffer, 0, headerEncoder)
                    .exchangeSequence(n).exchangeTimestamp(n + 1).instrumentId(n & 0xFFFF).orderId(n)
                    .matchNumber(n + 2).executedShares(100);
                return HEADER + orderExecutedEncoder.encodedLength();
            case 2:
                orderCancelEncoder.wrapAndApplyHeader(buffer, 0, headerEncoder)
                    .exchangeSequence(n).exchangeTimestamp(n + 1).instrumentId(n & 0xFFFF).orderId(n)
                    .cancelledShares(50);
                return HEADER + orderCancelEncoder.encodedLength();
            case 3:
                orderDeleteEncoder.wrapAndApplyHeader(buffer, 0, headerEncoder)
                    .exchangeSequence(n).exchangeTimestamp(n + 1).instrumentId(n & 0xFFFF).orderId(n);
                return HEADER + orderDeleteEncoder.encodedLength();
            case 4:
                orderReplaceEncoder.wrapAndApplyHeader(buffer, 0, headerEncoder)
                    .exchangeSequence(n).exchangeTimestamp(n + 1).instrumentId(n & 0xFFFF)
                    .originalOrderId(n).newOrderId(n + 1).price().mantissa(n * 100);
                orderReplaceEncoder.shares(200);
                return HEADER + orderReplaceEncoder.encodedLength();
            case 5:
                tradeEncoder.wrapAndApplyHeader(buffer, 0, headerEncoder)
                    .exchangeSequence(n).exchangeTimestamp(n + 1).instrumentId(n & 0xFFFF).orderId(n)
                    .matchNumber(n + 2).price().mantissa(n * 100);
                tradeEncoder.shares(100).side(Side.BUY);
                return HEADER + tradeEncoder.encodedLength();
            case 6:
                systemEventEncoder.wrapAndApplyHeader(buffer, 0, headerEncoder)
                    .exchangeSequence(n).exchangeTimestamp(n + 1).instrumentId(0)
                    .eventCode((n & 1) == 0 ? SystemEventCode.START_OF_MARKET_HOURS : SystemEventCode.END_OF_MARKET_HOURS);
                return HEADER + systemEventEncoder.encodedLength();
            case 7:
                instrumentDirectoryEncoder.wrapAndApplyHeader(buffer, 0, headerEncoder)
                    .exchangeSequence(n).exchangeTimestamp(n + 1).instrumentId(n & 0xFFFF)
                    .putSymbol(SYMBOL, 0)
                    .roundLotSize(100).etpLeverageFactor(0).marketCategory((byte)'Q').financialStatusIndicator((byte)'N')
                    .roundLotsOnly((byte)'N').issueClassification((byte)'C').putIssueSubType((byte)'Z', (byte)' ')
                    .authenticity((byte)'P').shortSaleThresholdIndicator((byte)'N').ipoFlag((byte)'N')
                    .luldReferencePriceTier((byte)'1').etpFlag((byte)'N').inverseIndicator((byte)'N');
                return HEADER + instrumentDirectoryEncoder.encodedLength();
            case 8:
                final ImbalanceEncoder imbalance = imbalanceEncoder.wrapAndApplyHeader(buffer, 0, headerEncoder)
                    .exchangeSequence(n).exchangeTimestamp(n + 1).instrumentId(n & 0xFFFF)
                    .pairedShares(n).imbalanceShares(n + 1);
                imbalance.farPrice().mantissa(n * 100);
                imbalance.nearPrice().mantissa(n * 101);
                imbalance.currentReferencePrice().mantissa(n * 102);
                imbalance.imbalanceDirection((byte)'B').crossType((byte)'C').priceVariationIndicator((byte)'L');
                return HEADER + imbalance.encodedLength();
            default:
                snapshotOrderEncoder.wrapAndApplyHeader(buffer, 0, headerEncoder)
                    .exchangeSequence(n).exchangeTimestamp(n + 1).instrumentId(n & 0xFFFF).orderId(n)
                    .price().mantissa(n * 100);
                snapshotOrderEncoder.shares(100).side(Side.SELL).putAttribution((byte)' ', (byte)' ', (byte)' ', (byte)' ');
                return HEADER + snapshotOrderEncoder.encodedLength();
        }
    }

    /**
     * Decode one message: header, then every field of the block.
     *
     * @param bh consumes every field read.
     */
    @Benchmark
    public void decode(final Blackhole bh)
    {
        final UnsafeBuffer buffer = this.buffer;
        final MessageHeaderDecoder header = headerDecoder.wrap(buffer, 0);
        final int blockLength = header.blockLength();
        final int version = header.version();
        bh.consume(header.templateId());
        switch (templateIndex)
        {
            case 0:
            {
                final AddOrderDecoder d = addOrderDecoder.wrap(buffer, HEADER, blockLength, version);
                bh.consume(d.exchangeSequence());
                bh.consume(d.exchangeTimestamp());
                bh.consume(d.instrumentId());
                bh.consume(d.orderId());
                bh.consume(d.price().mantissa());
                bh.consume(d.shares());
                bh.consume(d.sideRaw());
                break;
            }
            case 1:
            {
                final OrderExecutedDecoder d = orderExecutedDecoder.wrap(buffer, HEADER, blockLength, version);
                bh.consume(d.exchangeSequence());
                bh.consume(d.exchangeTimestamp());
                bh.consume(d.instrumentId());
                bh.consume(d.orderId());
                bh.consume(d.matchNumber());
                bh.consume(d.executedShares());
                break;
            }
            case 2:
            {
                final OrderCancelDecoder d = orderCancelDecoder.wrap(buffer, HEADER, blockLength, version);
                bh.consume(d.exchangeSequence());
                bh.consume(d.exchangeTimestamp());
                bh.consume(d.instrumentId());
                bh.consume(d.orderId());
                bh.consume(d.cancelledShares());
                break;
            }
            case 3:
            {
                final OrderDeleteDecoder d = orderDeleteDecoder.wrap(buffer, HEADER, blockLength, version);
                bh.consume(d.exchangeSequence());
                bh.consume(d.exchangeTimestamp());
                bh.consume(d.instrumentId());
                bh.consume(d.orderId());
                break;
            }
            case 4:
            {
                final OrderReplaceDecoder d = orderReplaceDecoder.wrap(buffer, HEADER, blockLength, version);
                bh.consume(d.exchangeSequence());
                bh.consume(d.exchangeTimestamp());
                bh.consume(d.instrumentId());
                bh.consume(d.originalOrderId());
                bh.consume(d.newOrderId());
                bh.consume(d.price().mantissa());
                bh.consume(d.shares());
                break;
            }
            case 5:
            {
                final TradeDecoder d = tradeDecoder.wrap(buffer, HEADER, blockLength, version);
                bh.consume(d.exchangeSequence());
                bh.consume(d.exchangeTimestamp());
                bh.consume(d.instrumentId());
                bh.consume(d.orderId());
                bh.consume(d.matchNumber());
                bh.consume(d.price().mantissa());
                bh.consume(d.shares());
                bh.consume(d.sideRaw());
                break;
            }
            case 6:
            {
                final SystemEventDecoder d = systemEventDecoder.wrap(buffer, HEADER, blockLength, version);
                bh.consume(d.exchangeSequence());
                bh.consume(d.exchangeTimestamp());
                bh.consume(d.instrumentId());
                bh.consume(d.eventCodeRaw());
                break;
            }
            case 7:
            {
                final InstrumentDirectoryDecoder d = instrumentDirectoryDecoder.wrap(buffer, HEADER, blockLength, version);
                bh.consume(d.exchangeSequence());
                bh.consume(d.exchangeTimestamp());
                bh.consume(d.instrumentId());
                bh.consume(d.symbol(0));
                bh.consume(d.symbol(7));
                bh.consume(d.roundLotSize());
                bh.consume(d.etpLeverageFactor());
                bh.consume(d.marketCategory());
                bh.consume(d.financialStatusIndicator());
                bh.consume(d.roundLotsOnly());
                bh.consume(d.issueClassification());
                bh.consume(d.issueSubType(0));
                bh.consume(d.authenticity());
                bh.consume(d.shortSaleThresholdIndicator());
                bh.consume(d.ipoFlag());
                bh.consume(d.luldReferencePriceTier());
                bh.consume(d.etpFlag());
                bh.consume(d.inverseIndicator());
                break;
            }
            case 8:
            {
                final ImbalanceDecoder d = imbalanceDecoder.wrap(buffer, HEADER, blockLength, version);
                bh.consume(d.exchangeSequence());
                bh.consume(d.exchangeTimestamp());
                bh.consume(d.instrumentId());
                bh.consume(d.pairedShares());
                bh.consume(d.imbalanceShares());
                bh.consume(d.farPrice().mantissa());
                bh.consume(d.nearPrice().mantissa());
                bh.consume(d.currentReferencePrice().mantissa());
                bh.consume(d.imbalanceDirection());
                bh.consume(d.crossType());
                bh.consume(d.priceVariationIndicator());
                break;
            }
            default:
            {
                final SnapshotOrderDecoder d = snapshotOrderDecoder.wrap(buffer, HEADER, blockLength, version);
                bh.consume(d.exchangeSequence());
                bh.consume(d.exchangeTimestamp());
                bh.consume(d.instrumentId());
                bh.consume(d.orderId());
                bh.consume(d.price().mantissa());
                bh.consume(d.shares());
                bh.consume(d.sideRaw());
                bh.consume(d.attribution(0));
                break;
            }
        }
    }
}
