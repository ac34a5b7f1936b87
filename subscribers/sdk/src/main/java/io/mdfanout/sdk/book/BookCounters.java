package io.mdfanout.sdk.book;

import io.mdfanout.wire.MdfanoutCounters;
import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

import static io.mdfanout.wire.MdfanoutCounters.BOOK_DUPLICATE_ORDER_IDS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.BOOK_INVALID_ORDERS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.BOOK_ORDER_EVENTS_APPLIED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.BOOK_UNKNOWN_ORDER_REFERENCES_TYPE_ID;

/**
 * Counters of {@link OrderBooks}: single writer (the polling thread), readable from any thread.
 */
public final class BookCounters implements AutoCloseable
{
    /** How many counters one instance allocates. */
    public static final int COUNTER_COUNT = 4;

    private final AtomicCounter ordersApplied;
    private final AtomicCounter unknownOrderReferences;
    private final AtomicCounter duplicateOrderIds;
    private final AtomicCounter invalidOrders;

    /**
     * Allocate the counters.
     *
     * @param countersManager where to allocate them.
     * @param name distinguishes these counters in labels.
     */
    public BookCounters(final CountersManager countersManager, final String name)
    {
        final String prefix = "mdfanout-sdk books " + name + ": ";
        ordersApplied = newCounter(
            countersManager, prefix + "order events applied", BOOK_ORDER_EVENTS_APPLIED_TYPE_ID, name);
        unknownOrderReferences = newCounter(
            countersManager, prefix + "unknown order references ignored", BOOK_UNKNOWN_ORDER_REFERENCES_TYPE_ID, name);
        duplicateOrderIds = newCounter(
            countersManager, prefix + "duplicate order ids ignored", BOOK_DUPLICATE_ORDER_IDS_TYPE_ID, name);
        invalidOrders = newCounter(
            countersManager, prefix + "invalid orders ignored (bad side)", BOOK_INVALID_ORDERS_TYPE_ID, name);
    }

    private static AtomicCounter newCounter(
        final CountersManager countersManager, final String label, final int typeId, final String name)
    {
        // Key: the subscriber's name, from which the metrics' label subscriber is derived.
        return countersManager.newCounter(label, typeId, (key) -> MdfanoutCounters.putSubscriberKey(key, name));
    }

    /** @return add, execute, cancel, delete and replace events applied to a book. */
    public long ordersApplied()
    {
        return ordersApplied.get();
    }

    /** @return executions, cancels, deletes and replaces naming an order not in the books. */
    public long unknownOrderReferences()
    {
        return unknownOrderReferences.get();
    }

    /** @return adds (or replaces) whose new order id already rests in the books. */
    public long duplicateOrderIds()
    {
        return duplicateOrderIds.get();
    }

    /** @return adds with a side other than B or S. */
    public long invalidOrders()
    {
        return invalidOrders.get();
    }

    void onApplied()
    {
        ordersApplied.incrementRelease();
    }

    void onUnknownOrderReference()
    {
        unknownOrderReferences.incrementRelease();
    }

    void onDuplicateOrderId()
    {
        duplicateOrderIds.incrementRelease();
    }

    void onInvalidOrder()
    {
        invalidOrders.incrementRelease();
    }

    /** Free the counters in their manager. */
    public void close()
    {
        CloseHelper.closeAll(ordersApplied, unknownOrderReferences, duplicateOrderIds, invalidOrders);
    }
}
