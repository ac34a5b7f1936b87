package io.mdfanout.sdk;

import io.mdfanout.sbe.AddOrderEncoder;
import io.mdfanout.sbe.AddOrderAttributedEncoder;
import io.mdfanout.sbe.BrokenTradeEncoder;
import io.mdfanout.sbe.CrossTradeEncoder;
import io.mdfanout.sbe.GapNoticeEncoder;
import io.mdfanout.sbe.HeartbeatEncoder;
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
import io.mdfanout.sbe.PacketHeaderEncoder;
import io.mdfanout.sbe.RegShoRestrictionEncoder;
import io.mdfanout.sbe.SnapshotBeginEncoder;
import io.mdfanout.sbe.SnapshotEndEncoder;
import io.mdfanout.sbe.SnapshotInstrumentEncoder;
import io.mdfanout.sbe.SnapshotOrderEncoder;
import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.sbe.SystemEventEncoder;
import io.mdfanout.sbe.TradeEncoder;
import io.mdfanout.sbe.TradingStatusEncoder;
import io.mdfanout.wire.WireFormat;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Test publisher's encoder: builds packets (PacketHeader + normalized messages, or a snapshot stream's snapshot and
 * state messages) and heartbeats in the wire format with the generated encoders, into one reused buffer.
 */
