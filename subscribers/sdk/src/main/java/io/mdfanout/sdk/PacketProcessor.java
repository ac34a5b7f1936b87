package io.mdfanout.sdk;

import io.aeron.Aeron;
import io.aeron.logbuffer.FragmentHandler;
import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.BrokenTradeDecoder;
import io.mdfanout.sbe.CrossTradeDecoder;
import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sbe.HeartbeatDecoder;
import io.mdfanout.sbe.ImbalanceDecoder;
import io.mdfanout.sbe.InstrumentDirectoryDecoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.MwcbDeclineLevelDecoder;
import io.mdfanout.sbe.MwcbStatusDecoder;
import io.mdfanout.sbe.OperationalHaltDecoder;
import io.mdfanout.sbe.OrderCancelDecoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import io.mdfanout.sbe.OrderExecutedDecoder;
import io.mdfanout.sbe.OrderExecutedWithPriceDecoder;
import io.mdfanout.sbe.OrderReplaceDecoder;
import io.mdfanout.sbe.PacketHeaderDecoder;
import io.mdfanout.sbe.RegShoRestrictionDecoder;
import io.mdfanout.sbe.SnapshotBeginDecoder;
import io.mdfanout.sbe.SnapshotEndDecoder;
import io.mdfanout.sbe.SnapshotInstrumentDecoder;
import io.mdfanout.sbe.SnapshotOrderDecoder;
import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sbe.TradeDecoder;
import io.mdfanout.sbe.TradingStatusDecoder;
import io.mdfanout.wire.Partitioning;
import io.mdfanout.wire.PreciseEpochNanoClock;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;

/**
 * Validates, sequences, recovers and dispatches the Aeron messages of a set of partition streams.
 * <p>
 * Each Aeron message is validated as a whole before any of it is delivered, so a listener never
 * sees part of a malformed packet: the packet is counted by reason and dropped, and the stream
 * sequences it carried surface as a gap on the next valid packet. Only headers are read during
 * validation; the decoders wrap the messages during dispatch.
 * <p>
 * Recovery (when enabled), per partition: a late join, a gap, a new publisher session, a lost
 * image or silence make the partition stale. Its incremental packets are then copied into a
 * bounded {@link RecoveryBuffer} instead of being delivered, its snapshot stream is subscribed to
 * (asynchronously), and the first SnapshotBegin of the followed session that is recent enough
 * (lastStreamSequence &gt;= first buffered sequence - 1) is applied. At a complete SnapshotEnd the
 * buffer is replayed through the normal dispatch, each message filtered by the lastStreamSequence
 * that covers its instrument in the snapshot (the filter stays on for live packets until the
 * stream passes the snapshot's highest L), and the partition is live again.
 * <p>
 * Source liveness (recovery on or off): a heartbeat whose source status says the feed does not deliver
 * (feed handler down, stopped, loading, lines silent) makes the partition not good with
 * {@link StaleReason#SOURCE_DOWN}, once per outage. Its stream is intact, so nothing is held back: a
 * heartbeat saying LIVE, or a data packet (only the feed handler writes what packets carry), makes it
 * good again at once, with {@code onRecovered} and snapshot id 0, unless a gap or another stream reason
 * made it stale meanwhile; then the snapshot recovery above ends it, and its {@code onRecovered} waits
 * for the source too. Heartbeats of an older fanout carry no status and change nothing. Nothing allocates in
 * steady state; the recovery buffer and filter array are allocated once, on a partition's first
 * recovery.
 */
final class PacketProcessor
{
    private static final MalformedReason[] REASONS = MalformedReason.values();
    private static final int VALID = -1;

    private final MarketDataListener listener;
    private final SubscriberCounters counters;
    private final ErrorHandler errorHandler;
    private final PartitionStream[] streams;
    private final Aeron aeron;
    private final boolean recoveryEnabled;
    private final int recoveryBufferBytes;
    private final String snapshotChannel;
    private final int snapshotStreamIdBase;
    private long nowNs;
    private final DeliveryLatencyRecorder latencyRecorder;
    private final PreciseEpochNanoClock epochClock = new PreciseEpochNanoClock();

