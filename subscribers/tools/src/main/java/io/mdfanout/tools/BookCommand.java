package io.mdfanout.tools;

import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.book.OrderBook;
import io.mdfanout.sdk.book.OrderBooks;
import io.mdfanout.sdk.book.PriceLevels;
import io.mdfanout.wire.ExitCodes;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2LongHashMap;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/** {@code book}: live top-of-book ladders of chosen (or the most active) symbols, redrawn in place. */
@Command(name = "book", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = "Show live order books, redrawn in the terminal.")
public final class BookCommand implements Callable<Integer>
{
    private static final String CLEAR_SCREEN = "\u001b[H\u001b[2J";
    private static final int MOST_ACTIVE_SHOWN = 3;

    @Mixin
    SubscriberOptions subscriberOptions;

    @Option(names = "--symbol", description = "Symbol to show (repeatable): the feed's symbol directory says which " +
        "partitions carry them, and only those are subscribed to; default the most active few of every partition.")
    List<String> symbols = new ArrayList<>();

    @Option(names = "--depth", defaultValue = "10", description = "Price levels shown per side.")
    int depth;

    @Option(names = "--refresh-ms", defaultValue = "500", description = "Milliseconds between redraws.")
    long refreshMs;

    PrintStream stdout = System.out;
    PrintStream stderr = System.err;

    /** {@inheritDoc} */
    public Integer call()
    {
        final int[] partitions;
        try
        {
            partitions = subscriberOptions.resolvePartitions();
            if (depth <= 0 || refreshMs <= 0)
            {
                throw new IllegalArgumentException("--depth and --refresh-ms must be positive");
            }
        }
        catch (final IllegalArgumentException ex)
        {
            stderr.println("book: " + ex.getMessage());
            return ExitCodes.CONFIG;
        }

        final OrderBooks books = new OrderBooks();
        final ActivityListener listener = new ActivityListener(books, new RecoveryEvents(stderr));
        try (ToolSession session = ToolSession.open("book", subscriberOptions, new ToolMetrics("book"), partitions,
            listener, stderr, null == symbols ? List.of() : symbols))
        {
            final FeedSubscriber subscriber = session.subscriber();
            final long refreshNs = TimeUnit.MILLISECONDS.toNanos(refreshMs);
            final StatsCommand.StatsLine statsLine = new StatsCommand.StatsLine(subscriber.counters());
            long nextDraw = System.nanoTime();
            while (session.isRunning())
            {
                session.pollOnce();
                final long now = System.nanoTime();
                if (now >= nextDraw)
                {
                    stdout.print(render(books, listener, subscriber, statsLine.next(now, session.partitionsWithoutPublisher())));
                    stdout.flush();
                    nextDraw = now + refreshNs;
                }
            }
            return ExitCodes.OK;
        }
        catch (final RuntimeException ex)
        {
            stderr.println("book: " + ex.getMessage());
            return ExitCodes.of(ex);
        }
    }

    private String render(
        final OrderBooks books, final ActivityListener listener, final FeedSubscriber subscriber, final String stats)
    {
        final StringBuilder out = new StringBuilder(4096).append(CLEAR_SCREEN);
        out.append(stats).append('\n').append("last sequence:");
        for (final int partition : subscriber.partitions())
        {
            out.append(" p").append(partition).append('=').append(subscriber.expectedSequence(partition) - 1);
            if (subscriber.isStale(partition))
            {
                out.append(" STALE");
            }
        }
        out.append("\n\n");

        for (final long instrumentId : instrumentsToShow(books, listener))
        {
            final OrderBook book = books.book(instrumentId);
            final String symbol = books.directory().symbol(instrumentId);
            out.append(null != symbol ? symbol : "#" + instrumentId).append(" (").append(instrumentId).append(')');
            if (null != book && isSubscribed(subscriber, book.partition()) && subscriber.isStale(book.partition()))
            {
                out.append(" STALE");
            }
            out.append('\n');
            out.append(String.format("%12s %12s | %-12s %-12s%n", "bid size", "bid", "ask", "ask size"));
            final PriceLevels bids = null != book ? book.bids() : null;
            final PriceLevels asks = null != book ? book.asks() : null;
            for (int level = 0; level < depth; level++)
            {
                final boolean hasBid = null != bids && level < bids.size();
                final boolean hasAsk = null != asks && level < asks.size();
                if (!hasBid && !hasAsk)
                {
                    break;
                }
                out.append(String.format("%12s %12s | %-12s %-12s%n",
                    hasBid ? Long.toString(bids.shares(level)) : "",
                    hasBid ? TextFormat.price4(bids.price(level)) : "",
                    hasAsk ? TextFormat.price4(asks.price(level)) : "",
                    hasAsk ? Long.toString(asks.shares(level)) : ""));
            }
            out.append('\n');
        }
        return out.toString();
    }

