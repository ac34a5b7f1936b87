package io.mdfanout.feed.normalize;

import io.mdfanout.feed.itch.AddOrderMessage;
import io.mdfanout.feed.itch.AddOrderMpidMessage;
import io.mdfanout.feed.itch.BrokenTradeMessage;
import io.mdfanout.feed.itch.CrossTradeMessage;
import io.mdfanout.feed.itch.ItchMessage;
import io.mdfanout.feed.itch.ItchMessageView;
import io.mdfanout.feed.itch.ItchMessageType;
import io.mdfanout.feed.itch.MwcbDeclineLevelMessage;
import io.mdfanout.feed.itch.MwcbStatusMessage;
import io.mdfanout.feed.itch.NoiiMessage;
import io.mdfanout.feed.itch.OperationalHaltMessage;
import io.mdfanout.feed.itch.OrderCancelMessage;
import io.mdfanout.feed.itch.OrderDeleteMessage;
import io.mdfanout.feed.itch.OrderExecutedMessage;
import io.mdfanout.feed.itch.OrderExecutedWithPriceMessage;
import io.mdfanout.feed.itch.OrderReplaceMessage;
import io.mdfanout.feed.itch.RegShoRestrictionMessage;
import io.mdfanout.feed.itch.StockDirectoryMessage;
import io.mdfanout.feed.itch.StockTradingActionMessage;
import io.mdfanout.feed.itch.SystemEventMessage;
import io.mdfanout.feed.itch.TradeMessage;
import io.mdfanout.sbe.AddOrderAttributedEncoder;
import io.mdfanout.sbe.AddOrderEncoder;
import io.mdfanout.sbe.BrokenTradeEncoder;
import io.mdfanout.sbe.CrossTradeEncoder;
import io.mdfanout.sbe.GapNoticeEncoder;
import io.mdfanout.sbe.GapReason;
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
import io.mdfanout.sbe.Price4Encoder;
import io.mdfanout.sbe.RegShoRestrictionEncoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventEncoder;
import io.mdfanout.sbe.TradeEncoder;
import io.mdfanout.sbe.TradingState;
import io.mdfanout.sbe.TradingStatusEncoder;
import io.mdfanout.wire.PartitionRings;
import io.mdfanout.wire.Partitioning;
import io.mdfanout.wire.RingSetHeader;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.ringbuffer.RingBuffer;

import java.nio.ByteOrder;

/**
 * Normalizes ITCH 5.0 messages into SBE messages written, with zero copy, into the partition
 * rings: claim a record of the message's exact length, encode header and block in place; the
 * records of a datagram become visible to the fanout together, at {@link #flush()}.
 * <p>
 * Every published message carries exchangeSequence (the MoldUDP64 sequence, or the record index
 * of a file), exchangeTimestamp (the ITCH timestamp) and instrumentId (the stock locate). A
 * message whose locate is 0 is market-wide and is written to every partition; any other goes
 * to {@link Partitioning#partitionOf(long, int)}. L, K, J, N and O are decoded and counted but
 * not published: the normalized schema has no place for them.
 * <p>
 * Bad input never throws: an unknown type, a message shorter than its type or an enumerated
 * field outside the specification is counted and skipped.
 * <p>
 * Ring full policy: never drop valid data. The writer waits with the configured idle strategy
 * until the consumer frees space, counting one ring-full wait per write that had to wait. This
 * back-pressures the caller (the socket, or the file reader). The wait only gives up when the
 * thread is interrupted (shutdown), counted as an abandoned write.
 * <p>
 * The ring records, and the counts of decoded and published messages and of ring records, reach
 * the fanout and the counters when the caller calls {@link #flush()}: after each datagram, or each
 * record of a file. A full ring publishes what was written before it waits.
 * <p>
 * Restarts: over ring files ({@link #ItchNormalizer(RingBuffer[], PartitionRings.MappedRing[], RingSetHeader,
 * IdleStrategy, NormalizerCounters)}) each ring's commit marks say which exchange sequence its last
 * visible record carries, and the ring set's header which sequence the feed was processed through
 * (stored at each {@link #flush()} once every ring published). A restarted feed handler continues
 * after the header's sequence and {@link #resume(long, long[])} skips, per partition, the records a
 * ring already holds (a crash between two rings' publishes leaves one ahead of the other): nothing
 * is written twice and nothing is lost.
 * <p>
 * Single-threaded: one instance per producing thread, and the only writer of its rings.
 */
public final class ItchNormalizer
{
    private static final int HEADER_LENGTH = MessageHeaderEncoder.ENCODED_LENGTH;
    private static final int LOCATES = 1 << 16;
    /** Offset of the SBE block in a record, after the message header. */
    private static final int BODY = HEADER_LENGTH;
    private static final int EXCHANGE_SEQUENCE = AddOrderEncoder.exchangeSequenceEncodingOffset();
    private static final int EXCHANGE_TIMESTAMP = AddOrderEncoder.exchangeTimestampEncodingOffset();
    private static final int INSTRUMENT_ID = AddOrderEncoder.instrumentIdEncodingOffset();
    private static final int MANTISSA = Price4Encoder.mantissaEncodingOffset();

    private static final long ADD_ORDER_HEADER =
        WireFormat.headerWordFor(AddOrderEncoder.TEMPLATE_ID, AddOrderEncoder.BLOCK_LENGTH);
    private static final long ORDER_DELETE_HEADER =
        WireFormat.headerWordFor(OrderDeleteEncoder.TEMPLATE_ID, OrderDeleteEncoder.BLOCK_LENGTH);
    private static final long ORDER_CANCEL_HEADER =
        WireFormat.headerWordFor(OrderCancelEncoder.TEMPLATE_ID, OrderCancelEncoder.BLOCK_LENGTH);
    private static final long ORDER_EXECUTED_HEADER =
        WireFormat.headerWordFor(OrderExecutedEncoder.TEMPLATE_ID, OrderExecutedEncoder.BLOCK_LENGTH);
    private static final long ORDER_EXECUTED_WITH_PRICE_HEADER =
        WireFormat.headerWordFor(
            OrderExecutedWithPriceEncoder.TEMPLATE_ID, OrderExecutedWithPriceEncoder.BLOCK_LENGTH);
    private static final long TRADE_HEADER =
        WireFormat.headerWordFor(TradeEncoder.TEMPLATE_ID, TradeEncoder.BLOCK_LENGTH);
    private static final long ORDER_REPLACE_HEADER =
        WireFormat.headerWordFor(OrderReplaceEncoder.TEMPLATE_ID, OrderReplaceEncoder.BLOCK_LENGTH);

    /** Each partition's ring writer and encoders, indexed by partition. */
    private final PartitionEncoders[] partitions;
    private final int partitionCount;
    private final IdleStrategy ringFullIdleStrategy;
    private final NormalizerCounters counters;
    /** Partition of each stock locate, computed once: a table read instead of a division per message. */
    private final byte[] partitionByLocate = new byte[LOCATES];

