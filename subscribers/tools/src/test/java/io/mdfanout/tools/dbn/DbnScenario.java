package io.mdfanout.tools.dbn;

import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderAttributedEncoder;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.AddOrderEncoder;
import io.mdfanout.sbe.BrokenTradeDecoder;
import io.mdfanout.sbe.BrokenTradeEncoder;
import io.mdfanout.sbe.CrossTradeDecoder;
import io.mdfanout.sbe.CrossTradeEncoder;
import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sbe.GapNoticeEncoder;
import io.mdfanout.sbe.GapReason;
import io.mdfanout.sbe.ImbalanceDecoder;
import io.mdfanout.sbe.ImbalanceEncoder;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.InstrumentDirectoryDecoder;
import io.mdfanout.sbe.InstrumentDirectoryEncoder;
import io.mdfanout.sbe.MwcbDeclineLevelDecoder;
import io.mdfanout.sbe.MwcbDeclineLevelEncoder;
import io.mdfanout.sbe.MwcbStatusDecoder;
import io.mdfanout.sbe.MwcbStatusEncoder;
import io.mdfanout.sbe.OperationalHaltDecoder;
import io.mdfanout.sbe.OperationalHaltEncoder;
import io.mdfanout.sbe.OrderCancelDecoder;
import io.mdfanout.sbe.OrderCancelEncoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import io.mdfanout.sbe.OrderDeleteEncoder;
import io.mdfanout.sbe.OrderExecutedDecoder;
import io.mdfanout.sbe.OrderExecutedEncoder;
import io.mdfanout.sbe.OrderExecutedWithPriceDecoder;
import io.mdfanout.sbe.OrderExecutedWithPriceEncoder;
import io.mdfanout.sbe.OrderReplaceDecoder;
import io.mdfanout.sbe.OrderReplaceEncoder;
import io.mdfanout.sbe.RegShoRestrictionDecoder;
import io.mdfanout.sbe.RegShoRestrictionEncoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SnapshotInstrumentDecoder;
import io.mdfanout.sbe.SnapshotInstrumentEncoder;
import io.mdfanout.sbe.SnapshotOrderDecoder;
import io.mdfanout.sbe.SnapshotOrderEncoder;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sbe.SystemEventEncoder;
import io.mdfanout.sbe.TradeDecoder;
import io.mdfanout.sbe.TradeEncoder;
import io.mdfanout.sbe.TradingState;
import io.mdfanout.sbe.TradingStatusDecoder;
import io.mdfanout.sbe.TradingStatusEncoder;
import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.TestMessageContexts;
import io.mdfanout.wire.WireFormat;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A generated session of every SBE template over several instruments and two partitions, with a snapshot of
 * partition 0 in the middle, fed to a listener through its callbacks; alongside, what the DBN export must hold
 * for it, worked out from a separate, simple model of the mapping in docs/EXPORT.md.
 */
final class DbnScenario
{
    static final String[] SYMBOLS = {"", "AAPL", "MSFT", "QQQ", "TSLA", "ZVZZT"};
    static final int INSTRUMENTS = SYMBOLS.length - 1;
    /** Messages are encoded with their SBE header at 0: the block starts here. */
    private static final int H = WireFormat.HEADER_LENGTH;

    /** One MBO record as the export must hold it. */
    static final class Mbo
    {
        long tsRecv;
        long tsEvent;
        long instrumentId;
        String action;
        String side;
        long price;
        long size;
        long channel;
        long orderId;
        long flags;
        long sequence;
    }

    /** A live order of the model. */
    private static final class Order
    {
        final long instrumentId;
        final long price;
        final String side;
        long size;

        Order(final long instrumentId, final long price, final String side, final long size)
        {
            this.instrumentId = instrumentId;
            this.price = price;
            this.side = side;
            this.size = size;
        }
    }

    final List<Mbo> mbo = new ArrayList<>();
    final List<long[]> status = new ArrayList<>();         // instrument id, action, reason
    final List<Long> definitions = new ArrayList<>();      // instrument ids
    final List<long[]> imbalance = new ArrayList<>();      // instrument id, ref price
    int messages;
    long firstTsEvent = Long.MAX_VALUE;
    long lastTsEvent;

