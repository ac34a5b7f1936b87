package io.mdfanout.sdk;

import io.mdfanout.sbe.HeartbeatDecoder;
import io.mdfanout.sbe.PacketHeaderDecoder;
import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.wire.MarketSession;
import io.mdfanout.wire.PreciseEpochNanoClock;
import org.agrona.DirectBuffer;

/**
 * Sequences the incremental streams of a set of partitions: each Aeron message is validated as a whole
 * ({@link PacketValidator}) before any of it is delivered, so a listener never sees part of a malformed
 * packet: the packet is counted by reason and dropped, and the stream sequences it carried surface as a
 * gap on the next valid packet. Then join (first packet or heartbeat, a new publisher session), gaps,
 * duplicates and overlaps, and delivery through the {@link MessageDispatcher}.
 * <p>
 * With a {@link PartitionRecovery} on a partition, a late join, a gap, a new publisher session, a lost image
 * or silence make it stale, and its incrementals go to the recovery instead of the listener until a
 * snapshot was applied (the recovery's states say how far it is). Without one (recovery off), a gap is
 * only reported.
 * <p>
 * Source liveness (recovery on or off): a heartbeat whose source status says the feed does not deliver
 * (feed handler down, stopped, loading, lines silent) makes the partition not good with
 * {@link StaleReason#SOURCE_DOWN}, once per outage. Its stream is intact, so nothing is held back: a
 * heartbeat saying LIVE, or a data packet (only the feed handler writes what packets carry), makes it
 * good again at once, with {@code onRecovered} and snapshot id 0, unless a gap or another stream reason
 * made it stale meanwhile; then the snapshot recovery ends it, and its {@code onRecovered} waits for the
 * source too. Heartbeats of an older fanout carry no status and change nothing. Nothing allocates.
 */
final class StreamSequencer
{
    private final PartitionStream[] streams;
    private final MessageDispatcher dispatcher;
    private final SubscriberCounters counters;
    private final DeliveryLatencyRecorder latencyRecorder;
    private final PreciseEpochNanoClock epochClock = new PreciseEpochNanoClock();
    private final IncrementalDecoder decoder;
    private final PacketHeaderDecoder packetHeader;
    private final HeartbeatDecoder heartbeat;
    private long nowNs;

    /**
     * @param streams         the partitions, in slot order; each with its recovery, or none when recovery is off.
     * @param validator       checks each message before anything else.
     * @param dispatcher      delivers to the listener.
     * @param counters        where to count.
     * @param latencyRecorder records the fanout-send-to-delivery time of each live packet; null for none.
     */
    StreamSequencer(
        final PartitionStream[] streams,
        final PacketValidator validator,
        final MessageDispatcher dispatcher,
        final SubscriberCounters counters,
        final DeliveryLatencyRecorder latencyRecorder)
    {
        this.streams = streams;
        this.decoder = new IncrementalDecoder(validator, counters);
        this.packetHeader = decoder.packetHeader;
        this.heartbeat = decoder.heartbeat;
        this.dispatcher = dispatcher;
        this.counters = counters;
        this.latencyRecorder = latencyRecorder;
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
        final PartitionStream stream = streams[slot];
        if (!decoder.decode(stream.partition, buffer, offset, length))
        {
            return;
        }
        if (stream.joined && sessionId != stream.sessionId && stream.isRetired(sessionId))
        {
            counters.onOldSession();
            return;
        }
        onActivity(stream);
        if (decoder.isHeartbeat())
        {
            onHeartbeat(stream, sessionId);
        }
        else
        {
            onPacket(stream, sessionId, buffer, offset, length);
        }
    }

    /**
     * Mark a partition stale (when recovery is on and it is live) from the poll loop: silence or a lost image.
     */
    void markStale(final int slot, final StaleReason reason)
    {
        streams[slot].markStale(reason, nowNs);
    }

    /** Report a silent stream to the listener. */
    void onSilent(final int slot, final long silentForNanos)
    {
        dispatcher.onStreamSilent(streams[slot].partition, silentForNanos);
    }

    private void onActivity(final PartitionStream stream)
    {
        stream.lastActivityNs = nowNs;
        if (stream.silent)
        {
            stream.silent = false;
            dispatcher.onStreamActive(stream.partition);
        }
    }

