package io.mdfanout.sdk;

import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderAttributedEncoder;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.AddOrderEncoder;
import io.mdfanout.sbe.InstrumentDirectoryEncoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.OrderCancelDecoder;
import io.mdfanout.sbe.OrderCancelEncoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import io.mdfanout.sbe.OrderDeleteEncoder;
import io.mdfanout.sbe.OrderExecutedDecoder;
import io.mdfanout.sbe.OrderExecutedEncoder;
import io.mdfanout.sbe.OrderReplaceDecoder;
import io.mdfanout.sbe.OrderReplaceEncoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventEncoder;
import io.mdfanout.sbe.TradeEncoder;
import io.mdfanout.sbe.TradingState;
import io.mdfanout.sbe.TradingStatusEncoder;
import io.mdfanout.wire.WireFormat;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Test generator of a partition's incremental messages (directory, system events, trading status,
 * adds, attributed adds, executions, cancels, replaces, deletes, trades over a few instruments),
 * each a complete SBE message, plus {@link State}: an independent reference of the partition's
 * state (live orders, last state messages) that builds snapshots and the canonical book dump.
 */
final class MarketScript
{
    private MarketScript()
    {
    }

    /** Generate {@code count} messages (>= instruments + 1); the last is END_OF_MESSAGES when {@code end}. */
    static List<byte[]> generate(final long seed, final int count, final long[] instruments, final boolean end)
    {
        final Random random = new Random(seed);
        final Encoders encoders = new Encoders();
        final State state = new State();
        final List<byte[]> messages = new ArrayList<>(count);
        long nextOrderId = seed * 1_000_000L + 1;
        add(messages, state, encoders.systemEvent(1, SystemEventCode.START_OF_MESSAGES));
        for (final long instrument : instruments)
        {
            add(messages, state, encoders.directory(messages.size() + 1, instrument, "SYM" + instrument));
        }
        while (messages.size() < count - (end ? 1 : 0))
        {
            final long xseq = messages.size() + 1;
            final long instrument = instruments[random.nextInt(instruments.length)];
            final Map<Long, Order> live = state.orders.getOrDefault(instrument, new LinkedHashMap<>());
            final int op = random.nextInt(20);
            if (live.isEmpty() || op < 7)
            {
                final boolean buy = random.nextBoolean();
                final long price = 10_000 + random.nextInt(20) * 100L + (buy ? 0 : 2_100);
                final long shares = 100 + random.nextInt(10) * 100L;
                add(messages, state, op == 0 ?
                    encoders.addAttributed(xseq, instrument, nextOrderId++, buy, price, shares, "MPID") :
                    encoders.add(xseq, instrument, nextOrderId++, buy, price, shares));
                continue;
            }
            final Long[] ids = live.keySet().toArray(new Long[0]);
            final long orderId = ids[random.nextInt(ids.length)];
            final Order order = live.get(orderId);
            switch (op)
            {
                case 7, 8, 9 -> add(messages, state,
                    encoders.executed(xseq, instrument, orderId, Math.min(order.shares, 100)));
                case 10, 11 -> add(messages, state,
                    encoders.cancel(xseq, instrument, orderId, Math.min(order.shares, 50)));
                case 12, 13 -> add(messages, state, encoders.replace(
                    xseq, instrument, orderId, nextOrderId++, order.price + 100, order.shares + 100));
                case 14, 15, 16 -> add(messages, state, encoders.delete(xseq, instrument, orderId));
                case 17 -> add(messages, state, encoders.trade(xseq, instrument));
                default -> add(messages, state, encoders.tradingStatus(
                    xseq, instrument, random.nextBoolean() ? TradingState.TRADING : TradingState.PAUSED));
            }
        }
        if (end)
        {
            add(messages, state, encoders.systemEvent(messages.size() + 1, SystemEventCode.END_OF_MESSAGES));
        }
        return messages;
    }

