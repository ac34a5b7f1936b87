package io.mdfanout.fanout.snapshot;

import io.aeron.ExclusivePublication;
import io.aeron.Publication;
import io.mdfanout.fanout.state.PartitionState;
import io.mdfanout.fanout.state.SnapshotSource;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.PacketHeaderEncoder;
import io.mdfanout.sbe.SnapshotBeginEncoder;
import io.mdfanout.sbe.SnapshotEndEncoder;
import io.mdfanout.sbe.SnapshotInstrumentEncoder;
import io.mdfanout.sbe.SnapshotOrderEncoder;
import io.mdfanout.wire.WireFormat;
import org.agrona.ErrorHandler;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.EpochNanoClock;

import java.nio.ByteOrder;

/**
 * Publishes periodic snapshots of one partition's state (a {@link SnapshotSource}: its {@link PartitionState}, or a
 * derived stream's last messages) on the partition's snapshot stream, in the format of docs/WIRE.md: SnapshotBegin,
 * the market-wide state messages, per instrument with state a SnapshotInstrument, its state messages and its
 * SnapshotOrders, then SnapshotEnd; packed into packets exactly like incremental ones, with the snapshot stream's own
 * sequence (consecutive from 1 per publication).
 * <p>
 * Run by the partition's consumer thread between ring drains, so the state does not change while
 * an instrument is copied. Each duty cycle captures whole instruments (with the empty id range
 * before each) into a staging buffer of ready packets until {@code bytesPerCycle} is reached,
 * then offers them; the incremental stream never waits for a snapshot. An instrument is always
 * captured whole in one cycle, whatever its size: that is what makes its lastStreamSequence true.
 * Packets refused by back pressure stay staged and are retried next cycle before anything more is
 * captured. NOT_CONNECTED abandons the snapshot; CLOSED or MAX_POSITION_EXCEEDED stops snapshots
 * for good (reported once). A snapshot is only started while someone is connected.
 * <p>
 * Not thread safe. Allocates nothing in steady state (the staging buffer grows only when an
 * instrument is larger than anything staged before).
 */
public final class SnapshotPublisher
{
    private static final int HEADER = MessageHeaderEncoder.ENCODED_LENGTH;
    private static final int PACKET_HEADER_LENGTH = HEADER + PacketHeaderEncoder.BLOCK_LENGTH;
    private static final int BEGIN_LENGTH = HEADER + SnapshotBeginEncoder.BLOCK_LENGTH;
    private static final int INSTRUMENT_LENGTH = HEADER + SnapshotInstrumentEncoder.BLOCK_LENGTH;
    private static final int ORDER_LENGTH = HEADER + SnapshotOrderEncoder.BLOCK_LENGTH;
    private static final int END_LENGTH = HEADER + SnapshotEndEncoder.BLOCK_LENGTH;
    private static final int LENGTH_PREFIX = 4;
    private static final int MAX_MESSAGES_PER_PACKET = 0xFFFF;

    private final int partitionId;
    private final SnapshotSource state;
    private final ExclusivePublication publication;
    private final int incrementalSessionId;
    private final SnapshotCounters counters;
    private final long intervalNs;
    private final int bytesPerCycle;
    private final EpochNanoClock epochClock;
    private final ErrorHandler errorHandler;
    private final int maxPacketLength;

    private final ExpandableDirectByteBuffer staging;
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final PacketHeaderEncoder packetHeaderEncoder = new PacketHeaderEncoder();
    private final SnapshotBeginEncoder beginEncoder = new SnapshotBeginEncoder();
    private final SnapshotInstrumentEncoder instrumentEncoder = new SnapshotInstrumentEncoder();
    private final SnapshotOrderEncoder orderEncoder = new SnapshotOrderEncoder();
    private final SnapshotEndEncoder endEncoder = new SnapshotEndEncoder();

    private long nextDueNs;
    private boolean dueTimeSet;
    private boolean inProgress;
    private boolean captureDone;
    private boolean stopped;
    private long snapshotId;
    private long nextSequence = 1;
    private int cursor;
    private long instrumentCount;
    private long orderCount;
    private long messageCount;

