package io.mdfanout.sdk.book;

import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderAttributedEncoder;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.AddOrderEncoder;
import io.mdfanout.sbe.InstrumentDirectoryDecoder;
import io.mdfanout.sbe.InstrumentDirectoryEncoder;
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
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.TradeDecoder;
import io.mdfanout.sbe.TradeEncoder;
import io.mdfanout.sdk.LocalCounters;
import io.mdfanout.sdk.MessageContext;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Book maintenance from the order messages, and the canonical dump format. */
class OrderBooksTest
{
    private static final long AAPL = 13;

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
    private final MessageContext context = new MessageContext();
    private final BookCounters counters = new BookCounters(LocalCounters.create(BookCounters.COUNTER_COUNT), "test");
    private final OrderBooks books = new OrderBooks(4, 2, counters); // tiny capacities: growth is exercised too

    @Test
    void shouldAggregateOrdersPerLevelWithBestFirst()
    {
        add(AAPL, 1, 'B', 100_0000, 100);
        add(AAPL, 2, 'B', 100_0000, 50);
        add(AAPL, 3, 'B', 99_5000, 10);
        add(AAPL, 4, 'S', 101_0000, 70);
        addAttributed(AAPL, 5, 'S', 100_5000, 30);
        add(AAPL, 6, 'S', 101_0000, 5);

        final OrderBook book = books.book(AAPL);
        assertEquals(100_0000, book.bestBidPrice());
        assertEquals(150, book.bestBidShares());
        assertEquals(100_5000, book.bestAskPrice());
        assertEquals(30, book.bestAskShares());
        assertLevel(book.bids(), 0, 100_0000, 150, 2);
        assertLevel(book.bids(), 1, 99_5000, 10, 1);
        assertLevel(book.asks(), 0, 100_5000, 30, 1);
        assertLevel(book.asks(), 1, 101_0000, 75, 2);
        assertEquals(6, books.orderCount());
        assertEquals(6, counters.ordersApplied());
    }

    @Test
    void shouldApplyPartialAndFullExecutionsAtTheOrdersOwnPrice()
    {
        add(AAPL, 1, 'B', 100_0000, 100);
        add(AAPL, 2, 'B', 100_0000, 50);

        executed(1, 30);
        assertLevel(books.book(AAPL).bids(), 0, 100_0000, 120, 2);

        executedWithPrice(1, 20, 99_0000); // execution price differs: the book price is what moves
        assertLevel(books.book(AAPL).bids(), 0, 100_0000, 100, 2);

        executed(1, 50); // fills the rest of order 1: it leaves
        assertLevel(books.book(AAPL).bids(), 0, 100_0000, 50, 1);
        assertEquals(1, books.orderCount());

        executedWithPrice(2, 50, 101_0000);
        assertTrue(books.book(AAPL).isEmpty());
        assertEquals(OrderBook.NULL_PRICE, books.book(AAPL).bestBidPrice());
        assertEquals(0, books.orderCount());
    }

    @Test
    void shouldCancelDeleteAndRemoveEmptyLevels()
    {
        add(AAPL, 1, 'S', 10_0000, 100);
        add(AAPL, 2, 'S', 10_1000, 40);

        cancel(1, 60);
        assertLevel(books.book(AAPL).asks(), 0, 10_0000, 40, 1);

        delete(1);
        assertEquals(1, books.book(AAPL).asks().size());
        assertLevel(books.book(AAPL).asks(), 0, 10_1000, 40, 1);

        cancel(2, 40); // cancelling every share removes the order and its level
        assertEquals(0, books.book(AAPL).asks().size());
        assertEquals(0, books.orderCount());
    }

    @Test
    void shouldReplaceAtANewPriceAndAtTheSamePriceKeepingSideAndInstrument()
    {
        add(AAPL, 1, 'B', 50_0000, 100);
        add(AAPL, 2, 'B', 50_0000, 10);

        replace(1, 11, 51_0000, 70);
        final OrderBook book = books.book(AAPL);
        assertLevel(book.bids(), 0, 51_0000, 70, 1);
        assertLevel(book.bids(), 1, 50_0000, 10, 1);

        replace(11, 12, 51_0000, 20); // same price: the level stays, shares change
        assertLevel(book.bids(), 0, 51_0000, 20, 1);
        assertEquals(2, book.bids().size());
        assertEquals(0, book.asks().size());

        delete(12);
        delete(2);
        assertTrue(book.isEmpty());
        delete(11); // gone since the replace
        assertEquals(1, counters.unknownOrderReferences());
    }

