package io.mdfanout.sdk;

import io.aeron.ExclusivePublication;
import io.mdfanout.sbe.GapReason;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.TradingState;
import io.mdfanout.wire.Partitioning;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every normalized message type, published in real packets (several messages each) over UDP
 * multicast, arrives at its typed callback with every field intact and the right context.
 */
class FeedSubscriberTypedCallbacksTest
{
    private static final int PORT = 42101;
    private static final int STREAM_ID_BASE = 1100;

    @RegisterExtension
    static final TestMedia media = TestMedia.perClass();

    @Test
    void shouldDeliverEveryMessageTypeWithEveryField()
    {
        final String channel = TestMedia.channel(PORT);
        final RecordingListener listener = new RecordingListener();
        try (FeedSubscriber subscriber = new FeedSubscriber(media.context(channel, STREAM_ID_BASE, 0, 1).listener(listener));
            ExclusivePublication partition0 = media.publication(channel, Partitioning.streamId(STREAM_ID_BASE, 0));
            ExclusivePublication partition1 = media.publication(channel, Partitioning.streamId(STREAM_ID_BASE, 1)))
        {
            TestMedia.awaitConnected(subscriber, partition0, partition1);

            final PacketWriter writer = new PacketWriter();
            final List<String> expected = new ArrayList<>();
            final List<byte[]> expectedRaw = new ArrayList<>();

            final long sendingTime0 = 1_700_000_000_123_456_789L;
            writer.begin(0, 1, sendingTime0);
            final String[] first = writeFirstHalf(writer);
            final int length0 = writer.finish();
            addExpected(expected, expectedRaw, writer, first, 0, 1, sendingTime0);
            TestMedia.offer(partition0, writer.buffer(), length0);
            // The two partitions are separate streams with no order between them: let partition 0's
            // messages arrive before partition 1's are sent, so that the expected order is the only one.
            TestMedia.pollUntil(subscriber, () -> listener.typed.size() >= first.length);

            final long sendingTime1 = 1_700_000_000_987_654_321L;
            writer.begin(1, 1, sendingTime1);
            final String[] second = writeSecondHalf(writer);
            final int length1 = writer.finish();
            addExpected(expected, expectedRaw, writer, second, 1, 1, sendingTime1);
            TestMedia.offer(partition1, writer.buffer(), length1);

            TestMedia.pollUntil(subscriber, () -> listener.typed.size() >= 19);
            TestMedia.pollFor(subscriber, 50);

            assertEquals(19, first.length + second.length);
            assertEquals(expected, listener.typed);
            assertEquals(expectedRaw.size(), listener.raw.size());
            for (int i = 0; i < expectedRaw.size(); i++)
            {
                assertArrayEquals(expectedRaw.get(i), listener.raw.get(i), "raw message " + i);
            }
            assertEquals(List.of("joined 0 1", "joined 1 1"), listener.events);
            assertEquals(2, subscriber.counters().packets());
            assertEquals(19, subscriber.counters().messages());
            assertEquals(0, subscriber.counters().malformed());
            assertEquals(first.length + 1, subscriber.expectedSequence(0));
            assertEquals(second.length + 1, subscriber.expectedSequence(1));

            // Spot checks that the comparison above compares real field values.
            assertTrue(listener.typed.get(8).contains("orderId=90001"), listener.typed.get(8));
            assertTrue(listener.typed.get(2).contains("symbol=AAPL"), listener.typed.get(2));
        }
    }

    private static void addExpected(
        final List<String> expected,
        final List<byte[]> expectedRaw,
        final PacketWriter writer,
        final String[] lines,
        final int partition,
        final long firstSequence,
        final long sendingTime)
    {
        int offset = PacketWriter.HEADER_LENGTH + io.mdfanout.sbe.PacketHeaderEncoder.BLOCK_LENGTH;
        for (int i = 0; i < lines.length; i++)
        {
            final int length = PacketWriter.HEADER_LENGTH + writer.buffer().getShort(offset);
            final byte[] bytes = new byte[length];
            writer.buffer().getBytes(offset, bytes);
            expectedRaw.add(bytes);
            offset += length;
            final String[] callbackAndBody = lines[i].split("\\|", 2);
            expected.add(callbackAndBody[0] + " p=" + partition + " seq=" + (firstSequence + i) +
                " sent=" + sendingTime + " " + callbackAndBody[1]);
        }
    }