    private int stagedHead;
    private int stagedTail;
    private int openPacket = -1;
    private int openLength;
    private int openMessageCount;
    private boolean heldForRetry;

    /**
     * @param partitionId          the partition (stamped into packets and SnapshotBegin).
     * @param state                the partition's state; read on this thread only.
     * @param publication          the partition's snapshot stream; this publisher is its only writer.
     * @param incrementalSessionId Aeron session id of the partition's incremental publication.
     * @param counters             where to count; this publisher is their only writer.
     * @param intervalNs           time between snapshot starts; 0 disables snapshots.
     * @param bytesPerCycle        bytes of whole instruments captured per duty cycle (at least one instrument).
     * @param epochClock           sending-time source; must not allocate.
     * @param errorHandler         told once when the publication fails for good.
     */
    public SnapshotPublisher(
        final int partitionId,
        final SnapshotSource state,
        final ExclusivePublication publication,
        final int incrementalSessionId,
        final SnapshotCounters counters,
        final long intervalNs,
        final int bytesPerCycle,
        final EpochNanoClock epochClock,
        final ErrorHandler errorHandler)
    {
        if (intervalNs < 0)
        {
            throw new IllegalArgumentException("snapshot interval must not be negative: " + intervalNs + "ns");
        }
        if (bytesPerCycle <= 0)
        {
            throw new IllegalArgumentException("snapshot bytes per cycle must be positive: " + bytesPerCycle);
        }
        this.partitionId = partitionId;
        this.state = state;
        this.publication = publication;
        this.incrementalSessionId = incrementalSessionId;
        this.counters = counters;
        this.intervalNs = intervalNs;
        this.bytesPerCycle = bytesPerCycle;
        this.epochClock = epochClock;
        this.errorHandler = errorHandler;
        this.maxPacketLength = publication.maxPayloadLength();
        if (maxPacketLength < PACKET_HEADER_LENGTH + WireFormat.MAX_STREAM_MESSAGE_LENGTH)
        {
            throw new IllegalArgumentException("snapshot publication max payload " + maxPacketLength +
                " bytes cannot hold a packet header and the largest message; raise the snapshot channel mtu");
        }
        staging = new ExpandableDirectByteBuffer(2 * (bytesPerCycle + maxPacketLength + LENGTH_PREFIX));
    }

    /**
     * One duty cycle: send staged packets, capture more whole instruments when all are sent, start a
     * snapshot when one is due.
     *
     * @param nowNs monotonic time.
     * @return work done.
     */
    public int doWork(final long nowNs)
    {
        if (stopped || 0 == intervalNs)
        {
            return 0;
        }
        if (!dueTimeSet)
        {
            dueTimeSet = true;
            nextDueNs = nowNs + intervalNs;
        }

        int workCount = 0;
        if (!inProgress)
        {
            if (nowNs - nextDueNs < 0)
            {
                return 0;
            }
            nextDueNs = nowNs + intervalNs;
            if (!publication.isConnected())
            {
                counters.skipped().incrementRelease();
                return 0;
            }
            begin();
            workCount++;
        }
        else if (!sendStaged())
        {
            return workCount;
        }

        if (stagedHead == stagedTail && !captureDone)
        {
            captureWholeInstruments();
            workCount++;
            if (!sendStaged())
            {
                return workCount;
            }
        }

        if (inProgress && captureDone && stagedHead == stagedTail)
        {
            inProgress = false;
            counters.completed().incrementRelease();
        }
        return workCount;
    }

    /** @return true while a snapshot is being captured or sent. */
    public boolean isInProgress()
    {
        return inProgress;
    }

    /** @return id of the last snapshot started (0 before the first). */
    public long snapshotId()
    {
        return snapshotId;
    }

    /** @return the snapshot stream sequence the next snapshot message will carry. */
    public long nextSequence()
    {
        return nextSequence;
    }

    /** @return the counters this publisher writes. */
    public SnapshotCounters counters()
    {
        return counters;
    }

    /** @return true once the snapshot publication failed for good. */
    public boolean isStopped()
    {
        return stopped;
    }

