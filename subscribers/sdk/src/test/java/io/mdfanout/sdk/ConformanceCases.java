package io.mdfanout.sdk;

import io.mdfanout.sbe.AddOrderEncoder;
import io.mdfanout.sbe.GapReason;
import io.mdfanout.sbe.ImbalanceEncoder;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.MwcbDeclineLevelEncoder;
import io.mdfanout.sbe.PacketHeaderEncoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.TradingState;
import org.agrona.DirectBuffer;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The conformance suite's cases (conformance/README.md): each a stream of wire messages as a subscriber receives them,
 * written with the SDK's test encoder. The files in conformance/cases are these bytes; {@link ConformanceTest} checks
 * they still are, so a case changes here or nowhere.
 * <p>
 * A case file: the 8 ASCII bytes {@code MDFCONF1}, the partition count (u32), then records, all little-endian: kind
 * (u8: 1 = a message of a partition's incremental stream), a zero byte, the partition (u16), the Aeron session id of
 * the publication it came on (i32), its length (u32) and its bytes.
 */
final class ConformanceCases
{
    static final byte[] MAGIC = "MDFCONF1".getBytes(StandardCharsets.US_ASCII);
    static final int KIND_INCREMENTAL = 1;
    private static final int SESSION = 1001;
    private static final long T0 = 34_200_000_000_000L; // 09:30:00 in nanoseconds since midnight
    private static final int FIRST_MESSAGE = MessageHeaderEncoder.ENCODED_LENGTH + PacketHeaderEncoder.BLOCK_LENGTH;

    private ConformanceCases()
    {
    }

    /** Every case by name, in the suite's order. */
    static Map<String, byte[]> all()
    {
        final Map<String, byte[]> cases = new LinkedHashMap<>();
        cases.put("normal-flow", normalFlow());
        cases.put("loss-and-gaps", lossAndGaps());
        cases.put("malformed", malformed());
        cases.put("new-publication", newPublication());
        cases.put("schema-versions", schemaVersions());
        cases.put("source-liveness", sourceLiveness());
        cases.put("new-day", newDay());
        cases.put("exchange-gaps", exchangeGaps());
        return cases;
    }

    /** Every message type on two partitions, in order, with heartbeats: books built, traded and emptied. */
    private static byte[] normalFlow()
    {
        final Case c = new Case(2);
        final PacketWriter w = c.writer;
        w.begin(0, 1, T0);
        w.systemEvent().exchangeSequence(1).exchangeTimestamp(T0).instrumentId(0).eventCode(SystemEventCode.START_OF_MESSAGES);
        w.instrumentDirectory().exchangeSequence(2).exchangeTimestamp(T0 + 1).instrumentId(2)
            .symbol("AAPL    ").roundLotSize(100).etpLeverageFactor(0).marketCategory((byte)'Q')
            .financialStatusIndicator((byte)'N').roundLotsOnly((byte)'N').issueClassification((byte)'C')
            .issueSubType("Z ").authenticity((byte)'P').shortSaleThresholdIndicator((byte)'N').ipoFlag((byte)' ')
            .luldReferencePriceTier((byte)'1').etpFlag((byte)'N').inverseIndicator((byte)'N');
        w.tradingStatus().exchangeSequence(3).exchangeTimestamp(T0 + 2).instrumentId(2).tradingState(TradingState.TRADING)
            .reason("    ");
        w.regShoRestriction().exchangeSequence(4).exchangeTimestamp(T0 + 3).instrumentId(2).regShoAction((byte)'0');
        c.packet(0, SESSION, w.finish());

        w.begin(1, 1, T0 + 10);
        w.systemEvent().exchangeSequence(1).exchangeTimestamp(T0).instrumentId(0).eventCode(SystemEventCode.START_OF_MESSAGES);
        w.instrumentDirectory().exchangeSequence(5).exchangeTimestamp(T0 + 4).instrumentId(3)
            .symbol("MSFT    ").roundLotSize(100).etpLeverageFactor(0).marketCategory((byte)'Q')
            .financialStatusIndicator((byte)'N').roundLotsOnly((byte)'N').issueClassification((byte)'C')
            .issueSubType("Z ").authenticity((byte)'P').shortSaleThresholdIndicator((byte)'N').ipoFlag((byte)' ')
            .luldReferencePriceTier((byte)'1').etpFlag((byte)'N').inverseIndicator((byte)'N');
        final MwcbDeclineLevelEncoder levels = w.mwcbDeclineLevel().exchangeSequence(6).exchangeTimestamp(T0 + 5)
            .instrumentId(0);
        levels.level1().mantissa(3_500_000_000_000L);
        levels.level2().mantissa(3_300_000_000_000L);
        levels.level3().mantissa(3_000_000_000_000L);
        c.packet(1, SESSION, w.finish());

        w.begin(0, 5, T0 + 20);
        w.addOrder().exchangeSequence(7).exchangeTimestamp(T0 + 20).instrumentId(2).orderId(100).shares(300).side(Side.BUY)
            .price().mantissa(1_500_000);
        w.addOrder().exchangeSequence(8).exchangeTimestamp(T0 + 21).instrumentId(2).orderId(101).shares(200).side(Side.SELL)
            .price().mantissa(1_501_000);
        w.addOrderAttributed().exchangeSequence(9).exchangeTimestamp(T0 + 22).instrumentId(2).orderId(102).shares(50)
            .side(Side.BUY).attribution("GSCO").price().mantissa(1_499_900);
        w.orderExecuted().exchangeSequence(10).exchangeTimestamp(T0 + 23).instrumentId(2).orderId(100).matchNumber(9001)
            .executedShares(100);
        w.orderExecutedWithPrice().exchangeSequence(11).exchangeTimestamp(T0 + 24).instrumentId(2).orderId(101)
            .matchNumber(9002).executedShares(50).printable((byte)'Y').executionPrice().mantissa(1_500_500);
        c.packet(0, SESSION, w.finish());

        c.heartbeat(1, 4, T0 + 30, SourceStatus.LIVE);

        w.begin(0, 10, T0 + 40);
        w.orderCancel().exchangeSequence(12).exchangeTimestamp(T0 + 40).instrumentId(2).orderId(102).cancelledShares(20);
        w.orderReplace().exchangeSequence(13).exchangeTimestamp(T0 + 41).instrumentId(2).originalOrderId(101)
            .newOrderId(103).shares(120).price().mantissa(1_502_000);
        w.trade().exchangeSequence(14).exchangeTimestamp(T0 + 42).instrumentId(2).orderId(0).matchNumber(9003)
            .shares(10).side(Side.SELL).price().mantissa(1_500_100);
        w.brokenTrade().exchangeSequence(15).exchangeTimestamp(T0 + 43).instrumentId(2).matchNumber(9003);
        c.packet(0, SESSION, w.finish());

        w.begin(1, 4, T0 + 50);
        w.addOrder().exchangeSequence(16).exchangeTimestamp(T0 + 50).instrumentId(3).orderId(200).shares(1000)
            .side(Side.SELL).price().mantissa(4_100_000);
        w.crossTrade().exchangeSequence(17).exchangeTimestamp(T0 + 51).instrumentId(3).shares(12_345_678_901L)
            .matchNumber(9004).crossType((byte)'O').crossPrice().mantissa(4_099_000);
        final ImbalanceEncoder imbalance = w.imbalance().exchangeSequence(18).exchangeTimestamp(T0 + 52).instrumentId(3)
            .pairedShares(5000).imbalanceShares(700).imbalanceDirection((byte)'B').crossType((byte)'C')
            .priceVariationIndicator((byte)'1');
        imbalance.farPrice().mantissa(4_090_000);
        imbalance.nearPrice().mantissa(4_095_000);
        imbalance.currentReferencePrice().mantissa(4_098_000);
        w.mwcbStatus().exchangeSequence(19).exchangeTimestamp(T0 + 53).instrumentId(0).breachedLevel((byte)'1');
        w.operationalHalt().exchangeSequence(20).exchangeTimestamp(T0 + 54).instrumentId(3).marketCode((byte)'Q')
            .haltAction((byte)'H');
        c.packet(1, SESSION, w.finish());

        w.begin(0, 14, T0 + 60);
        w.orderDelete().exchangeSequence(21).exchangeTimestamp(T0 + 60).instrumentId(2).orderId(100);
        w.systemEvent().exchangeSequence(22).exchangeTimestamp(T0 + 61).instrumentId(0)
            .eventCode(SystemEventCode.END_OF_MESSAGES);
        c.packet(0, SESSION, w.finish());
        w.begin(1, 9, T0 + 60);
        w.systemEvent().exchangeSequence(22).exchangeTimestamp(T0 + 61).instrumentId(0)
            .eventCode(SystemEventCode.END_OF_MESSAGES);
        c.packet(1, SESSION, w.finish());
        c.heartbeat(0, 16, T0 + 70, SourceStatus.LIVE);
        return c.bytes();
    }

    /** Lost packets, a heartbeat past a loss, duplicates, an overlap, and an exchange gap the feed handler declared. */
    private static byte[] lossAndGaps()
    {
        final Case c = new Case(1);
        final PacketWriter w = c.writer;
        w.begin(0, 1, T0);
        add(w, 1, 10, 1_000_000, 100, Side.BUY);
        add(w, 2, 11, 1_000_100, 100, Side.SELL);
        final int first = w.finish();
        c.packet(0, SESSION, first);
        c.packet(0, SESSION, first); // the same packet again: a duplicate
        // stream sequences 3 and 4 lost
        w.begin(0, 5, T0 + 10);
        add(w, 5, 12, 999_900, 50, Side.BUY);
        add(w, 6, 13, 1_000_200, 70, Side.SELL);
        c.packet(0, SESSION, w.finish());
        // an overlap: 6 again, then 7
        w.begin(0, 6, T0 + 20);
        add(w, 6, 13, 1_000_200, 70, Side.SELL);
        add(w, 7, 14, 1_000_300, 80, Side.SELL);
        c.packet(0, SESSION, w.finish());
        // a heartbeat says 10 is next: 8 and 9 were lost
        c.heartbeat(0, 10, T0 + 30, SourceStatus.LIVE);
        w.begin(0, 10, T0 + 40);
        w.gapNotice().exchangeSequence(8).exchangeTimestamp(T0 + 40).instrumentId(0).lastMissingSequence(9)
            .reason(GapReason.UNRECOVERED);
        w.orderDelete().exchangeSequence(10).exchangeTimestamp(T0 + 41).instrumentId(1).orderId(10);
        c.packet(0, SESSION, w.finish());
        return c.bytes();
    }

    /** One malformed message of each kind between valid ones: each dropped whole, counted by reason. */
    private static byte[] malformed()
    {
        final Case c = new Case(2);
        final PacketWriter w = c.writer;
        w.begin(0, 1, T0);
        add(w, 1, 10, 1_000_000, 100, Side.BUY);
        c.packet(0, SESSION, w.finish());

        // truncated: the last byte of a valid packet missing
        w.begin(0, 2, T0 + 1);
        add(w, 2, 11, 1_000_100, 100, Side.SELL);
        c.packet(0, SESSION, w.finish() - 1);
        // a packet of partition 1 on partition 0's stream
        w.begin(1, 2, T0 + 2);
        add(w, 3, 12, 1_000_100, 100, Side.SELL);
        c.packet(0, SESSION, w.finish());
        // another schema id
        w.begin(0, 2, T0 + 3);
        add(w, 4, 13, 1_000_100, 100, Side.SELL);
        final int badSchema = w.finish();
        new MessageHeaderEncoder().wrap(w.buffer(), 0).schemaId(77);
        c.packet(0, SESSION, badSchema);
        // a message count that says two where there is one
        w.begin(0, 2, T0 + 4);
        add(w, 5, 14, 1_000_100, 100, Side.SELL);
        final int counted = w.finish();
        new PacketHeaderEncoder().wrap(w.buffer(), MessageHeaderEncoder.ENCODED_LENGTH).messageCount(2);
        c.packet(0, SESSION, counted);
        // a template this schema does not have inside a packet
        w.begin(0, 2, T0 + 5);
        add(w, 6, 15, 1_000_100, 100, Side.SELL);
        final int unknown = w.finish();
        new MessageHeaderEncoder().wrap(w.buffer(), FIRST_MESSAGE).templateId(99);
        c.packet(0, SESSION, unknown);
        // a message, not a packet, at the top
        w.begin(0, 2, T0 + 6);
        add(w, 7, 16, 1_000_100, 100, Side.SELL);
        w.finish();
        c.record(0, SESSION, w.buffer(), FIRST_MESSAGE, MessageHeaderEncoder.ENCODED_LENGTH + AddOrderEncoder.BLOCK_LENGTH);
        // 7 bytes: shorter than any header
        c.record(0, SESSION, w.buffer(), 0, 7);

        // then valid again: stream sequence 2 goes on where the last valid packet ended
        w.begin(0, 2, T0 + 7);
        add(w, 8, 17, 1_000_100, 100, Side.SELL);
        c.packet(0, SESSION, w.finish());
        w.begin(1, 1, T0 + 8);
        add(w, 9, 18, 2_000_000, 10, Side.BUY);
        c.packet(1, SESSION, w.finish());
        return c.bytes();
    }

    /** The fanout restarted: a new publication (another session id) whose stream starts again; the old one's late
     * packets are dropped. Without recovery the stream is joined again and the books keep what they hold. */
    private static byte[] newPublication()
    {
        final Case c = new Case(1);
        final PacketWriter w = c.writer;
        w.begin(0, 1, T0);
        add(w, 1, 10, 1_000_000, 100, Side.BUY);
        add(w, 2, 11, 1_000_100, 100, Side.SELL);
        c.packet(0, SESSION, w.finish());
        w.begin(0, 1, T0 + 100);
        add(w, 3, 12, 999_000, 40, Side.BUY);
        c.packet(0, SESSION + 1, w.finish());
        w.begin(0, 3, T0 + 5);
        add(w, 4, 13, 1_000_500, 40, Side.SELL);
        c.packet(0, SESSION, w.finish()); // the old publication, late: dropped
        w.begin(0, 2, T0 + 110);
        add(w, 5, 14, 999_500, 30, Side.BUY);
        c.packet(0, SESSION + 1, w.finish());
        return c.bytes();
    }

    /** An older fanout's heartbeat (schema version 1, shorter, no source status) and a newer fanout's message with a
     * longer block than this schema's (its extra bytes skipped): both read. */
    private static byte[] schemaVersions()
    {
        final Case c = new Case(1);
        final PacketWriter w = c.writer;
        c.packet(0, SESSION, w.heartbeatOfVersionOne(0, 1, 1));
        w.begin(0, 1, T0);
        add(w, 1, 10, 1_000_000, 100, Side.BUY);
        c.packet(0, SESSION, w.finish());

        // AddOrder with 8 more bytes in its block (a newer version), then an ordinary message after it
        w.begin(0, 2, T0 + 1);
        final int offset = w.reserve(AddOrderEncoder.BLOCK_LENGTH + 8);
        final AddOrderEncoder longer = new AddOrderEncoder();
        longer.wrapAndApplyHeader(w.buffer(), offset, new MessageHeaderEncoder()).exchangeSequence(2).exchangeTimestamp(T0 + 1)
            .instrumentId(1).orderId(11).shares(60).side(Side.SELL).price().mantissa(1_000_400);
        new MessageHeaderEncoder().wrap(w.buffer(), offset).blockLength(AddOrderEncoder.BLOCK_LENGTH + 8)
            .version(AddOrderEncoder.SCHEMA_VERSION + 1);
        w.buffer().putLong(offset + MessageHeaderEncoder.ENCODED_LENGTH + AddOrderEncoder.BLOCK_LENGTH,
            0x0102030405060708L);
        add(w, 3, 12, 999_800, 25, Side.BUY);
        c.packet(0, SESSION, w.finish());
        c.heartbeat(0, 4, T0 + 10, SourceStatus.LIVE);
        return c.bytes();
    }

    /** The fanout's heartbeats say the source went down and came back: stale SOURCE_DOWN once per outage, recovered
     * (snapshot 0) by a LIVE heartbeat or by data, an older fanout's heartbeat (no status) changing nothing. */
    private static byte[] sourceLiveness()
    {
        final Case c = new Case(2);
        final PacketWriter w = c.writer;
        c.heartbeat(1, 1, T0 - 10, SourceStatus.FEED_HANDLER_DOWN); // not joined yet when it says so: joins, then stale
        w.begin(0, 1, T0);
        add(w, 1, 10, 1_000_000, 100, Side.BUY);
        c.packet(0, SESSION, w.finish());
        c.heartbeat(0, 2, T0 + 1, SourceStatus.FEED_HANDLER_DOWN);
        c.heartbeat(0, 2, T0 + 2, SourceStatus.STOPPED); // the same outage: no second STALE
        c.packet(0, SESSION, w.heartbeatOfVersionOne(0, 2, 1)); // an older fanout's: says nothing of the source
        c.heartbeat(0, 2, T0 + 3, SourceStatus.LIVE);
        c.heartbeat(0, 2, T0 + 4, SourceStatus.LINES_SILENT);
        w.begin(0, 2, T0 + 5); // data: the feed handler writes again
        add(w, 2, 11, 1_000_100, 100, Side.SELL);
        c.packet(0, SESSION, w.finish());
        c.heartbeat(0, 3, T0 + 6, SourceStatus.LOADING);
        c.heartbeat(1, 1, T0 + 7, SourceStatus.LIVE);
        c.heartbeat(0, 3, T0 + 8, SourceStatus.UNKNOWN); // nothing said: changes nothing
        return c.bytes();
    }

    /** The exchange ends the day (End of Messages) and the next day's stream starts at 1 on a new publication: a new
     * day, that partition's books emptied, the other's kept; a day whose End of Messages was lost (GapNotice STALE)
     * rolls the same way; a stream that starts again without an ended day is only a new publication. */
    private static byte[] newDay()
    {
        final Case c = new Case(2);
        final PacketWriter w = c.writer;
        w.begin(0, 1, T0);
        w.systemEvent().exchangeSequence(1).exchangeTimestamp(T0).instrumentId(0).eventCode(SystemEventCode.START_OF_MESSAGES);
        add(w, 2, 10, 1_000_000, 100, Side.BUY);
        w.systemEvent().exchangeSequence(3).exchangeTimestamp(T0 + 3).instrumentId(0)
            .eventCode(SystemEventCode.END_OF_MESSAGES);
        c.packet(0, SESSION, w.finish());
        w.begin(1, 1, T0);
        w.addOrder().exchangeSequence(4).exchangeTimestamp(T0 + 4).instrumentId(3).orderId(20).shares(5).side(Side.SELL)
            .price().mantissa(2_000_000);
        c.packet(1, SESSION, w.finish());

        w.begin(0, 1, T0 + 86_400);
        w.systemEvent().exchangeSequence(1).exchangeTimestamp(T0).instrumentId(0).eventCode(SystemEventCode.START_OF_MESSAGES);
        add(w, 2, 30, 1_100_000, 10, Side.BUY);
        w.gapNotice().exchangeSequence(3).exchangeTimestamp(T0 + 9).instrumentId(0).lastMissingSequence(4)
            .reason(GapReason.UNRECOVERED);
        w.gapNotice().exchangeSequence(4).exchangeTimestamp(T0 + 9).instrumentId(0).lastMissingSequence(4)
            .reason(GapReason.STALE);
        c.packet(0, SESSION + 1, w.finish());

        w.begin(0, 1, T0 + 2 * 86_400);
        add(w, 1, 40, 1_200_000, 20, Side.SELL);
        c.packet(0, SESSION + 2, w.finish());

        w.begin(1, 1, T0 + 2 * 86_400); // partition 1's day did not end: a new publication, its books kept
        w.addOrder().exchangeSequence(2).exchangeTimestamp(T0 + 2).instrumentId(3).orderId(21).shares(6).side(Side.SELL)
            .price().mantissa(2_000_100);
        c.packet(1, SESSION + 2, w.finish());
        return c.bytes();
    }

    /** Exchange gaps the feed handler declared: stale EXCHANGE_GAP once while it lasts, cleared by the next session's
     * Start of Messages, then again on the next gap; a partition-wide and an instrument's notice. */
    private static byte[] exchangeGaps()
    {
        final Case c = new Case(1);
        final PacketWriter w = c.writer;
        w.begin(0, 1, T0);
        add(w, 1, 10, 1_000_000, 100, Side.BUY);
        w.gapNotice().exchangeSequence(2).exchangeTimestamp(T0 + 2).instrumentId(0).lastMissingSequence(3)
            .reason(GapReason.UNRECOVERED);
        w.gapNotice().exchangeSequence(5).exchangeTimestamp(T0 + 5).instrumentId(1).lastMissingSequence(5)
            .reason(GapReason.UNRECOVERED);
        add(w, 6, 11, 1_000_100, 100, Side.SELL);
        c.packet(0, SESSION, w.finish());
        w.begin(0, 5, T0 + 10);
        w.systemEvent().exchangeSequence(7).exchangeTimestamp(T0 + 7).instrumentId(0)
            .eventCode(SystemEventCode.START_OF_MESSAGES);
        w.gapNotice().exchangeSequence(8).exchangeTimestamp(T0 + 8).instrumentId(0).lastMissingSequence(8)
            .reason(GapReason.UNRECOVERED);
        c.packet(0, SESSION, w.finish());
        return c.bytes();
    }

    private static void add(
        final PacketWriter w, final long exchangeSequence, final long orderId, final long price, final long shares,
        final Side side)
    {
        w.addOrder().exchangeSequence(exchangeSequence).exchangeTimestamp(T0 + exchangeSequence).instrumentId(1)
            .orderId(orderId).shares(shares).side(side).price().mantissa(price);
    }

    /** A case being written. */
    private static final class Case
    {
        final PacketWriter writer = new PacketWriter();
        final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Case(final int partitions)
        {
            out.writeBytes(MAGIC);
            out.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(partitions).array());
        }

        void packet(final int partition, final int sessionId, final int length)
        {
            record(partition, sessionId, writer.buffer(), 0, length);
        }

        void heartbeat(final int partition, final long next, final long sendingTime, final SourceStatus status)
        {
            packet(partition, SESSION, writer.heartbeat(partition, next, sendingTime, status));
        }

        void record(final int partition, final int sessionId, final DirectBuffer buffer, final int offset, final int length)
        {
            final ByteBuffer header = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
            header.put((byte)KIND_INCREMENTAL).put((byte)0).putShort((short)partition).putInt(sessionId).putInt(length);
            out.writeBytes(header.array());
            final byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            out.writeBytes(bytes);
        }

        byte[] bytes()
        {
            return out.toByteArray();
        }
    }

    /** One record of a case file. */
    record Record(int kind, int partition, int sessionId, byte[] bytes)
    {
    }

    /** Read a case file: its partition count and records. */
    static List<Record> read(final byte[] file, final int[] partitionCount)
    {
        final ByteBuffer in = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        final byte[] magic = new byte[MAGIC.length];
        in.get(magic);
        if (!java.util.Arrays.equals(MAGIC, magic))
        {
            throw new IllegalArgumentException("not a conformance case (no MDFCONF1 magic)");
        }
        partitionCount[0] = in.getInt();
        final List<Record> records = new ArrayList<>();
        while (in.hasRemaining())
        {
            final int kind = in.get() & 0xFF;
            in.get();
            final int partition = in.getShort() & 0xFFFF;
            final int sessionId = in.getInt();
            final byte[] bytes = new byte[in.getInt()];
            in.get(bytes);
            records.add(new Record(kind, partition, sessionId, bytes));
        }
        return records;
    }
}