    /** @return the reference state after the first {@code count} of the messages. */
    static State stateAfter(final List<byte[]> messages, final int count)
    {
        final State state = new State();
        state.applyAll(messages, 0, count);
        return state;
    }

    private static void add(final List<byte[]> messages, final State state, final byte[] message)
    {
        messages.add(message);
        state.apply(message);
    }

    /** Reference state of a partition after applying messages in order. */
    static final class State
    {
        final TreeMap<Long, LinkedHashMap<Long, Order>> orders = new TreeMap<>();
        final Map<Long, Long> instrumentByOrder = new TreeMap<>();
        final TreeMap<Long, TreeMap<Integer, byte[]>> stateMessages = new TreeMap<>();
        long lastExchangeSequence;
        private final MessageHeaderDecoder header = new MessageHeaderDecoder();

        State copy()
        {
            final State copy = new State();
            orders.forEach((instrument, byId) ->
            {
                final LinkedHashMap<Long, Order> copied = new LinkedHashMap<>();
                byId.forEach((id, order) -> copied.put(id, order.copy()));
                copy.orders.put(instrument, copied);
            });
            copy.instrumentByOrder.putAll(instrumentByOrder);
            stateMessages.forEach((instrument, byTemplate) -> copy.stateMessages.put(instrument, new TreeMap<>(byTemplate)));
            copy.lastExchangeSequence = lastExchangeSequence;
            return copy;
        }

        void applyAll(final List<byte[]> messages, final int fromIndex, final int toIndexExclusive)
        {
            for (int i = fromIndex; i < toIndexExclusive; i++)
            {
                apply(messages.get(i));
            }
        }

        void apply(final byte[] message)
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(message);
            header.wrap(buffer, 0);
            final int templateId = header.templateId();
            final int offset = WireFormat.HEADER_LENGTH;
            final int blockLength = header.blockLength();
            final int version = header.version();
            lastExchangeSequence = WireFormat.exchangeSequence(buffer, 0);
            if (WireFormat.isStateMessage(templateId))
            {
                stateMessages.computeIfAbsent(WireFormat.instrumentId(buffer, 0), k -> new TreeMap<>())
                    .put(templateId, message.clone());
                return;
            }
            switch (templateId)
            {
                case AddOrderDecoder.TEMPLATE_ID ->
                {
                    final AddOrderDecoder d = new AddOrderDecoder().wrap(buffer, offset, blockLength, version);
                    addOrder(d.instrumentId(), d.orderId(), d.sideRaw(), d.price().mantissa(), d.shares(), "    ");
                }
                case AddOrderAttributedDecoder.TEMPLATE_ID ->
                {
                    final AddOrderAttributedDecoder d =
                        new AddOrderAttributedDecoder().wrap(buffer, offset, blockLength, version);
                    addOrder(d.instrumentId(), d.orderId(), d.sideRaw(), d.price().mantissa(), d.shares(),
                        d.attribution());
                }
                case OrderExecutedDecoder.TEMPLATE_ID ->
                {
                    final OrderExecutedDecoder d = new OrderExecutedDecoder().wrap(buffer, offset, blockLength, version);
                    reduce(d.orderId(), d.executedShares());
                }
                case OrderCancelDecoder.TEMPLATE_ID ->
                {
                    final OrderCancelDecoder d = new OrderCancelDecoder().wrap(buffer, offset, blockLength, version);
                    reduce(d.orderId(), d.cancelledShares());
                }
                case OrderDeleteDecoder.TEMPLATE_ID ->
                    reduce(new OrderDeleteDecoder().wrap(buffer, offset, blockLength, version).orderId(), Long.MAX_VALUE);
                case OrderReplaceDecoder.TEMPLATE_ID ->
                {
                    final OrderReplaceDecoder d = new OrderReplaceDecoder().wrap(buffer, offset, blockLength, version);
                    final long instrument = instrumentByOrder.get(d.originalOrderId());
                    final Order original = orders.get(instrument).get(d.originalOrderId());
                    reduce(d.originalOrderId(), Long.MAX_VALUE);
                    addOrder(instrument, d.newOrderId(), original.side, d.price().mantissa(), d.shares(), "    ");
                }
                default ->
                {
                }
            }
        }

