package io.mdfanout.sdk.derive;

import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.AggressorSide;
import io.mdfanout.sbe.BarEncoder;
import io.mdfanout.sbe.BestBidOfferEncoder;
import io.mdfanout.sbe.BookDepthEncoder;
import io.mdfanout.sbe.CrossTradeDecoder;
import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sbe.GapReason;
import io.mdfanout.sbe.InstrumentDirectoryDecoder;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.OrderCancelDecoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import io.mdfanout.sbe.OrderExecutedDecoder;
import io.mdfanout.sbe.OrderExecutedWithPriceDecoder;
import io.mdfanout.sbe.OrderReplaceDecoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SnapshotInstrumentDecoder;
import io.mdfanout.sbe.SnapshotOrderDecoder;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sbe.TradeDecoder;
import io.mdfanout.sbe.TradePrintEncoder;
import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.book.BookChangeListener;
import io.mdfanout.sdk.book.OrderBook;
import io.mdfanout.sdk.book.OrderBooks;
import io.mdfanout.sdk.book.PriceLevels;
import io.mdfanout.wire.FeedStream;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;

/**
 * Derives, from the order-by-order (MBO) messages of a partition, what subscribers ask for instead (docs/WIRE.md,
 * "Derived streams"): the best bid and offer on every change (BBO), ten levels a side on every change within them
 * (MBP-10), every print (trades), and OHLCV bars of 1 second and 1 minute (bars). One home for these rules: the fanout
 * publishes what it derives on the derived streams, and the export writes it to DBN.
 * <p>
 * A {@link MarketDataListener}: hand it the MBO messages in order, as the SDK's dispatch does (the fanout, its own
 * packets; a tool, a subscriber's or a replay's callbacks), {@link #onRawMessage} before each message's typed callback:
 * it takes the message's sequence and time, the derived messages' prefix and the bars' clock, from there. It keeps the
 * partition's books ({@link OrderBooks}) and tells a {@link DerivedHandler}
 * each derived message, SBE-encoded as on the wire, with the common prefix of the MBO message that caused it:
 * <ul>
 *     <li>BBO and MBP-10: after every message that changed the book's first level, or one of its first ten, and only
 *     when the message's values differ from the last one sent for the instrument;</li>
 *     <li>trades: for an execution (ITCH E, and C when printable) at the resting order's price (E) or the execution
 *     price (C), the aggressor the side opposite the resting order's; a non-cross trade (P) and a cross with shares
 *     (Q), without an aggressor (ITCH's P side indicator is not the aggressor's). A trade's print comes before the
 *     book change it makes, so the last BBO before a print is the one it traded against;</li>
 *     <li>bars: the prints of an instrument whose exchange time falls in [start, start + interval), sent when a message
 *     of the partition with a time at or after the end arrives (that message's sequence and time in the prefix), or at
 *     End of System Hours / End of Messages. Intervals without prints have no bar. Broken trades (B) do not revise
 *     bars. A bar whose interval saw an exchange gap, or began before this derivation started mid-session (a restart),
 *     is marked partial.</li>
 * </ul>
 * The last BBO, MBP-10 and bars of each instrument are kept ({@link #lastMessages}): the derived streams' state, which
 * their snapshots re-send. Single-threaded; nothing allocates in steady state (books and tables grow with new orders
 * and instruments only).
 */
public final class Derivation implements MarketDataListener, BookChangeListener
{
    /** Levels a side of MBP-10. */
    public static final int DEPTH_LEVELS = BookDepthEncoder.bidPricesLength();
    /** The bar intervals, in seconds: entry k of {@link #lastMessages}(BARS) holds the last bar of interval k. */
    public static final int[] BAR_INTERVAL_SECONDS = {1, 60};
    /** Largest level or bar quantity a uint32 field carries: 2^32-2 (2^32-1 is SBE's null). */
    public static final long MAX_QUANTITY = 0xFFFF_FFFEL;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final int PREFIX_END = WireFormat.HEADER_LENGTH + WireFormat.COMMON_PREFIX_LENGTH;
    private static final int BBO_LENGTH = WireFormat.HEADER_LENGTH + BestBidOfferEncoder.BLOCK_LENGTH;
    private static final int DEPTH_LENGTH = WireFormat.HEADER_LENGTH + BookDepthEncoder.BLOCK_LENGTH;
    private static final int TRADE_LENGTH = WireFormat.HEADER_LENGTH + TradePrintEncoder.BLOCK_LENGTH;
    private static final int BAR_LENGTH = WireFormat.HEADER_LENGTH + BarEncoder.BLOCK_LENGTH;
    private static final int NO_SLOT = -1;

