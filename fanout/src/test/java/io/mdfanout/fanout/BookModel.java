package io.mdfanout.fanout;

import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.OrderCancelDecoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import io.mdfanout.sbe.OrderExecutedDecoder;
import io.mdfanout.sbe.OrderExecutedWithPriceDecoder;
import io.mdfanout.sbe.OrderReplaceDecoder;
import io.mdfanout.sbe.SnapshotOrderDecoder;
import io.mdfanout.wire.WireFormat;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The reference the fanout's state is checked against: a plain-Java partition state built from
 * normalized messages (the SDK's book semantics), or from a snapshot's messages. {@link #toString()}
 * is a canonical dump: equal dumps mean equal state.
 */
public final class BookModel
{
    public record Order(long instrumentId, long price, long shares, byte side, String attribution)
    {
    }

    public final Map<Long, Order> orders = new LinkedHashMap<>();
    public final Map<Long, Map<Integer, byte[]>> stateMessages = new TreeMap<>(); // instrument (0 = market) -> template -> bytes

    private final MessageHeaderDecoder header = new MessageHeaderDecoder();

    /** Apply one normalized message (header included). */
    public void apply(final byte[] message)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(message);
        header.wrap(buffer, 0);
        final int templateId = header.templateId();
        if (WireFormat.isStateMessage(templateId))
        {
            final long instrumentId = isMarketWide(templateId) ? 0 : WireFormat.instrumentId(buffer, 0);
            stateMessages.computeIfAbsent(instrumentId, (id) -> new TreeMap<>()).put(templateId, message.clone());
            return;
        }
        switch (templateId)
        {
            case AddOrderDecoder.TEMPLATE_ID ->
            {
                final AddOrderDecoder m = new AddOrderDecoder().wrapAndApplyHeader(buffer, 0, header);
                orders.putIfAbsent(
                    m.orderId(), new Order(m.instrumentId(), m.price().mantissa(), m.shares(), m.sideRaw(), "    "));
            }
            case AddOrderAttributedDecoder.TEMPLATE_ID ->
            {
                final AddOrderAttributedDecoder m = new AddOrderAttributedDecoder().wrapAndApplyHeader(buffer, 0, header);
                orders.putIfAbsent(m.orderId(),
                    new Order(m.instrumentId(), m.price().mantissa(), m.shares(), m.sideRaw(), m.attribution()));
            }
            case OrderExecutedDecoder.TEMPLATE_ID ->
            {
                final OrderExecutedDecoder m = new OrderExecutedDecoder().wrapAndApplyHeader(buffer, 0, header);
                reduce(m.orderId(), m.executedShares());
            }
            case OrderExecutedWithPriceDecoder.TEMPLATE_ID ->
            {
                final OrderExecutedWithPriceDecoder m = new OrderExecutedWithPriceDecoder().wrapAndApplyHeader(buffer, 0, header);
                reduce(m.orderId(), m.executedShares());
            }
            case OrderCancelDecoder.TEMPLATE_ID ->
            {
                final OrderCancelDecoder m = new OrderCancelDecoder().wrapAndApplyHeader(buffer, 0, header);
                reduce(m.orderId(), m.cancelledShares());
            }
            case OrderDeleteDecoder.TEMPLATE_ID ->
            {
                final OrderDeleteDecoder m = new OrderDeleteDecoder().wrapAndApplyHeader(buffer, 0, header);
                reduce(m.orderId(), Long.MAX_VALUE);
            }
            case OrderReplaceDecoder.TEMPLATE_ID ->
            {
                final OrderReplaceDecoder m = new OrderReplaceDecoder().wrapAndApplyHeader(buffer, 0, header);
                final Order original = orders.get(m.originalOrderId());
                if (null != original && (m.newOrderId() == m.originalOrderId() || !orders.containsKey(m.newOrderId())))
                {
                    orders.remove(m.originalOrderId());
                    orders.put(m.newOrderId(),
                        new Order(original.instrumentId(), m.price().mantissa(), m.shares(), original.side(), "    "));
                }
            }
            default ->
            {
            }
        }
    }

    /** Add an order as read from a state or a snapshot. */
    public void putOrder(final long orderId, final long instrumentId, final long price, final long shares,
        final byte side, final String attribution)
    {
        orders.put(orderId, new Order(instrumentId, price, shares, side, attribution));
    }

    /** Add a state message as read from a state or a snapshot (market-wide ones under instrument 0). */
    public void putStateMessage(final byte[] message)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(message);
        final int templateId = new MessageHeaderDecoder().wrap(buffer, 0).templateId();
        final long instrumentId = isMarketWide(templateId) ? 0 : WireFormat.instrumentId(buffer, 0);
        stateMessages.computeIfAbsent(instrumentId, (id) -> new TreeMap<>()).put(templateId, message.clone());
    }

    /** Add an order from a snapshot. */
    public void applySnapshotOrder(final SnapshotOrderDecoder m)
    {
        orders.put(m.orderId(), new Order(m.instrumentId(), m.price().mantissa(), m.shares(), m.sideRaw(), m.attribution()));
    }

    /** @return the instrument an order message refers to through the book (or its own instrument id). */
    public long instrumentOf(final byte[] message)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(message);
        return isMarketWide(new MessageHeaderDecoder().wrap(buffer, 0).templateId()) ? 0 : WireFormat.instrumentId(buffer, 0);
    }

    private static boolean isMarketWide(final int templateId)
    {
        return templateId == 10 || templateId == 14 || templateId == 15;
    }

    private void reduce(final long orderId, final long shares)
    {
        final Order order = orders.get(orderId);
        if (null == order)
        {
            return;
        }
        if (shares >= order.shares())
        {
            orders.remove(orderId);
        }
        else
        {
            orders.put(orderId, new Order(order.instrumentId(), order.price(), order.shares() - shares, order.side(),
                order.attribution()));
        }
    }

    /** Canonical dump: per instrument its state messages and its orders sorted by id. */
    public String toString()
    {
        final StringBuilder out = new StringBuilder();
        final Map<Long, StringBuilder> byInstrument = new TreeMap<>();
        stateMessages.forEach((id, messages) -> messages.forEach((template, bytes) ->
            byInstrument.computeIfAbsent(id, (k) -> new StringBuilder())
                .append(" msg ").append(template).append('=').append(Arrays.toString(bytes)).append('\n')));
        new TreeMap<>(orders).forEach((id, order) -> byInstrument
            .computeIfAbsent(order.instrumentId(), (k) -> new StringBuilder())
            .append(" order ").append(id).append(' ').append((char)order.side()).append(' ').append(order.price())
            .append(' ').append(order.shares()).append(" '").append(order.attribution()).append("'\n"));
        byInstrument.forEach((id, text) -> out.append("instrument ").append(id).append('\n').append(text));
        return out.toString();
    }
}