        private void addOrder(
            final long instrument, final long orderId, final byte side, final long price, final long shares,
            final String attribution)
        {
            orders.computeIfAbsent(instrument, k -> new LinkedHashMap<>())
                .put(orderId, new Order(orderId, side, price, shares, attribution));
            instrumentByOrder.put(orderId, instrument);
        }

        private void reduce(final long orderId, final long shares)
        {
            final long instrument = instrumentByOrder.get(orderId);
            final Order order = orders.get(instrument).get(orderId);
            order.shares -= Math.min(shares, order.shares);
            if (0 == order.shares)
            {
                orders.get(instrument).remove(orderId);
                instrumentByOrder.remove(orderId);
            }
        }

        /** Instruments (not market-wide) that have a state message or a live order. */
        boolean hasState(final long instrument)
        {
            return stateMessages.containsKey(instrument) ||
                (orders.containsKey(instrument) && !orders.get(instrument).isEmpty());
        }

        /** The canonical dump format of {@link io.mdfanout.sdk.book.OrderBooks#dump()}. */
        String dump()
        {
            final StringBuilder out = new StringBuilder();
            orders.forEach((instrument, byId) ->
            {
                if (byId.isEmpty())
                {
                    return;
                }
                out.append("I ").append(instrument).append('\n');
                dumpSide(out, byId, Side.BUY.value(), 'B', true);
                dumpSide(out, byId, Side.SELL.value(), 'S', false);
            });
            return out.toString();
        }