    private final MessageContext context = new MessageContext();
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final PacketHeaderDecoder packetHeader = new PacketHeaderDecoder();
    private final HeartbeatDecoder heartbeat = new HeartbeatDecoder();
    private final GapNoticeDecoder gapNotice = new GapNoticeDecoder();
    private final SystemEventDecoder systemEvent = new SystemEventDecoder();
    private final InstrumentDirectoryDecoder instrumentDirectory = new InstrumentDirectoryDecoder();
    private final TradingStatusDecoder tradingStatus = new TradingStatusDecoder();
    private final RegShoRestrictionDecoder regShoRestriction = new RegShoRestrictionDecoder();
    private final MwcbDeclineLevelDecoder mwcbDeclineLevel = new MwcbDeclineLevelDecoder();
    private final MwcbStatusDecoder mwcbStatus = new MwcbStatusDecoder();
    private final OperationalHaltDecoder operationalHalt = new OperationalHaltDecoder();
    private final AddOrderDecoder addOrder = new AddOrderDecoder();
    private final AddOrderAttributedDecoder addOrderAttributed = new AddOrderAttributedDecoder();
    private final OrderExecutedDecoder orderExecuted = new OrderExecutedDecoder();
    private final OrderExecutedWithPriceDecoder orderExecutedWithPrice = new OrderExecutedWithPriceDecoder();
    private final OrderCancelDecoder orderCancel = new OrderCancelDecoder();
    private final OrderDeleteDecoder orderDelete = new OrderDeleteDecoder();
    private final OrderReplaceDecoder orderReplace = new OrderReplaceDecoder();
    private final TradeDecoder trade = new TradeDecoder();
    private final CrossTradeDecoder crossTrade = new CrossTradeDecoder();
    private final BrokenTradeDecoder brokenTrade = new BrokenTradeDecoder();
    private final ImbalanceDecoder imbalance = new ImbalanceDecoder();
    private final SnapshotBeginDecoder snapshotBegin = new SnapshotBeginDecoder();
    private final SnapshotInstrumentDecoder snapshotInstrument = new SnapshotInstrumentDecoder();
    private final SnapshotOrderDecoder snapshotOrder = new SnapshotOrderDecoder();
    private final SnapshotEndDecoder snapshotEnd = new SnapshotEndDecoder();

    PacketProcessor(
        final int[] partitions,
        final MarketDataListener listener,
        final SubscriberCounters counters,
        final ErrorHandler errorHandler,
        final Aeron aeron,
        final String channel,
        final int streamIdBase,
        final FeedSubscriberOptions options)
    {
        this.listener = listener;
        this.counters = counters;
        this.errorHandler = errorHandler;
        this.latencyRecorder = options.deliveryLatencyRecorder();
        this.aeron = aeron;
        this.recoveryEnabled = options.recoveryEnabled();
        this.recoveryBufferBytes = options.recoveryBufferBytes();
        this.snapshotChannel = options.resolveSnapshotChannel(channel);
        this.snapshotStreamIdBase = options.resolveSnapshotStreamIdBase(streamIdBase);
        this.streams = new PartitionStream[partitions.length];
        for (int slot = 0; slot < partitions.length; slot++)
        {
            streams[slot] = new PartitionStream(partitions[slot]);
        }
    }

    PartitionStream stream(final int slot)
    {
        return streams[slot];
    }

    /** The time, read once per poll, that stamps activity and stale durations. */
    void now(final long nowNs)
    {
        this.nowNs = nowNs;
    }

    /**
     * The next stream sequence expected on the partition in slot {@code slot}, or -1 before the stream was joined.
     */
    long expectedSequence(final int slot)
    {
        return streams[slot].expectedSequence;
    }