    private final long midnight;
    private final MarketDataListener listener;
    private final Random random = new Random(29);
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final MessageContext context = new MessageContext();
    private final Map<Long, Order> orders = new LinkedHashMap<>();
    private long exchangeTime = 4L * 3600 * 1_000_000_000L;       // 04:00 ET
    private long exchangeSequence = 4_294_967_000L;                // crosses 2^32: DBN keeps the low 32 bits
    private long streamSequence;
    private long nextOrderId = 1_000;
    private long tsRecv;
    private long tsEvent;
    private boolean snapshot;

    DbnScenario(final long midnightEpochNs, final MarketDataListener listener)
    {
        this.midnight = midnightEpochNs;
        this.listener = listener;
    }

    static int partition(final long instrumentId)
    {
        return (int)(instrumentId % 2);
    }

    void run(final int events)
    {
        systemEvent(SystemEventCode.START_OF_MESSAGES);
        systemEvent(SystemEventCode.START_OF_SYSTEM_HOURS);
        for (long id = 1; id <= INSTRUMENTS; id++)
        {
            directory(id);
            tradingStatus(id, TradingState.TRADING, "    ");
        }
        systemEvent(SystemEventCode.START_OF_MARKET_HOURS);
        randomEvents(events / 2);
        snapshotOfPartition0();
        randomEvents(events - events / 2);
        systemEvent(SystemEventCode.END_OF_MARKET_HOURS);
        systemEvent(SystemEventCode.END_OF_MESSAGES);
    }

    private void randomEvents(final int count)
    {
        for (int i = 0; i < count; i++)
        {
            final int kind = random.nextInt(100);
            final Order any = orders.isEmpty() ? null : pickOrder();
            if (kind < 35 || any == null)
            {
                add(1 + random.nextInt(INSTRUMENTS), random.nextBoolean());
            }
            else if (kind < 45)
            {
                executed(any, false);
            }
            else if (kind < 52)
            {
                executed(any, true);
            }
            else if (kind < 60)
            {
                cancel(any);
            }
            else if (kind < 70)
            {
                delete(any);
            }
            else if (kind < 80)
            {
                replace(any);
            }
            else if (kind < 84)
            {
                trade(1 + random.nextInt(INSTRUMENTS));
            }
            else if (kind < 86)
            {
                cross(1 + random.nextInt(INSTRUMENTS));
            }
            else if (kind < 88)
            {
                tradingStatus(1 + random.nextInt(INSTRUMENTS), random.nextBoolean() ? TradingState.HALTED :
                    TradingState.TRADING, random.nextBoolean() ? "T1  " : "LUDP");
            }
            else if (kind < 90)
            {
                regSho(1 + random.nextInt(INSTRUMENTS));
            }
            else if (kind < 92)
            {
                operationalHalt(1 + random.nextInt(INSTRUMENTS));
            }
            else if (kind < 94)
            {
                imbalance(1 + random.nextInt(INSTRUMENTS));
            }
            else if (kind < 95)
            {
                mwcbStatus();
            }
            else if (kind < 97)
            {
                unmapped(1 + random.nextInt(INSTRUMENTS));
            }
            else
            {
                directory(1 + random.nextInt(INSTRUMENTS));
            }
        }
    }

    private Order pickOrder()
    {
        final int index = random.nextInt(orders.size());
        int i = 0;
        for (final Map.Entry<Long, Order> entry : orders.entrySet())
        {
            if (i++ == index)
            {
                return entry.getValue();
            }
        }
        throw new IllegalStateException();
    }

    private long orderIdOf(final Order order)
    {
        for (final Map.Entry<Long, Order> entry : orders.entrySet())
        {
            if (entry.getValue() == order)
            {
                return entry.getKey();
            }
        }
        throw new IllegalStateException();
    }

    // ----- the feed -----