    /** Counts not yet published to the counters: see {@link #flush()}. */
    private final long[] decodedPending = new long[256];
    private final byte[] pendingTypes = new byte[256];
    private int pendingTypeCount;
    private long publishedPending;
    private long ringRecordsPending;

    private final SystemEventMessage systemEvent = new SystemEventMessage();
    private final StockDirectoryMessage stockDirectory = new StockDirectoryMessage();
    private final StockTradingActionMessage stockTradingAction = new StockTradingActionMessage();
    private final RegShoRestrictionMessage regShoRestriction = new RegShoRestrictionMessage();
    private final MwcbDeclineLevelMessage mwcbDeclineLevel = new MwcbDeclineLevelMessage();
    private final MwcbStatusMessage mwcbStatus = new MwcbStatusMessage();
    private final OperationalHaltMessage operationalHalt = new OperationalHaltMessage();
    private final AddOrderMessage addOrder = new AddOrderMessage();
    private final AddOrderMpidMessage addOrderMpid = new AddOrderMpidMessage();
    private final OrderExecutedMessage orderExecuted = new OrderExecutedMessage();
    private final OrderExecutedWithPriceMessage orderExecutedWithPrice = new OrderExecutedWithPriceMessage();
    private final OrderCancelMessage orderCancel = new OrderCancelMessage();
    private final OrderDeleteMessage orderDelete = new OrderDeleteMessage();
    private final OrderReplaceMessage orderReplace = new OrderReplaceMessage();
    private final TradeMessage trade = new TradeMessage();
    private final CrossTradeMessage crossTrade = new CrossTradeMessage();
    private final BrokenTradeMessage brokenTrade = new BrokenTradeMessage();
    private final NoiiMessage noii = new NoiiMessage();

    /** The message being normalized, read by address once its extent is checked. */
    private final ItchMessageView view = new ItchMessageView();

    private final GapNoticeEncoder gapNoticeEncoder = new GapNoticeEncoder();
    private final SystemEventEncoder systemEventEncoder = new SystemEventEncoder();
    private final InstrumentDirectoryEncoder instrumentDirectoryEncoder = new InstrumentDirectoryEncoder();
    private final TradingStatusEncoder tradingStatusEncoder = new TradingStatusEncoder();
    private final RegShoRestrictionEncoder regShoRestrictionEncoder = new RegShoRestrictionEncoder();
    private final MwcbDeclineLevelEncoder mwcbDeclineLevelEncoder = new MwcbDeclineLevelEncoder();
    private final MwcbStatusEncoder mwcbStatusEncoder = new MwcbStatusEncoder();
    private final OperationalHaltEncoder operationalHaltEncoder = new OperationalHaltEncoder();
    private final AddOrderAttributedEncoder addOrderAttributedEncoder = new AddOrderAttributedEncoder();
    private final CrossTradeEncoder crossTradeEncoder = new CrossTradeEncoder();
    private final BrokenTradeEncoder brokenTradeEncoder = new BrokenTradeEncoder();
    private final ImbalanceEncoder imbalanceEncoder = new ImbalanceEncoder();

    /** State of the message being published, read by the encode step once per target partition. */
    private long currentSequence;
    private long currentTimestamp;
    private long currentInstrumentId;

    /** Gap being published. */
    private long gapFirstMissing;
    private long gapLastMissing;

    private long lastTimestamp;
    private long timestampOverride = -1;

    /** Exchange sequence of the message (or first of the gap) being written: what each record claim carries. */
    private long messageSequence;
    /** The reason of the GapNotice being written: set by {@link #onGap} and {@link #onSessionEndLost}. */
    private GapReason gapReason = GapReason.UNRECOVERED;
    /** The feed is processed through this sequence: committed to the header at flush. */
    private long processedThrough;
    private long committedThrough;
    private final RingSetHeader header;
    /** How long a claim waits for a full ring before the normalizer stalls; forever by default (a file replay). */
    private long ringFullTimeoutNs = Long.MAX_VALUE;
    private boolean stalled;

    /**
     * Create a normalizer over the partition rings.
     *
     * @param rings                one ring per partition, indexed by partition.
     * @param ringFullIdleStrategy how to wait while a ring is full.
     * @param counters             where to count.
     */
    public ItchNormalizer(
        final RingBuffer[] rings, final IdleStrategy ringFullIdleStrategy, final NormalizerCounters counters)
    {
        this(rings, null, null, ringFullIdleStrategy, counters);
    }

    /**
     * Create a normalizer over ring files that keeps their commit marks and the ring set's committed sequence.
     *
     * @param rings                one ring per partition, indexed by partition.
     * @param ringFiles            the mapped files of those rings (same order), or null to keep no marks.
     * @param header               the ring set's header, or null to commit no sequence.
     * @param ringFullIdleStrategy how to wait while a ring is full.
     * @param counters             where to count.
     */
    public ItchNormalizer(
        final RingBuffer[] rings,
        final PartitionRings.MappedRing[] ringFiles,
        final RingSetHeader header,
        final IdleStrategy ringFullIdleStrategy,
        final NormalizerCounters counters)
    {
        this.header = header;
        if (null != ringFiles && ringFiles.length != rings.length)
        {
            throw new IllegalArgumentException(ringFiles.length + " ring files for " + rings.length + " rings");
        }
        if (rings.length < 1)
        {
            throw new IllegalArgumentException("at least one partition ring is needed");
        }
        if (counters.partitionCount() != rings.length)
        {
            throw new IllegalArgumentException(
                "counters are for " + counters.partitionCount() + " partitions, rings for " + rings.length);
        }
        for (int i = 0; i < rings.length; i++)
        {
            if (rings[i].maxMsgLength() < WireFormat.MAX_MESSAGE_LENGTH)
            {
                throw new IllegalArgumentException("ring of partition " + i + " is too small: max message length " +
                    rings[i].maxMsgLength() + " < " + WireFormat.MAX_MESSAGE_LENGTH);
            }
        }
        this.partitions = new PartitionEncoders[rings.length];
        for (int i = 0; i < rings.length; i++)
        {
            this.partitions[i] = new PartitionEncoders(
                i, new BatchingRingWriter(rings[i], null == ringFiles ? null : ringFiles[i]));
        }
        this.partitionCount = rings.length;
        this.ringFullIdleStrategy = ringFullIdleStrategy;
        this.counters = counters;
        if (partitionCount > Byte.MAX_VALUE)
        {
            throw new IllegalArgumentException("at most " + Byte.MAX_VALUE + " partitions: " + partitionCount);
        }
        for (int locate = 0; locate < LOCATES; locate++)
        {
            partitionByLocate[locate] = (byte)Partitioning.partitionOf(locate, partitionCount);
        }
    }

    /** Number of partitions. */
    public int partitionCount()
    {
        return partitionCount;
    }

