package io.mdfanout.sdk;

import io.aeron.Aeron;
import io.aeron.FragmentAssembler;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import io.mdfanout.sbe.HeartbeatDecoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.PacketHeaderDecoder;
import io.mdfanout.sbe.SnapshotBeginDecoder;
import io.mdfanout.sbe.SnapshotEndDecoder;
import io.mdfanout.sbe.SnapshotInstrumentDecoder;
import io.mdfanout.sbe.SnapshotOrderDecoder;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;

/**
 * Recovers one partition from its snapshot stream, as a state machine driven by {@link #doWork(long, int)}
 * from the poll loop (as Aeron's {@code ReplayMerge} is). It owns the partition's snapshot subscription,
 * which is open only while the partition recovers.
 * <p>
 * The {@link StreamSequencer} makes the partition stale ({@link #goStale}) after a late join, a gap, a new
 * publisher session, a lost image or silence; from then on the partition's incremental packets are copied
 * into a bounded {@link RecoveryBuffer} ({@link #bufferPacket}) instead of being delivered, in every state
 * but {@link State#LIVE}. The first SnapshotBegin of the followed session that is recent enough
 * (lastStreamSequence &gt;= first buffered sequence - 1) is applied. At a complete SnapshotEnd the buffer
 * is replayed through the normal dispatch, each message filtered by the lastStreamSequence that covers its
 * instrument in the snapshot (the filter stays on for live packets until the stream passes the snapshot's
 * highest L), and the partition is live again. Another gap meanwhile drops what was buffered and abandons a
 * snapshot being applied ({@link #restartBuffering}).
 * <p>
 * The recovery buffer and the filter are allocated once, on the partition's first recovery; nothing else
 * allocates. Polling thread only.
 */
final class PartitionRecovery
{
    /** Where the recovery of the partition stands. */
    enum State
    {
        /** The stream is whole: incrementals are delivered as they come; no snapshot subscription. */
        LIVE,
        /** Stale: the snapshot subscription is to be added (again, after the driver refused it). */
        ADD_SUBSCRIPTION,
        /** Stale: the snapshot subscription was asked for, and is polled for until the driver has added it. */
        AWAIT_SUBSCRIPTION,
        /** Stale and subscribed: waits for a SnapshotBegin of the followed session recent enough to apply. */
        AWAIT_SNAPSHOT,
        /** A snapshot is being applied, up to its SnapshotEnd; a gap in it or in the incrementals abandons it. */
        APPLY_SNAPSHOT,
        /** The snapshot was applied: the buffered incrementals are delivered through its filter, then LIVE. */
        REPLAY,
        /** The subscriber was closed. */
        CLOSED
    }

    private final PartitionStream stream;
    private final PacketValidator validator;
    private final MessageDispatcher dispatcher;
    private final SubscriberCounters counters;
    private final Aeron aeron;
    private final int bufferBytes;
    /** The snapshot streams of the feed's sides: one for a single fanout, two for a pair. */
    private final SnapshotSource[] sources;
    /**
     * A pair's recovery: positions are chain positions (the exchange's identity of a message, which both sides
     * share), snapshots of either side apply, and their exchangeSequence tags cover the state; otherwise stream
     * sequences of the one followed publication.
     */
    private final boolean chainKeyed;

    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final PacketHeaderDecoder packetHeader = new PacketHeaderDecoder();
    private final SnapshotBeginDecoder snapshotBegin = new SnapshotBeginDecoder();
    /** The snapshot being applied says its state lacks no exchange message (schema version 3; unknown before). */
    private boolean snapshotLacksNothing;
    private final SnapshotInstrumentDecoder snapshotInstrument = new SnapshotInstrumentDecoder();
    private final SnapshotEndDecoder snapshotEnd = new SnapshotEndDecoder();

    private State state = State.LIVE;
    private long nowNs;
    private RecoveryBuffer buffer;
    /** First stream sequence the recovery buffer holds (or will hold): a snapshot must have L >= this - 1. */
    private long requiredSequence;