public final class PacketWriter
{
    public static final int HEADER_LENGTH = MessageHeaderEncoder.ENCODED_LENGTH;

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64 * 1024));
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final PacketHeaderEncoder packetHeader = new PacketHeaderEncoder();
    private final HeartbeatEncoder heartbeat = new HeartbeatEncoder();
    private final GapNoticeEncoder gapNotice = new GapNoticeEncoder();
    private final SystemEventEncoder systemEvent = new SystemEventEncoder();
    private final InstrumentDirectoryEncoder instrumentDirectory = new InstrumentDirectoryEncoder();
    private final TradingStatusEncoder tradingStatus = new TradingStatusEncoder();
    private final RegShoRestrictionEncoder regShoRestriction = new RegShoRestrictionEncoder();
    private final MwcbDeclineLevelEncoder mwcbDeclineLevel = new MwcbDeclineLevelEncoder();
    private final MwcbStatusEncoder mwcbStatus = new MwcbStatusEncoder();
    private final OperationalHaltEncoder operationalHalt = new OperationalHaltEncoder();
    private final AddOrderEncoder addOrder = new AddOrderEncoder();
    private final AddOrderAttributedEncoder addOrderAttributed = new AddOrderAttributedEncoder();
    private final OrderExecutedEncoder orderExecuted = new OrderExecutedEncoder();
    private final OrderExecutedWithPriceEncoder orderExecutedWithPrice = new OrderExecutedWithPriceEncoder();
    private final OrderCancelEncoder orderCancel = new OrderCancelEncoder();
    private final OrderDeleteEncoder orderDelete = new OrderDeleteEncoder();
    private final OrderReplaceEncoder orderReplace = new OrderReplaceEncoder();
    private final TradeEncoder trade = new TradeEncoder();
    private final CrossTradeEncoder crossTrade = new CrossTradeEncoder();
    private final BrokenTradeEncoder brokenTrade = new BrokenTradeEncoder();
    private final ImbalanceEncoder imbalance = new ImbalanceEncoder();
    private final SnapshotBeginEncoder snapshotBegin = new SnapshotBeginEncoder();
    private final SnapshotInstrumentEncoder snapshotInstrument = new SnapshotInstrumentEncoder();
    private final SnapshotOrderEncoder snapshotOrder = new SnapshotOrderEncoder();
    private final SnapshotEndEncoder snapshotEnd = new SnapshotEndEncoder();
    private static final byte[] BLANK_SESSION = "          ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private int limit;
    private int count;

    public UnsafeBuffer buffer()
    {
        return buffer;
    }

    /** Start a packet: PacketHeader with the first stream sequence; messages appended after it. */
    public PacketWriter begin(final int partition, final long firstSequence, final long sendingTime)
    {
        packetHeader.wrapAndApplyHeader(buffer, 0, header)
            .streamSequence(firstSequence)
            .sendingTime(sendingTime)
            .partitionId(partition)
            .messageCount(0)
            .previousExchangeSequence(PacketHeaderEncoder.previousExchangeSequenceNullValue());
        limit = HEADER_LENGTH + PacketHeaderEncoder.BLOCK_LENGTH;
        count = 0;
        return this;
    }

    /** Where the partition's chain of exchange sequences stood before the packet's first message (schema 4). */
    public PacketWriter previousExchangeSequence(final long chain)
    {
        packetHeader.previousExchangeSequence(chain);
        return this;
    }

    /** Finish the packet: set messageCount to the messages appended. */
    public int finish()
    {
        packetHeader.messageCount(count);
        return limit;
    }

    /** Current length written, without touching messageCount. */
    public int limit()
    {
        return limit;
    }

    /** Number of messages appended. */
    public int count()
    {
        return count;
    }

    /** Write a heartbeat alone, its source status unknown; returns its length. */
    public int heartbeat(final int partition, final long nextSequence, final long sendingTime)
    {
        return heartbeat(partition, nextSequence, sendingTime, SourceStatus.UNKNOWN);
    }

    /** Write a heartbeat alone announcing a source status; returns its length. */
    public int heartbeat(final int partition, final long nextSequence, final long sendingTime, final SourceStatus status)
    {
        heartbeat.wrapAndApplyHeader(buffer, 0, header)
            .nextStreamSequence(nextSequence)
            .sendingTime(sendingTime)
            .partitionId(partition)
            .lastExchangeTimestamp(0)
            .sourceHeartbeatAge(0)
            .sourceStatus(status)
            .lastExchangeSequence(HeartbeatEncoder.lastExchangeSequenceNullValue())
            .partitionCount(0)
            .putExchangeSession(BLANK_SESSION, 0);
        limit = HEADER_LENGTH + HeartbeatEncoder.BLOCK_LENGTH;
        return limit;
    }

    /**
     * Write a heartbeat of one side of a pair: where its chain stands, its partition count and exchange session (10
     * ASCII bytes); returns its length.
     */
    public int pairHeartbeat(
        final int partition,
        final long nextSequence,
        final long sendingTime,
        final long lastExchangeSequence,
        final int partitionCount,
        final byte[] exchangeSession)
    {
        heartbeat(partition, nextSequence, sendingTime, SourceStatus.LIVE);
        heartbeat.lastExchangeSequence(lastExchangeSequence).partitionCount(partitionCount)
            .putExchangeSession(exchangeSession, 0);
        return limit;
    }

    /**
     * Write a heartbeat as a fanout of schema version 1 sent it (no source status), with the given version in
     * its header; returns its length.
     */
    public int heartbeatOfVersionOne(final int partition, final long nextSequence, final int headerVersion)
    {
        heartbeat.wrap(buffer, HEADER_LENGTH).nextStreamSequence(nextSequence).sendingTime(1).partitionId(partition);
        header.wrap(buffer, 0).blockLength(io.mdfanout.wire.WireFormat.HEARTBEAT_V1_BLOCK_LENGTH)
            .templateId(HeartbeatEncoder.TEMPLATE_ID).schemaId(HeartbeatEncoder.SCHEMA_ID).version(headerVersion);
        limit = HEADER_LENGTH + io.mdfanout.wire.WireFormat.HEARTBEAT_V1_BLOCK_LENGTH;
        return limit;
    }

    /** Reserve space for a message of the given block length; returns the header offset. */
    public int reserve(final int blockLength)
    {
        final int offset = limit;
        limit += HEADER_LENGTH + blockLength;
        count++;
        return offset;
    }

    /** Append a GapNotice and return its encoder to fill in. */
    GapNoticeEncoder gapNotice()
    {
        final int offset = reserve(GapNoticeEncoder.BLOCK_LENGTH);
        return gapNotice.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a SystemEvent and return its encoder to fill in. */
    SystemEventEncoder systemEvent()
    {
        final int offset = reserve(SystemEventEncoder.BLOCK_LENGTH);
        return systemEvent.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a InstrumentDirectory and return its encoder to fill in. */
    InstrumentDirectoryEncoder instrumentDirectory()
    {
        final int offset = reserve(InstrumentDirectoryEncoder.BLOCK_LENGTH);
        return instrumentDirectory.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a TradingStatus and return its encoder to fill in. */
    TradingStatusEncoder tradingStatus()
    {
        final int offset = reserve(TradingStatusEncoder.BLOCK_LENGTH);
        return tradingStatus.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a RegShoRestriction and return its encoder to fill in. */
    RegShoRestrictionEncoder regShoRestriction()
    {
        final int offset = reserve(RegShoRestrictionEncoder.BLOCK_LENGTH);
        return regShoRestriction.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a MwcbDeclineLevel and return its encoder to fill in. */
    MwcbDeclineLevelEncoder mwcbDeclineLevel()
    {
        final int offset = reserve(MwcbDeclineLevelEncoder.BLOCK_LENGTH);
        return mwcbDeclineLevel.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a MwcbStatus and return its encoder to fill in. */
    MwcbStatusEncoder mwcbStatus()
    {
        final int offset = reserve(MwcbStatusEncoder.BLOCK_LENGTH);
        return mwcbStatus.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a OperationalHalt and return its encoder to fill in. */
    OperationalHaltEncoder operationalHalt()
    {
        final int offset = reserve(OperationalHaltEncoder.BLOCK_LENGTH);
        return operationalHalt.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a AddOrder and return its encoder to fill in. */
    AddOrderEncoder addOrder()
    {
        final int offset = reserve(AddOrderEncoder.BLOCK_LENGTH);
        return addOrder.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a AddOrderAttributed and return its encoder to fill in. */
    AddOrderAttributedEncoder addOrderAttributed()
    {
        final int offset = reserve(AddOrderAttributedEncoder.BLOCK_LENGTH);
        return addOrderAttributed.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a OrderExecuted and return its encoder to fill in. */
    OrderExecutedEncoder orderExecuted()
    {
        final int offset = reserve(OrderExecutedEncoder.BLOCK_LENGTH);
        return orderExecuted.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a OrderExecutedWithPrice and return its encoder to fill in. */
    OrderExecutedWithPriceEncoder orderExecutedWithPrice()
    {
        final int offset = reserve(OrderExecutedWithPriceEncoder.BLOCK_LENGTH);
        return orderExecutedWithPrice.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a OrderCancel and return its encoder to fill in. */
    OrderCancelEncoder orderCancel()
    {
        final int offset = reserve(OrderCancelEncoder.BLOCK_LENGTH);
        return orderCancel.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a OrderDelete and return its encoder to fill in. */
    OrderDeleteEncoder orderDelete()
    {
        final int offset = reserve(OrderDeleteEncoder.BLOCK_LENGTH);
        return orderDelete.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a OrderReplace and return its encoder to fill in. */
    OrderReplaceEncoder orderReplace()
    {
        final int offset = reserve(OrderReplaceEncoder.BLOCK_LENGTH);
        return orderReplace.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a Trade and return its encoder to fill in. */
    TradeEncoder trade()
    {
        final int offset = reserve(TradeEncoder.BLOCK_LENGTH);
        return trade.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a CrossTrade and return its encoder to fill in. */
    CrossTradeEncoder crossTrade()
    {
        final int offset = reserve(CrossTradeEncoder.BLOCK_LENGTH);
        return crossTrade.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a BrokenTrade and return its encoder to fill in. */
    BrokenTradeEncoder brokenTrade()
    {
        final int offset = reserve(BrokenTradeEncoder.BLOCK_LENGTH);
        return brokenTrade.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a Imbalance and return its encoder to fill in. */
    ImbalanceEncoder imbalance()
    {
        final int offset = reserve(ImbalanceEncoder.BLOCK_LENGTH);
        return imbalance.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a SnapshotBegin (schema version 3: set its unrecovered range, 0..0 for none) and return its encoder. */
    SnapshotBeginEncoder snapshotBegin()
    {
        final int offset = reserve(SnapshotBeginEncoder.BLOCK_LENGTH);
        return snapshotBegin.wrapAndApplyHeader(buffer, offset, header);
    }

    /**
     * Append a SnapshotBegin as a fanout of schema version 2 writes it, its block ending before the version-3 fields,
     * and return its encoder: set none of those fields, they would overwrite the next message.
     */
    SnapshotBeginEncoder snapshotBeginOfVersionTwo()
    {
        final int offset = reserve(WireFormat.SNAPSHOT_BEGIN_V2_BLOCK_LENGTH);
        header.wrap(buffer, offset).blockLength(WireFormat.SNAPSHOT_BEGIN_V2_BLOCK_LENGTH)
            .templateId(SnapshotBeginEncoder.TEMPLATE_ID).schemaId(SnapshotBeginEncoder.SCHEMA_ID).version(2);
        return snapshotBegin.wrap(buffer, offset + HEADER_LENGTH);
    }

    /** Append a SnapshotInstrument and return its encoder to fill in. */
    SnapshotInstrumentEncoder snapshotInstrument()
    {
        final int offset = reserve(SnapshotInstrumentEncoder.BLOCK_LENGTH);
        return snapshotInstrument.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a SnapshotOrder and return its encoder to fill in. */
    SnapshotOrderEncoder snapshotOrder()
    {
        final int offset = reserve(SnapshotOrderEncoder.BLOCK_LENGTH);
        return snapshotOrder.wrapAndApplyHeader(buffer, offset, header);
    }

    /** Append a SnapshotEnd and return its encoder to fill in. */
    SnapshotEndEncoder snapshotEnd()
    {
        final int offset = reserve(SnapshotEndEncoder.BLOCK_LENGTH);
        return snapshotEnd.wrapAndApplyHeader(buffer, offset, header);
    }
}
