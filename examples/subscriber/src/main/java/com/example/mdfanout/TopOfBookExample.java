package com.example.mdfanout;

import io.aeron.Aeron;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
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
import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.StaleReason;
import io.mdfanout.sdk.book.OrderBook;
import io.mdfanout.sdk.book.OrderBooks;
import io.mdfanout.wire.Partitioning;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.collections.MutableLong;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A subscriber built outside the mdfanout tree, against the published {@code io.mdfanout:mdfanout-sdk}: it
 * joins a running fanout (the demo's, by default), keeps order books with the SDK's {@link OrderBooks} and
 * prints the top of book of the chosen symbols once a second. See README.md beside the pom.
 * <p>
 * Exit status: 0 once {@code --messages} messages have arrived and every symbol has shown a live top of book
 * (never with {@code --messages 0}, the default: it runs until Ctrl-C); 1 when {@code --timeout-s} passes
 * first; 2 on a usage error.
 */
public final class TopOfBookExample
{
    /** The demo's channel ({@code make demo}) and the fanout's defaults. */
    static final String DEFAULT_CHANNEL = FeedSubscriber.Context.DEFAULT_CHANNEL;
    static final int DEFAULT_STREAM_ID_BASE = FeedSubscriber.Context.DEFAULT_STREAM_ID_BASE;
    static final int DEFAULT_PARTITIONS = FeedSubscriber.Context.DEFAULT_PARTITION_COUNT;
    static final long PRINT_INTERVAL_MS = 1000;
    static final long CHECK_INTERVAL_MS = 100;

    static final int EXIT_DONE = 0;
    static final int EXIT_TIMEOUT = 1;
    static final int EXIT_USAGE = 2;

    private TopOfBookExample()
    {
    }

    /**
     * Run the example.
     *
     * @param args {@code [--aeron-dir DIR] [--channel CHANNEL] [--stream-id-base N] [--partitions N]
     *             [--symbol SYMBOL]... [--messages N] [--timeout-s N]}.
     */
    public static void main(final String[] args)
    {
        final Options options;
        try
        {
            options = Options.parse(args);
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("top-of-book: " + ex.getMessage());
            System.err.println(Options.USAGE);
            System.exit(EXIT_USAGE);
            return;
        }
        System.exit(run(options));
    }

    static int run(final Options options)
    {
        final OrderBooks books = new OrderBooks();
        final MutableLong messages = new MutableLong();
        final MarketDataListener listener = new MarketDataListener()
        {
            // Every message comes here first: the application's own logic (here, a count).
            public void onRawMessage(
                final MessageContext context, final DirectBuffer buffer, final int offset, final int length)
            {
                messages.increment();
            }

            // Forward what the books need (or simply pass `books` itself as the listener).
            public void onInstrumentDirectory(final MessageContext context, final InstrumentDirectoryDecoder message)
            {
                books.onInstrumentDirectory(context, message);
            }

            public void onAddOrder(final MessageContext context, final AddOrderDecoder message)
            {
                books.onAddOrder(context, message);
            }

            public void onAddOrderAttributed(final MessageContext context, final AddOrderAttributedDecoder message)
            {
                books.onAddOrderAttributed(context, message);
            }

            public void onOrderExecuted(final MessageContext context, final OrderExecutedDecoder message)
            {
                books.onOrderExecuted(context, message);
            }

            public void onOrderExecutedWithPrice(
                final MessageContext context, final OrderExecutedWithPriceDecoder message)
            {
                books.onOrderExecutedWithPrice(context, message);
            }

            public void onOrderCancel(final MessageContext context, final OrderCancelDecoder message)
            {
                books.onOrderCancel(context, message);
            }

            public void onOrderDelete(final MessageContext context, final OrderDeleteDecoder message)
            {
                books.onOrderDelete(context, message);
            }

            public void onOrderReplace(final MessageContext context, final OrderReplaceDecoder message)
            {
                books.onOrderReplace(context, message);
            }

            // Recovery: a late join, a gap or a fanout restart rebuilds the books from a snapshot.
            public void onSnapshotBegin(final int partition, final long snapshotId, final long lastStreamSequence)
            {
                books.onSnapshotBegin(partition, snapshotId, lastStreamSequence);
            }

            public void onSnapshotInstrument(final MessageContext context, final SnapshotInstrumentDecoder message)
            {
                books.onSnapshotInstrument(context, message);
            }

            public void onSnapshotOrder(final MessageContext context, final SnapshotOrderDecoder message)
            {
                books.onSnapshotOrder(context, message);
            }

            public void onStale(final int partition, final StaleReason reason, final long streamSequence)
            {
                System.err.println("partition " + partition + " stale (" + reason + "): do not trade on it");
            }

            public void onRecovered(
                final int partition, final long snapshotId, final long lastStreamSequence, final long staleForNanos)
            {
                System.err.println("partition " + partition + " good again after " + staleForNanos / 1_000_000 + " ms");
            }
        };

        final IdleStrategy idle = new BackoffIdleStrategy();
        final boolean[] seenLive = new boolean[options.symbols.size()];
        final long deadlineMs = options.timeoutS > 0 ?
            System.currentTimeMillis() + TimeUnit.SECONDS.toMillis(options.timeoutS) : Long.MAX_VALUE;
        int exitCode = EXIT_DONE;

        // Ctrl-C ends the loop; the hook waits until the subscriber and the driver are closed.
        final AtomicBoolean running = new AtomicBoolean(true);
        final CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
        {
            running.set(false);
            try
            {
                closed.await(5, TimeUnit.SECONDS);
            }
            catch (final InterruptedException ignore)
            {
                Thread.currentThread().interrupt();
            }
        }));

        MediaDriver driver = null;
        try
        {
            // A host that receives Aeron needs a media driver: an external one (--aeron-dir) or one embedded here.
            if (null == options.aeronDir)
            {
                driver = MediaDriver.launchEmbedded(
                    new MediaDriver.Context().threadingMode(ThreadingMode.SHARED).dirDeleteOnShutdown(true));
            }
            final String aeronDir = null != driver ? driver.aeronDirectoryName() : options.aeronDir;

            try (Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(aeronDir));
                FeedSubscriber subscriber = new FeedSubscriber(new FeedSubscriber.Context()
                    .aeron(aeron)
                    .channel(options.channel)
                    .streamIdBase(options.streamIdBase)
                    .partitionCount(options.partitions)
                    .listener(listener)))
            {
                System.err.println("top-of-book: subscribed to " + options.partitions + " partitions on " +
                    options.channel + " (stream id base " + options.streamIdBase + ")");
                long nextCheckMs = 0;
                long nextPrintMs = 0;
                while (running.get())
                {
                    idle.idle(subscriber.poll(FeedSubscriber.DEFAULT_FRAGMENT_LIMIT));

                    final long nowMs = System.currentTimeMillis();
                    if (nowMs < nextCheckMs)
                    {
                        continue;
                    }
                    nextCheckMs = nowMs + CHECK_INTERVAL_MS;
                    final boolean print = nowMs >= nextPrintMs;
                    if (print)
                    {
                        nextPrintMs = nowMs + PRINT_INTERVAL_MS;
                    }

                    boolean allLive = true;
                    for (int i = 0; i < seenLive.length; i++)
                    {
                        final String symbol = options.symbols.get(i);
                        final long instrumentId = books.directory().instrumentId(symbol);
                        final OrderBook book = instrumentId < 0 ? null : books.book(instrumentId);
                        final boolean live = null != book && !book.isEmpty() &&
                            !subscriber.isStale(Partitioning.partitionOf(instrumentId, options.partitions));
                        if (live && (print || !seenLive[i]))
                        {
                            System.out.println(symbol + " " + side(book.bestBidShares(), book.bestBidPrice()) +
                                " / " + side(book.bestAskShares(), book.bestAskPrice()) + " (price x 10^-4)");
                        }
                        seenLive[i] |= live;
                        allLive &= seenLive[i];
                    }

                    if (options.messages > 0 && messages.get() >= options.messages && allLive)
                    {
                        System.err.println("top-of-book: " + messages.get() + " messages, a live book of every symbol");
                        break;
                    }
                    if (nowMs >= deadlineMs)
                    {
                        System.err.println("top-of-book: timed out after " + options.timeoutS + " s with " +
                            messages.get() + " messages (wanted " + options.messages + "), connected=" +
                            subscriber.isConnected());
                        exitCode = EXIT_TIMEOUT;
                        break;
                    }
                }
            }
        }
        finally
        {
            CloseHelper.close(driver);
            closed.countDown();
        }

        return exitCode;
    }

    /** The command line, parsed. */
    static final class Options
    {
        static final String USAGE = "usage: top-of-book [--aeron-dir DIR] [--channel CHANNEL] [--stream-id-base N]" +
            " [--partitions N] [--symbol SYMBOL]... [--messages N] [--timeout-s N]";

        String aeronDir;
        String channel = DEFAULT_CHANNEL;
        int streamIdBase = DEFAULT_STREAM_ID_BASE;
        int partitions = DEFAULT_PARTITIONS;
        final List<String> symbols = new ArrayList<>();
        long messages;
        long timeoutS;

        static Options parse(final String[] args)
        {
            final Options options = new Options();
            for (int i = 0; i < args.length; i++)
            {
                final String name = args[i];
                if ("--help".equals(name) || "-h".equals(name))
                {
                    System.out.println(USAGE);
                    System.exit(EXIT_DONE);
                }
                if (i + 1 >= args.length)
                {
                    throw new IllegalArgumentException(name + " needs a value");
                }
                final String value = args[++i];
                switch (name)
                {
                    case "--aeron-dir" -> options.aeronDir = value;
                    case "--channel" -> options.channel = value;
                    case "--stream-id-base" -> options.streamIdBase = parseInt(name, value);
                    case "--partitions" -> options.partitions = parseInt(name, value);
                    case "--symbol" -> options.symbols.add(value);
                    case "--messages" -> options.messages = parseInt(name, value);
                    case "--timeout-s" -> options.timeoutS = parseInt(name, value);
                    default -> throw new IllegalArgumentException("unknown option " + name);
                }
            }
            if (options.symbols.isEmpty())
            {
                options.symbols.add("AAPL");
            }
            return options;
        }

        private static int parseInt(final String name, final String value)
        {
            try
            {
                final int parsed = Integer.parseInt(value);
                if (parsed < 0)
                {
                    throw new IllegalArgumentException(name + " must not be negative: " + value);
                }
                return parsed;
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException(name + " is not a number: " + value);
            }
        }
    }

    /** A side's best level as {@code shares @ price}, or {@code -} when the side has no order. */
    private static String side(final long shares, final long price)
    {
        return 0 == shares ? "-" : shares + " @ " + price;
    }
}
