package io.mdfanout.sdk;

import io.aeron.Aeron;
import io.aeron.FragmentAssembler;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.mdfanout.wire.Partitioning;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;

import java.util.Arrays;

/**
 * Subscribes to the partition streams of a fanout and delivers their messages to a
 * {@link MarketDataListener}: one Aeron {@link Subscription} per partition stream, validation of
 * every SBE header, stream-sequence tracking (join, gaps, duplicates, overlaps) and typed
 * dispatch with reused flyweights.
 * <p>
 * It has no thread of its own: {@link #poll(int)} does all the work on the caller's thread, and
 * the instance must be used by that one thread only. The application owns the {@link Aeron}
 * client; {@link #close()} closes the subscriptions (and counters this instance created), not
 * the client. Steady-state polling allocates nothing.
 */
public final class FeedSubscriber implements AutoCloseable
{
    /** Fragments one {@link #poll(int)} takes per partition stream when the caller has no better idea. */
    public static final int DEFAULT_FRAGMENT_LIMIT = 64;

    private final int[] partitions;
    private final Subscription[] subscriptions;
    private final FragmentHandler[] fragmentHandlers;
    private final PacketProcessor processor;
    private final SubscriberCounters counters;
    private final boolean ownsCounters;

    /**
     * Subscribe to every partition of a fanout, with counters in a private counters manager.
     *
     * @param aeron the application's Aeron client.
     * @param channel the Aeron channel the fanout publishes on.
     * @param streamIdBase stream id of partition 0.
     * @param partitionCount how many partitions the fanout publishes.
     * @param listener receives the messages.
     */
    public FeedSubscriber(
        final Aeron aeron,
        final String channel,
        final int streamIdBase,
        final int partitionCount,
        final MarketDataListener listener)
    {
        this(aeron, channel, streamIdBase, allPartitions(partitionCount), listener, null, Throwable::printStackTrace);
    }

    /**
     * Subscribe to a chosen set of partitions.
     *
     * @param aeron the application's Aeron client.
     * @param channel the Aeron channel the fanout publishes on.
     * @param streamIdBase stream id of partition 0.
     * @param partitions the partitions to subscribe to, distinct and non-negative.
     * @param listener receives the messages.
     * @param counters where to count; null to create them in a private counters manager.
     * @param errorHandler receives exceptions thrown by the listener (which are counted and
     *                     otherwise ignored so that the poll loop carries on).
     */
    public FeedSubscriber(
        final Aeron aeron,
        final String channel,
        final int streamIdBase,
        final int[] partitions,
        final MarketDataListener listener,
        final SubscriberCounters counters,
        final ErrorHandler errorHandler)
    {
        validate(aeron, channel, partitions, listener, errorHandler);
        this.partitions = partitions.clone();
        this.ownsCounters = null == counters;
        this.counters = null != counters ?
            counters : new SubscriberCounters(LocalCounters.create(SubscriberCounters.COUNTER_COUNT), channel);
        this.processor = new PacketProcessor(partitions, listener, this.counters, errorHandler);
        this.subscriptions = new Subscription[partitions.length];
        this.fragmentHandlers = new FragmentHandler[partitions.length];
        try
        {
            for (int slot = 0; slot < partitions.length; slot++)
            {
                fragmentHandlers[slot] = new FragmentAssembler(new PartitionFragmentHandler(processor, slot));
                subscriptions[slot] = aeron.addSubscription(channel, Partitioning.streamId(streamIdBase, partitions[slot]));
            }
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(subscriptions);
            throw ex;
        }
    }

    /**
     * Every partition of a fanout with {@code partitionCount} partitions.
     *
     * @param partitionCount how many partitions, positive.
     * @return {@code 0 .. partitionCount - 1}.
     */
    public static int[] allPartitions(final int partitionCount)
    {
        if (partitionCount <= 0)
        {
            throw new IllegalArgumentException("partition count must be positive: " + partitionCount);
        }
        final int[] partitions = new int[partitionCount];
        Arrays.setAll(partitions, i -> i);
        return partitions;
    }

    /**
     * Poll every partition stream once, delivering what has arrived to the listener.
     * Never throws because of received data or the listener.
     *
     * @param fragmentLimit most Aeron messages taken from each partition stream.
     * @return Aeron messages processed, for an idle strategy.
     */
    public int poll(final int fragmentLimit)
    {
        int workCount = 0;
        final Subscription[] subscriptions = this.subscriptions;
        for (int slot = 0; slot < subscriptions.length; slot++)
        {
            workCount += subscriptions[slot].poll(fragmentHandlers[slot], fragmentLimit);
        }
        return workCount;
    }

    /**
     * True once every partition subscription has at least one connected publisher image.
     *
     * @return whether all partition streams are connected.
     */
    public boolean isConnected()
    {
        for (final Subscription subscription : subscriptions)
        {
            if (!subscription.isConnected())
            {
                return false;
            }
        }
        return true;
    }

    /**
     * The partitions subscribed to, in slot order.
     *
     * @return a copy of the partitions.
     */
    public int[] partitions()
    {
        return partitions.clone();
    }

    /**
     * The next stream sequence expected on a partition.
     *
     * @param partition a subscribed partition.
     * @return the expected sequence, or -1 before the stream was joined.
     */
    public long expectedSequence(final int partition)
    {
        for (int slot = 0; slot < partitions.length; slot++)
        {
            if (partitions[slot] == partition)
            {
                return processor.expectedSequence(slot);
            }
        }
        throw new IllegalArgumentException("not subscribed to partition " + partition);
    }

    /**
     * The counters of this subscriber.
     *
     * @return the counters.
     */
    public SubscriberCounters counters()
    {
        return counters;
    }

    /** Close the subscriptions, and the counters when this instance created them. */
    public void close()
    {
        CloseHelper.closeAll(subscriptions);
        if (ownsCounters)
        {
            counters.close();
        }
    }

    private static void validate(
        final Aeron aeron,
        final String channel,
        final int[] partitions,
        final MarketDataListener listener,
        final ErrorHandler errorHandler)
    {
        if (null == aeron || null == channel || null == listener || null == errorHandler || null == partitions)
        {
            throw new IllegalArgumentException("aeron, channel, partitions, listener and errorHandler are required");
        }
        if (0 == partitions.length)
        {
            throw new IllegalArgumentException("at least one partition is required");
        }
        for (int i = 0; i < partitions.length; i++)
        {
            if (partitions[i] < 0)
            {
                throw new IllegalArgumentException("negative partition: " + partitions[i]);
            }
            for (int j = 0; j < i; j++)
            {
                if (partitions[i] == partitions[j])
                {
                    throw new IllegalArgumentException("partition listed twice: " + partitions[i]);
                }
            }
        }
    }

    /** Binds a partition slot to the Aeron fragments of its subscription; one per slot, made once. */
    private static final class PartitionFragmentHandler implements FragmentHandler
    {
        private final PacketProcessor processor;
        private final int slot;

        PartitionFragmentHandler(final PacketProcessor processor, final int slot)
        {
            this.processor = processor;
            this.slot = slot;
        }

        public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
        {
            processor.onMessage(slot, header.sessionId(), buffer, offset, length);
        }
    }
}