    private MessageContext next(final long instrumentId, final int templateId)
    {
        exchangeTime += 1 + random.nextInt(2_000_000);
        exchangeSequence++;
        streamSequence++;
        messages++;
        tsEvent = midnight + exchangeTime;
        tsRecv = tsEvent + 20_000 + random.nextInt(50_000);
        return TestMessageContexts.set(context, partition(instrumentId), tsRecv, streamSequence, templateId, snapshot);
    }

    /** The whole message (header and block, at 0) goes first to onRawMessage, as a dispatcher does. */
    private MessageContext raw(final MessageContext ctx)
    {
        final int blockLength = buffer.getShort(0, WireFormat.BYTE_ORDER) & 0xFFFF;
        listener.onRawMessage(ctx, buffer, 0, H + blockLength);
        return ctx;
    }

    private void add(final long instrumentId, final boolean attributed)
    {
        final long orderId = nextOrderId++;
        final long mantissa = 1_000_000 + random.nextInt(5_000_000);
        final long shares = 1 + random.nextInt(5_000);
        final Side side = random.nextBoolean() ? Side.BUY : Side.SELL;
        final MessageContext ctx = next(instrumentId, attributed ? AddOrderAttributedEncoder.TEMPLATE_ID :
            AddOrderEncoder.TEMPLATE_ID);
        if (attributed)
        {
            final AddOrderAttributedEncoder e = new AddOrderAttributedEncoder().wrapAndApplyHeader(buffer, 0, header);
            e.exchangeSequence(exchangeSequence).exchangeTimestamp(exchangeTime).instrumentId(instrumentId)
                .orderId(orderId).shares(shares).side(side).attribution("GSCO");
            e.price().mantissa(mantissa);
            listener.onAddOrderAttributed(raw(ctx), new AddOrderAttributedDecoder().wrap(
                buffer, H, AddOrderAttributedEncoder.BLOCK_LENGTH, AddOrderAttributedEncoder.SCHEMA_VERSION));
        }
        else
        {
            final AddOrderEncoder e = new AddOrderEncoder().wrapAndApplyHeader(buffer, 0, header);
            e.exchangeSequence(exchangeSequence).exchangeTimestamp(exchangeTime).instrumentId(instrumentId)
                .orderId(orderId).shares(shares).side(side);
            e.price().mantissa(mantissa);
            listener.onAddOrder(raw(ctx), new AddOrderDecoder().wrap(
                buffer, H, AddOrderEncoder.BLOCK_LENGTH, AddOrderEncoder.SCHEMA_VERSION));
        }
        final Order order = new Order(instrumentId, mantissa * 100_000, side == Side.BUY ? "B" : "A", shares);
        orders.put(orderId, order);
        expect(instrumentId, "A", order.side, order.price, shares, orderId, Dbn.F_LAST);
    }

    private void executed(final Order order, final boolean withPrice)
    {
        final long orderId = orderIdOf(order);
        final long shares = 1 + random.nextInt((int)order.size);
        final MessageContext ctx = next(order.instrumentId, withPrice ? OrderExecutedWithPriceEncoder.TEMPLATE_ID :
            OrderExecutedEncoder.TEMPLATE_ID);
        long fillPrice = order.price;
        final boolean printable = !withPrice || random.nextInt(4) != 0;
        if (withPrice)
        {
            final long mantissa = order.price / 100_000 - random.nextInt(100);
            fillPrice = mantissa * 100_000;
            final OrderExecutedWithPriceEncoder e = new OrderExecutedWithPriceEncoder().wrapAndApplyHeader(buffer, 0, header);
            e.exchangeSequence(exchangeSequence).exchangeTimestamp(exchangeTime).instrumentId(order.instrumentId)
                .orderId(orderId).matchNumber(exchangeSequence).executedShares(shares)
                .printable(printable ? (byte)'Y' : (byte)'N');
            e.executionPrice().mantissa(mantissa);
            listener.onOrderExecutedWithPrice(raw(ctx), new OrderExecutedWithPriceDecoder().wrap(
                buffer, H, OrderExecutedWithPriceEncoder.BLOCK_LENGTH, OrderExecutedWithPriceEncoder.SCHEMA_VERSION));
        }
        else
        {
            new OrderExecutedEncoder().wrapAndApplyHeader(buffer, 0, header)
                .exchangeSequence(exchangeSequence).exchangeTimestamp(exchangeTime)
                .instrumentId(order.instrumentId).orderId(orderId).matchNumber(exchangeSequence).executedShares(shares);
            listener.onOrderExecuted(raw(ctx), new OrderExecutedDecoder().wrap(
                buffer, H, OrderExecutedEncoder.BLOCK_LENGTH, OrderExecutedEncoder.SCHEMA_VERSION));
        }
        if (printable)
        {
            // A non-printable execution is no print: only the cancel of the executed shares (docs/EXPORT.md)
            expect(order.instrumentId, "F", order.side, fillPrice, shares, orderId, 0);
        }
        expect(order.instrumentId, "C", order.side, order.price, shares, orderId, Dbn.F_LAST);
        reduce(orderId, order, shares);
    }

