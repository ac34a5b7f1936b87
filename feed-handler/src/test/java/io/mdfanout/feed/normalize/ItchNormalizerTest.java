package io.mdfanout.feed.normalize;

import io.mdfanout.feed.handler.FeedHandlerCounters;
import io.mdfanout.feed.handler.InMemoryCounters;
import io.mdfanout.feed.handler.LineArbiter;
import io.mdfanout.feed.support.ItchBytes;
import io.mdfanout.feed.support.MoldPackets;
import io.mdfanout.feed.support.RingWaitDeadline;
import io.mdfanout.feed.support.Rings;
import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.BrokenTradeDecoder;
import io.mdfanout.sbe.CrossTradeDecoder;
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
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sbe.TradeDecoder;
import io.mdfanout.sbe.TradingState;
import io.mdfanout.sbe.TradingStatusDecoder;
import io.mdfanout.wire.WireFormat;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * ITCH bytes -> MoldUDP64 packet -> onPacket -> ring -> decoded with the generated SBE decoders,
 * every field of every published type; dropped types, broadcast and partitioning.
 */
class ItchNormalizerTest
{
    private static final int PARTITIONS = 4;
    private static final long MAX_U32 = 4294967295L;
    private static final long MAX_TIMESTAMP = 281474976710655L;

    private RingBuffer[] rings;
    private NormalizerCounters normalizerCounters;
    private FeedHandlerCounters feedCounters;
    private LineArbiter arbiter;
    private ItchNormalizer normalizer;
    private long nextSequence = 1;

    @BeforeEach
    void setUp()
    {
        rings = Rings.inMemory(PARTITIONS, 64 * 1024);
        final InMemoryCounters counters = new InMemoryCounters(128);
        normalizerCounters = new NormalizerCounters(counters.countersManager(), "test", PARTITIONS);
        feedCounters = new FeedHandlerCounters(counters.countersManager(), "test");
        normalizer = new ItchNormalizer(rings, new RingWaitDeadline(), normalizerCounters);
        arbiter = LineArbiter.singleLine("SESSION1", normalizer, feedCounters,
            new io.mdfanout.feed.handler.ArbitrationCounters(counters.countersManager(), "test"));
    }

