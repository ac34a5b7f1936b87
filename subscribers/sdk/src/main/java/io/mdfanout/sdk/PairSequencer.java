package io.mdfanout.sdk;

import io.mdfanout.sbe.HeartbeatDecoder;
import io.mdfanout.sbe.PacketHeaderDecoder;
import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.wire.MarketSession;
import io.mdfanout.wire.PreciseEpochNanoClock;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;

/**
 * Sequences the incremental streams of a feed's two sides (a pair: two independent chains publishing the same
 * partitions on channels of their own), as {@link StreamSequencer} does for one fanout: per partition, each side's
 * packets are validated, then arbitrated by the partition's chain of exchange sequences ({@link ChainArbiter}), so a
 * message reaches the {@link MessageDispatcher} once, from the side that had it first, whatever either side went
 * through (a restart, a GLIMPSE start, a re-request on one side only). Every position here is a chain position: the
 * exchange's identity of a message, which both sides share and their snapshots are tagged with; the partition's
 * {@link PartitionStream#expectedSequence} is the chain delivered so far plus one.
 * <p>
 * A side is refused, loudly (the error handler, once per change, and a counter per packet), while it disagrees: a
 * schema version without the chain (before 4), another partition count, or another exchange session than the one the
 * partition follows; or a copy of a delivered message whose bytes differ from it (the sides disagree on what the
 * exchange sent: that side is refused until the next trading day, counted per side as a mismatch). A side that still
 * sends the day the exchange ended after the other side started the next is
 * behind, not wrong: its packets are dropped as old until it starts the new day too.
 * <p>
 * A partition is stale only when the pair cannot serve it: a span no side had within the arbitration wait (a gap:
 * recovery from a snapshot of either side), both sides silent, or every side's source down. One side's silence, loss,
 * new publication or lost image is not staleness: it is counted per side. Nothing allocates once warm; polling
 * thread only.
 */
final class PairSequencer
{
    /** The schema version from which packets and heartbeats carry the chain. */
    static final int CHAIN_SCHEMA_VERSION = 4;

    private final PartitionStream[] streams;
    private final MessageDispatcher dispatcher;
    private final SubscriberCounters counters;
    private final ErrorHandler errorHandler;
    private final DeliveryLatencyRecorder latencyRecorder;
    private final ChainArbiter[] arbiters;
    private final Side[][] sides;
    private final int sideCount;
    private final PreciseEpochNanoClock epochClock = new PreciseEpochNanoClock();
    private final IncrementalDecoder decoder;
    private final PacketValidator validator;
    private final HeartbeatDecoder heartbeat;
    /** Wraps the packet of an arbitrated delivery for its sending time (the decoder's is the packet just received). */
    private final PacketHeaderDecoder packetHeader = new PacketHeaderDecoder();
    /** Per partition slot: messages delivered (or buffered by a recovery) so far, from any side. */
    private final long[] delivered;
    /** Per partition slot: replaying from the archive (no silence, no delivery latency, a replay's wait). */
    private final boolean[] replaying;
    private final long arbitrationWaitNs;
    /** How many partitions the feed has: as configured, or as the first side announced it; 0 while unknown. */
    private int feedPartitionCount;
    private long nowNs;

    /**
     * @param streams            the partitions, in slot order, each with its chain-keyed recovery or none.
     * @param sideCount          the sides of the feed (2 for a pair).
     * @param partitionCount     how many partitions the feed has, 0 when the subscriber was not told.
     * @param arbitrationWaitNs  how long a message one side lacks waits for the other.
     * @param holdCapacityBytes  per side and partition, the most bytes held while waiting.
     * @param validator          checks each message before anything else.
     * @param dispatcher         delivers to the listener.
     * @param counters           where to count.
     * @param errorHandler       where a side's disagreement is reported.
     * @param latencyRecorder    records the fanout-send-to-delivery time of each delivered packet; null for none.
     */
    PairSequencer(
        final PartitionStream[] streams,
        final int sideCount,
        final int partitionCount,
        final long arbitrationWaitNs,
        final int holdCapacityBytes,
        final PacketValidator validator,
        final MessageDispatcher dispatcher,
        final SubscriberCounters counters,
        final ErrorHandler errorHandler,
        final DeliveryLatencyRecorder latencyRecorder)
    {
        this.streams = streams;
        this.sideCount = sideCount;
        this.feedPartitionCount = partitionCount;
        this.validator = validator;
        this.decoder = new IncrementalDecoder(validator, counters);
        this.heartbeat = decoder.heartbeat;
        this.dispatcher = dispatcher;
        this.counters = counters;
        this.errorHandler = errorHandler;
        this.latencyRecorder = latencyRecorder;
        this.arbitrationWaitNs = arbitrationWaitNs;
        this.delivered = new long[streams.length];
        this.replaying = new boolean[streams.length];
        this.arbiters = new ChainArbiter[streams.length];
        this.sides = new Side[streams.length][sideCount];
        for (int slot = 0; slot < streams.length; slot++)
        {
            arbiters[slot] = new ChainArbiter(
                sideCount, arbitrationWaitNs, holdCapacityBytes, new Output(slot, streams[slot]));
            for (int side = 0; side < sideCount; side++)
            {
                sides[slot][side] = new Side();
            }
        }
    }