    private void cancel(final Order order)
    {
        final long orderId = orderIdOf(order);
        final long shares = 1 + random.nextInt((int)order.size);
        final MessageContext ctx = next(order.instrumentId, OrderCancelEncoder.TEMPLATE_ID);
        new OrderCancelEncoder().wrapAndApplyHeader(buffer, 0, header)
            .exchangeSequence(exchangeSequence).exchangeTimestamp(exchangeTime)
            .instrumentId(order.instrumentId).orderId(orderId).cancelledShares(shares);
        listener.onOrderCancel(raw(ctx), new OrderCancelDecoder().wrap(
            buffer, H, OrderCancelEncoder.BLOCK_LENGTH, OrderCancelEncoder.SCHEMA_VERSION));
        expect(order.instrumentId, "C", order.side, order.price, shares, orderId, Dbn.F_LAST);
        reduce(orderId, order, shares);
    }

    private void delete(final Order order)
    {
        final long orderId = orderIdOf(order);
        final MessageContext ctx = next(order.instrumentId, OrderDeleteEncoder.TEMPLATE_ID);
        new OrderDeleteEncoder().wrapAndApplyHeader(buffer, 0, header)
            .exchangeSequence(exchangeSequence).exchangeTimestamp(exchangeTime)
            .instrumentId(order.instrumentId).orderId(orderId);
        listener.onOrderDelete(raw(ctx), new OrderDeleteDecoder().wrap(
            buffer, H, OrderDeleteEncoder.BLOCK_LENGTH, OrderDeleteEncoder.SCHEMA_VERSION));
        expect(order.instrumentId, "C", order.side, order.price, order.size, orderId, Dbn.F_LAST);
        orders.remove(orderId);
    }

    private void replace(final Order order)
    {
        final long orderId = orderIdOf(order);
        final long newOrderId = nextOrderId++;
        final long mantissa = 1_000_000 + random.nextInt(5_000_000);
        final long shares = 1 + random.nextInt(5_000);
        final MessageContext ctx = next(order.instrumentId, OrderReplaceEncoder.TEMPLATE_ID);
        final OrderReplaceEncoder e = new OrderReplaceEncoder().wrapAndApplyHeader(buffer, 0, header);
        e.exchangeSequence(exchangeSequence).exchangeTimestamp(exchangeTime).instrumentId(order.instrumentId)
            .originalOrderId(orderId).newOrderId(newOrderId).shares(shares);
        e.price().mantissa(mantissa);
        listener.onOrderReplace(raw(ctx), new OrderReplaceDecoder().wrap(
            buffer, H, OrderReplaceEncoder.BLOCK_LENGTH, OrderReplaceEncoder.SCHEMA_VERSION));
        expect(order.instrumentId, "C", order.side, order.price, order.size, orderId, 0);
        orders.remove(orderId);
        final Order replacement = new Order(order.instrumentId, mantissa * 100_000, order.side, shares);
        orders.put(newOrderId, replacement);
        expect(order.instrumentId, "A", replacement.side, replacement.price, shares, newOrderId, Dbn.F_LAST);
    }

