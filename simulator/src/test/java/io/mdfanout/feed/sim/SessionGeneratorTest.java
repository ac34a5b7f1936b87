package io.mdfanout.feed.sim;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

class SessionGeneratorTest
{
    private static final String ALL_TYPES = "SRHYLVWKJhAFECXDUPQBINO";

    @Test
    void sameSeedGivesByteIdenticalSessionsAndAnotherSeedDiffers() throws Exception
    {
        final SessionConfig config = new SessionConfig().symbols(50).messageCount(200_000);
        final byte[] first = sessionHash(42, config);
        final byte[] second = sessionHash(42, config);
        final byte[] other = sessionHash(43, config);
        assertArrayEquals(first, second);
        assertFalse(java.util.Arrays.equals(first, other), "a different seed must give a different session");
    }

    @Test
    void longSessionKeepsEveryInvariant()
    {
        final long count = 1_000_000;
        final int symbols = 100;
        final SessionGenerator generator = new SessionGenerator(7, new SessionConfig().symbols(symbols).messageCount(count));
        final ItchEvent event = new ItchEvent();
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[64]);
        final ReferenceBook book = new ReferenceBook();

        // Independent of ReferenceBook: ref -> {locate, shares}.
        final Map<Long, long[]> live = new HashMap<>();
        final Map<Long, Integer> matches = new HashMap<>();
        final int[] typeCounts = new int[128];
        long lastTimestamp = -1;
        long lastOrderRef = 0;
        long lastMatch = 0;
        long n = 0;
        char lastType = 0;
        char lastEventCode = 0;

        while (generator.next(event))
        {
            n++;
            typeCounts[event.type]++;
            assertTrue(event.timestamp > lastTimestamp, "timestamps strictly increase at message " + n);
            assertTrue(event.timestamp >= SessionGenerator.START_OF_SYSTEM_HOURS_NS, "from 04:00");
            assertTrue(event.timestamp < 1L << 48, "fits 6 bytes");
            lastTimestamp = event.timestamp;
            assertTrue(ItchEncoder.encode(event, scratch, 0) > 0);

            switch (event.type)
            {
                case 'A':
                case 'F':
                    assertTrue(event.orderReferenceNumber > lastOrderRef, "order refs increase");
                    lastOrderRef = event.orderReferenceNumber;
                    assertTrue(event.side == 'B' || event.side == 'S');
                    assertTrue(event.shares > 0 && event.price > 0, "positive shares and price");
                    assertTrue(event.stockLocate >= 1 && event.stockLocate <= symbols);
                    live.put(event.orderReferenceNumber, new long[]{ event.stockLocate, event.shares });
                    break;

                case 'E':
                case 'C':
                case 'X':
                {
                    final long[] order = liveOrder(live, event, n);
                    assertTrue(event.shares > 0 && event.shares <= order[1], "takes no more than remains at " + n);
                    if ('X' == event.type)
                    {
                        assertTrue(event.shares < order[1], "X leaves shares (a full cancel is a D) at " + n);
                    }
                    else
                    {
                        assertTrue(event.matchNumber > lastMatch, "match numbers increase");
                        lastMatch = event.matchNumber;
                        matches.put(event.matchNumber, event.stockLocate);
                    }
                    if ('C' == event.type)
                    {
                        assertTrue(event.price > 0);
                    }
                    order[1] -= event.shares;
                    if (0 == order[1])
                    {
                        live.remove(event.orderReferenceNumber);
                    }
                    break;
                }

                case 'D':
                    liveOrder(live, event, n);
                    live.remove(event.orderReferenceNumber);
                    break;

                case 'U':
                {
                    final long[] order = liveOrder(live, event, n);
                    assertTrue(event.newOrderReferenceNumber > lastOrderRef, "new refs increase");
                    lastOrderRef = event.newOrderReferenceNumber;
                    assertTrue(event.shares > 0 && event.price > 0);
                    live.remove(event.orderReferenceNumber);
                    live.put(event.newOrderReferenceNumber, new long[]{ order[0], event.shares });
                    break;
                }

                case 'P':
                case 'Q':
                    assertTrue(event.matchNumber > lastMatch, "match numbers increase");
                    lastMatch = event.matchNumber;
                    matches.put(event.matchNumber, event.stockLocate);
                    assertTrue(event.price > 0);
                    break;

                case 'B':
                {
                    final Integer locate = matches.remove(event.matchNumber);
                    assertNotNull(locate, "B breaks an earlier, unbroken match at " + n);
                    assertEquals(locate.intValue(), event.stockLocate, "B carries the locate of the trade it breaks");
                    break;
                }

                case 'S':
                    lastEventCode = event.eventCode;
                    break;

                default:
                    break;
            }

            book.apply(event);
            lastType = event.type;
            if ('A' == event.type || 'F' == event.type || 'U' == event.type)
            {
                final long bid = book.bestBidPrice(event.stockLocate);
                final long ask = book.bestAskPrice(event.stockLocate);
                assertTrue(bid < 0 || ask < 0 || bid < ask, "book crossed at message " + n + ": " + bid + " >= " + ask);
            }
        }

