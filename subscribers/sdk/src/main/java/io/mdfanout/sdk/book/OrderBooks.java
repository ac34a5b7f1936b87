package io.mdfanout.sdk.book;

import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.InstrumentDirectoryDecoder;
import io.mdfanout.sbe.OrderCancelDecoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import io.mdfanout.sbe.OrderExecutedDecoder;
import io.mdfanout.sbe.OrderExecutedWithPriceDecoder;
import io.mdfanout.sbe.OrderReplaceDecoder;
import io.mdfanout.sbe.SnapshotInstrumentDecoder;
import io.mdfanout.sbe.SnapshotOrderDecoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.sdk.LocalCounters;
import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.MessageContext;
import org.agrona.collections.Long2ObjectHashMap;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Full-depth price-level books of every instrument seen, built from the order messages, plus the
 * instrument directory. A {@link MarketDataListener}: pass it to a
 * {@link io.mdfanout.sdk.FeedSubscriber} directly, or forward to it from your own listener.
 * <p>
 * Resting orders live in parallel arrays (book, side, price, remaining shares) indexed by a slot;
 * an {@link OrderSlotIndex} maps order id to slot and a free list recycles slots. Nothing
 * allocates in steady state: arrays and maps grow only when their capacity is exceeded, and a
 * book is created the first time its instrument gets an order. Trades, cross trades and broken
 * trades do not touch the books. Events naming an unknown order are counted and ignored.
 * <p>
 * Snapshots: {@link #onSnapshotBegin} empties every book of the partition, {@link #onSnapshotInstrument}
 * empties the instrument's book and {@link #onSnapshotOrder} adds its orders back, so that a
 * subscriber that recovered holds the same books as one that saw every message. Each book links
 * its orders (intrusive list over the slot arrays), so clearing costs its own orders only and
 * frees their slots. Single-threaded: use it on the polling thread.
 * <p>
 * A {@link BookChangeListener} ({@link #bookChangeListener}) is told after every message that changed a book, with
 * the shallowest level it changed; after a snapshot or a new day, once for each book of the partition.
 */
public final class OrderBooks implements MarketDataListener
{
    /** Default number of resting orders held before the order arrays grow. */
    public static final int DEFAULT_ORDER_CAPACITY = 64 * 1024;
    /** Default number of price levels per side of a new book before it grows. */
    public static final int DEFAULT_LEVELS_PER_SIDE = 64;

    private static final int NO_SLOT = OrderSlotIndex.MISSING;

    private final InstrumentDirectory directory = new InstrumentDirectory();
    private final Long2ObjectHashMap<OrderBook> books = new Long2ObjectHashMap<>();
    private OrderBook[] bookList = new OrderBook[64];
    private int bookCount;
    private final OrderSlotIndex slotByOrderId;
    private final BookCounters counters;
    private final int levelsPerSide;

    private OrderBook[] orderBook;
    private boolean[] orderIsBid;
    private long[] orderPrice;
    private long[] orderRemaining;
    private long[] orderId;
    private int[] nextInBook;
    private int[] previousInBook;
    private int[] freeSlots;
    private int freeCount;

    private BookChangeListener bookChangeListener;
    /** The book the message being applied changed, or null; and the shallowest level it changed. */
    private OrderBook changedBook;
    private int changedDepth;
    /** The last message's context: a snapshot's end reports the books it restored with it. */
    private MessageContext lastContext;

    /** Books with default capacities and counters in a private counters manager. */
    public OrderBooks()
    {
        this(DEFAULT_ORDER_CAPACITY, DEFAULT_LEVELS_PER_SIDE,
            new BookCounters(LocalCounters.create(BookCounters.COUNTER_COUNT), "books"));
    }

    /**
     * Books with chosen capacities.
     *
     * @param orderCapacity resting orders held before the order arrays grow.
     * @param levelsPerSide price levels per side of a new book before it grows.
     * @param counters where to count.
     */
    public OrderBooks(final int orderCapacity, final int levelsPerSide, final BookCounters counters)
    {
        if (orderCapacity <= 0 || levelsPerSide <= 0)
        {
            throw new IllegalArgumentException(
                "orderCapacity and levelsPerSide must be positive: " + orderCapacity + ", " + levelsPerSide);
        }
        this.counters = counters;
        this.levelsPerSide = levelsPerSide;
        this.slotByOrderId = new OrderSlotIndex(orderCapacity);
        orderBook = new OrderBook[orderCapacity];
        orderIsBid = new boolean[orderCapacity];
        orderPrice = new long[orderCapacity];
        orderRemaining = new long[orderCapacity];
        orderId = new long[orderCapacity];
        nextInBook = new int[orderCapacity];
        previousInBook = new int[orderCapacity];
        freeSlots = new int[orderCapacity];
        for (int i = 0; i < orderCapacity; i++)
        {
            freeSlots[i] = orderCapacity - 1 - i;
        }
        freeCount = orderCapacity;
    }

    /**
     * Be told after every message that changed a book.
     *
     * @param listener the listener; null for none.
     * @return this.
     */
    public OrderBooks bookChangeListener(final BookChangeListener listener)
    {
        this.bookChangeListener = listener;
        return this;
    }

    /**
     * Put a resting order back into its book from a state kept elsewhere (a fanout's, after its restart), as a
     * snapshot's order would be: the book change is not reported.
     *
     * @param partition    the instrument's partition.
     * @param instrumentId the instrument.
     * @param orderId      the order.
     * @param side         {@link Side#BUY} or {@link Side#SELL}'s value.
     * @param price        its price mantissa.
     * @param shares       its open shares.
     */
    public void restoreOrder(
        final int partition, final long instrumentId, final long orderId, final byte side, final long price,
        final long shares)
    {
        addOrder(partition, instrumentId, orderId, side, price, shares);
        changedBook = null;
    }

    /**
     * The price of a resting order, as its book holds it.
     *
     * @param orderId the order.
     * @return its price mantissa, or {@link OrderBook#NULL_PRICE} when the order is not in a book.
     */
    public long orderPrice(final long orderId)
    {
        final int slot = slotByOrderId.get(orderId);
        return NO_SLOT == slot ? OrderBook.NULL_PRICE : orderPrice[slot];
    }

    /**
     * The side of a resting order.
     *
     * @param orderId the order.
     * @return {@link Side#BUY} or {@link Side#SELL}'s value, or 0 when the order is not in a book.
     */
    public byte orderSide(final long orderId)
    {
        final int slot = slotByOrderId.get(orderId);
        return NO_SLOT == slot ? 0 : orderIsBid[slot] ? Side.BUY.value() : Side.SELL.value();
    }

    /**
     * The instrument directory learned so far.
     *
     * @return the directory.
     */
    public InstrumentDirectory directory()
    {
        return directory;
    }

    /**
     * The book of an instrument.
     *
     * @param instrumentId the instrument.
     * @return the book, or null when the instrument never had an order.
     */
    public OrderBook book(final long instrumentId)
    {
        return books.get(instrumentId);
    }

    /**
     * Number of resting orders in all books.
     *
     * @return the order count.
     */
    public int orderCount()
    {
        return slotByOrderId.size();
    }

    /**
     * The counters of these books.
     *
     * @return the counters.
     */
    public BookCounters counters()
    {
        return counters;
    }

    /**
     * Instrument ids of every book with at least one resting order, ascending. Allocates.
     *
     * @return the instrument ids.
     */
    public long[] activeInstrumentIds()
    {
        final long[] ids = new long[books.size()];
        int count = 0;
        for (final OrderBook book : books.values())
        {
            if (!book.isEmpty())
            {
                ids[count++] = book.instrumentId();
            }
        }
        final long[] result = Arrays.copyOf(ids, count);
        Arrays.sort(result);
        return result;
    }

    /**
     * Write the canonical dump: instruments ascending, only those with a resting order;
     * {@code I <instrumentId>}, then bids best first {@code B <price> <shares> <orders>}, then
     * asks best first {@code S <price> <shares> <orders>}; '\n' line ends. Allocates.
     *
     * @param out where to write.
     */
    public void dump(final Appendable out)
    {
        try
        {
            for (final long instrumentId : activeInstrumentIds())
            {
                final OrderBook book = books.get(instrumentId);
                out.append("I ").append(Long.toString(instrumentId)).append('\n');
                dumpSide(out, 'B', book.bids());
                dumpSide(out, 'S', book.asks());
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * The canonical dump as a string.
     *
     * @return the dump.
     */
    public String dump()
    {
        final StringBuilder builder = new StringBuilder();
        dump(builder);
        return builder.toString();
    }

    /**
     * Write the canonical dump to a file, UTF-8.
     *
     * @param file the file, replaced if present.
     */
    public void dump(final Path file)
    {
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8))
        {
            dump(writer);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write book dump " + file, ex);
        }
    }

    /** {@inheritDoc} */
    public void onInstrumentDirectory(final MessageContext context, final InstrumentDirectoryDecoder message)
    {
        directory.onInstrumentDirectory(message);
    }

    /** {@inheritDoc} */
    public void onAddOrder(final MessageContext context, final AddOrderDecoder message)
    {
        addOrder(context.partition(), message.instrumentId(), message.orderId(), message.sideRaw(),
            message.price().mantissa(), message.shares());
        reportChange(context);
    }

    /** {@inheritDoc} */
    public void onAddOrderAttributed(final MessageContext context, final AddOrderAttributedDecoder message)
    {
        addOrder(context.partition(), message.instrumentId(), message.orderId(), message.sideRaw(),
            message.price().mantissa(), message.shares());
        reportChange(context);
    }

    /** A new trading day on the partition: its books empty, as its stream starts again from nothing. */
    public void onNewDay(final int partition)
    {
        onSnapshotBegin(partition, 0, 0);
        reportPartition(partition);
    }

    /** The snapshot restored the partition's books: the listener hears of each. */
    public void onSnapshotEnd(
        final int partition, final long snapshotId, final long coveredFromInstrumentId, final long lastStreamSequence)
    {
        reportPartition(partition);
    }

    /** Empties every book of the partition: the snapshot that follows rebuilds them. */
    public void onSnapshotBegin(final int partition, final long snapshotId, final long lastStreamSequence)
    {
        for (int i = 0; i < bookCount; i++)
        {
            final OrderBook book = bookList[i];
            if (book.partition == partition)
            {
                clearBook(book);
            }
        }
    }

    /** Empties the instrument's book; its orders follow as {@link #onSnapshotOrder}. */
    public void onSnapshotInstrument(final MessageContext context, final SnapshotInstrumentDecoder message)
    {
        final OrderBook book = books.get(message.instrumentId());
        if (null != book)
        {
            book.partition = context.partition();
            clearBook(book);
        }
    }

    /** Adds a live order of the instrument being restored. */
    public void onSnapshotOrder(final MessageContext context, final SnapshotOrderDecoder message)
    {
        addOrder(context.partition(), message.instrumentId(), message.orderId(), message.sideRaw(),
            message.price().mantissa(), message.shares());
        reportChange(context);
    }

    /**
     * Empty one instrument's book, freeing its order slots.
     *
     * @param instrumentId the instrument.
     */
    public void clearInstrument(final long instrumentId)
    {
        final OrderBook book = books.get(instrumentId);
        if (null != book)
        {
            clearBook(book);
        }
    }

    private void clearBook(final OrderBook book)
    {
        int slot = book.headSlot;
        while (-1 != slot)
        {
            final int next = nextInBook[slot];
            slotByOrderId.remove(orderId[slot]);
            orderBook[slot] = null;
            freeSlots[freeCount++] = slot;
            slot = next;
        }
        book.headSlot = -1;
        book.bids().clear();
        book.asks().clear();
    }

    /** {@inheritDoc} */
    public void onOrderExecuted(final MessageContext context, final OrderExecutedDecoder message)
    {
        reduceOrder(message.orderId(), message.executedShares());
        reportChange(context);
    }

    /** Executes at the resting order's own book price: the execution price does not move the order. */
    public void onOrderExecutedWithPrice(final MessageContext context, final OrderExecutedWithPriceDecoder message)
    {
        reduceOrder(message.orderId(), message.executedShares());
        reportChange(context);
    }

    /** {@inheritDoc} */
    public void onOrderCancel(final MessageContext context, final OrderCancelDecoder message)
    {
        reduceOrder(message.orderId(), message.cancelledShares());
        reportChange(context);
    }

    /** {@inheritDoc} */
    public void onOrderDelete(final MessageContext context, final OrderDeleteDecoder message)
    {
        reduceOrder(message.orderId(), Long.MAX_VALUE);
        reportChange(context);
    }

    /** The original order leaves; the new one joins on the same side and instrument at the new price and shares. */
    public void onOrderReplace(final MessageContext context, final OrderReplaceDecoder message)
    {
        final int originalSlot = slotByOrderId.get(message.originalOrderId());
        if (NO_SLOT == originalSlot)
        {
            counters.onUnknownOrderReference();
            return;
        }
        final long newOrderId = message.newOrderId();
        if (NO_SLOT != slotByOrderId.get(newOrderId) && newOrderId != message.originalOrderId())
        {
            counters.onDuplicateOrderId();
            return;
        }

        final int slot = originalSlot;
        final OrderBook book = orderBook[slot];
        final boolean isBid = orderIsBid[slot];
        removeOrder(message.originalOrderId(), slot, orderRemaining[slot]);
        insertOrder(book, newOrderId, isBid, message.price().mantissa(), message.shares());
        counters.onApplied();
        reportChange(context);
    }

    private void addOrder(
        final int partition,
        final long instrumentId,
        final long orderId,
        final byte side,
        final long price,
        final long shares)
    {
        final boolean isBid;
        if (Side.BUY.value() == side)
        {
            isBid = true;
        }
        else if (Side.SELL.value() == side)
        {
            isBid = false;
        }
        else
        {
            counters.onInvalidOrder();
            return;
        }
        if (NO_SLOT != slotByOrderId.get(orderId))
        {
            counters.onDuplicateOrderId();
            return;
        }

        OrderBook book = books.get(instrumentId);
        if (null == book)
        {
            book = new OrderBook(instrumentId, levelsPerSide);
            book.partition = partition;
            books.put(instrumentId, book);
            if (bookCount == bookList.length)
            {
                bookList = Arrays.copyOf(bookList, bookCount << 1);
            }
            bookList[bookCount++] = book;
        }
        insertOrder(book, orderId, isBid, price, shares);
        counters.onApplied();
    }

    private void reduceOrder(final long orderId, final long shares)
    {
        final int slot = slotByOrderId.get(orderId);
        if (NO_SLOT == slot)
        {
            counters.onUnknownOrderReference();
            return;
        }
        removeOrder(orderId, slot, shares);
        counters.onApplied();
    }

    private void insertOrder(
        final OrderBook book, final long orderId, final boolean isBid, final long price, final long shares)
    {
        if (0 == freeCount)
        {
            growOrders();
        }
        final int slot = freeSlots[--freeCount];
        orderBook[slot] = book;
        orderIsBid[slot] = isBid;
        orderPrice[slot] = price;
        orderRemaining[slot] = shares;
        this.orderId[slot] = orderId;
        final int head = book.headSlot;
        nextInBook[slot] = head;
        previousInBook[slot] = -1;
        if (-1 != head)
        {
            previousInBook[head] = slot;
        }
        book.headSlot = slot;
        slotByOrderId.put(orderId, slot);
        noteChange(book, book.side(isBid).addOrder(price, shares));
    }

    /** Take up to {@code shares} from a resting order; the order leaves the book when none remain. */
    private void removeOrder(final long orderId, final int slot, final long shares)
    {
        final long remaining = orderRemaining[slot];
        final long removed = Math.min(shares, remaining);
        final boolean leaves = removed == remaining;
        final OrderBook book = orderBook[slot];
        noteChange(book, book.side(orderIsBid[slot]).reduce(orderPrice[slot], removed, leaves));
        if (leaves)
        {
            slotByOrderId.remove(orderId);
            final int previous = previousInBook[slot];
            final int next = nextInBook[slot];
            if (-1 != previous)
            {
                nextInBook[previous] = next;
            }
            else
            {
                orderBook[slot].headSlot = next;
            }
            if (-1 != next)
            {
                previousInBook[next] = previous;
            }
            orderBook[slot] = null;
            freeSlots[freeCount++] = slot;
        }
        else
        {
            orderRemaining[slot] = remaining - removed;
        }
    }

    private void noteChange(final OrderBook book, final int depth)
    {
        if (depth >= 0 && (null == changedBook || depth < changedDepth))
        {
            changedDepth = depth;
        }
        if (depth >= 0)
        {
            changedBook = book;
        }
    }

    /** Tell the listener of the change the message just applied made, if it made one; not inside a snapshot. */
    private void reportChange(final MessageContext context)
    {
        lastContext = context;
        final OrderBook book = changedBook;
        if (null != book)
        {
            changedBook = null;
            final BookChangeListener listener = bookChangeListener;
            if (null != listener && (null == context || !context.isSnapshot()))
            {
                listener.onBookChanged(context, book, changedDepth);
            }
        }
    }

    /** Tell the listener of every book of the partition, as a snapshot or a new day left it. */
    private void reportPartition(final int partition)
    {
        changedBook = null;
        final BookChangeListener listener = bookChangeListener;
        if (null != listener)
        {
            for (int i = 0; i < bookCount; i++)
            {
                final OrderBook book = bookList[i];
                if (book.partition == partition)
                {
                    listener.onBookChanged(lastContext, book, 0);
                }
            }
        }
    }

    private void growOrders()
    {
        final int oldCapacity = orderBook.length;
        final int capacity = oldCapacity << 1;
        orderBook = Arrays.copyOf(orderBook, capacity);
        orderIsBid = Arrays.copyOf(orderIsBid, capacity);
        orderPrice = Arrays.copyOf(orderPrice, capacity);
        orderRemaining = Arrays.copyOf(orderRemaining, capacity);
        orderId = Arrays.copyOf(orderId, capacity);
        nextInBook = Arrays.copyOf(nextInBook, capacity);
        previousInBook = Arrays.copyOf(previousInBook, capacity);
        freeSlots = Arrays.copyOf(freeSlots, capacity);
        for (int slot = capacity - 1; slot >= oldCapacity; slot--)
        {
            freeSlots[freeCount++] = slot;
        }
    }

    private static void dumpSide(final Appendable out, final char tag, final PriceLevels side) throws IOException
    {
        for (int depth = 0; depth < side.size(); depth++)
        {
            out.append(tag).append(' ')
                .append(Long.toString(side.price(depth))).append(' ')
                .append(Long.toString(side.shares(depth))).append(' ')
                .append(Integer.toString(side.orderCount(depth))).append('\n');
        }
    }
}