    PartitionStream stream(final int slot)
    {
        return streams[slot];
    }

    int slotCount()
    {
        return streams.length;
    }

    /** The time, read once per poll, that stamps activity, waits and stale durations. */
    void now(final long nowNs)
    {
        this.nowNs = nowNs;
    }

    /**
     * Process one complete Aeron message received on side {@code side}'s incremental stream of partition slot
     * {@code slot}.
     */
    void onMessage(
        final int slot, final int side, final DirectBuffer buffer, final int offset, final int length)
    {
        final PartitionStream stream = streams[slot];
        if (!decoder.decode(stream.partition, buffer, offset, length))
        {
            return;
        }
        final Side s = sides[slot][side];
        if (decoder.header.version() < CHAIN_SCHEMA_VERSION)
        {
            refuse(stream, side, s, Side.REFUSED_SCHEMA);
            return;
        }
        onActivity(slot, stream, s);
        if (decoder.isHeartbeat())
        {
            onHeartbeat(slot, side, stream, s);
        }
        else
        {
            onPacket(slot, side, stream, s, buffer, offset, length);
        }
    }

    /**
     * End the arbitration waits that ran out, check each side's liveness, and publish the sides' gauges.
     *
     * @param slot            the partition slot.
     * @param silentTimeoutNs time without a packet or heartbeat after which a side is silent.
     * @return a bit per side that went silent now (its subscription may be stuck: the caller re-subscribes it).
     */
    int doWork(final int slot, final long silentTimeoutNs)
    {
        arbiters[slot].poll(nowNs);
        final PartitionStream stream = streams[slot];
        int wentSilent = 0;
        boolean anyHeard = false;
        boolean anyServing = false;
        for (int side = 0; side < sideCount; side++)
        {
            final Side s = sides[slot][side];
            if (s.heard)
            {
                anyHeard = true;
                if (!s.silent && !replaying[slot] && nowNs - s.lastActivityNs >= silentTimeoutNs)
                {
                    s.silent = true;
                    wentSilent |= 1 << side;
                }
                anyServing |= !s.silent && Side.NOT_REFUSED == s.refused;
            }
        }
        if (0 != wentSilent)
        {
            updateSource(stream, slot);
        }
        if (anyHeard && !anyServing && stream.joined && !stream.silent && !replaying[slot] &&
            nowNs - stream.lastActivityNs >= silentTimeoutNs)
        {
            // No side the pair may take delivers: it cannot serve the partition.
            stream.silent = true;
            counters.onSilent();
            dispatcher.onStreamSilent(stream.partition, nowNs - stream.lastActivityNs);
            stream.markStale(StaleReason.SILENT, nowNs);
        }
        return wentSilent;
    }

    /** Publish the per-side gauges (silent partitions, how far behind): once per poll, over every partition. */
    void publishSideGauges()
    {
        for (int side = 0; side < sideCount; side++)
        {
            int silent = 0;
            long behind = 0;
            for (int slot = 0; slot < streams.length; slot++)
            {
                final Side s = sides[slot][side];
                if (s.silent)
                {
                    silent++;
                }
                final ChainArbiter arbiter = arbiters[slot];
                final long sideChain = arbiter.sideChain(side);
                if (ChainArbiter.UNKNOWN != arbiter.chain() && ChainArbiter.UNKNOWN != sideChain)
                {
                    behind = Math.max(behind, arbiter.chain() - sideChain);
                }
            }
            counters.sideSilentPartitions(side, silent);
            counters.sideBehind(side, behind);
        }
    }