    private void trade(final long instrumentId)
    {
        final long mantissa = 1_000_000 + random.nextInt(5_000_000);
        final long shares = 1 + random.nextInt(1_000);
        final MessageContext ctx = next(instrumentId, TradeEncoder.TEMPLATE_ID);
        final TradeEncoder e = new TradeEncoder().wrapAndApplyHeader(buffer, 0, header);
        e.exchangeSequence(exchangeSequence).exchangeTimestamp(exchangeTime).instrumentId(instrumentId)
            .orderId(0).matchNumber(exchangeSequence).shares(shares).side(Side.BUY);
        e.price().mantissa(mantissa);
        listener.onTrade(raw(ctx), new TradeDecoder().wrap(buffer, H, TradeEncoder.BLOCK_LENGTH, TradeEncoder.SCHEMA_VERSION));
        expect(instrumentId, "T", "N", mantissa * 100_000, shares, 0, Dbn.F_LAST);
    }

    private void cross(final long instrumentId)
    {
        final long mantissa = 1_000_000 + random.nextInt(5_000_000);
        final long shares = 1 + random.nextInt(1_000_000);
        final MessageContext ctx = next(instrumentId, CrossTradeEncoder.TEMPLATE_ID);
        final CrossTradeEncoder e = new CrossTradeEncoder().wrapAndApplyHeader(buffer, 0, header);
        e.exchangeSequence(exchangeSequence).exchangeTimestamp(exchangeTime).instrumentId(instrumentId)
            .shares(shares).matchNumber(exchangeSequence).crossType((byte)'O');
        e.crossPrice().mantissa(mantissa);
        listener.onCrossTrade(raw(ctx), new CrossTradeDecoder().wrap(
            buffer, H, CrossTradeEncoder.BLOCK_LENGTH, CrossTradeEncoder.SCHEMA_VERSION));
        expect(instrumentId, "T", "N", mantissa * 100_000, shares, 0, Dbn.F_LAST);
    }

    private void reduce(final long orderId, final Order order, final long shares)
    {
        order.size -= shares;
        if (order.size == 0)
        {
            orders.remove(orderId);
        }
    }

    private void snapshotOfPartition0()
    {
        // Partition 0 holds instruments 2 and 4: the snapshot names instrument 2 with its orders and leaves 4 out
        // (as if its orders had all gone while the partition was stale), so 4 is cleared once the snapshot is over.
        listener.onSnapshotBegin(0, 7, streamSequence);
        snapshot = true;
        final List<Long> cleared = new ArrayList<>();
        for (final Map.Entry<Long, Order> entry : new ArrayList<>(orders.entrySet()))
        {
            if (entry.getValue().instrumentId == 4)
            {
                orders.remove(entry.getKey());
                if (!cleared.contains(4L))
                {
                    cleared.add(4L);
                }
            }
        }
        directory(2);
        final List<Map.Entry<Long, Order>> live = new ArrayList<>();
        for (final Map.Entry<Long, Order> entry : orders.entrySet())
        {
            if (entry.getValue().instrumentId == 2)
            {
                live.add(entry);
            }
        }
        final int snapshotFlags = Dbn.F_SNAPSHOT | Dbn.F_BAD_TS_RECV;
        MessageContext ctx = next(2, SnapshotInstrumentEncoder.TEMPLATE_ID);
        new SnapshotInstrumentEncoder().wrapAndApplyHeader(buffer, 0, header)
            .exchangeSequence(exchangeSequence).exchangeTimestamp(exchangeTime)
            .instrumentId(2).snapshotId(7).lastStreamSequence(streamSequence).coveredFromInstrumentId(0)
            .orderCount(live.size());
        listener.onSnapshotInstrument(raw(ctx), new SnapshotInstrumentDecoder().wrap(
            buffer, H, SnapshotInstrumentEncoder.BLOCK_LENGTH, SnapshotInstrumentEncoder.SCHEMA_VERSION));
        expect(2, "R", "N", Dbn.UNDEF_PRICE, 0, 0, snapshotFlags | (live.isEmpty() ? Dbn.F_LAST : 0));
        for (int i = 0; i < live.size(); i++)
        {
            final Order order = live.get(i).getValue();
            final long orderId = live.get(i).getKey();
            ctx = next(2, SnapshotOrderEncoder.TEMPLATE_ID);
            final SnapshotOrderEncoder e = new SnapshotOrderEncoder().wrapAndApplyHeader(buffer, 0, header);
            e.exchangeSequence(exchangeSequence).exchangeTimestamp(exchangeTime).instrumentId(2).orderId(orderId)
                .shares(order.size).side("B".equals(order.side) ? Side.BUY : Side.SELL).attribution("    ");
            e.price().mantissa(order.price / 100_000);
            listener.onSnapshotOrder(raw(ctx), new SnapshotOrderDecoder().wrap(
                buffer, H, SnapshotOrderEncoder.BLOCK_LENGTH, SnapshotOrderEncoder.SCHEMA_VERSION));
            expect(2, "A", order.side, order.price, order.size, orderId,
                snapshotFlags | (i == live.size() - 1 ? Dbn.F_LAST : 0));
        }
        listener.onSnapshotEnd(0, 7, 0, streamSequence);
        snapshot = false;
        // The clear of instrument 4 comes before the first incremental of partition 0, stamped like the last
        // snapshot message
        for (final long id : cleared)
        {
            expect(id, "R", "N", Dbn.UNDEF_PRICE, 0, 0, snapshotFlags | Dbn.F_LAST);
        }
        add(4, false);
        listener.onRecovered(0, 7, streamSequence, 1_000_000);
    }

