package io.mdfanout.sdk.book;

import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

/**
 * Counters of {@link OrderBooks}: single writer (the polling thread), readable from any thread.
 */
public final class BookCounters implements AutoCloseable
{
    /** Counter type id of every book counter. */
    public static final int BOOK_COUNTER_TYPE_ID = 7001_200;
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
        ordersApplied = countersManager.newCounter(prefix + "order events applied", BOOK_COUNTER_TYPE_ID);
        unknownOrderReferences = countersManager.newCounter(
            prefix + "unknown order references ignored", BOOK_COUNTER_TYPE_ID);
        duplicateOrderIds = countersManager.newCounter(prefix + "duplicate order ids ignored", BOOK_COUNTER_TYPE_ID);
        invalidOrders = countersManager.newCounter(
            prefix + "invalid orders ignored (bad side)", BOOK_COUNTER_TYPE_ID);
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