    private void begin()
    {
        inProgress = true;
        captureDone = false;
        snapshotId++;
        cursor = 1;
        instrumentCount = 0;
        orderCount = 0;
        messageCount = 0;
        stagedHead = 0;
        stagedTail = 0;
        counters.started().incrementRelease();

        final SnapshotSource state = this.state;
        beginEncoder.wrapAndApplyHeader(staging, reserve(BEGIN_LENGTH), headerEncoder)
            .exchangeSequence(state.lastExchangeSequence())
            .exchangeTimestamp(state.lastExchangeTimestamp())
            .instrumentId(0)
            .snapshotId(snapshotId)
            .lastStreamSequence(state.lastAppliedStreamSequence())
            .incrementalSessionId(incrementalSessionId)
            .partitionId(partitionId)
            .unrecoveredFromSequence(state.unrecoveredFromSequence())
            .unrecoveredToSequence(state.unrecoveredToSequence());
        for (int kind = 0; kind < state.marketKinds(); kind++)
        {
            final int length = state.marketMessageLength(kind);
            // The unrecovered gap travels in the SnapshotBegin: a GapNotice has no place in a snapshot stream.
            if (length > 0 && PartitionState.UNRECOVERED_GAP != kind)
            {
                state.copyMarketMessage(kind, staging, reserve(length));
                messageCount++;
            }
        }
    }

    /**
     * Capture instruments, each whole with the empty range before it, until the cycle's budget is
     * spent; capture SnapshotEnd when none is left. Nothing is applied to the state meanwhile.
     */
    private void captureWholeInstruments()
    {
        final SnapshotSource state = this.state;
        final int budgetEnd = stagedTail + bytesPerCycle;
        while (stagedTail + openLength < budgetEnd)
        {
            final int instrumentId = state.nextInstrumentWithState(cursor);
            if (SnapshotSource.NONE == instrumentId)
            {
                endEncoder.wrapAndApplyHeader(staging, reserve(END_LENGTH), headerEncoder)
                    .exchangeSequence(state.lastExchangeSequence())
                    .exchangeTimestamp(state.lastExchangeTimestamp())
                    .instrumentId(0)
                    .snapshotId(snapshotId)
                    .lastStreamSequence(state.lastAppliedStreamSequence())
                    .coveredFromInstrumentId(cursor)
                    .instrumentCount(instrumentCount)
                    .orderCount(orderCount)
                    .messageCount(messageCount);
                captureDone = true;
                break;
            }
            captureInstrument(instrumentId);
        }
        closePacket();
    }

    private void captureInstrument(final int instrumentId)
    {
        final SnapshotSource state = this.state;
        final long exchangeSequence = state.lastExchangeSequence();
        final long exchangeTimestamp = state.lastExchangeTimestamp();
        final int orders = state.instrumentOrderCount(instrumentId);
        instrumentEncoder.wrapAndApplyHeader(staging, reserve(INSTRUMENT_LENGTH), headerEncoder)
            .exchangeSequence(exchangeSequence)
            .exchangeTimestamp(exchangeTimestamp)
            .instrumentId(instrumentId)
            .snapshotId(snapshotId)
            .lastStreamSequence(state.lastAppliedStreamSequence())
            .coveredFromInstrumentId(cursor)
            .orderCount(orders);
        messageCount++;
        instrumentCount++;

        for (int kind = 0; kind < state.instrumentKinds(); kind++)
        {
            final int length = state.instrumentMessageLength(instrumentId, kind);
            if (length > 0)
            {
                state.copyInstrumentMessage(instrumentId, kind, staging, reserve(length));
                messageCount++;
            }
        }

        for (int order = state.firstOrder(instrumentId); SnapshotSource.NONE != order; order = state.nextOrder(order))
        {
            final int offset = reserve(ORDER_LENGTH);
            orderEncoder.wrapAndApplyHeader(staging, offset, headerEncoder)
                .exchangeSequence(exchangeSequence)
                .exchangeTimestamp(exchangeTimestamp)
                .instrumentId(instrumentId)
                .orderId(state.orderId(order))
                .shares(state.orderShares(order))
                .price().mantissa(state.orderPrice(order));
            staging.putByte(offset + HEADER + SnapshotOrderEncoder.sideEncodingOffset(), state.orderSide(order));
            staging.putInt(offset + HEADER + SnapshotOrderEncoder.attributionEncodingOffset(),
                state.orderAttribution(order), ByteOrder.LITTLE_ENDIAN);
        }
        messageCount += orders;
        orderCount += orders;
        cursor = instrumentId + 1;
    }

