package io.mdfanout.sdk;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.mdfanout.wire.Partitioning;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.File;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Real embedded media driver (shared threading, backing off, fresh temporary directory deleted
 * afterwards) and an Aeron client, for tests on UDP multicast over loopback. Either launched at once
 * ({@code new TestMedia()}, closed by the caller) or, shared by the tests of a class, launched before them
 * and closed after them: {@code @RegisterExtension static final TestMedia media = TestMedia.perClass();}.
 */
public final class TestMedia implements AutoCloseable, BeforeAllCallback, AfterAllCallback
{
    public static final String MULTICAST_ADDRESS = "224.0.1.43";

    private MediaDriver driver;
    private Aeron aeron;

    public TestMedia()
    {
        launch();
    }

    private TestMedia(final boolean launch)
    {
        if (launch)
        {
            launch();
        }
    }

    /** @return media launched before the tests of the class that registers it, and closed after them. */
    public static TestMedia perClass()
    {
        return new TestMedia(false);
    }

    public void beforeAll(final ExtensionContext context)
    {
        launch();
    }

    public void afterAll(final ExtensionContext context)
    {
        close();
    }

    private void launch()
    {
        final String dir = new File(System.getProperty("java.io.tmpdir"),
            "mdfanout-sdk-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime()).getAbsolutePath();
        driver = MediaDriver.launch(new MediaDriver.Context()
            .aeronDirectoryName(dir)
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(
                new BackoffIdleStrategy(10, 20, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(1)))
            .publicationTermBufferLength(1024 * 1024)
            .socketRcvbufLength(2 * 1024 * 1024)
            .socketSndbufLength(2 * 1024 * 1024)
            .initialWindowLength(2 * 1024 * 1024)
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true));
        aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
    }

    public Aeron aeron()
    {
        return aeron;
    }

    public String aeronDirectoryName()
    {
        return driver.aeronDirectoryName();
    }

    public static String channel(final int port)
    {
        return channel(MULTICAST_ADDRESS, port);
    }

    /** A multicast channel over loopback on a group of the test's own. */
    public static String channel(final String multicastAddress, final int port)
    {
        return "aeron:udp?endpoint=" + multicastAddress + ":" + port + "|interface=127.0.0.1|mtu=8192";
    }

    public ExclusivePublication publication(final String channel, final int streamId)
    {
        return aeron.addExclusivePublication(channel, streamId);
    }

    /**
     * A subscriber's settings on this media's client: the fanout's channel and stream id base, the partitions
     * (none given: set them, or a partition count, on the context).
     */
    public FeedSubscriber.Context context(final String channel, final int streamIdBase, final int... partitions)
    {
        return new FeedSubscriber.Context().aeron(aeron).channel(channel).streamIdBase(streamIdBase)
            .partitions(0 == partitions.length ? null : partitions);
    }

    /** A publisher of a partition's incremental stream, as the fanout's. */
    public StreamPublisher incremental(final String channel, final int streamIdBase, final int partition)
    {
        return new StreamPublisher(publication(channel, Partitioning.streamId(streamIdBase, partition)), partition);
    }

    /** A publisher of a partition's snapshot stream, on the default snapshot stream ids. */
    public StreamPublisher snapshots(final String channel, final int streamIdBase, final int partition)
    {
        return new StreamPublisher(publication(
            channel, Partitioning.snapshotStreamId(Partitioning.defaultSnapshotStreamIdBase(streamIdBase), partition)),
            partition);
    }

    /** Offer until accepted (or fail the test after 5 s). */
    public static void offer(final ExclusivePublication publication, final DirectBuffer buffer, final int length)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (publication.offer(buffer, 0, length) < 0)
        {
            if (System.nanoTime() > deadline)
            {
                fail("offer not accepted: " + publication);
            }
            Thread.yield();
        }
    }

    /** Poll the subscriber until the condition holds (or fail after 5 s). */
    public static void pollUntil(final FeedSubscriber subscriber, final BooleanSupplier condition)
    {
        pollUntil(TimeUnit.SECONDS.toNanos(5), condition, subscriber);
    }

    /** Poll the subscribers until the condition holds (or fail after the timeout, with the last one's counters). */
    public static void pollUntil(
        final long timeoutNs, final BooleanSupplier condition, final FeedSubscriber... subscribers)
    {
        final long deadline = System.nanoTime() + timeoutNs;
        while (!condition.getAsBoolean())
        {
            if (0 == poll(subscribers))
            {
                if (System.nanoTime() > deadline)
                {
                    fail("condition not reached in time; counters: " + subscribers[subscribers.length - 1].counters());
                }
                Thread.onSpinWait();
                sleepQuietly();
            }
        }
    }

    /** Poll the subscriber for a while, e.g. to let anything that should not arrive arrive. */
    public static void pollFor(final FeedSubscriber subscriber, final long millis)
    {
        pollFor(millis, subscriber);
    }

    /** Poll the subscribers for a while, e.g. to let anything that should not arrive arrive. */
    public static void pollFor(final long millis, final FeedSubscriber... subscribers)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < deadline)
        {
            if (0 == poll(subscribers))
            {
                sleepQuietly();
            }
        }
    }

    private static int poll(final FeedSubscriber... subscribers)
    {
        int work = 0;
        for (final FeedSubscriber subscriber : subscribers)
        {
            work += subscriber.poll(10);
        }
        return work;
    }

    /** Wait until every publication and the subscriber are connected. */
    public static void awaitConnected(final FeedSubscriber subscriber, final ExclusivePublication... publications)
    {
        pollUntil(subscriber, () ->
        {
            for (final ExclusivePublication publication : publications)
            {
                if (!publication.isConnected())
                {
                    return false;
                }
            }
            return subscriber.isConnected();
        });
    }

    private static void sleepQuietly()
    {
        try
        {
            Thread.sleep(1);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    public void close()
    {
        CloseHelper.closeAll(aeron, driver);
    }
}