        private static void dumpSide(
            final StringBuilder out, final Map<Long, Order> byId, final byte side, final char tag, final boolean descending)
        {
            final TreeMap<Long, long[]> levels = new TreeMap<>();
            byId.values().stream().filter(o -> o.side == side).forEach(o ->
            {
                final long[] level = levels.computeIfAbsent(o.price, k -> new long[2]);
                level[0] += o.shares;
                level[1]++;
            });
            (descending ? levels.descendingMap() : levels).forEach((price, level) ->
                out.append(tag).append(' ').append(price).append(' ').append(level[0]).append(' ').append(level[1])
                    .append('\n'));
        }
    }

    static final class Order
    {
        final long orderId;
        final byte side;
        final long price;
        long shares;
        final String attribution;

        Order(final long orderId, final byte side, final long price, final long shares, final String attribution)
        {
            this.orderId = orderId;
            this.side = side;
            this.price = price;
            this.shares = shares;
            this.attribution = attribution;
        }

        Order copy()
        {
            return new Order(orderId, side, price, shares, attribution);
        }
    }

    /** Encodes one message at a time with the generated encoders. */
    private static final class Encoders
    {
        private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        private final MessageHeaderEncoder header = new MessageHeaderEncoder();

        private byte[] copy(final int blockLength)
        {
            final byte[] bytes = new byte[WireFormat.HEADER_LENGTH + blockLength];
            buffer.getBytes(0, bytes);
            return bytes;
        }

        byte[] systemEvent(final long xseq, final SystemEventCode code)
        {
            new SystemEventEncoder().wrapAndApplyHeader(buffer, 0, header)
                .exchangeSequence(xseq).exchangeTimestamp(xseq * 1000).instrumentId(0).eventCode(code);
            return copy(SystemEventEncoder.BLOCK_LENGTH);
        }

        byte[] directory(final long xseq, final long instrument, final String symbol)
        {
            new InstrumentDirectoryEncoder().wrapAndApplyHeader(buffer, 0, header)
                .exchangeSequence(xseq).exchangeTimestamp(xseq * 1000).instrumentId(instrument).symbol(symbol)
                .roundLotSize(100);
            return copy(InstrumentDirectoryEncoder.BLOCK_LENGTH);
        }

        byte[] tradingStatus(final long xseq, final long instrument, final TradingState state)
        {
            new TradingStatusEncoder().wrapAndApplyHeader(buffer, 0, header)
                .exchangeSequence(xseq).exchangeTimestamp(xseq * 1000).instrumentId(instrument).tradingState(state)
                .reason("    ");
            return copy(TradingStatusEncoder.BLOCK_LENGTH);
        }

        byte[] add(
            final long xseq, final long instrument, final long orderId, final boolean buy, final long price,
            final long shares)
        {
            new AddOrderEncoder().wrapAndApplyHeader(buffer, 0, header)
                .exchangeSequence(xseq).exchangeTimestamp(xseq * 1000).instrumentId(instrument).orderId(orderId)
                .shares(shares).side(buy ? Side.BUY : Side.SELL).price().mantissa(price);
            return copy(AddOrderEncoder.BLOCK_LENGTH);
        }

        byte[] addAttributed(
            final long xseq, final long instrument, final long orderId, final boolean buy, final long price,
            final long shares, final String mpid)
        {
            new AddOrderAttributedEncoder().wrapAndApplyHeader(buffer, 0, header)
                .exchangeSequence(xseq).exchangeTimestamp(xseq * 1000).instrumentId(instrument).orderId(orderId)
                .shares(shares).side(buy ? Side.BUY : Side.SELL).attribution(mpid).price().mantissa(price);
            return copy(AddOrderAttributedEncoder.BLOCK_LENGTH);
        }

        byte[] executed(final long xseq, final long instrument, final long orderId, final long shares)
        {
            new OrderExecutedEncoder().wrapAndApplyHeader(buffer, 0, header)
                .exchangeSequence(xseq).exchangeTimestamp(xseq * 1000).instrumentId(instrument).orderId(orderId)
                .executedShares(shares).matchNumber(xseq);
            return copy(OrderExecutedEncoder.BLOCK_LENGTH);
        }

        byte[] cancel(final long xseq, final long instrument, final long orderId, final long shares)
        {
            new OrderCancelEncoder().wrapAndApplyHeader(buffer, 0, header)
                .exchangeSequence(xseq).exchangeTimestamp(xseq * 1000).instrumentId(instrument).orderId(orderId)
                .cancelledShares(shares);
            return copy(OrderCancelEncoder.BLOCK_LENGTH);
        }

        byte[] replace(
            final long xseq, final long instrument, final long orderId, final long newOrderId, final long price,
            final long shares)
        {
            new OrderReplaceEncoder().wrapAndApplyHeader(buffer, 0, header)
                .exchangeSequence(xseq).exchangeTimestamp(xseq * 1000).instrumentId(instrument)
                .originalOrderId(orderId).newOrderId(newOrderId).shares(shares).price().mantissa(price);
            return copy(OrderReplaceEncoder.BLOCK_LENGTH);
        }

        byte[] delete(final long xseq, final long instrument, final long orderId)
        {
            new OrderDeleteEncoder().wrapAndApplyHeader(buffer, 0, header)
                .exchangeSequence(xseq).exchangeTimestamp(xseq * 1000).instrumentId(instrument).orderId(orderId);
            return copy(OrderDeleteEncoder.BLOCK_LENGTH);
        }

        byte[] trade(final long xseq, final long instrument)
        {
            new TradeEncoder().wrapAndApplyHeader(buffer, 0, header)
                .exchangeSequence(xseq).exchangeTimestamp(xseq * 1000).instrumentId(instrument).orderId(0)
                .shares(100).side(Side.BUY).matchNumber(xseq).price().mantissa(10_000);
            return copy(TradeEncoder.BLOCK_LENGTH);
        }
    }
}
