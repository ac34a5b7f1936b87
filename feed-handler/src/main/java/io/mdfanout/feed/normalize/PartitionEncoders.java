package io.mdfanout.feed.normalize;

import io.mdfanout.sbe.AddOrderEncoder;
import io.mdfanout.sbe.OrderCancelEncoder;
import io.mdfanout.sbe.OrderDeleteEncoder;
import io.mdfanout.sbe.OrderExecutedEncoder;
import io.mdfanout.sbe.OrderExecutedWithPriceEncoder;
import io.mdfanout.sbe.OrderReplaceEncoder;
import io.mdfanout.sbe.TradeEncoder;
import org.agrona.concurrent.AtomicBuffer;

/**
 * One partition ring's writer, its {@link ClaimedRecord} (through which the normalizer's direct
 * path stores order flow by address), and its own SBE encoders for the order-flow templates, each
 * wrapped once over that ring's buffer, for order flow on the general path (without an instrument).
 * <p>
 * Why one set per partition rather than one shared set: an encoder shared by every ring is re-wrapped
 * over a different ring's buffer for most messages (the partition follows the instrument), and every
 * such wrap stores a reference, which under G1 runs the collector's write barriers. Wrapped over
 * the same buffer each time, SBE's {@code wrap} stores only the offset. The barriers showed as a
 * lead of {@code -XX:+UseParallelGC} (whose barrier is a plain card mark) over G1 in
 * {@code ItchNormalizeUncheckedBenchmark}, which this class closed (the figures:
 * docs/bench/CODE-NOTES.md).
 * <p>
 * Single-threaded, owned by the normalizer that writes the ring.
 */
final class PartitionEncoders
{
    final int partition;
    final BatchingRingWriter ring;
    /** Records of messages up to this exchange sequence are in the ring since before a restart: not written again. */
    long skipThrough = -1;
    final AtomicBuffer buffer;
    final ClaimedRecord record;
    final AddOrderEncoder addOrder = new AddOrderEncoder();
    final OrderDeleteEncoder orderDelete = new OrderDeleteEncoder();
    final OrderCancelEncoder orderCancel = new OrderCancelEncoder();
    final OrderExecutedEncoder orderExecuted = new OrderExecutedEncoder();
    final OrderExecutedWithPriceEncoder orderExecutedWithPrice = new OrderExecutedWithPriceEncoder();
    final OrderReplaceEncoder orderReplace = new OrderReplaceEncoder();
    final TradeEncoder trade = new TradeEncoder();

    PartitionEncoders(final int partition, final BatchingRingWriter ring)
    {
        this.partition = partition;
        this.ring = ring;
        this.buffer = ring.buffer();
        this.record = new ClaimedRecord(buffer);
        // Wrapped here, and each composite (price) once through its parent, so that the message
        // path's wraps find their buffer already in place.
        addOrder.wrap(buffer, 0).price();
        orderDelete.wrap(buffer, 0);
        orderCancel.wrap(buffer, 0);
        orderExecuted.wrap(buffer, 0);
        orderExecutedWithPrice.wrap(buffer, 0).executionPrice();
        orderReplace.wrap(buffer, 0).price();
        trade.wrap(buffer, 0).price();
    }
}