    private static String[] writeFirstHalf(final PacketWriter w)
    {
        return new String[]
        {
            "onGapNotice|" + w.gapNotice().exchangeSequence(11).exchangeTimestamp(12).instrumentId(13)
                .lastMissingSequence(14).reason(GapReason.STALE),
            "onSystemEvent|" + w.systemEvent().exchangeSequence(21).exchangeTimestamp(22).instrumentId(0)
                .eventCode(SystemEventCode.START_OF_MARKET_HOURS),
            "onInstrumentDirectory|" + w.instrumentDirectory().exchangeSequence(31).exchangeTimestamp(32)
                .instrumentId(33).symbol("AAPL    ").roundLotSize(100).etpLeverageFactor(2).marketCategory((byte)'Q')
                .financialStatusIndicator((byte)'N').roundLotsOnly((byte)'Y').issueClassification((byte)'C')
                .issueSubType("Z1").authenticity((byte)'P').shortSaleThresholdIndicator((byte)'N')
                .ipoFlag((byte)' ').luldReferencePriceTier((byte)'1').etpFlag((byte)'N').inverseIndicator((byte)'N'),
            "onTradingStatus|" + w.tradingStatus().exchangeSequence(41).exchangeTimestamp(42).instrumentId(43)
                .tradingState(TradingState.HALTED).reason("T1  "),
            "onRegShoRestriction|" + w.regShoRestriction().exchangeSequence(51).exchangeTimestamp(52)
                .instrumentId(53).regShoAction((byte)'1'),
            "onMwcbDeclineLevel|" + mwcb(w),
            "onMwcbStatus|" + w.mwcbStatus().exchangeSequence(71).exchangeTimestamp(72).instrumentId(0)
                .breachedLevel((byte)'2'),
            "onOperationalHalt|" + w.operationalHalt().exchangeSequence(81).exchangeTimestamp(82).instrumentId(83)
                .marketCode((byte)'Q').haltAction((byte)'H'),
            "onAddOrder|" + addOrder(w),
            "onAddOrderAttributed|" + addOrderAttributed(w),
        };
    }

    private static String[] writeSecondHalf(final PacketWriter w)
    {
        return new String[]
        {
            "onOrderExecuted|" + w.orderExecuted().exchangeSequence(111).exchangeTimestamp(112).instrumentId(113)
                .orderId(114).matchNumber(115).executedShares(116),
            "onOrderExecutedWithPrice|" + executedWithPrice(w),
            "onOrderCancel|" + w.orderCancel().exchangeSequence(131).exchangeTimestamp(132).instrumentId(133)
                .orderId(134).cancelledShares(135),
            "onOrderDelete|" + w.orderDelete().exchangeSequence(141).exchangeTimestamp(142).instrumentId(143)
                .orderId(144),
            "onOrderReplace|" + replace(w),
            "onTrade|" + trade(w),
            "onCrossTrade|" + crossTrade(w),
            "onBrokenTrade|" + w.brokenTrade().exchangeSequence(181).exchangeTimestamp(182).instrumentId(183)
                .matchNumber(184),
            "onImbalance|" + imbalance(w),
        };
    }

    private static String mwcb(final PacketWriter w)
    {
        final io.mdfanout.sbe.MwcbDeclineLevelEncoder e = w.mwcbDeclineLevel()
            .exchangeSequence(61).exchangeTimestamp(62).instrumentId(0);
        e.level1().mantissa(500_000_000_000L);
        e.level2().mantissa(460_000_000_000L);
        e.level3().mantissa(400_000_000_000L);
        return e.toString();
    }

    private static String addOrder(final PacketWriter w)
    {
        final io.mdfanout.sbe.AddOrderEncoder e = w.addOrder()
            .exchangeSequence(91).exchangeTimestamp(92).instrumentId(93).orderId(90001).shares(300).side(Side.BUY);
        e.price().mantissa(1_234_500);
        return e.toString();
    }

    private static String addOrderAttributed(final PacketWriter w)
    {
        final io.mdfanout.sbe.AddOrderAttributedEncoder e = w.addOrderAttributed()
            .exchangeSequence(101).exchangeTimestamp(102).instrumentId(103).orderId(104).shares(105)
            .side(Side.SELL).attribution("MPID");
        e.price().mantissa(106);
        return e.toString();
    }

    private static String executedWithPrice(final PacketWriter w)
    {
        final io.mdfanout.sbe.OrderExecutedWithPriceEncoder e = w.orderExecutedWithPrice()
            .exchangeSequence(121).exchangeTimestamp(122).instrumentId(123).orderId(124).matchNumber(125)
            .executedShares(127).printable((byte)'Y');
        e.executionPrice().mantissa(126);
        return e.toString();
    }

    private static String replace(final PacketWriter w)
    {
        final io.mdfanout.sbe.OrderReplaceEncoder e = w.orderReplace()
            .exchangeSequence(151).exchangeTimestamp(152).instrumentId(153).originalOrderId(154).newOrderId(155)
            .shares(157);
        e.price().mantissa(156);
        return e.toString();
    }

    private static String trade(final PacketWriter w)
    {
        final io.mdfanout.sbe.TradeEncoder e = w.trade()
            .exchangeSequence(161).exchangeTimestamp(162).instrumentId(163).orderId(164).matchNumber(165)
            .shares(167).side(Side.SELL);
        e.price().mantissa(166);
        return e.toString();
    }

    private static String crossTrade(final PacketWriter w)
    {
        final io.mdfanout.sbe.CrossTradeEncoder e = w.crossTrade()
            .exchangeSequence(171).exchangeTimestamp(172).instrumentId(173).shares(5_000_000_000L).matchNumber(175)
            .crossType((byte)'O');
        e.crossPrice().mantissa(176);
        return e.toString();
    }

    private static String imbalance(final PacketWriter w)
    {
        final io.mdfanout.sbe.ImbalanceEncoder e = w.imbalance()
            .exchangeSequence(191).exchangeTimestamp(192).instrumentId(193).pairedShares(194).imbalanceShares(195)
            .imbalanceDirection((byte)'B').crossType((byte)'C').priceVariationIndicator((byte)'1');
        e.farPrice().mantissa(196);
        e.nearPrice().mantissa(197);
        e.currentReferencePrice().mantissa(198);
        return e.toString();
    }

}