    /** @return whether side {@code side} of the partition in slot {@code slot} is silent now. */
    boolean isSideSilent(final int slot, final int side)
    {
        return sides[slot][side].silent;
    }

    /** @return whether side {@code side} of the partition in slot {@code slot} is refused now (it disagrees). */
    boolean isSideRefused(final int slot, final int side)
    {
        return Side.NOT_REFUSED != sides[slot][side].refused;
    }

    /**
     * The partition in slot {@code slot} replays from the archive ({@link PairReplay}), or no longer does: while it
     * does, what a side's replay lacks waits for the other side's replay to reach it (up to {@code replayWaitNs}),
     * silence is not watched (the live streams are not followed yet) and no delivery latency is recorded.
     *
     * @param slot         the partition slot.
     * @param replaying    whether it replays.
     * @param replayWaitNs the arbitration wait while replaying.
     */
    void replaying(final int slot, final boolean replaying, final long replayWaitNs)
    {
        this.replaying[slot] = replaying;
        arbiters[slot].waitNs(replaying ? Math.max(arbitrationWaitNs, replayWaitNs) : arbitrationWaitNs);
        if (!replaying)
        {
            final PartitionStream stream = streams[slot];
            stream.lastActivityNs = nowNs;
            for (int side = 0; side < sideCount; side++)
            {
                sides[slot][side].lastActivityNs = nowNs; // silence is watched from now
            }
        }
    }

    /** @return messages delivered on the partition in slot {@code slot} so far. */
    long delivered(final int slot)
    {
        return delivered[slot];
    }

    /** @return packets of side {@code side} waiting in the arbitration of slot {@code slot}. */
    int heldPackets(final int slot, final int side)
    {
        return arbiters[slot].heldPackets(side);
    }

    /** @return whether side {@code side} of slot {@code slot} waits for the other side (a packet or a missed span). */
    boolean isHolding(final int slot, final int side)
    {
        return arbiters[slot].isHolding(side);
    }

    /** @return whether anything of slot {@code slot} waits for another side. */
    boolean isWaiting(final int slot)
    {
        return arbiters[slot].isWaiting();
    }

    /** No side can give what slot {@code slot} waits for: decide the earliest wait now ({@link ChainArbiter}). */
    boolean endEarliestWait(final int slot)
    {
        return arbiters[slot].endEarliestWait(nowNs);
    }

    /**
     * Where a live packet a replay holds links in the chain ({@link ChainArbiter#linkOf}: before its first message of
     * the chain when it does not say).
     *
     * @return the link; {@link Long#MAX_VALUE} for a packet that is not valid (counted when it reaches the sequencer)
     * or holds no message of the chain: it never decides a merge.
     */
    long liveLink(final int slot, final DirectBuffer buffer, final int offset, final int length)
    {
        if (PacketValidator.VALID != validator.validate(streams[slot].partition, buffer, offset, length, false) ||
            WireFormat.versionOf(WireFormat.headerWord(buffer, offset)) < CHAIN_SCHEMA_VERSION)
        {
            return Long.MAX_VALUE;
        }
        final long link = arbiters[slot].linkOf(buffer, offset);
        return link < 0 ? Long.MAX_VALUE : link;
    }

    /** A side's live packet held by a replay that merges: the side is heard, not silent. */
    void onHeld(final int slot, final int side)
    {
        onActivity(slot, streams[slot], sides[slot][side]);
    }

    /** @return the chain position delivered on the partition in slot {@code slot}; -1 before it joined. */
    long chain(final int slot)
    {
        return arbiters[slot].chain();
    }

    private void onActivity(final int slot, final PartitionStream stream, final Side s)
    {
        s.heard = true;
        s.lastActivityNs = nowNs;
        if (s.silent)
        {
            s.silent = false;
            updateSource(stream, slot);
        }
        if (Side.NOT_REFUSED == s.refused)
        {
            // A refused side's packets serve nothing: they do not keep the partition alive.
            stream.lastActivityNs = nowNs;
            if (stream.silent)
            {
                stream.silent = false;
                dispatcher.onStreamActive(stream.partition);
            }
        }
    }