    /** The source whose snapshot is being applied (the others' are passed over meanwhile). */
    private int applyingSource;

    // Snapshot being applied.
    private long snapshotId;
    private long snapshotBeginSequence;
    private long currentCoveringSequence;
    private long maxCoveringSequence;
    private long nextCoveredFrom;
    private long ordersRemaining;
    private long instrumentOrderCount;
    private long snapshotInstrumentCount;
    private long snapshotOrderCount;
    private long snapshotMessageCount;

    /**
     * @param stream           the partition recovered.
     * @param validator        checks each snapshot packet.
     * @param dispatcher       delivers the snapshot and the replayed incrementals.
     * @param counters         where to count.
     * @param aeron            adds and removes the snapshot subscription; null when the snapshot messages are handed
     *                         in ({@link PacketStreamDecoder#withRecovery}): then {@link #doWork} must never run, and
     *                         nothing else touches it, since no subscription is ever added.
     * @param snapshotChannel  the channel of the snapshot stream.
     * @param snapshotStreamId the partition's snapshot stream id.
     * @param bufferBytes      capacity of the recovery buffer.
     */
    PartitionRecovery(
        final PartitionStream stream,
        final PacketValidator validator,
        final MessageDispatcher dispatcher,
        final SubscriberCounters counters,
        final Aeron aeron,
        final String snapshotChannel,
        final int snapshotStreamId,
        final int bufferBytes)
    {
        this(stream, validator, dispatcher, counters, aeron, new String[] {snapshotChannel}, new int[] {snapshotStreamId},
            bufferBytes, false);
    }

    /**
     * A recovery from the snapshot streams of several sides (a pair), or of one.
     *
     * @param snapshotChannels  per side, the channel of its snapshot stream.
     * @param snapshotStreamIds per side, the partition's snapshot stream id.
     * @param chainKeyed        true for a pair: positions are chain positions, snapshots of any side apply.
     */
    PartitionRecovery(
        final PartitionStream stream,
        final PacketValidator validator,
        final MessageDispatcher dispatcher,
        final SubscriberCounters counters,
        final Aeron aeron,
        final String[] snapshotChannels,
        final int[] snapshotStreamIds,
        final int bufferBytes,
        final boolean chainKeyed)
    {
        this.stream = stream;
        this.validator = validator;
        this.dispatcher = dispatcher;
        this.counters = counters;
        this.aeron = aeron;
        this.bufferBytes = bufferBytes;
        this.chainKeyed = chainKeyed;
        this.sources = new SnapshotSource[snapshotChannels.length];
        for (int i = 0; i < sources.length; i++)
        {
            final int source = i;
            sources[i] = new SnapshotSource(snapshotChannels[i], snapshotStreamIds[i], new FragmentAssembler(
                (buffer, offset, length, header) -> onSnapshotMessage(source, header.sessionId(), buffer, offset, length)));
        }
    }

    State state()
    {
        return state;
    }

    /**
     * The time, for the stale duration reported at the end of a recovery, where no {@link #doWork} takes it (the
     * snapshot messages are handed in).
     */
    void now(final long nowNs)
    {
        this.nowNs = nowNs;
    }

    /** @return true in every state but {@link State#LIVE} (and {@link State#CLOSED}): incrementals are held back. */
    boolean isRecovering()
    {
        return State.LIVE != state && State.CLOSED != state;
    }

    /**
     * Mark the partition stale (again): buffering starts at {@code sequence}, the listener is told.
     */
    void goStale(final StaleReason reason, final long sequence, final long nowNs)
    {
        if (null == buffer)
        {
            buffer = new RecoveryBuffer(bufferBytes);
            stream.allocateFilter();
        }
        if (State.LIVE == state)
        {
            if (!stream.sourceDown)
            {
                stream.staleSinceNs = nowNs; // good until now: a partition whose source was down is not good since then
            }
            stream.recoverySnapshotId = 0;
            state = State.ADD_SUBSCRIPTION;
        }
        restartBuffering(sequence);
        counters.onStale(reason);
        dispatcher.onStale(stream.partition, reason, sequence);
    }