    /**
     * Continue after a restart: the feed was processed through {@code committedSequence}, and partition
     * p's ring already holds every record of the messages up to {@code lastRecordSequences[p]}, which
     * are not written again when those messages come once more.
     *
     * @param committedSequence   the ring set header's committed sequence.
     * @param lastRecordSequences per partition, from {@link PartitionRings.MappedRing#recoverProducer()}.
     */
    public void resume(final long committedSequence, final long[] lastRecordSequences)
    {
        if (lastRecordSequences.length != partitionCount)
        {
            throw new IllegalArgumentException(
                lastRecordSequences.length + " sequences for " + partitionCount + " partitions");
        }
        for (int i = 0; i < partitionCount; i++)
        {
            partitions[i].skipThrough = lastRecordSequences[i];
        }
        processedThrough = committedSequence;
        committedThrough = committedSequence;
    }

    /**
     * A new MoldUDP64 session numbers its messages from 1 again: publish what is pending and forget
     * every sequence mark.
     *
     * @param sequenceBefore the sequence the new session's first message follows (its first sequence - 1).
     */
    public void newSession(final long sequenceBefore)
    {
        flush();
        for (int i = 0; i < partitionCount; i++)
        {
            partitions[i].skipThrough = -1;
            partitions[i].ring.resetSequence();
        }
        processedThrough = sequenceBefore;
        committedThrough = -1;
        flush();
    }

    /**
     * A new MoldUDP64 session in a new generation of rings: publish what is pending to the old rings, then write
     * the new ones from nothing (once per trading day, so the allocation here is off the steady state).
     *
     * @param rings           the new generation's rings, indexed by partition.
     * @param ringFiles       their mapped files, for the commit marks, or null.
     * @param sequenceBefore  the sequence the new session's first message follows (its first sequence - 1).
     */
    public void newGeneration(
        final RingBuffer[] rings, final PartitionRings.MappedRing[] ringFiles, final long sequenceBefore)
    {
        if (rings.length != partitionCount)
        {
            throw new IllegalArgumentException(rings.length + " rings for " + partitionCount + " partitions");
        }
        flush();
        for (int i = 0; i < partitionCount; i++)
        {
            partitions[i] = new PartitionEncoders(
                i, new BatchingRingWriter(rings[i], null == ringFiles ? null : ringFiles[i]));
        }
        processedThrough = sequenceBefore;
        committedThrough = -1;
        flush();
    }

    /**
     * Bound the wait for a full ring: past it the write is abandoned and the normalizer is
     * {@link #isStalled() stalled} until {@link #tryResume()}; a live feed handler reads on and
     * recovers what it could not write by re-request. Unbounded by default (a file replay waits).
     *
     * @param timeoutNs the longest wait, in nanoseconds.
     */
    public void ringFullTimeoutNs(final long timeoutNs)
    {
        this.ringFullTimeoutNs = timeoutNs;
    }

    /** @return true after a write was abandoned on a ring full past the ring-full wait, until {@link #tryResume()}. */
    public boolean isStalled()
    {
        return stalled;
    }

    /**
     * End a stall once every ring has a quarter of its capacity free again: the records of the
     * message being written when it stalled that did reach a ring are not written again.
     *
     * @return true when no longer stalled.
     */
    public boolean tryResume()
    {
        if (!stalled)
        {
            return true;
        }
        for (int i = 0; i < partitionCount; i++)
        {
            final RingBuffer ring = partitions[i].ring.ring();
            if (ring.size() > ring.capacity() - (ring.capacity() >> 2))
            {
                return false;
            }
        }
        stalled = false;
        return true;
    }

    /** The counters this normalizer writes. */
    public NormalizerCounters counters()
    {
        return counters;
    }

    /**
     * Benchmarking only: publish the given time (ns since midnight) as the exchangeTimestamp of the
     * messages that follow instead of their ITCH timestamp, e.g. the receive time of their datagram,
     * so that a subscriber measures latency from the feed handler's receive.
     *
     * @param nanosSinceMidnight the time to publish, or a negative value for the ITCH timestamp again.
     */
    public void timestampOverride(final long nanosSinceMidnight)
    {
        timestampOverride = nanosSinceMidnight;
    }

    /** ITCH timestamp of the last message that passed the length check, 0 before the first one. */
    public long lastTimestamp()
    {
        return lastTimestamp;
    }

    /**
     * Decode, validate and publish one ITCH message.
     *
     * @param buffer           holding the message.
     * @param offset           of the message type byte.
     * @param length           of the message as framed; longer than the type's length is accepted.
     * @param exchangeSequence sequence number to stamp on the normalized message.
     */
    public void onMessage(final DirectBuffer buffer, final int offset, final int length, final long exchangeSequence)
    {
        messageSequence = exchangeSequence;
        processedThrough = exchangeSequence;
        final ItchMessageView view = this.view;
        // A message outside its buffer is the caller's framing bug, not the exchange's: still counted
        // and skipped rather than thrown, so that one bad record cannot stop the feed.
        if (length < 1 || !view.wrap(buffer, offset, length))
        {
            counters.invalidLength().incrementRelease();
            return;
        }

        final byte type = view.u8(ItchMessage.MESSAGE_TYPE_OFFSET);
        final int specLength = ItchMessageType.specLength(type);
        if (specLength < 0)
        {
            counters.unknownTypes().incrementRelease();
            return;
        }
        if (length < specLength)
        {
            counters.invalidLength().incrementRelease();
            return;
        }

        if (0 == decodedPending[type & 0xFF]++)
        {
            pendingTypes[pendingTypeCount++] = type;
        }
        final long itchTimestamp = view.u48(ItchMessage.TIMESTAMP_OFFSET);
        lastTimestamp = itchTimestamp;
        final long timestamp = timestampOverride < 0 ? itchTimestamp : timestampOverride;

        // Order flow is nearly all of a session: those types take a direct path (one dispatch, the
        // partition from a table, the header as one store, the fields read through the view and
        // stored by address). Anything else, and order flow without an instrument (locate 0,
        // written to every partition), takes the general path.
        //
        // The dispatch is here, not in a method of its own, because of how C2 recompiles. A rare
        // type seen late (a halt, an imbalance) traps in the compiled onMessage, which then runs
        // in C1 for a while; meanwhile its hot callees get compiled on their own, and C2 does not
        // inline a callee already compiled into more than InlineSmallCode (2,500) bytes. A
        // dispatch method holding all seven order-flow paths is that big, so after such a trap
        // some JMH forks ran the order flow through a call and a second switch, slower
        // (LogCompilation: "already compiled into a big method"; the figures:
        // docs/bench/CODE-NOTES.md). Each publish method alone stays small enough to be inlined again.
        final int locate = view.u16(ItchMessage.STOCK_LOCATE_OFFSET);
        if (locate != WireFormat.MARKET_WIDE_INSTRUMENT_ID)
        {
            switch (type)
            {
                case ItchMessageType.ADD_ORDER:
                    publishAddOrder(view, exchangeSequence, timestamp, locate);
                    return;
                case ItchMessageType.ORDER_DELETE:
                    publishOrderDelete(view, exchangeSequence, timestamp, locate);
                    return;
                case ItchMessageType.ORDER_CANCEL:
                    publishOrderCancel(view, exchangeSequence, timestamp, locate);
                    return;
                case ItchMessageType.ORDER_EXECUTED:
                    publishOrderExecuted(view, exchangeSequence, timestamp, locate);
                    return;
                case ItchMessageType.ORDER_REPLACE:
                    publishOrderReplace(view, exchangeSequence, timestamp, locate);
                    return;
                case ItchMessageType.ORDER_EXECUTED_WITH_PRICE:
                    publishOrderExecutedWithPrice(view, exchangeSequence, timestamp, locate);
                    return;
                case ItchMessageType.TRADE:
                    publishTrade(view, exchangeSequence, timestamp, locate);
                    return;
                default:
                    break;
            }
        }
        publishOther(buffer, offset, length, type, exchangeSequence, timestamp, locate);
    }

