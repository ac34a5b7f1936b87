package io.mdfanout.sdk;

import io.mdfanout.sbe.AddOrderEncoder;
import io.mdfanout.sbe.GapReason;
import io.mdfanout.sbe.ImbalanceEncoder;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.MwcbDeclineLevelEncoder;
import io.mdfanout.sbe.PacketHeaderEncoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SnapshotBeginEncoder;
import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.TradingState;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

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
 * A case file: the 8 ASCII bytes {@code MDFCONF2}, the partition count (u32), the flags (u32; bit 0: the SDK's recovery
 * from the snapshot streams runs; bit 1: the messages come from a pair's two sides and are arbitrated, never with bit
 * 0) and the recovery buffer's capacity (u32; 0 when recovery is off), for a pair then the arbitration wait (u64
 * nanoseconds); then records, all little-endian: kind (u8: 1 = a message of a partition's incremental stream, 2 = of
 * its snapshot stream, 3 = the time: the SDK's clock moves to the record's 8 bytes, u64 nanoseconds, a pair only),
 * the side it came on (u8: 0 = A, 1 = B; always 0 outside a pair and in a time record), the partition (u16), the
 * Aeron session id of the publication it came on (i32), its length (u32) and its bytes.
 */
final class ConformanceCases
{
    static final byte[] MAGIC = "MDFCONF2".getBytes(StandardCharsets.US_ASCII);
    static final int KIND_INCREMENTAL = 1;
    static final int KIND_SNAPSHOT = 2;
    /** A pair's clock moves to the record's time, and the subscriber does its work ({@link PacketStreamDecoder#doWork}). */
    static final int KIND_TIME = 3;
    /** Flag bit 0: the subscriber recovers from the snapshot streams ({@link PacketStreamDecoder#withRecovery}). */
    static final int FLAG_RECOVERY = 1;
    /** Flag bit 1: the subscriber arbitrates a pair's two sides ({@link PacketStreamDecoder#forPair}); no recovery. */
    static final int FLAG_PAIR = 2;
    static final int SIDE_A = 0;
    static final int SIDE_B = 1;
    /** The recovery buffer of the cases with recovery, but one that overflows it. */
    private static final int RECOVERY_BUFFER_BYTES = 64 * 1024;
    private static final int SESSION = 1001;
    /** The session of the fanout's snapshot publication of a partition (another publication than the incrementals'). */
    private static final int SNAPSHOT_SESSION = 2001;
    /** The session of side B's publication of a pair (side A's is {@link #SESSION}). */
    private static final int SIDE_B_SESSION = 3001;
    /** A pair's arbitration wait: FeedSubscriber.Context's default, 20 ms. */
    private static final long ARBITRATION_WAIT_NS = 20_000_000L;
    /** The exchange's MoldUDP64 sessions a pair's heartbeats carry: the first day, the next, and one neither is. */
    private static final byte[] DAY_ONE = "0000000101".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DAY_TWO = "0000000102".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] OTHER_SESSION = "0000000999".getBytes(StandardCharsets.US_ASCII);
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
        cases.put("late-join", lateJoin());
        cases.put("snapshot-recovery", snapshotRecovery());
        cases.put("new-publication-recovery", newPublicationRecovery());
        cases.put("recovery-overflow", recoveryOverflow());
        cases.put("source-down-recovery", sourceDownRecovery());
        cases.put("snapshot-ahead", snapshotAhead());
        cases.put("pair-arbitration", pairArbitration());
        cases.put("pair-loss", pairLoss());
        cases.put("pair-restart", pairRestart());
        cases.put("pair-disagree", pairDisagree());
        cases.put("pair-new-day", pairNewDay());
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

    /**
     * A subscriber joins partition 0 at stream sequence 5 (stale LATE_JOIN: its incrementals are held back) while
     * partition 1 starts at 1 (good from the start, never stale). On partition 0's snapshot stream: a snapshot of
     * another incremental publication (the previous fanout's) and one older than what was held back (both ignored),
     * a heartbeat (passed over), then a snapshot applied over three packets: the market's SystemEvent, instrument 2 as
     * of 4 (its directory, trading status and two orders), instrument 4 as of 6 and instrument 6 as of 10 (newer than
     * what the subscriber has read), ids from 7 as of 10. The held-back 5..8 replay through its filter (instrument 4's
     * 5 and 6 are in the snapshot: skipped), RECOVERED; live, 9 of instrument 6 is still skipped (covered through 10),
     * 10 and 11 are delivered; a snapshot that comes while the partition is good is passed over.
     */
    private static byte[] lateJoin()
    {
        final Case c = new Case(2, RECOVERY_BUFFER_BYTES);
        final PacketWriter w = c.writer;
        w.begin(1, 1, T0);
        w.addOrder().exchangeSequence(101).exchangeTimestamp(T0 + 101).instrumentId(3).orderId(30).shares(10)
            .side(Side.BUY).price().mantissa(1_500_000);
        c.packet(1, SESSION, w.finish());

        w.begin(0, 5, T0 + 10);
        w.addOrder().exchangeSequence(105).exchangeTimestamp(T0 + 105).instrumentId(4).orderId(42).shares(50)
            .side(Side.SELL).price().mantissa(2_001_000);
        w.orderExecuted().exchangeSequence(106).exchangeTimestamp(T0 + 106).instrumentId(4).orderId(41)
            .matchNumber(7001).executedShares(100);
        c.packet(0, SESSION, w.finish());
        w.begin(0, 7, T0 + 20);
        w.orderCancel().exchangeSequence(107).exchangeTimestamp(T0 + 107).instrumentId(4).orderId(41)
            .cancelledShares(20);
        w.addOrder().exchangeSequence(108).exchangeTimestamp(T0 + 108).instrumentId(2).orderId(22).shares(30)
            .side(Side.BUY).price().mantissa(999_900);
        c.packet(0, SESSION, w.finish());

        // The previous fanout's snapshot publication: a snapshot of its incremental publication, not the one followed.
        final SnapshotStream previous = new SnapshotStream(c, 0, SNAPSHOT_SESSION - 1, 40);
        previous.begin(T0 + 30);
        snapshotBegin(w, 0, 9, 20, SESSION - 1, 90);
        snapshotEnd(w, 9, 20, 1, 0, 0, 0, 90);
        previous.send();

        final SnapshotStream snapshots = new SnapshotStream(c, 0, SNAPSHOT_SESSION, 1);
        snapshots.begin(T0 + 31); // as of 3: older than the first message held back, 5
        snapshotBegin(w, 0, 1, 3, SESSION, 103);
        snapshotEnd(w, 1, 3, 1, 0, 0, 0, 103);
        snapshots.send();

        snapshots.begin(T0 + 40);
        snapshotBegin(w, 0, 2, 4, SESSION, 104);
        w.systemEvent().exchangeSequence(1).exchangeTimestamp(T0).instrumentId(0).eventCode(SystemEventCode.START_OF_MESSAGES);
        snapshots.send();
        snapshots.heartbeat(T0 + 41);
        snapshots.begin(T0 + 42);
        snapshotInstrument(w, 2, 2, 4, 1, 2, 104);
        w.instrumentDirectory().exchangeSequence(2).exchangeTimestamp(T0 + 2).instrumentId(2)
            .symbol("AAPL    ").roundLotSize(100).etpLeverageFactor(0).marketCategory((byte)'Q')
            .financialStatusIndicator((byte)'N').roundLotsOnly((byte)'N').issueClassification((byte)'C')
            .issueSubType("Z ").authenticity((byte)'P').shortSaleThresholdIndicator((byte)'N').ipoFlag((byte)' ')
            .luldReferencePriceTier((byte)'1').etpFlag((byte)'N').inverseIndicator((byte)'N');
        w.tradingStatus().exchangeSequence(3).exchangeTimestamp(T0 + 3).instrumentId(2).tradingState(TradingState.TRADING)
            .reason("    ");
        snapshotOrder(w, 2, 20, 1_000_000, 100, Side.BUY, "    ", 104);
        snapshotOrder(w, 2, 21, 1_000_100, 100, Side.SELL, "    ", 104);
        snapshots.send();
        snapshots.begin(T0 + 43);
        snapshotInstrument(w, 4, 2, 6, 3, 2, 106);
        snapshotOrder(w, 4, 41, 2_000_000, 200, Side.BUY, "    ", 106);
        snapshotOrder(w, 4, 42, 2_001_000, 50, Side.SELL, "    ", 106);
        snapshotInstrument(w, 6, 2, 10, 5, 1, 110);
        snapshotOrder(w, 6, 61, 3_000_000, 70, Side.SELL, "GSCO", 110);
        snapshotEnd(w, 2, 10, 7, 3, 5, 11, 110);
        snapshots.send();

        w.begin(0, 9, T0 + 50);
        w.orderExecuted().exchangeSequence(109).exchangeTimestamp(T0 + 109).instrumentId(6).orderId(61)
            .matchNumber(7002).executedShares(30);
        w.orderDelete().exchangeSequence(110).exchangeTimestamp(T0 + 110).instrumentId(4).orderId(42);
        w.addOrder().exchangeSequence(111).exchangeTimestamp(T0 + 111).instrumentId(6).orderId(62).shares(40)
            .side(Side.BUY).price().mantissa(2_999_000);
        c.packet(0, SESSION, w.finish());

        snapshots.begin(T0 + 60); // the next snapshot, while partition 0 is good: passed over
        snapshotBegin(w, 0, 3, 11, SESSION, 111);
        snapshots.send();
        c.heartbeat(1, 2, T0 + 61, SourceStatus.LIVE);
        return c.bytes();
    }

    /**
     * A stream joined at 1 loses 3..4 (stale GAP). Snapshot attempts each abandoned (counted), each begun again by the
     * next: one whose packet is lost on the snapshot stream (a snapshot gap), one whose SnapshotEnd counts the orders
     * wrong (inconsistent), one whose second packet arrives cut short (malformed), and one during which the
     * incrementals lose 7..8 (GAP again, buffering restarts from 9; the rest of that snapshot is passed over). Then an
     * older fanout's snapshot (a SnapshotBegin of schema version 2) applies: instrument 1 as of 8, instrument 2 as of
     * 10, so the held-back 9 is delivered and 10 skipped; RECOVERED. Live again, 12 is lost (a GapNotice the stream
     * carried): GAP, and the snapshot that recovers it says its state lacks exchange messages 12..14 (schema version
     * 3): stale EXCHANGE_GAP as it begins, RECOVERED at its end all the same.
     */
    private static byte[] snapshotRecovery()
    {
        final Case c = new Case(1, RECOVERY_BUFFER_BYTES);
        final PacketWriter w = c.writer;
        w.begin(0, 1, T0);
        w.systemEvent().exchangeSequence(1).exchangeTimestamp(T0).instrumentId(0).eventCode(SystemEventCode.START_OF_MESSAGES);
        add(w, 2, 10, 1_000_000, 100, Side.BUY);
        c.packet(0, SESSION, w.finish());
        // 3 and 4 lost: AddOrder 11 (SELL 1_000_100 x 100), AddOrder 12 (BUY 999_900 x 50)
        w.begin(0, 5, T0 + 5);
        w.orderExecuted().exchangeSequence(5).exchangeTimestamp(T0 + 5).instrumentId(1).orderId(10).matchNumber(5001)
            .executedShares(40);
        w.addOrder().exchangeSequence(6).exchangeTimestamp(T0 + 6).instrumentId(2).orderId(20).shares(10)
            .side(Side.SELL).price().mantissa(2_000_000);
        c.packet(0, SESSION, w.finish());

        final SnapshotStream snapshots = new SnapshotStream(c, 0, SNAPSHOT_SESSION, 1);
        snapshots.begin(T0 + 10); // snapshot 1: its second packet lost
        snapshotBegin(w, 0, 1, 4, SESSION, 4);
        startOfMessages(w);
        snapshots.send();
        snapshots.begin(T0 + 11);
        instrumentOneAsOfFour(w, 1);
        snapshots.lose();
        snapshots.begin(T0 + 12);
        snapshotEnd(w, 1, 4, 2, 1, 3, 5, 4);
        snapshots.send();

        snapshots.begin(T0 + 20); // snapshot 2: its SnapshotEnd says 2 orders where 3 came
        snapshotBegin(w, 0, 2, 4, SESSION, 4);
        startOfMessages(w);
        instrumentOneAsOfFour(w, 2);
        snapshotEnd(w, 2, 4, 2, 1, 2, 5, 4);
        snapshots.send();

        snapshots.begin(T0 + 30); // snapshot 3: its second packet cut short
        snapshotBegin(w, 0, 3, 4, SESSION, 4);
        startOfMessages(w);
        snapshots.send();
        snapshots.begin(T0 + 31);
        instrumentOneAsOfFour(w, 3);
        snapshotEnd(w, 3, 4, 2, 1, 3, 5, 4);
        snapshots.sendTruncated();

        snapshots.begin(T0 + 40); // snapshot 4: the incrementals lose 7 and 8 while it is applied
        snapshotBegin(w, 0, 4, 6, SESSION, 6);
        startOfMessages(w);
        snapshots.send();
        // 7 and 8 lost: AddOrder 21 of instrument 2 (BUY 1_999_000 x 10), OrderExecuted 11 (100: all of it)
        w.begin(0, 9, T0 + 41);
        add(w, 9, 13, 999_800, 20, Side.BUY);
        w.orderCancel().exchangeSequence(10).exchangeTimestamp(T0 + 10).instrumentId(2).orderId(20).cancelledShares(5);
        c.packet(0, SESSION, w.finish());
        snapshots.begin(T0 + 42); // the rest of snapshot 4: passed over
        snapshotInstrument(w, 1, 4, 6, 1, 3, 6);
        snapshotOrder(w, 1, 10, 1_000_000, 60, Side.BUY, "    ", 6);
        snapshotOrder(w, 1, 11, 1_000_100, 100, Side.SELL, "    ", 6);
        snapshotOrder(w, 1, 12, 999_900, 50, Side.BUY, "    ", 6);
        snapshotInstrument(w, 2, 4, 6, 2, 1, 6);
        snapshotOrder(w, 2, 20, 2_000_000, 10, Side.SELL, "    ", 6);
        snapshotEnd(w, 4, 6, 3, 2, 4, 7, 6);
        snapshots.send();

        snapshots.begin(T0 + 50); // snapshot 5, of an older fanout (SnapshotBegin of schema version 2): applied
        w.snapshotBeginOfVersionTwo().exchangeSequence(8).exchangeTimestamp(T0 + 8).instrumentId(0).snapshotId(5)
            .lastStreamSequence(8).incrementalSessionId(SESSION).partitionId(0);
        startOfMessages(w);
        snapshotInstrument(w, 1, 5, 8, 1, 2, 8);
        snapshotOrder(w, 1, 10, 1_000_000, 60, Side.BUY, "    ", 8);
        snapshotOrder(w, 1, 12, 999_900, 50, Side.BUY, "    ", 8);
        snapshotInstrument(w, 2, 5, 10, 2, 2, 10);
        snapshotOrder(w, 2, 20, 2_000_000, 5, Side.SELL, "    ", 10);
        snapshotOrder(w, 2, 21, 1_999_000, 10, Side.BUY, "    ", 10);
        snapshotEnd(w, 5, 10, 3, 2, 4, 7, 10);
        snapshots.send();

        w.begin(0, 11, T0 + 60);
        add(w, 11, 14, 1_000_200, 30, Side.SELL);
        c.packet(0, SESSION, w.finish());
        // 12 lost: GapNotice UNRECOVERED of exchange messages 12..14
        w.begin(0, 13, T0 + 61);
        w.addOrder().exchangeSequence(15).exchangeTimestamp(T0 + 15).instrumentId(2).orderId(22).shares(15)
            .side(Side.SELL).price().mantissa(2_001_000);
        c.packet(0, SESSION, w.finish());

        final SnapshotStream later = new SnapshotStream(c, 0, SNAPSHOT_SESSION, 45); // subscribed again, further on
        later.begin(T0 + 70); // snapshot 6: its state lacks exchange messages 12..14
        snapshotBegin(w, 0, 6, 12, SESSION, 14).unrecoveredFromSequence(12).unrecoveredToSequence(14);
        startOfMessages(w);
        snapshotInstrument(w, 1, 6, 12, 1, 4, 14);
        snapshotOrder(w, 1, 10, 1_000_000, 60, Side.BUY, "    ", 14);
        snapshotOrder(w, 1, 12, 999_900, 50, Side.BUY, "    ", 14);
        snapshotOrder(w, 1, 13, 999_800, 20, Side.BUY, "    ", 14);
        snapshotOrder(w, 1, 14, 1_000_200, 30, Side.SELL, "    ", 14);
        snapshotInstrument(w, 2, 6, 12, 2, 2, 14);
        snapshotOrder(w, 2, 20, 2_000_000, 5, Side.SELL, "    ", 14);
        snapshotOrder(w, 2, 21, 1_999_000, 10, Side.BUY, "    ", 14);
        snapshotEnd(w, 6, 12, 3, 2, 6, 9, 14);
        later.send();
        return c.bytes();
    }

    /**
     * The fanout restarted: a new publication (another session id) starts the stream again at 1, stale
     * NEW_PUBLICATION, its packets held back; a late packet of the old publication is dropped (oldSession), before
     * and after the recovery. The old fanout's snapshot publication still sends a snapshot of the old incrementals:
     * ignored; the new fanout's snapshot (as of 1) applies, rebuilding the books from nothing: the held-back 1 is
     * in it (skipped), 2 is delivered, RECOVERED, and the new publication goes on live.
     */
    private static byte[] newPublicationRecovery()
    {
        final Case c = new Case(1, RECOVERY_BUFFER_BYTES);
        final PacketWriter w = c.writer;
        w.begin(0, 1, T0);
        add(w, 1, 10, 1_000_000, 100, Side.BUY);
        add(w, 2, 11, 1_000_100, 100, Side.SELL);
        c.packet(0, SESSION, w.finish());

        w.begin(0, 1, T0 + 100);
        add(w, 3, 12, 999_900, 50, Side.BUY);
        w.orderExecuted().exchangeSequence(4).exchangeTimestamp(T0 + 4).instrumentId(1).orderId(10).matchNumber(6001)
            .executedShares(30);
        c.packet(0, SESSION + 1, w.finish());
        w.begin(0, 3, T0 + 5);
        add(w, 3, 13, 1_000_500, 40, Side.SELL);
        c.packet(0, SESSION, w.finish()); // the old publication, late: dropped

        final SnapshotStream old = new SnapshotStream(c, 0, SNAPSHOT_SESSION, 5);
        old.begin(T0 + 101); // a snapshot of the old publication's incrementals
        snapshotBegin(w, 0, 3, 2, SESSION, 2);
        snapshotInstrument(w, 1, 3, 2, 1, 2, 2);
        snapshotOrder(w, 1, 10, 1_000_000, 100, Side.BUY, "    ", 2);
        snapshotOrder(w, 1, 11, 1_000_100, 100, Side.SELL, "    ", 2);
        snapshotEnd(w, 3, 2, 2, 1, 2, 3, 2);
        old.send();

        final SnapshotStream snapshots = new SnapshotStream(c, 0, SNAPSHOT_SESSION + 1, 1);
        snapshots.begin(T0 + 110); // the new fanout's first snapshot, as of its stream's 1
        snapshotBegin(w, 0, 1, 1, SESSION + 1, 3);
        snapshotInstrument(w, 1, 1, 1, 1, 3, 3);
        snapshotOrder(w, 1, 10, 1_000_000, 100, Side.BUY, "    ", 3);
        snapshotOrder(w, 1, 11, 1_000_100, 100, Side.SELL, "    ", 3);
        snapshotOrder(w, 1, 12, 999_900, 50, Side.BUY, "    ", 3);
        snapshotEnd(w, 1, 1, 2, 1, 3, 4, 3);
        snapshots.send();

        w.begin(0, 4, T0 + 6);
        add(w, 4, 14, 1_000_600, 10, Side.SELL);
        c.packet(0, SESSION, w.finish()); // the old publication, late again: dropped
        w.begin(0, 3, T0 + 120);
        w.orderDelete().exchangeSequence(5).exchangeTimestamp(T0 + 5).instrumentId(1).orderId(11);
        c.packet(0, SESSION + 1, w.finish());
        return c.bytes();
    }

    /**
     * A recovery buffer of 256 bytes, room for one of this case's packets (183 bytes): the subscriber joins late at 3
     * (stale LATE_JOIN) and holds 3..5 back; the next packet does not fit: stale RECOVERY_BUFFER_OVERFLOW, what was
     * held back dropped, buffering restarted from 6. A snapshot as of 4, recent enough before the overflow, is now
     * too old (ignored); one as of 6 applies: the held-back 6 is in it (skipped), 7 and 8 delivered, RECOVERED.
     * Then a loss (stale GAP) and a packet larger than the whole buffer (stale RECOVERY_BUFFER_OVERFLOW): it cannot be
     * held back, so it is lost like the one before: a snapshot as of the sequence before it is too old (ignored), one
     * that holds it applies.
     */
    private static byte[] recoveryOverflow()
    {
        final Case c = new Case(1, 256);
        final PacketWriter w = c.writer;
        w.begin(0, 3, T0);
        add(w, 3, 10, 1_000_000, 100, Side.BUY);
        add(w, 4, 11, 1_000_100, 100, Side.SELL);
        add(w, 5, 12, 999_900, 50, Side.BUY);
        c.packet(0, SESSION, w.finish());
        w.begin(0, 6, T0 + 6);
        add(w, 6, 13, 999_800, 40, Side.BUY);
        add(w, 7, 14, 1_000_200, 60, Side.SELL);
        add(w, 8, 15, 1_000_300, 70, Side.SELL);
        c.packet(0, SESSION, w.finish());

        final SnapshotStream snapshots = new SnapshotStream(c, 0, SNAPSHOT_SESSION, 1);
        snapshots.begin(T0 + 10); // as of 4: older than 6, where buffering restarted
        snapshotBegin(w, 0, 1, 4, SESSION, 4);
        snapshotInstrument(w, 1, 1, 4, 1, 2, 4);
        snapshotOrder(w, 1, 10, 1_000_000, 100, Side.BUY, "    ", 4);
        snapshotOrder(w, 1, 11, 1_000_100, 100, Side.SELL, "    ", 4);
        snapshotEnd(w, 1, 4, 2, 1, 2, 3, 4);
        snapshots.send();
        snapshots.begin(T0 + 20);
        snapshotBegin(w, 0, 2, 6, SESSION, 6);
        snapshotInstrument(w, 1, 2, 6, 1, 4, 6);
        snapshotOrder(w, 1, 10, 1_000_000, 100, Side.BUY, "    ", 6);
        snapshotOrder(w, 1, 11, 1_000_100, 100, Side.SELL, "    ", 6);
        snapshotOrder(w, 1, 12, 999_900, 50, Side.BUY, "    ", 6);
        snapshotOrder(w, 1, 13, 999_800, 40, Side.BUY, "    ", 6);
        snapshotEnd(w, 2, 6, 2, 1, 4, 5, 6);
        snapshots.send();

        w.begin(0, 9, T0 + 30);
        w.orderDelete().exchangeSequence(9).exchangeTimestamp(T0 + 9).instrumentId(1).orderId(10);
        c.packet(0, SESSION, w.finish());

        // 10 lost (AddOrder 16), then a packet larger than the whole buffer (11 to 15): a loss like any other, so a
        // snapshot as of 14 does not recover the partition (it lacks the packet's last add); one as of 15 does.
        w.begin(0, 11, T0 + 40);
        for (int i = 0; i < 5; i++)
        {
            add(w, 11 + i, 20 + i, 1_001_000 + i * 100L, 10, Side.SELL);
        }
        c.packet(0, SESSION, w.finish());
        for (final long asOf : new long[] {14, 15})
        {
            final long snapshotId = asOf - 11;
            final int orders = (int)(asOf - 4);
            snapshots.begin(T0 + 40 + asOf);
            snapshotBegin(w, 0, snapshotId, asOf, SESSION, asOf);
            snapshotInstrument(w, 1, snapshotId, asOf, 1, orders, asOf);
            snapshotOrder(w, 1, 11, 1_000_100, 100, Side.SELL, "    ", asOf);
            snapshotOrder(w, 1, 12, 999_900, 50, Side.BUY, "    ", asOf);
            snapshotOrder(w, 1, 13, 999_800, 40, Side.BUY, "    ", asOf);
            snapshotOrder(w, 1, 14, 1_000_200, 60, Side.SELL, "    ", asOf);
            snapshotOrder(w, 1, 15, 1_000_300, 70, Side.SELL, "    ", asOf);
            snapshotOrder(w, 1, 16, 999_700, 30, Side.BUY, "    ", asOf);
            for (int i = 0; i < asOf - 10; i++)
            {
                snapshotOrder(w, 1, 20 + i, 1_001_000 + i * 100L, 10, Side.SELL, "    ", asOf);
            }
            snapshotEnd(w, snapshotId, asOf, 2, 1, orders, orders + 1, asOf);
            snapshots.send();
        }
        w.begin(0, 16, T0 + 60);
        w.orderDelete().exchangeSequence(16).exchangeTimestamp(T0 + 16).instrumentId(1).orderId(20);
        c.packet(0, SESSION, w.finish());
        return c.bytes();
    }

    /**
     * The source goes down while a partition recovers: after a gap (stale GAP) a heartbeat says FEED_HANDLER_DOWN
     * (stale SOURCE_DOWN); the snapshot applies, its held-back message is delivered, but the partition is not good
     * (no RECOVERED) while the source is down: a second FEED_HANDLER_DOWN changes nothing, a LIVE heartbeat ends it:
     * RECOVERED with the snapshot applied. Then a source outage on a good partition (stale SOURCE_DOWN), a heartbeat
     * past a loss (GAP, stale GAP), a snapshot applied while the source is still down (a heartbeat says so again), and
     * data, which says the source is live: RECOVERED before the message is delivered.
     */
    private static byte[] sourceDownRecovery()
    {
        final Case c = new Case(1, RECOVERY_BUFFER_BYTES);
        final PacketWriter w = c.writer;
        w.begin(0, 1, T0);
        add(w, 1, 10, 1_000_000, 100, Side.BUY);
        c.packet(0, SESSION, w.finish());
        // 2 and 3 lost: AddOrder 11 (SELL 1_000_100 x 100), OrderExecuted 10 (40)
        w.begin(0, 4, T0 + 4);
        add(w, 4, 12, 999_900, 50, Side.BUY);
        c.packet(0, SESSION, w.finish());
        c.heartbeat(0, 5, T0 + 5, SourceStatus.FEED_HANDLER_DOWN);

        final SnapshotStream snapshots = new SnapshotStream(c, 0, SNAPSHOT_SESSION, 1);
        snapshots.begin(T0 + 6);
        snapshotBegin(w, 0, 1, 3, SESSION, 3);
        snapshotInstrument(w, 1, 1, 3, 1, 2, 3);
        snapshotOrder(w, 1, 10, 1_000_000, 60, Side.BUY, "    ", 3);
        snapshotOrder(w, 1, 11, 1_000_100, 100, Side.SELL, "    ", 3);
        snapshotEnd(w, 1, 3, 2, 1, 2, 3, 3);
        snapshots.send();
        c.heartbeat(0, 5, T0 + 7, SourceStatus.FEED_HANDLER_DOWN); // the same outage
        c.heartbeat(0, 5, T0 + 8, SourceStatus.LIVE);
        w.begin(0, 5, T0 + 9);
        w.orderDelete().exchangeSequence(5).exchangeTimestamp(T0 + 5).instrumentId(1).orderId(11);
        c.packet(0, SESSION, w.finish());

        c.heartbeat(0, 6, T0 + 10, SourceStatus.FEED_HANDLER_DOWN);
        // 6 lost: OrderCancel 12 (10)
        c.heartbeat(0, 7, T0 + 11, SourceStatus.FEED_HANDLER_DOWN);
        final SnapshotStream later = new SnapshotStream(c, 0, SNAPSHOT_SESSION, 11); // subscribed again, further on
        later.begin(T0 + 12);
        snapshotBegin(w, 0, 3, 6, SESSION, 6);
        snapshotInstrument(w, 1, 3, 6, 1, 2, 6);
        snapshotOrder(w, 1, 10, 1_000_000, 60, Side.BUY, "    ", 6);
        snapshotOrder(w, 1, 12, 999_900, 40, Side.BUY, "    ", 6);
        snapshotEnd(w, 3, 6, 2, 1, 2, 3, 6);
        later.send();
        c.heartbeat(0, 7, T0 + 13, SourceStatus.FEED_HANDLER_DOWN); // still down: not good yet
        w.begin(0, 7, T0 + 14);
        add(w, 7, 13, 1_000_300, 25, Side.SELL);
        c.packet(0, SESSION, w.finish());
        return c.bytes();
    }

    /**
     * Both sides of a pair deliver the same stream of two partitions, interleaved, each packed its own way: a message
     * is delivered once, from the side whose copy came first (its {@code sent=} says which), the other side's copy
     * dropped as a duplicate (and compared: the same bytes); a packet whose first messages the other side delivered
     * gives only the rest. Side B joins later than side A: on partition 0 from the session's start (all duplicates),
     * on partition 1 in mid-stream (its first packet links to what A delivered, nothing is missing). Heartbeats of
     * both sides, at and behind what was delivered, say nothing is missing; the clock passing the wait changes nothing.
     */
    private static byte[] pairArbitration()
    {
        final Case c = Case.pair(2, ARBITRATION_WAIT_NS);
        final PacketWriter w = c.writer;
        final SideStream a0 = new SideStream(c, SIDE_A, 0, SESSION);
        final SideStream a1 = new SideStream(c, SIDE_A, 1, SESSION);
        final SideStream b0 = new SideStream(c, SIDE_B, 0, SIDE_B_SESSION);
        final SideStream b1 = new SideStream(c, SIDE_B, 1, SIDE_B_SESSION);
        // Partition 0's chain: 1, 2, 4, 6, 8, 10 (instrument 2); partition 1's: 1, 3, 5, 7, 9 (instrument 1).
        a0.begin(0, 1);
        startOfMessages(w);
        addOrder(w, 2, 2, 20, 1_500_000, 100, Side.BUY);
        a0.send();
        a1.begin(0, 2);
        startOfMessages(w);
        addOrder(w, 1, 3, 10, 1_000_000, 100, Side.BUY);
        a1.send();
        a0.begin(2, 3);
        addOrder(w, 2, 4, 21, 1_501_000, 200, Side.SELL);
        a0.send();

        c.time(1_000_000);
        b0.begin(0, 1);
        startOfMessages(w);
        addOrder(w, 2, 2, 20, 1_500_000, 100, Side.BUY);
        b0.send();
        b0.begin(2, 3);
        addOrder(w, 2, 4, 21, 1_501_000, 200, Side.SELL);
        w.orderExecuted().exchangeSequence(6).exchangeTimestamp(T0 + 6).instrumentId(2).orderId(20).matchNumber(9001)
            .executedShares(40);
        b0.send();
        a0.begin(4, 6);
        w.orderExecuted().exchangeSequence(6).exchangeTimestamp(T0 + 6).instrumentId(2).orderId(20).matchNumber(9001)
            .executedShares(40);
        addOrder(w, 2, 8, 22, 1_499_000, 50, Side.BUY);
        a0.send();
        b1.begin(3, 5);
        addOrder(w, 1, 5, 11, 1_000_100, 100, Side.SELL);
        b1.send();
        a1.begin(3, 5);
        addOrder(w, 1, 5, 11, 1_000_100, 100, Side.SELL);
        w.orderCancel().exchangeSequence(7).exchangeTimestamp(T0 + 7).instrumentId(1).orderId(10).cancelledShares(30);
        a1.send();

        c.time(2_000_000);
        a0.heartbeat(9, 8, 2, DAY_ONE);
        b0.begin(6, 8);
        addOrder(w, 2, 8, 22, 1_499_000, 50, Side.BUY);
        b0.send();
        b0.heartbeat(9, 8, 2, DAY_ONE);
        b1.begin(5, 9);
        w.orderCancel().exchangeSequence(7).exchangeTimestamp(T0 + 7).instrumentId(1).orderId(10).cancelledShares(30);
        w.orderDelete().exchangeSequence(9).exchangeTimestamp(T0 + 9).instrumentId(1).orderId(11);
        b1.send();
        a1.begin(7, 9);
        w.orderDelete().exchangeSequence(9).exchangeTimestamp(T0 + 9).instrumentId(1).orderId(11);
        a1.send();
        a1.heartbeat(10, 9, 2, DAY_ONE);
        b1.heartbeat(10, 7, 2, DAY_ONE); // behind what was delivered: nothing missing
        b0.begin(8, 10);
        w.orderReplace().exchangeSequence(10).exchangeTimestamp(T0 + 10).instrumentId(2).originalOrderId(21)
            .newOrderId(23).shares(150).price().mantissa(1_502_000);
        b0.send();
        a0.begin(8, 10);
        w.orderReplace().exchangeSequence(10).exchangeTimestamp(T0 + 10).instrumentId(2).originalOrderId(21)
            .newOrderId(23).shares(150).price().mantissa(1_502_000);
        a0.send();
        c.time(40_000_000);
        return c.bytes();
    }

    /**
     * Loss on a pair's sides, the arbitration wait 20 ms: side A loses a packet (4 and 5) that side B has: A's next
     * packet waits, B's copy fills the span at once, then A's waiting packet is delivered, no gap; side B loses 7 that
     * A has (B's packet waits, A's copy of 7 and 8 is delivered, B's 8 is a duplicate). Both lose 9 and 10: each
     * side's next packet waits, and the clock one nanosecond short of the wait changes nothing; at the wait's end a
     * GAP, and the packets go on (B's a duplicate). A loses 12, and B's copy arrives in the wait's last nanosecond: no
     * gap. A loses 14, which its heartbeat says it sent, and B lags: the wait, then a GAP on the clock alone at the
     * wait's end exactly; B's copy of 14, after it, is a duplicate. Both sides' feed handlers declare the same exchange
     * gap (a GapNotice of 16..17): each side's notice waits for the other side to have those messages; at the wait's
     * end A's is delivered once (stale EXCHANGE_GAP), B's is a duplicate.
     */
    private static byte[] pairLoss()
    {
        final Case c = Case.pair(1, ARBITRATION_WAIT_NS);
        final PacketWriter w = c.writer;
        final SideStream a = new SideStream(c, SIDE_A, 0, SESSION);
        final SideStream b = new SideStream(c, SIDE_B, 0, SIDE_B_SESSION);
        for (final SideStream side : new SideStream[] {a, b})
        {
            side.begin(0, 1);
            startOfMessages(w);
            add(w, 2, 10, 1_000_000, 100, Side.BUY);
            add(w, 3, 11, 1_000_100, 100, Side.SELL);
            side.send();
        }

        c.time(1_000_000);
        a.begin(3, 4);
        add(w, 4, 12, 999_900, 50, Side.BUY);
        add(w, 5, 13, 1_000_200, 70, Side.SELL);
        a.lose();
        a.begin(5, 6);
        add(w, 6, 14, 1_000_300, 80, Side.SELL);
        a.send(); // waits: it does not link to 3
        b.begin(3, 4);
        add(w, 4, 12, 999_900, 50, Side.BUY);
        add(w, 5, 13, 1_000_200, 70, Side.SELL);
        b.send(); // 4 and 5 from B, then A's 6
        b.begin(5, 6);
        add(w, 6, 14, 1_000_300, 80, Side.SELL);
        b.send();

        c.time(2_000_000);
        b.begin(6, 7);
        add(w, 7, 15, 999_800, 40, Side.BUY);
        b.lose();
        b.begin(7, 8);
        add(w, 8, 16, 1_000_400, 30, Side.SELL);
        b.send(); // waits
        a.begin(6, 7);
        add(w, 7, 15, 999_800, 40, Side.BUY);
        add(w, 8, 16, 1_000_400, 30, Side.SELL);
        a.send(); // 7 and 8 from A; B's 8 a duplicate

        c.time(3_000_000);
        for (final SideStream side : new SideStream[] {a, b})
        {
            side.begin(8, 9);
            add(w, 9, 17, 999_700, 20, Side.BUY);
            w.orderExecuted().exchangeSequence(10).exchangeTimestamp(T0 + 10).instrumentId(1).orderId(10)
                .matchNumber(9001).executedShares(25);
            side.lose();
        }
        for (final SideStream side : new SideStream[] {a, b})
        {
            side.begin(10, 11);
            add(w, 11, 18, 1_000_500, 10, Side.SELL);
            side.send(); // both wait
        }
        c.time(3_000_000 + ARBITRATION_WAIT_NS - 1);
        c.time(3_000_000 + ARBITRATION_WAIT_NS); // GAP 9..10, then A's 11; B's a duplicate

        c.time(24_000_000);
        a.begin(11, 12);
        add(w, 12, 19, 999_600, 15, Side.BUY);
        a.lose();
        a.begin(12, 13);
        add(w, 13, 20, 1_000_600, 15, Side.SELL);
        a.send(); // waits
        c.time(24_000_000 + ARBITRATION_WAIT_NS - 1); // the wait's last nanosecond: still waiting
        b.begin(11, 12);
        add(w, 12, 19, 999_600, 15, Side.BUY);
        add(w, 13, 20, 1_000_600, 15, Side.SELL);
        b.send(); // 12 and 13 from B within the wait: no gap

        c.time(50_000_000);
        a.begin(13, 14);
        w.orderCancel().exchangeSequence(14).exchangeTimestamp(T0 + 14).instrumentId(1).orderId(11).cancelledShares(5);
        a.lose();
        a.heartbeat(51, 14, 1, DAY_ONE); // A sent 14: missing here
        b.heartbeat(51, 13, 1, DAY_ONE); // B, lagging, has not sent it yet
        c.time(50_000_000 + ARBITRATION_WAIT_NS); // GAP 14..14 on the clock alone, at the wait's end exactly
        b.begin(13, 14);
        w.orderCancel().exchangeSequence(14).exchangeTimestamp(T0 + 14).instrumentId(1).orderId(11).cancelledShares(5);
        b.send(); // too late: a duplicate of what the gap passed over
        for (final SideStream side : new SideStream[] {a, b})
        {
            side.begin(14, 71);
            add(w, 15, 21, 999_500, 5, Side.BUY);
            side.send();
        }

        c.time(71_000_000);
        for (final SideStream side : new SideStream[] {a, b})
        {
            side.begin(15, 72);
            w.gapNotice().exchangeSequence(16).exchangeTimestamp(T0 + 16).instrumentId(0).lastMissingSequence(17)
                .reason(GapReason.UNRECOVERED);
            add(w, 18, 22, 1_000_700, 5, Side.SELL);
            side.send(); // the notice waits: the other side may have 16..17
        }
        c.time(71_000_000 + ARBITRATION_WAIT_NS);
        return c.bytes();
    }

    /**
     * Side A's fanout restarts while side B carries on: B alone delivers 4 and 5 meanwhile; A's new publication
     * (another session id, its stream sequences from 1 again) resumes its chain from its state at 3: its heartbeat
     * and its copies of 4 and 5 are behind (duplicates), its 6 comes first; a late packet of A's old publication is a
     * duplicate too. Nothing lost, no stale. A's feed handler declares 7..8 lost (a GapNotice) which B's has: A's
     * notice waits, B's messages are delivered, the notice is a duplicate (no EXCHANGE_GAP). Then B's fanout restarts
     * without a state: its new publication's first packet cannot say where the chain stood (no
     * previousExchangeSequence), and links by its first message.
     */
    private static byte[] pairRestart()
    {
        final Case c = Case.pair(1, ARBITRATION_WAIT_NS);
        final PacketWriter w = c.writer;
        final SideStream a = new SideStream(c, SIDE_A, 0, SESSION);
        final SideStream b = new SideStream(c, SIDE_B, 0, SIDE_B_SESSION);
        for (final SideStream side : new SideStream[] {a, b})
        {
            side.begin(0, 1);
            startOfMessages(w);
            add(w, 2, 10, 1_000_000, 100, Side.BUY);
            side.send();
        }
        for (final SideStream side : new SideStream[] {a, b})
        {
            side.begin(2, 2);
            add(w, 3, 11, 1_000_100, 100, Side.SELL);
            side.send();
        }

        c.time(1_000_000); // A's fanout is killed
        b.begin(3, 4);
        add(w, 4, 12, 999_900, 50, Side.BUY);
        b.send();
        b.begin(4, 5);
        add(w, 5, 13, 1_000_200, 70, Side.SELL);
        b.send();
        b.heartbeat(6, 5, 1, DAY_ONE);

        c.time(5_000_000);
        final SideStream restarted = a.restart(SESSION + 1);
        restarted.heartbeat(7, 3, 1, DAY_ONE); // its state's chain: behind what B delivered
        restarted.begin(3, 8);
        add(w, 4, 12, 999_900, 50, Side.BUY);
        add(w, 5, 13, 1_000_200, 70, Side.SELL);
        add(w, 6, 14, 1_000_300, 80, Side.SELL);
        restarted.send();
        a.begin(2, 2); // the old publication's packet, late
        add(w, 3, 11, 1_000_100, 100, Side.SELL);
        a.send();
        b.begin(5, 9);
        add(w, 6, 14, 1_000_300, 80, Side.SELL);
        b.send();

        c.time(6_000_000);
        restarted.begin(6, 10);
        w.gapNotice().exchangeSequence(7).exchangeTimestamp(T0 + 7).instrumentId(0).lastMissingSequence(8)
            .reason(GapReason.UNRECOVERED);
        add(w, 9, 15, 999_800, 40, Side.BUY);
        restarted.send(); // the notice waits for B
        b.begin(6, 10);
        w.orderExecuted().exchangeSequence(7).exchangeTimestamp(T0 + 7).instrumentId(1).orderId(10).matchNumber(9001)
            .executedShares(30);
        w.orderDelete().exchangeSequence(8).exchangeTimestamp(T0 + 8).instrumentId(1).orderId(11);
        add(w, 9, 15, 999_800, 40, Side.BUY);
        b.send();
        c.time(30_000_000);

        restarted.begin(9, 31);
        add(w, 10, 16, 1_000_400, 20, Side.SELL);
        restarted.send();
        final SideStream restartedB = b.restart(SIDE_B_SESSION + 1); // without a state: it cannot say what came before
        restartedB.begin(PacketHeaderEncoder.previousExchangeSequenceNullValue(), 32);
        add(w, 10, 16, 1_000_400, 20, Side.SELL);
        add(w, 11, 17, 999_700, 10, Side.BUY);
        restartedB.send();
        restarted.begin(10, 33);
        add(w, 11, 17, 999_700, 10, Side.BUY);
        restarted.send();
        return c.bytes();
    }

    /**
     * The sides disagree, and the side that does is refused loudly (counted, reported once per change) while side A
     * serves throughout. Side B is first an older fanout (schema version 3: no chain): its heartbeat and packets are
     * refused until it publishes version 4. Then it announces another partition count, then another exchange session:
     * each time refused, its packets dropped, until a heartbeat agrees again. Then its copy of chain position 8
     * differs from A's delivered one, byte for byte: B is refused (a mismatch) until the next trading day, its
     * heartbeats ignored by the arbitration. The exchange ends the day (End of Messages); side A's next day, from its
     * heartbeat of the new exchange session, starts a new day (NEW_DAY, B taken again); B still sends the day that
     * ended (its packet dropped as an old session's) until it starts the new day too.
     */
    private static byte[] pairDisagree()
    {
        final Case c = Case.pair(1, ARBITRATION_WAIT_NS);
        final PacketWriter w = c.writer;
        final SideStream a = new SideStream(c, SIDE_A, 0, SESSION);
        final SideStream older = new SideStream(c, SIDE_B, 0, SIDE_B_SESSION);
        a.begin(0, 1);
        startOfMessages(w);
        add(w, 2, 10, 1_000_000, 100, Side.BUY);
        a.send();
        a.heartbeat(2, 2, 1, DAY_ONE);
        older.heartbeatOfVersionThree(2);
        older.begin(0, 3);
        startOfMessages(w);
        add(w, 2, 10, 1_000_000, 100, Side.BUY);
        older.sendAsVersionThree();
        a.begin(2, 4);
        add(w, 3, 11, 1_000_100, 100, Side.SELL);
        a.send();
        older.begin(2, 4);
        add(w, 3, 11, 1_000_100, 100, Side.SELL);
        older.sendAsVersionThree();

        c.time(1_000_000);
        final SideStream b = older.restart(SIDE_B_SESSION + 1); // upgraded: version 4
        b.heartbeat(5, 3, 1, DAY_ONE);
        b.begin(3, 6);
        add(w, 4, 12, 999_900, 50, Side.BUY);
        b.send();
        a.begin(3, 6);
        add(w, 4, 12, 999_900, 50, Side.BUY);
        add(w, 5, 13, 1_000_200, 70, Side.SELL);
        a.send();

        b.heartbeat(7, 5, 2, DAY_ONE); // another partition count
        b.begin(5, 8);
        add(w, 6, 14, 1_000_300, 80, Side.SELL);
        b.send();
        a.begin(5, 8);
        add(w, 6, 14, 1_000_300, 80, Side.SELL);
        a.send();
        b.heartbeat(9, 6, 1, DAY_ONE);

        b.heartbeat(10, 6, 1, OTHER_SESSION); // another exchange session
        b.begin(6, 11);
        add(w, 7, 15, 999_800, 40, Side.BUY);
        b.send();
        a.begin(6, 11);
        add(w, 7, 15, 999_800, 40, Side.BUY);
        a.send();
        b.heartbeat(12, 7, 1, DAY_ONE);

        a.begin(7, 13);
        add(w, 8, 16, 1_000_400, 30, Side.SELL);
        a.send();
        b.begin(7, 13);
        add(w, 8, 16, 1_000_500, 30, Side.SELL); // another price: the same identity, other bytes
        b.send();
        b.begin(8, 14);
        add(w, 9, 17, 999_700, 20, Side.BUY);
        b.send();
        a.begin(8, 14);
        add(w, 9, 17, 999_700, 20, Side.BUY);
        a.send();
        b.heartbeat(15, 9, 1, DAY_ONE);
        a.begin(9, 16);
        w.systemEvent().exchangeSequence(10).exchangeTimestamp(T0 + 10).instrumentId(0)
            .eventCode(SystemEventCode.END_OF_MESSAGES);
        a.send();

        c.time(2_000_000);
        final SideStream nextA = a.restart(SESSION + 2);
        nextA.heartbeat(86_400, 0, 1, DAY_TWO);
        nextA.begin(0, 86_401);
        startOfMessages(w);
        add(w, 2, 30, 1_100_000, 10, Side.BUY);
        nextA.send();
        b.begin(9, 16); // B, behind: the end of the day that ended
        w.systemEvent().exchangeSequence(10).exchangeTimestamp(T0 + 10).instrumentId(0)
            .eventCode(SystemEventCode.END_OF_MESSAGES);
        b.send();
        b.heartbeat(18, 10, 1, DAY_ONE);
        final SideStream nextB = b.restart(SIDE_B_SESSION + 2);
        nextB.heartbeat(86_402, 0, 1, DAY_TWO);
        nextB.begin(0, 86_403);
        startOfMessages(w);
        add(w, 2, 30, 1_100_000, 10, Side.BUY);
        add(w, 3, 31, 1_100_100, 10, Side.SELL);
        nextB.send();
        return c.bytes();
    }

    /**
     * The exchange ends the day, and side A starts the next day's chain with a packet (from 0) before any heartbeat names
     * the new exchange session: a new day, joined at 1. Side B, behind, still sends the day that ended (its heartbeat
     * names the session the partition left: behind, not wrong); then side A's heartbeat names the new session, which is
     * taken as the new day's (refused, the pair would deliver nothing of side A for the rest of the day); then side B
     * starts the new day too and delivers what side A has not sent yet.
     */
    private static byte[] pairNewDay()
    {
        final Case c = Case.pair(1, ARBITRATION_WAIT_NS);
        final PacketWriter w = c.writer;
        final SideStream a = new SideStream(c, SIDE_A, 0, SESSION);
        final SideStream b = new SideStream(c, SIDE_B, 0, SIDE_B_SESSION);
        a.heartbeat(1, 0, 1, DAY_ONE);
        b.heartbeat(2, 0, 1, DAY_ONE);
        for (final SideStream side : new SideStream[] {a, b})
        {
            side.begin(0, 3);
            startOfMessages(w);
            add(w, 2, 10, 1_000_000, 100, Side.BUY);
            side.send();
        }
        for (final SideStream side : new SideStream[] {a, b})
        {
            side.begin(2, 4);
            w.systemEvent().exchangeSequence(3).exchangeTimestamp(T0 + 3).instrumentId(0)
                .eventCode(SystemEventCode.END_OF_MESSAGES);
            side.send();
        }

        c.time(1_000_000);
        final SideStream nextA = a.restart(SESSION + 2);
        nextA.begin(0, 86_400); // the next day's first packet, before a heartbeat says its session
        startOfMessages(w);
        add(w, 2, 30, 1_100_000, 10, Side.BUY);
        nextA.send();
        b.heartbeat(86_401, 3, 1, DAY_ONE); // behind: the day the partition left
        nextA.heartbeat(86_402, 2, 1, DAY_TWO); // the new day's session: taken
        nextA.begin(2, 86_403);
        add(w, 3, 31, 1_100_100, 10, Side.SELL);
        nextA.send();
        final SideStream nextB = b.restart(SIDE_B_SESSION + 2);
        nextB.heartbeat(86_404, 0, 1, DAY_TWO);
        nextB.begin(0, 86_405);
        startOfMessages(w);
        add(w, 2, 30, 1_100_000, 10, Side.BUY);
        add(w, 3, 31, 1_100_100, 10, Side.SELL);
        add(w, 4, 32, 1_099_900, 5, Side.BUY);
        nextB.send();
        nextA.heartbeat(86_406, 3, 1, DAY_TWO);
        return c.bytes();
    }

    /**
     * A snapshot newer than what the stream has delivered: after a loss (stale GAP) and one held-back packet, the
     * snapshot applied is as of 8, past the held-back 5 and 6; the next packet starts at 9, so 7 and 8 never came, but
     * the snapshot holds them: no gap (counted as filtered), and 9 is delivered.
     */
    private static byte[] snapshotAhead()
    {
        final Case c = new Case(1, RECOVERY_BUFFER_BYTES);
        final PacketWriter w = c.writer;
        w.begin(0, 1, T0);
        add(w, 1, 10, 1_000_000, 100, Side.BUY);
        add(w, 2, 11, 1_000_100, 100, Side.SELL);
        c.packet(0, SESSION, w.finish());
        // 3 and 4 lost
        w.begin(0, 5, T0 + 5);
        add(w, 5, 14, 999_800, 10, Side.BUY);
        add(w, 6, 15, 1_000_300, 10, Side.SELL);
        c.packet(0, SESSION, w.finish());

        final SnapshotStream snapshots = new SnapshotStream(c, 0, SNAPSHOT_SESSION, 1);
        snapshots.begin(T0 + 20);
        snapshotBegin(w, 0, 1, 8, SESSION, 8);
        snapshotInstrument(w, 1, 1, 8, 1, 3, 8);
        snapshotOrder(w, 1, 10, 1_000_000, 100, Side.BUY, "    ", 8);
        snapshotOrder(w, 1, 15, 1_000_300, 10, Side.SELL, "    ", 8);
        snapshotOrder(w, 1, 17, 1_000_500, 10, Side.SELL, "    ", 8);
        snapshotEnd(w, 1, 8, 2, 1, 3, 4, 8);
        snapshots.send();

        w.begin(0, 9, T0 + 30);
        add(w, 9, 18, 999_500, 10, Side.BUY);
        c.packet(0, SESSION, w.finish());
        return c.bytes();
    }

    /** The market's last SystemEvent, as a snapshot re-sends it. */
    private static void startOfMessages(final PacketWriter w)
    {
        w.systemEvent().exchangeSequence(1).exchangeTimestamp(T0).instrumentId(0).eventCode(SystemEventCode.START_OF_MESSAGES);
    }

    /** snapshot-recovery's instrument 1 as of stream sequence 4: its orders 10, 11 and 12, whole. */
    private static void instrumentOneAsOfFour(final PacketWriter w, final long snapshotId)
    {
        snapshotInstrument(w, 1, snapshotId, 4, 1, 3, 4);
        snapshotOrder(w, 1, 10, 1_000_000, 100, Side.BUY, "    ", 4);
        snapshotOrder(w, 1, 11, 1_000_100, 100, Side.SELL, "    ", 4);
        snapshotOrder(w, 1, 12, 999_900, 50, Side.BUY, "    ", 4);
    }

    /**
     * A SnapshotBegin of schema version 3 whose state lacks nothing (its unrecovered range 0..0), the partition's
     * chain at {@code exchangeSequence}.
     */
    private static SnapshotBeginEncoder snapshotBegin(
        final PacketWriter w,
        final int partition,
        final long snapshotId,
        final long lastStreamSequence,
        final int incrementalSessionId,
        final long exchangeSequence)
    {
        return w.snapshotBegin().exchangeSequence(exchangeSequence).exchangeTimestamp(T0 + exchangeSequence)
            .instrumentId(0).snapshotId(snapshotId).lastStreamSequence(lastStreamSequence)
            .incrementalSessionId(incrementalSessionId).partitionId(partition)
            .unrecoveredFromSequence(0).unrecoveredToSequence(0);
    }

    private static void snapshotInstrument(
        final PacketWriter w,
        final long instrumentId,
        final long snapshotId,
        final long lastStreamSequence,
        final long coveredFromInstrumentId,
        final int orderCount,
        final long exchangeSequence)
    {
        w.snapshotInstrument().exchangeSequence(exchangeSequence).exchangeTimestamp(T0 + exchangeSequence)
            .instrumentId(instrumentId).snapshotId(snapshotId).lastStreamSequence(lastStreamSequence)
            .coveredFromInstrumentId(coveredFromInstrumentId).orderCount(orderCount);
    }

    private static void snapshotOrder(
        final PacketWriter w,
        final long instrumentId,
        final long orderId,
        final long price,
        final long shares,
        final Side side,
        final String attribution,
        final long exchangeSequence)
    {
        w.snapshotOrder().exchangeSequence(exchangeSequence).exchangeTimestamp(T0 + exchangeSequence)
            .instrumentId(instrumentId).orderId(orderId).shares(shares).side(side).attribution(attribution)
            .price().mantissa(price);
    }

    /** A SnapshotEnd: ids from {@code coveredFrom} as of {@code lastStreamSequence}, and what the snapshot held. */
    private static void snapshotEnd(
        final PacketWriter w,
        final long snapshotId,
        final long lastStreamSequence,
        final long coveredFromInstrumentId,
        final int instrumentCount,
        final int orderCount,
        final int messageCount,
        final long exchangeSequence)
    {
        w.snapshotEnd().exchangeSequence(exchangeSequence).exchangeTimestamp(T0 + exchangeSequence).instrumentId(0)
            .snapshotId(snapshotId).lastStreamSequence(lastStreamSequence)
            .coveredFromInstrumentId(coveredFromInstrumentId).instrumentCount(instrumentCount).orderCount(orderCount)
            .messageCount(messageCount);
    }

    private static void add(
        final PacketWriter w, final long exchangeSequence, final long orderId, final long price, final long shares,
        final Side side)
    {
        addOrder(w, 1, exchangeSequence, orderId, price, shares, side);
    }

    private static void addOrder(
        final PacketWriter w,
        final long instrumentId,
        final long exchangeSequence,
        final long orderId,
        final long price,
        final long shares,
        final Side side)
    {
        w.addOrder().exchangeSequence(exchangeSequence).exchangeTimestamp(T0 + exchangeSequence).instrumentId(instrumentId)
            .orderId(orderId).shares(shares).side(side).price().mantissa(price);
    }

    /** A case being written. */
    private static final class Case
    {
        final PacketWriter writer = new PacketWriter();
        final ByteArrayOutputStream out = new ByteArrayOutputStream();

        /** A case played with recovery off. */
        Case(final int partitions)
        {
            this(partitions, 0);
        }

        /** A case played with recovery on when {@code recoveryBufferBytes} is more than 0. */
        Case(final int partitions, final int recoveryBufferBytes)
        {
            out.writeBytes(MAGIC);
            out.writeBytes(ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putInt(partitions)
                .putInt(recoveryBufferBytes > 0 ? FLAG_RECOVERY : 0).putInt(recoveryBufferBytes).array());
        }

        private Case()
        {
        }

        /** A case of a pair's two sides, arbitrated with {@code arbitrationWaitNs}, recovery off; its clock starts at 0. */
        static Case pair(final int partitions, final long arbitrationWaitNs)
        {
            final Case c = new Case();
            c.out.writeBytes(MAGIC);
            c.out.writeBytes(ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN).putInt(partitions).putInt(FLAG_PAIR)
                .putInt(0).putLong(arbitrationWaitNs).array());
            return c;
        }

        /** The subscriber's clock moves to {@code nanos}: it does its work then (a pair's waits that ran out end). */
        void time(final long nanos)
        {
            final ByteBuffer time = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(0, nanos);
            record(KIND_TIME, SIDE_A, 0, 0, new UnsafeBuffer(time.array()), 0, Long.BYTES);
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
            record(KIND_INCREMENTAL, partition, sessionId, buffer, offset, length);
        }

        void record(
            final int kind,
            final int partition,
            final int sessionId,
            final DirectBuffer buffer,
            final int offset,
            final int length)
        {
            record(kind, SIDE_A, partition, sessionId, buffer, offset, length);
        }

        void record(
            final int kind,
            final int side,
            final int partition,
            final int sessionId,
            final DirectBuffer buffer,
            final int offset,
            final int length)
        {
            final ByteBuffer header = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
            header.put((byte)kind).put((byte)side).putShort((short)partition).putInt(sessionId).putInt(length);
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

    /**
     * A partition's snapshot stream as one snapshot publication of a fanout sends it: a sequence of its own, one per
     * message from 1, so that a packet lost or cut short shows as a snapshot gap.
     */
    private static final class SnapshotStream
    {
        final Case c;
        final PacketWriter writer;
        final int partition;
        final int sessionId;
        long nextSequence;

        SnapshotStream(final Case c, final int partition, final int sessionId, final long firstSequence)
        {
            this.c = c;
            this.writer = c.writer;
            this.partition = partition;
            this.sessionId = sessionId;
            this.nextSequence = firstSequence;
        }

        /** Start a packet at the stream's next sequence. */
        PacketWriter begin(final long sendingTime)
        {
            return writer.begin(partition, nextSequence, sendingTime);
        }

        /** The packet begun, received. */
        void send()
        {
            c.record(KIND_SNAPSHOT, partition, sessionId, writer.buffer(), 0, sent());
        }

        /** The packet begun, lost: its sequences are missing from the stream. */
        void lose()
        {
            sent();
        }

        /** The packet begun, received without its last byte. */
        void sendTruncated()
        {
            c.record(KIND_SNAPSHOT, partition, sessionId, writer.buffer(), 0, sent() - 1);
        }

        /** A heartbeat on the snapshot stream, which a subscriber passes over. */
        void heartbeat(final long sendingTime)
        {
            c.record(KIND_SNAPSHOT, partition, sessionId, writer.buffer(), 0,
                writer.heartbeat(partition, nextSequence, sendingTime, SourceStatus.LIVE));
        }

        private int sent()
        {
            final int length = writer.finish();
            nextSequence += writer.count();
            return length;
        }
    }

    /**
     * One side of a pair as its fanout publishes one partition: its own publication (Aeron session id), its own stream
     * sequences (one per message from 1, as each fanout numbers its own) and its own sending times (side B's half a
     * millisecond after A's for the same moment), so that a line of the output shows which side's copy won
     * ({@code sent=}). Each packet says where the partition's chain stood before it.
     */
    private static final class SideStream
    {
        /** Side B's sending times lag side A's by this for the same moment. */
        static final long SIDE_B_SENT_LAG = 500_000;

        final Case c;
        final PacketWriter writer;
        final int side;
        final int partition;
        final int sessionId;
        long nextSequence = 1;

        SideStream(final Case c, final int side, final int partition, final int sessionId)
        {
            this.c = c;
            this.writer = c.writer;
            this.side = side;
            this.partition = partition;
            this.sessionId = sessionId;
        }

        /** The side's fanout restarted: a new publication, its stream sequences from 1 again. */
        SideStream restart(final int newSessionId)
        {
            return new SideStream(c, side, partition, newSessionId);
        }

        /**
         * Start a packet at the side's next stream sequence.
         *
         * @param previous the partition's chain before the packet's first message (null: the publication cannot say).
         * @param at       the moment it is sent, in nanoseconds after T0 (side B's lag added).
         */
        PacketWriter begin(final long previous, final long at)
        {
            return writer.begin(partition, nextSequence, sendingTime(at)).previousExchangeSequence(previous);
        }

        /** The packet begun, received. */
        void send()
        {
            c.record(KIND_INCREMENTAL, side, partition, sessionId, writer.buffer(), 0, sent());
        }

        /** The packet begun, lost on the way: this side's subscriber never receives it. */
        void lose()
        {
            sent();
        }

        /** The packet begun, received as a fanout of schema version 3 sends it: no previousExchangeSequence. */
        void sendAsVersionThree()
        {
            final int length = sent();
            final UnsafeBuffer buffer = writer.buffer();
            final int shorter = PacketHeaderEncoder.BLOCK_LENGTH - WireFormat.PACKET_HEADER_V3_BLOCK_LENGTH;
            final byte[] messages = new byte[length - FIRST_MESSAGE];
            buffer.getBytes(FIRST_MESSAGE, messages);
            buffer.putBytes(FIRST_MESSAGE - shorter, messages);
            final MessageHeaderEncoder header = new MessageHeaderEncoder();
            header.wrap(buffer, 0).blockLength(WireFormat.PACKET_HEADER_V3_BLOCK_LENGTH).version(3);
            for (int position = FIRST_MESSAGE - shorter; position < length - shorter; )
            {
                header.wrap(buffer, position).version(3);
                position += MessageHeaderEncoder.ENCODED_LENGTH + (buffer.getShort(position, ByteOrder.LITTLE_ENDIAN) & 0xFFFF);
            }
            c.record(KIND_INCREMENTAL, side, partition, sessionId, buffer, 0, length - shorter);
        }

        /**
         * A heartbeat of the side's stream.
         *
         * @param at                   the moment it is sent, in nanoseconds after T0.
         * @param lastExchangeSequence where the side's chain stands.
         * @param partitionCount       the partitions of the feed the side announces.
         * @param exchangeSession      the exchange session the side carries (10 ASCII bytes).
         */
        void heartbeat(final long at, final long lastExchangeSequence, final int partitionCount, final byte[] exchangeSession)
        {
            c.record(KIND_INCREMENTAL, side, partition, sessionId, writer.buffer(), 0, writer.pairHeartbeat(
                partition, nextSequence, sendingTime(at), lastExchangeSequence, partitionCount, exchangeSession));
        }

        /** A heartbeat as a fanout of schema version 3 sends it: live, without the chain's fields. */
        void heartbeatOfVersionThree(final long at)
        {
            writer.heartbeat(partition, nextSequence, sendingTime(at), SourceStatus.LIVE);
            new MessageHeaderEncoder().wrap(writer.buffer(), 0).blockLength(WireFormat.HEARTBEAT_V3_BLOCK_LENGTH).version(3);
            c.record(KIND_INCREMENTAL, side, partition, sessionId, writer.buffer(), 0,
                MessageHeaderEncoder.ENCODED_LENGTH + WireFormat.HEARTBEAT_V3_BLOCK_LENGTH);
        }

        private long sendingTime(final long at)
        {
            return T0 + at + (SIDE_B == side ? SIDE_B_SENT_LAG : 0);
        }

        private int sent()
        {
            final int length = writer.finish();
            nextSequence += writer.count();
            return length;
        }
    }

    /** One record of a case file. */
    record Record(int kind, int side, int partition, int sessionId, byte[] bytes)
    {
        /** @return a time record's time, in nanoseconds. */
        long nanos()
        {
            return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
        }
    }

    /** A case file read: how the subscriber is set up, then what it receives. */
    record CaseFile(int partitionCount, int flags, int recoveryBufferBytes, long arbitrationWaitNs, List<Record> records)
    {
        /** @return true when the subscriber recovers from the snapshot streams. */
        boolean recovery()
        {
            return 0 != (flags & FLAG_RECOVERY);
        }

        /** @return true when the subscriber arbitrates a pair's two sides. */
        boolean pair()
        {
            return 0 != (flags & FLAG_PAIR);
        }
    }

    /**
     * Read a case file: its partition count, flags, recovery buffer, a pair's arbitration wait and records. A file
     * that breaks the format's rules (unknown flags or kinds, a pair with recovery, a side outside a pair, a time
     * record outside a pair or not 8 bytes of partition 0, session 0 and side A) is refused.
     */
    static CaseFile read(final byte[] file)
    {
        final ByteBuffer in = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        final byte[] magic = new byte[MAGIC.length];
        in.get(magic);
        if (!java.util.Arrays.equals(MAGIC, magic))
        {
            throw new IllegalArgumentException("not a conformance case (no MDFCONF2 magic)");
        }
        final int partitionCount = in.getInt();
        final int flags = in.getInt();
        final int recoveryBufferBytes = in.getInt();
        if (0 != (flags & ~(FLAG_RECOVERY | FLAG_PAIR)) || (0 != (flags & FLAG_RECOVERY)) != (recoveryBufferBytes > 0) ||
            (FLAG_RECOVERY | FLAG_PAIR) == flags)
        {
            throw new IllegalArgumentException("unknown flags, a recovery buffer without recovery or a pair with " +
                "recovery: flags=" + flags + " recoveryBufferBytes=" + recoveryBufferBytes);
        }
        final boolean pair = 0 != (flags & FLAG_PAIR);
        final long arbitrationWaitNs = pair ? in.getLong() : 0;
        if (arbitrationWaitNs < 0)
        {
            throw new IllegalArgumentException("a negative arbitration wait: " + arbitrationWaitNs);
        }
        final List<Record> records = new ArrayList<>();
        while (in.hasRemaining())
        {
            final int kind = in.get() & 0xFF;
            final int side = in.get() & 0xFF;
            final int partition = in.getShort() & 0xFFFF;
            final int sessionId = in.getInt();
            final byte[] bytes = new byte[in.getInt()];
            in.get(bytes);
            final boolean known = KIND_INCREMENTAL == kind || (KIND_SNAPSHOT == kind && !pair) ||
                (KIND_TIME == kind && pair && Long.BYTES == bytes.length && 0 == partition && 0 == sessionId);
            if (!known || side > (pair && KIND_TIME != kind ? SIDE_B : SIDE_A))
            {
                throw new IllegalArgumentException("a record of kind " + kind + " side " + side + " partition " +
                    partition + " session " + sessionId + " length " + bytes.length + " in a case with flags " + flags);
            }
            records.add(new Record(kind, side, partition, sessionId, bytes));
        }
        return new CaseFile(partitionCount, flags, recoveryBufferBytes, arbitrationWaitNs, records);
    }
}