    /**
     * The stream started again at its first message after the exchange ended the day ({@link StreamSequencer}): what
     * was buffered belongs to the ended day, no snapshot is needed, and the partition follows the new stream.
     */
    void endWithNewStream()
    {
        abandonSnapshot();
        state = State.LIVE;
        if (null != buffer)
        {
            buffer.reset();
        }
        closeSubscription();
        stream.recoverySnapshotId = 0;
    }

    /** Drop what was buffered; buffering starts again at {@code sequence}; a snapshot being applied is abandoned. */
    void restartBuffering(final long sequence)
    {
        buffer.reset();
        requiredSequence = sequence;
        abandonSnapshot();
    }

    /**
     * Hold back messages {@code [fromIndex, toIndex)} of a validated incremental packet a pair's arbitration chose,
     * until a snapshot was applied; {@code nextKey} is the chain position before them plus one.
     */
    void bufferRange(
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final int fromIndex,
        final int toIndex,
        final long nextKey,
        final long nowNs)
    {
        if (!this.buffer.appendRange(buffer, offset, length, fromIndex, toIndex))
        {
            counters.onRecoveryBufferOverflow();
            goStale(StaleReason.RECOVERY_BUFFER_OVERFLOW, nextKey, nowNs);
            this.buffer.appendRange(buffer, offset, length, fromIndex, toIndex);
        }
    }

    /**
     * Hold back a validated incremental packet, from {@code fromSequence} on, until a snapshot was applied. A packet
     * larger than the whole buffer is a loss like any other: buffering starts again after it, so that only a snapshot
     * that holds it recovers the partition (the stream's expected sequence is already past it).
     */
    void bufferPacket(
        final DirectBuffer buffer, final int offset, final int length, final long fromSequence, final long nowNs)
    {
        if (!this.buffer.append(buffer, offset, length, fromSequence))
        {
            counters.onRecoveryBufferOverflow();
            goStale(StaleReason.RECOVERY_BUFFER_OVERFLOW, fromSequence, nowNs);
            if (!this.buffer.append(buffer, offset, length, fromSequence))
            {
                restartBuffering(stream.expectedSequence);
            }
        }
    }

    /**
     * Move the recovery on: subscribe to the snapshot stream without blocking, then poll it.
     *
     * @param nowNs         the time of this poll, for the stale duration reported at the end.
     * @param fragmentLimit most Aeron messages taken from the snapshot stream.
     * @return work done, for an idle strategy.
     */
    int doWork(final long nowNs, final int fragmentLimit)
    {
        this.nowNs = nowNs;
        switch (state)
        {
            case ADD_SUBSCRIPTION:
                state = State.AWAIT_SUBSCRIPTION;
                return pollSources(fragmentLimit) + 1;

            case AWAIT_SUBSCRIPTION:
            {
                final int work = pollSources(fragmentLimit);
                if (State.AWAIT_SUBSCRIPTION == state && anySubscribed())
                {
                    state = State.AWAIT_SNAPSHOT;
                }
                return work;
            }

            case AWAIT_SNAPSHOT:
            case APPLY_SNAPSHOT:
                return pollSources(fragmentLimit);

            default:
                return 0;
        }
    }

    /**
     * Add each side's snapshot subscription without blocking (again, after the driver refused it), and poll those
     * added.
     */
    private int pollSources(final int fragmentLimit)
    {
        int work = 0;
        for (int i = 0; i < sources.length && isRecovering(); i++)
        {
            final SnapshotSource source = sources[i];
            if (null != source.subscription)
            {
                work += source.subscription.poll(source.handler, fragmentLimit);
            }
            else if (Aeron.NULL_VALUE == source.registrationId)
            {
                source.registrationId = aeron.asyncAddSubscription(source.channel, source.streamId);
                work++;
            }
            else
            {
                try
                {
                    source.subscription = aeron.getSubscription(source.registrationId);
                }
                catch (final RuntimeException ex)
                {
                    // The driver refused it (e.g. a bad snapshot channel): count, report, try again later.
                    source.registrationId = Aeron.NULL_VALUE;
                    counters.onSubscriptionError();
                    dispatcher.onListenerError(ex);
                }
            }
        }
        return work;
    }

