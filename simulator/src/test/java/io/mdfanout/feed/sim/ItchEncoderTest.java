package io.mdfanout.feed.sim;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Every ITCH 5.0 message type against the offsets and lengths of ITCH50.md, read back big-endian at the spec
 * offsets, with the encoder writing at a non-zero offset and surrounded by guard bytes to catch overruns.
 */
class ItchEncoderTest
{
    private static final int BASE = 7;
    private static final byte GUARD = (byte)0xEE;

    private final byte[] bytes = new byte[128];
    private final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
    private final ItchEvent event = new ItchEvent();

    @BeforeEach
    void setUp()
    {
        Arrays.fill(bytes, GUARD);
        event.reset();
        event.stockLocate = 0xBEEF;
        event.trackingNumber = 0x1234;
        event.timestamp = 0xA1B2C3D4E5F6L;
    }

    @Test
    void systemEvent()
    {
        event.type = 'S';
        event.eventCode = 'Q';
        encode(12);
        assertChar(11, 'Q');
    }

    @Test
    void stockDirectory()
    {
        event.type = 'R';
        event.stock("AAPL");
        event.marketCategory = 'Q';
        event.financialStatusIndicator = 'N';
        event.roundLotSize = 0xFFFFFFF0L;
        event.roundLotsOnly = 'Y';
        event.issueClassification = 'C';
        ItchEvent.setAlpha(event.issueSubType, "Z");
        event.authenticity = 'P';
        event.shortSaleThresholdIndicator = 'N';
        event.ipoFlag = 'Y';
        event.luldReferencePriceTier = '1';
        event.etpFlag = 'N';
        event.etpLeverageFactor = 3;
        event.inverseIndicator = 'Y';
        encode(39);
        assertAlpha(11, "AAPL    ");
        assertChar(19, 'Q');
        assertChar(20, 'N');
        assertEquals(0xFFFFFFF0L, u32(21));
        assertChar(25, 'Y');
        assertChar(26, 'C');
        assertAlpha(27, "Z ");
        assertChar(29, 'P');
        assertChar(30, 'N');
        assertChar(31, 'Y');
        assertChar(32, '1');
        assertChar(33, 'N');
        assertEquals(3, u32(34));
        assertChar(38, 'Y');
    }

    @Test
    void stockTradingAction()
    {
        event.type = 'H';
        event.stock("MSFT");
        event.tradingState = 'H';
        event.reserved = ' ';
        ItchEvent.setAlpha(event.reason, "T1");
        encode(25);
        assertAlpha(11, "MSFT    ");
        assertChar(19, 'H');
        assertChar(20, ' ');
        assertAlpha(21, "T1  ");
    }

    @Test
    void regShoRestriction()
    {
        event.type = 'Y';
        event.stock("NVDA");
        event.regShoAction = '1';
        encode(20);
        assertAlpha(11, "NVDA    ");
        assertChar(19, '1');
    }

    @Test
    void marketParticipantPosition()
    {
        event.type = 'L';
        ItchEvent.setAlpha(event.mpid, "GSCO");
        event.stock("AMZN");
        event.primaryMarketMaker = 'Y';
        event.marketMakerMode = 'N';
        event.marketParticipantState = 'A';
        encode(26);
        assertAlpha(11, "GSCO");
        assertAlpha(15, "AMZN    ");
        assertChar(23, 'Y');
        assertChar(24, 'N');
        assertChar(25, 'A');
    }

    @Test
    void mwcbDeclineLevel()
    {
        event.type = 'V';
        event.level1Price = 0x0102030405060708L;
        event.level2Price = 435_000_000_000L;
        event.level3Price = 400_000_000_000L;
        encode(35);
        assertEquals(0x0102030405060708L, u64(11));
        assertEquals(435_000_000_000L, u64(19));
        assertEquals(400_000_000_000L, u64(27));
    }

    @Test
    void mwcbStatus()
    {
        event.type = 'W';
        event.breachedLevel = '2';
        encode(12);
        assertChar(11, '2');
    }

    @Test
    void ipoQuotingPeriodUpdate()
    {
        event.type = 'K';
        event.stock("ARM");
        event.ipoQuotationReleaseTime = 36_000;
        event.ipoQuotationReleaseQualifier = 'A';
        event.ipoPrice = 510_000;
        encode(28);
        assertAlpha(11, "ARM     ");
        assertEquals(36_000, u32(19));
        assertChar(23, 'A');
        assertEquals(510_000, u32(24));
    }