    /**
     * The general path: every type but order flow, and order flow without an instrument: the
     * flyweight of its type, its enumerated fields checked, then the generated SBE encoders.
     */
    private void publishOther(
        final DirectBuffer buffer, final int offset, final int length, final byte type, final long exchangeSequence,
        final long timestamp, final int locate)
    {
        final ItchMessage message = flyweightFor(type);
        if (null == message)
        {
            return; // L, K, J, N, O: decoded and counted, not in the normalized schema
        }
        message.wrap(buffer, offset, length);
        if (!hasValidFields(type))
        {
            counters.invalidField().incrementRelease();
            return;
        }

        currentSequence = exchangeSequence;
        currentTimestamp = timestamp;
        currentInstrumentId = locate;

        if (publishRecord(templateIdFor(type), blockLengthFor(type)))
        {
            publishedPending++;
        }
    }

    private void publishAddOrder(
        final ItchMessageView message, final long sequence, final long timestamp, final int locate)
    {
        final byte side = message.u8(AddOrderMessage.BUY_SELL_INDICATOR_OFFSET);
        if (!isSide(side))
        {
            counters.invalidField().incrementRelease();
            return;
        }
        final ClaimedRecord record = claim(
            partitions[partitionByLocate[locate]], AddOrderEncoder.TEMPLATE_ID, AddOrderEncoder.BLOCK_LENGTH,
            ADD_ORDER_HEADER);
        if (null == record)
        {
            return;
        }
        // Both addresses taken once, and every field copied by address (see ClaimedRecord: stores
        // that the JIT knows are off heap, so that it need not reload any field after each).
        final long to = record.address();
        final byte[] src = message.byteArray();
        final long from = message.address();
        putCommonFields(to, sequence, timestamp, locate);
        ClaimedRecord.putLong(
            to + BODY + AddOrderEncoder.orderIdEncodingOffset(),
            ItchMessageView.u64(src, from, AddOrderMessage.ORDER_REFERENCE_NUMBER_OFFSET));
        ClaimedRecord.putLong(
            to + BODY + AddOrderEncoder.priceEncodingOffset() + MANTISSA,
            ItchMessageView.u32(src, from, AddOrderMessage.PRICE_OFFSET));
        ClaimedRecord.putInt(
            to + BODY + AddOrderEncoder.sharesEncodingOffset(),
            (int)ItchMessageView.u32(src, from, AddOrderMessage.SHARES_OFFSET));
        // Side's wire values are ITCH's own 'B' and 'S' (checked above): copy the byte rather than
        // choose an enum constant, a branch a random buy/sell mix mispredicts half the time.
        ClaimedRecord.putByte(to + BODY + AddOrderEncoder.sideEncodingOffset(), side);
        countPublished();
    }

    private void publishOrderDelete(
        final ItchMessageView message, final long sequence, final long timestamp, final int locate)
    {
        final ClaimedRecord record = claim(
            partitions[partitionByLocate[locate]], OrderDeleteEncoder.TEMPLATE_ID, OrderDeleteEncoder.BLOCK_LENGTH,
            ORDER_DELETE_HEADER);
        if (null == record)
        {
            return;
        }
        final long to = record.address();
        final byte[] src = message.byteArray();
        final long from = message.address();
        putCommonFields(to, sequence, timestamp, locate);
        ClaimedRecord.putLong(to + BODY + OrderDeleteEncoder.orderIdEncodingOffset(),
            ItchMessageView.u64(src, from, OrderDeleteMessage.ORDER_REFERENCE_NUMBER_OFFSET));
        countPublished();
    }

    private void publishOrderCancel(
        final ItchMessageView message, final long sequence, final long timestamp, final int locate)
    {
        final ClaimedRecord record = claim(
            partitions[partitionByLocate[locate]], OrderCancelEncoder.TEMPLATE_ID, OrderCancelEncoder.BLOCK_LENGTH,
            ORDER_CANCEL_HEADER);
        if (null == record)
        {
            return;
        }
        final long to = record.address();
        final byte[] src = message.byteArray();
        final long from = message.address();
        putCommonFields(to, sequence, timestamp, locate);
        ClaimedRecord.putLong(to + BODY + OrderCancelEncoder.orderIdEncodingOffset(),
            ItchMessageView.u64(src, from, OrderCancelMessage.ORDER_REFERENCE_NUMBER_OFFSET));
        ClaimedRecord.putInt(to + BODY + OrderCancelEncoder.cancelledSharesEncodingOffset(),
            (int)ItchMessageView.u32(src, from, OrderCancelMessage.CANCELLED_SHARES_OFFSET));
        countPublished();
    }

    private void publishOrderExecuted(
        final ItchMessageView message, final long sequence, final long timestamp, final int locate)
    {
        final ClaimedRecord record = claim(
            partitions[partitionByLocate[locate]], OrderExecutedEncoder.TEMPLATE_ID,
            OrderExecutedEncoder.BLOCK_LENGTH, ORDER_EXECUTED_HEADER);
        if (null == record)
        {
            return;
        }
        final long to = record.address();
        final byte[] src = message.byteArray();
        final long from = message.address();
        putCommonFields(to, sequence, timestamp, locate);
        ClaimedRecord.putLong(to + BODY + OrderExecutedEncoder.orderIdEncodingOffset(),
            ItchMessageView.u64(src, from, OrderExecutedMessage.ORDER_REFERENCE_NUMBER_OFFSET));
        ClaimedRecord.putLong(to + BODY + OrderExecutedEncoder.matchNumberEncodingOffset(),
            ItchMessageView.u64(src, from, OrderExecutedMessage.MATCH_NUMBER_OFFSET));
        ClaimedRecord.putInt(to + BODY + OrderExecutedEncoder.executedSharesEncodingOffset(),
            (int)ItchMessageView.u32(src, from, OrderExecutedMessage.EXECUTED_SHARES_OFFSET));
        countPublished();
    }

