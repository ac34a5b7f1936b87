package io.mdfanout.fanout.state;

import org.agrona.MutableDirectBuffer;

/**
 * What a snapshot publisher ({@code io.mdfanout.fanout.snapshot.SnapshotPublisher}) copies into a snapshot
 * (docs/WIRE.md, "Snapshot streams"): the partition's MBO state ({@link PartitionState}: state messages and live
 * orders) or a derived stream's (the last derived messages of each instrument, no orders). Read on the partition's
 * thread only, between ring drains.
 */
public interface SnapshotSource
{
    /** No instrument, no order. */
    int NONE = -1;

    /** @return where the partition's chain stands (every snapshot message's exchangeSequence tag). */
    long lastExchangeSequence();

    /** @return the exchange time of that message. */
    long lastExchangeTimestamp();

    /** @return the last stream sequence of the snapshot's incremental stream the state includes. */
    long lastAppliedStreamSequence();

    /** @return the first exchange sequence of the last run the state lost for good; 0 when it lacks nothing. */
    long unrecoveredFromSequence();

    /** @return the last exchange sequence of that run; 0 when it lacks nothing. */
    long unrecoveredToSequence();

    /** @return kinds of market-wide state message, in snapshot order. */
    int marketKinds();

    /** @return length of the market-wide message of that kind to re-send, 0 for none. */
    int marketMessageLength(int kind);

    /** Copy the market-wide message of that kind (length {@link #marketMessageLength(int)}). */
    void copyMarketMessage(int kind, MutableDirectBuffer dst, int dstOffset);

    /** @return the smallest instrument id at or after {@code fromInstrumentId} with state, or {@link #NONE}. */
    int nextInstrumentWithState(int fromInstrumentId);

    /** @return kinds of instrument state message, in snapshot order. */
    int instrumentKinds();

    /** @return length of the instrument's message of that kind, 0 for none. */
    int instrumentMessageLength(int instrumentId, int kind);

    /** Copy the instrument's message of that kind (length {@link #instrumentMessageLength(int, int)}). */
    void copyInstrumentMessage(int instrumentId, int kind, MutableDirectBuffer dst, int dstOffset);

    /** @return live orders of the instrument. */
    int instrumentOrderCount(int instrumentId);

    /** @return the first of the instrument's orders, or {@link #NONE}. */
    int firstOrder(int instrumentId);

    /** @return the next order of the same instrument, or {@link #NONE}. */
    int nextOrder(int order);

    /** @return the order's id. */
    long orderId(int order);

    /** @return the order's price mantissa. */
    long orderPrice(int order);

    /** @return the order's open shares. */
    long orderShares(int order);

    /** @return the order's side, 'B' or 'S'. */
    byte orderSide(int order);

    /** @return the order's attribution, its 4 ASCII bytes in little-endian order. */
    int orderAttribution(int order);
}