    private final OrderBooks books;
    private final DerivedHandler handler;
    private final boolean bbo;
    private final boolean depth;
    private final boolean trades;
    private final boolean bars;
    /** Instruments a derivation holds before its tables grow (NASDAQ lists about 9,000, spread over the partitions). */
    public static final int DEFAULT_EXPECTED_INSTRUMENTS = 4096;

    private final LastMessages lastBbo;
    private final LastMessages lastDepth;
    private final LastMessages lastBars;

    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[WireFormat.MAX_STREAM_MESSAGE_LENGTH]);
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final BestBidOfferEncoder bboEncoder = new BestBidOfferEncoder();
    private final BookDepthEncoder depthEncoder = new BookDepthEncoder();
    private final TradePrintEncoder tradeEncoder = new TradePrintEncoder();
    private final BarEncoder barEncoder = new BarEncoder();

    /** The MBO message being handled: every derived message's prefix. */
    private long messageSequence;
    private long messageTimestamp;

    // Bars: per instrument slot, per interval k at [slot * intervals + k].
    private final int intervals = BAR_INTERVAL_SECONDS.length;
    private final Int2IntHashMap barSlotByInstrument;
    private long[] barInstrument;
    private long[] barStart;
    private long[] barOpen;
    private long[] barHigh;
    private long[] barLow;
    private long[] barClose;
    private long[] barVolume;
    private long[] barCount;
    private boolean[] barPartial;
    private boolean[] barOpenNow;
    private int barSlots;
    /** Per interval, the slots with an open bar, in the order their first print came. */
    private final int[][] openBars;
    private final int[] openBarCount = new int[intervals];
    /** Per interval, the start of the interval the clock is in; -1 before the first message. */
    private final long[] intervalStart = new long[intervals];
    /** Per interval, an interval whose bars are partial (a gap, or a start mid-session in it); -1 for none. */
    private final long[] partialStart = new long[intervals];
    private boolean startedMidSession;
    private long unpricedExecutions;

    /**
     * A derivation of every derived stream.
     *
     * @param books   the partition's books, fed by this derivation only.
     * @param handler told each derived message.
     */
    public Derivation(final OrderBooks books, final DerivedHandler handler)
    {
        this(books, handler, FeedStream.BBO, FeedStream.DEPTH, FeedStream.TRADES, FeedStream.BARS);
    }

    /**
     * A derivation of some derived streams.
     *
     * @param books   the partition's books, fed by this derivation only.
     * @param handler told each derived message.
     * @param streams the streams to derive ({@link FeedStream#MBO} is ignored).
     */
    public Derivation(final OrderBooks books, final DerivedHandler handler, final FeedStream... streams)
    {
        this(books, handler, DEFAULT_EXPECTED_INSTRUMENTS, streams);
    }

    /**
     * A derivation of some derived streams, sized for a number of instruments.
     *
     * @param books               the partition's books, fed by this derivation only.
     * @param handler             told each derived message.
     * @param expectedInstruments instruments held before the derivation's tables grow (allocation).
     * @param streams             the streams to derive ({@link FeedStream#MBO} is ignored).
     */
    public Derivation(
        final OrderBooks books, final DerivedHandler handler, final int expectedInstruments, final FeedStream... streams)
    {
        this.books = books;
        final int capacity = Math.max(16, expectedInstruments);
        lastBbo = new LastMessages(1, BBO_LENGTH, capacity);
        lastDepth = new LastMessages(1, DEPTH_LENGTH, capacity);
        lastBars = new LastMessages(BAR_INTERVAL_SECONDS.length, BAR_LENGTH, capacity);
        barSlotByInstrument = new Int2IntHashMap(capacity * 2, 0.65f, NO_SLOT);
        barInstrument = new long[capacity];
        barStart = new long[capacity * intervals];
        barOpen = new long[capacity * intervals];
        barHigh = new long[capacity * intervals];
        barLow = new long[capacity * intervals];
        barClose = new long[capacity * intervals];
        barVolume = new long[capacity * intervals];
        barCount = new long[capacity * intervals];
        barPartial = new boolean[capacity * intervals];
        barOpenNow = new boolean[capacity * intervals];
        openBars = new int[intervals][capacity];
        this.handler = handler;
        boolean bbo = false;
        boolean depth = false;
        boolean trades = false;
        boolean bars = false;
        for (final FeedStream stream : streams)
        {
            bbo |= FeedStream.BBO == stream;
            depth |= FeedStream.DEPTH == stream;
            trades |= FeedStream.TRADES == stream;
            bars |= FeedStream.BARS == stream;
        }
        this.bbo = bbo;
        this.depth = depth;
        this.trades = trades;
        this.bars = bars;
        Arrays.fill(intervalStart, -1);
        Arrays.fill(partialStart, -1);
        books.bookChangeListener(this);
    }

    /** @return the books this derivation keeps. */
    public OrderBooks books()
    {
        return books;
    }

    /**
     * The derived stream's state: the last message of each instrument (BBO, MBP-10) or of each instrument and bar
     * interval (bars); none for trades, which have no state.
     *
     * @param stream a derived stream.
     * @return its last messages, or null for trades and MBO.
     */
    public LastMessages lastMessages(final FeedStream stream)
    {
        switch (stream)
        {
            case BBO:
                return lastBbo;
            case DEPTH:
                return lastDepth;
            case BARS:
                return lastBars;
            default:
                return null;
        }
    }

    /** @return executions whose resting order the books did not hold (after an exchange gap): no print was made. */
    public long unpricedExecutions()
    {
        return unpricedExecutions;
    }

    /**
     * The books were restored from a state rather than built from the session's first message (a fanout restarted
     * mid-session): take their levels as the derived state without sending anything, and mark the bars of the
     * intervals the next message falls in as partial (prints before it were not seen).
     *
     * @param exchangeSequence the state's last exchange sequence (the prefix of the state's messages).
     * @param exchangeTimestamp its exchange time.
     */
    public void restored(final long exchangeSequence, final long exchangeTimestamp)
    {
        messageSequence = exchangeSequence;
        messageTimestamp = exchangeTimestamp;
        startedMidSession = true;
        final long[] instruments = books.activeInstrumentIds();
        for (final long instrumentId : instruments)
        {
            final OrderBook book = books.book(instrumentId);
            if (bbo)
            {
                final int length = encodeBbo(book);
                lastBbo.put(instrumentId, 0, scratch, 0, length);
            }
            if (depth)
            {
                final int length = encodeDepth(book);
                lastDepth.put(instrumentId, 0, scratch, 0, length);
            }
        }
    }

    // ---- the MBO stream ----

    /** Every message: its prefix becomes the derived messages', and its time moves the bars' clock. */
    public void onRawMessage(final MessageContext context, final DirectBuffer buffer, final int offset, final int length)
    {
        messageSequence = WireFormat.exchangeSequence(buffer, offset);
        messageTimestamp = WireFormat.exchangeTimestamp(buffer, offset);
        if (bars && (null == context || !context.isSnapshot()))
        {
            advanceClock(messageTimestamp);
        }
    }

    /** {@inheritDoc} */
    public void onGapNotice(final MessageContext context, final GapNoticeDecoder message)
    {
        if (GapReason.UNRECOVERED == message.reason())
        {
            // Prints of the interval may be missing: its open bars, and those still to open in it, are partial.
            for (int k = 0; k < intervals; k++)
            {
                partialStart[k] = intervalStart[k];
                for (int i = 0; i < openBarCount[k]; i++)
                {
                    barPartial[openBars[k][i] * intervals + k] = true;
                }
            }
        }
    }

    /** {@inheritDoc} */
    public void onSystemEvent(final MessageContext context, final SystemEventDecoder message)
    {
        final SystemEventCode code = message.eventCode();
        if (bars && (SystemEventCode.END_OF_SYSTEM_HOURS == code || SystemEventCode.END_OF_MESSAGES == code))
        {
            for (int k = 0; k < intervals; k++)
            {
                closeBars(k);
            }
        }
    }

    /** {@inheritDoc} */
    public void onInstrumentDirectory(final MessageContext context, final InstrumentDirectoryDecoder message)
    {
        books.onInstrumentDirectory(context, message);
    }

    /** {@inheritDoc} */
    public void onAddOrder(final MessageContext context, final AddOrderDecoder message)
    {
        books.onAddOrder(context, message);
    }

    /** {@inheritDoc} */
    public void onAddOrderAttributed(final MessageContext context, final AddOrderAttributedDecoder message)
    {
        books.onAddOrderAttributed(context, message);
    }

    /** {@inheritDoc} */
    public void onOrderExecuted(final MessageContext context, final OrderExecutedDecoder message)
    {
        final long orderId = message.orderId();
        print(message.instrumentId(), books.orderPrice(orderId), message.executedShares(), books.orderSide(orderId),
            message.matchNumber(), orderId, (byte)'E');
        books.onOrderExecuted(context, message);
    }

    /** {@inheritDoc} */
    public void onOrderExecutedWithPrice(final MessageContext context, final OrderExecutedWithPriceDecoder message)
    {
        if ('Y' == message.printable())
        {
            final long orderId = message.orderId();
            final byte restingSide = books.orderSide(orderId);
            print(message.instrumentId(), 0 == restingSide ? OrderBook.NULL_PRICE : message.executionPrice().mantissa(),
                message.executedShares(), restingSide, message.matchNumber(), orderId, (byte)'C');
        }
        books.onOrderExecutedWithPrice(context, message);
    }

    /** {@inheritDoc} */
    public void onOrderCancel(final MessageContext context, final OrderCancelDecoder message)
    {
        books.onOrderCancel(context, message);
    }

    /** {@inheritDoc} */
    public void onOrderDelete(final MessageContext context, final OrderDeleteDecoder message)
    {
        books.onOrderDelete(context, message);
    }

    /** {@inheritDoc} */
    public void onOrderReplace(final MessageContext context, final OrderReplaceDecoder message)
    {
        books.onOrderReplace(context, message);
    }

    /** A non-cross trade against a non-displayed order: a print, without an aggressor. */
    public void onTrade(final MessageContext context, final TradeDecoder message)
    {
        printed(message.instrumentId(), message.price().mantissa(), message.shares(), AggressorSide.NONE,
            message.matchNumber(), message.orderId(), (byte)'P');
    }

    /** A cross with shares: a print, without an aggressor. */
    public void onCrossTrade(final MessageContext context, final CrossTradeDecoder message)
    {
        final long shares = message.shares();
        if (shares > 0)
        {
            printed(message.instrumentId(), message.crossPrice().mantissa(), shares, AggressorSide.NONE,
                message.matchNumber(), 0, (byte)'Q');
        }
    }

    // ---- recovery of a subscriber's books, when the derivation runs on one ----

    /**
     * A new trading day: the bars still open are sent (a day whose End of Messages was lost), then everything starts
     * again from nothing, the bars' clock included (the new day's times are earlier than the old day's).
     */
    public void onNewDay(final int partition)
    {
        closeOpenBars();
        books.onNewDay(partition);
        lastBbo.clear();
        lastDepth.clear();
        lastBars.clear();
        Arrays.fill(intervalStart, -1);
        Arrays.fill(partialStart, -1);
        startedMidSession = false;
    }

    /**
     * Send the bars still open now (each as its interval stood), with the last message's sequence and time: the end of
     * input without an End of Messages (an export of a session still being recorded, or cut off).
     */
    public void closeOpenBars()
    {
        if (bars)
        {
            for (int k = 0; k < intervals; k++)
            {
                closeBars(k);
            }
        }
    }

    /** {@inheritDoc} */
    public void onSnapshotBegin(final int partition, final long snapshotId, final long lastStreamSequence)
    {
        books.onSnapshotBegin(partition, snapshotId, lastStreamSequence);
    }

    /** {@inheritDoc} */
    public void onSnapshotInstrument(final MessageContext context, final SnapshotInstrumentDecoder message)
    {
        books.onSnapshotInstrument(context, message);
    }

    /** {@inheritDoc} */
    public void onSnapshotOrder(final MessageContext context, final SnapshotOrderDecoder message)
    {
        books.onSnapshotOrder(context, message);
    }

    /** {@inheritDoc} */
    public void onSnapshotEnd(
        final int partition, final long snapshotId, final long coveredFromInstrumentId, final long lastStreamSequence)
    {
        books.onSnapshotEnd(partition, snapshotId, coveredFromInstrumentId, lastStreamSequence);
    }

    // ---- derived messages ----

    /** {@inheritDoc} */
    public void onBookChanged(final MessageContext context, final OrderBook book, final int changedDepth)
    {
        if (bbo && 0 == changedDepth)
        {
            final int length = encodeBbo(book);
            sendIfChanged(FeedStream.BBO, lastBbo, book.instrumentId(), length);
        }
        if (depth && changedDepth < DEPTH_LEVELS)
        {
            final int length = encodeDepth(book);
            sendIfChanged(FeedStream.DEPTH, lastDepth, book.instrumentId(), length);
        }
    }

    private void sendIfChanged(final FeedStream stream, final LastMessages last, final long instrumentId, final int length)
    {
        if (!last.sameFrom(instrumentId, 0, scratch, 0, length, PREFIX_END))
        {
            last.put(instrumentId, 0, scratch, 0, length);
            handler.onDerived(stream, scratch, 0, length);
        }
    }

    private void print(
        final long instrumentId,
        final long price,
        final long shares,
        final byte restingSide,
        final long matchNumber,
        final long orderId,
        final byte source)
    {
        if (OrderBook.NULL_PRICE == price || 0 == restingSide)
        {
            unpricedExecutions++; // the books do not hold the order: its price and side are unknown
            return;
        }
        printed(instrumentId, price, shares, Side.BUY.value() == restingSide ? AggressorSide.SELL : AggressorSide.BUY,
            matchNumber, orderId, source);
    }

    private void printed(
        final long instrumentId,
        final long price,
        final long shares,
        final AggressorSide aggressor,
        final long matchNumber,
        final long orderId,
        final byte source)
    {
        if (trades)
        {
            tradeEncoder.wrapAndApplyHeader(scratch, 0, headerEncoder)
                .exchangeSequence(messageSequence)
                .exchangeTimestamp(messageTimestamp)
                .instrumentId(instrumentId)
                .shares(shares)
                .aggressorSide(aggressor)
                .matchNumber(matchNumber)
                .orderId(orderId)
                .source(source)
                .price().mantissa(price);
            handler.onDerived(FeedStream.TRADES, scratch, 0, TRADE_LENGTH);
        }
        if (bars)
        {
            addToBars(instrumentId, price, shares);
        }
    }

    private int encodeBbo(final OrderBook book)
    {
        final PriceLevels bids = book.bids();
        final PriceLevels asks = book.asks();
        final boolean hasBid = bids.size() > 0;
        final boolean hasAsk = asks.size() > 0;
        bboEncoder.wrapAndApplyHeader(scratch, 0, headerEncoder)
            .exchangeSequence(messageSequence)
            .exchangeTimestamp(messageTimestamp)
            .instrumentId(book.instrumentId())
            .bidShares(hasBid ? quantity(bids.shares(0)) : 0)
            .bidOrders(hasBid ? bids.orderCount(0) : 0)
            .askShares(hasAsk ? quantity(asks.shares(0)) : 0)
            .askOrders(hasAsk ? asks.orderCount(0) : 0);
        bboEncoder.bidPrice().mantissa(hasBid ? bids.price(0) : OrderBook.NULL_PRICE);
        bboEncoder.askPrice().mantissa(hasAsk ? asks.price(0) : OrderBook.NULL_PRICE);
        return BBO_LENGTH;
    }

    private int encodeDepth(final OrderBook book)
    {
        final PriceLevels bids = book.bids();
        final PriceLevels asks = book.asks();
        final int bidLevels = Math.min(DEPTH_LEVELS, bids.size());
        final int askLevels = Math.min(DEPTH_LEVELS, asks.size());
        final BookDepthEncoder encoder = depthEncoder.wrapAndApplyHeader(scratch, 0, headerEncoder)
            .exchangeSequence(messageSequence)
            .exchangeTimestamp(messageTimestamp)
            .instrumentId(book.instrumentId())
            .bidLevels((short)bidLevels)
            .askLevels((short)askLevels);
        for (int level = 0; level < DEPTH_LEVELS; level++)
        {
            final boolean bid = level < bidLevels;
            final boolean ask = level < askLevels;
            encoder
                .bidPrices(level, bid ? bids.price(level) : OrderBook.NULL_PRICE)
                .bidShares(level, bid ? quantity(bids.shares(level)) : 0)
                .bidOrders(level, bid ? bids.orderCount(level) : 0)
                .askPrices(level, ask ? asks.price(level) : OrderBook.NULL_PRICE)
                .askShares(level, ask ? quantity(asks.shares(level)) : 0)
                .askOrders(level, ask ? asks.orderCount(level) : 0);
        }
        return DEPTH_LENGTH;
    }

    private static long quantity(final long value)
    {
        return Math.min(Math.max(value, 0), MAX_QUANTITY);
    }

    // ---- bars ----

    private void advanceClock(final long timestamp)
    {
        for (int k = 0; k < intervals; k++)
        {
            final long length = BAR_INTERVAL_SECONDS[k] * NANOS_PER_SECOND;
            final long start = intervalStart[k];
            if (start < 0)
            {
                intervalStart[k] = timestamp - timestamp % length;
                if (startedMidSession)
                {
                    partialStart[k] = intervalStart[k];
                }
            }
            else if (timestamp >= start + length)
            {
                closeBars(k);
                intervalStart[k] = timestamp - timestamp % length;
            }
        }
    }

    private void addToBars(final long instrumentId, final long price, final long shares)
    {
        int slot = barSlotByInstrument.get((int)instrumentId);
        if (NO_SLOT == slot)
        {
            slot = newBarSlot(instrumentId);
        }
        for (int k = 0; k < intervals; k++)
        {
            final int i = slot * intervals + k;
            if (!barOpenNow[i])
            {
                barOpenNow[i] = true;
                barStart[i] = Math.max(intervalStart[k], 0);
                barOpen[i] = price;
                barHigh[i] = price;
                barLow[i] = price;
                barVolume[i] = 0;
                barCount[i] = 0;
                barPartial[i] = barStart[i] == partialStart[k];
                int[] open = openBars[k];
                if (openBarCount[k] == open.length)
                {
                    open = Arrays.copyOf(open, open.length << 1);
                    openBars[k] = open;
                }
                open[openBarCount[k]++] = slot;
            }
            barHigh[i] = Math.max(barHigh[i], price);
            barLow[i] = Math.min(barLow[i], price);
            barClose[i] = price;
            barVolume[i] += shares;
            barCount[i]++;
        }
    }

    private void closeBars(final int k)
    {
        final int[] open = openBars[k];
        for (int n = 0; n < openBarCount[k]; n++)
        {
            final int slot = open[n];
            final int i = slot * intervals + k;
            barOpenNow[i] = false;
            final long instrumentId = barInstrument[slot];
            final BarEncoder encoder = barEncoder.wrapAndApplyHeader(scratch, 0, headerEncoder)
                .exchangeSequence(messageSequence)
                .exchangeTimestamp(messageTimestamp)
                .instrumentId(instrumentId)
                .barStart(barStart[i])
                .intervalSeconds(BAR_INTERVAL_SECONDS[k])
                .volume(barVolume[i])
                .printCount(Math.min(barCount[i], MAX_QUANTITY))
                .partial((short)(barPartial[i] ? 1 : 0));
            encoder.openPrice().mantissa(barOpen[i]);
            encoder.highPrice().mantissa(barHigh[i]);
            encoder.lowPrice().mantissa(barLow[i]);
            encoder.closePrice().mantissa(barClose[i]);
            lastBars.put(instrumentId, k, scratch, 0, BAR_LENGTH);
            handler.onDerived(FeedStream.BARS, scratch, 0, BAR_LENGTH);
        }
        openBarCount[k] = 0;
    }

    private int newBarSlot(final long instrumentId)
    {
        final int slot = barSlots++;
        if (slot == barInstrument.length)
        {
            final int capacity = slot << 1;
            barInstrument = Arrays.copyOf(barInstrument, capacity);
            barStart = Arrays.copyOf(barStart, capacity * intervals);
            barOpen = Arrays.copyOf(barOpen, capacity * intervals);
            barHigh = Arrays.copyOf(barHigh, capacity * intervals);
            barLow = Arrays.copyOf(barLow, capacity * intervals);
            barClose = Arrays.copyOf(barClose, capacity * intervals);
            barVolume = Arrays.copyOf(barVolume, capacity * intervals);
            barCount = Arrays.copyOf(barCount, capacity * intervals);
            barPartial = Arrays.copyOf(barPartial, capacity * intervals);
            barOpenNow = Arrays.copyOf(barOpenNow, capacity * intervals);
        }
        barInstrument[slot] = instrumentId;
        barSlotByInstrument.put((int)instrumentId, slot);
        return slot;
    }
}
