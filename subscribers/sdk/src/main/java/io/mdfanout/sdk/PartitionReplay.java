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
        /** Replay only: the end of what the archive holds was delivered. */
        ENDED
    }

    /** How close (bytes) to the archive's recorded position the replay gets before the live stream is subscribed. */
    static final long LIVE_ADD_THRESHOLD = 256 * 1024;
    /** How often the archive's recorded position is asked while the replay catches up. */
    static final long POSITION_CHECK_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(20);
    /** How long a replay may go without delivering before the partition gives up on it and joins the live stream. */
    static final long REPLAY_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);

    private final int slot;
    private final int partition;
    private final int streamId;
    private final PartitionStream stream;
    private final StreamSequencer sequencer;
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
        this.slot = slot;
        this.partition = stream.partition;
        this.streamId = streamId;
        this.stream = stream;
        this.sequencer = sequencer;
        this.dispatcher = dispatcher;
        this.counters = counters;
        this.client = client;
        this.aeron = aeron;
        this.replayChannel = ctx.replayChannel();
        this.replayStreamId = ctx.replayStreamId() + slot;
        this.toLive = ctx.replayToLive();
        this.originalPace = ctx.replayOriginalPace();
        this.bufferBytes = ctx.recoveryBufferBytes();
        this.errorHandler = ctx.errorHandler();
        stream.replay = this;
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
        return State.MERGE == state;
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
            recordings = client.recordings(streamId, -1);
            if (recordings.isEmpty())
            {
                fallBackToLive("the archive holds no recording of " + (null == client.session(streamId) ?
                    "any session" : "session " + client.session(streamId)) + " for stream " + streamId);
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
        if (!stream.joined)
        {
            // The replay is the stream from its first message: joined at 1, the state before the start point primed.
            stream.joined = true;
            stream.expectedSequence = 1;
            dispatcher.onStreamJoined(partition, 1);
        }
        stream.sessionId = current.sessionId();
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
                    !client.recordings(streamId, current.recordingId()).isEmpty())
                {
                    // A newer recording of the session: this one's publication was replaced (a fanout restart) and
                    // its image waits for Aeron's liveness timeout to stop; what it holds was replayed.
                    onRecordingEnd();
                    return 1;
                }
                if (State.REPLAY == state && toLive && AeronArchive.NULL_POSITION != recorded &&
                    recorded - image.position() <= LIVE_ADD_THRESHOLD &&
                    client.recordings(streamId, current.recordingId()).isEmpty())
                {
                    state = State.MERGE; // the subscriber subscribes to the live stream now
                }
            }
            if (State.MERGE == state)
            {
                tryMerge();
            }
            if ((State.REPLAY == state || State.MERGE == state) && 0 == fragments && !originalPace &&
                timedOut("the replay stopped delivering"))
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
        final List<ArchiveReplayClient.Recording> more = client.recordings(streamId, current.recordingId());
        if (!more.isEmpty())
        {
            recordings = more;
            nextRecording = 0;
            startNextRecording();
        }
        else if (!toLive)
        {
            state = State.ENDED;
            dispatcher.onReplayEnd(partition, stream.expectedSequence);
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
        if (length < WireFormat.HEADER_LENGTH)
        {
            sequencer.onMessage(slot, stream.sessionId, buffer, offset, length); // counted as malformed there
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
            sequencer.onMessage(slot, stream.sessionId, buffer, offset, length);
            return ControlledFragmentHandler.Action.CONTINUE;
        }
        final long expected = stream.expectedSequence;
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

    /** A live packet while merging: held until the replay reaches it, or delivered at once when it already has. */
    void onLive(final int sessionId, final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < WireFormat.HEADER_LENGTH)
        {
            return;
        }
        header.wrap(buffer, offset);
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

    private void tryMerge()
    {
        if (null != liveBuffer && !liveBuffer.isEmpty() &&
            liveBuffer.fromSequence(0) <= stream.expectedSequence)
        {
            switchToLive(true);
        }
    }

    private void switchToLive(final boolean merged)
    {
        state = State.LIVE;
        closeReplay();
        stream.replay = null;
        if (merged)
        {
            counters.onReplaySwitch();
            dispatcher.onReplayLive(partition, stream.expectedSequence, replayedMessages);
        }
        if (null != liveBuffer && !liveBuffer.isEmpty())
        {
            // Held under the live publication's session: the recording's when the archive recorded it, else a new
            // publication the sequencer recovers from (its state may differ from what the replay built).
            final RecoveryBuffer held = liveBuffer;
            for (int record = 0, limit = held.limit(); record < limit; )
            {
                final int messageLength = held.messageLength(record);
                sequencer.onMessage(slot, liveSessionId, held.buffer(), RecoveryBuffer.messageOffset(record), messageLength);
                record = RecoveryBuffer.nextRecord(record, messageLength);
            }
            held.reset();
        }
        liveBuffer = null;
    }

    private void fallBackToLive(final String reason)
    {
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
        if (State.LIVE == state || State.ENDED == state || null == current)
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