    /**
     * Room for one message in the open packet (a new packet when it does not fit); consumes one
     * snapshot stream sequence.
     *
     * @return offset in the staging buffer where the message is to be written.
     */
    private int reserve(final int length)
    {
        if (openPacket >= 0 &&
            (openLength + length > maxPacketLength || openMessageCount == MAX_MESSAGES_PER_PACKET))
        {
            closePacket();
        }
        if (openPacket < 0)
        {
            openPacket = stagedTail;
            openLength = PACKET_HEADER_LENGTH;
            openMessageCount = 0;
            staging.checkLimit(openPacket + LENGTH_PREFIX + maxPacketLength);
            packetHeaderEncoder.wrapAndApplyHeader(staging, openPacket + LENGTH_PREFIX, headerEncoder)
                .streamSequence(nextSequence)
                .sendingTime(0)
                .partitionId(partitionId)
                .messageCount(0)
                .previousExchangeSequence(PacketHeaderEncoder.previousExchangeSequenceNullValue()); // no chain here
        }
        final int offset = openPacket + LENGTH_PREFIX + openLength;
        openLength += length;
        openMessageCount++;
        nextSequence++;
        return offset;
    }

    private void closePacket()
    {
        if (openPacket >= 0)
        {
            staging.putInt(openPacket, openLength);
            packetHeaderEncoder.wrap(staging, openPacket + LENGTH_PREFIX + HEADER).messageCount(openMessageCount);
            stagedTail = openPacket + LENGTH_PREFIX + openLength;
            openPacket = -1;
            openLength = 0;
            openMessageCount = 0;
        }
    }

    /** @return true when every staged packet was sent. */
    private boolean sendStaged()
    {
        while (stagedHead < stagedTail)
        {
            final int length = staging.getInt(stagedHead);
            final int packet = stagedHead + LENGTH_PREFIX;
            packetHeaderEncoder.wrap(staging, packet + HEADER).sendingTime(epochClock.nanoTime());
            final long result = publication.offer(staging, packet, length);
            if (result > 0)
            {
                counters.messagesSent().getAndAddRelease(staging.getShort(
                    packet + HEADER + PacketHeaderEncoder.messageCountEncodingOffset(), ByteOrder.LITTLE_ENDIAN) & 0xFFFF);
                counters.bytesSent().getAndAddRelease(length);
                stagedHead = packet + length;
                heldForRetry = false;
                continue;
            }

            if (result == Publication.BACK_PRESSURED || result == Publication.ADMIN_ACTION)
            {
                if (!heldForRetry)
                {
                    heldForRetry = true;
                    counters.backPressureEvents().incrementRelease();
                }
                return false;
            }

            abandon(packet);
            if (result != Publication.NOT_CONNECTED)
            {
                stopped = true;
                errorHandler.onError(new IllegalStateException("fanout partition " + partitionId +
                    ": snapshot publication " + (result == Publication.CLOSED ? "was closed" :
                    result == Publication.MAX_POSITION_EXCEEDED ? "reached its maximum position" :
                    "failed with result " + result) + "; snapshots stopped"));
            }
            return false;
        }
        stagedHead = 0;
        stagedTail = 0;
        return true;
    }

    /** Nobody listens any more: drop the rest, giving back the sequences of what was never sent. */
    private void abandon(final int unsentPacket)
    {
        nextSequence = staging.getLong(
            unsentPacket + HEADER + PacketHeaderEncoder.streamSequenceEncodingOffset(), ByteOrder.LITTLE_ENDIAN);
        inProgress = false;
        heldForRetry = false;
        stagedHead = 0;
        stagedTail = 0;
        counters.abandoned().incrementRelease();
    }
}