    @Test
    void luldAuctionCollar()
    {
        event.type = 'J';
        event.stock("TSLA");
        event.auctionCollarReferencePrice = 2_000_000;
        event.upperAuctionCollarPrice = 2_100_000;
        event.lowerAuctionCollarPrice = 1_900_000;
        event.auctionCollarExtension = 2;
        encode(35);
        assertAlpha(11, "TSLA    ");
        assertEquals(2_000_000, u32(19));
        assertEquals(2_100_000, u32(23));
        assertEquals(1_900_000, u32(27));
        assertEquals(2, u32(31));
    }

    @Test
    void operationalHalt()
    {
        event.type = 'h';
        event.stock("META");
        event.marketCode = 'Q';
        event.operationalHaltAction = 'H';
        encode(21);
        assertAlpha(11, "META    ");
        assertChar(19, 'Q');
        assertChar(20, 'H');
    }

    @Test
    void addOrder()
    {
        event.type = 'A';
        event.orderReferenceNumber = 0x0A0B0C0D0E0F1011L;
        event.side = 'B';
        event.shares = 0xFFFFFFFFL;
        event.stock("GOOGL");
        event.price = 1_234_500;
        encode(36);
        assertEquals(0x0A0B0C0D0E0F1011L, u64(11));
        assertChar(19, 'B');
        assertEquals(0xFFFFFFFFL, u32(20));
        assertAlpha(24, "GOOGL   ");
        assertEquals(1_234_500, u32(32));
    }

    @Test
    void addOrderWithMpid()
    {
        event.type = 'F';
        event.orderReferenceNumber = 99;
        event.side = 'S';
        event.shares = 300;
        event.stock("AMD");
        event.price = 1_500_100;
        ItchEvent.setAlpha(event.attribution, "NITE");
        encode(40);
        assertEquals(99, u64(11));
        assertChar(19, 'S');
        assertEquals(300, u32(20));
        assertAlpha(24, "AMD     ");
        assertEquals(1_500_100, u32(32));
        assertAlpha(36, "NITE");
    }

    @Test
    void orderExecuted()
    {
        event.type = 'E';
        event.orderReferenceNumber = 77;
        event.shares = 50;
        event.matchNumber = 0x1122334455667788L;
        encode(31);
        assertEquals(77, u64(11));
        assertEquals(50, u32(19));
        assertEquals(0x1122334455667788L, u64(23));
    }

    @Test
    void orderExecutedWithPrice()
    {
        event.type = 'C';
        event.orderReferenceNumber = 78;
        event.shares = 60;
        event.matchNumber = 1001;
        event.printable = 'N';
        event.price = 999_900;
        encode(36);
        assertEquals(78, u64(11));
        assertEquals(60, u32(19));
        assertEquals(1001, u64(23));
        assertChar(31, 'N');
        assertEquals(999_900, u32(32));
    }

    @Test
    void orderCancel()
    {
        event.type = 'X';
        event.orderReferenceNumber = 79;
        event.shares = 25;
        encode(23);
        assertEquals(79, u64(11));
        assertEquals(25, u32(19));
    }

    @Test
    void orderDelete()
    {
        event.type = 'D';
        event.orderReferenceNumber = 80;
        encode(19);
        assertEquals(80, u64(11));
    }

    @Test
    void orderReplace()
    {
        event.type = 'U';
        event.orderReferenceNumber = 81;
        event.newOrderReferenceNumber = 82;
        event.shares = 400;
        event.price = 123_400;
        encode(35);
        assertEquals(81, u64(11));
        assertEquals(82, u64(19));
        assertEquals(400, u32(27));
        assertEquals(123_400, u32(31));
    }

    @Test
    void trade()
    {
        event.type = 'P';
        event.orderReferenceNumber = 0;
        event.side = 'B';
        event.shares = 100;
        event.stock("SPY");
        event.price = 5_000_100;
        event.matchNumber = 4242;
        encode(44);
        assertEquals(0, u64(11));
        assertChar(19, 'B');
        assertEquals(100, u32(20));
        assertAlpha(24, "SPY     ");
        assertEquals(5_000_100, u32(32));
        assertEquals(4242, u64(36));
    }

    @Test
    void crossTrade()
    {
        event.type = 'Q';
        event.longShares = 0x0000000100000002L;
        event.stock("QQQ");
        event.price = 4_000_000;
        event.matchNumber = 4343;
        event.crossType = 'C';
        encode(40);
        assertEquals(0x0000000100000002L, u64(11));
        assertAlpha(19, "QQQ     ");
        assertEquals(4_000_000, u32(27));
        assertEquals(4343, u64(31));
        assertChar(39, 'C');
    }