    private void onHeartbeat(final int slot, final int side, final PartitionStream stream, final Side s)
    {
        counters.onHeartbeat();
        final int partitionCount = heartbeat.partitionCount();
        if (0 != partitionCount && HeartbeatDecoder.partitionCountNullValue() != partitionCount)
        {
            if (0 == feedPartitionCount)
            {
                feedPartitionCount = partitionCount;
            }
            if (partitionCount != feedPartitionCount)
            {
                s.announcedPartitions = partitionCount;
                refuse(stream, side, s, Side.REFUSED_PARTITIONS);
                return;
            }
        }
        final int offset = heartbeat.offset() + HeartbeatDecoder.exchangeSessionEncodingOffset();
        final DirectBuffer buffer = heartbeat.buffer();
        final long sessionHigh = buffer.getLong(offset, WireFormat.BYTE_ORDER);
        final long sessionLow = buffer.getShort(offset + Long.BYTES, WireFormat.BYTE_ORDER);
        if (!isBlank(sessionHigh, sessionLow) && !onExchangeSession(slot, side, stream, s, sessionHigh, sessionLow))
        {
            return;
        }
        accept(stream, side, s);

        final short status = heartbeat.sourceStatusRaw();
        s.sourceDown = SourceStatus.LINES_SILENT.value() == status || SourceStatus.LOADING.value() == status ||
            SourceStatus.STOPPED.value() == status || SourceStatus.FEED_HANDLER_DOWN.value() == status;
        s.sourceStatus = status >= SourceStatus.UNKNOWN.value() && status <= SourceStatus.FEED_HANDLER_DOWN.value() ?
            SourceStatus.get(status) : SourceStatus.NULL_VAL;
        if (s.day == stream.pairDay)
        {
            arbiters[slot].onHeartbeat(side, heartbeat.lastExchangeSequence(), nowNs);
        }
        updateSource(stream, slot);
        dispatcher.onHeartbeat(stream.partition, stream.expectedSequence, heartbeat.sendingTime());
    }

    /**
     * A side's heartbeat names the exchange session it carries: the partition's (or the first known), the next one
     * after the day ended (the new day starts), or the one the partition just left (the side is behind); any other
     * is a disagreement.
     *
     * @return whether the side's messages are to be taken.
     */
    private boolean onExchangeSession(
        final int slot,
        final int side,
        final PartitionStream stream,
        final Side s,
        final long sessionHigh,
        final long sessionLow)
    {
        if (stream.pairSessionKnown && sessionHigh == stream.pairSessionHigh && sessionLow == stream.pairSessionLow)
        {
            s.day = stream.pairDay;
            return true;
        }
        if (0 != stream.pairDay && sessionHigh == stream.previousSessionHigh && sessionLow == stream.previousSessionLow)
        {
            s.day = stream.pairDay - 1; // the side still sends the day the partition left: behind, not wrong
            return true;
        }
        if (!stream.pairSessionKnown)
        {
            // The first session a heartbeat names: the subscriber's first, or the new day's after a side's packet
            // started it (before any heartbeat said which session it is).
            stream.pairSessionKnown = true;
            stream.pairSessionHigh = sessionHigh;
            stream.pairSessionLow = sessionLow;
            s.day = stream.pairDay;
            return true;
        }
        if (MarketSession.ENDED == stream.marketSession)
        {
            newDay(slot, stream);
            stream.pairSessionKnown = true;
            stream.pairSessionHigh = sessionHigh;
            stream.pairSessionLow = sessionLow;
            s.day = stream.pairDay;
            return true;
        }
        refuse(stream, side, s, Side.REFUSED_SESSION);
        return false;
    }

    private void onPacket(
        final int slot,
        final int side,
        final PartitionStream stream,
        final Side s,
        final DirectBuffer buffer,
        final int offset,
        final int length)
    {
        counters.onPacket();
        if (Side.NOT_REFUSED != s.refused && Side.REFUSED_SCHEMA != s.refused)
        {
            counters.onSideRefused(side); // refused until its heartbeat agrees again
            return;
        }
        accept(stream, side, s);
        final long previous = decoder.packetHeader.previousExchangeSequence();
        if (s.day != stream.pairDay)
        {
            if (0 != previous)
            {
                counters.onOldSession(); // the day the partition left
                return;
            }
            s.day = stream.pairDay; // the side starts the new day too
        }
        else if (0 == previous && MarketSession.ENDED == stream.marketSession)
        {
            newDay(slot, stream);
            s.day = stream.pairDay;
        }
        if (s.sourceDown)
        {
            s.sourceDown = false; // data flows: the side's feed handler writes again
            updateSource(stream, slot);
        }
        arbiters[slot].onPacket(side, buffer, offset, length, nowNs);
    }