    // ----- reference data and state -----

    private void directory(final long instrumentId)
    {
        final MessageContext ctx = next(instrumentId, InstrumentDirectoryEncoder.TEMPLATE_ID);
        new InstrumentDirectoryEncoder().wrapAndApplyHeader(buffer, 0, header).exchangeSequence(exchangeSequence)
            .exchangeTimestamp(exchangeTime).instrumentId(instrumentId).symbol(String.format("%-8s", SYMBOLS[(int)instrumentId]))
            .roundLotSize(100).etpLeverageFactor(0).marketCategory((byte)'Q').financialStatusIndicator((byte)'N')
            .roundLotsOnly((byte)'N').issueClassification((byte)'C').issueSubType("Z ").authenticity((byte)'P')
            .shortSaleThresholdIndicator((byte)'N').ipoFlag((byte)' ').luldReferencePriceTier((byte)'1')
            .etpFlag((byte)'N').inverseIndicator((byte)'N');
        listener.onInstrumentDirectory(raw(ctx), new InstrumentDirectoryDecoder().wrap(
            buffer, H, InstrumentDirectoryEncoder.BLOCK_LENGTH, InstrumentDirectoryEncoder.SCHEMA_VERSION));
        definitions.add(instrumentId);
        noteTime();
    }

    private void systemEvent(final SystemEventCode code)
    {
        final MessageContext ctx = next(0, SystemEventEncoder.TEMPLATE_ID);
        new SystemEventEncoder().wrapAndApplyHeader(buffer, 0, header)
            .exchangeSequence(exchangeSequence).exchangeTimestamp(exchangeTime)
            .instrumentId(0).eventCode(code);
        listener.onSystemEvent(raw(ctx), new SystemEventDecoder().wrap(
            buffer, H, SystemEventEncoder.BLOCK_LENGTH, SystemEventEncoder.SCHEMA_VERSION));
        switch (code)
        {
            case START_OF_SYSTEM_HOURS:
                expectStatus(0, Dbn.STATUS_ACTION_PRE_OPEN, Dbn.STATUS_REASON_SCHEDULED);
                break;
            case START_OF_MARKET_HOURS:
                expectStatus(0, Dbn.STATUS_ACTION_TRADING, Dbn.STATUS_REASON_SCHEDULED);
                break;
            case END_OF_MARKET_HOURS:
                expectStatus(0, Dbn.STATUS_ACTION_POST_CLOSE, Dbn.STATUS_REASON_SCHEDULED);
                break;
            case END_OF_SYSTEM_HOURS:
                expectStatus(0, Dbn.STATUS_ACTION_CLOSE, Dbn.STATUS_REASON_SCHEDULED);
                break;
            default:
                break;
        }
    }