    @Test
    void shouldInsertAndRemoveLevelsInTheMiddleOfADeepBook()
    {
        // Prices added out of order, many more than the initial capacity of 2 levels per side.
        final long[] prices = { 105, 101, 110, 103, 108, 102, 109, 104, 107, 106 };
        for (int i = 0; i < prices.length; i++)
        {
            add(AAPL, 100 + i, 'B', prices[i], i + 1);
            add(AAPL, 200 + i, 'S', prices[i] + 100, i + 1);
        }
        final OrderBook book = books.book(AAPL);
        assertEquals(10, book.bids().size());
        for (int depth = 0; depth < 10; depth++)
        {
            assertEquals(110 - depth, book.bids().price(depth));
            assertEquals(201 + depth, book.asks().price(depth));
        }

        delete(100 + 8); // bid 107 and ask 207, middle of both sides
        delete(200 + 8);
        assertEquals(9, book.bids().size());
        assertEquals(108, book.bids().price(2));
        assertEquals(106, book.bids().price(3));
        assertEquals(206, book.asks().price(5));
        assertEquals(208, book.asks().price(6));
        assertLevel(book.bids(), 0, 110, 3, 1);   // 110 was the third order added (shares 3)
        assertLevel(book.bids(), 3, 106, 10, 1);  // 106 was the tenth
    }

    @Test
    void shouldCountAndIgnoreUnknownReferencesDuplicatesAndBadSides()
    {
        add(AAPL, 1, 'B', 100, 10);
        executed(99, 1);
        cancel(99, 1);
        delete(99);
        replace(99, 100, 100, 1);
        add(AAPL, 1, 'S', 200, 10);   // duplicate id
        add(AAPL, 2, 'X', 200, 10);   // not a side

        assertEquals(4, counters.unknownOrderReferences());
        assertEquals(1, counters.duplicateOrderIds());
        assertEquals(1, counters.invalidOrders());
        assertEquals(1, books.orderCount());
        assertLevel(books.book(AAPL).bids(), 0, 100, 10, 1);
    }

    @Test
    void shouldNotLetTradesTouchTheBook()
    {
        add(AAPL, 1, 'B', 100, 10);
        final TradeEncoder encoder = new TradeEncoder().wrap(buffer, 0).instrumentId(AAPL).orderId(1).shares(10)
            .side(Side.BUY).matchNumber(5);
        encoder.price().mantissa(100);
        books.onTrade(context, new TradeDecoder().wrap(buffer, 0, TradeDecoder.BLOCK_LENGTH, 0));
        assertLevel(books.book(AAPL).bids(), 0, 100, 10, 1);
    }

    @Test
    void shouldLearnTheInstrumentDirectory()
    {
        new InstrumentDirectoryEncoder().wrap(buffer, 0).instrumentId(AAPL).symbol("AAPL    ");
        books.onInstrumentDirectory(
            context, new InstrumentDirectoryDecoder().wrap(buffer, 0, InstrumentDirectoryDecoder.BLOCK_LENGTH, 0));
        assertEquals("AAPL", books.directory().symbol(AAPL));
        assertEquals(AAPL, books.directory().instrumentId("AAPL"));
        assertEquals(AAPL, books.directory().instrumentId("AAPL    "));
        assertEquals(InstrumentDirectory.UNKNOWN, books.directory().instrumentId("MSFT"));
        assertNull(books.directory().symbol(14));

        new InstrumentDirectoryEncoder().wrap(buffer, 0).instrumentId(AAPL).symbol("AAPL.X  "); // renamed
        books.onInstrumentDirectory(
            context, new InstrumentDirectoryDecoder().wrap(buffer, 0, InstrumentDirectoryDecoder.BLOCK_LENGTH, 0));
        assertEquals(InstrumentDirectory.UNKNOWN, books.directory().instrumentId("AAPL"));
        assertEquals("AAPL.X", books.directory().symbol(AAPL));
    }

