package io.mdfanout.sdk.example;

import io.aeron.Aeron;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.OrderExecutedDecoder;
import io.mdfanout.sbe.SnapshotInstrumentDecoder;
import io.mdfanout.sbe.SnapshotOrderDecoder;
import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.StaleReason;
import io.mdfanout.sdk.book.OrderBook;
import io.mdfanout.sdk.book.OrderBooks;
import io.mdfanout.wire.Partitioning;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The example of docs/SDK.md, compiled with the SDK's tests so that the guide cannot drift from
 * the API. Run it against a running fanout with an Aeron media driver on the host:
 * {@code java -cp ... io.mdfanout.sdk.example.TopOfBookExample /dev/shm/aeron-... AAPL}.
 */
public final class TopOfBookExample
{
    public static void main(final String[] args)
    {
        final String aeronDir = args[0];
        final String symbol = args[1];
        // The fanout's defaults: its channel, stream id base and partition count.
        final FeedSubscriber.Context ctx = new FeedSubscriber.Context();
        final int partitions = ctx.partitions().length;

        final OrderBooks books = new OrderBooks();
        final MarketDataListener listener = new MarketDataListener()
        {
            // Forward what the books need, then add the application's own logic.
            public void onInstrumentDirectory(
                final MessageContext context, final io.mdfanout.sbe.InstrumentDirectoryDecoder message)
            {
                books.onInstrumentDirectory(context, message);
            }

            public void onAddOrder(final MessageContext context, final AddOrderDecoder message)
            {
                books.onAddOrder(context, message);
            }

            public void onOrderExecuted(final MessageContext context, final OrderExecutedDecoder message)
            {
                books.onOrderExecuted(context, message);
            }

            // ... and the other book messages (or simply pass `books` itself as the listener).

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

        final AtomicBoolean running = new AtomicBoolean(true);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> running.set(false)));
        final IdleStrategy idle = new BackoffIdleStrategy();

        try (Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(aeronDir));
            FeedSubscriber subscriber = new FeedSubscriber(ctx.aeron(aeron).listener(listener)))
        {
            long nextPrintMs = 0;
            while (running.get())
            {
                idle.idle(subscriber.poll(FeedSubscriber.DEFAULT_FRAGMENT_LIMIT));

                final long nowMs = System.currentTimeMillis();
                if (nowMs >= nextPrintMs)
                {
                    nextPrintMs = nowMs + 1000;
                    final long instrumentId = books.directory().instrumentId(symbol);
                    final OrderBook book = instrumentId < 0 ? null : books.book(instrumentId);
                    final int partition = Partitioning.partitionOf(instrumentId, partitions);
                    if (book != null && !book.isEmpty() && !subscriber.isStale(partition))
                    {
                        System.out.println(symbol + " " + book.bestBidShares() + " @ " + book.bestBidPrice() +
                            " / " + book.bestAskShares() + " @ " + book.bestAskPrice() + " (price x 10^-4)");
                    }
                }
            }
        }
    }
}
