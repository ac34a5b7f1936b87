package io.mdfanout.feed.itch;

import io.mdfanout.feed.support.ItchBytes;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every ITCH 5.0 type decoded from bytes written at the ITCH50.md offsets, with boundary values.
 * Messages are placed at a non-zero offset in the buffer to catch offset arithmetic errors.
 */
class ItchDecoderTest
{
    private static final long MAX_U32 = 4294967295L;
    private static final long MAX_TIMESTAMP = 281474976710655L;
    private static final int MAX_U16 = 65535;
    private static final int AT = 7;

    private static UnsafeBuffer place(final ItchBytes message)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[AT + message.length() + 5]);
        buffer.putBytes(AT, message.bytes());
        return buffer;
    }

    private static <T extends ItchMessage> T wrap(final T flyweight, final ItchBytes bytes)
    {
        flyweight.wrap(place(bytes), AT, bytes.length());
        return flyweight;
    }

    private static String alpha(final int length, final java.util.function.IntFunction<Byte> at)
    {
        final byte[] b = new byte[length];
        for (int i = 0; i < length; i++)
        {
            b[i] = at.apply(i);
        }
        return new String(b, StandardCharsets.US_ASCII);
    }

    @Test
    void specLengthsMatchTheSpecification()
    {
        final String types = "SRHYLVWKJhAFECXDUPQBINO";
        final int[] lengths = { 12, 39, 25, 20, 26, 35, 12, 28, 35, 21, 36, 40, 31, 36, 23, 19, 35, 44, 40, 19, 50, 20, 48 };
        for (int i = 0; i < types.length(); i++)
        {
            assertEquals(lengths[i], ItchMessageType.specLength((byte)types.charAt(i)), "type " + types.charAt(i));
        }
        assertEquals(-1, ItchMessageType.specLength((byte)'Z'));
        assertEquals(-1, ItchMessageType.specLength((byte)0xFF));
        assertEquals(23, ItchMessageType.ALL_TYPES.length);
    }

    @Test
    void commonHeaderWithMaxValues()
    {
        final SystemEventMessage m = wrap(new SystemEventMessage(),
            new ItchBytes(12, 'S', MAX_U16, MAX_U16, MAX_TIMESTAMP).ch(11, 'O'));
        assertEquals('S', m.messageType());
        assertEquals(MAX_U16, m.stockLocate());
        assertEquals(MAX_U16, m.trackingNumber());
        assertEquals(MAX_TIMESTAMP, m.timestamp());
        assertEquals('O', m.eventCode());

        final SystemEventMessage zero = wrap(new SystemEventMessage(), new ItchBytes(12, 'S', 0, 0, 0).ch(11, 'C'));
        assertEquals(0, zero.stockLocate());
        assertEquals(0, zero.timestamp());
        assertEquals('C', zero.eventCode());
    }

    @Test
    void stockDirectory()
    {
        final StockDirectoryMessage m = wrap(new StockDirectoryMessage(), new ItchBytes(39, 'R', 7, 2, 34_200_000_000_123L)
            .alpha(11, 8, "AAPL").ch(19, 'Q').ch(20, 'N').u32(21, MAX_U32).ch(25, 'N').ch(26, 'C')
            .alpha(27, 2, "Z").ch(29, 'P').ch(30, 'N').ch(31, ' ').ch(32, '1').ch(33, 'Y').u32(34, 0).ch(38, 'N'));
        assertEquals(7, m.stockLocate());
        assertEquals(34_200_000_000_123L, m.timestamp());
        assertEquals("AAPL    ", alpha(8, m::stock));
        assertEquals('Q', m.marketCategory());
        assertEquals('N', m.financialStatusIndicator());
        assertEquals(MAX_U32, m.roundLotSize());
        assertEquals('N', m.roundLotsOnly());
        assertEquals('C', m.issueClassification());
        assertEquals("Z ", alpha(2, m::issueSubType));
        assertEquals('P', m.authenticity());
        assertEquals('N', m.shortSaleThresholdIndicator());
        assertEquals(' ', m.ipoFlag());
        assertEquals('1', m.luldReferencePriceTier());
        assertEquals('Y', m.etpFlag());
        assertEquals(0, m.etpLeverageFactor());
        assertEquals('N', m.inverseIndicator());

        final UnsafeBuffer copy = new UnsafeBuffer(new byte[10]);
        m.getStock(copy, 1);
        assertEquals("AAPL    ", copy.getStringWithoutLengthAscii(1, 8));
    }

    @Test
    void stockTradingAction()
    {
        final StockTradingActionMessage m = wrap(new StockTradingActionMessage(), new ItchBytes(25, 'H', 1, 0, 1)
            .alpha(11, 8, "MSFT").ch(19, 'H').ch(20, ' ').alpha(21, 4, "LUDP"));
        assertEquals("MSFT    ", alpha(8, m::stock));
        assertEquals('H', m.tradingState());
        assertEquals(' ', m.reserved());
        assertEquals("LUDP", alpha(4, m::reason));
    }

    @Test
    void regShoRestriction()
    {
        final RegShoRestrictionMessage m = wrap(new RegShoRestrictionMessage(), new ItchBytes(20, 'Y', 2, 0, 5)
            .alpha(11, 8, "ABCDEFGH").ch(19, '2'));
        assertEquals("ABCDEFGH", alpha(8, m::stock));
        assertEquals('2', m.regShoAction());
    }

    @Test
    void marketParticipantPosition()
    {
        final MarketParticipantPositionMessage m = wrap(new MarketParticipantPositionMessage(),
            new ItchBytes(26, 'L', 3, 0, 5).alpha(11, 4, "GSCO").alpha(15, 8, "IBM").ch(23, 'Y').ch(24, 'N').ch(25, 'A'));
        assertEquals("GSCO", alpha(4, m::mpid));
        assertEquals("IBM     ", alpha(8, m::stock));
        assertEquals('Y', m.primaryMarketMaker());
        assertEquals('N', m.marketMakerMode());
        assertEquals('A', m.marketParticipantState());
    }

    @Test
    void mwcbDeclineLevelWithLargePrice8()
    {
        final MwcbDeclineLevelMessage m = wrap(new MwcbDeclineLevelMessage(), new ItchBytes(35, 'V', 0, 0, 9)
            .u64(11, 3_456_789_012_345_678L).u64(19, 0xFFFF_FFFF_FFFF_FFFFL).u64(27, 0x8000_0000_0000_0001L));
        assertEquals(3_456_789_012_345_678L, m.level1());
        assertEquals(0xFFFF_FFFF_FFFF_FFFFL, m.level2());
        assertEquals(0x8000_0000_0000_0001L, m.level3());
    }

    @Test
    void mwcbStatus()
    {
        final MwcbStatusMessage m = wrap(new MwcbStatusMessage(), new ItchBytes(12, 'W', 0, 0, 9).ch(11, '3'));
        assertEquals('3', m.breachedLevel());
    }

    @Test
    void ipoQuotingPeriodUpdate()
    {
        final IpoQuotingPeriodUpdateMessage m = wrap(new IpoQuotingPeriodUpdateMessage(),
            new ItchBytes(28, 'K', 4, 0, 9).alpha(11, 8, "NEWCO").u32(19, 86399).ch(23, 'A').u32(24, MAX_U32));
        assertEquals("NEWCO   ", alpha(8, m::stock));
        assertEquals(86399, m.ipoQuotationReleaseTime());
        assertEquals('A', m.ipoQuotationReleaseQualifier());
        assertEquals(MAX_U32, m.ipoPrice());
    }

    @Test
    void luldAuctionCollar()
    {
        final LuldAuctionCollarMessage m = wrap(new LuldAuctionCollarMessage(), new ItchBytes(35, 'J', 4, 0, 9)
            .alpha(11, 8, "X").u32(19, 1_000_000).u32(23, MAX_U32).u32(27, 0).u32(31, 3));
        assertEquals("X       ", alpha(8, m::stock));
        assertEquals(1_000_000, m.auctionCollarReferencePrice());
        assertEquals(MAX_U32, m.upperAuctionCollarPrice());
        assertEquals(0, m.lowerAuctionCollarPrice());
        assertEquals(3, m.auctionCollarExtension());
    }

    @Test
    void operationalHalt()
    {
        final OperationalHaltMessage m = wrap(new OperationalHaltMessage(),
            new ItchBytes(21, 'h', 4, 0, 9).alpha(11, 8, "QQQ").ch(19, 'B').ch(20, 'T'));
        assertEquals("QQQ     ", alpha(8, m::stock));
        assertEquals('B', m.marketCode());
        assertEquals('T', m.operationalHaltAction());
    }

    @Test
    void addOrderWithUnsignedMaxima()
    {
        final AddOrderMessage m = wrap(new AddOrderMessage(), new ItchBytes(36, 'A', 10, 0, MAX_TIMESTAMP)
            .u64(11, 0xFFFF_FFFF_FFFF_FFFEL).ch(19, 'B').u32(20, MAX_U32).alpha(24, 8, "AAPL").u32(32, MAX_U32));
        assertEquals(0xFFFF_FFFF_FFFF_FFFEL, m.orderReferenceNumber());
        assertEquals('B', m.buySellIndicator());
        assertEquals(MAX_U32, m.shares());
        assertEquals("AAPL    ", alpha(8, m::stock));
        assertEquals(MAX_U32, m.price());
        assertEquals(MAX_TIMESTAMP, m.timestamp());

        final AddOrderMessage zero = wrap(new AddOrderMessage(), new ItchBytes(36, 'A', 10, 0, 0)
            .u64(11, 0).ch(19, 'S').u32(20, 0).alpha(24, 8, "").u32(32, 0));
        assertEquals(0, zero.shares());
        assertEquals(0, zero.price());
        assertEquals("        ", alpha(8, zero::stock));
    }

    @Test
    void addOrderMpid()
    {
        final AddOrderMpidMessage m = wrap(new AddOrderMpidMessage(), new ItchBytes(40, 'F', 11, 0, 5)
            .u64(11, 42).ch(19, 'S').u32(20, 100).alpha(24, 8, "GOOG").u32(32, 2_999_900).alpha(36, 4, "MS"));
        assertEquals(42, m.orderReferenceNumber());
        assertEquals('S', m.buySellIndicator());
        assertEquals(100, m.shares());
        assertEquals("GOOG    ", alpha(8, m::stock));
        assertEquals(2_999_900, m.price());
        assertEquals("MS  ", alpha(4, m::attribution));
    }

    @Test
    void orderExecuted()
    {
        final OrderExecutedMessage m = wrap(new OrderExecutedMessage(), new ItchBytes(31, 'E', 12, 0, 5)
            .u64(11, 43).u32(19, MAX_U32).u64(23, Long.MAX_VALUE));
        assertEquals(43, m.orderReferenceNumber());
        assertEquals(MAX_U32, m.executedShares());
        assertEquals(Long.MAX_VALUE, m.matchNumber());
    }

    @Test
    void orderExecutedWithPrice()
    {
        final OrderExecutedWithPriceMessage m = wrap(new OrderExecutedWithPriceMessage(),
            new ItchBytes(36, 'C', 12, 0, 5).u64(11, 44).u32(19, 1).u64(23, 77).ch(31, 'N').u32(32, MAX_U32));
        assertEquals(44, m.orderReferenceNumber());
        assertEquals(1, m.executedShares());
        assertEquals(77, m.matchNumber());
        assertEquals('N', m.printable());
        assertEquals(MAX_U32, m.executionPrice());
    }

    @Test
    void orderCancelDeleteReplace()
    {
        final OrderCancelMessage x = wrap(new OrderCancelMessage(), new ItchBytes(23, 'X', 1, 0, 5)
            .u64(11, 45).u32(19, 0));
        assertEquals(45, x.orderReferenceNumber());
        assertEquals(0, x.cancelledShares());

        final OrderDeleteMessage d = wrap(new OrderDeleteMessage(), new ItchBytes(19, 'D', 1, 0, 5).u64(11, 46));
        assertEquals(46, d.orderReferenceNumber());

        final OrderReplaceMessage u = wrap(new OrderReplaceMessage(), new ItchBytes(35, 'U', 1, 0, 5)
            .u64(11, 47).u64(19, 48).u32(27, MAX_U32).u32(31, 0x8000_0000L));
        assertEquals(47, u.originalOrderReferenceNumber());
        assertEquals(48, u.newOrderReferenceNumber());
        assertEquals(MAX_U32, u.shares());
        assertEquals(0x8000_0000L, u.price());
    }

    @Test
    void trade()
    {
        final TradeMessage m = wrap(new TradeMessage(), new ItchBytes(44, 'P', 13, 0, 5)
            .u64(11, 0).ch(19, 'B').u32(20, 300).alpha(24, 8, "SPY").u32(32, MAX_U32).u64(36, 99));
        assertEquals(0, m.orderReferenceNumber());
        assertEquals('B', m.buySellIndicator());
        assertEquals(300, m.shares());
        assertEquals("SPY     ", alpha(8, m::stock));
        assertEquals(MAX_U32, m.price());
        assertEquals(99, m.matchNumber());
    }

    @Test
    void crossTradeWithTopBitShares()
    {
        final CrossTradeMessage m = wrap(new CrossTradeMessage(), new ItchBytes(40, 'Q', 14, 0, 5)
            .u64(11, 0x8000_0000_0000_0000L).alpha(19, 8, "TSLA").u32(27, MAX_U32).u64(31, 1234).ch(39, 'O'));
        assertEquals(0x8000_0000_0000_0000L, m.shares());
        assertEquals("TSLA    ", alpha(8, m::stock));
        assertEquals(MAX_U32, m.crossPrice());
        assertEquals(1234, m.matchNumber());
        assertEquals('O', m.crossType());
    }

    @Test
    void brokenTrade()
    {
        final BrokenTradeMessage m = wrap(new BrokenTradeMessage(), new ItchBytes(19, 'B', 14, 0, 5).u64(11, 555));
        assertEquals(555, m.matchNumber());
    }

    @Test
    void noiiWithTopBitShares()
    {
        final NoiiMessage m = wrap(new NoiiMessage(), new ItchBytes(50, 'I', 15, 0, 5)
            .u64(11, 0xFFFF_FFFF_FFFF_FFFFL).u64(19, 0x8000_0000_0000_0000L).ch(27, 'S').alpha(28, 8, "NVDA")
            .u32(36, MAX_U32).u32(40, 1).u32(44, 0).ch(48, 'C').ch(49, 'L'));
        assertEquals(0xFFFF_FFFF_FFFF_FFFFL, m.pairedShares());
        assertEquals(0x8000_0000_0000_0000L, m.imbalanceShares());
        assertEquals('S', m.imbalanceDirection());
        assertEquals("NVDA    ", alpha(8, m::stock));
        assertEquals(MAX_U32, m.farPrice());
        assertEquals(1, m.nearPrice());
        assertEquals(0, m.currentReferencePrice());
        assertEquals('C', m.crossType());
        assertEquals('L', m.priceVariationIndicator());
    }

    @Test
    void retailPriceImprovement()
    {
        final RetailPriceImprovementMessage m = wrap(new RetailPriceImprovementMessage(),
            new ItchBytes(20, 'N', 16, 0, 5).alpha(11, 8, "AMD").ch(19, 'A'));
        assertEquals("AMD     ", alpha(8, m::stock));
        assertEquals('A', m.interestFlag());
    }

    @Test
    void directListingPriceDiscovery()
    {
        final DirectListingPriceDiscoveryMessage m = wrap(new DirectListingPriceDiscoveryMessage(),
            new ItchBytes(48, 'O', 17, 0, 5).alpha(11, 8, "DL").ch(19, 'Y').u32(20, 1).u32(24, MAX_U32)
                .u32(28, 3).u64(32, 0x8000_0000_0000_0000L).u32(40, 5).u32(44, 6));
        assertEquals("DL      ", alpha(8, m::stock));
        assertEquals('Y', m.openEligibilityStatus());
        assertEquals(1, m.minimumAllowablePrice());
        assertEquals(MAX_U32, m.maximumAllowablePrice());
        assertEquals(3, m.nearExecutionPrice());
        assertEquals(0x8000_0000_0000_0000L, m.nearExecutionTime());
        assertEquals(5, m.lowerPriceRangeCollar());
        assertEquals(6, m.upperPriceRangeCollar());
    }
}
