package io.mdfanout.sdk;

import io.mdfanout.sbe.InstrumentDirectoryDecoder;
import io.mdfanout.sdk.book.InstrumentDirectory;
import io.mdfanout.wire.FeedStream;
import io.mdfanout.wire.Partitioning;
import org.agrona.concurrent.IdleStrategy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * The feed's symbol directory ({@link FeedStream#DIRECTORY}, docs/WIRE.md "The symbol directory"): every instrument's
 * definition with its partition, read from each partition's directory stream, which carries only InstrumentDirectory
 * messages and the market's session events, and recovered from its snapshots by a subscriber that joins late; so that
 * a subscriber learns which partitions carry the symbols it wants without receiving those partitions' order flow.
 * <p>
 * {@link #resolve} is the usual entry: the instruments and partitions of some symbols, for a subscriber by symbol
 * ({@link Selection#applyTo}: its partitions, and only those instruments delivered). A directory of its own
 * ({@link #poll}) follows the day as it goes. Polling thread only; the {@code String} accessors allocate.
 */
public final class SymbolDirectory implements AutoCloseable
{
    private final InstrumentDirectory directory = new InstrumentDirectory();
    private final FeedSubscriber subscriber;
    private final int partitionCount;
    private final boolean[] joined;

    /**
     * Subscribe to the directory streams of a feed.
     *
     * @param feed the feed's settings, as for a subscriber of it (Aeron client, channel, stream id bases, snapshot
     *             settings); its partitions must be all of the feed's (its partition count), and its stream, listener
     *             and instruments are not used.
     */
    public SymbolDirectory(final FeedSubscriber.Context feed)
    {
        final int[] partitions = feed.partitions();
        for (int i = 0; i < partitions.length; i++)
        {
            if (partitions[i] != i)
            {
                throw new IllegalArgumentException("the symbol directory reads every partition of the feed: give its " +
                    "partition count, not a list of partitions (" + Arrays.toString(partitions) + ")");
            }
        }
        partitionCount = partitions.length;
        joined = new boolean[partitionCount];
        subscriber = new FeedSubscriber(new FeedSubscriber.Context()
            .aeron(feed.aeron())
            .channel(feed.channel())
            .streamIdBase(feed.streamIdBase())
            .partitionCount(partitionCount)
            .snapshotChannel(feed.snapshotChannel())
            .snapshotStreamIdBase(feed.snapshotStreamIdBase())
            .silentTimeoutNs(feed.silentTimeoutNs())
            .nanoClock(feed.nanoClock())
            .errorHandler(feed.errorHandler())
            .stream(FeedStream.DIRECTORY)
            .listener(new MarketDataListener()
            {
                public void onStreamJoined(final int partition, final long streamSequence)
                {
                    joined[partition] = true;
                }

                public void onInstrumentDirectory(final MessageContext context, final InstrumentDirectoryDecoder message)
                {
                    directory.onInstrumentDirectory(message);
                }
            }));
    }

    /**
     * Receive what the directory streams bring.
     *
     * @param fragmentLimit most Aeron messages taken per partition.
     * @return work done.
     */
    public int poll(final int fragmentLimit)
    {
        return subscriber.poll(fragmentLimit);
    }

    /**
     * @return true once every partition's directory stream was joined and is whole (a late join recovered from its
     *         snapshot): the directory then holds every instrument the exchange has defined so far.
     */
    public boolean isComplete()
    {
        for (int partition = 0; partition < partitionCount; partition++)
        {
            if (!joined[partition] || subscriber.isStale(partition) || subscriber.isRecovering(partition))
            {
                return false;
            }
        }
        return true;
    }

    /** @return instruments known. */
    public int size()
    {
        return directory.size();
    }

    /** @return the feed's partition count. */
    public int partitionCount()
    {
        return partitionCount;
    }

    /**
     * @param symbol a symbol.
     * @return its instrument id, or {@link InstrumentDirectory#UNKNOWN}.
     */
    public long instrumentId(final CharSequence symbol)
    {
        return directory.instrumentId(symbol);
    }

    /**
     * @param instrumentId an instrument.
     * @return its symbol, or null.
     */
    public String symbol(final long instrumentId)
    {
        return directory.symbol(instrumentId);
    }

    /**
     * @param instrumentId an instrument.
     * @return the partition that carries it.
     */
    public int partitionOf(final long instrumentId)
    {
        return Partitioning.partitionOf(instrumentId, partitionCount);
    }

    /**
     * The instruments and partitions of symbols, from the directory as it is.
     *
     * @param symbols the symbols.
     * @return the selection.
     * @throws IllegalArgumentException naming the symbols the directory does not hold.
     */
    public Selection select(final Collection<String> symbols)
    {
        final List<String> unknown = new ArrayList<>();
        final long[] instrumentIds = new long[symbols.size()];
        final TreeSet<Integer> partitions = new TreeSet<>();
        int i = 0;
        for (final String symbol : symbols)
        {
            final long instrumentId = directory.instrumentId(symbol);
            if (InstrumentDirectory.UNKNOWN == instrumentId)
            {
                unknown.add(symbol);
                continue;
            }
            instrumentIds[i++] = instrumentId;
            partitions.add(partitionOf(instrumentId));
        }
        if (!unknown.isEmpty())
        {
            throw new IllegalArgumentException("not in the feed's symbol directory (" + directory.size() +
                " instruments): " + String.join(", ", unknown));
        }
        return new Selection(
            symbols.toArray(new String[0]), instrumentIds, partitions.stream().mapToInt(Integer::intValue).toArray());
    }

    /**
     * Read the feed's symbol directory until it is complete and holds every symbol (the exchange may not have defined
     * them yet: a subscriber that starts before the session waits for them), then select them.
     *
     * @param feed      the feed's settings (see {@link #SymbolDirectory(FeedSubscriber.Context)}).
     * @param symbols   the symbols, at least one.
     * @param timeoutNs how long to wait.
     * @param idle      how to wait between polls.
     * @return the symbols' instruments and partitions.
     * @throws IllegalArgumentException naming the symbols a complete directory still does not hold after the wait.
     * @throws IllegalStateException    when the directory is not complete in time, saying which partitions lack it.
     */
    public static Selection resolve(
        final FeedSubscriber.Context feed, final Collection<String> symbols, final long timeoutNs, final IdleStrategy idle)
    {
        if (null == symbols || symbols.isEmpty())
        {
            throw new IllegalArgumentException("no symbols to resolve");
        }
        try (SymbolDirectory directory = new SymbolDirectory(feed))
        {
            final long deadline = feed.nanoClock().nanoTime() + timeoutNs;
            while (!(directory.isComplete() && directory.holdsAll(symbols)))
            {
                if (feed.nanoClock().nanoTime() - deadline > 0)
                {
                    if (directory.isComplete())
                    {
                        return directory.select(symbols); // throws, naming the symbols it lacks
                    }
                    final List<Integer> missing = new ArrayList<>();
                    for (int partition = 0; partition < directory.partitionCount; partition++)
                    {
                        if (!directory.joined[partition] || directory.subscriber.isStale(partition))
                        {
                            missing.add(partition);
                        }
                    }
                    throw new IllegalStateException("the feed's symbol directory (stream " +
                        FeedStream.DIRECTORY.base(feed.streamIdBase()) + "+p on " + feed.channel() + ") is not " +
                        "complete after " + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms: partitions " + missing +
                        " not heard or not recovered (is a fanout of this release publishing the feed?)");
                }
                idle.idle(directory.poll(FeedSubscriber.DEFAULT_FRAGMENT_LIMIT));
            }
            return directory.select(symbols);
        }
    }

    private boolean holdsAll(final Collection<String> symbols)
    {
        for (final String symbol : symbols)
        {
            if (InstrumentDirectory.UNKNOWN == directory.instrumentId(symbol))
            {
                return false;
            }
        }
        return true;
    }

    /** {@inheritDoc} */
    public void close()
    {
        subscriber.close();
    }

    /** Symbols resolved: their instruments and the partitions that carry them. */
    public static final class Selection
    {
        private final String[] symbols;
        private final long[] instrumentIds;
        private final int[] partitions;

        Selection(final String[] symbols, final long[] instrumentIds, final int[] partitions)
        {
            this.symbols = symbols;
            this.instrumentIds = instrumentIds;
            this.partitions = partitions;
        }

        /** @return the symbols, as asked. */
        public String[] symbols()
        {
            return symbols.clone();
        }

        /** @return their instruments, in the same order. */
        public long[] instrumentIds()
        {
            return instrumentIds.clone();
        }

        /** @return the partitions that carry them, ascending, each once. */
        public int[] partitions()
        {
            return partitions.clone();
        }

        /**
         * Make a subscriber a subscriber by symbol: only these partitions, and only these instruments delivered.
         *
         * @param ctx the subscriber's context.
         * @return the context.
         */
        public FeedSubscriber.Context applyTo(final FeedSubscriber.Context ctx)
        {
            return ctx.partitions(partitions).instruments(instrumentIds);
        }

        /** {@inheritDoc} */
        public String toString()
        {
            return Arrays.toString(symbols) + " -> instruments " + Arrays.toString(instrumentIds) + " on partitions " +
                Arrays.toString(partitions);
        }
    }
}