    /**
     * The exchange ended the day and a side starts the next session's chain from 0: everything of the old day is void,
     * nothing of the new one is missing; the other side follows when it starts the new day too.
     */
    private void newDay(final int slot, final PartitionStream stream)
    {
        arbiters[slot].reset();
        for (int side = 0; side < sideCount; side++)
        {
            final Side s = sides[slot][side];
            if (Side.REFUSED_MISMATCH == s.refused)
            {
                s.refused = Side.NOT_REFUSED;
                errorHandler.onError(new IllegalStateException("side " + SubscriberCounters.SIDE_NAMES[side] +
                    " of partition " + stream.partition + ": a new trading day, its messages are taken again"));
            }
        }
        stream.pairDay++;
        stream.previousSessionHigh = stream.pairSessionHigh;
        stream.previousSessionLow = stream.pairSessionLow;
        // The new day's session is the next a heartbeat names (a side's packet may start the day before any does).
        stream.pairSessionKnown = false;
        stream.expectedSequence = PartitionStream.NOT_JOINED;
        stream.marketSession = MarketSession.UNKNOWN;
        stream.filterMaxSequence = 0;
        stream.coveredThrough = 0;
        stream.exchangeGap = false;
        stream.joined = false;
        counters.onNewDay();
        dispatcher.onNewDay(stream.partition);
        final PartitionRecovery recovery = stream.recovery;
        if (null != recovery && recovery.isRecovering())
        {
            recovery.endWithNewStream();
            if (!stream.sourceDown)
            {
                StreamSequencer.recovered(stream, counters, dispatcher, nowNs);
            }
        }
    }

    private void refuse(final PartitionStream stream, final int side, final Side s, final int why)
    {
        counters.onSideRefused(side);
        if (why != s.refused && Side.REFUSED_MISMATCH != s.refused) // a mismatch holds until the next trading day
        {
            s.refused = why;
            errorHandler.onError(new IllegalStateException("side " + SubscriberCounters.SIDE_NAMES[side] +
                " of partition " + stream.partition + " refused: " + refusal(why, s) +
                "; its messages are dropped while it disagrees (docs/SDK.md, pairs)"));
        }
    }

    private String refusal(final int why, final Side s)
    {
        switch (why)
        {
            case Side.REFUSED_SCHEMA:
                return "it publishes a schema version before " + CHAIN_SCHEMA_VERSION +
                    ", without the chain of exchange sequences a pair is arbitrated by (docs/UPGRADING.md)";
            case Side.REFUSED_PARTITIONS:
                return "it announces " + s.announcedPartitions + " partitions, the feed has " + feedPartitionCount;
            case Side.REFUSED_MISMATCH:
                return "its copy of the message at chain position " + s.mismatchChain + " differs from the one the " +
                    "other side delivered, byte for byte: the sides disagree on what the exchange sent, and which is " +
                    "right is unknown; out until the next trading day";
            default:
                return "it carries another exchange session than the partition follows";
        }
    }

    private void accept(final PartitionStream stream, final int side, final Side s)
    {
        if (Side.NOT_REFUSED != s.refused && Side.REFUSED_MISMATCH != s.refused)
        {
            s.refused = Side.NOT_REFUSED;
            errorHandler.onError(new IllegalStateException("side " + SubscriberCounters.SIDE_NAMES[side] +
                " of partition " + stream.partition + " agrees again: its messages are taken"));
        }
    }

    /**
     * The partition's source is down when no side can deliver: every side heard from is silent, refused or says its
     * feed handler does not deliver. With every side silent, silence reports it instead.
     */
    private void updateSource(final PartitionStream stream, final int slot)
    {
        boolean anyUp = false;
        boolean anyAudible = false;
        SourceStatus status = SourceStatus.NULL_VAL;
        for (int side = 0; side < sideCount; side++)
        {
            final Side s = sides[slot][side];
            if (!s.heard || s.silent)
            {
                continue;
            }
            anyAudible = true;
            if (SourceStatus.NULL_VAL == status || SourceStatus.LIVE == s.sourceStatus)
            {
                status = s.sourceStatus;
            }
            if (Side.NOT_REFUSED == s.refused && !s.sourceDown)
            {
                anyUp = true;
            }
        }
        stream.sourceStatus = status;
        if (anyUp)
        {
            StreamSequencer.sourceLive(stream, counters, dispatcher, nowNs);
        }
        else if (anyAudible)
        {
            StreamSequencer.sourceDown(stream, counters, dispatcher, nowNs);
        }
    }