    private void publishOrderReplace(
        final ItchMessageView message, final long sequence, final long timestamp, final int locate)
    {
        final ClaimedRecord record = claim(
            partitions[partitionByLocate[locate]], OrderReplaceEncoder.TEMPLATE_ID, OrderReplaceEncoder.BLOCK_LENGTH,
            ORDER_REPLACE_HEADER);
        if (null == record)
        {
            return;
        }
        final long to = record.address();
        final byte[] src = message.byteArray();
        final long from = message.address();
        putCommonFields(to, sequence, timestamp, locate);
        ClaimedRecord.putLong(to + BODY + OrderReplaceEncoder.originalOrderIdEncodingOffset(),
            ItchMessageView.u64(src, from, OrderReplaceMessage.ORIGINAL_ORDER_REFERENCE_NUMBER_OFFSET));
        ClaimedRecord.putLong(to + BODY + OrderReplaceEncoder.newOrderIdEncodingOffset(),
            ItchMessageView.u64(src, from, OrderReplaceMessage.NEW_ORDER_REFERENCE_NUMBER_OFFSET));
        ClaimedRecord.putLong(
            to + BODY + OrderReplaceEncoder.priceEncodingOffset() + MANTISSA,
            ItchMessageView.u32(src, from, OrderReplaceMessage.PRICE_OFFSET));
        ClaimedRecord.putInt(
            to + BODY + OrderReplaceEncoder.sharesEncodingOffset(),
            (int)ItchMessageView.u32(src, from, OrderReplaceMessage.SHARES_OFFSET));
        countPublished();
    }

    private void publishOrderExecutedWithPrice(
        final ItchMessageView message, final long sequence, final long timestamp, final int locate)
    {
        final ClaimedRecord record = claim(
            partitions[partitionByLocate[locate]],
            OrderExecutedWithPriceEncoder.TEMPLATE_ID,
            OrderExecutedWithPriceEncoder.BLOCK_LENGTH,
            ORDER_EXECUTED_WITH_PRICE_HEADER);
        if (null == record)
        {
            return;
        }
        final long to = record.address();
        final byte[] src = message.byteArray();
        final long from = message.address();
        putCommonFields(to, sequence, timestamp, locate);
        ClaimedRecord.putLong(to + BODY + OrderExecutedWithPriceEncoder.orderIdEncodingOffset(),
            ItchMessageView.u64(src, from, OrderExecutedWithPriceMessage.ORDER_REFERENCE_NUMBER_OFFSET));
        ClaimedRecord.putLong(to + BODY + OrderExecutedWithPriceEncoder.matchNumberEncodingOffset(),
            ItchMessageView.u64(src, from, OrderExecutedWithPriceMessage.MATCH_NUMBER_OFFSET));
        ClaimedRecord.putLong(to + BODY + OrderExecutedWithPriceEncoder.executionPriceEncodingOffset() + MANTISSA,
            ItchMessageView.u32(src, from, OrderExecutedWithPriceMessage.EXECUTION_PRICE_OFFSET));
        ClaimedRecord.putInt(to + BODY + OrderExecutedWithPriceEncoder.executedSharesEncodingOffset(),
            (int)ItchMessageView.u32(src, from, OrderExecutedWithPriceMessage.EXECUTED_SHARES_OFFSET));
        ClaimedRecord.putByte(to + BODY + OrderExecutedWithPriceEncoder.printableEncodingOffset(),
            ItchMessageView.u8(src, from, OrderExecutedWithPriceMessage.PRINTABLE_OFFSET));
        countPublished();
    }

    private void publishTrade(
        final ItchMessageView message, final long sequence, final long timestamp, final int locate)
    {
        final byte side = message.u8(TradeMessage.BUY_SELL_INDICATOR_OFFSET);
        if (!isSide(side))
        {
            counters.invalidField().incrementRelease();
            return;
        }
        final ClaimedRecord record = claim(
            partitions[partitionByLocate[locate]], TradeEncoder.TEMPLATE_ID, TradeEncoder.BLOCK_LENGTH, TRADE_HEADER);
        if (null == record)
        {
            return;
        }
        final long to = record.address();
        final byte[] src = message.byteArray();
        final long from = message.address();
        putCommonFields(to, sequence, timestamp, locate);
        ClaimedRecord.putLong(
            to + BODY + TradeEncoder.orderIdEncodingOffset(),
            ItchMessageView.u64(src, from, TradeMessage.ORDER_REFERENCE_NUMBER_OFFSET));
        ClaimedRecord.putLong(
            to + BODY + TradeEncoder.matchNumberEncodingOffset(),
            ItchMessageView.u64(src, from, TradeMessage.MATCH_NUMBER_OFFSET));
        ClaimedRecord.putLong(
            to + BODY + TradeEncoder.priceEncodingOffset() + MANTISSA,
            ItchMessageView.u32(src, from, TradeMessage.PRICE_OFFSET));
        ClaimedRecord.putInt(
            to + BODY + TradeEncoder.sharesEncodingOffset(),
            (int)ItchMessageView.u32(src, from, TradeMessage.SHARES_OFFSET));
        ClaimedRecord.putByte(to + BODY + TradeEncoder.sideEncodingOffset(), side); // 'B' or 'S', as on the wire
        countPublished();
    }

    /**
     * The fields every normalized message starts with, at the same offsets in every template
     * (checked by {@code ItchNormalizerTest}).
     */
    private static void putCommonFields(
        final long to, final long sequence, final long timestamp, final int locate)
    {
        ClaimedRecord.putLong(to + BODY + EXCHANGE_SEQUENCE, sequence);
        ClaimedRecord.putLong(to + BODY + EXCHANGE_TIMESTAMP, timestamp);
        ClaimedRecord.putInt(to + BODY + INSTRUMENT_ID, locate);
    }

    /**
     * Claim a record for one order-flow message in a partition's ring, waiting while the ring is
     * full, and write its SBE message header.
     *
     * @return the claimed record, its header written, or null when the wait was abandoned.
     */
    private ClaimedRecord claim(
        final PartitionEncoders target, final int templateId, final int blockLength, final long headerWord)
    {
        if (messageSequence <= target.skipThrough)
        {
            return null; // in the ring since before a restart
        }
        final int index = claimIndex(target, templateId, blockLength);
        if (index < 0)
        {
            return null;
        }
        final ClaimedRecord record = target.record.wrap(index, HEADER_LENGTH + blockLength);
        ClaimedRecord.putLong(record.address(), headerWord);
        return record;
    }

    /**
     * Claim a record for one message in a partition's ring, waiting while the ring is full, and
     * write its SBE message header.
     *
     * @return the record's index (where the message header starts), or -1 when the wait was abandoned.
     */
    private int claimIndex(final PartitionEncoders target, final int templateId, final int blockLength)
    {
        final BatchingRingWriter ring = target.ring;
        final int length = HEADER_LENGTH + blockLength;
        int index = ring.claim(templateId, length, messageSequence);
        if (index == RingBuffer.INSUFFICIENT_CAPACITY)
        {
            index = awaitClaim(ring, target.partition, templateId, length);
        }
        return index;
    }

    /** One message written to one ring: the record is published with the batch, at {@link #flush()}. */
    private void countPublished()
    {
        ringRecordsPending++;
        publishedPending++;
    }

