package io.mdfanout.feed.sim;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ReferenceBookTest
{
    private final ReferenceBook book = new ReferenceBook();
    private final ItchEvent event = new ItchEvent();

    @Test
    void emptyBookDumpsNothing()
    {
        assertEquals("", book.dump());
    }

    @Test
    void aggregatesLevelsBestFirstAndInstrumentsAscending()
    {
        add('A', 1, 7, 'B', 100, 1_000_000);
        add('F', 2, 7, 'B', 200, 1_000_000);
        add('A', 3, 7, 'B', 50, 999_900);
        add('A', 4, 7, 'S', 300, 1_000_100);
        add('A', 5, 7, 'S', 10, 1_000_300);
        add('A', 6, 7, 'S', 20, 1_000_100);
        add('A', 7, 2, 'S', 5, 10_000);

        assertEquals(
            "I 2\n" +
            "S 10000 5 1\n" +
            "I 7\n" +
            "B 1000000 300 2\n" +
            "B 999900 50 1\n" +
            "S 1000100 320 2\n" +
            "S 1000300 10 1\n",
            book.dump());
        assertEquals(1_000_000, book.bestBidPrice(7));
        assertEquals(1_000_100, book.bestAskPrice(7));
        assertEquals(-1, book.bestBidPrice(2));
        assertEquals(-1, book.bestAskPrice(99));
    }

    @Test
    void partialExecutionsAndCancelsReduceAndFullOnesRemove()
    {
        add('A', 1, 3, 'B', 100, 500_000);
        add('A', 2, 3, 'B', 100, 500_000);
        reduce('E', 1, 3, 30);
        reduce('C', 2, 3, 20);
        reduce('X', 1, 3, 10);
        assertEquals("I 3\nB 500000 140 2\n", book.dump());
        assertEquals(60, book.sharesOf(1));

        reduce('E', 1, 3, 60);
        assertEquals(-1, book.sharesOf(1));
        assertEquals("I 3\nB 500000 80 1\n", book.dump());
    }

    @Test
    void replaceMovesTheOrderToItsNewPriceAndSharesOnTheSameSide()
    {
        add('A', 1, 4, 'S', 100, 200_000);
        add('A', 2, 4, 'S', 100, 200_000);
        event.reset();
        event.type = 'U';
        event.stockLocate = 4;
        event.orderReferenceNumber = 1;
        event.newOrderReferenceNumber = 9;
        event.shares = 70;
        event.price = 200_500;
        book.apply(event);
        assertEquals("I 4\nS 200000 100 1\nS 200500 70 1\n", book.dump());
        assertEquals(-1, book.sharesOf(1));
        assertEquals(70, book.sharesOf(9));
    }

    @Test
    void deleteRemovesAndEmptyLevelsAndInstrumentsVanish()
    {
        add('A', 1, 5, 'B', 100, 100_000);
        add('A', 2, 6, 'S', 100, 100_100);
        delete(1, 5);
        assertEquals("I 6\nS 100100 100 1\n", book.dump());
        delete(2, 6);
        assertEquals("", book.dump());
        assertEquals(0, book.orderCount());
    }

    @Test
    void tradesCrossesAndBreaksLeaveTheBookAlone()
    {
        add('A', 1, 5, 'B', 100, 100_000);
        final String before = book.dump();
        for (final char type : new char[]{ 'P', 'Q', 'B', 'I', 'H', 'S' })
        {
            event.reset();
            event.type = type;
            event.stockLocate = 5;
            event.orderReferenceNumber = 1;
            event.shares = 100;
            event.matchNumber = 1;
            book.apply(event);
        }
        assertEquals(before, book.dump());
    }

    @Test
    void inconsistentMessagesAreRejected()
    {
        add('A', 1, 5, 'B', 100, 100_000);
        assertThrows(IllegalStateException.class, () -> reduce('E', 1, 5, 101), "more than remains");
        assertThrows(IllegalStateException.class, () -> reduce('X', 2, 5, 1), "unknown order");
        assertThrows(IllegalStateException.class, () -> delete(1, 6), "wrong locate");
        assertThrows(IllegalStateException.class, () -> add('A', 1, 5, 'S', 1, 1), "live reference reused");
        assertEquals("I 5\nB 100000 100 1\n", book.dump());
    }

    private void add(final char type, final long ref, final int locate, final char side, final long shares, final long price)
    {
        event.reset();
        event.type = type;
        event.stockLocate = locate;
        event.orderReferenceNumber = ref;
        event.side = side;
        event.shares = shares;
        event.price = price;
        book.apply(event);
    }

    private void reduce(final char type, final long ref, final int locate, final long shares)
    {
        event.reset();
        event.type = type;
        event.stockLocate = locate;
        event.orderReferenceNumber = ref;
        event.shares = shares;
        event.price = 1;
        book.apply(event);
    }

    private void delete(final long ref, final int locate)
    {
        event.reset();
        event.type = 'D';
        event.stockLocate = locate;
        event.orderReferenceNumber = ref;
        book.apply(event);
    }
}