    /**
     * Process one complete Aeron message received on the incremental stream of partition slot {@code slot}.
     */
    void onMessage(final int slot, final int sessionId, final DirectBuffer buffer, final int offset, final int length)
    {
        final int reason = validate(streams[slot].partition, buffer, offset, length, false);
        if (VALID != reason)
        {
            counters.onMalformed(REASONS[reason]);
            return;
        }

        final PartitionStream stream = streams[slot];
        if (stream.joined && sessionId != stream.sessionId && stream.isRetired(sessionId))
        {
            counters.onOldSession();
            return;
        }
        onActivity(stream);

        header.wrap(buffer, offset);
        if (HeartbeatDecoder.TEMPLATE_ID == header.templateId())
        {
            heartbeat.wrap(buffer, offset + WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
            onHeartbeat(stream, sessionId);
        }
        else
        {
            packetHeader.wrap(buffer, offset + WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
            onPacket(stream, sessionId, buffer, offset, length);
        }
    }

    private void onActivity(final PartitionStream stream)
    {
        stream.lastActivityNs = nowNs;
        if (stream.silent)
        {
            stream.silent = false;
            try
            {
                listener.onStreamActive(stream.partition);
            }
            catch (final RuntimeException ex)
            {
                onListenerError(ex);
            }
        }
    }

    private void onHeartbeat(final PartitionStream stream, final int sessionId)
    {
        counters.onHeartbeat();
        final int partition = stream.partition;
        final long next = heartbeat.nextStreamSequence();
        final long sendingTime = heartbeat.sendingTime();
        if (!join(stream, sessionId, next) && next > stream.expectedSequence)
        {
            onGap(stream, next);
        }
        onSourceStatus(stream, heartbeat.sourceStatusRaw());

        try
        {
            listener.onHeartbeat(partition, next, sendingTime);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    private void onPacket(
        final PartitionStream stream, final int sessionId, final DirectBuffer buffer, final int offset, final int length)
    {
        counters.onPacket();
        final long firstSequence = packetHeader.streamSequence();
        final int messageCount = packetHeader.messageCount();
        final long endSequence = firstSequence + messageCount;

        join(stream, sessionId, firstSequence);

        final long expected = stream.expectedSequence;
        if (endSequence <= expected)
        {
            counters.onDuplicatePacket(messageCount);
            return;
        }
        if (firstSequence > expected)
        {
            onGap(stream, firstSequence);
        }
        else if (firstSequence < expected)
        {
            counters.onOverlap(expected - firstSequence);
        }
        final long fromSequence = Math.max(firstSequence, expected);
        if (stream.sourceDown)
        {
            // Data flows: the feed handler writes again. Good again now unless a gap above made it stale.
            sourceLive(stream);
        }
        stream.expectedSequence = endSequence;

        if (stream.stale)
        {
            bufferPacket(stream, buffer, offset, length, fromSequence);
        }
        else
        {
            if (null != latencyRecorder)
            {
                latencyRecorder.recordNanos(epochClock.nanoTime() - packetHeader.sendingTime());
            }
            deliver(stream, buffer, offset, fromSequence);
        }
    }

    /**
     * Join on the first packet or heartbeat, and re-join when a new publisher session appears.
     *
     * @return true when the stream was (re-)joined at {@code sequence}.
     */
    private boolean join(final PartitionStream stream, final int sessionId, final long sequence)
    {
        final boolean firstJoin = !stream.joined;
        if (!firstJoin && sessionId == stream.sessionId)
        {
            return false;
        }
        if (!firstJoin)
        {
            stream.retire(stream.sessionId);
        }
        stream.joined = true;
        stream.sessionId = sessionId;
        stream.expectedSequence = sequence;
        try
        {
            listener.onStreamJoined(stream.partition, sequence);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
        if (recoveryEnabled)
        {
            if (!firstJoin)
            {
                // A restarted fanout's state may differ from what we hold, whatever its first sequence.
                goStale(stream, StaleReason.NEW_PUBLICATION, sequence);
            }
            else if (1 != sequence)
            {
                goStale(stream, StaleReason.LATE_JOIN, sequence);
            }
        }
        return true;
    }

    private void onGap(final PartitionStream stream, final long nextSequence)
    {
        final long firstMissing = stream.expectedSequence;
        final long lastMissing = nextSequence - 1;
        counters.onGap(nextSequence - firstMissing);
        stream.expectedSequence = nextSequence;
        try
        {
            listener.onStreamGap(stream.partition, firstMissing, lastMissing);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
        if (recoveryEnabled)
        {
            if (stream.stale)
            {
                restartBuffering(stream, nextSequence);
            }
            else
            {
                goStale(stream, StaleReason.GAP, nextSequence);
            }
        }
    }

    /**
     * Mark a partition stale (when recovery is on and it is live) from the poll loop: silence or a lost image.
     */
    void markStale(final int slot, final StaleReason reason)
    {
        final PartitionStream stream = streams[slot];
        if (recoveryEnabled && stream.joined)
        {
            if (stream.stale)
            {
                restartBuffering(stream, stream.expectedSequence);
            }
            else
            {
                goStale(stream, reason, stream.expectedSequence);
            }
        }
    }

    /** Report a silent stream to the listener. */
    void onSilent(final int slot, final long silentForNanos)
    {
        try
        {
            listener.onStreamSilent(streams[slot].partition, silentForNanos);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    private void goStale(final PartitionStream stream, final StaleReason reason, final long sequence)
    {
        stream.allocateRecovery(recoveryBufferBytes);
        if (!stream.stale)
        {
            if (!stream.sourceDown)
            {
                stream.staleSinceNs = nowNs; // good until now: a partition whose source was down is not good since then
            }
            stream.stale = true;
            stream.recoverySnapshotId = 0;
        }
        restartBuffering(stream, sequence);
        counters.onStale(reason);
        try
        {
            listener.onStale(stream.partition, reason, sequence);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    /** Drop what was buffered; buffering starts again at {@code sequence}; a snapshot being applied is abandoned. */
    private void restartBuffering(final PartitionStream stream, final long sequence)
    {
        stream.buffer.reset();
        stream.requiredSequence = sequence;
        abandonSnapshot(stream);
    }

    private void abandonSnapshot(final PartitionStream stream)
    {
        if (stream.applying)
        {
            stream.applying = false;
            counters.onRecoveryAbandoned();
        }
    }

    private void bufferPacket(
        final PartitionStream stream,
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final long fromSequence)
    {
        if (!stream.buffer.append(buffer, offset, length, fromSequence))
        {
            counters.onRecoveryBufferOverflow();
            goStale(stream, StaleReason.RECOVERY_BUFFER_OVERFLOW, fromSequence);
            stream.buffer.append(buffer, offset, length, fromSequence);
        }
    }

    /** Deliver the messages of a validated incremental packet from {@code fromSequence} on, through the snapshot filter. */
    private void deliver(
        final PartitionStream stream, final DirectBuffer buffer, final int offset, final long fromSequence)
    {
        header.wrap(buffer, offset);
        packetHeader.wrap(buffer, offset + WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
        final long firstSequence = packetHeader.streamSequence();
        final int messageCount = packetHeader.messageCount();
        final long filterMaxSequence = stream.filterMaxSequence;
        context.packet(stream.partition, packetHeader.sendingTime());

        int position = offset + WireFormat.HEADER_LENGTH + header.blockLength();
        long sequence = firstSequence;
        for (int i = 0; i < messageCount; i++)
        {
            final long headerWord = WireFormat.headerWord(buffer, position);
            final int blockLength = WireFormat.blockLengthOf(headerWord);
            final int templateId = WireFormat.templateIdOf(headerWord);
            final int version = WireFormat.versionOf(headerWord);
            if (sequence >= fromSequence)
            {
                if (sequence <= filterMaxSequence &&
                    sequence <= stream.coveringSequence(WireFormat.instrumentId(buffer, position)))
                {
                    counters.onFiltered();
                }
                else
                {
                    dispatch(buffer, position, templateId, blockLength, version, sequence);
                }
            }
            position += WireFormat.HEADER_LENGTH + blockLength;
            sequence++;
        }
    }

    /**
     * Poll the partition's snapshot stream while it is stale, subscribing on demand without
     * blocking, and act on a lost image of the followed session.
     *
     * @return Aeron messages processed.
     */
    int doRecoveryWork(final int slot, final FragmentHandler snapshotHandler, final int fragmentLimit)
    {
        final PartitionStream stream = streams[slot];
        if (stream.takeLostImageOfFollowedSession())
        {
            markStale(slot, StaleReason.LOST_IMAGE);
        }
        if (!stream.stale)
        {
            return 0;
        }

        if (null == stream.snapshotSubscription)
        {
            if (Aeron.NULL_VALUE == stream.snapshotRegistrationId)
            {
                stream.snapshotRegistrationId = aeron.asyncAddSubscription(
                    snapshotChannel, Partitioning.snapshotStreamId(snapshotStreamIdBase, stream.partition));
                return 1;
            }
            try
            {
                stream.snapshotSubscription = aeron.getSubscription(stream.snapshotRegistrationId);
            }
            catch (final RuntimeException ex)
            {
                // The driver refused it (e.g. a bad snapshot channel): count, report, try again later.
                stream.snapshotRegistrationId = Aeron.NULL_VALUE;
                counters.onSubscriptionError();
                onListenerError(ex);
            }
            if (null == stream.snapshotSubscription)
            {
                return 0;
            }
        }
        return stream.snapshotSubscription.poll(snapshotHandler, fragmentLimit);
    }

    private void closeSnapshotSubscription(final PartitionStream stream)
    {
        if (Aeron.NULL_VALUE != stream.snapshotRegistrationId)
        {
            aeron.asyncRemoveSubscription(stream.snapshotRegistrationId);
        }
        stream.snapshotRegistrationId = Aeron.NULL_VALUE;
        stream.snapshotSubscription = null;
        stream.snapshotJoined = false;
    }

    /** Release the snapshot subscriptions still open. */
    void close()
    {
        for (final PartitionStream stream : streams)
        {
            try
            {
                if (null != stream.snapshotSubscription)
                {
                    stream.snapshotSubscription.close();
                }
                else if (Aeron.NULL_VALUE != stream.snapshotRegistrationId && !aeron.isClosed())
                {
                    aeron.asyncRemoveSubscription(stream.snapshotRegistrationId);
                }
            }
            catch (final RuntimeException ignore)
            {
                // Closing: the client may already be gone.
            }
            stream.snapshotSubscription = null;
            stream.snapshotRegistrationId = Aeron.NULL_VALUE;
        }
    }

    /**
     * Process one complete Aeron message received on the snapshot stream of partition slot {@code slot}.
     */
    void onSnapshotMessage(
        final int slot, final int sessionId, final DirectBuffer buffer, final int offset, final int length)
    {
        final PartitionStream stream = streams[slot];
        counters.onSnapshotPacket();
        if (VALID != validate(stream.partition, buffer, offset, length, true))
        {
            counters.onMalformedSnapshot();
            abandonSnapshot(stream);
            return;
        }
        if (!stream.stale)
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
        if (!stream.snapshotJoined || sessionId != stream.snapshotSessionId)
        {
            abandonSnapshot(stream);
            stream.snapshotJoined = true;
            stream.snapshotSessionId = sessionId;
            stream.snapshotExpectedSequence = firstSequence;
        }
        if (firstSequence + messageCount <= stream.snapshotExpectedSequence)
        {
            return;
        }
        if (firstSequence != stream.snapshotExpectedSequence)
        {
            // Snapshot content was lost (or overlaps): this attempt cannot be trusted, wait for the next Begin.
            counters.onSnapshotGap();
            abandonSnapshot(stream);
        }
        stream.snapshotExpectedSequence = firstSequence + messageCount;

        int position = offset + WireFormat.HEADER_LENGTH + header.blockLength();
        for (int i = 0; i < messageCount && stream.stale; i++)
        {
            header.wrap(buffer, position);
            final int blockLength = header.blockLength();
            final int templateId = header.templateId();
            final int version = header.version();
            onSnapshotStreamMessage(stream, buffer, position, templateId, blockLength, version, sendingTime);
            position += WireFormat.HEADER_LENGTH + blockLength;
        }
    }

    private void onSnapshotStreamMessage(
        final PartitionStream stream,
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
            abandonSnapshot(stream);
            onSnapshotBegin(stream, snapshotBegin.wrap(buffer, blockOffset, blockLength, version));
            return;
        }
        if (!stream.applying)
        {
            return;
        }

        context.snapshotPacket(stream.partition, sendingTime);
        switch (templateId)
        {
            case SnapshotInstrumentDecoder.TEMPLATE_ID:
            {
                final SnapshotInstrumentDecoder instrument =
                    snapshotInstrument.wrap(buffer, blockOffset, blockLength, version);
                final long instrumentId = instrument.instrumentId();
                final long lastSequence = instrument.lastStreamSequence();
                if (0 != stream.ordersRemaining || instrument.snapshotId() != stream.snapshotId ||
                    instrument.coveredFromInstrumentId() != stream.nextCoveredFrom ||
                    instrumentId < stream.nextCoveredFrom || lastSequence < stream.snapshotBeginSequence)
                {
                    inconsistentSnapshot(stream);
                    return;
                }
                stream.snapshotMessageCount++;
                stream.snapshotInstrumentCount++;
                stream.cover(stream.nextCoveredFrom, instrumentId, lastSequence);
                stream.maxCoveringSequence = Math.max(stream.maxCoveringSequence, lastSequence);
                stream.nextCoveredFrom = instrumentId + 1;
                stream.currentCoveringSequence = lastSequence;
                stream.ordersRemaining = instrument.orderCount();
                stream.instrumentOrderCount = stream.ordersRemaining;
                context.message(lastSequence, templateId);
                try
                {
                    listener.onSnapshotInstrument(context, instrument);
                }
                catch (final RuntimeException ex)
                {
                    onListenerError(ex);
                }
                break;
            }

            case SnapshotOrderDecoder.TEMPLATE_ID:
                if (0 == stream.ordersRemaining)
                {
                    inconsistentSnapshot(stream);
                    return;
                }
                stream.ordersRemaining--;
                stream.snapshotMessageCount++;
                stream.snapshotOrderCount++;
                context.message(stream.currentCoveringSequence, templateId);
                try
                {
                    listener.onSnapshotOrder(context, snapshotOrder.wrap(buffer, blockOffset, blockLength, version));
                }
                catch (final RuntimeException ex)
                {
                    onListenerError(ex);
                }
                break;

            case SnapshotEndDecoder.TEMPLATE_ID:
                onSnapshotEnd(stream, snapshotEnd.wrap(buffer, blockOffset, blockLength, version));
                break;

            default:
                // A state message, re-sent byte for byte: delivered like the incremental it was.
                // State messages come before the instrument's orders.
                if (stream.ordersRemaining != stream.instrumentOrderCount)
                {
                    inconsistentSnapshot(stream);
                    return;
                }
                stream.snapshotMessageCount++;
                dispatch(buffer, offset, templateId, blockLength, version, stream.currentCoveringSequence);
                break;
        }
    }

    private void onSnapshotBegin(final PartitionStream stream, final SnapshotBeginDecoder begin)
    {
        final long lastSequence = begin.lastStreamSequence();
        if (!stream.joined || begin.incrementalSessionId() != stream.sessionId ||
            lastSequence < stream.requiredSequence - 1)
        {
            counters.onSnapshotIgnored();
            return;
        }
        stream.applying = true;
        stream.snapshotId = begin.snapshotId();
        stream.snapshotBeginSequence = lastSequence;
        stream.currentCoveringSequence = lastSequence;
        stream.maxCoveringSequence = lastSequence;
        stream.nextCoveredFrom = 1;
        stream.ordersRemaining = 0;
        stream.instrumentOrderCount = 0;
        stream.snapshotInstrumentCount = 0;
        stream.snapshotOrderCount = 0;
        stream.snapshotMessageCount = 0;
        stream.coveringSequence[0] = lastSequence;
        try
        {
            listener.onSnapshotBegin(stream.partition, stream.snapshotId, lastSequence);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    private void onSnapshotEnd(final PartitionStream stream, final SnapshotEndDecoder end)
    {
        final long lastSequence = end.lastStreamSequence();
        if (0 != stream.ordersRemaining || end.snapshotId() != stream.snapshotId ||
            end.coveredFromInstrumentId() != stream.nextCoveredFrom ||
            end.instrumentCount() != stream.snapshotInstrumentCount ||
            end.orderCount() != stream.snapshotOrderCount ||
            end.messageCount() != stream.snapshotMessageCount ||
            lastSequence < stream.snapshotBeginSequence)
        {
            inconsistentSnapshot(stream);
            return;
        }
        stream.cover(stream.nextCoveredFrom, PartitionStream.FILTER_INSTRUMENTS, lastSequence);
        stream.coveringSequenceAbove = lastSequence;
        stream.maxCoveringSequence = Math.max(stream.maxCoveringSequence, lastSequence);
        stream.filterMaxSequence = stream.maxCoveringSequence;
        stream.applying = false;
        counters.onSnapshotApplied();

        replay(stream);

        stream.stale = false;
        stream.buffer.reset();
        closeSnapshotSubscription(stream);
        stream.recoverySnapshotId = stream.snapshotId;
        if (!stream.sourceDown)
        {
            recovered(stream);
        }
        // else: the books are consistent again, but not good until the source is live (sourceLive reports it)
    }

    /** The partition is good again: count and tell the listener. */
    private void recovered(final PartitionStream stream)
    {
        final long snapshotId = stream.recoverySnapshotId;
        final long lastStreamSequence = 0 != snapshotId ? stream.snapshotBeginSequence : stream.expectedSequence - 1;
        stream.recoverySnapshotId = 0;
        counters.onRecovered();
        try
        {
            listener.onRecovered(stream.partition, snapshotId, lastStreamSequence, nowNs - stream.staleSinceNs);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    /**
     * What the fanout's heartbeat says of its source: LIVE ends a source outage, a status that says the
     * feed does not deliver starts one; UNKNOWN (nothing said yet), the null value (an older fanout) and a
     * value this build does not know (a newer fanout) change nothing. Read raw: the generated enum lookup
     * throws on an unknown value, and nothing received may make poll() throw.
     */
    private void onSourceStatus(final PartitionStream stream, final short status)
    {
        if (SourceStatus.LIVE.value() == status)
        {
            sourceLive(stream);
        }
        else if (SourceStatus.LINES_SILENT.value() == status || SourceStatus.LOADING.value() == status ||
            SourceStatus.STOPPED.value() == status || SourceStatus.FEED_HANDLER_DOWN.value() == status)
        {
            sourceDown(stream);
        }
        stream.sourceStatus = status >= SourceStatus.UNKNOWN.value() && status <= SourceStatus.FEED_HANDLER_DOWN.value() ?
            SourceStatus.get(status) : SourceStatus.NULL_VAL;
    }

    private void sourceDown(final PartitionStream stream)
    {
        if (stream.sourceDown || !stream.joined)
        {
            return;
        }
        if (!stream.stale)
        {
            stream.staleSinceNs = nowNs;
            stream.recoverySnapshotId = 0;
        }
        stream.sourceDown = true;
        counters.onStale(StaleReason.SOURCE_DOWN);
        try
        {
            listener.onStale(stream.partition, StaleReason.SOURCE_DOWN, stream.expectedSequence);
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    private void sourceLive(final PartitionStream stream)
    {
        if (!stream.sourceDown)
        {
            return;
        }
        stream.sourceDown = false;
        if (!stream.stale)
        {
            recovered(stream); // nothing was lost on the stream: the books are right as they are
        }
    }

    private void inconsistentSnapshot(final PartitionStream stream)
    {
        counters.onMalformedSnapshot();
        abandonSnapshot(stream);
    }

    private void replay(final PartitionStream stream)
    {
        final RecoveryBuffer buffer = stream.buffer;
        final int limit = buffer.limit();
        int record = 0;
        while (record < limit)
        {
            final int length = buffer.messageLength(record);
            deliver(stream, buffer.buffer(), RecoveryBuffer.messageOffset(record), buffer.fromSequence(record));
            record = RecoveryBuffer.nextRecord(record, length);
        }
    }

    private void dispatch(
        final DirectBuffer buffer,
        final int offset,
        final int templateId,
        final int blockLength,
        final int version,
        final long sequence)
    {
        final MessageContext context = this.context;
        final MarketDataListener listener = this.listener;
        final int blockOffset = offset + WireFormat.HEADER_LENGTH;
        context.message(sequence, templateId);
        counters.onMessage();

        try
        {
            listener.onRawMessage(context, buffer, offset, WireFormat.HEADER_LENGTH + blockLength);
            switch (templateId)
            {
                case GapNoticeDecoder.TEMPLATE_ID:
                    listener.onGapNotice(context, gapNotice.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case SystemEventDecoder.TEMPLATE_ID:
                    listener.onSystemEvent(context, systemEvent.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case InstrumentDirectoryDecoder.TEMPLATE_ID:
                    listener.onInstrumentDirectory(
                        context, instrumentDirectory.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case TradingStatusDecoder.TEMPLATE_ID:
                    listener.onTradingStatus(context, tradingStatus.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case RegShoRestrictionDecoder.TEMPLATE_ID:
                    listener.onRegShoRestriction(
                        context, regShoRestriction.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case MwcbDeclineLevelDecoder.TEMPLATE_ID:
                    listener.onMwcbDeclineLevel(
                        context, mwcbDeclineLevel.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case MwcbStatusDecoder.TEMPLATE_ID:
                    listener.onMwcbStatus(context, mwcbStatus.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case OperationalHaltDecoder.TEMPLATE_ID:
                    listener.onOperationalHalt(
                        context, operationalHalt.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case AddOrderDecoder.TEMPLATE_ID:
                    listener.onAddOrder(context, addOrder.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case AddOrderAttributedDecoder.TEMPLATE_ID:
                    listener.onAddOrderAttributed(
                        context, addOrderAttributed.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case OrderExecutedDecoder.TEMPLATE_ID:
                    listener.onOrderExecuted(context, orderExecuted.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case OrderExecutedWithPriceDecoder.TEMPLATE_ID:
                    listener.onOrderExecutedWithPrice(
                        context, orderExecutedWithPrice.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case OrderCancelDecoder.TEMPLATE_ID:
                    listener.onOrderCancel(context, orderCancel.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case OrderDeleteDecoder.TEMPLATE_ID:
                    listener.onOrderDelete(context, orderDelete.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case OrderReplaceDecoder.TEMPLATE_ID:
                    listener.onOrderReplace(context, orderReplace.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case TradeDecoder.TEMPLATE_ID:
                    listener.onTrade(context, trade.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case CrossTradeDecoder.TEMPLATE_ID:
                    listener.onCrossTrade(context, crossTrade.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case BrokenTradeDecoder.TEMPLATE_ID:
                    listener.onBrokenTrade(context, brokenTrade.wrap(buffer, blockOffset, blockLength, version));
                    break;
                case ImbalanceDecoder.TEMPLATE_ID:
                    listener.onImbalance(context, imbalance.wrap(buffer, blockOffset, blockLength, version));
                    break;
                default:
                    // Unreachable: validation admits only normalized templates, all listed above.
                    break;
            }
        }
        catch (final RuntimeException ex)
        {
            onListenerError(ex);
        }
    }

    private void onListenerError(final RuntimeException ex)
    {
        counters.onListenerError();
        try
        {
            errorHandler.onError(ex);
        }
        catch (final RuntimeException ignore)
        {
            // An error handler that throws must not take the poll loop down with it.
        }
    }

    /**
     * Check every SBE header in the Aeron message against the wire contract: an incremental packet
     * carries normalized messages, a snapshot packet snapshot and state messages.
     *
     * @return {@link #VALID} or the ordinal of the {@link MalformedReason}.
     */
    private int validate(
        final int partition, final DirectBuffer buffer, final int offset, final int length, final boolean snapshot)
    {
        if (length < WireFormat.HEADER_LENGTH)
        {
            return MalformedReason.TRUNCATED.ordinal();
        }
        final MessageHeaderDecoder header = this.header;
        header.wrap(buffer, offset);
        if (WireFormat.SCHEMA_ID != header.schemaId())
        {
            return MalformedReason.BAD_SCHEMA_ID.ordinal();
        }

        final int templateId = header.templateId();
        final int blockLength = header.blockLength();
        if (PacketHeaderDecoder.TEMPLATE_ID != templateId && HeartbeatDecoder.TEMPLATE_ID != templateId)
        {
            return WireFormat.knownBlockLength(templateId) > 0 ?
                MalformedReason.NOT_A_PACKET.ordinal() : MalformedReason.UNKNOWN_TEMPLATE.ordinal();
        }
        // A heartbeat of an older fanout is shorter and complete: its version says so (WireFormat.minimumBlockLength).
        if (blockLength < WireFormat.minimumBlockLength(templateId, header.version()))
        {
            return MalformedReason.SHORT_BLOCK_LENGTH.ordinal();
        }
        final int end = offset + length;
        int position = offset + WireFormat.HEADER_LENGTH + blockLength;
        if (position > end)
        {
            return MalformedReason.TRUNCATED.ordinal();
        }

        if (HeartbeatDecoder.TEMPLATE_ID == templateId)
        {
            heartbeat.wrap(buffer, offset + WireFormat.HEADER_LENGTH, blockLength, header.version());
            if (heartbeat.partitionId() != partition)
            {
                return MalformedReason.WRONG_PARTITION.ordinal();
            }
            return position == end ? VALID : MalformedReason.BAD_MESSAGE_COUNT.ordinal();
        }

        packetHeader.wrap(buffer, offset + WireFormat.HEADER_LENGTH, blockLength, header.version());
        if (packetHeader.partitionId() != partition)
        {
            return MalformedReason.WRONG_PARTITION.ordinal();
        }
        final int messageCount = packetHeader.messageCount();
        if (0 == messageCount)
        {
            return MalformedReason.BAD_MESSAGE_COUNT.ordinal();
        }

        for (int i = 0; i < messageCount; i++)
        {
            final int remaining = end - position;
            if (0 == remaining)
            {
                return MalformedReason.BAD_MESSAGE_COUNT.ordinal();
            }
            if (remaining < WireFormat.HEADER_LENGTH)
            {
                return MalformedReason.TRUNCATED.ordinal();
            }
            // The whole header in one read, and the template's admission and block length in one table
            // load: this loop runs for every message, before delivery walks the packet again.
            final long headerWord = WireFormat.headerWord(buffer, position);
            if (WireFormat.SCHEMA_ID != WireFormat.schemaIdOf(headerWord))
            {
                return MalformedReason.BAD_SCHEMA_ID.ordinal();
            }
            final int messageTemplateId = WireFormat.templateIdOf(headerWord);
            final int schemaBlockLength = snapshot ?
                WireFormat.snapshotStreamBlockLength(messageTemplateId) :
                WireFormat.normalizedBlockLength(messageTemplateId);
            if (0 == schemaBlockLength)
            {
                return MalformedReason.UNKNOWN_TEMPLATE.ordinal();
            }
            final int messageBlockLength = WireFormat.blockLengthOf(headerWord);
            if (messageBlockLength < schemaBlockLength)
            {
                return MalformedReason.SHORT_BLOCK_LENGTH.ordinal();
            }
            if (WireFormat.HEADER_LENGTH + messageBlockLength > remaining)
            {
                return MalformedReason.TRUNCATED.ordinal();
            }
            position += WireFormat.HEADER_LENGTH + messageBlockLength;
        }

        return position == end ? VALID : MalformedReason.BAD_MESSAGE_COUNT.ordinal();
    }
}
