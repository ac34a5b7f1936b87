package io.mdfanout.tools;

import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.SymbolDirectory;
import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.wire.RoleErrorLog;
import org.agrona.CloseHelper;
import org.agrona.concurrent.IdleStrategy;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What every subscriber tool sets up around its poll loop, in one place: the stop signal (SIGINT, SIGTERM), the
 * Aeron media (an embedded driver, or the one at {@code --aeron-dir}), the tool's metrics (served with
 * {@code --metrics-port}), its error log, and the {@link FeedSubscriber} on the chosen partitions.
 * <p>
 * Closed in the reverse order: the subscriber, then the metrics before the media (a scrape reads the driver's
 * counters), the media, the stop signal.
 */
final class ToolSession implements AutoCloseable
{
    private final StopSignal stopSignal;
    private final ToolMedia media;
    private final ToolMetrics metrics;
    private final FeedSubscriber subscriber;
    private final IdleStrategy idle;
    private final PublisherWatch publisherWatch;
    private SymbolDirectory.Selection selection;

    /** How long a tool reads the feed's symbol directory for its --symbol options before it gives up. */
    static final long SYMBOL_DIRECTORY_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);

    private ToolSession(
        final StopSignal stopSignal,
        final ToolMedia media,
        final ToolMetrics metrics,
        final FeedSubscriber subscriber,
        final IdleStrategy idle,
        final PublisherWatch publisherWatch)
    {
        this.stopSignal = stopSignal;
        this.media = media;
        this.metrics = metrics;
        this.subscriber = subscriber;
        this.idle = idle;
        this.publisherWatch = publisherWatch;
    }

    /**
     * Set a tool up: stop signal, media, metrics (started), error log and subscriber.
     *
     * @param tool       the tool's name: its metrics' subscriber label, its error log's role, its stderr prefix.
     * @param options    the tool's subscriber options.
     * @param metrics    the tool's metrics (made by the caller when it reads their counters); closed with the session.
     * @param partitions the partitions to subscribe to.
     * @param listener   receives the messages.
     * @param stderr     where the metrics server reports.
     * @return the session; close it.
     */
    static ToolSession open(
        final String tool,
        final SubscriberOptions options,
        final ToolMetrics metrics,
        final int[] partitions,
        final MarketDataListener listener,
        final PrintStream stderr)
    {
        return open(tool, options, metrics, partitions, listener, stderr, List.of());
    }

    /**
     * As {@link #open(String, SubscriberOptions, ToolMetrics, int[], MarketDataListener, PrintStream)}, by symbol:
     * with symbols, the feed's symbol directory says which partitions carry them, and only those partitions are
     * subscribed to and only those instruments delivered ({@link SymbolDirectory}).
     *
     * @param symbols the symbols; none for the partitions given.
     * @return the session; close it.
     * @throws IllegalArgumentException naming the symbols the directory does not hold.
     * @throws IllegalStateException    when the directory is not complete in time.
     */
    static ToolSession open(
        final String tool,
        final SubscriberOptions options,
        final ToolMetrics metrics,
        final int[] partitions,
        final MarketDataListener listener,
        final PrintStream stderr,
        final List<String> symbols)
    {
        StopSignal stopSignal = null;
        ToolMedia media = null;
        try
        {
            stopSignal = new StopSignal();
            media = ToolMedia.connect(options.aeronDir(), options.idle());
            metrics.start(options.metrics(), media, stderr, tool);
            final RoleErrorLog errorLog = options.errorLog(tool);
            final FeedSubscriber.Context ctx = metrics.feedSubscriberContext(options)
                .aeron(media.aeron()).partitions(partitions).errorHandler(errorLog).listener(listener);
            SymbolDirectory.Selection selection = null;
            if (!symbols.isEmpty())
            {
                selection = SymbolDirectory.resolve(options.feedSubscriberContext().aeron(media.aeron())
                    .errorHandler(errorLog), symbols, SYMBOL_DIRECTORY_TIMEOUT_NS, options.idle().newIdleStrategy());
                selection.applyTo(ctx);
                stderr.println(tool + ": " + selection + " (the feed's symbol directory)");
            }
            final FeedSubscriber subscriber = new FeedSubscriber(ctx);
            // A replay-only run has no live stream, so no publisher to wait for.
            final PublisherWatch publisherWatch = options.replayOnly() ? null : new PublisherWatch(
                tool, options.channel(), options.streamIdBase(), subscriber, stderr, System.nanoTime());
            final ToolSession session = new ToolSession(stopSignal, media, metrics, subscriber,
                media.pollIdle(options.idle().newIdleStrategy()), publisherWatch);
            session.selection = selection;
            return session;
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.closeAll(metrics, media, stopSignal);
            throw ex;
        }
    }

    /** @return the symbols subscribed to by name, their instruments and partitions; null without --symbol. */
    SymbolDirectory.Selection selection()
    {
        return selection;
    }

    /** @return false once a stop was asked for (SIGINT, SIGTERM). */
    boolean isRunning()
    {
        return stopSignal.isRunning();
    }

    /** @return the stop signal, for loops that take one. */
    StopSignal stopSignal()
    {
        return stopSignal;
    }

    /** @return the subscriber. */
    FeedSubscriber subscriber()
    {
        return subscriber;
    }

    /** @return the poll loop's idle strategy (it keeps an embedded driver's conductor running). */
    IdleStrategy idle()
    {
        return idle;
    }

    /** @return the media, for its driver summary. */
    ToolMedia media()
    {
        return media;
    }

    /** Poll the subscriber once and idle by the work done; say so when the partitions have no publisher. */
    void pollOnce()
    {
        final int work = subscriber.poll(FeedSubscriber.DEFAULT_FRAGMENT_LIMIT);
        if (null != publisherWatch)
        {
            publisherWatch.check(System.nanoTime());
        }
        idle.idle(work);
    }

    /** @return how many partitions had no publisher when last looked at (0 for a replay-only run). */
    int partitionsWithoutPublisher()
    {
        return null == publisherWatch ? 0 : publisherWatch.missing();
    }

    /** {@inheritDoc} */
    public void close()
    {
        CloseHelper.closeAll(subscriber, metrics, media, stopSignal);
    }
}