    /**
     * End a batch (a datagram, or a record of a file): make the ring records written since the last
     * flush visible to the fanout, one release store per ring that has any (see
     * {@link BatchingRingWriter}), and publish the counts of decoded messages, published messages
     * and ring records gathered since then. Both are kept back on the message path and published
     * here because a release store and three counter writes per message cost as much as decoding
     * it; Aeron's agents count per duty cycle for the same reason. The counters of rejections, gaps
     * and ring-full waits, which are rare, are always published at once.
     */
    public void flush()
    {
        final PartitionEncoders[] partitions = this.partitions;
        for (int i = 0; i < partitions.length; i++)
        {
            partitions[i].ring.publish();
        }
        final int typeCount = pendingTypeCount;
        if (typeCount > 0)
        {
            for (int i = 0; i < typeCount; i++)
            {
                final int type = pendingTypes[i] & 0xFF;
                counters.decoded(pendingTypes[i]).getAndAddRelease(decodedPending[type]);
                decodedPending[type] = 0;
            }
            pendingTypeCount = 0;
        }
        if (publishedPending > 0)
        {
            counters.messagesPublished().getAndAddRelease(publishedPending);
            publishedPending = 0;
        }
        if (ringRecordsPending > 0)
        {
            counters.ringRecordsWritten().getAndAddRelease(ringRecordsPending);
            ringRecordsPending = 0;
        }
        if (null != header && processedThrough != committedThrough)
        {
            // After every ring published: a restart continues after this sequence.
            committedThrough = processedThrough;
            header.committedSequence(processedThrough);
        }
    }

    /**
     * Publish a {@code GapNotice} (reason UNRECOVERED, instrumentId 0) into every partition ring.
     *
     * @param firstMissing first missing exchange sequence.
     * @param lastMissing  last missing exchange sequence, inclusive.
     */
    public void onGap(final long firstMissing, final long lastMissing)
    {
        gapFirstMissing = firstMissing;
        gapLastMissing = lastMissing;
        messageSequence = firstMissing;
        processedThrough = lastMissing;
        currentInstrumentId = WireFormat.MARKET_WIDE_INSTRUMENT_ID;
        gapReason = GapReason.UNRECOVERED;
        if (publishRecord(GapNoticeEncoder.TEMPLATE_ID, GapNoticeEncoder.BLOCK_LENGTH))
        {
            counters.gapNoticesPublished().incrementRelease();
        }
        flush();
    }

    /**
     * Publish a {@code GapNotice} (reason STALE, instrumentId 0) into every partition ring: the exchange's session
     * ended (its end-of-session packet) while its last messages, the End of Messages among them, were declared
     * missing. Subscribers learn that the session is over although its End of Messages never came; nothing is
     * marked processed by it.
     *
     * @param lastSequence the session's last exchange sequence (where its End of Messages was).
     */
    public void onSessionEndLost(final long lastSequence)
    {
        gapFirstMissing = lastSequence;
        gapLastMissing = lastSequence;
        messageSequence = lastSequence;
        currentInstrumentId = WireFormat.MARKET_WIDE_INSTRUMENT_ID;
        gapReason = GapReason.STALE;
        if (publishRecord(GapNoticeEncoder.TEMPLATE_ID, GapNoticeEncoder.BLOCK_LENGTH))
        {
            counters.gapNoticesPublished().incrementRelease();
        }
        flush();
    }

    private boolean publishRecord(final int templateId, final int blockLength)
    {
        if (Partitioning.isMarketWide(currentInstrumentId))
        {
            for (int partition = 0; partition < partitionCount; partition++)
            {
                if (!writeRecord(partition, templateId, blockLength))
                {
                    return false;
                }
            }
            return true;
        }

        return writeRecord(partitionByLocate[(int)currentInstrumentId], templateId, blockLength);
    }

    private boolean writeRecord(final int partition, final int templateId, final int blockLength)
    {
        final PartitionEncoders target = partitions[partition];
        if (messageSequence <= target.skipThrough)
        {
            return true; // in the ring since before a restart
        }
        final int index = claimIndex(target, templateId, blockLength);
        if (index < 0)
        {
            return false;
        }
        target.buffer.putLong(index, WireFormat.headerWordFor(templateId, blockLength), ByteOrder.LITTLE_ENDIAN);
        encodeBody(templateId, target, index + HEADER_LENGTH);
        ringRecordsPending++;
        return true;
    }

    /** The slow path of a claim: the ring is full, so wait for the consumer; -1 when interrupted. */
    private int awaitClaim(final BatchingRingWriter ring, final int partition, final int templateId, final int length)
    {
        counters.ringFullWaits(partition).incrementRelease();
        if (stalled)
        {
            return -1;
        }
        final IdleStrategy idleStrategy = ringFullIdleStrategy;
        idleStrategy.reset();
        final long deadlineNs = Long.MAX_VALUE == ringFullTimeoutNs ? Long.MAX_VALUE : System.nanoTime() + ringFullTimeoutNs;
        int index;
        do
        {
            if (Thread.currentThread().isInterrupted())
            {
                counters.ringWritesAbandoned().incrementRelease();
                return -1;
            }
            if (Long.MAX_VALUE != deadlineNs && System.nanoTime() - deadlineNs >= 0)
            {
                stall();
                return -1;
            }
            idleStrategy.idle();
            index = ring.claim(templateId, length, messageSequence);
        }
        while (index == RingBuffer.INSUFFICIENT_CAPACITY);
        return index;
    }

    /**
     * Stop writing: the message being written is not complete, so the feed counts as processed through
     * the one before it, and each ring's last claimed record marks what is not to be written again.
     */
    private void stall()
    {
        stalled = true;
        processedThrough = messageSequence - 1;
        for (int i = 0; i < partitionCount; i++)
        {
            final PartitionEncoders target = partitions[i];
            target.skipThrough = Math.max(target.skipThrough, target.ring.lastClaimSequence());
        }
    }

    private ItchMessage flyweightFor(final byte type)
    {
        switch (type)
        {
            case ItchMessageType.SYSTEM_EVENT: return systemEvent;
            case ItchMessageType.STOCK_DIRECTORY: return stockDirectory;
            case ItchMessageType.STOCK_TRADING_ACTION: return stockTradingAction;
            case ItchMessageType.REG_SHO_RESTRICTION: return regShoRestriction;
            case ItchMessageType.MWCB_DECLINE_LEVEL: return mwcbDeclineLevel;
            case ItchMessageType.MWCB_STATUS: return mwcbStatus;
            case ItchMessageType.OPERATIONAL_HALT: return operationalHalt;
            case ItchMessageType.ADD_ORDER: return addOrder;
            case ItchMessageType.ADD_ORDER_MPID: return addOrderMpid;
            case ItchMessageType.ORDER_EXECUTED: return orderExecuted;
            case ItchMessageType.ORDER_EXECUTED_WITH_PRICE: return orderExecutedWithPrice;
            case ItchMessageType.ORDER_CANCEL: return orderCancel;
            case ItchMessageType.ORDER_DELETE: return orderDelete;
            case ItchMessageType.ORDER_REPLACE: return orderReplace;
            case ItchMessageType.TRADE: return trade;
            case ItchMessageType.CROSS_TRADE: return crossTrade;
            case ItchMessageType.BROKEN_TRADE: return brokenTrade;
            case ItchMessageType.NOII: return noii;
            default: return null;
        }
    }