    private long send(final byte[]... messages)
    {
        final long first = nextSequence;
        final byte[] packet = MoldPackets.packet("SESSION1", first, messages);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[packet.length + 3]);
        buffer.putBytes(3, packet);
        arbiter.onDatagram(buffer, 3, packet.length);
        nextSequence += messages.length;
        return first;
    }

    /**
     * The single record of instrument {@code locate}, found in the partition of that locate (records
     * of every partition are drained once and consumed by these lookups).
     */
    private UnsafeBuffer only(final int locate, final int templateId)
    {
        final int partition = locate % PARTITIONS;
        if (null == drained[partition])
        {
            drained[partition] = new java.util.ArrayList<>();
        }
        drained[partition].addAll(Rings.drain(rings[partition]));
        final List<Rings.Rec> matching = new java.util.ArrayList<>();
        for (final Rings.Rec r : drained[partition])
        {
            if (WireFormat.instrumentId(r.buffer(), 0) == locate)
            {
                matching.add(r);
            }
        }
        assertEquals(1, matching.size(), "records of instrument " + locate);
        final Rings.Rec record = matching.get(0);
        drained[partition].remove(record);
        assertEquals(templateId, record.typeId());
        final MessageHeaderDecoder header = new MessageHeaderDecoder().wrap(record.buffer(), 0);
        assertEquals(templateId, header.templateId());
        assertEquals(WireFormat.SCHEMA_ID, header.schemaId());
        assertEquals(WireFormat.SCHEMA_VERSION, header.version());
        assertEquals(WireFormat.knownBlockLength(templateId), header.blockLength());
        assertEquals(WireFormat.messageLength(header.blockLength()), record.buffer().capacity());
        return record.buffer();
    }

    @SuppressWarnings("unchecked")
    private final List<Rings.Rec>[] drained = new List[PARTITIONS];

    private static final int H = MessageHeaderDecoder.ENCODED_LENGTH;

    @Test
    void systemEventIsBroadcastToEveryPartition()
    {
        final long seq = send(new ItchBytes(12, 'S', 0, 9, MAX_TIMESTAMP).ch(11, 'Q').bytes());
        for (int p = 0; p < PARTITIONS; p++)
        {
            final List<Rings.Rec> records = Rings.drain(rings[p]);
            assertEquals(1, records.size(), "partition " + p);
            final SystemEventDecoder d = new SystemEventDecoder()
                .wrap(records.get(0).buffer(), H, SystemEventDecoder.BLOCK_LENGTH, 0);
            assertEquals(seq, d.exchangeSequence());
            assertEquals(MAX_TIMESTAMP, d.exchangeTimestamp());
            assertEquals(0, d.instrumentId());
            assertEquals(SystemEventCode.START_OF_MARKET_HOURS, d.eventCode());
        }
        assertEquals(1, normalizerCounters.messagesPublished().get());
        assertEquals(PARTITIONS, normalizerCounters.ringRecordsWritten().get());
    }

    @Test
    void instrumentDirectory()
    {
        final long seq = send(new ItchBytes(39, 'R', 7, 2, 123).alpha(11, 8, "AAPL").ch(19, 'Q').ch(20, 'N')
            .u32(21, 100).ch(25, 'N').ch(26, 'C').alpha(27, 2, "Z").ch(29, 'P').ch(30, 'N').ch(31, ' ')
            .ch(32, '1').ch(33, 'Y').u32(34, MAX_U32).ch(38, 'N').bytes());
        final InstrumentDirectoryDecoder d = new InstrumentDirectoryDecoder()
            .wrap(only(7, InstrumentDirectoryDecoder.TEMPLATE_ID), H, InstrumentDirectoryDecoder.BLOCK_LENGTH, 0);
        assertEquals(seq, d.exchangeSequence());
        assertEquals(123, d.exchangeTimestamp());
        assertEquals(7, d.instrumentId());
        assertEquals("AAPL    ", d.symbol());
        assertEquals(100, d.roundLotSize());
        assertEquals(MAX_U32, d.etpLeverageFactor());
        assertEquals('Q', d.marketCategory());
        assertEquals('N', d.financialStatusIndicator());
        assertEquals('N', d.roundLotsOnly());
        assertEquals('C', d.issueClassification());
        assertEquals('Z', d.issueSubType(0));
        assertEquals(' ', d.issueSubType(1));
        assertEquals('P', d.authenticity());
        assertEquals('N', d.shortSaleThresholdIndicator());
        assertEquals(' ', d.ipoFlag());
        assertEquals('1', d.luldReferencePriceTier());
        assertEquals('Y', d.etpFlag());
        assertEquals('N', d.inverseIndicator());
    }

    @Test
    void tradingStatusRegShoAndOperationalHalt()
    {
        final long seq = send(
            new ItchBytes(25, 'H', 5, 0, 11).alpha(11, 8, "MSFT").ch(19, 'P').ch(20, ' ').alpha(21, 4, "LUDP").bytes(),
            new ItchBytes(20, 'Y', 6, 0, 12).alpha(11, 8, "MSFT").ch(19, '1').bytes(),
            new ItchBytes(21, 'h', 11, 0, 13).alpha(11, 8, "MSFT").ch(19, 'Q').ch(20, 'H').bytes());

        final TradingStatusDecoder h = new TradingStatusDecoder()
            .wrap(only(5, TradingStatusDecoder.TEMPLATE_ID), H, TradingStatusDecoder.BLOCK_LENGTH, 0);
        assertEquals(seq, h.exchangeSequence());
        assertEquals(11, h.exchangeTimestamp());
        assertEquals(5, h.instrumentId());
        assertEquals(TradingState.PAUSED, h.tradingState());
        assertEquals("LUDP", h.reason());

        final RegShoRestrictionDecoder y = new RegShoRestrictionDecoder()
            .wrap(only(6, RegShoRestrictionDecoder.TEMPLATE_ID), H, RegShoRestrictionDecoder.BLOCK_LENGTH, 0);
        assertEquals(seq + 1, y.exchangeSequence());
        assertEquals(12, y.exchangeTimestamp());
        assertEquals(6, y.instrumentId());
        assertEquals('1', y.regShoAction());

        final OperationalHaltDecoder oh = new OperationalHaltDecoder()
            .wrap(only(11, OperationalHaltDecoder.TEMPLATE_ID), H, OperationalHaltDecoder.BLOCK_LENGTH, 0);
        assertEquals(seq + 2, oh.exchangeSequence());
        assertEquals(13, oh.exchangeTimestamp());
        assertEquals(11, oh.instrumentId());
        assertEquals('Q', oh.marketCode());
        assertEquals('H', oh.haltAction());
    }

    @Test
    void mwcbMessagesAreMarketWide()
    {
        final long seq = send(
            new ItchBytes(35, 'V', 0, 0, 21).u64(11, 3_456_789_012_345_678L).u64(19, 0x8000_0000_0000_0001L)
                .u64(27, 1).bytes(),
            new ItchBytes(12, 'W', 0, 0, 22).ch(11, '2').bytes());
        for (int p = 0; p < PARTITIONS; p++)
        {
            final List<Rings.Rec> records = Rings.drain(rings[p]);
            assertEquals(2, records.size());
            final MwcbDeclineLevelDecoder v = new MwcbDeclineLevelDecoder()
                .wrap(records.get(0).buffer(), H, MwcbDeclineLevelDecoder.BLOCK_LENGTH, 0);
            assertEquals(seq, v.exchangeSequence());
            assertEquals(21, v.exchangeTimestamp());
            assertEquals(0, v.instrumentId());
            assertEquals(3_456_789_012_345_678L, v.level1().mantissa());
            assertEquals(0x8000_0000_0000_0001L, v.level2().mantissa());
            assertEquals(1, v.level3().mantissa());
            assertEquals(-8, v.level1().exponent());

            final MwcbStatusDecoder w = new MwcbStatusDecoder()
                .wrap(records.get(1).buffer(), H, MwcbStatusDecoder.BLOCK_LENGTH, 0);
            assertEquals(seq + 1, w.exchangeSequence());
            assertEquals(22, w.exchangeTimestamp());
            assertEquals(0, w.instrumentId());
            assertEquals('2', w.breachedLevel());
        }
    }

    @Test
    void addOrdersWithUnsignedMaxima()
    {
        final long seq = send(
            new ItchBytes(36, 'A', 9, 0, MAX_TIMESTAMP).u64(11, 0xFFFF_FFFF_FFFF_FFFEL).ch(19, 'B').u32(20, MAX_U32)
                .alpha(24, 8, "AAPL").u32(32, MAX_U32).bytes(),
            new ItchBytes(40, 'F', 14, 0, 5).u64(11, 42).ch(19, 'S').u32(20, 0).alpha(24, 8, "GOOG")
                .u32(32, 2_999_900).alpha(36, 4, "MS").bytes());

        final AddOrderDecoder a = new AddOrderDecoder()
            .wrap(only(9, AddOrderDecoder.TEMPLATE_ID), H, AddOrderDecoder.BLOCK_LENGTH, 0);
        assertEquals(seq, a.exchangeSequence());
        assertEquals(MAX_TIMESTAMP, a.exchangeTimestamp());
        assertEquals(9, a.instrumentId());
        assertEquals(0xFFFF_FFFF_FFFF_FFFEL, a.orderId());
        assertEquals(MAX_U32, a.price().mantissa());
        assertEquals(-4, a.price().exponent());
        assertEquals(MAX_U32, a.shares());
        assertEquals(Side.BUY, a.side());

        final AddOrderAttributedDecoder f = new AddOrderAttributedDecoder()
            .wrap(only(14, AddOrderAttributedDecoder.TEMPLATE_ID), H, AddOrderAttributedDecoder.BLOCK_LENGTH, 0);
        assertEquals(seq + 1, f.exchangeSequence());
        assertEquals(5, f.exchangeTimestamp());
        assertEquals(14, f.instrumentId());
        assertEquals(42, f.orderId());
        assertEquals(2_999_900, f.price().mantissa());
        assertEquals(0, f.shares());
        assertEquals(Side.SELL, f.side());
        assertEquals("MS  ", f.attribution());
    }

    @Test
    void executionsCancelDeleteReplace()
    {
        final long seq = send(
            new ItchBytes(31, 'E', 1, 0, 31).u64(11, 43).u32(19, MAX_U32).u64(23, 77).bytes(),
            new ItchBytes(36, 'C', 2, 0, 32).u64(11, 44).u32(19, 5).u64(23, 78).ch(31, 'N').u32(32, MAX_U32).bytes(),
            new ItchBytes(23, 'X', 3, 0, 33).u64(11, 45).u32(19, 6).bytes(),
            new ItchBytes(19, 'D', 4, 0, 34).u64(11, 46).bytes());

        final OrderExecutedDecoder e = new OrderExecutedDecoder()
            .wrap(only(1, OrderExecutedDecoder.TEMPLATE_ID), H, OrderExecutedDecoder.BLOCK_LENGTH, 0);
        assertEquals(seq, e.exchangeSequence());
        assertEquals(31, e.exchangeTimestamp());
        assertEquals(1, e.instrumentId());
        assertEquals(43, e.orderId());
        assertEquals(77, e.matchNumber());
        assertEquals(MAX_U32, e.executedShares());

        final OrderExecutedWithPriceDecoder c = new OrderExecutedWithPriceDecoder()
            .wrap(only(2, OrderExecutedWithPriceDecoder.TEMPLATE_ID), H, OrderExecutedWithPriceDecoder.BLOCK_LENGTH, 0);
        assertEquals(seq + 1, c.exchangeSequence());
        assertEquals(32, c.exchangeTimestamp());
        assertEquals(2, c.instrumentId());
        assertEquals(44, c.orderId());
        assertEquals(78, c.matchNumber());
        assertEquals(MAX_U32, c.executionPrice().mantissa());
        assertEquals(5, c.executedShares());
        assertEquals('N', c.printable());

        final OrderCancelDecoder x = new OrderCancelDecoder()
            .wrap(only(3, OrderCancelDecoder.TEMPLATE_ID), H, OrderCancelDecoder.BLOCK_LENGTH, 0);
        assertEquals(seq + 2, x.exchangeSequence());
        assertEquals(33, x.exchangeTimestamp());
        assertEquals(3, x.instrumentId());
        assertEquals(45, x.orderId());
        assertEquals(6, x.cancelledShares());

        // locate 4 maps to partition 0
        final OrderDeleteDecoder d = new OrderDeleteDecoder()
            .wrap(only(4, OrderDeleteDecoder.TEMPLATE_ID), H, OrderDeleteDecoder.BLOCK_LENGTH, 0);
        assertEquals(seq + 3, d.exchangeSequence());
        assertEquals(34, d.exchangeTimestamp());
        assertEquals(4, d.instrumentId());
        assertEquals(46, d.orderId());

        send(new ItchBytes(35, 'U', 65535, 0, 35).u64(11, 47).u64(19, 48).u32(27, 7).u32(31, 0x8000_0000L).bytes());
        final OrderReplaceDecoder u = new OrderReplaceDecoder()
            .wrap(only(65535, OrderReplaceDecoder.TEMPLATE_ID), H, OrderReplaceDecoder.BLOCK_LENGTH, 0);
        assertEquals(seq + 4, u.exchangeSequence());
        assertEquals(35, u.exchangeTimestamp());
        assertEquals(65535, u.instrumentId());
        assertEquals(47, u.originalOrderId());
        assertEquals(48, u.newOrderId());
        assertEquals(0x8000_0000L, u.price().mantissa());
        assertEquals(7, u.shares());
    }

    @Test
    void tradesBrokenTradeAndImbalance()
    {
        final long seq = send(
            new ItchBytes(44, 'P', 1, 0, 41).u64(11, 0).ch(19, 'S').u32(20, 300).alpha(24, 8, "SPY")
                .u32(32, MAX_U32).u64(36, 99).bytes(),
            new ItchBytes(40, 'Q', 2, 0, 42).u64(11, 0x8000_0000_0000_0000L).alpha(19, 8, "TSLA").u32(27, 12345)
                .u64(31, 1234).ch(39, 'C').bytes(),
            new ItchBytes(19, 'B', 3, 0, 43).u64(11, 99).bytes(),
            new ItchBytes(50, 'I', 5, 0, 44).u64(11, 0xFFFF_FFFF_FFFF_FFFFL).u64(19, 0x8000_0000_0000_0000L)
                .ch(27, 'O').alpha(28, 8, "NVDA").u32(36, MAX_U32).u32(40, 1).u32(44, 2).ch(48, 'H').ch(49, 'A')
                .bytes());

        final TradeDecoder p = new TradeDecoder().wrap(only(1, TradeDecoder.TEMPLATE_ID), H, TradeDecoder.BLOCK_LENGTH, 0);
        assertEquals(seq, p.exchangeSequence());
        assertEquals(41, p.exchangeTimestamp());
        assertEquals(1, p.instrumentId());
        assertEquals(0, p.orderId());
        assertEquals(99, p.matchNumber());
        assertEquals(MAX_U32, p.price().mantissa());
        assertEquals(300, p.shares());
        assertEquals(Side.SELL, p.side());

        final CrossTradeDecoder q = new CrossTradeDecoder()
            .wrap(only(2, CrossTradeDecoder.TEMPLATE_ID), H, CrossTradeDecoder.BLOCK_LENGTH, 0);
        assertEquals(seq + 1, q.exchangeSequence());
        assertEquals(42, q.exchangeTimestamp());
        assertEquals(2, q.instrumentId());
        assertEquals(0x8000_0000_0000_0000L, q.shares());
        assertEquals(1234, q.matchNumber());
        assertEquals(12345, q.crossPrice().mantissa());
        assertEquals('C', q.crossType());

        final BrokenTradeDecoder b = new BrokenTradeDecoder()
            .wrap(only(3, BrokenTradeDecoder.TEMPLATE_ID), H, BrokenTradeDecoder.BLOCK_LENGTH, 0);
        assertEquals(seq + 2, b.exchangeSequence());
        assertEquals(43, b.exchangeTimestamp());
        assertEquals(3, b.instrumentId());
        assertEquals(99, b.matchNumber());

        final ImbalanceDecoder i = new ImbalanceDecoder()
            .wrap(only(5, ImbalanceDecoder.TEMPLATE_ID), H, ImbalanceDecoder.BLOCK_LENGTH, 0);
        assertEquals(seq + 3, i.exchangeSequence());
        assertEquals(44, i.exchangeTimestamp());
        assertEquals(5, i.instrumentId());
        assertEquals(0xFFFF_FFFF_FFFF_FFFFL, i.pairedShares());
        assertEquals(0x8000_0000_0000_0000L, i.imbalanceShares());
        assertEquals(MAX_U32, i.farPrice().mantissa());
        assertEquals(1, i.nearPrice().mantissa());
        assertEquals(2, i.currentReferencePrice().mantissa());
        assertEquals('O', i.imbalanceDirection());
        assertEquals('H', i.crossType());
        assertEquals('A', i.priceVariationIndicator());
    }

    @Test
    void droppedTypesAreCountedAndAbsent()
    {
        send(
            new ItchBytes(26, 'L', 1, 0, 1).alpha(11, 4, "GSCO").alpha(15, 8, "IBM").ch(23, 'Y').ch(24, 'N')
                .ch(25, 'A').bytes(),
            new ItchBytes(28, 'K', 1, 0, 2).alpha(11, 8, "IBM").u32(19, 1).ch(23, 'A').u32(24, 5).bytes(),
            new ItchBytes(35, 'J', 1, 0, 3).alpha(11, 8, "IBM").bytes(),
            new ItchBytes(20, 'N', 1, 0, 4).alpha(11, 8, "IBM").ch(19, 'B').bytes(),
            new ItchBytes(48, 'O', 1, 0, 5).alpha(11, 8, "IBM").bytes(),
            new ItchBytes(19, 'D', 1, 0, 6).u64(11, 1).bytes());

        for (final char type : new char[]{ 'L', 'K', 'J', 'N', 'O', 'D' })
        {
            assertEquals(1, normalizerCounters.decoded((byte)type).get(), "decoded " + type);
        }
        assertEquals(1, normalizerCounters.messagesPublished().get());
        final OrderDeleteDecoder d = new OrderDeleteDecoder()
            .wrap(only(1, OrderDeleteDecoder.TEMPLATE_ID), H, OrderDeleteDecoder.BLOCK_LENGTH, 0);
        assertEquals(6, d.exchangeSequence());
        assertEquals(7, arbiter.nextExpected());
    }

    @Test
    void invalidEnumFieldsAreRejectedAndCounted()
    {
        send(
            new ItchBytes(36, 'A', 1, 0, 1).u64(11, 1).ch(19, 'X').u32(20, 1).alpha(24, 8, "A").u32(32, 1).bytes(),
            new ItchBytes(40, 'F', 1, 0, 1).u64(11, 1).u8(19, 0).bytes(),
            new ItchBytes(44, 'P', 1, 0, 1).u64(11, 1).ch(19, 'b').bytes(),
            new ItchBytes(12, 'S', 0, 0, 1).ch(11, 'Z').bytes(),
            new ItchBytes(25, 'H', 1, 0, 1).ch(19, 'X').bytes(),
            new ItchBytes(19, 'D', 1, 0, 1).u64(11, 77).bytes());

        assertEquals(5, normalizerCounters.invalidField().get());
        assertEquals(1, normalizerCounters.messagesPublished().get());
        final OrderDeleteDecoder d = new OrderDeleteDecoder()
            .wrap(only(1, OrderDeleteDecoder.TEMPLATE_ID), H, OrderDeleteDecoder.BLOCK_LENGTH, 0);
        assertEquals(77, d.orderId());
        assertEquals(6, d.exchangeSequence());
    }

    /**
     * A framing bug upstream (a length past the end of the datagram's buffer) is counted and
     * skipped, never read: the normalizer reads fields by address once it has checked the extent.
     */
    @Test
    void aMessageOutsideItsBufferIsCountedAndNotRead()
    {
        final byte[] add = new ItchBytes(36, 'A', 2, 0, 1).u64(11, 5).ch(19, 'B').u32(20, 10).u32(32, 20).bytes();
        final UnsafeBuffer buffer = new UnsafeBuffer(java.util.Arrays.copyOf(add, 30));

        normalizer.onMessage(buffer, 0, add.length, 1);
        normalizer.onMessage(buffer, -1, 20, 2);
        normalizer.onMessage(buffer, 10, 21, 3);
        normalizer.flush();

        assertEquals(3, normalizerCounters.invalidLength().get());
        assertEquals(0, normalizerCounters.messagesPublished().get());
        for (final RingBuffer ring : rings)
        {
            assertEquals(0, Rings.drain(ring).size());
        }
    }

    @Test
    void shorterMessageRejectedLongerAccepted()
    {
        final ItchBytes add = new ItchBytes(36, 'A', 2, 0, 1).u64(11, 5).ch(19, 'B').u32(20, 10).u32(32, 20);
        final byte[] truncated = java.util.Arrays.copyOf(add.bytes(), 35);
        send(truncated, add.bytesWithExtra(4), new byte[0]);

        assertEquals(2, normalizerCounters.invalidLength().get());
        final AddOrderDecoder a = new AddOrderDecoder()
            .wrap(only(2, AddOrderDecoder.TEMPLATE_ID), H, AddOrderDecoder.BLOCK_LENGTH, 0);
        assertEquals(2, a.exchangeSequence());
        assertEquals(5, a.orderId());
        assertEquals(10, a.shares());
        assertEquals(20, a.price().mantissa());
        assertEquals(4, arbiter.nextExpected());
    }

    @Test
    void partitionIsLocateModuloPartitions()
    {
        for (int locate = 1; locate <= 8; locate++)
        {
            send(new ItchBytes(19, 'D', locate, 0, locate).u64(11, locate).bytes());
        }
        for (int p = 0; p < PARTITIONS; p++)
        {
            final List<Rings.Rec> records = Rings.drain(rings[p]);
            assertEquals(2, records.size());
            for (final Rings.Rec r : records)
            {
                assertEquals(p, WireFormat.instrumentId(r.buffer(), 0) % PARTITIONS);
            }
        }
    }

    /**
     * Order flow takes a direct path when it names an instrument and the general one when it does
     * not (locate 0, written to every partition): both must write the same bytes, but for the
     * instrument id.
     */
    @Test
    void directPathOfOrderFlowWritesWhatTheGeneralPathWrites()
    {
        final java.util.function.IntFunction<byte[][]> orderFlow = locate -> new byte[][]
        {
            new ItchBytes(36, 'A', locate, 1, 77).u64(11, 1001).ch(19, 'S').u32(20, 300).alpha(24, 8, "MSFT")
                .u32(32, 4_150_000).bytes(),
            new ItchBytes(19, 'D', locate, 2, 78).u64(11, 1002).bytes(),
            new ItchBytes(23, 'X', locate, 3, 79).u64(11, 1003).u32(19, 50).bytes(),
            new ItchBytes(31, 'E', locate, 4, 80).u64(11, 1004).u32(19, 60).u64(23, 9001).bytes(),
            new ItchBytes(35, 'U', locate, 5, 81).u64(11, 1005).u64(19, 1006).u32(27, 70).u32(31, 123_400).bytes(),
            new ItchBytes(36, 'C', locate, 6, 82).u64(11, 1007).u32(19, 80).u64(23, 9002).ch(31, 'Y')
                .u32(32, 555_500).bytes(),
            new ItchBytes(44, 'P', locate, 7, 83).u64(11, 1008).ch(19, 'B').u32(20, 90).alpha(24, 8, "MSFT")
                .u32(32, 777_700).u64(36, 9003).bytes(),
        };
        final int locate = 6; // partition 2
        send(orderFlow.apply(locate));
        send(orderFlow.apply(0));
        final List<Rings.Rec> direct = Rings.drain(rings[locate % PARTITIONS]);
        final List<Rings.Rec> general = Rings.drain(rings[1]);
        assertEquals(7, general.size());
        assertEquals(14, direct.size()); // its own 7, then the 7 market-wide ones
        for (int i = 0; i < 7; i++)
        {
            final UnsafeBuffer expected = general.get(i).buffer();
            final UnsafeBuffer actual = direct.get(i).buffer();
            assertEquals(general.get(i).typeId(), direct.get(i).typeId());
            assertEquals(locate, WireFormat.instrumentId(actual, 0));
            assertEquals(0, WireFormat.instrumentId(expected, 0));
            final byte[] expectedBytes = new byte[expected.capacity()];
            final byte[] actualBytes = new byte[actual.capacity()];
            expected.getBytes(0, expectedBytes);
            actual.getBytes(0, actualBytes);
            // The exchange sequences differ by 7 and the instrument ids by the locate: align both.
            final UnsafeBuffer aligned = new UnsafeBuffer(actualBytes);
            final int sequenceOffset = H + WireFormat.EXCHANGE_SEQUENCE_OFFSET;
            aligned.putLong(sequenceOffset, aligned.getLong(sequenceOffset, WireFormat.BYTE_ORDER) + 7, WireFormat.BYTE_ORDER);
            final UnsafeBuffer expectedAligned = new UnsafeBuffer(expectedBytes);
            expectedAligned.putInt(H + WireFormat.INSTRUMENT_ID_OFFSET, locate, WireFormat.BYTE_ORDER);
            assertEquals(java.util.Arrays.toString(expectedBytes), java.util.Arrays.toString(actualBytes),
                "template " + general.get(i).typeId());
        }
    }

    @Test
    void timestampOverrideReplacesTheExchangeTimestampUntilCleared()
    {
        final RingBuffer[] own = Rings.inMemory(1, 64 * 1024);
        final ItchNormalizer normalizer = new ItchNormalizer(own, new RingWaitDeadline(),
            new NormalizerCounters(new InMemoryCounters(64).countersManager(), "stamp", 1));
        final byte[] delete = new ItchBytes(19, 'D', 5, 0, 1234).u64(11, 99).bytes();
        final UnsafeBuffer buffer = new UnsafeBuffer(delete);

        normalizer.timestampOverride(777_000);
        normalizer.onMessage(buffer, 0, delete.length, 1);
        normalizer.timestampOverride(-1);
        normalizer.onMessage(buffer, 0, delete.length, 2);
        normalizer.flush();

        final List<Rings.Rec> records = Rings.drain(own[0]);
        assertEquals(2, records.size());
        assertEquals(777_000, WireFormat.exchangeTimestamp(records.get(0).buffer(), 0));
        assertEquals(1234, WireFormat.exchangeTimestamp(records.get(1).buffer(), 0));
        assertEquals(1234, normalizer.lastTimestamp(), "lastTimestamp stays the exchange's");
    }
}
