package io.mdfanout.feed.sim;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * An obviously-correct order book of every instrument, built directly from {@link ItchEvent}s: the oracle of the
 * integration tests. Never on a message path: it uses plain java.util collections and allocates freely.
 * <p>
 * Book semantics (ITCH50.md): A and F add resting shares; E and C reduce them (C trades at its own price, the
 * order keeps its price); X reduces; D removes; U removes the original order and adds the new reference with the
 * new price and shares on the same side and instrument. An order whose shares reach 0 leaves the book, and a
 * level without orders vanishes. P, Q, B and every other type leave the book alone. A message that refers to an
 * unknown order, reuses a live reference, or takes more shares than remain is a broken session: it throws
 * {@link IllegalStateException} with the details.
 * <p>
 * {@link #dump()} writes the canonical book dump shared with the SDK's book: UTF-8 text, '\n' line ends;
 * instruments (stock locate) in ascending order, only those with at least one resting order; for each a line
 * {@code I <instrumentId>}, then one line per bid level, best (highest) price first,
 * {@code B <priceMantissa> <totalShares> <orderCount>}, then one line per ask level, best (lowest) price first,
 * {@code S <priceMantissa> <totalShares> <orderCount>}.
 */
public final class ReferenceBook
{
    private static final class Order
    {
        final int instrumentId;
        final boolean bid;
        final long price;
        long shares;

        Order(final int instrumentId, final boolean bid, final long price, final long shares)
        {
            this.instrumentId = instrumentId;
            this.bid = bid;
            this.price = price;
            this.shares = shares;
        }
    }

    private static final class Level
    {
        long shares;
        int orders;
    }

    private static final class InstrumentBook
    {
        final NavigableMap<Long, Level> bids = new TreeMap<>(Comparator.reverseOrder());
        final NavigableMap<Long, Level> asks = new TreeMap<>();

        NavigableMap<Long, Level> side(final boolean bid)
        {
            return bid ? bids : asks;
        }

        boolean isEmpty()
        {
            return bids.isEmpty() && asks.isEmpty();
        }
    }

    private final Map<Long, Order> orders = new HashMap<>();
    private final TreeMap<Integer, InstrumentBook> books = new TreeMap<>();

    /**
     * Applies one message.
     *
     * @param event the message.
     * @throws IllegalStateException when the message is inconsistent with the book.
     */
    public void apply(final ItchEvent event)
    {
        switch (event.type)
        {
            case 'A':
            case 'F':
                add(event.orderReferenceNumber, event.stockLocate, event.side, event.price, event.shares);
                break;

            case 'E':
            case 'C':
            case 'X':
                reduce(event.orderReferenceNumber, event.stockLocate, event.shares, event.type);
                break;

            case 'D':
                remove(find(event.orderReferenceNumber, event.stockLocate, 'D'));
                orders.remove(event.orderReferenceNumber);
                break;

            case 'U':
            {
                final Order original = find(event.orderReferenceNumber, event.stockLocate, 'U');
                remove(original);
                orders.remove(event.orderReferenceNumber);
                add(event.newOrderReferenceNumber, original.instrumentId, original.bid ? 'B' : 'S',
                    event.price, event.shares);
                break;
            }

            default:
                break;
        }
    }

    /**
     * Number of live orders across all instruments.
     *
     * @return the count.
     */
    public int orderCount()
    {
        return orders.size();
    }

    /**
     * Remaining shares of a live order.
     *
     * @param orderReferenceNumber the order.
     * @return its shares, or -1 when it is not live.
     */
    public long sharesOf(final long orderReferenceNumber)
    {
        final Order order = orders.get(orderReferenceNumber);
        return null == order ? -1 : order.shares;
    }

    /**
     * The best (highest) bid price of an instrument.
     *
     * @param instrumentId the stock locate.
     * @return the Price(4) mantissa, or -1 when no bid rests.
     */
    public long bestBidPrice(final int instrumentId)
    {
        final InstrumentBook book = books.get(instrumentId);
        return null == book || book.bids.isEmpty() ? -1 : book.bids.firstKey();
    }

    /**
     * The best (lowest) ask price of an instrument.
     *
     * @param instrumentId the stock locate.
     * @return the Price(4) mantissa, or -1 when no ask rests.
     */
    public long bestAskPrice(final int instrumentId)
    {
        final InstrumentBook book = books.get(instrumentId);
        return null == book || book.asks.isEmpty() ? -1 : book.asks.firstKey();
    }

    /**
     * The canonical book dump (see the class comment for the format).
     *
     * @return the dump; empty when no order rests.
     */
    public String dump()
    {
        final StringBuilder out = new StringBuilder();
        for (final Map.Entry<Integer, InstrumentBook> entry : books.entrySet())
        {
            final InstrumentBook book = entry.getValue();
            if (book.isEmpty())
            {
                continue;
            }
            out.append("I ").append(entry.getKey().intValue()).append('\n');
            appendLevels(out, 'B', book.bids);
            appendLevels(out, 'S', book.asks);
        }
        return out.toString();
    }

    private static void appendLevels(final StringBuilder out, final char side, final NavigableMap<Long, Level> levels)
    {
        for (final Map.Entry<Long, Level> level : levels.entrySet())
        {
            out.append(side).append(' ').append(level.getKey().longValue())
                .append(' ').append(level.getValue().shares)
                .append(' ').append(level.getValue().orders).append('\n');
        }
    }

    private void add(final long ref, final int instrumentId, final char side, final long price, final long shares)
    {
        if (orders.containsKey(ref))
        {
            throw new IllegalStateException("order " + ref + " added while already live");
        }
        if (side != 'B' && side != 'S')
        {
            throw new IllegalStateException("order " + ref + " has side " + (int)side);
        }
        if (shares <= 0)
        {
            throw new IllegalStateException("order " + ref + " added with " + shares + " shares");
        }
        final Order order = new Order(instrumentId, side == 'B', price, shares);
        orders.put(ref, order);
        final Level level = books.computeIfAbsent(instrumentId, id -> new InstrumentBook())
            .side(order.bid).computeIfAbsent(price, p -> new Level());
        level.shares += shares;
        level.orders++;
    }

    private void reduce(final long ref, final int instrumentId, final long shares, final char type)
    {
        final Order order = find(ref, instrumentId, type);
        if (shares <= 0 || shares > order.shares)
        {
            throw new IllegalStateException(
                type + " of " + shares + " shares on order " + ref + " with " + order.shares + " remaining");
        }
        final Level level = books.get(order.instrumentId).side(order.bid).get(order.price);
        level.shares -= shares;
        order.shares -= shares;
        if (0 == order.shares)
        {
            removeFromLevel(order);
            orders.remove(ref);
        }
    }

    private Order find(final long ref, final int instrumentId, final char type)
    {
        final Order order = orders.get(ref);
        if (null == order)
        {
            throw new IllegalStateException(type + " refers to order " + ref + " which is not live");
        }
        if (order.instrumentId != instrumentId)
        {
            throw new IllegalStateException(
                type + " for locate " + instrumentId + " refers to order " + ref + " of locate " + order.instrumentId);
        }
        return order;
    }

    /** Takes a live order's remaining shares off its level, then the order itself. */
    private void remove(final Order order)
    {
        final Level level = books.get(order.instrumentId).side(order.bid).get(order.price);
        level.shares -= order.shares;
        order.shares = 0;
        removeFromLevel(order);
    }

    private void removeFromLevel(final Order order)
    {
        final NavigableMap<Long, Level> side = books.get(order.instrumentId).side(order.bid);
        final Level level = side.get(order.price);
        level.orders--;
        if (0 == level.orders)
        {
            side.remove(order.price);
        }
    }
}
