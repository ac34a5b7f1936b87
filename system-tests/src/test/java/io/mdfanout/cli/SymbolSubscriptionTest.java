package io.mdfanout.cli;

import io.aeron.Aeron;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sdk.CompositeListener;
import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.SymbolDirectory;
import io.mdfanout.sdk.book.OrderBook;
import io.mdfanout.sdk.book.OrderBooks;
import io.mdfanout.wire.Partitioning;
import io.mdfanout.wire.WireFormat;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Symbols by name (issue 40): every fanout publishes the symbol directory; a subscriber that starts mid-session, long
 * after the exchange defined its instruments, reads it (recovered from the directory's snapshots), learns which
 * partitions carry two symbols, and subscribes to those partitions only, with only those instruments delivered. Its
 * books of the two are those of a subscriber of every partition, its callbacks are for those two (and the market) only,
 * and the bytes it received are measured against the all-partition subscriber's.
 */
class SymbolSubscriptionTest
{
    private static final int PARTITIONS = 8;
    private static final int SYMBOLS = 200;
    private static final long SEED = 20261130L;
    private static final List<String> WANTED = List.of("AAPL", "NVDA"); // stock locates 1 and 3: partitions 1 and 3

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aSubscriberByTwoSymbolsReceivesOnlyTheirPartitionsAndInstruments(@TempDir final Path dir) throws Exception
    {
        final long messages = 400_000;
        final String channel = "aeron:udp?endpoint=224.0.1.145:47500|interface=127.0.0.1|mtu=8192";
        final int streamIdBase = 4750;
        final String aeronDir = new File(System.getProperty("java.io.tmpdir"), "symbols-" + System.nanoTime())
            .getAbsolutePath();
        try (ChainHarness chain = new ChainHarness(dir, "symbols", PARTITIONS, channel, streamIdBase);
            MediaDriver driver = MediaDriver.launch(new MediaDriver.Context()
                .aeronDirectoryName(aeronDir)
                .threadingMode(ThreadingMode.SHARED)
                .sharedIdleStrategy(new BackoffIdleStrategy(10, 20, 1_000, 1_000_000))
                .socketRcvbufLength(4 * 1024 * 1024)
                .initialWindowLength(4 * 1024 * 1024)
                .dirDeleteOnStart(true)
                .dirDeleteOnShutdown(true));
            Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(aeronDir)))
        {
            final ChainProcess feedHandler =
                chain.feedHandler("--group", "239.255.47.51", "--port", "47510", "--interface", "127.0.0.1");
            chain.fanout("--snapshot-interval-ms", "1000");
            final Polled all = new Polled(aeron, feed(channel, streamIdBase));
            // The exchange starts once the feed handler listens and the fanout's streams reach the subscriber: the
            // session's start (its instrument definitions) must not be lost on the way.
            feedHandler.awaitLine("receiving line A");
            all.awaitConnected();

            final ChainProcess simulator = chain.simulator(
                "--group", "239.255.47.51", "--port", "47510", "--interface", "127.0.0.1",
                "--seed", Long.toString(SEED), "--symbols", Integer.toString(SYMBOLS),
                "--messages", Long.toString(messages), "--rate", "50000");
            ChainHarness.awaitSimulatorProgress(simulator, messages / 4);

            // Long after the instruments were defined: the directory is whole only through its snapshots.
            final long resolveStartNs = System.nanoTime();
            final SymbolDirectory.Selection selection = SymbolDirectory.resolve(
                feed(channel, streamIdBase).aeron(aeron), WANTED, TimeUnit.SECONDS.toNanos(30),
                new BackoffIdleStrategy(10, 20, 1_000, 1_000_000));
            final long resolveMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - resolveStartNs);
            assertArrayEquals(new long[] {1, 3}, selection.instrumentIds(), selection.toString());
            assertArrayEquals(new int[] {1, 3}, selection.partitions(), selection.toString());
            final Polled bySymbol = new Polled(aeron, selection.applyTo(feed(channel, streamIdBase)));
            assertArrayEquals(new int[] {1, 3}, bySymbol.subscriber.partitions(), "subscribed to their partitions only");

            assertEquals(0, simulator.waitFor(5, TimeUnit.MINUTES), "simulator exit code");
            assertTrue(all.awaitEnd(PARTITIONS), "the all-partition subscriber reached End of Messages");
            assertTrue(bySymbol.awaitEnd(2), "the subscriber by symbol reached End of Messages");
            all.close();
            bySymbol.close();

            assertEquals(Set.of(1L, 3L), bySymbol.instruments, "its callbacks were for its two instruments (and the " +
                "market-wide messages) only");
            final ExpectedStreams expected = ExpectedStreams.generate(SEED, SYMBOLS, messages, PARTITIONS);
            assertEquals(expected.books(), all.books.dump(), "the all-partition subscriber's books are the exchange's");
            for (final long instrument : selection.instrumentIds())
            {
                assertEquals(levels(all.books.book(instrument)), levels(bySymbol.books.book(instrument)),
                    "instrument " + instrument + "'s book: the subscriber by symbol's is the all-partition one's");
            }
            final long allBytes = all.subscriber.counters().receivedBytes();
            final long symbolBytes = bySymbol.subscriber.counters().receivedBytes();
            System.out.printf("symbols %s resolved in %d ms from the directory (%s); bytes received: by symbol %,d " +
                "(joined a quarter into the session), all partitions %,d: %.3f of them%n", WANTED, resolveMs,
                selection, symbolBytes, allBytes, (double)symbolBytes / allBytes);
            assertTrue(symbolBytes > 0 && symbolBytes < allBytes / 3,
                "two partitions of eight, from a quarter in, cost well under a third: " + symbolBytes + " of " + allBytes);
            chain.passed();
        }
    }

    private static FeedSubscriber.Context feed(final String channel, final int streamIdBase)
    {
        return new FeedSubscriber.Context().channel(channel).streamIdBase(streamIdBase).partitionCount(PARTITIONS);
    }

    private static String levels(final OrderBook book)
    {
        final StringBuilder out = new StringBuilder();
        for (int depth = 0; depth < book.bids().size(); depth++)
        {
            out.append("B ").append(book.bids().price(depth)).append(' ').append(book.bids().shares(depth)).append('\n');
        }
        for (int depth = 0; depth < book.asks().size(); depth++)
        {
            out.append("S ").append(book.asks().price(depth)).append(' ').append(book.asks().shares(depth)).append('\n');
        }
        return out.toString();
    }

    /** A subscriber polled on a thread of its own: books, the instruments its callbacks named, End of Messages seen. */
    private static final class Polled implements AutoCloseable
    {
        final OrderBooks books = new OrderBooks();
        final Set<Long> instruments = new ConcurrentSkipListSet<>();
        final FeedSubscriber subscriber;
        private final AtomicInteger ended = new AtomicInteger();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread poller;

        Polled(final Aeron aeron, final FeedSubscriber.Context ctx)
        {
            final MarketDataListener watcher = new MarketDataListener()
            {
                private final Set<Integer> endedPartitions = new TreeSet<>();

                public void onRawMessage(
                    final MessageContext context, final DirectBuffer buffer, final int offset, final int length)
                {
                    final long instrument = WireFormat.instrumentId(buffer, offset);
                    if (!Partitioning.isMarketWide(instrument))
                    {
                        instruments.add(instrument);
                    }
                }

                public void onSystemEvent(final MessageContext context, final SystemEventDecoder message)
                {
                    if (SystemEventCode.END_OF_MESSAGES == message.eventCode() && endedPartitions.add(context.partition()))
                    {
                        ended.incrementAndGet();
                    }
                }
            };
            subscriber = new FeedSubscriber(ctx.aeron(aeron).listener(new CompositeListener(books, watcher)));
            poller = new Thread(() ->
            {
                final BackoffIdleStrategy idle = new BackoffIdleStrategy(10, 20, 1_000, 1_000_000);
                while (running.get())
                {
                    idle.idle(subscriber.poll(FeedSubscriber.DEFAULT_FRAGMENT_LIMIT));
                }
            }, "polled-" + Arrays.toString(ctx.partitions()));
            poller.setDaemon(true);
            poller.start();
        }

        void awaitConnected() throws InterruptedException
        {
            final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            while (!subscriber.isConnected())
            {
                assertTrue(System.nanoTime() < deadline, "the subscriber connected to every partition's stream");
                Thread.sleep(20);
            }
        }

        boolean awaitEnd(final int partitions) throws InterruptedException
        {
            final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (ended.get() < partitions && System.nanoTime() < deadline)
            {
                Thread.sleep(20);
            }
            return ended.get() >= partitions;
        }

        public void close() throws InterruptedException
        {
            if (running.getAndSet(false))
            {
                poller.join(5_000);
                CloseHelper.close(subscriber);
            }
        }
    }
}
