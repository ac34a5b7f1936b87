package io.mdfanout.sdk;

import io.aeron.ExclusivePublication;
import io.aeron.Publication;
import io.mdfanout.sbe.HeartbeatEncoder;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.PacketHeaderEncoder;
import io.mdfanout.sbe.SnapshotBeginEncoder;
import io.mdfanout.sbe.SnapshotEndEncoder;
import io.mdfanout.sbe.SnapshotInstrumentEncoder;
import io.mdfanout.sbe.SnapshotOrderEncoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.wire.WireFormat;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntPredicate;

/**
 * Test publisher of one partition stream (incremental or snapshot) over a real Aeron publication:
 * packs complete SBE messages into packets per the wire contract, numbering stream sequences from 1,
 * and can skip sequences (to make gaps) or drop packets. Also builds snapshots from reference states.
 */
final class StreamPublisher implements AutoCloseable
{
    private final ExclusivePublication publication;
    private final int partition;
    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64 * 1024));
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final PacketHeaderEncoder packetHeader = new PacketHeaderEncoder();
    private long nextSequence = 1;
    /** Where the partition's chain of exchange sequences stands after the last packet (sent or dropped). */
    private long chain;

    StreamPublisher(final ExclusivePublication publication, final int partition)
    {
        this.publication = publication;
        this.partition = partition;
    }

    ExclusivePublication publication()
    {
        return publication;
    }

    int sessionId()
    {
        return publication.sessionId();
    }

    long nextSequence()
    {
        return nextSequence;
    }

    void nextSequence(final long sequence)
    {
        nextSequence = sequence;
    }

    /** Send messages in packets of up to {@code perPacket}, waiting until each is accepted. */
    void send(final List<byte[]> messages, final int perPacket)
    {
        send(messages, perPacket, i -> false);
    }

    /** Send messages in packets; packets whose index matches {@code drop} consume sequences but are not sent. */
    void send(final List<byte[]> messages, final int perPacket, final IntPredicate drop)
    {
        int packetIndex = 0;
        for (int i = 0; i < messages.size(); i += perPacket)
        {
            final int end = Math.min(messages.size(), i + perPacket);
            final int length = packet(messages.subList(i, end));
            if (!drop.test(packetIndex++))
            {
                TestMedia.offer(publication, buffer, length);
            }
        }
    }

    /** Like {@link #send} but gives up (returning false) when no subscriber is connected. */
    boolean trySend(final List<byte[]> messages, final int perPacket, final IntPredicate drop)
    {
        if (!publication.isConnected())
        {
            return false;
        }
        send(messages, perPacket, drop);
        return true;
    }

    void heartbeat()
    {
        heartbeat(SourceStatus.UNKNOWN);
    }

    /** A heartbeat announcing the status of the source, as a fanout does. */
    void heartbeat(final SourceStatus status)
    {
        heartbeat(status, HeartbeatEncoder.lastExchangeSequenceNullValue(), 0, "");
    }

    /**
     * A heartbeat of schema version 4: the source's status, where the chain stands, the feed's partition count and
     * the exchange's session (a side of a pair announces them).
     */
    void heartbeat(final SourceStatus status, final long lastExchangeSequence, final int partitionCount,
        final String exchangeSession)
    {
        new HeartbeatEncoder().wrapAndApplyHeader(buffer, 0, header)
            .nextStreamSequence(nextSequence).sendingTime(System.currentTimeMillis()).partitionId(partition)
            .lastExchangeTimestamp(0).sourceHeartbeatAge(0).sourceStatus(status)
            .lastExchangeSequence(lastExchangeSequence).partitionCount(partitionCount)
            .exchangeSession(String.format("%-10s", exchangeSession));
        TestMedia.offer(publication, buffer, WireFormat.HEADER_LENGTH + HeartbeatEncoder.BLOCK_LENGTH);
    }

    /** A side's heartbeat where its chain stands now, LIVE. */
    void chainHeartbeat(final int partitionCount, final String exchangeSession)
    {
        heartbeat(SourceStatus.LIVE, chain, partitionCount, exchangeSession);
    }

    /** @return where the chain stands after the last packet. */
    long chain()
    {
        return chain;
    }

    private int packet(final List<byte[]> messages)
    {
        packetHeader.wrapAndApplyHeader(buffer, 0, header)
            .streamSequence(nextSequence).sendingTime(System.nanoTime()).partitionId(partition)
            .messageCount(messages.size()).previousExchangeSequence(chain);
        int limit = WireFormat.HEADER_LENGTH + PacketHeaderEncoder.BLOCK_LENGTH;
        for (final byte[] message : messages)
        {
            buffer.putBytes(limit, message);
            final int templateId = WireFormat.templateIdOf(WireFormat.headerWord(buffer, limit));
            chain = buffer.getLong(limit + WireFormat.HEADER_LENGTH + WireFormat.chainPositionOffset(templateId),
                WireFormat.BYTE_ORDER);
            limit += message.length;
        }
        nextSequence += messages.size();
        return limit;
    }

    public void close()
    {
        publication.close();
    }

    /**
     * Snapshot messages per the contract: market-wide state and L0 from {@code early} at {@code earlyL};
     * instruments in {@code earlyInstruments} from {@code early} at {@code earlyL}, the others from
     * {@code late} at {@code lateL} (lateL &gt;= earlyL); SnapshotEnd at lateL.
     */
    static List<byte[]> snapshot(
        final int partition, final long snapshotId, final int incrementalSessionId,
        final MarketScript.State early, final long earlyL,
        final MarketScript.State late, final long lateL, final Set<Long> earlyInstruments)
    {
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[256]);
        final MessageHeaderEncoder header = new MessageHeaderEncoder();
        final List<byte[]> messages = new ArrayList<>();
        new SnapshotBeginEncoder().wrapAndApplyHeader(scratch, 0, header)
            .exchangeSequence(early.lastExchangeSequence).exchangeTimestamp(0).instrumentId(0)
            .snapshotId(snapshotId).lastStreamSequence(earlyL).incrementalSessionId(incrementalSessionId)
            .partitionId(partition);
        messages.add(copy(scratch, SnapshotBeginEncoder.BLOCK_LENGTH));
        final Map<Integer, byte[]> marketWide = early.stateMessages.get(0L);
        if (null != marketWide)
        {
            messages.addAll(marketWide.values());
        }

        final TreeSet<Long> instruments = new TreeSet<>();
        instruments.addAll(early.orders.keySet());
        instruments.addAll(early.stateMessages.keySet());
        instruments.addAll(late.orders.keySet());
        instruments.addAll(late.stateMessages.keySet());
        instruments.remove(0L);
        long coveredFrom = 1;
        int instrumentCount = 0;
        int orderCount = 0;
        for (final long instrument : instruments)
        {
            final boolean isEarly = earlyInstruments.contains(instrument);
            final MarketScript.State state = isEarly ? early : late;
            if (!state.hasState(instrument))
            {
                continue;
            }
            final Map<Long, MarketScript.Order> orders = state.orders.getOrDefault(instrument, new java.util.LinkedHashMap<>());
            new SnapshotInstrumentEncoder().wrapAndApplyHeader(scratch, 0, header)
                .exchangeSequence(state.lastExchangeSequence).exchangeTimestamp(0).instrumentId(instrument)
                .snapshotId(snapshotId).lastStreamSequence(isEarly ? earlyL : lateL)
                .coveredFromInstrumentId(coveredFrom).orderCount(orders.size());
            messages.add(copy(scratch, SnapshotInstrumentEncoder.BLOCK_LENGTH));
            final Map<Integer, byte[]> stateMessages = state.stateMessages.get(instrument);
            if (null != stateMessages)
            {
                messages.addAll(stateMessages.values());
            }
            for (final MarketScript.Order order : orders.values())
            {
                new SnapshotOrderEncoder().wrapAndApplyHeader(scratch, 0, header)
                    .exchangeSequence(state.lastExchangeSequence).exchangeTimestamp(0).instrumentId(instrument)
                    .orderId(order.orderId).shares(order.shares)
                    .side(Side.BUY.value() == order.side ? Side.BUY : Side.SELL)
                    .attribution(order.attribution).price().mantissa(order.price);
                messages.add(copy(scratch, SnapshotOrderEncoder.BLOCK_LENGTH));
            }
            instrumentCount++;
            orderCount += orders.size();
            coveredFrom = instrument + 1;
        }
        new SnapshotEndEncoder().wrapAndApplyHeader(scratch, 0, header)
            .exchangeSequence(late.lastExchangeSequence).exchangeTimestamp(0).instrumentId(0)
            .snapshotId(snapshotId).lastStreamSequence(lateL).coveredFromInstrumentId(coveredFrom)
            .instrumentCount(instrumentCount).orderCount(orderCount).messageCount(messages.size() - 1);
        messages.add(copy(scratch, SnapshotEndEncoder.BLOCK_LENGTH));
        return messages;
    }

    /** A snapshot whose every part is consistent with one sequence. */
    static List<byte[]> snapshot(
        final int partition, final long snapshotId, final int incrementalSessionId,
        final MarketScript.State state, final long lastSequence)
    {
        return snapshot(partition, snapshotId, incrementalSessionId, state, lastSequence, state, lastSequence, Set.of());
    }

    private static byte[] copy(final UnsafeBuffer scratch, final int blockLength)
    {
        final byte[] bytes = new byte[WireFormat.HEADER_LENGTH + blockLength];
        scratch.getBytes(0, bytes);
        return bytes;
    }

    static boolean isBackPressured(final long result)
    {
        return result == Publication.BACK_PRESSURED || result == Publication.ADMIN_ACTION;
    }
}
