package io.mdfanout.fanout.state;

import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

import static io.mdfanout.wire.MdfanoutCounters.FANOUT_MARKET_SESSION_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_STATE_INSTRUMENTS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_STATE_ORDERS_REJECTED_POOL_FULL_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_STATE_ORDERS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_STATE_RECORDS_SKIPPED_AFTER_RESTART_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_STATE_REJECTED_UPDATES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_STATE_RESETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_STATE_ROLLED_BACK_STORES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_STATE_UNKNOWN_ORDER_UPDATES_TYPE_ID;

/**
 * Counters of one partition's state. Single writer (the partition's consumer thread, release-ordered
 * updates); any thread may read them. Each has its own type id and the partition id as 4-byte key.
 */
public final class PartitionStateCounters implements AutoCloseable
{
    private final int partitionId;
    private final AtomicCounter ordersInState;
    private final AtomicCounter instrumentsWithState;
    private final AtomicCounter ordersRejectedPoolFull;
    private final AtomicCounter unknownOrderUpdates;
    private final AtomicCounter rejectedUpdates;
    private final AtomicCounter recordsSkippedAfterRestart;
    private final AtomicCounter stateResets;
    private final AtomicCounter rolledBackStores;
    private final AtomicCounter marketSession;

    /**
     * @param countersManager to allocate from (from the thread that owns it).
     * @param partitionId     the partition, used as key and in the labels.
     */
    public PartitionStateCounters(final CountersManager countersManager, final int partitionId)
    {
        this.partitionId = partitionId;
        ordersInState = newCounter(countersManager, FANOUT_STATE_ORDERS_TYPE_ID, "orders in state");
        instrumentsWithState = newCounter(countersManager, FANOUT_STATE_INSTRUMENTS_TYPE_ID, "instruments with state");
        ordersRejectedPoolFull = newCounter(
            countersManager, FANOUT_STATE_ORDERS_REJECTED_POOL_FULL_TYPE_ID, "orders rejected, state pool full");
        unknownOrderUpdates = newCounter(
            countersManager, FANOUT_STATE_UNKNOWN_ORDER_UPDATES_TYPE_ID, "state updates for unknown order ids");
        rejectedUpdates = newCounter(countersManager, FANOUT_STATE_REJECTED_UPDATES_TYPE_ID,
            "state updates rejected (duplicate order id, bad side, instrument id out of range)");
        recordsSkippedAfterRestart = newCounter(
            countersManager,
            FANOUT_STATE_RECORDS_SKIPPED_AFTER_RESTART_TYPE_ID,
            "records skipped after restart (already applied)");
        stateResets = newCounter(countersManager, FANOUT_STATE_RESETS_TYPE_ID, "state resets (new ring)");
        rolledBackStores = newCounter(
            countersManager,
            FANOUT_STATE_ROLLED_BACK_STORES_TYPE_ID,
            "state stores rolled back on open (unfinished message)");
        marketSession = newCounter(countersManager, FANOUT_MARKET_SESSION_TYPE_ID, "market session");
    }

    private AtomicCounter newCounter(final CountersManager countersManager, final int typeId, final String name)
    {
        final int partition = partitionId;
        return countersManager.newCounter(
            "fanout partition=" + partition + " " + name, typeId, (keyBuffer) -> keyBuffer.putInt(0, partition));
    }

    /** @return the partition. */
    public int partitionId()
    {
        return partitionId;
    }

    /** @return live orders held in the state (gauge). */
    public AtomicCounter ordersInState()
    {
        return ordersInState;
    }

    /** @return instruments with an order or a state message (gauge). */
    public AtomicCounter instrumentsWithState()
    {
        return instrumentsWithState;
    }

    /** @return adds rejected because the order pool was full (--max-orders). */
    public AtomicCounter ordersRejectedPoolFull()
    {
        return ordersRejectedPoolFull;
    }

    /** @return executions, cancels, deletes and replaces naming an order id not in the state. */
    public AtomicCounter unknownOrderUpdates()
    {
        return unknownOrderUpdates;
    }

    /** @return updates rejected: duplicate order id, invalid side, instrument id 0 or above 65535, oversized message. */
    public AtomicCounter rejectedUpdates()
    {
        return rejectedUpdates;
    }

    /** @return ring records read again after a restart and skipped because they had been applied. */
    public AtomicCounter recordsSkippedAfterRestart()
    {
        return recordsSkippedAfterRestart;
    }

    /** @return times the state was thrown away because the ring was new. */
    public AtomicCounter stateResets()
    {
        return stateResets;
    }

    /** @return stores undone on open because the previous process died in the middle of a message. */
    public AtomicCounter rolledBackStores()
    {
        return rolledBackStores;
    }

    /** @return the partition's market session, a {@link io.mdfanout.wire.MarketSession#value()} (gauge). */
    public AtomicCounter marketSession()
    {
        return marketSession;
    }

    /** Free the counters in their manager. */
    public void close()
    {
        CloseHelper.closeAll(ordersInState, instrumentsWithState, ordersRejectedPoolFull, unknownOrderUpdates,
            rejectedUpdates, recordsSkippedAfterRestart, stateResets, rolledBackStores, marketSession);
    }
}