    private boolean anySubscribed()
    {
        for (final SnapshotSource source : sources)
        {
            if (null != source.subscription)
            {
                return true;
            }
        }
        return false;
    }

    /** Release the snapshot subscription if one is open or being added. */
    void close()
    {
        for (final SnapshotSource source : sources)
        {
            try
            {
                if (null != source.subscription)
                {
                    source.subscription.close();
                }
                else if (Aeron.NULL_VALUE != source.registrationId && !aeron.isClosed())
                {
                    aeron.asyncRemoveSubscription(source.registrationId);
                }
            }
            catch (final RuntimeException ignore)
            {
                // Closing: the client may already be gone.
            }
            source.subscription = null;
            source.registrationId = Aeron.NULL_VALUE;
        }
        state = State.CLOSED;
    }

    /**
     * Process one complete Aeron message received on the partition's snapshot stream (of the first side).
     */
    void onSnapshotMessage(final int sessionId, final DirectBuffer buffer, final int offset, final int length)
    {
        onSnapshotMessage(0, sessionId, buffer, offset, length);
    }

    /**
     * Process one complete Aeron message received on the partition's snapshot stream of side {@code sourceIndex}.
     */
    void onSnapshotMessage(
        final int sourceIndex, final int sessionId, final DirectBuffer buffer, final int offset, final int length)
    {
        counters.onReceived(length);
        counters.onSnapshotPacket();
        final boolean applying = State.APPLY_SNAPSHOT == state && sourceIndex == applyingSource;
        if (PacketValidator.VALID != validator.validate(stream.partition, buffer, offset, length, true))
        {
            counters.onMalformedSnapshot();
            if (applying || State.APPLY_SNAPSHOT != state)
            {
                abandonSnapshot();
            }
            return;
        }
        if (!isRecovering())
        {
            return;
        }

        header.wrap(buffer, offset);
        if (HeartbeatDecoder.TEMPLATE_ID == header.templateId())
        {
            return;
        }
        packetHeader.wrap(buffer, offset + WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
        final long firstSequence = packetHeader.streamSequence();
        final int messageCount = packetHeader.messageCount();
        final long sendingTime = packetHeader.sendingTime();
        final SnapshotSource source = sources[sourceIndex];
        if (!source.joined || sessionId != source.sessionId)
        {
            if (applying)
            {
                abandonSnapshot();
            }
            source.joined = true;
            source.sessionId = sessionId;
            source.expectedSequence = firstSequence;
        }
        if (firstSequence + messageCount <= source.expectedSequence)
        {
            return;
        }
        if (firstSequence != source.expectedSequence)
        {
            // Snapshot content was lost (or overlaps): this attempt cannot be trusted, wait for the next Begin.
            counters.onSnapshotGap();
            if (applying)
            {
                abandonSnapshot();
            }
        }
        source.expectedSequence = firstSequence + messageCount;
        if (State.APPLY_SNAPSHOT == state && sourceIndex != applyingSource)
        {
            return; // another side's snapshot is being applied
        }

        int position = offset + WireFormat.HEADER_LENGTH + header.blockLength();
        for (int i = 0; i < messageCount && isRecovering(); i++)
        {
            header.wrap(buffer, position);
            final int blockLength = header.blockLength();
            final int templateId = header.templateId();
            final int version = header.version();
            onSnapshotStreamMessage(sourceIndex, buffer, position, templateId, blockLength, version, sendingTime);
            position += WireFormat.HEADER_LENGTH + blockLength;
        }
    }

    private void onSnapshotStreamMessage(
        final int sourceIndex,
        final DirectBuffer buffer,
        final int offset,
        final int templateId,
        final int blockLength,
        final int version,
        final long sendingTime)
    {
        final int blockOffset = offset + WireFormat.HEADER_LENGTH;
        if (SnapshotBeginDecoder.TEMPLATE_ID == templateId)
        {
            abandonSnapshot();
            onSnapshotBegin(sourceIndex, snapshotBegin.wrap(buffer, blockOffset, blockLength, version));
            return;
        }
        if (State.APPLY_SNAPSHOT != state)
        {
            return;
        }

        dispatcher.snapshotPacket(stream.partition, sendingTime);
        switch (templateId)
        {
            case SnapshotInstrumentDecoder.TEMPLATE_ID:
            {
                final SnapshotInstrumentDecoder instrument =
                    snapshotInstrument.wrap(buffer, blockOffset, blockLength, version);
                final long instrumentId = instrument.instrumentId();
                final long lastSequence = chainKeyed ? instrument.exchangeSequence() : instrument.lastStreamSequence();
                if (0 != ordersRemaining || instrument.snapshotId() != snapshotId ||
                    instrument.coveredFromInstrumentId() != nextCoveredFrom ||
                    instrumentId < nextCoveredFrom || lastSequence < snapshotBeginSequence)
                {
                    inconsistentSnapshot();
                    return;
                }
                snapshotMessageCount++;
                snapshotInstrumentCount++;
                stream.cover(nextCoveredFrom, instrumentId, lastSequence);
                maxCoveringSequence = Math.max(maxCoveringSequence, lastSequence);
                nextCoveredFrom = instrumentId + 1;
                currentCoveringSequence = lastSequence;
                ordersRemaining = instrument.orderCount();
                instrumentOrderCount = ordersRemaining;
                dispatcher.onSnapshotInstrument(instrument, lastSequence);
                break;
            }

            case SnapshotOrderDecoder.TEMPLATE_ID:
                if (0 == ordersRemaining)
                {
                    inconsistentSnapshot();
                    return;
                }
                ordersRemaining--;
                snapshotMessageCount++;
                snapshotOrderCount++;
                dispatcher.onSnapshotOrder(buffer, offset, blockLength, version, currentCoveringSequence);
                break;

            case SnapshotEndDecoder.TEMPLATE_ID:
                onSnapshotEnd(snapshotEnd.wrap(buffer, blockOffset, blockLength, version));
                break;

            default:
                // A state message, re-sent byte for byte: delivered like the incremental it was.
                // State messages come before the instrument's orders.
                if (ordersRemaining != instrumentOrderCount)
                {
                    inconsistentSnapshot();
                    return;
                }
                snapshotMessageCount++;
                dispatcher.dispatch(buffer, offset, templateId, blockLength, version, currentCoveringSequence);
                break;
        }
    }

    private void onSnapshotBegin(final int sourceIndex, final SnapshotBeginDecoder begin)
    {
        // A pair's snapshots of either side are interchangeable: their state is tagged with the chain's position.
        final long lastSequence = chainKeyed ? begin.exchangeSequence() : begin.lastStreamSequence();
        if (!stream.joined || (!chainKeyed && begin.incrementalSessionId() != stream.sessionId) ||
            lastSequence < requiredSequence - 1 || (chainKeyed && ChainArbiter.UNKNOWN == lastSequence))
        {
            counters.onSnapshotIgnored();
            return;
        }
        state = State.APPLY_SNAPSHOT;
        applyingSource = sourceIndex;
        snapshotId = begin.snapshotId();
        snapshotBeginSequence = lastSequence;
        currentCoveringSequence = lastSequence;
        maxCoveringSequence = lastSequence;
        nextCoveredFrom = 1;
        ordersRemaining = 0;
        instrumentOrderCount = 0;
        snapshotInstrumentCount = 0;
        snapshotOrderCount = 0;
        snapshotMessageCount = 0;
        stream.coveringSequence[0] = lastSequence;
        dispatcher.onSnapshotBegin(stream.partition, snapshotId, lastSequence);
        final long unrecoveredFrom = begin.unrecoveredFromSequence(); // its null value from an older fanout
        snapshotLacksNothing = 0 == unrecoveredFrom;
        if (0 != unrecoveredFrom && SnapshotBeginDecoder.unrecoveredFromSequenceNullValue() != unrecoveredFrom)
        {
            // The state this snapshot holds lacks exchange messages its feed handler declared lost: so will the books.
            dispatcher.onExchangeGap(stream, lastSequence);
        }
    }

    private void onSnapshotEnd(final SnapshotEndDecoder end)
    {
        final long lastSequence = chainKeyed ? end.exchangeSequence() : end.lastStreamSequence();
        if (0 != ordersRemaining || end.snapshotId() != snapshotId ||
            end.coveredFromInstrumentId() != nextCoveredFrom ||
            end.instrumentCount() != snapshotInstrumentCount ||
            end.orderCount() != snapshotOrderCount ||
            end.messageCount() != snapshotMessageCount ||
            lastSequence < snapshotBeginSequence)
        {
            inconsistentSnapshot();
            return;
        }
        stream.cover(nextCoveredFrom, PartitionStream.FILTER_INSTRUMENTS, lastSequence);
        stream.coveringSequenceAbove = lastSequence;
        maxCoveringSequence = Math.max(maxCoveringSequence, lastSequence);
        stream.filterMaxSequence = maxCoveringSequence;
        if (snapshotLacksNothing)
        {
            // The books are now a state that lacks nothing (a fanout that followed rings rebuilt from the
            // exchange's snapshot): what the exchange lost before is no longer missing from them.
            stream.exchangeGap = false;
        }
        state = State.REPLAY;
        counters.onSnapshotApplied();
        dispatcher.onSnapshotEnd(stream.partition, snapshotId, nextCoveredFrom, lastSequence);

        replay();

        state = State.LIVE;
        buffer.reset();
        closeSubscription();
        stream.recoverySnapshotId = snapshotId;
        stream.recoverySnapshotSequence = snapshotBeginSequence;
        stream.coveredThrough = Math.max(stream.coveredThrough, snapshotBeginSequence);
        if (!stream.sourceDown)
        {
            StreamSequencer.recovered(stream, counters, dispatcher, nowNs);
        }
        // else: the books are consistent again, but not good until the source is live (the sequencer reports it)
    }

    private void replay()
    {
        final RecoveryBuffer buffer = this.buffer;
        final int limit = buffer.limit();
        int record = 0;
        while (record < limit)
        {
            final int length = buffer.messageLength(record);
            if (chainKeyed)
            {
                dispatcher.deliverRange(stream, buffer.buffer(), RecoveryBuffer.messageOffset(record),
                    (int)buffer.fromSequence(record), buffer.toIndex(record));
            }
            else
            {
                dispatcher.deliver(
                    stream, buffer.buffer(), RecoveryBuffer.messageOffset(record), buffer.fromSequence(record));
            }
            record = RecoveryBuffer.nextRecord(record, length);
        }
    }

    private void inconsistentSnapshot()
    {
        counters.onMalformedSnapshot();
        abandonSnapshot();
    }

    private void abandonSnapshot()
    {
        if (State.APPLY_SNAPSHOT == state)
        {
            state = State.AWAIT_SNAPSHOT;
            counters.onRecoveryAbandoned();
        }
    }

    private void closeSubscription()
    {
        for (final SnapshotSource source : sources)
        {
            if (Aeron.NULL_VALUE != source.registrationId)
            {
                aeron.asyncRemoveSubscription(source.registrationId);
            }
            source.registrationId = Aeron.NULL_VALUE;
            source.subscription = null;
            source.joined = false;
        }
    }

    /** One side's snapshot stream: its subscription while the partition recovers, and where its stream stands. */
    private static final class SnapshotSource
    {
        final String channel;
        final int streamId;
        final FragmentHandler handler;
        long registrationId = Aeron.NULL_VALUE;
        Subscription subscription;
        boolean joined;
        int sessionId;
        long expectedSequence;

        SnapshotSource(final String channel, final int streamId, final FragmentHandler handler)
        {
            this.channel = channel;
            this.streamId = streamId;
            this.handler = handler;
        }
    }
}
