package io.mdfanout.sdk;

import io.aeron.Aeron;
import io.aeron.FragmentAssembler;
import io.aeron.Subscription;
import io.aeron.UnavailableImageHandler;
import io.aeron.logbuffer.FragmentHandler;
import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.wire.ArchiveSessions;
import io.mdfanout.wire.Defaults;
import io.mdfanout.wire.MarketSession;
import io.mdfanout.wire.FeedStream;
import io.mdfanout.wire.Partitioning;
import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Subscribes to the partition streams of a fanout and delivers their messages to a
 * {@link MarketDataListener}: one Aeron {@link Subscription} per partition stream, validation of
 * every SBE header ({@link PacketValidator}), stream-sequence tracking (join, gaps, duplicates, overlaps:
 * {@link StreamSequencer}) and typed dispatch with reused flyweights ({@link MessageDispatcher}), recovery
 * from the partitions' snapshot streams after a late join, a gap or a fanout restart ({@link PartitionRecovery},
 * {@link MarketDataListener#onStale}), and liveness (silent streams are reported and re-subscribed).
 * Configured by a {@link Context}, whose settings all have defaults but the Aeron client and the listener.
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
    /** The most sides a feed has: a pair, A and B ({@link Context#pairChannel}). */
    public static final int MAX_SIDES = 2;

    private final int[] partitions;
    private final Aeron aeron;
    /** 1, or 2 for a pair; the incremental subscriptions are indexed slot * sideCount + side. */
    private final int sideCount;
    private final String[] channels;
    private final int[] streamIdBases;
    private final PartitionStream[] streams;
    /** Null for a pair. */
    private final StreamSequencer sequencer;
    /** Null for a single fanout. */
    private final PairSequencer pairSequencer;
    private final NanoClock nanoClock;
    private final long silentTimeoutNs;
    private final boolean resubscribeOnSilence;
    private final Subscription[] subscriptions;
    private final long[] pendingRegistrationIds;
    private final FragmentHandler[] fragmentHandlers;
    private final UnavailableImageHandler[] unavailableImageHandlers;
    private final PartitionRecovery[] recoveries;
    private final SubscriberCounters counters;
    private final boolean ownsCounters;
    private final ArchiveReplayClient archiveClient;
    private final PartitionReplay[] replays;
    /** A pair's replays from the archive, one per partition slot; null without a replay or for a single fanout. */
    private final PairReplay[] pairReplays;

    /**
     * Subscribe to the partitions of a fanout as the context says.
     *
     * @param ctx the settings; {@link Context#conclude() concluded} here, and not to be changed after.
     * @throws IllegalArgumentException with a one-line message when a setting is wrong.
     */
    public FeedSubscriber(final Context ctx)
    {
        if (null == ctx)
        {
            throw new IllegalArgumentException("context is required");
        }
        ctx.conclude();
        final int[] partitions = ctx.partitions();
        this.partitions = partitions.clone();
        this.aeron = ctx.aeron();
        this.sideCount = null == ctx.pairChannel() ? 1 : 2;
        this.channels = 1 == sideCount ? new String[] {ctx.channel()} : new String[] {ctx.channel(), ctx.pairChannel()};
        // A derived stream (top of book, depth, trades, bars) is the MBO stream's layout at its own stream ids.
        final int streamOffset = ctx.stream().streamIdOffset();
        this.streamIdBases = 1 == sideCount ?
            new int[] {ctx.streamIdBase() + streamOffset} :
            new int[] {ctx.streamIdBase() + streamOffset, ctx.pairStreamIdBase() + streamOffset};
        final String channel = ctx.channel();
        final int streamIdBase = ctx.streamIdBase() + streamOffset;
        final int snapshotStreamIdBase = ctx.snapshotStreamIdBase() + streamOffset;
        this.nanoClock = ctx.nanoClock();
        this.silentTimeoutNs = ctx.silentTimeoutNs();
        this.resubscribeOnSilence = ctx.resubscribeOnSilence();
        this.ownsCounters = null == ctx.counters();
        this.counters = null != ctx.counters() ?
            ctx.counters() : new SubscriberCounters(LocalCounters.create(SubscriberCounters.COUNTER_COUNT), channel);

        final PacketValidator validator = new PacketValidator();
        final PartitionStream[] streams = new PartitionStream[partitions.length];
        this.streams = streams;
        final MessageDispatcher dispatcher =
            new MessageDispatcher(ctx.listener(), counters, ctx.errorHandler(), streams);
        dispatcher.instruments(ctx.instruments());
        // Replay only there is no live stream, so no snapshot to recover from: a hole is reported as a gap.
        final boolean recovery = ctx.recoveryEnabled() && (null == ctx.replayFrom() || ctx.replayToLive());
        this.recoveries = recovery ? new PartitionRecovery[partitions.length] : null;
        for (int slot = 0; slot < partitions.length; slot++)
        {
            streams[slot] = new PartitionStream(partitions[slot]);
            if (null != recoveries)
            {
                recoveries[slot] = 1 == sideCount ?
                    new PartitionRecovery(
                        streams[slot], validator, dispatcher, counters, aeron, ctx.snapshotChannel(),
                        Partitioning.snapshotStreamId(snapshotStreamIdBase, partitions[slot]),
                        ctx.recoveryBufferBytes()) :
                    new PartitionRecovery(
                        streams[slot], validator, dispatcher, counters, aeron,
                        new String[] {ctx.snapshotChannel(), ctx.pairSnapshotChannel()},
                        new int[] {Partitioning.snapshotStreamId(snapshotStreamIdBase, partitions[slot]),
                            Partitioning.snapshotStreamId(ctx.pairSnapshotStreamIdBase() + streamOffset, partitions[slot])},
                        ctx.recoveryBufferBytes(), true);
                streams[slot].recovery = recoveries[slot];
            }
        }
        this.sequencer = 1 == sideCount ?
            new StreamSequencer(streams, validator, dispatcher, counters, ctx.deliveryLatencyRecorder()) : null;
        this.pairSequencer = 1 == sideCount ? null : new PairSequencer(
            streams, sideCount, ctx.announcedPartitionCount(), ctx.arbitrationWaitNs(),
            Context.ARBITRATION_HOLD_BYTES, validator, dispatcher, counters, ctx.errorHandler(),
            ctx.deliveryLatencyRecorder());
        this.archiveClient = null == ctx.replayFrom() ? null : new ArchiveReplayClient(aeron,
            ctx.archiveControlChannel(), ctx.archiveControlStreamId(), ctx.archiveResponseChannel(), ctx.replaySession());
        this.replays = null == archiveClient || 2 == sideCount ? null : new PartitionReplay[partitions.length];
        this.pairReplays = null == archiveClient || 1 == sideCount ? null : new PairReplay[partitions.length];
        if (null != pairReplays)
        {
            for (int slot = 0; slot < partitions.length; slot++)
            {
                final PartitionReplay[] sideReplays = new PartitionReplay[sideCount];
                for (int side = 0; side < sideCount; side++)
                {
                    // One replay stream per side and partition: side B's follow side A's.
                    sideReplays[side] = new PartitionReplay(slot, side,
                        Partitioning.streamId(streamIdBases[side], partitions[slot]),
                        ctx.replayStreamId() + side * partitions.length + slot, streams[slot], pairSequencer,
                        dispatcher, counters, archiveClient, aeron, ctx);
                }
                pairReplays[slot] = new PairReplay(
                    slot, streams[slot], pairSequencer, dispatcher, counters, sideReplays, ctx.replayToLive());
            }
        }
        if (null != replays)
        {
            for (int slot = 0; slot < partitions.length; slot++)
            {
                replays[slot] = new PartitionReplay(slot, Partitioning.streamId(streamIdBase, partitions[slot]),
                    streams[slot], sequencer, dispatcher, counters, archiveClient, aeron, ctx);
            }
        }

        final int subscriptionCount = partitions.length * sideCount;
        this.subscriptions = new Subscription[subscriptionCount];
        this.pendingRegistrationIds = new long[subscriptionCount];
        Arrays.fill(pendingRegistrationIds, Aeron.NULL_VALUE);
        this.fragmentHandlers = new FragmentHandler[subscriptionCount];
        this.unavailableImageHandlers = new UnavailableImageHandler[subscriptionCount];
        final long now = nanoClock.nanoTime();
        if (null != pairSequencer)
        {
            pairSequencer.now(now);
            try
            {
                for (int slot = 0; slot < partitions.length; slot++)
                {
                    streams[slot].lastActivityNs = now;
                    for (int side = 0; side < sideCount; side++)
                    {
                        final int boundSlot = slot;
                        final int boundSide = side;
                        final int index = slot * sideCount + side;
                        final PairReplay replay = null == pairReplays ? null : pairReplays[slot];
                        fragmentHandlers[index] = new FragmentAssembler((buffer, offset, length, header) ->
                        {
                            if (null != replay && replay.capturesLive(boundSide))
                            {
                                replay.onLive(boundSide, buffer, offset, length);
                            }
                            else
                            {
                                pairSequencer.onMessage(boundSlot, boundSide, buffer, offset, length);
                            }
                        });
                        // One side's image going away is that side's business: the other serves the partition.
                        unavailableImageHandlers[index] = (image) -> {};
                        if (null == replay) // a replay subscribes each side's live stream when it gets near it
                        {
                            subscriptions[index] = aeron.addSubscription(channels[side],
                                Partitioning.streamId(streamIdBases[side], partitions[slot]), null,
                                unavailableImageHandlers[index]);
                        }
                    }
                }
            }
            catch (final RuntimeException ex)
            {
                CloseHelper.quietCloseAll(subscriptions);
                CloseHelper.quietClose(archiveClient);
                throw ex;
            }
            return;
        }
        sequencer.now(now);
        try
        {
            for (int slot = 0; slot < partitions.length; slot++)
            {
                final PartitionStream stream = streams[slot];
                final int boundSlot = slot;
                stream.lastActivityNs = now;
                fragmentHandlers[slot] = new FragmentAssembler(
                    (buffer, offset, length, header) ->
                    {
                        final PartitionReplay replay = stream.replay;
                        if (null != replay && replay.capturesLive())
                        {
                            replay.onLive(header.sessionId(), buffer, offset, length);
                        }
                        else
                        {
                            sequencer.onMessage(boundSlot, header.sessionId(), buffer, offset, length);
                        }
                    });
                unavailableImageHandlers[slot] = (image) -> stream.onImageLost(image.sessionId());
                if (null == replays)
                {
                    subscriptions[slot] = aeron.addSubscription(
                        channel, Partitioning.streamId(streamIdBase, partitions[slot]), null,
                        unavailableImageHandlers[slot]);
                }
            }
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(subscriptions);
            CloseHelper.quietClose(archiveClient);
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
        if (null != pairSequencer)
        {
            return pollPair(fragmentLimit);
        }
        int workCount = 0;
        final long now = nanoClock.nanoTime();
        final StreamSequencer sequencer = this.sequencer;
        sequencer.now(now);
        final Subscription[] subscriptions = this.subscriptions;
        for (int slot = 0; slot < subscriptions.length; slot++)
        {
            final PartitionReplay replay = null == replays ? null : sequencer.stream(slot).replay;
            if (null != replay)
            {
                workCount += replay.doWork(now, fragmentLimit);
                if (replay.blocksLive())
                {
                    if (null != recoveries)
                    {
                        workCount += recoveries[slot].doWork(now, fragmentLimit);
                    }
                    continue;
                }
            }
            final Subscription subscription = subscriptions[slot];
            if (null != subscription)
            {
                workCount += subscription.poll(fragmentHandlers[slot], fragmentLimit);
            }
            else
            {
                workCount += pickUpSubscription(slot);
            }
            if (null == replay)
            {
                checkSilence(slot, now); // a merging replay has its own timeout: the live stream is not followed yet
            }
            if (sequencer.stream(slot).takeLostImageOfFollowedSession())
            {
                sequencer.markStale(slot, StaleReason.LOST_IMAGE);
            }
            if (null != recoveries)
            {
                workCount += recoveries[slot].doWork(now, fragmentLimit);
            }
        }
        publishStaleGauges();
        return workCount;
    }

    private int pollPair(final int fragmentLimit)
    {
        int workCount = 0;
        final long now = nanoClock.nanoTime();
        final PairSequencer pairSequencer = this.pairSequencer;
        pairSequencer.now(now);
        for (int slot = 0; slot < partitions.length; slot++)
        {
            final PairReplay replay = null == pairReplays ? null : pairReplays[slot];
            if (null != replay)
            {
                workCount += replay.doWork(now, fragmentLimit);
            }
            for (int side = 0; side < sideCount; side++)
            {
                if (null != replay && replay.blocksLive(side))
                {
                    continue;
                }
                final int index = slot * sideCount + side;
                final Subscription subscription = subscriptions[index];
                if (null != subscription)
                {
                    workCount += subscription.poll(fragmentHandlers[index], fragmentLimit);
                }
                else
                {
                    workCount += pickUpSubscription(index);
                }
            }
            final int wentSilent = pairSequencer.doWork(slot, silentTimeoutNs);
            if (0 != wentSilent && resubscribeOnSilence)
            {
                for (int side = 0; side < sideCount; side++)
                {
                    if (0 != (wentSilent & (1 << side)))
                    {
                        resubscribe(slot * sideCount + side);
                    }
                }
            }
            if (null != recoveries)
            {
                workCount += recoveries[slot].doWork(now, fragmentLimit);
            }
        }
        pairSequencer.publishSideGauges();
        publishStaleGauges();
        return workCount;
    }

    /** The gauges of partitions stale and recovering now, as {@link #isStale} and {@link #isRecovering} say. */
    private void publishStaleGauges()
    {
        int stale = 0;
        int recovering = 0;
        int exchangeGap = 0;
        for (int slot = 0; slot < partitions.length; slot++)
        {
            final PartitionStream stream = streams[slot];
            if (stream.exchangeGap)
            {
                exchangeGap++;
            }
            if (stream.isRecovering())
            {
                recovering++;
                stale++;
            }
            else if (stream.sourceDown)
            {
                stale++;
            }
        }
        counters.stalePartitions(stale, recovering, exchangeGap);
    }

    /**
     * Whether a partition is stale: its books may be wrong and it is recovering, or its source is down
     * ({@link StaleReason#SOURCE_DOWN}) and nothing new will come until it is live again, or exchange messages of
     * its session were lost for good ({@link StaleReason#EXCHANGE_GAP}).
     *
     * @param partition a subscribed partition.
     * @return true while stale.
     */
    public boolean isStale(final int partition)
    {
        final PartitionStream stream = streams[slotOf(partition)];
        return stream.isRecovering() || stream.sourceDown || stream.exchangeGap;
    }

    /**
     * Whether exchange messages of the partition's current session were lost for good upstream of the fanout
     * ({@link StaleReason#EXCHANGE_GAP}): its books, and every snapshot of them, lack those messages until the
     * exchange starts a new session.
     *
     * @param partition a subscribed partition.
     * @return true once a GapNotice of lost exchange messages arrived in the session.
     */
    public boolean hasExchangeGap(final int partition)
    {
        return streams[slotOf(partition)].exchangeGap;
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
        return streams[slotOf(partition)].isRecovering();
    }

    /**
     * Where the recovery of a partition stands.
     *
     * @param partition a subscribed partition.
     * @return the state, or null when recovery is off.
     */
    PartitionRecovery.State recoveryState(final int partition)
    {
        return null == recoveries ? null : recoveries[slotOf(partition)].state();
    }

    /**
     * Whether a partition still replays from the archive (it has not merged into the live stream yet).
     *
     * @param partition a subscribed partition.
     * @return true while replaying; false for a live partition, and after a replay-only replay ended.
     */
    public boolean isReplaying(final int partition)
    {
        if (null != pairReplays)
        {
            return pairReplays[slotOf(partition)].isReplaying();
        }
        final PartitionReplay replay = null == replays ? null : replays[slotOf(partition)];
        return null != replay && PartitionReplay.State.LIVE != replay.state() &&
            PartitionReplay.State.ENDED != replay.state();
    }

    /**
     * Whether every partition's replay-only replay ({@link Context#replayToLive} false) delivered all the archive
     * holds.
     *
     * @return true once every partition's replay ended; false without a replay-only replay.
     */
    public boolean isReplayEnded()
    {
        if (null != pairReplays)
        {
            for (final PairReplay replay : pairReplays)
            {
                if (!replay.isEnded())
                {
                    return false;
                }
            }
            return true;
        }
        if (null == replays)
        {
            return false;
        }
        for (final PartitionReplay replay : replays)
        {
            if (PartitionReplay.State.ENDED != replay.state())
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a replay-only replay ({@link Context#replayToLive} false) of some partition ended without what it was
     * asked for: the archive could not be reached, or holds no recording of the session (the reason went to the
     * error handler).
     *
     * @return true when some partition's replay failed.
     */
    public boolean isReplayFailed()
    {
        if (null != pairReplays)
        {
            for (final PairReplay replay : pairReplays)
            {
                if (replay.isEnded() && replay.failed())
                {
                    return true;
                }
            }
        }
        if (null != replays)
        {
            for (final PartitionReplay replay : replays)
            {
                if (replay.failed())
                {
                    return true;
                }
            }
        }
        return false;
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
        return streams[slotOf(partition)].sourceStatus;
    }

    /**
     * The partition's market session: the state its exchange's last System Event entered, live or from the last
     * snapshot it recovered from (which carries the market's last System Event). The fanout exports the same state
     * as {@code mdfanout_market_session_state}.
     *
     * @param partition a subscribed partition.
     * @return the session; {@link MarketSession#UNKNOWN} before any System Event reached the partition.
     */
    public MarketSession marketSession(final int partition)
    {
        return streams[slotOf(partition)].marketSession;
    }

    /**
     * Whether a partition's stream is currently reported silent.
     *
     * @param partition a subscribed partition.
     * @return true while silent.
     */
    public boolean isSilent(final int partition)
    {
        return streams[slotOf(partition)].silent;
    }

    private void checkSilence(final int slot, final long now)
    {
        final PartitionStream stream = streams[slot];
        if (!stream.joined || stream.silent || now - stream.lastActivityNs < silentTimeoutNs)
        {
            return;
        }
        stream.silent = true;
        counters.onSilent();
        sequencer.onSilent(slot, now - stream.lastActivityNs);
        sequencer.markStale(slot, StaleReason.SILENT);
        if (resubscribeOnSilence)
        {
            resubscribe(slot);
        }
    }

    /** Drop a possibly stuck image and re-join the stream at its live position. */
    private void resubscribe(final int index)
    {
        final Subscription old = subscriptions[index];
        if (null != old)
        {
            subscriptions[index] = null;
            aeron.asyncRemoveSubscription(old.registrationId());
            pendingRegistrationIds[index] = Aeron.NULL_VALUE;
            pickUpSubscription(index);
        }
    }

    /** Add (again) the incremental subscription at {@code index} (slot * sideCount + side) without blocking. */
    private int pickUpSubscription(final int index)
    {
        if (Aeron.NULL_VALUE == pendingRegistrationIds[index])
        {
            final int side = index % sideCount;
            pendingRegistrationIds[index] = aeron.asyncAddSubscription(channels[side],
                Partitioning.streamId(streamIdBases[side], partitions[index / sideCount]), null,
                unavailableImageHandlers[index]);
            return 1;
        }
        try
        {
            final Subscription subscription = aeron.getSubscription(pendingRegistrationIds[index]);
            if (null != subscription)
            {
                subscriptions[index] = subscription;
                pendingRegistrationIds[index] = Aeron.NULL_VALUE;
                return 1;
            }
        }
        catch (final RuntimeException ex)
        {
            pendingRegistrationIds[index] = Aeron.NULL_VALUE;
            counters.onSubscriptionError();
        }
        return 0;
    }

    /**
     * Whether a partition's subscription has a connected publisher image: false while no fanout publishes the
     * partition's stream on the channel (or none reaches this host).
     *
     * @param partition a subscribed partition.
     * @return whether the partition stream is connected.
     */
    public boolean isConnected(final int partition)
    {
        final int slot = slotOf(partition);
        for (int side = 0; side < sideCount; side++)
        {
            final Subscription subscription = subscriptions[slot * sideCount + side];
            if (null != subscription && subscription.isConnected())
            {
                return true; // a pair serves the partition from either side
            }
        }
        return false;
    }

    /**
     * True once every partition subscription has at least one connected publisher image (for a pair: on at least
     * one side).
     *
     * @return whether all partition streams are connected.
     */
    public boolean isConnected()
    {
        for (final int partition : partitions)
        {
            if (!isConnected(partition))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether one side of a pair has a connected publisher image for a partition.
     *
     * @param partition a subscribed partition.
     * @param side      0 for A, 1 for B.
     * @return whether that side's stream of the partition is connected.
     */
    public boolean isSideConnected(final int partition, final int side)
    {
        if (side < 0 || side >= sideCount)
        {
            throw new IllegalArgumentException("no side " + side + ": the feed has " + sideCount);
        }
        final Subscription subscription = subscriptions[slotOf(partition) * sideCount + side];
        return null != subscription && subscription.isConnected();
    }

    /**
     * Whether one side of a pair is silent on a partition (no packet or heartbeat for the silent timeout) while the
     * other may still serve it.
     *
     * @param partition a subscribed partition.
     * @param side      0 for A, 1 for B.
     * @return true while that side is silent; false for a single fanout.
     */
    public boolean isSideSilent(final int partition, final int side)
    {
        return null != pairSequencer && pairSequencer.isSideSilent(slotOf(partition), side);
    }

    /**
     * Whether one side of a pair is refused on a partition because it disagrees with the other (schema version,
     * partitioning, exchange session; the reason went to the error handler).
     *
     * @param partition a subscribed partition.
     * @param side      0 for A, 1 for B.
     * @return true while refused; false for a single fanout.
     */
    public boolean isSideRefused(final int partition, final int side)
    {
        return null != pairSequencer && pairSequencer.isSideRefused(slotOf(partition), side);
    }

    /**
     * How many sides the feed is subscribed on.
     *
     * @return 1, or 2 for a pair.
     */
    public int sideCount()
    {
        return sideCount;
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
        return streams[slotOf(partition)].expectedSequence;
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
        if (null != recoveries)
        {
            for (final PartitionRecovery recovery : recoveries)
            {
                recovery.close();
            }
        }
        for (final long registrationId : pendingRegistrationIds)
        {
            if (Aeron.NULL_VALUE != registrationId && !aeron.isClosed())
            {
                aeron.asyncRemoveSubscription(registrationId);
            }
        }
        CloseHelper.closeAll(subscriptions);
        if (null != replays)
        {
            for (final PartitionReplay replay : replays)
            {
                CloseHelper.quietClose(replay);
            }
        }
        if (null != pairReplays)
        {
            for (final PairReplay replay : pairReplays)
            {
                CloseHelper.quietClose(replay);
            }
        }
        CloseHelper.quietClose(archiveClient);
        if (ownsCounters)
        {
            counters.close();
        }
    }

    /**
     * The settings of a {@link FeedSubscriber}, each with a named default (as {@code Aeron.Context} has), set
     * with fluent setters. Only the Aeron client and the listener must be given. Defaults: the fanout's
     * default channel, stream id base and partition count, all partitions, counters in a private counters
     * manager, errors printed to standard error, recovery on with snapshots on the incremental channel at
     * {@link Partitioning#defaultSnapshotStreamIdBase(int)} and a 16 MiB recovery buffer per partition,
     * streams silent after 2 s and then re-subscribed, the system nano clock, no delivery latency recorded.
     * <p>
     * {@link #conclude()} checks the settings and resolves the derived defaults; the subscriber calls it.
     */
    public static final class Context
    {
        /** Default Aeron channel the fanout publishes on. */
        public static final String DEFAULT_CHANNEL = Defaults.CHANNEL;
        /** Default stream id of partition 0 (partition p uses base + p). */
        public static final int DEFAULT_STREAM_ID_BASE = Defaults.STREAM_ID_BASE;
        /** Default number of partitions the fanout publishes, all of them subscribed. */
        public static final int DEFAULT_PARTITION_COUNT = Defaults.PARTITION_COUNT;
        /** Default bytes of incremental packets buffered per partition while recovering. */
        public static final int DEFAULT_RECOVERY_BUFFER_BYTES = 16 * 1024 * 1024;
        /** Smallest recovery buffer accepted: it must hold the largest Aeron message. */
        public static final int MIN_RECOVERY_BUFFER_BYTES = 64 * 1024;
        /** Largest recovery buffer accepted. */
        public static final int MAX_RECOVERY_BUFFER_BYTES = 1024 * 1024 * 1024;
        /** Default time without a packet or heartbeat after which a joined stream is reported silent. */
        public static final long DEFAULT_SILENT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(2);
        /** Marks the snapshot stream id base as "derive from the incremental stream id base". */
        public static final int DEFAULT_SNAPSHOT_STREAM_ID_BASE = Integer.MIN_VALUE;
        /** The archive's control stream id (the archive role's default). */
        public static final int DEFAULT_ARCHIVE_CONTROL_STREAM_ID = ArchiveSessions.DEFAULT_CONTROL_STREAM_ID;
        /** Where the archive answers: this host, a port the OS picks (name this host's address across hosts). */
        public static final String DEFAULT_ARCHIVE_RESPONSE_CHANNEL = "aeron:udp?endpoint=localhost:0";
        /** Where the archive sends replays: this host, a port the OS picks (name this host's address across hosts). */
        public static final String DEFAULT_REPLAY_CHANNEL = "aeron:udp?endpoint=localhost:0";
        /** Stream id of the replay of the first subscribed partition; the next ones follow. */
        public static final int DEFAULT_REPLAY_STREAM_ID = 20_000;
        /** Default time a message one side of a pair lacks waits for the other side before it is a gap. */
        public static final long DEFAULT_ARBITRATION_WAIT_NS = TimeUnit.MILLISECONDS.toNanos(20);
        /**
         * Bytes of one side's packets held per partition while they wait for the other side (direct memory, allocated
         * with the subscriber): 20 ms of one partition at 1,000,000 msg/s fits; a side that outgrows it ends its wait
         * early (what the other side has not filled by then is a gap).
         */
        public static final int ARBITRATION_HOLD_BYTES = 2 * 1024 * 1024;
        /** Marks side B's stream id bases as "the same as side A's". */
        public static final int SAME_AS_SIDE_A = Integer.MIN_VALUE;

        private Aeron aeron;
        private String channel = DEFAULT_CHANNEL;
        private int streamIdBase = DEFAULT_STREAM_ID_BASE;
        private int partitionCount = DEFAULT_PARTITION_COUNT;
        private int[] partitions;
        private MarketDataListener listener;
        private SubscriberCounters counters;
        private ErrorHandler errorHandler = Throwable::printStackTrace;
        private String snapshotChannel;
        private int snapshotStreamIdBase = DEFAULT_SNAPSHOT_STREAM_ID_BASE;
        private FeedStream stream = FeedStream.MBO;
        private long[] instruments;
        private boolean recoveryEnabled = true;
        private int recoveryBufferBytes = DEFAULT_RECOVERY_BUFFER_BYTES;
        private long silentTimeoutNs = DEFAULT_SILENT_TIMEOUT_NS;
        private boolean resubscribeOnSilence = true;
        private NanoClock nanoClock = SystemNanoClock.INSTANCE;
        private DeliveryLatencyRecorder deliveryLatencyRecorder;
        private String archiveControlChannel;
        private int archiveControlStreamId = DEFAULT_ARCHIVE_CONTROL_STREAM_ID;
        private String archiveResponseChannel = DEFAULT_ARCHIVE_RESPONSE_CHANNEL;
        private String replayChannel = DEFAULT_REPLAY_CHANNEL;
        private int replayStreamId = DEFAULT_REPLAY_STREAM_ID;
        private ReplayStart replayFrom;
        private String replaySession;
        private boolean replayToLive = true;
        private boolean replayOriginalPace;
        private boolean partitionCountSet;
        private String pairChannel;
        private int pairStreamIdBase = SAME_AS_SIDE_A;
        private String pairSnapshotChannel;
        private int pairSnapshotStreamIdBase = SAME_AS_SIDE_A;
        private long arbitrationWaitNs = DEFAULT_ARBITRATION_WAIT_NS;

        /**
         * Check every setting and resolve the derived defaults (the partitions, the snapshot channel and
         * stream id base). Called by the subscriber; calling it again changes nothing.
         *
         * @return this.
         * @throws IllegalArgumentException with a one-line message naming the bad setting.
         */
        public Context conclude()
        {
            if (null == aeron || null == channel || null == listener || null == errorHandler)
            {
                throw new IllegalArgumentException(
                    "aeron, channel, partitions, listener and errorHandler are required");
            }
            validate();
            partitions = partitions();
            snapshotChannel = snapshotChannel();
            snapshotStreamIdBase = snapshotStreamIdBase();
            return this;
        }

        /**
         * Check the settings that do not need the Aeron client or the listener: the partitions, the channels
         * and stream ids, recovery and liveness. {@link #conclude()} calls it; a tool can call it before it
         * connects to a media driver.
         *
         * @return this.
         * @throws IllegalArgumentException with a one-line message naming the bad setting.
         */
        public Context validate()
        {
            if (null == channel)
            {
                throw new IllegalArgumentException("channel is required");
            }
            final int[] partitions = partitions();
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
            if (null == nanoClock)
            {
                throw new IllegalArgumentException("nanoClock is required");
            }
            if (silentTimeoutNs <= 0)
            {
                throw new IllegalArgumentException("silent timeout must be positive: " + silentTimeoutNs + " ns");
            }
            if (null != replayFrom && null == archiveControlChannel)
            {
                throw new IllegalArgumentException("a replay needs the archive's control channel (archiveControlChannel)");
            }
            if (null != replayFrom && (null == replayChannel || !replayChannel.startsWith("aeron:")))
            {
                throw new IllegalArgumentException("the replay channel is not an Aeron channel: " + replayChannel);
            }
            validatePair();
            if (null == stream)
            {
                throw new IllegalArgumentException("stream is required (FeedStream.MBO for the order-by-order feed)");
            }
            if (stream.isDerived() && null != pairChannel)
            {
                throw new IllegalArgumentException("the " + stream.streamName() + " stream is not arbitrated between " +
                    "a pair's sides (its packets carry no chain): subscribe to one side");
            }
            if (stream.isDerived() && null != replayFrom)
            {
                throw new IllegalArgumentException("the archive records the MBO streams only: no replay of the " +
                    stream.streamName() + " stream");
            }
            if (!recoveryEnabled)
            {
                return this;
            }
            if (recoveryBufferBytes < MIN_RECOVERY_BUFFER_BYTES || recoveryBufferBytes > MAX_RECOVERY_BUFFER_BYTES)
            {
                throw new IllegalArgumentException("recovery buffer must be " + MIN_RECOVERY_BUFFER_BYTES + ".." +
                    MAX_RECOVERY_BUFFER_BYTES + " bytes: " + recoveryBufferBytes);
            }
            final String resolvedChannel = snapshotChannel();
            if (!resolvedChannel.startsWith("aeron:"))
            {
                throw new IllegalArgumentException("snapshot channel is not an Aeron channel: " + resolvedChannel);
            }
            final int snapshotBase = snapshotStreamIdBase();
            if (snapshotBase < 0)
            {
                throw new IllegalArgumentException("snapshot stream id base must not be negative: " + snapshotBase);
            }
            if (resolvedChannel.equals(channel))
            {
                for (final int snapshotPartition : partitions)
                {
                    for (final int partition : partitions)
                    {
                        if (Partitioning.snapshotStreamId(snapshotBase, snapshotPartition) ==
                            Partitioning.streamId(streamIdBase, partition))
                        {
                            throw new IllegalArgumentException("snapshot stream id " +
                                Partitioning.snapshotStreamId(snapshotBase, snapshotPartition) +
                                " (partition " + snapshotPartition + ") is also the incremental stream of partition " +
                                partition + " on the same channel");
                        }
                    }
                }
            }
            return this;
        }

        private void validatePair()
        {
            if (null == pairChannel)
            {
                return;
            }
            if (!pairChannel.startsWith("aeron:"))
            {
                throw new IllegalArgumentException("side B's channel is not an Aeron channel: " + pairChannel);
            }
            if (pairChannel.equals(channel) && pairStreamIdBase() == streamIdBase)
            {
                throw new IllegalArgumentException("side B's channel and stream ids are side A's (" + channel +
                    ", base " + streamIdBase + "): a pair's sides publish on channels or stream ids of their own");
            }
            if (arbitrationWaitNs < 0)
            {
                throw new IllegalArgumentException("arbitration wait must not be negative: " + arbitrationWaitNs + " ns");
            }
            if (recoveryEnabled && !pairSnapshotChannel().startsWith("aeron:"))
            {
                throw new IllegalArgumentException("side B's snapshot channel is not an Aeron channel: " +
                    pairSnapshotChannel());
            }
        }

        /**
         * Subscribe to a feed's two sides (a pair: two independent chains publishing the same partitions, e.g. one
         * per node): per partition the first copy of each message is delivered, a message one side lacks is taken
         * from the other, and a gap exists only when both lack it for the {@link #arbitrationWaitNs arbitration
         * wait}. Both sides must publish schema version 4 or later. Null (the default): one fanout, on
         * {@link #channel}.
         *
         * @param channel side B's channel, e.g. {@code aeron:udp?endpoint=239.255.0.2:40457}.
         * @return this.
         */
        public Context pairChannel(final String channel)
        {
            this.pairChannel = channel;
            return this;
        }

        /** @return side B's channel, or null for one fanout. */
        public String pairChannel()
        {
            return pairChannel;
        }

        /**
         * @param streamIdBase side B's incremental stream id base; {@link #SAME_AS_SIDE_A} (the default): side A's.
         * @return this.
         */
        public Context pairStreamIdBase(final int streamIdBase)
        {
            this.pairStreamIdBase = streamIdBase;
            return this;
        }

        /** @return side B's incremental stream id base in effect. */
        public int pairStreamIdBase()
        {
            return SAME_AS_SIDE_A != pairStreamIdBase ? pairStreamIdBase : streamIdBase;
        }

        /**
         * @param channel side B's snapshot channel; null (the default): side B's incremental channel.
         * @return this.
         */
        public Context pairSnapshotChannel(final String channel)
        {
            this.pairSnapshotChannel = channel;
            return this;
        }

        /** @return side B's snapshot channel in effect. */
        public String pairSnapshotChannel()
        {
            return null != pairSnapshotChannel ? pairSnapshotChannel : pairChannel;
        }

        /**
         * @param streamIdBase side B's snapshot stream id base; {@link #SAME_AS_SIDE_A} (the default): derived from
         *                     side B's incremental base as side A's is.
         * @return this.
         */
        public Context pairSnapshotStreamIdBase(final int streamIdBase)
        {
            this.pairSnapshotStreamIdBase = streamIdBase;
            return this;
        }

        /** @return side B's snapshot stream id base in effect. */
        public int pairSnapshotStreamIdBase()
        {
            if (SAME_AS_SIDE_A != pairSnapshotStreamIdBase)
            {
                return pairSnapshotStreamIdBase;
            }
            return DEFAULT_SNAPSHOT_STREAM_ID_BASE != snapshotStreamIdBase && SAME_AS_SIDE_A == pairStreamIdBase ?
                snapshotStreamIdBase : Partitioning.defaultSnapshotStreamIdBase(pairStreamIdBase());
        }

        /**
         * How long a message one side of a pair lacks (a packet that does not link to what was delivered, a gap
         * notice, a heartbeat ahead of delivery) waits for the other side before it is a gap.
         *
         * @param waitNs nanoseconds, not negative; default {@link #DEFAULT_ARBITRATION_WAIT_NS}.
         * @return this.
         */
        public Context arbitrationWaitNs(final long waitNs)
        {
            this.arbitrationWaitNs = waitNs;
            return this;
        }

        /** @return the arbitration wait in nanoseconds. */
        public long arbitrationWaitNs()
        {
            return arbitrationWaitNs;
        }

        /**
         * @return the partition count when the subscriber was told it ({@link #partitionCount}, even if a list of
         * partitions was set after), else 0: a pair then takes the count its first side announces.
         */
        int announcedPartitionCount()
        {
            return partitionCountSet ? partitionCount : 0;
        }

        /**
         * Where the archive that recorded the feed takes requests (the archive role's --control-channel, with its
         * host): needed to replay. Null (the default): no archive.
         *
         * @param channel e.g. {@code aeron:udp?endpoint=archive-host:8010}.
         * @return this.
         */
        public Context archiveControlChannel(final String channel)
        {
            this.archiveControlChannel = channel;
            return this;
        }

        /** @return the archive's control channel, or null. */
        public String archiveControlChannel()
        {
            return archiveControlChannel;
        }

        /**
         * @param streamId the archive's control stream id.
         * @return this.
         */
        public Context archiveControlStreamId(final int streamId)
        {
            this.archiveControlStreamId = streamId;
            return this;
        }

        /** @return the archive's control stream id. */
        public int archiveControlStreamId()
        {
            return archiveControlStreamId;
        }

        /**
         * Where the archive answers this subscriber: an address of this host the archive reaches.
         *
         * @param channel e.g. {@code aeron:udp?endpoint=10.0.0.5:0} (port 0: any free port).
         * @return this.
         */
        public Context archiveResponseChannel(final String channel)
        {
            this.archiveResponseChannel = channel;
            return this;
        }

        /** @return where the archive answers. */
        public String archiveResponseChannel()
        {
            return archiveResponseChannel;
        }

        /**
         * Where the archive sends replays: an address of this host the archive reaches.
         *
         * @param channel e.g. {@code aeron:udp?endpoint=10.0.0.5:0} (port 0: any free port).
         * @return this.
         */
        public Context replayChannel(final String channel)
        {
            this.replayChannel = channel;
            return this;
        }

        /** @return where replays are sent. */
        public String replayChannel()
        {
            return replayChannel;
        }

        /**
         * @param streamId stream id of the first subscribed partition's replay; partition slot i uses it + i.
         * @return this.
         */
        public Context replayStreamId(final int streamId)
        {
            this.replayStreamId = streamId;
            return this;
        }

        /** @return the replay stream id of the first subscribed partition. */
        public int replayStreamId()
        {
            return replayStreamId;
        }

        /**
         * Start from a point of a recorded session instead of the present: each partition replays its recordings
         * from the archive, then merges into the live stream with no gap and no duplicate
         * ({@link MarketDataListener#onReplayLive}). The messages before the point are delivered as the state at
         * it ({@link MessageContext#isSnapshot()} true). Null (the default): live only.
         *
         * @param start where to start.
         * @return this.
         */
        public Context replayFrom(final ReplayStart start)
        {
            this.replayFrom = start;
            return this;
        }

        /** @return where a replay starts, or null for none. */
        public ReplayStart replayFrom()
        {
            return replayFrom;
        }

        /**
         * @param session the trading session to replay (the archive's --session); null (the default): the newest.
         * @return this.
         */
        public Context replaySession(final String session)
        {
            this.replaySession = session;
            return this;
        }

        /** @return the session replayed, or null for the newest. */
        public String replaySession()
        {
            return replaySession;
        }

        /**
         * @param toLive true (the default): merge into the live stream after the replay; false: replay only, to
         *               the end of what the archive holds ({@link MarketDataListener#onReplayEnd}), e.g. a past session.
         * @return this.
         */
        public Context replayToLive(final boolean toLive)
        {
            this.replayToLive = toLive;
            return this;
        }

        /** @return whether the replay merges into the live stream. */
        public boolean replayToLive()
        {
            return replayToLive;
        }

        /**
         * @param originalPace true: deliver the replay at the pace the fanout sent it; false (the default): as fast
         *                     as it comes.
         * @return this.
         */
        public Context replayOriginalPace(final boolean originalPace)
        {
            this.replayOriginalPace = originalPace;
            return this;
        }

        /** @return whether the replay keeps the original pace. */
        public boolean replayOriginalPace()
        {
            return replayOriginalPace;
        }

        /**
         * The application's Aeron client: the subscriber uses it and does not close it. Required.
         *
         * @param aeron the client.
         * @return this.
         */
        public Context aeron(final Aeron aeron)
        {
            this.aeron = aeron;
            return this;
        }

        /** @return the Aeron client, or null before one was set. */
        public Aeron aeron()
        {
            return aeron;
        }

        /**
         * The Aeron channel the fanout publishes on.
         *
         * @param channel the channel; default {@link #DEFAULT_CHANNEL}.
         * @return this.
         */
        public Context channel(final String channel)
        {
            this.channel = channel;
            return this;
        }

        /** @return the incremental channel. */
        public String channel()
        {
            return channel;
        }

        /**
         * Stream id of partition 0's incremental stream (partition p uses base + p).
         *
         * @param streamIdBase the base; default {@link #DEFAULT_STREAM_ID_BASE}.
         * @return this.
         */
        public Context streamIdBase(final int streamIdBase)
        {
            this.streamIdBase = streamIdBase;
            return this;
        }

        /** @return the incremental stream id base. */
        public int streamIdBase()
        {
            return streamIdBase;
        }

        /**
         * Subscribe to every partition of a fanout with this many; replaces a list set with
         * {@link #partitions(int[])}.
         *
         * @param partitionCount how many partitions the fanout publishes, positive; default
         *                       {@link #DEFAULT_PARTITION_COUNT}.
         * @return this.
         */
        public Context partitionCount(final int partitionCount)
        {
            this.partitionCount = partitionCount;
            this.partitions = null;
            this.partitionCountSet = true;
            return this;
        }

        /**
         * Subscribe to a chosen set of partitions.
         *
         * @param partitions distinct and non-negative, in the slot order of the subscriber; null for all
         *                   partitions of {@link #partitionCount(int)}.
         * @return this.
         */
        public Context partitions(final int[] partitions)
        {
            this.partitions = partitions;
            return this;
        }

        /** @return the partitions subscribed to: those set, or all of the partition count. */
        public int[] partitions()
        {
            return null != partitions ? partitions : allPartitions(partitionCount);
        }

        /**
         * Receives the messages and the stream events. Required.
         *
         * @param listener the listener.
         * @return this.
         */
        public Context listener(final MarketDataListener listener)
        {
            this.listener = listener;
            return this;
        }

        /** @return the listener, or null before one was set. */
        public MarketDataListener listener()
        {
            return listener;
        }

        /**
         * Where to count.
         *
         * @param counters the counters; null (the default) to create them in a private counters manager,
         *                 closed with the subscriber.
         * @return this.
         */
        public Context counters(final SubscriberCounters counters)
        {
            this.counters = counters;
            return this;
        }

        /** @return the counters, or null for private ones. */
        public SubscriberCounters counters()
        {
            return counters;
        }

        /**
         * Receives exceptions thrown by the listener, which are counted and otherwise ignored so that the poll
         * loop carries on, and errors of the snapshot subscriptions.
         *
         * @param errorHandler the handler; default prints the stack trace to standard error.
         * @return this.
         */
        public Context errorHandler(final ErrorHandler errorHandler)
        {
            this.errorHandler = errorHandler;
            return this;
        }

        /** @return the error handler. */
        public ErrorHandler errorHandler()
        {
            return errorHandler;
        }

        /**
         * Channel of the snapshot streams.
         *
         * @param channel an Aeron channel, or null (the default) for the incremental channel.
         * @return this.
         */
        public Context snapshotChannel(final String channel)
        {
            this.snapshotChannel = channel;
            return this;
        }

        /** @return the snapshot channel in effect: the one set, or the incremental channel. */
        public String snapshotChannel()
        {
            return null != snapshotChannel ? snapshotChannel : channel;
        }

        /**
         * Stream id of partition 0's snapshot stream (partition p uses base + p).
         *
         * @param streamIdBase the base, or {@link #DEFAULT_SNAPSHOT_STREAM_ID_BASE} (the default) for
         *                     {@link Partitioning#defaultSnapshotStreamIdBase(int)} of the incremental base.
         * @return this.
         */
        public Context snapshotStreamIdBase(final int streamIdBase)
        {
            this.snapshotStreamIdBase = streamIdBase;
            return this;
        }

        /**
         * Which of the feed's streams to subscribe to: the MBO stream (the default) or a derived one, each at its own
         * stream ids ({@link FeedStream#base}: the stream id bases given here are the MBO stream's) with the same
         * sequencing, heartbeats and snapshots (docs/SDK.md, "Derived streams").
         *
         * @param stream the stream.
         * @return this.
         */
        public Context stream(final FeedStream stream)
        {
            this.stream = stream;
            return this;
        }

        /** @return the stream subscribed to. */
        public FeedStream stream()
        {
            return stream;
        }

        /**
         * Deliver only these instruments' messages, and the market-wide ones: the others are skipped by the instrument
         * id of their common prefix, without being decoded. With {@link SymbolDirectory#resolve}, which gives the
         * instruments of symbols and the partitions that carry them, a subscriber by symbol.
         *
         * @param instrumentIds the instruments; none (the default) for every instrument of the partitions.
         * @return this.
         */
        public Context instruments(final long... instrumentIds)
        {
            this.instruments = null == instrumentIds || 0 == instrumentIds.length ? null : instrumentIds.clone();
            return this;
        }

        /** @return the instruments delivered, or null for every one. */
        public long[] instruments()
        {
            return null == instruments ? null : instruments.clone();
        }

        /** @return the snapshot stream id base in effect. */
        public int snapshotStreamIdBase()
        {
            return DEFAULT_SNAPSHOT_STREAM_ID_BASE != snapshotStreamIdBase ?
                snapshotStreamIdBase : Partitioning.defaultSnapshotStreamIdBase(streamIdBase);
        }

        /**
         * Whether late joins, gaps and restarts are recovered from the snapshot stream. Off: every
         * message is delivered as received and gaps are only reported.
         *
         * @param enabled true (the default) to recover.
         * @return this.
         */
        public Context recoveryEnabled(final boolean enabled)
        {
            this.recoveryEnabled = enabled;
            return this;
        }

        /** @return whether recovery is on. */
        public boolean recoveryEnabled()
        {
            return recoveryEnabled;
        }

        /**
         * Bytes of incremental packets buffered per partition while waiting for and applying a
         * snapshot. Allocated once, on the partition's first recovery.
         *
         * @param bytes between {@link #MIN_RECOVERY_BUFFER_BYTES} and {@link #MAX_RECOVERY_BUFFER_BYTES};
         *              default {@link #DEFAULT_RECOVERY_BUFFER_BYTES}.
         * @return this.
         */
        public Context recoveryBufferBytes(final int bytes)
        {
            this.recoveryBufferBytes = bytes;
            return this;
        }

        /** @return the recovery buffer size per partition. */
        public int recoveryBufferBytes()
        {
            return recoveryBufferBytes;
        }

        /**
         * Time without a packet or heartbeat after which a joined stream is reported silent.
         *
         * @param timeoutNs positive nanoseconds; default {@link #DEFAULT_SILENT_TIMEOUT_NS}.
         * @return this.
         */
        public Context silentTimeoutNs(final long timeoutNs)
        {
            this.silentTimeoutNs = timeoutNs;
            return this;
        }

        /** @return the silent timeout in nanoseconds. */
        public long silentTimeoutNs()
        {
            return silentTimeoutNs;
        }

        /**
         * Whether a silent stream's subscription is closed and added again, so that a stuck image is
         * dropped and the stream re-joined at its live position.
         *
         * @param resubscribe true (the default) to re-subscribe.
         * @return this.
         */
        public Context resubscribeOnSilence(final boolean resubscribe)
        {
            this.resubscribeOnSilence = resubscribe;
            return this;
        }

        /** @return whether silent streams are re-subscribed. */
        public boolean resubscribeOnSilence()
        {
            return resubscribeOnSilence;
        }

        /**
         * Clock for liveness and stale durations, read once per poll.
         *
         * @param clock the clock; default the system's.
         * @return this.
         */
        public Context nanoClock(final NanoClock clock)
        {
            this.nanoClock = clock;
            return this;
        }

        /** @return the clock for liveness and staleness timing. */
        public NanoClock nanoClock()
        {
            return nanoClock;
        }

        /**
         * Where to record, per live incremental packet, the time from the fanout's send to delivery
         * (for a latency histogram).
         *
         * @param recorder the recorder, or null (the default) to record nothing.
         * @return this.
         */
        public Context deliveryLatencyRecorder(final DeliveryLatencyRecorder recorder)
        {
            this.deliveryLatencyRecorder = recorder;
            return this;
        }

        /** @return the delivery latency recorder, or null. */
        public DeliveryLatencyRecorder deliveryLatencyRecorder()
        {
            return deliveryLatencyRecorder;
        }
    }
}