    private boolean hasValidFields(final byte type)
    {
        switch (type)
        {
            case ItchMessageType.SYSTEM_EVENT: return isSystemEventCode(systemEvent.eventCode());
            case ItchMessageType.STOCK_TRADING_ACTION: return isTradingState(stockTradingAction.tradingState());
            case ItchMessageType.ADD_ORDER: return isSide(addOrder.buySellIndicator());
            case ItchMessageType.ADD_ORDER_MPID: return isSide(addOrderMpid.buySellIndicator());
            case ItchMessageType.TRADE: return isSide(trade.buySellIndicator());
            default: return true;
        }
    }

    private static boolean isSide(final byte code)
    {
        // Non-short-circuit: one rarely taken branch on the result rather than one per comparison,
        // which a random buy/sell mix would mispredict.
        return code == 'B' | code == 'S';
    }

    private static boolean isSystemEventCode(final byte code)
    {
        return code == 'O' || code == 'S' || code == 'Q' || code == 'M' || code == 'E' || code == 'C';
    }

    private static boolean isTradingState(final byte code)
    {
        return code == 'H' || code == 'P' || code == 'Q' || code == 'T';
    }

    private static int templateIdFor(final byte type)
    {
        switch (type)
        {
            case ItchMessageType.SYSTEM_EVENT: return SystemEventEncoder.TEMPLATE_ID;
            case ItchMessageType.STOCK_DIRECTORY: return InstrumentDirectoryEncoder.TEMPLATE_ID;
            case ItchMessageType.STOCK_TRADING_ACTION: return TradingStatusEncoder.TEMPLATE_ID;
            case ItchMessageType.REG_SHO_RESTRICTION: return RegShoRestrictionEncoder.TEMPLATE_ID;
            case ItchMessageType.MWCB_DECLINE_LEVEL: return MwcbDeclineLevelEncoder.TEMPLATE_ID;
            case ItchMessageType.MWCB_STATUS: return MwcbStatusEncoder.TEMPLATE_ID;
            case ItchMessageType.OPERATIONAL_HALT: return OperationalHaltEncoder.TEMPLATE_ID;
            case ItchMessageType.ADD_ORDER: return AddOrderEncoder.TEMPLATE_ID;
            case ItchMessageType.ADD_ORDER_MPID: return AddOrderAttributedEncoder.TEMPLATE_ID;
            case ItchMessageType.ORDER_EXECUTED: return OrderExecutedEncoder.TEMPLATE_ID;
            case ItchMessageType.ORDER_EXECUTED_WITH_PRICE: return OrderExecutedWithPriceEncoder.TEMPLATE_ID;
            case ItchMessageType.ORDER_CANCEL: return OrderCancelEncoder.TEMPLATE_ID;
            case ItchMessageType.ORDER_DELETE: return OrderDeleteEncoder.TEMPLATE_ID;
            case ItchMessageType.ORDER_REPLACE: return OrderReplaceEncoder.TEMPLATE_ID;
            case ItchMessageType.TRADE: return TradeEncoder.TEMPLATE_ID;
            case ItchMessageType.CROSS_TRADE: return CrossTradeEncoder.TEMPLATE_ID;
            case ItchMessageType.BROKEN_TRADE: return BrokenTradeEncoder.TEMPLATE_ID;
            case ItchMessageType.NOII: return ImbalanceEncoder.TEMPLATE_ID;
            default: throw new IllegalStateException("no template for ITCH type " + type);
        }
    }

    private static int blockLengthFor(final byte type)
    {
        return WireFormat.knownBlockLength(templateIdFor(type));
    }