        assertEquals(count, n);
        assertEquals(count, generator.emitted());
        assertEquals('S', lastType);
        assertEquals('C', lastEventCode);
        assertFalse(generator.next(event), "stays ended");
        assertEquals(live.size(), book.orderCount());
        assertEquals(live.size(), generator.liveOrders());
        for (int i = 0; i < ALL_TYPES.length(); i++)
        {
            final char type = ALL_TYPES.charAt(i);
            assertTrue(typeCounts[type] > 0, "type " + type + " appears");
        }
        assertTrue(typeCounts['A'] > 100_000, "mostly adds and deletes");
        assertTrue(book.orderCount() > 20 * symbols, "books have depth: " + book.orderCount());
    }

    @Test
    void openingAndClosingSequencesHaveTheDocumentedShape()
    {
        final int symbols = 9;
        final long count = SessionConfig.minimumMessageCount(symbols) + 5;
        final SessionGenerator generator = new SessionGenerator(3, new SessionConfig().symbols(symbols).messageCount(count));
        final ItchEvent event = new ItchEvent();
        final StringBuilder shape = new StringBuilder();
        while (generator.next(event))
        {
            shape.append(event.type);
            if ('S' == event.type)
            {
                shape.append(event.eventCode);
            }
            if ('H' == event.type && event.timestamp < SessionGenerator.START_OF_MARKET_HOURS_NS)
            {
                assertEquals('T', event.tradingState);
            }
        }
        final String s = shape.toString();
        assertEquals(count, s.replaceAll("S.", "S").length());
        // S O, S S, V, 9 R, Y for locates 1 and 9, L for locates 2 and 6, 9 H, S Q.
        assertTrue(s.startsWith("SOSSV" + "R".repeat(9) + "YY" + "LL" + "H".repeat(9) + "SQ"), s);
        assertTrue(s.endsWith("SM" + "Q".repeat(9) + "SESC"), s);
    }

    @Test
    void minimumSessionHasNoBodyAndEndsExactly()
    {
        final long count = SessionConfig.minimumMessageCount(1);
        final SessionGenerator generator = new SessionGenerator(1, new SessionConfig().symbols(1).messageCount(count));
        final ItchEvent event = new ItchEvent();
        long n = 0;
        while (generator.next(event))
        {
            n++;
        }
        assertEquals(count, n);
        assertEquals('C', event.eventCode);
    }

    @Test
    void rejectsBadConfiguration()
    {
        assertThrows(IllegalArgumentException.class, () -> new SessionGenerator(1, new SessionConfig().symbols(0)));
        assertThrows(IllegalArgumentException.class, () -> new SessionGenerator(1, new SessionConfig().symbols(70_000)));
        assertThrows(IllegalArgumentException.class,
            () -> new SessionGenerator(1, new SessionConfig().symbols(100).messageCount(10)));
        assertThrows(IllegalArgumentException.class, () -> new SessionConfig().weight('Z', 1));
        assertThrows(IllegalArgumentException.class, () -> new SessionConfig().weight('A', -1));
    }

    @Test
    void endlessSessionKeepsGoing()
    {
        final SessionGenerator generator = new SessionGenerator(5, new SessionConfig().symbols(10).messageCount(0));
        final ItchEvent event = new ItchEvent();
        for (int i = 0; i < 300_000; i++)
        {
            assertTrue(generator.next(event));
        }
        assertFalse('S' == event.type && 'C' == event.eventCode);
    }

    @Test
    void manySymbolsUseSyntheticTickersBeyondTheBuiltInList()
    {
        final int symbols = Tickers.realCount() + 30;
        final SessionGenerator generator = new SessionGenerator(1, new SessionConfig().symbols(symbols).messageCount(0));
        final ItchEvent event = new ItchEvent();
        final java.util.Set<String> seen = new java.util.HashSet<>();
        String first = null;
        String last = null;
        while (generator.next(event) && generator.emitted() <= 3 + symbols)
        {
            if ('R' == event.type)
            {
                final String symbol = event.stockAsString();
                assertTrue(seen.add(symbol), "unique symbol " + symbol);
                first = null == first ? symbol : first;
                last = symbol;
            }
        }
        assertEquals(symbols, seen.size());
        assertEquals("AAPL", first);
        assertNotNull(last);
        assertTrue(last.startsWith("ZZ") && last.length() == 6, last);
    }

    private static long[] liveOrder(final Map<Long, long[]> live, final ItchEvent event, final long n)
    {
        final long[] order = live.get(event.orderReferenceNumber);
        if (null == order)
        {
            fail(event.type + " at message " + n + " refers to order " + event.orderReferenceNumber + " not live");
        }
        assertEquals(order[0], event.stockLocate, "same locate as the order at message " + n);
        return order;
    }

    private static byte[] sessionHash(final long seed, final SessionConfig config) throws Exception
    {
        final MessageDigest digest = MessageDigest.getInstance("SHA-256");
        final SessionGenerator generator = new SessionGenerator(seed, config);
        final ItchEvent event = new ItchEvent();
        final byte[] bytes = new byte[64];
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        while (generator.next(event))
        {
            final int length = ItchEncoder.encode(event, buffer, 0);
            digest.update(bytes, 0, length);
        }
        return digest.digest();
    }
}