    private void onHeartbeat(final PartitionStream stream, final int sessionId)
    {
        counters.onHeartbeat();
        final long next = heartbeat.nextStreamSequence();
        final long sendingTime = heartbeat.sendingTime();
        if (!join(stream, sessionId, next) && next > stream.expectedSequence)
        {
            onGap(stream, next);
        }
        onSourceStatus(stream, heartbeat.sourceStatusRaw());
        dispatcher.onHeartbeat(stream.partition, next, sendingTime);
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

        if (stream.isRecovering())
        {
            stream.recovery.bufferPacket(buffer, offset, length, fromSequence, nowNs);
        }
        else
        {
            if (null != latencyRecorder && null == stream.replay)
            {
                latencyRecorder.recordNanos(epochClock.nanoTime() - packetHeader.sendingTime());
            }
            dispatcher.deliver(stream, buffer, offset, fromSequence);
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
        // The exchange ended the day on this stream and a new one starts at its first message: the feed handler
        // began the next session's rings and the fanout publishes them from their start. Nothing of the new stream
        // is missing and everything of the old one is void: no recovery is needed (a stream that did not end, or
        // does not start at 1, is a restarted fanout's, whose state may differ: recovered as below).
        final boolean nextDay = !firstJoin && 1 == sequence && MarketSession.ENDED == stream.marketSession;
        stream.joined = true;
        stream.sessionId = sessionId;
        stream.expectedSequence = sequence;
        stream.coveredThrough = 0; // another stream's sequences (or the next day's): no snapshot of them yet
        if (nextDay)
        {
            stream.marketSession = MarketSession.UNKNOWN;
            stream.filterMaxSequence = 0;
            stream.exchangeGap = false; // the new day's state starts from nothing: nothing of it is lost
            counters.onNewDay();
            dispatcher.onNewDay(stream.partition);
        }
        dispatcher.onStreamJoined(stream.partition, sequence);
        final PartitionRecovery recovery = stream.recovery;
        if (nextDay)
        {
            if (null != recovery && recovery.isRecovering())
            {
                recovery.endWithNewStream();
                if (!stream.sourceDown)
                {
                    recovered(stream, counters, dispatcher, nowNs);
                }
            }
        }
        else if (null != recovery)
        {
            if (!firstJoin)
            {
                // A restarted fanout's state may differ from what we hold, whatever its first sequence.
                recovery.goStale(StaleReason.NEW_PUBLICATION, sequence, nowNs);
            }
            else if (1 != sequence)
            {
                recovery.goStale(StaleReason.LATE_JOIN, sequence, nowNs);
            }
        }
        return true;
    }

    private void onGap(final PartitionStream stream, final long nextSequence)
    {
        final long firstMissing = stream.firstUncovered(stream.expectedSequence);
        final long lastMissing = nextSequence - 1;
        if (firstMissing > lastMissing)
        {
            // The last snapshot applied holds all of it: nothing is missing from the books.
            counters.onCoveredLoss(nextSequence - stream.expectedSequence);
            stream.expectedSequence = nextSequence;
            return;
        }
        counters.onCoveredLoss(firstMissing - stream.expectedSequence);
        counters.onGap(nextSequence - firstMissing);
        stream.expectedSequence = nextSequence;
        dispatcher.onStreamGap(stream.partition, firstMissing, lastMissing);
        final PartitionRecovery recovery = stream.recovery;
        if (null != recovery)
        {
            if (recovery.isRecovering())
            {
                recovery.restartBuffering(nextSequence);
            }
            else
            {
                recovery.goStale(StaleReason.GAP, nextSequence, nowNs);
            }
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
        sourceDown(stream, counters, dispatcher, nowNs);
    }

    /**
     * The partition's source does not deliver: stale SOURCE_DOWN, once per outage, while joined. For one fanout and for
     * a pair alike.
     */
    static void sourceDown(
        final PartitionStream stream,
        final SubscriberCounters counters,
        final MessageDispatcher dispatcher,
        final long nowNs)
    {
        if (stream.sourceDown || !stream.joined)
        {
            return;
        }
        if (!stream.isRecovering())
        {
            stream.staleSinceNs = nowNs;
            stream.recoverySnapshotId = 0;
        }
        stream.sourceDown = true;
        counters.onStale(StaleReason.SOURCE_DOWN);
        dispatcher.onStale(stream.partition, StaleReason.SOURCE_DOWN, stream.expectedSequence);
    }

    private void sourceLive(final PartitionStream stream)
    {
        sourceLive(stream, counters, dispatcher, nowNs);
    }

    /**
     * The partition's source delivers again: good again at once unless it recovers meanwhile (nothing was lost on the
     * stream: the books are right). For one fanout and for a pair alike.
     */
    static void sourceLive(
        final PartitionStream stream,
        final SubscriberCounters counters,
        final MessageDispatcher dispatcher,
        final long nowNs)
    {
        if (!stream.sourceDown)
        {
            return;
        }
        stream.sourceDown = false;
        if (!stream.isRecovering())
        {
            recovered(stream, counters, dispatcher, nowNs);
        }
    }

    /**
     * The partition is good again: count, and tell the listener which snapshot made it so (0 for none: its
     * source was down, its stream intact).
     */
    static void recovered(
        final PartitionStream stream,
        final SubscriberCounters counters,
        final MessageDispatcher dispatcher,
        final long nowNs)
    {
        final long snapshotId = stream.recoverySnapshotId;
        final long lastStreamSequence = 0 != snapshotId ? stream.recoverySnapshotSequence : stream.expectedSequence - 1;
        stream.recoverySnapshotId = 0;
        counters.onRecovered();
        dispatcher.onRecovered(stream.partition, snapshotId, lastStreamSequence, nowNs - stream.staleSinceNs);
    }
}