    /** Encode the current message's body; order flow with the partition's own encoders (see {@link PartitionEncoders}). */
    private void encodeBody(final int templateId, final PartitionEncoders target, final int offset)
    {
        final MutableDirectBuffer buffer = target.buffer;
        switch (templateId)
        {
            case GapNoticeEncoder.TEMPLATE_ID:
                gapNoticeEncoder.wrap(buffer, offset)
                    .exchangeSequence(gapFirstMissing)
                    .exchangeTimestamp(lastTimestamp)
                    .instrumentId(WireFormat.MARKET_WIDE_INSTRUMENT_ID)
                    .lastMissingSequence(gapLastMissing)
                    .reason(gapReason);
                break;

            case SystemEventEncoder.TEMPLATE_ID:
                systemEventEncoder.wrap(buffer, offset)
                    .exchangeSequence(currentSequence)
                    .exchangeTimestamp(currentTimestamp)
                    .instrumentId(currentInstrumentId)
                    .eventCode(SystemEventCode.get(systemEvent.eventCode()));
                break;

            case InstrumentDirectoryEncoder.TEMPLATE_ID:
                encodeInstrumentDirectory(buffer, offset);
                break;

            case TradingStatusEncoder.TEMPLATE_ID:
                tradingStatusEncoder.wrap(buffer, offset)
                    .exchangeSequence(currentSequence)
                    .exchangeTimestamp(currentTimestamp)
                    .instrumentId(currentInstrumentId)
                    .tradingState(TradingState.get(stockTradingAction.tradingState()))
                    .putReason(
                        stockTradingAction.reason(0), stockTradingAction.reason(1),
                        stockTradingAction.reason(2), stockTradingAction.reason(3));
                break;

            case RegShoRestrictionEncoder.TEMPLATE_ID:
                regShoRestrictionEncoder.wrap(buffer, offset)
                    .exchangeSequence(currentSequence)
                    .exchangeTimestamp(currentTimestamp)
                    .instrumentId(currentInstrumentId)
                    .regShoAction(regShoRestriction.regShoAction());
                break;

            case MwcbDeclineLevelEncoder.TEMPLATE_ID:
                encodeMwcbDeclineLevel(buffer, offset);
                break;

            case MwcbStatusEncoder.TEMPLATE_ID:
                mwcbStatusEncoder.wrap(buffer, offset)
                    .exchangeSequence(currentSequence)
                    .exchangeTimestamp(currentTimestamp)
                    .instrumentId(currentInstrumentId)
                    .breachedLevel(mwcbStatus.breachedLevel());
                break;

            case OperationalHaltEncoder.TEMPLATE_ID:
                operationalHaltEncoder.wrap(buffer, offset)
                    .exchangeSequence(currentSequence)
                    .exchangeTimestamp(currentTimestamp)
                    .instrumentId(currentInstrumentId)
                    .marketCode(operationalHalt.marketCode())
                    .haltAction(operationalHalt.operationalHaltAction());
                break;

            case AddOrderEncoder.TEMPLATE_ID:
                target.addOrder.wrap(buffer, offset)
                    .exchangeSequence(currentSequence)
                    .exchangeTimestamp(currentTimestamp)
                    .instrumentId(currentInstrumentId)
                    .orderId(addOrder.orderReferenceNumber())
                    .price().mantissa(addOrder.price());
                target.addOrder
                    .shares(addOrder.shares())
                    .side(Side.get(addOrder.buySellIndicator()));
                break;

            case AddOrderAttributedEncoder.TEMPLATE_ID:
                addOrderAttributedEncoder.wrap(buffer, offset)
                    .exchangeSequence(currentSequence)
                    .exchangeTimestamp(currentTimestamp)
                    .instrumentId(currentInstrumentId)
                    .orderId(addOrderMpid.orderReferenceNumber())
                    .price().mantissa(addOrderMpid.price());
                addOrderAttributedEncoder
                    .shares(addOrderMpid.shares())
                    .side(Side.get(addOrderMpid.buySellIndicator()))
                    .putAttribution(
                        addOrderMpid.attribution(0), addOrderMpid.attribution(1),
                        addOrderMpid.attribution(2), addOrderMpid.attribution(3));
                break;

            case OrderExecutedEncoder.TEMPLATE_ID:
                target.orderExecuted.wrap(buffer, offset)
                    .exchangeSequence(currentSequence)
                    .exchangeTimestamp(currentTimestamp)
                    .instrumentId(currentInstrumentId)
                    .orderId(orderExecuted.orderReferenceNumber())
                    .matchNumber(orderExecuted.matchNumber())
                    .executedShares(orderExecuted.executedShares());
                break;

            case OrderExecutedWithPriceEncoder.TEMPLATE_ID:
                target.orderExecutedWithPrice.wrap(buffer, offset)
                    .exchangeSequence(currentSequence)
                    .exchangeTimestamp(currentTimestamp)
                    .instrumentId(currentInstrumentId)
                    .orderId(orderExecutedWithPrice.orderReferenceNumber())
                    .matchNumber(orderExecutedWithPrice.matchNumber())
                    .executionPrice().mantissa(orderExecutedWithPrice.executionPrice());
                target.orderExecutedWithPrice
                    .executedShares(orderExecutedWithPrice.executedShares())
                    .printable(orderExecutedWithPrice.printable());
                break;

            case OrderCancelEncoder.TEMPLATE_ID:
                target.orderCancel.wrap(buffer, offset)
                    .exchangeSequence(currentSequence)
                    .exchangeTimestamp(currentTimestamp)
                    .instrumentId(currentInstrumentId)
                    .orderId(orderCancel.orderReferenceNumber())
                    .cancelledShares(orderCancel.cancelledShares());
                break;

            case OrderDeleteEncoder.TEMPLATE_ID:
                target.orderDelete.wrap(buffer, offset)
                    .exchangeSequence(currentSequence)
                    .exchangeTimestamp(currentTimestamp)
                    .instrumentId(currentInstrumentId)
                    .orderId(orderDelete.orderReferenceNumber());
                break;

            case OrderReplaceEncoder.TEMPLATE_ID:
                target.orderReplace.wrap(buffer, offset)
                    .exchangeSequence(currentSequence)
                    .exchangeTimestamp(currentTimestamp)
                    .instrumentId(currentInstrumentId)
                    .originalOrderId(orderReplace.originalOrderReferenceNumber())
                    .newOrderId(orderReplace.newOrderReferenceNumber())
                    .price().mantissa(orderReplace.price());
                target.orderReplace.shares(orderReplace.shares());
                break;

            case TradeEncoder.TEMPLATE_ID:
                target.trade.wrap(buffer, offset)
                    .exchangeSequence(currentSequence)
                    .exchangeTimestamp(currentTimestamp)
                    .instrumentId(currentInstrumentId)
                    .orderId(trade.orderReferenceNumber())
                    .matchNumber(trade.matchNumber())
                    .price().mantissa(trade.price());
                target.trade
                    .shares(trade.shares())
                    .side(Side.get(trade.buySellIndicator()));
                break;

            case CrossTradeEncoder.TEMPLATE_ID:
                crossTradeEncoder.wrap(buffer, offset)
                    .exchangeSequence(currentSequence)
                    .exchangeTimestamp(currentTimestamp)
                    .instrumentId(currentInstrumentId)
                    .shares(crossTrade.shares())
                    .matchNumber(crossTrade.matchNumber())
                    .crossPrice().mantissa(crossTrade.crossPrice());
                crossTradeEncoder.crossType(crossTrade.crossType());
                break;

            case BrokenTradeEncoder.TEMPLATE_ID:
                brokenTradeEncoder.wrap(buffer, offset)
                    .exchangeSequence(currentSequence)
                    .exchangeTimestamp(currentTimestamp)
                    .instrumentId(currentInstrumentId)
                    .matchNumber(brokenTrade.matchNumber());
                break;

            case ImbalanceEncoder.TEMPLATE_ID:
                encodeImbalance(buffer, offset);
                break;

            default:
                throw new IllegalStateException("no encoder for template " + templateId);
        }
    }

    private void encodeInstrumentDirectory(final MutableDirectBuffer buffer, final int offset)
    {
        final StockDirectoryMessage r = stockDirectory;
        instrumentDirectoryEncoder.wrap(buffer, offset)
            .exchangeSequence(currentSequence)
            .exchangeTimestamp(currentTimestamp)
            .instrumentId(currentInstrumentId);
        r.getStock(buffer, offset + InstrumentDirectoryEncoder.symbolEncodingOffset());
        instrumentDirectoryEncoder
            .roundLotSize(r.roundLotSize())
            .etpLeverageFactor(r.etpLeverageFactor())
            .marketCategory(r.marketCategory())
            .financialStatusIndicator(r.financialStatusIndicator())
            .roundLotsOnly(r.roundLotsOnly())
            .issueClassification(r.issueClassification())
            .putIssueSubType(r.issueSubType(0), r.issueSubType(1))
            .authenticity(r.authenticity())
            .shortSaleThresholdIndicator(r.shortSaleThresholdIndicator())
            .ipoFlag(r.ipoFlag())
            .luldReferencePriceTier(r.luldReferencePriceTier())
            .etpFlag(r.etpFlag())
            .inverseIndicator(r.inverseIndicator());
    }

    private void encodeMwcbDeclineLevel(final MutableDirectBuffer buffer, final int offset)
    {
        final MwcbDeclineLevelEncoder encoder = mwcbDeclineLevelEncoder.wrap(buffer, offset)
            .exchangeSequence(currentSequence)
            .exchangeTimestamp(currentTimestamp)
            .instrumentId(currentInstrumentId);
        encoder.level1().mantissa(mwcbDeclineLevel.level1());
        encoder.level2().mantissa(mwcbDeclineLevel.level2());
        encoder.level3().mantissa(mwcbDeclineLevel.level3());
    }

    private void encodeImbalance(final MutableDirectBuffer buffer, final int offset)
    {
        final ImbalanceEncoder encoder = imbalanceEncoder.wrap(buffer, offset)
            .exchangeSequence(currentSequence)
            .exchangeTimestamp(currentTimestamp)
            .instrumentId(currentInstrumentId)
            .pairedShares(noii.pairedShares())
            .imbalanceShares(noii.imbalanceShares());
        encoder.farPrice().mantissa(noii.farPrice());
        encoder.nearPrice().mantissa(noii.nearPrice());
        encoder.currentReferencePrice().mantissa(noii.currentReferencePrice());
        encoder
            .imbalanceDirection(noii.imbalanceDirection())
            .crossType(noii.crossType())
            .priceVariationIndicator(noii.priceVariationIndicator());
    }
}
