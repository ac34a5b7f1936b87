package io.mdfanout.sdk;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.mdfanout.wire.Partitioning;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;

import java.io.File;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Real embedded media driver (shared threading, backing off, fresh temporary directory deleted
 * afterwards) and an Aeron client, for tests on UDP multicast over loopback.
 */
public final class TestMedia implements AutoCloseable
{
    public static final String MULTICAST_ADDRESS = "224.0.1.43";

    private final MediaDriver driver;
    private final Aeron aeron;

    public TestMedia()
    {
        final String dir = new File(System.getProperty("java.io.tmpdir"),
            "mdfanout-sdk-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime()).getAbsolutePath();
        driver = MediaDriver.launch(new MediaDriver.Context()
            .aeronDirectoryName(dir)
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new BackoffIdleStrategy(10, 20, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(1)))
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
        return "aeron:udp?endpoint=" + MULTICAST_ADDRESS + ":" + port + "|interface=127.0.0.1|mtu=8192";
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
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean())
        {
            if (0 == subscriber.poll(10))
            {
                if (System.nanoTime() > deadline)
                {
                    fail("condition not reached in time; counters: " + subscriber.counters());
                }
                Thread.onSpinWait();
                sleepQuietly();
            }
        }
    }

    /** Poll the subscriber for a while, e.g. to let anything that should not arrive arrive. */
    public static void pollFor(final FeedSubscriber subscriber, final long millis)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < deadline)
        {
            if (0 == subscriber.poll(10))
            {
                sleepQuietly();
            }
        }
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