    private static boolean isSubscribed(final FeedSubscriber subscriber, final int partition)
    {
        for (final int subscribed : subscriber.partitions())
        {
            if (subscribed == partition)
            {
                return true;
            }
        }
        return false;
    }

    private long[] instrumentsToShow(final OrderBooks books, final ActivityListener listener)
    {
        if (!symbols.isEmpty())
        {
            final List<Long> ids = new ArrayList<>();
            for (final String symbol : symbols)
            {
                final long id = books.directory().instrumentId(symbol);
                if (id >= 0)
                {
                    ids.add(id);
                }
            }
            return ids.stream().mapToLong(Long::longValue).toArray();
        }
        return listener.mostActive(MOST_ACTIVE_SHOWN);
    }

    /** Feeds the books and counts messages per instrument to find the most active ones. */
    static class ActivityListener extends RecoveryReportingListener
    {
        final OrderBooks books;
        private final Long2LongHashMap messagesByInstrument = new Long2LongHashMap(0);
        private final MarketDataListener forward;

        ActivityListener(final OrderBooks books, final RecoveryEvents events)
        {
            super(events);
            this.books = books;
            this.forward = books;
        }

        public void onSnapshotBegin(final int partition, final long snapshotId, final long lastStreamSequence)
        {
            forward.onSnapshotBegin(partition, snapshotId, lastStreamSequence);
        }

        public void onSnapshotInstrument(final MessageContext c, final io.mdfanout.sbe.SnapshotInstrumentDecoder m)
        {
            forward.onSnapshotInstrument(c, m);
        }

        public void onSnapshotOrder(final MessageContext c, final io.mdfanout.sbe.SnapshotOrderDecoder m)
        {
            forward.onSnapshotOrder(c, m);
        }

        public void onRawMessage(final MessageContext context, final DirectBuffer buffer, final int offset, final int length)
        {
            final long instrumentId = WireFormat.instrumentId(buffer, offset);
            if (0 != instrumentId)
            {
                messagesByInstrument.put(instrumentId, messagesByInstrument.get(instrumentId) + 1);
            }
        }

        long[] mostActive(final int count)
        {
            final List<long[]> entries = new ArrayList<>();
            messagesByInstrument.forEachLong((id, messages) ->
            {
                final OrderBook book = books.book(id);
                if (null != book && !book.isEmpty())
                {
                    entries.add(new long[]{ id, messages });
                }
            });
            entries.sort((a, b) -> Long.compare(b[1], a[1]));
            return entries.stream().limit(count).mapToLong(e -> e[0]).toArray();
        }

        public void onInstrumentDirectory(
            final MessageContext c, final io.mdfanout.sbe.InstrumentDirectoryDecoder m)
        {
            forward.onInstrumentDirectory(c, m);
        }

        public void onAddOrder(final MessageContext c, final io.mdfanout.sbe.AddOrderDecoder m)
        {
            forward.onAddOrder(c, m);
        }

        public void onAddOrderAttributed(final MessageContext c, final io.mdfanout.sbe.AddOrderAttributedDecoder m)
        {
            forward.onAddOrderAttributed(c, m);
        }

        public void onOrderExecuted(final MessageContext c, final io.mdfanout.sbe.OrderExecutedDecoder m)
        {
            forward.onOrderExecuted(c, m);
        }

        public void onOrderExecutedWithPrice(
            final MessageContext c, final io.mdfanout.sbe.OrderExecutedWithPriceDecoder m)
        {
            forward.onOrderExecutedWithPrice(c, m);
        }

        public void onOrderCancel(final MessageContext c, final io.mdfanout.sbe.OrderCancelDecoder m)
        {
            forward.onOrderCancel(c, m);
        }

        public void onOrderDelete(final MessageContext c, final io.mdfanout.sbe.OrderDeleteDecoder m)
        {
            forward.onOrderDelete(c, m);
        }

        public void onOrderReplace(final MessageContext c, final io.mdfanout.sbe.OrderReplaceDecoder m)
        {
            forward.onOrderReplace(c, m);
        }
    }

    /**
     * Run from the command line (ad-hoc; the mdfanout CLI registers this command).
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new BookCommand()).execute(args));
    }
}