    private void tradingStatus(final long instrumentId, final TradingState state, final String reason)
    {
        final MessageContext ctx = next(instrumentId, TradingStatusEncoder.TEMPLATE_ID);
        new TradingStatusEncoder().wrapAndApplyHeader(buffer, 0, header)
            .exchangeSequence(exchangeSequence).exchangeTimestamp(exchangeTime)
            .instrumentId(instrumentId).tradingState(state).reason(reason);
        listener.onTradingStatus(raw(ctx), new TradingStatusDecoder().wrap(
            buffer, H, TradingStatusEncoder.BLOCK_LENGTH, TradingStatusEncoder.SCHEMA_VERSION));
        expectStatus(instrumentId, state == TradingState.HALTED ? Dbn.STATUS_ACTION_HALT : Dbn.STATUS_ACTION_TRADING,
            "T1  ".equals(reason) ? 30 : "LUDP".equals(reason) ? 50 : 0);
    }

    private void regSho(final long instrumentId)
    {
        final MessageContext ctx = next(instrumentId, RegShoRestrictionEncoder.TEMPLATE_ID);
        new RegShoRestrictionEncoder().wrapAndApplyHeader(buffer, 0, header).exchangeSequence(exchangeSequence)
            .exchangeTimestamp(exchangeTime).instrumentId(instrumentId).regShoAction((byte)('0' + random.nextInt(3)));
        listener.onRegShoRestriction(raw(ctx), new RegShoRestrictionDecoder().wrap(
            buffer, H, RegShoRestrictionEncoder.BLOCK_LENGTH, RegShoRestrictionEncoder.SCHEMA_VERSION));
        expectStatus(instrumentId, Dbn.STATUS_ACTION_SSR_CHANGE, 0);
    }

    private void operationalHalt(final long instrumentId)
    {
        final byte market = random.nextBoolean() ? (byte)'Q' : (byte)'B';
        final boolean halt = random.nextBoolean();
        final MessageContext ctx = next(instrumentId, OperationalHaltEncoder.TEMPLATE_ID);
        new OperationalHaltEncoder().wrapAndApplyHeader(buffer, 0, header)
            .exchangeSequence(exchangeSequence).exchangeTimestamp(exchangeTime)
            .instrumentId(instrumentId).marketCode(market).haltAction(halt ? (byte)'H' : (byte)'T');
        listener.onOperationalHalt(raw(ctx), new OperationalHaltDecoder().wrap(
            buffer, H, OperationalHaltEncoder.BLOCK_LENGTH, OperationalHaltEncoder.SCHEMA_VERSION));
        if (market == 'Q')
        {
            expectStatus(instrumentId, halt ? Dbn.STATUS_ACTION_HALT : Dbn.STATUS_ACTION_TRADING,
                Dbn.STATUS_REASON_OPERATIONAL);
        }
    }

    private void mwcbStatus()
    {
        final MessageContext ctx = next(0, MwcbStatusEncoder.TEMPLATE_ID);
        new MwcbStatusEncoder().wrapAndApplyHeader(buffer, 0, header)
            .exchangeSequence(exchangeSequence).exchangeTimestamp(exchangeTime)
            .instrumentId(0).breachedLevel((byte)'2');
        listener.onMwcbStatus(raw(ctx), new MwcbStatusDecoder().wrap(
            buffer, H, MwcbStatusEncoder.BLOCK_LENGTH, MwcbStatusEncoder.SCHEMA_VERSION));
        expectStatus(0, Dbn.STATUS_ACTION_HALT, Dbn.STATUS_REASON_MWCB_LEVEL_1 + 1);
    }

