package io.mdfanout.sdk;

import io.aeron.Aeron;
import io.aeron.ChannelUri;
import io.aeron.Image;
import io.aeron.Subscription;
import io.aeron.archive.client.AeronArchive;
import io.aeron.logbuffer.ControlledFragmentHandler;
import io.aeron.logbuffer.Header;
import io.mdfanout.sbe.HeartbeatDecoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.PacketHeaderDecoder;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One partition started from a point of a recorded session: its recordings are replayed from the archive, in
 * order, through the same sequencer as the live stream (so gaps, books and callbacks are those of a subscriber
 * that ran since then); once the replay is within {@link #LIVE_ADD_THRESHOLD} bytes of what the archive has
 * recorded, the live stream is subscribed too and its packets are held while the replay catches up to the first
 * of them; then the held packets are delivered (the sequencer drops what the replay already delivered) and the
 * partition follows the live stream: no gap, no duplicate ({@link MarketDataListener#onReplayLive}). Merging on
 * stream sequences rather than Aeron positions (as Aeron's {@code ReplayMerge} does) also merges across a fanout
 * restart, whose new publication starts a new recording.
 * <p>
 * Replay only (a past session), a hole in the recordings is a stream gap and the replay goes on. Merging into the
 * live stream, what the archive cannot give makes the partition join the live stream at once, and the live path
 * reports it as it would for any subscriber: a hole in the recordings or a replay that cannot keep up shows as a stream gap
 * (then a snapshot recovery), an unreachable archive or a session it does not hold as a late join. The replay
 * states are driven by {@link #doWork} from the subscriber's poll.
 * <p>
 * For a pair, each side's recordings replay through a replay of their own, into the pair's arbitration as that side
 * ({@link PairSequencer}), so what one side's recordings lack the other's fill; {@link PairReplay} coordinates the two.
 * Positions are then chain positions: a side holds its live stream until the pair's chain reaches it, and a side whose
 * replay is over ({@link State#AWAIT_LIVE}) waits for that, or for no side to replay any more.
 */
final class PartitionReplay implements AutoCloseable
{
    /** Where a replaying partition stands. */
    enum State
    {
        /** Connecting to the archive and finding the session's recordings. */
        CONNECT,
        /** Replaying recordings; the live stream is not subscribed yet. */
        REPLAY,
        /** Replaying the last stretch while the live stream is held, until the replay reaches it. */
        MERGE,
        /** Following the live stream; the replay is closed. */
        LIVE,
        /**
         * A side of a pair whose replay is over (its recordings ended, failed, or the live stream outran it): its live
         * stream is held until the pair's chain reaches it, or until no side replays ({@link PairReplay}).
         */
        AWAIT_LIVE,
        /** Replay only: the end of what the archive holds was delivered. */
        ENDED
    }

    /** How close (bytes) to the archive's recorded position the replay gets before the live stream is subscribed. */
    static final long LIVE_ADD_THRESHOLD = 256 * 1024;
    /** How often the archive's recorded position is asked while the replay catches up. */
    static final long POSITION_CHECK_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(20);
    /** How long a replay may go without delivering before the partition gives up on it and joins the live stream. */
    static final long REPLAY_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);
    /** A pair's side whose replay runs ahead: packets it may have waiting in the arbitration before it pauses. */
    static final int PAIR_HOLD_PACKETS = 256;

    private final int slot;
    private final int partition;
    private final int streamId;
    private final PartitionStream stream;
    private final StreamSequencer sequencer;
    /** Replaying a side of a pair: its recordings feed the arbitration as that side; null for a single fanout. */
    private final PairSequencer pair;
    private final int side;
    private final MessageDispatcher dispatcher;
    private final SubscriberCounters counters;
    private final ArchiveReplayClient client;
    private final Aeron aeron;
    private final String replayChannel;
    private final int replayStreamId;
    private final boolean toLive;
    private final boolean originalPace;
    private final int bufferBytes;
    private final ErrorHandler errorHandler;
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final PacketHeaderDecoder packetHeader = new PacketHeaderDecoder();
    private final HeartbeatDecoder heartbeat = new HeartbeatDecoder();
    private final ControlledFragmentHandler replayHandler = this::onReplayFragment;

    private State state = State.CONNECT;
    private Subscription replaySubscription;
    private String resolvedReplayChannel;
    private List<ArchiveReplayClient.Recording> recordings;
    private int nextRecording;
    private ArchiveReplayClient.Recording current;
    private long replaySessionId = Aeron.NULL_VALUE;
    private Image image;
    private RecoveryBuffer liveBuffer;
    private int liveSessionId;
    private long replayedMessages;
    private long nowNs;
    private long nextPositionCheckNs;
    private long lastProgressNs;
    private long paceBaseSendingTime = -1;
    private long paceBaseNs;
    private String holeReason;
    private boolean failed;
    private boolean merged;
    /** A later recording of one fanout started: its first packet or heartbeat tells whether it continues the stream. */
    private boolean checkContinuation;

    PartitionReplay(
        final int slot,
        final int streamId,
        final PartitionStream stream,
        final StreamSequencer sequencer,
        final MessageDispatcher dispatcher,
        final SubscriberCounters counters,
        final ArchiveReplayClient client,
        final Aeron aeron,
        final FeedSubscriber.Context ctx)
    {
        this(slot, 0, streamId, ctx.replayStreamId() + slot, stream, sequencer, null, dispatcher, counters, client,
            aeron, ctx);
        stream.replay = this;
    }

    /**
     * One side of a pair's partition: its recordings replay into the arbitration as side {@code side}.
     *
     * @param replayStreamId where the archive sends this side's replay (one per side and partition).
     */
    PartitionReplay(
        final int slot,
        final int side,
        final int streamId,
        final int replayStreamId,
        final PartitionStream stream,
        final PairSequencer pair,
        final MessageDispatcher dispatcher,
        final SubscriberCounters counters,
        final ArchiveReplayClient client,
        final Aeron aeron,
        final FeedSubscriber.Context ctx)
    {
        this(slot, side, streamId, replayStreamId, stream, null, pair, dispatcher, counters, client, aeron, ctx);
    }

    private PartitionReplay(
        final int slot,
        final int side,
        final int streamId,
        final int replayStreamId,
        final PartitionStream stream,
        final StreamSequencer sequencer,
        final PairSequencer pair,
        final MessageDispatcher dispatcher,
        final SubscriberCounters counters,
        final ArchiveReplayClient client,
        final Aeron aeron,
        final FeedSubscriber.Context ctx)
    {
        this.slot = slot;
        this.side = side;
        this.partition = stream.partition;
        this.streamId = streamId;
        this.stream = stream;
        this.sequencer = sequencer;
        this.pair = pair;
        this.dispatcher = dispatcher;
        this.counters = counters;
        this.client = client;
        this.aeron = aeron;
        this.replayChannel = ctx.replayChannel();
        this.replayStreamId = replayStreamId;
        this.toLive = ctx.replayToLive();
        this.originalPace = ctx.replayOriginalPace();
        this.bufferBytes = ctx.recoveryBufferBytes();
        this.errorHandler = ctx.errorHandler();
        stream.primeUntil = ctx.replayFrom();
    }

    State state()
    {
        return state;
    }

    /** @return true while the live stream must not be subscribed (connecting, replaying, or replay-only). */
    boolean blocksLive()
    {
        return State.CONNECT == state || State.REPLAY == state || State.ENDED == state;
    }

    /** @return true while live packets go to this replay (held) instead of the sequencer. */
    boolean capturesLive()
    {
        return State.MERGE == state || State.AWAIT_LIVE == state;
    }

    /** @return true while the archive's replay runs (or is being set up): it may still deliver. */
    boolean isReplaying()
    {
        return State.CONNECT == state || State.REPLAY == state || State.MERGE == state;
    }

    /** @return true once this replay went live by reaching its live stream (not by giving up on the replay). */
    boolean merged()
    {
        return merged;
    }

    /** @return messages this replay delivered. */
    long replayedMessages()
    {
        return replayedMessages;
    }

    /** A pair's side whose replay is no longer needed (another side went live): its live stream is held from now. */
    void awaitLive()
    {
        if (isReplaying())
        {
            state = State.AWAIT_LIVE;
            closeReplay();
        }
    }

    /** A pair's side that waits for its live stream: it follows the live stream now, with what it held. */
    void goLive()
    {
        if (State.LIVE != state && State.ENDED != state)
        {
            switchToLive(false);
        }
    }

    int doWork(final long nowNs, final int fragmentLimit)
    {
        this.nowNs = nowNs;
        switch (state)
        {
            case CONNECT:
                return connect();
            case REPLAY:
            case MERGE:
                return replay(fragmentLimit);
            case AWAIT_LIVE:
                return tryMerge() ? 1 : 0;
            default:
                return 0;
        }
    }

    private int connect()
    {
        final AeronArchive archive = client.poll();
        if (null == archive)
        {
            if (null != client.failure())
            {
                fallBackToLive("the archive cannot be reached: " + client.failure().getMessage());
                return 1;
            }
            return 0;
        }
        try
        {
            if (null == replaySubscription)
            {
                replaySubscription = aeron.addSubscription(replayChannel, replayStreamId);
                lastProgressNs = nowNs;
            }
            if (null == resolvedReplayChannel)
            {
                final ChannelUri uri = ChannelUri.parse(replayChannel);
                resolvedReplayChannel = "aeron:ipc".equals(replayChannel) || !uri.containsKey("endpoint") ||
                    !uri.get("endpoint").endsWith(":0") ? replayChannel :
                    replaySubscription.tryResolveChannelEndpointPort();
                if (null == resolvedReplayChannel)
                {
                    return timedOut("the replay channel's port was not resolved") ? 1 : 0;
                }
            }
            recordings = client.recordings(streamId, side, -1);
            if (recordings.isEmpty())
            {
                fallBackToLive("the archive holds no recording of " + (null == client.session(streamId) ?
                    "any session" : "session " + client.session(streamId)) + " for stream " + streamId +
                    (null == pair ? "" : " of side " + SubscriberCounters.SIDE_NAMES[side]));
                return 1;
            }
            startNextRecording();
            return 1;
        }
        catch (final RuntimeException ex)
        {
            fallBackToLive("the archive failed: " + ex.getMessage());
            return 1;
        }
    }

    private void startNextRecording()
    {
        current = recordings.get(nextRecording++);
        final AeronArchive archive = client.archive();
        final long length;
        if (!current.isActive())
        {
            length = current.stopPosition() - current.startPosition();
        }
        else if (toLive)
        {
            length = Long.MAX_VALUE; // follow the recording as it grows, until the merge
        }
        else
        {
            // Replay only: what the archive holds now, then the end.
            final long recorded = archive.getRecordingPosition(current.recordingId());
            length = AeronArchive.NULL_POSITION == recorded ?
                Math.max(0, archive.getStopPosition(current.recordingId()) - current.startPosition()) :
                recorded - current.startPosition();
        }
        image = null;
        if (0 == length)
        {
            onRecordingEnd();
            return;
        }
        replaySessionId = archive.startReplay(
            current.recordingId(), current.startPosition(), length, resolvedReplayChannel, replayStreamId);
        if (null == pair)
        {
            if (!stream.joined)
            {
                // The replay is the stream from its first message: joined at 1, the state before the start point primed.
                stream.joined = true;
                stream.expectedSequence = 1;
                dispatcher.onStreamJoined(partition, 1);
                stream.sessionId = current.sessionId();
            }
            else
            {
                checkContinuation = true; // a restarted fanout's recording: does it continue the stream?
            }
        }
        // A pair's arbitration joins the partition at the first replayed packet: at the session's start when its chain
        // starts from 0, else as a late join.
        lastProgressNs = nowNs;
        state = State.CONNECT == state ? State.REPLAY : state;
    }

    private int replay(final int fragmentLimit)
    {
        if (null == image)
        {
            image = replaySubscription.imageBySessionId((int)replaySessionId);
            if (null == image)
            {
                return timedOut("the archive's replay of recording " + current.recordingId() + " did not arrive") ? 1 : 0;
            }
        }
        int fragments = 0;
        try
        {
            fragments = image.controlledPoll(replayHandler, fragmentLimit);
            if (null != holeReason)
            {
                final String reason = holeReason;
                holeReason = null;
                fallBackToLive(reason);
                return 1;
            }
            if (fragments > 0)
            {
                lastProgressNs = nowNs;
            }
            if (0 == fragments && (image.isEndOfStream() || image.isClosed()))
            {
                onRecordingEnd();
                return 1;
            }
            if (current.isActive() && nowNs >= nextPositionCheckNs && (0 == fragments || State.REPLAY == state))
            {
                nextPositionCheckNs = nowNs + POSITION_CHECK_INTERVAL_NS;
                final long recorded = client.archive().getRecordingPosition(current.recordingId());
                if (0 == fragments && (AeronArchive.NULL_POSITION == recorded || image.position() >= recorded) &&
                    !client.recordings(streamId, side, current.recordingId()).isEmpty())
                {
                    // A newer recording of the session: this one's publication was replaced (a fanout restart) and
                    // its image waits for Aeron's liveness timeout to stop; what it holds was replayed.
                    onRecordingEnd();
                    return 1;
                }
                if (State.REPLAY == state && toLive && AeronArchive.NULL_POSITION != recorded &&
                    recorded - image.position() <= LIVE_ADD_THRESHOLD &&
                    client.recordings(streamId, side, current.recordingId()).isEmpty())
                {
                    state = State.MERGE; // the subscriber subscribes to the live stream now
                }
            }
            if (State.MERGE == state)
            {
                tryMerge();
            }
            if ((State.REPLAY == state || State.MERGE == state) && 0 == fragments && !originalPace &&
                (null == pair || 0 == pair.heldPackets(slot, side)) && timedOut("the replay stopped delivering"))
            {
                return 1;
            }
        }
        catch (final RuntimeException ex)
        {
            fallBackToLive("the replay failed: " + ex.getMessage());
            return 1;
        }
        return fragments;
    }

    private void onRecordingEnd()
    {
        closeReplay();
        final List<ArchiveReplayClient.Recording> more = client.recordings(streamId, side, current.recordingId());
        if (!more.isEmpty())
        {
            recordings = more;
            nextRecording = 0;
            startNextRecording();
        }
        else if (!toLive)
        {
            state = State.ENDED;
            if (null == pair)
            {
                dispatcher.onReplayEnd(partition, stream.expectedSequence); // a pair's: once every side ended
            }
        }
        else if (null != pair)
        {
            state = State.AWAIT_LIVE; // the other side may still replay what this one lacks
            closeReplay();
        }
        else
        {
            // Nothing more recorded: the live stream continues from here, or shows the gap since.
            switchToLive(State.MERGE == state);
        }
    }

    private ControlledFragmentHandler.Action onReplayFragment(
        final DirectBuffer buffer, final int offset, final int length, final Header aeronHeader)
    {
        if (null != pair && pair.heldPackets(slot, side) >= PAIR_HOLD_PACKETS)
        {
            return ControlledFragmentHandler.Action.ABORT; // ahead of the other side's replay: let it catch up
        }
        if (length < WireFormat.HEADER_LENGTH)
        {
            sequence(buffer, offset, length); // counted as malformed there
            return ControlledFragmentHandler.Action.CONTINUE;
        }
        header.wrap(buffer, offset);
        final long firstSequence;
        final int messageCount;
        if (PacketHeaderDecoder.TEMPLATE_ID == header.templateId())
        {
            packetHeader.wrap(buffer, offset + WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
            firstSequence = packetHeader.streamSequence();
            messageCount = packetHeader.messageCount();
            if (originalPace)
            {
                final long sendingTime = packetHeader.sendingTime();
                if (paceBaseSendingTime < 0)
                {
                    paceBaseSendingTime = sendingTime;
                    paceBaseNs = nowNs;
                }
                if (sendingTime - paceBaseSendingTime > nowNs - paceBaseNs)
                {
                    return ControlledFragmentHandler.Action.ABORT;
                }
            }
        }
        else if (HeartbeatDecoder.TEMPLATE_ID == header.templateId())
        {
            heartbeat.wrap(buffer, offset + WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
            firstSequence = heartbeat.nextStreamSequence();
            messageCount = 0;
        }
        else
        {
            sequence(buffer, offset, length);
            return ControlledFragmentHandler.Action.CONTINUE;
        }
        if (null != pair)
        {
            // What this side's recordings lack waits in the arbitration for the other side's replay.
            final long before = pair.delivered(slot);
            pair.onMessage(slot, side, buffer, offset, length);
            final long delivered = pair.delivered(slot) - before;
            if (delivered > 0)
            {
                replayedMessages += delivered;
                counters.onReplayed(delivered);
            }
            return ControlledFragmentHandler.Action.CONTINUE;
        }
        final long expected = stream.expectedSequence;
        if (checkContinuation)
        {
            checkContinuation = false;
            if (firstSequence < expected)
            {
                // A fanout that started again without its state (a new pod, its /dev/shm empty) begins a new stream
                // whose sequences say nothing of the old one's: never taken for its continuation (its messages would
                // be dropped as duplicates, silently).
                final String reason = "recording " + current.recordingId() + " starts the stream again at stream " +
                    "sequence " + firstSequence + ", before " + expected + " where the replay stands (its fanout started " +
                    "again without its state)";
                if (toLive)
                {
                    holeReason = reason; // the live stream is that new publication: recovered from a snapshot
                    return ControlledFragmentHandler.Action.ABORT;
                }
                errorHandler.onError(new IllegalStateException("replay of partition " + partition + ": " + reason +
                    ": replayed as a new stream, joined at " + firstSequence));
                failed = true;
                sequencer.onMessage(slot, current.sessionId(), buffer, offset, length); // the sequencer joins it
                return ControlledFragmentHandler.Action.CONTINUE;
            }
            stream.sessionId = current.sessionId(); // the same stream, in a new publication
        }
        if (firstSequence > expected && toLive)
        {
            holeReason = "the archive did not record stream sequences " + expected + ".." + (firstSequence - 1) +
                " of recording " + current.recordingId();
            return ControlledFragmentHandler.Action.ABORT;
        }
        sequencer.onMessage(slot, stream.sessionId, buffer, offset, length);
        final long delivered = Math.max(0, firstSequence + messageCount - expected);
        if (delivered > 0)
        {
            replayedMessages += delivered;
            counters.onReplayed(delivered);
        }
        return ControlledFragmentHandler.Action.CONTINUE;
    }

    /** A replayed message the replay does not look into: to the sequencer, which checks and counts it. */
    private void sequence(final DirectBuffer buffer, final int offset, final int length)
    {
        if (null == pair)
        {
            sequencer.onMessage(slot, stream.sessionId, buffer, offset, length);
        }
        else
        {
            pair.onMessage(slot, side, buffer, offset, length);
        }
    }

    /** A live packet while merging: held until the replay reaches it, or delivered at once when it already has. */
    void onLive(final int sessionId, final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < WireFormat.HEADER_LENGTH)
        {
            return;
        }
        header.wrap(buffer, offset);
        if (null != pair)
        {
            onPairLive(buffer, offset, length);
            return;
        }
        if (HeartbeatDecoder.TEMPLATE_ID == header.templateId())
        {
            // An idle live stream: once the replay has delivered everything it announced, the partition is live.
            heartbeat.wrap(buffer, offset + WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
            if ((null == liveBuffer || liveBuffer.isEmpty()) && heartbeat.nextStreamSequence() <= stream.expectedSequence)
            {
                liveSessionId = sessionId;
                switchToLive(true);
                sequencer.onMessage(slot, sessionId, buffer, offset, length);
            }
            return;
        }
        if (PacketHeaderDecoder.TEMPLATE_ID != header.templateId())
        {
            return;
        }
        packetHeader.wrap(buffer, offset + WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
        final long firstSequence = packetHeader.streamSequence();
        if (null == liveBuffer)
        {
            liveBuffer = new RecoveryBuffer(bufferBytes);
        }
        if (liveBuffer.isEmpty())
        {
            liveSessionId = sessionId;
            if (firstSequence <= stream.expectedSequence)
            {
                switchToLive(true);
                sequencer.onMessage(slot, sessionId, buffer, offset, length);
                return;
            }
        }
        if (!liveBuffer.append(buffer, offset, length, firstSequence))
        {
            counters.onRecoveryBufferOverflow();
            errorHandler.onError(new IllegalStateException("replay of partition " + partition + ": the live stream " +
                "outran the replay (" + bufferBytes + " bytes held): joining the live stream, the gap is reported"));
            switchToLive(false);
            sequencer.onMessage(slot, sessionId, buffer, offset, length);
        }
    }

    /**
     * A pair's side: a live packet is held, keyed by where it links in the chain, until the pair's chain (from either
     * side's replay) reaches it; a heartbeat whose chain the pair has delivered takes the side live at once.
     */
    private void onPairLive(final DirectBuffer buffer, final int offset, final int length)
    {
        pair.onHeld(slot, side);
        final long chain = pair.chain(slot);
        if (HeartbeatDecoder.TEMPLATE_ID == header.templateId())
        {
            heartbeat.wrap(buffer, offset + WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
            final long sideChain = header.version() >= PairSequencer.CHAIN_SCHEMA_VERSION ?
                heartbeat.lastExchangeSequence() : ChainArbiter.UNKNOWN;
            if ((null == liveBuffer || liveBuffer.isEmpty()) && ChainArbiter.UNKNOWN != chain &&
                ChainArbiter.UNKNOWN != sideChain && sideChain <= chain)
            {
                switchToLive(true);
                pair.onMessage(slot, side, buffer, offset, length);
            }
            return;
        }
        if (PacketHeaderDecoder.TEMPLATE_ID != header.templateId())
        {
            return;
        }
        final long link = pair.liveLink(slot, buffer, offset, length);
        if (null == liveBuffer)
        {
            liveBuffer = new RecoveryBuffer(bufferBytes);
        }
        if (Long.MAX_VALUE == link && liveBuffer.isEmpty())
        {
            // Nothing of the chain (a GLIMPSE start's state, which the arbitration drops anyway) or not a valid
            // packet: it cannot place the live stream, and held first it would keep the side from ever merging.
            return;
        }
        if (liveBuffer.isEmpty() && ChainArbiter.UNKNOWN != chain && link <= chain)
        {
            switchToLive(true);
            pair.onMessage(slot, side, buffer, offset, length);
            return;
        }
        if (!liveBuffer.append(buffer, offset, length, link))
        {
            counters.onRecoveryBufferOverflow();
            errorHandler.onError(new IllegalStateException("replay of partition " + partition + " side " +
                SubscriberCounters.SIDE_NAMES[side] + ": the live stream outran the replay (" + bufferBytes +
                " bytes held): the side follows the live stream, what no side has is a gap"));
            switchToLive(false);
            pair.onMessage(slot, side, buffer, offset, length);
        }
    }

    private boolean tryMerge()
    {
        final long reached = null == pair ? stream.expectedSequence : pair.chain(slot);
        if (null != liveBuffer && !liveBuffer.isEmpty() && (null == pair || ChainArbiter.UNKNOWN != reached) &&
            liveBuffer.fromSequence(0) <= reached)
        {
            switchToLive(true);
            return true;
        }
        return false;
    }

    private void switchToLive(final boolean merged)
    {
        state = State.LIVE;
        this.merged = merged;
        closeReplay();
        if (null == pair)
        {
            stream.replay = null;
            if (merged)
            {
                counters.onReplaySwitch();
                dispatcher.onReplayLive(partition, stream.expectedSequence, replayedMessages);
            }
        }
        if (null != liveBuffer && !liveBuffer.isEmpty())
        {
            // Held under the live publication's session: the recording's when the archive recorded it, else a new
            // publication the sequencer recovers from (its state may differ from what the replay built).
            final RecoveryBuffer held = liveBuffer;
            for (int record = 0, limit = held.limit(); record < limit; )
            {
                final int messageLength = held.messageLength(record);
                if (null == pair)
                {
                    sequencer.onMessage(
                        slot, liveSessionId, held.buffer(), RecoveryBuffer.messageOffset(record), messageLength);
                }
                else
                {
                    pair.onMessage(slot, side, held.buffer(), RecoveryBuffer.messageOffset(record), messageLength);
                }
                record = RecoveryBuffer.nextRecord(record, messageLength);
            }
            held.reset();
        }
        liveBuffer = null;
    }

    private void fallBackToLive(final String reason)
    {
        if (null != pair)
        {
            // One side of a pair: the other side's replay may still give what this one cannot (PairReplay decides).
            final String what = "replay of partition " + partition + " side " + SubscriberCounters.SIDE_NAMES[side] +
                ": " + reason;
            errorHandler.onError(new IllegalStateException(toLive ?
                what + ": its live stream waits for the pair's chain (what no side has is a gap)" : what));
            failed = !toLive;
            state = toLive ? State.AWAIT_LIVE : State.ENDED;
            closeReplay();
            return;
        }
        stream.primeUntil = null;
        if (!toLive)
        {
            // Replay only: nothing live to join. The replay ends, failed, and says why.
            errorHandler.onError(new IllegalStateException("replay of partition " + partition + ": " + reason));
            failed = true;
            state = State.ENDED;
            closeReplay();
            dispatcher.onReplayEnd(partition, stream.expectedSequence);
            return;
        }
        errorHandler.onError(new IllegalStateException("replay of partition " + partition + ": " + reason +
            ": joining the live stream (the gap, if any, is reported)"));
        switchToLive(false);
    }

    /** @return true when a replay-only replay ended without delivering what was asked (the reason was reported). */
    boolean failed()
    {
        return failed;
    }

    private boolean timedOut(final String what)
    {
        if (nowNs - lastProgressNs > REPLAY_TIMEOUT_NS)
        {
            fallBackToLive(what + " for " + TimeUnit.NANOSECONDS.toMillis(REPLAY_TIMEOUT_NS) + " ms");
            return true;
        }
        return false;
    }

    private void closeReplay()
    {
        if (Aeron.NULL_VALUE != replaySessionId)
        {
            try
            {
                final AeronArchive archive = client.archive();
                if (null != archive && null != image && !image.isEndOfStream())
                {
                    archive.stopReplay(replaySessionId);
                }
            }
            catch (final RuntimeException ignore)
            {
                // The replay ended on its own.
            }
            replaySessionId = Aeron.NULL_VALUE;
        }
        image = null;
        if (State.LIVE == state || State.ENDED == state || State.AWAIT_LIVE == state || null == current)
        {
            if (null != replaySubscription)
            {
                replaySubscription.close();
                replaySubscription = null;
            }
        }
    }

    public void close()
    {
        state = State.LIVE == state ? State.LIVE : State.ENDED;
        closeReplay();
        if (null != replaySubscription)
        {
            replaySubscription.close();
            replaySubscription = null;
        }
    }
}