    private static boolean isBlank(final long sessionHigh, final long sessionLow)
    {
        return (0 == sessionHigh && 0 == sessionLow) ||
            (0x2020_2020_2020_2020L == sessionHigh && 0x2020 == (sessionLow & 0xFFFF));
    }

    /** What the arbitration of one partition decides, applied to the partition. */
    private final class Output implements ChainArbiter.Output
    {
        private final int slot;
        private final PartitionStream stream;

        Output(final int slot, final PartitionStream stream)
        {
            this.slot = slot;
            this.stream = stream;
        }

        public void onMismatch(final int side, final long chain)
        {
            final Side s = sides[slot][side];
            counters.onSideMismatch(side);
            s.mismatchChain = chain;
            refuse(stream, side, s, Side.REFUSED_MISMATCH);
            updateSource(stream, slot);
        }

        public void onJoin(final int side, final long chain, final boolean sessionStart)
        {
            final PartitionStream stream = this.stream;
            stream.joined = true;
            stream.expectedSequence = chain + 1;
            dispatcher.onStreamJoined(stream.partition, chain + 1);
            if (!sessionStart && null != stream.recovery)
            {
                stream.recovery.goStale(StaleReason.LATE_JOIN, chain + 1, nowNs);
            }
        }

        public void onMessages(
            final int side,
            final DirectBuffer buffer,
            final int offset,
            final int length,
            final int fromIndex,
            final int toIndex,
            final long chainAfter)
        {
            final PartitionStream stream = this.stream;
            counters.onSideMessages(side, toIndex - fromIndex);
            delivered[slot] += toIndex - fromIndex;
            if (stream.isRecovering())
            {
                stream.recovery.bufferRange(buffer, offset, length, fromIndex, toIndex, stream.expectedSequence, nowNs);
            }
            else
            {
                if (null != latencyRecorder && !replaying[slot])
                {
                    final long word = WireFormat.headerWord(buffer, offset);
                    packetHeader.wrap(buffer, offset + WireFormat.HEADER_LENGTH, WireFormat.blockLengthOf(word),
                        WireFormat.versionOf(word));
                    latencyRecorder.recordNanos(epochClock.nanoTime() - packetHeader.sendingTime());
                }
                dispatcher.deliverRange(stream, buffer, offset, fromIndex, toIndex);
            }
            stream.expectedSequence = chainAfter + 1;
        }

        public void onGap(final long afterChain, final long throughChain)
        {
            final PartitionStream stream = this.stream;
            final long firstMissing = stream.firstUncovered(afterChain + 1);
            stream.expectedSequence = throughChain + 1;
            if (firstMissing > throughChain)
            {
                // The last snapshot applied holds all of it (this subscriber still catches up a backlog older than
                // the snapshot): nothing is missing from the books.
                counters.onCoveredLoss(throughChain - afterChain);
                return;
            }
            counters.onCoveredLoss(firstMissing - afterChain - 1);
            counters.onGap(throughChain - firstMissing + 1);
            dispatcher.onStreamGap(stream.partition, firstMissing, throughChain);
            final PartitionRecovery recovery = stream.recovery;
            if (null != recovery)
            {
                if (recovery.isRecovering())
                {
                    recovery.restartBuffering(throughChain + 1);
                }
                else
                {
                    recovery.goStale(StaleReason.GAP, throughChain + 1, nowNs);
                }
            }
        }

        public void onDuplicates(final int side, final int count)
        {
            counters.onSideDuplicates(side, count);
        }
    }

    /** Where one side of one partition stands. */
    private static final class Side
    {
        static final int NOT_REFUSED = 0;
        static final int REFUSED_SCHEMA = 1;
        static final int REFUSED_PARTITIONS = 2;
        static final int REFUSED_SESSION = 3;
        /** Its copy of a message differed from the delivered one: out until the next trading day. */
        static final int REFUSED_MISMATCH = 4;

        boolean heard;
        boolean silent;
        long lastActivityNs;
        boolean sourceDown;
        SourceStatus sourceStatus = SourceStatus.NULL_VAL;
        int refused = NOT_REFUSED;
        int announcedPartitions;
        /** The chain position of the message whose copy differed. */
        long mismatchChain;
        /** The trading day of the partition the side is on ({@link PartitionStream#pairDay}). */
        long day;
    }
}