    private void imbalance(final long instrumentId)
    {
        final long reference = 1_000_000 + random.nextInt(5_000_000);
        final MessageContext ctx = next(instrumentId, ImbalanceEncoder.TEMPLATE_ID);
        final ImbalanceEncoder e = new ImbalanceEncoder().wrapAndApplyHeader(buffer, 0, header);
        e.exchangeSequence(exchangeSequence).exchangeTimestamp(exchangeTime).instrumentId(instrumentId)
            .pairedShares(1_000).imbalanceShares(200).imbalanceDirection((byte)'B').crossType((byte)'O')
            .priceVariationIndicator((byte)'1');
        e.farPrice().mantissa(reference + 100);
        e.nearPrice().mantissa(reference - 100);
        e.currentReferencePrice().mantissa(reference);
        listener.onImbalance(raw(ctx), new ImbalanceDecoder().wrap(
            buffer, H, ImbalanceEncoder.BLOCK_LENGTH, ImbalanceEncoder.SCHEMA_VERSION));
        imbalance.add(new long[]{instrumentId, reference * 100_000});
        noteTime();
    }

    private void unmapped(final long instrumentId)
    {
        // GapNotice, BrokenTrade and MwcbDeclineLevel have no DBN record: they must write nothing
        MessageContext ctx = next(instrumentId, GapNoticeEncoder.TEMPLATE_ID);
        new GapNoticeEncoder().wrapAndApplyHeader(buffer, 0, header)
            .exchangeSequence(exchangeSequence).exchangeTimestamp(exchangeTime)
            .instrumentId(instrumentId).lastMissingSequence(exchangeSequence).reason(GapReason.UNRECOVERED);
        listener.onGapNotice(raw(ctx), new GapNoticeDecoder().wrap(
            buffer, H, GapNoticeEncoder.BLOCK_LENGTH, GapNoticeEncoder.SCHEMA_VERSION));
        ctx = next(instrumentId, BrokenTradeEncoder.TEMPLATE_ID);
        new BrokenTradeEncoder().wrapAndApplyHeader(buffer, 0, header)
            .exchangeSequence(exchangeSequence).exchangeTimestamp(exchangeTime)
            .instrumentId(instrumentId).matchNumber(1);
        listener.onBrokenTrade(raw(ctx), new BrokenTradeDecoder().wrap(
            buffer, H, BrokenTradeEncoder.BLOCK_LENGTH, BrokenTradeEncoder.SCHEMA_VERSION));
        ctx = next(0, MwcbDeclineLevelEncoder.TEMPLATE_ID);
        final MwcbDeclineLevelEncoder e = new MwcbDeclineLevelEncoder().wrapAndApplyHeader(buffer, 0, header);
        e.exchangeSequence(exchangeSequence).exchangeTimestamp(exchangeTime).instrumentId(0);
        e.level1().mantissa(1);
        e.level2().mantissa(2);
        e.level3().mantissa(3);
        listener.onMwcbDeclineLevel(raw(ctx), new MwcbDeclineLevelDecoder().wrap(
            buffer, H, MwcbDeclineLevelEncoder.BLOCK_LENGTH, MwcbDeclineLevelEncoder.SCHEMA_VERSION));
    }

    // ----- expectations -----

    private void expect(
        final long instrumentId,
        final String action,
        final String side,
        final long price,
        final long size,
        final long orderId,
        final int flags)
    {
        final Mbo m = new Mbo();
        m.tsRecv = tsRecv;
        m.tsEvent = tsEvent;
        m.instrumentId = instrumentId;
        m.action = action;
        m.side = side;
        m.price = price;
        m.size = size;
        m.channel = partition(instrumentId);
        m.orderId = orderId;
        m.flags = flags;
        m.sequence = exchangeSequence & 0xFFFF_FFFFL;
        mbo.add(m);
        noteTime();
    }

    private void expectStatus(final long instrumentId, final int action, final int reason)
    {
        status.add(new long[]{instrumentId, action, reason});
        noteTime();
    }

    private void noteTime()
    {
        firstTsEvent = Math.min(firstTsEvent, tsEvent);
        lastTsEvent = Math.max(lastTsEvent, tsEvent);
    }
}