    @Test
    void brokenTrade()
    {
        event.type = 'B';
        event.matchNumber = 4444;
        encode(19);
        assertEquals(4444, u64(11));
    }

    @Test
    void noii()
    {
        event.type = 'I';
        event.pairedShares = 123_456_789_012L;
        event.imbalanceShares = 987_654L;
        event.imbalanceDirection = 'S';
        event.stock("IWM");
        event.farPrice = 2_000_100;
        event.nearPrice = 2_000_200;
        event.currentReferencePrice = 2_000_300;
        event.crossType = 'O';
        event.priceVariationIndicator = 'A';
        encode(50);
        assertEquals(123_456_789_012L, u64(11));
        assertEquals(987_654L, u64(19));
        assertChar(27, 'S');
        assertAlpha(28, "IWM     ");
        assertEquals(2_000_100, u32(36));
        assertEquals(2_000_200, u32(40));
        assertEquals(2_000_300, u32(44));
        assertChar(48, 'O');
        assertChar(49, 'A');
    }

    @Test
    void retailPriceImprovementIndicator()
    {
        event.type = 'N';
        event.stock("INTC");
        event.interestFlag = 'A';
        encode(20);
        assertAlpha(11, "INTC    ");
        assertChar(19, 'A');
    }

    @Test
    void directListingWithCapitalRaise()
    {
        event.type = 'O';
        event.stock("NEWCO");
        event.openEligibilityStatus = 'Y';
        event.minimumAllowablePrice = 80_000;
        event.maximumAllowablePrice = 120_000;
        event.nearExecutionPrice = 100_000;
        event.nearExecutionTime = 0x0102030405060708L;
        event.lowerPriceRangeCollar = 90_000;
        event.upperPriceRangeCollar = 110_000;
        encode(48);
        assertAlpha(11, "NEWCO   ");
        assertChar(19, 'Y');
        assertEquals(80_000, u32(20));
        assertEquals(120_000, u32(24));
        assertEquals(100_000, u32(28));
        assertEquals(0x0102030405060708L, u64(32));
        assertEquals(90_000, u32(40));
        assertEquals(110_000, u32(44));
    }

    @Test
    void messageLengthsMatchTheSpecForAll23Types()
    {
        final String types = "SRHYLVWKJhAFECXDUPQBINO";
        final int[] lengths = { 12, 39, 25, 20, 26, 35, 12, 28, 35, 21, 36, 40, 31, 36, 23, 19, 35, 44, 40, 19, 50, 20, 48 };
        assertEquals(23, types.length());
        for (int i = 0; i < types.length(); i++)
        {
            assertEquals(lengths[i], ItchEncoder.messageLength(types.charAt(i)), "type " + types.charAt(i));
        }
        assertEquals(-1, ItchEncoder.messageLength('Z'));
    }

    @Test
    void rejectsUnknownType()
    {
        event.type = 'z';
        assertThrows(IllegalArgumentException.class, () -> ItchEncoder.encode(event, buffer, BASE));
    }

    private void encode(final int expectedLength)
    {
        assertEquals(expectedLength, ItchEncoder.encode(event, buffer, BASE));
        assertEquals(expectedLength, ItchEncoder.messageLength(event.type));
        assertEquals(GUARD, bytes[BASE - 1], "wrote before the message");
        assertEquals(GUARD, bytes[BASE + expectedLength], "wrote past the message");
        assertChar(0, event.type);
        assertEquals(0xBEEF, u16(1));
        assertEquals(0x1234, u16(3));
        final long timestamp = ((long)u16(5) << 32) | u32(7);
        assertEquals(0xA1B2C3D4E5F6L, timestamp);
        for (int i = 0; i < expectedLength; i++)
        {
            if (bytes[BASE + i] == GUARD)
            {
                throw new AssertionError("byte " + i + " of a " + expectedLength + "-byte message was not written");
            }
        }
    }

    private ByteBuffer view()
    {
        return ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
    }

    private int u16(final int offset)
    {
        return view().getShort(BASE + offset) & 0xFFFF;
    }

    private long u32(final int offset)
    {
        return view().getInt(BASE + offset) & 0xFFFFFFFFL;
    }

    private long u64(final int offset)
    {
        return view().getLong(BASE + offset);
    }

    private void assertChar(final int offset, final char expected)
    {
        assertEquals(expected, (char)(bytes[BASE + offset] & 0xFF), "byte at offset " + offset);
    }

    private void assertAlpha(final int offset, final String expected)
    {
        assertEquals(expected, new String(bytes, BASE + offset, expected.length(), StandardCharsets.US_ASCII),
            "alpha at offset " + offset);
    }
}
