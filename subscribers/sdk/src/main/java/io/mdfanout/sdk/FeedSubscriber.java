package io.mdfanout.sdk;

import io.aeron.Aeron;
import io.aeron.FragmentAssembler;
import io.aeron.Subscription;
import io.aeron.UnavailableImageHandler;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.wire.Partitioning;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.NanoClock;

import java.util.Arrays;

/**
 * Subscribes to the partition streams of a fanout and delivers their messages to a
 * {@link MarketDataListener}: one Aeron {@link Subscription} per partition stream, validation of
 * every SBE header, stream-sequence tracking (join, gaps, duplicates, overlaps) and typed
 * dispatch with reused flyweights, recovery from the partitions' snapshot streams after a late
 * join, a gap or a fanout restart (see {@link FeedSubscriberOptions} and
 * {@link MarketDataListener#onStale}), and liveness (silent streams are reported and re-subscribed).
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
    private final Aeron aeron;
    private final String channel;
    private final int streamIdBase;
    private final NanoClock nanoClock;
    private final long silentTimeoutNs;
    private final boolean resubscribeOnSilence;
    private final Subscription[] subscriptions;
    private final long[] pendingRegistrationIds;
    private final FragmentHandler[] fragmentHandlers;
    private final FragmentHandler[] snapshotHandlers;
    private final UnavailableImageHandler[] unavailableImageHandlers;
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
        this(aeron, channel, streamIdBase, partitions, listener, counters, errorHandler, new FeedSubscriberOptions());
    }

    /**
     * Subscribe to a chosen set of partitions with chosen recovery and liveness options.
     *
     * @param aeron the application's Aeron client.
     * @param channel the Aeron channel the fanout publishes on.
     * @param streamIdBase stream id of partition 0.
     * @param partitions the partitions to subscribe to, distinct and non-negative.
     * @param listener receives the messages.
     * @param counters where to count; null to create them in a private counters manager.
     * @param errorHandler receives exceptions thrown by the listener (which are counted and
     *                     otherwise ignored so that the poll loop carries on).
     * @param options recovery and liveness settings.
     * @throws IllegalArgumentException with a one-line message when an argument or option is wrong.
     */
    public FeedSubscriber(
        final Aeron aeron,
        final String channel,
        final int streamIdBase,
        final int[] partitions,
        final MarketDataListener listener,
        final SubscriberCounters counters,
        final ErrorHandler errorHandler,
        final FeedSubscriberOptions options)
    {
        validate(aeron, channel, partitions, listener, errorHandler);
        if (null == options)
        {
            throw new IllegalArgumentException("options are required");
        }
        options.validate(channel, streamIdBase, partitions);
        this.partitions = partitions.clone();
        this.aeron = aeron;
        this.channel = channel;
        this.streamIdBase = streamIdBase;
        this.nanoClock = options.nanoClock();
        this.silentTimeoutNs = options.silentTimeoutNs();
        this.resubscribeOnSilence = options.resubscribeOnSilence();
        this.ownsCounters = null == counters;
        this.counters = null != counters ?
            counters : new SubscriberCounters(LocalCounters.create(SubscriberCounters.COUNTER_COUNT), channel);
        this.processor = new PacketProcessor(
            partitions, listener, this.counters, errorHandler, aeron, channel, streamIdBase, options);
        this.subscriptions = new Subscription[partitions.length];
        this.pendingRegistrationIds = new long[partitions.length];
        Arrays.fill(pendingRegistrationIds, Aeron.NULL_VALUE);
        this.fragmentHandlers = new FragmentHandler[partitions.length];
        this.snapshotHandlers = new FragmentHandler[partitions.length];
        this.unavailableImageHandlers = new UnavailableImageHandler[partitions.length];
        final long now = nanoClock.nanoTime();
        processor.now(now);
        try
        {
            for (int slot = 0; slot < partitions.length; slot++)
            {
                final PartitionStream stream = processor.stream(slot);
                stream.lastActivityNs = now;
                fragmentHandlers[slot] = new FragmentAssembler(new PartitionFragmentHandler(processor, slot, false));
                snapshotHandlers[slot] = new FragmentAssembler(new PartitionFragmentHandler(processor, slot, true));
                unavailableImageHandlers[slot] = (image) -> stream.onImageLost(image.sessionId());
                subscriptions[slot] = aeron.addSubscription(
                    channel, Partitioning.streamId(streamIdBase, partitions[slot]), null,
                    unavailableImageHandlers[slot]);
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
        final long now = nanoClock.nanoTime();
        final PacketProcessor processor = this.processor;
        processor.now(now);
        final Subscription[] subscriptions = this.subscriptions;
        for (int slot = 0; slot < subscriptions.length; slot++)
        {
            final Subscription subscription = subscriptions[slot];
            if (null != subscription)
            {
                workCount += subscription.poll(fragmentHandlers[slot], fragmentLimit);
            }
            else
            {
                workCount += pickUpSubscription(slot);
            }
            checkSilence(slot, now);
            workCount += processor.doRecoveryWork(slot, snapshotHandlers[slot], fragmentLimit);
        }
        return workCount;
    }

    /**
     * Whether a partition is stale: its books may be wrong and it is recovering, or its source is down
     * ({@link StaleReason#SOURCE_DOWN}) and nothing new will come until it is live again.
     *
     * @param partition a subscribed partition.
     * @return true while stale.
     */
    public boolean isStale(final int partition)
    {
        final PartitionStream stream = processor.stream(slotOf(partition));
        return stream.stale || stream.sourceDown;
    }

    /**
     * Whether a partition is recovering: messages were or may have been lost on its stream, its incrementals
     * are held back and it waits for a snapshot. Unlike {@link #isStale(int)}, false for a partition that is
     * stale only because its source is down: nothing of its stream is missing.
     *
     * @param partition a subscribed partition.
     * @return true while recovering.
     */
    public boolean isRecovering(final int partition)
    {
        return processor.stream(slotOf(partition)).stale;
    }

    /**
     * The status of the partition's source (the feed handler behind the fanout) as the last heartbeat
     * announced it.
     *
     * @param partition a subscribed partition.
     * @return the status; {@link SourceStatus#NULL_VAL} before any heartbeat, from a fanout that does not
     * announce it (schema version 1), or one this build does not know (a newer fanout's).
     */
    public SourceStatus sourceStatus(final int partition)
    {
        return processor.stream(slotOf(partition)).sourceStatus;
    }

    /**
     * Whether a partition's stream is currently reported silent.
     *
     * @param partition a subscribed partition.
     * @return true while silent.
     */
    public boolean isSilent(final int partition)
    {
        return processor.stream(slotOf(partition)).silent;
    }

    private void checkSilence(final int slot, final long now)
    {
        final PartitionStream stream = processor.stream(slot);
        if (!stream.joined || stream.silent || now - stream.lastActivityNs < silentTimeoutNs)
        {
            return;
        }
        stream.silent = true;
        counters.onSilent();
        processor.onSilent(slot, now - stream.lastActivityNs);
        processor.markStale(slot, StaleReason.SILENT);
        if (resubscribeOnSilence && null != subscriptions[slot])
        {
            // Drop a possibly stuck image and re-join the stream at its live position.
            final Subscription old = subscriptions[slot];
            subscriptions[slot] = null;
            aeron.asyncRemoveSubscription(old.registrationId());
            pendingRegistrationIds[slot] = Aeron.NULL_VALUE;
            pickUpSubscription(slot);
        }
    }

    private int pickUpSubscription(final int slot)
    {
        if (Aeron.NULL_VALUE == pendingRegistrationIds[slot])
        {
            pendingRegistrationIds[slot] = aeron.asyncAddSubscription(
                channel, Partitioning.streamId(streamIdBase, partitions[slot]), null, unavailableImageHandlers[slot]);
            return 1;
        }
        try
        {
            final Subscription subscription = aeron.getSubscription(pendingRegistrationIds[slot]);
            if (null != subscription)
            {
                subscriptions[slot] = subscription;
                pendingRegistrationIds[slot] = Aeron.NULL_VALUE;
                return 1;
            }
        }
        catch (final RuntimeException ex)
        {
            pendingRegistrationIds[slot] = Aeron.NULL_VALUE;
            counters.onSubscriptionError();
        }
        return 0;
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
            if (null == subscription || !subscription.isConnected())
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
        return processor.expectedSequence(slotOf(partition));
    }

    private int slotOf(final int partition)
    {
        for (int slot = 0; slot < partitions.length; slot++)
        {
            if (partitions[slot] == partition)
            {
                return slot;
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

    /** Close the subscriptions (incremental and snapshot), and the counters when this instance created them. */
    public void close()
    {
        processor.close();
        for (final long registrationId : pendingRegistrationIds)
        {
            if (Aeron.NULL_VALUE != registrationId && !aeron.isClosed())
            {
                aeron.asyncRemoveSubscription(registrationId);
            }
        }
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

    /** Binds a partition slot to the Aeron fragments of its incremental or snapshot subscription; made once. */
    private static final class PartitionFragmentHandler implements FragmentHandler
    {
        private final PacketProcessor processor;
        private final int slot;
        private final boolean snapshot;

        PartitionFragmentHandler(final PacketProcessor processor, final int slot, final boolean snapshot)
        {
            this.processor = processor;
            this.slot = slot;
            this.snapshot = snapshot;
        }

        public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
        {
            if (snapshot)
            {
                processor.onSnapshotMessage(slot, header.sessionId(), buffer, offset, length);
            }
            else
            {
                processor.onMessage(slot, header.sessionId(), buffer, offset, length);
            }
        }
    }
}