    @Test
    void shouldDumpInTheCanonicalFormat() throws Exception
    {
        add(20, 1, 'S', 300_0000, 5);
        add(3, 2, 'B', 10_0000, 100);
        add(3, 3, 'B', 10_0000, 200);
        add(3, 4, 'B', 9_9900, 1);
        add(3, 5, 'S', 10_0100, 7);
        add(3, 6, 'S', 10_0200, 8);
        add(7, 7, 'B', 1, 1);
        delete(7); // instrument 7 is now empty: not dumped

        final String expected =
            "I 3\n" +
            "B 100000 300 2\n" +
            "B 99900 1 1\n" +
            "S 100100 7 1\n" +
            "S 100200 8 1\n" +
            "I 20\n" +
            "S 3000000 5 1\n";
        assertEquals(expected, books.dump());

        final Path file = Files.createTempFile("books", ".txt");
        try
        {
            books.dump(file);
            assertEquals(expected, new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
        }
        finally
        {
            Files.delete(file);
        }
    }

    private static void assertLevel(
        final PriceLevels side, final int depth, final long price, final long shares, final int orders)
    {
        assertEquals(price, side.price(depth), "price at depth " + depth);
        assertEquals(shares, side.shares(depth), "shares at depth " + depth);
        assertEquals(orders, side.orderCount(depth), "orders at depth " + depth);
    }

    private void add(final long instrumentId, final long orderId, final char side, final long price, final long shares)
    {
        final AddOrderEncoder encoder = new AddOrderEncoder().wrap(buffer, 0)
            .instrumentId(instrumentId).orderId(orderId).shares(shares);
        buffer.putByte(AddOrderEncoder.sideEncodingOffset(), (byte)side);
        encoder.price().mantissa(price);
        books.onAddOrder(context, new AddOrderDecoder().wrap(buffer, 0, AddOrderDecoder.BLOCK_LENGTH, 0));
    }

    private void addAttributed(
        final long instrumentId, final long orderId, final char side, final long price, final long shares)
    {
        final AddOrderAttributedEncoder encoder = new AddOrderAttributedEncoder().wrap(buffer, 0)
            .instrumentId(instrumentId).orderId(orderId).shares(shares).side(Side.get((byte)side)).attribution("ABCD");
        encoder.price().mantissa(price);
        books.onAddOrderAttributed(
            context, new AddOrderAttributedDecoder().wrap(buffer, 0, AddOrderAttributedDecoder.BLOCK_LENGTH, 0));
    }

    private void executed(final long orderId, final long shares)
    {
        new OrderExecutedEncoder().wrap(buffer, 0).orderId(orderId).executedShares(shares).matchNumber(1);
        books.onOrderExecuted(context, new OrderExecutedDecoder().wrap(buffer, 0, OrderExecutedDecoder.BLOCK_LENGTH, 0));
    }

    private void executedWithPrice(final long orderId, final long shares, final long price)
    {
        final OrderExecutedWithPriceEncoder encoder = new OrderExecutedWithPriceEncoder().wrap(buffer, 0)
            .orderId(orderId).executedShares(shares).matchNumber(2).printable((byte)'Y');
        encoder.executionPrice().mantissa(price);
        books.onOrderExecutedWithPrice(
            context, new OrderExecutedWithPriceDecoder().wrap(buffer, 0, OrderExecutedWithPriceDecoder.BLOCK_LENGTH, 0));
    }

    private void cancel(final long orderId, final long shares)
    {
        new OrderCancelEncoder().wrap(buffer, 0).orderId(orderId).cancelledShares(shares);
        books.onOrderCancel(context, new OrderCancelDecoder().wrap(buffer, 0, OrderCancelDecoder.BLOCK_LENGTH, 0));
    }

    private void delete(final long orderId)
    {
        new OrderDeleteEncoder().wrap(buffer, 0).orderId(orderId);
        books.onOrderDelete(context, new OrderDeleteDecoder().wrap(buffer, 0, OrderDeleteDecoder.BLOCK_LENGTH, 0));
    }

    private void replace(final long originalOrderId, final long newOrderId, final long price, final long shares)
    {
        final OrderReplaceEncoder encoder = new OrderReplaceEncoder().wrap(buffer, 0)
            .originalOrderId(originalOrderId).newOrderId(newOrderId).shares(shares);
        encoder.price().mantissa(price);
        books.onOrderReplace(context, new OrderReplaceDecoder().wrap(buffer, 0, OrderReplaceDecoder.BLOCK_LENGTH, 0));
    }
}
