package io.mdfanout.fanout.derived;

import io.mdfanout.fanout.state.PartitionState;
import io.mdfanout.fanout.state.SnapshotSource;
import io.mdfanout.sdk.derive.LastMessages;
import org.agrona.MutableDirectBuffer;

/**
 * A derived stream's state as its snapshots carry it: the market's last SystemEvent and the partition's chain and
 * unrecovered gap from the partition's MBO state (the derived stream passes the same market events at the same
 * points), then per instrument its last derived messages ({@link LastMessages}: one BBO, one MBP-10, or the last bar of
 * each interval); no orders. The trades stream has no instrument state: its snapshots are a Begin and an End, the
 * point its subscribers resume from. Each instrument is tagged with the stream's last sequence when it is copied.
 */
public final class DerivedSnapshotSource implements SnapshotSource
{
    private final PartitionState state;
    private final DerivedPublisher publisher;
    private final LastMessages last;

    /**
     * @param state     the partition's MBO state.
     * @param publisher the derived stream's publisher (its sequence).
     * @param last      the stream's last messages; null for a stream without instrument state.
     */
    public DerivedSnapshotSource(final PartitionState state, final DerivedPublisher publisher, final LastMessages last)
    {
        this.state = state;
        this.publisher = publisher;
        this.last = last;
    }

    public long lastExchangeSequence()
    {
        return state.lastExchangeSequence();
    }

    public long lastExchangeTimestamp()
    {
        return state.lastExchangeTimestamp();
    }

    public long lastAppliedStreamSequence()
    {
        return publisher.lastStreamSequence();
    }

    public long unrecoveredFromSequence()
    {
        return state.unrecoveredFromSequence();
    }

    public long unrecoveredToSequence()
    {
        return state.unrecoveredToSequence();
    }

    public int marketKinds()
    {
        return 1;
    }

    public int marketMessageLength(final int kind)
    {
        return state.marketMessageLength(PartitionState.SYSTEM_EVENT);
    }

    public void copyMarketMessage(final int kind, final MutableDirectBuffer dst, final int dstOffset)
    {
        state.copyMarketMessage(PartitionState.SYSTEM_EVENT, dst, dstOffset);
    }

    public int nextInstrumentWithState(final int fromInstrumentId)
    {
        return null == last ? NONE : (int)last.nextInstrumentAtOrAfter(fromInstrumentId);
    }

    public int instrumentKinds()
    {
        return null == last ? 0 : last.entries();
    }

    public int instrumentMessageLength(final int instrumentId, final int kind)
    {
        return last.length(instrumentId, kind);
    }

    public void copyInstrumentMessage(
        final int instrumentId, final int kind, final MutableDirectBuffer dst, final int dstOffset)
    {
        last.copy(instrumentId, kind, dst, dstOffset);
    }

    public int instrumentOrderCount(final int instrumentId)
    {
        return 0;
    }

    public int firstOrder(final int instrumentId)
    {
        return NONE;
    }

    public int nextOrder(final int order)
    {
        return NONE;
    }

    public long orderId(final int order)
    {
        throw new UnsupportedOperationException("a derived stream's state has no orders");
    }

    public long orderPrice(final int order)
    {
        throw new UnsupportedOperationException("a derived stream's state has no orders");
    }

    public long orderShares(final int order)
    {
        throw new UnsupportedOperationException("a derived stream's state has no orders");
    }

    public byte orderSide(final int order)
    {
        throw new UnsupportedOperationException("a derived stream's state has no orders");
    }

    public int orderAttribution(final int order)
    {
        throw new UnsupportedOperationException("a derived stream's state has no orders");
    }
}
