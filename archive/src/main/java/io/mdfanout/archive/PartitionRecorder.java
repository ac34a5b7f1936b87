package io.mdfanout.archive;

import io.aeron.Aeron;
import io.aeron.FragmentAssembler;
import io.aeron.Subscription;
import io.aeron.archive.client.AeronArchive;
import io.aeron.archive.codecs.SourceLocation;
import io.aeron.archive.status.RecordingPos;
import io.aeron.driver.status.ReceiverHwm;
import io.aeron.logbuffer.FragmentHandler;
import io.mdfanout.sbe.HeartbeatDecoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.PacketHeaderDecoder;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.io.PrintStream;
import java.util.List;

/**
 * The recording of one partition stream: Aeron Archive writes it (one recording per publisher image, so a
 * restarted fanout starts a new one); this class follows what was written, by replaying each recording locally
 * as it grows, so that what it reports is what is on disk: the first stream sequence of each recording (the
 * catalog line), the messages recorded, and every stretch of the stream that is not in any recording of the
 * session (a hole: the archive was down, its recording was stopped by a full disk, or it joined late). On a
 * restart it first reads the session's last recording to the end, so the stretch it missed while down is a
 * hole with exact bounds. Driven by the archive's agent thread through {@link #doWork}.
 */
final class PartitionRecorder implements AutoCloseable
{
    /** Where the recorder stands. */
    enum State
    {
        /** Reading the session's previous recording of the partition to its end, for where it stopped. */
        SCAN_PREVIOUS,
        /** No recording runs: waiting for the stream (a publisher image) to appear. */
        AWAIT_RECORDING,
        /**
         * The exchange ended the day: nothing is recorded while the ended day's stream only sends heartbeats; a
         * plain subscription watches the partition's stream for the next day's (a packet, or a stream at sequence 1).
         */
        AWAIT_NEW_DAY,
        /** A recording runs and is followed as it grows. */
        FOLLOW,
        /** The recording was stopped by an error (disk full): waiting for space to record again. */
        STOPPED_BY_ERROR,
        CLOSED
    }

    static final String REASON_NOT_RECORDED = "not-recorded";
    static final String REASON_BEFORE_START = "before-archive-start";
    static final String REASON_STREAM_GAP = "stream-gap";
    /** A hole of a pair: no side recorded the chain positions. */
    static final String REASON_NO_SIDE = "recorded-by-no-side";
    /** The schema version from which packets carry the partition's chain (docs/WIRE.md). */
    static final int CHAIN_SCHEMA_VERSION = 4;
    /**
     * A local replay that delivers nothing for this long while it has not reached its end (it never connected, or
     * the archive ended it early) is opened again from where it stopped. Aeron Archive drops a replay whose
     * subscriber is not connected within its connect timeout (5 s), which a loaded restart can miss.
     */
    static final long REPLAY_STALL_TIMEOUT_MS = 10_000;
    private static final int FRAGMENT_LIMIT = 256;

    private final int partition;
    /** 0 for side A (or one fanout), 1 for side B of a pair. */
    private final int side;
    /** How the log names this recorder: "partition 3", or "side B partition 3" in a pair. */
    private final String name;
    /** The partition's chain coverage, shared by its sides' recorders in a pair; null for one fanout. */
    private final ChainCoverage coverage;
    private final int streamId;
    private String recordingChannel;
    private String session;
    private final int localReplayStreamId;
    private final Aeron aeron;
    private final AeronArchive archive;
    private final SessionCatalog catalog;
    private final ArchiveCounters.Side counters;
    private final ArchiveCounters.Partition holeCounters;
    private final PrintStream log;
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final PacketHeaderDecoder packetHeader = new PacketHeaderDecoder();
    private final HeartbeatDecoder heartbeat = new HeartbeatDecoder();
    private final SystemEventDecoder systemEvent = new SystemEventDecoder();
    private final FragmentHandler fragmentHandler = new FragmentAssembler(this::onFragment);

    private State state;
    private long subscriptionId = Aeron.NULL_VALUE;
    private long recordingId = Aeron.NULL_VALUE;
    private int aeronSessionId;
    private long startPosition;
    private long recordedBytesBefore;
    private Subscription replay;
    private long replaySessionId = Aeron.NULL_VALUE;
    /** The recording the local replay reads, and the position it has delivered to. */
    private long replayRecordingId = Aeron.NULL_VALUE;
    private long replayPosition;
    /** In {@link State#SCAN_PREVIOUS}: the previous recording's end, which the scan must reach. */
    private long scanStopPosition;
    private long replayProgressDeadlineMs = Long.MAX_VALUE;
    private boolean replayConnected;
    private int replayReopens;
    private boolean stopSignalled;
    private boolean firstOfRecording;
    /** In {@link State#SCAN_PREVIOUS}: the next packet is the scan's first (the chain coverage resumes there). */
    private boolean firstScanned = true;
    /** The stream sequence after the last message recorded in this session; 0 before any. */
    private long nextSequence;
    private long messagesBefore;
    private long pendingRecordingId = Aeron.NULL_VALUE;
    private long pendingPosition;
    private boolean restartedAfterError;
    private int recorderCounterId = CountersReader.NULL_COUNTER_ID;
    /** The exchange's End of Messages was recorded in this session: the trading day is over. */
    private boolean endOfMessages;
    /** In {@link State#AWAIT_NEW_DAY}: the plain subscription that watches for the next day's stream. */
    private Subscription watch;
    private boolean newDaySeen;
    private final FragmentHandler watchHandler = this::onWatchedFragment;

    /**
     * @param coverage the partition's chain coverage, shared by both sides' recorders of a pair; null for one fanout.
     */
    PartitionRecorder(
        final int partition,
        final int side,
        final ChainCoverage coverage,
        final int streamId,
        final String recordingChannel,
        final String session,
        final int localReplayStreamId,
        final Aeron aeron,
        final AeronArchive archive,
        final SessionCatalog catalog,
        final ArchiveCounters.Side counters,
        final ArchiveCounters.Partition holeCounters,
        final PrintStream log)
    {
        this.partition = partition;
        this.side = side;
        this.coverage = coverage;
        this.name = (null == coverage ? "" : "side " + (char)('A' + side) + " ") + "partition " + partition;
        this.holeCounters = holeCounters;
        this.streamId = streamId;
        this.recordingChannel = recordingChannel;
        this.session = session;
        this.localReplayStreamId = localReplayStreamId;
        this.aeron = aeron;
        this.archive = archive;
        this.catalog = catalog;
        this.counters = counters;
        this.log = log;
        final List<Long> previous = catalog.recordings(session, partition, side);
        if (previous.isEmpty())
        {
            state = State.AWAIT_RECORDING;
        }
        else
        {
            startScan(previous.get(previous.size() - 1));
        }
    }

    int partition()
    {
        return partition;
    }

    /** @return true once the session's End of Messages was recorded on this partition. */
    boolean hasEndOfMessages()
    {
        return endOfMessages;
    }

    String session()
    {
        return session;
    }

    /**
     * The exchange ended the trading day on every partition: stop this session's recording and record the next
     * session's under its own name once it starts. The ended day's stream (and a restarted fanout's continuation
     * of it) sends heartbeats only until the fanout follows the next day's rings, so nothing is recorded meanwhile:
     * a plain subscription watches the stream, and the first packet, or a heartbeat of a stream at sequence 1 (a
     * followed generation's publication sends heartbeats only for its first second, for this), starts the next
     * session's recording, which then holds the new day from its first message.
     *
     * @param next        the next session's name.
     * @param channel     the next session's recording channel (its alias).
     * @param liveChannel the partition's channel, to watch.
     */
    void roll(final String next, final String channel, final String liveChannel)
    {
        closeReplay();
        stopRecordingSubscription();
        session = next;
        recordingChannel = channel;
        recordingId = Aeron.NULL_VALUE;
        pendingRecordingId = Aeron.NULL_VALUE;
        nextSequence = 0;
        messagesBefore = 0;
        recordedBytesBefore = 0;
        endOfMessages = false;
        stopSignalled = false;
        restartedAfterError = false;
        recorderCounterId = CountersReader.NULL_COUNTER_ID;
        counters.recordedMessages.setRelease(0);
        counters.recordedBytes.setRelease(0);
        counters.recordingActive.setRelease(0);
        newDaySeen = false;
        watch = aeron.addSubscription(liveChannel, streamId);
        state = State.AWAIT_NEW_DAY;
    }

    private void onWatchedFragment(
        final DirectBuffer buffer, final int offset, final int length, final io.aeron.logbuffer.Header h)
    {
        if (length < WireFormat.HEADER_LENGTH)
        {
            return;
        }
        header.wrap(buffer, offset);
        if (PacketHeaderDecoder.TEMPLATE_ID == header.templateId())
        {
            // One fanout sends the next day only after its End of Messages. A pair rolls on the first side's: the
            // other may still send the ended day (a restarted fanout catching up), whose chain does not start at 0.
            packetHeader.wrap(buffer, offset + WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
            newDaySeen |= null == coverage ||
                (header.version() >= CHAIN_SCHEMA_VERSION && 0 == packetHeader.previousExchangeSequence());
        }
        else if (HeartbeatDecoder.TEMPLATE_ID == header.templateId())
        {
            heartbeat.wrap(buffer, offset + WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
            newDaySeen |= 1 == heartbeat.nextStreamSequence();
        }
    }

    private int watchForNewDay()
    {
        final int fragments = watch.poll(watchHandler, FRAGMENT_LIMIT);
        if (newDaySeen)
        {
            watch.close();
            watch = null;
            log.println("archive: " + name + ": the next day's stream started: recording session " +
                session);
            state = State.AWAIT_RECORDING; // the role starts the recording at once
        }
        return fragments;
    }

    long subscriptionId()
    {
        return subscriptionId;
    }

    State state()
    {
        return state;
    }

    /** Start recording the partition's stream: every image of it becomes a recording. */
    void startRecording()
    {
        subscriptionId = archive.startRecording(recordingChannel, streamId, SourceLocation.REMOTE, false);
    }

    /**
     * Aeron Archive started a recording for this partition's subscription. It is followed once the recording read
     * before it (the previous publication's, or the session's last one after a restart) was read to its end, so
     * that the stream sequences in between are known exactly.
     */
    void onRecordingStarted(final long newRecordingId, final long position)
    {
        if (null != replay && (State.SCAN_PREVIOUS == state || State.FOLLOW == state || State.STOPPED_BY_ERROR == state))
        {
            pendingRecordingId = newRecordingId;
            pendingPosition = position;
            counters.recordingActive.setRelease(1);
            return;
        }
        follow(newRecordingId, position);
    }

    private void follow(final long newRecordingId, final long position)
    {
        pendingRecordingId = Aeron.NULL_VALUE;
        recordingId = newRecordingId;
        startPosition = position;
        aeronSessionId = 0;
        archive.listRecording(newRecordingId, (controlSessionId, correlationId, id, startTimestamp, stopTimestamp,
            startPos, stopPos, initialTermId, segmentFileLength, termBufferLength, mtuLength, sessionId, streamId,
            strippedChannel, originalChannel, sourceIdentity) -> aeronSessionId = sessionId);
        recorderCounterId = RecordingPos.findCounterIdByRecording(aeron.countersReader(), newRecordingId);
        firstOfRecording = true;
        stopSignalled = false;
        restartedAfterError = false;
        counters.recordingActive.setRelease(1);
        openReplay(newRecordingId, position, Long.MAX_VALUE);
        state = State.FOLLOW;
    }

    /**
     * Aeron Archive stopped a recording of this partition (its image went away, or an error stopped it).
     *
     * @param stoppedRecordingId the recording.
     * @param byError            an error stopped it; {@code reason} says which.
     * @param reason             {@link ArchiveCounters#DISK_FULL} or {@link ArchiveCounters#IO_ERROR}.
     */
    void onRecordingStopped(final long stoppedRecordingId, final boolean byError, final String reason)
    {
        if (stoppedRecordingId != recordingId)
        {
            return;
        }
        stopSignalled = true;
        counters.recordingActive.setRelease(Aeron.NULL_VALUE == pendingRecordingId ? 0 : 1);
        if (byError && State.STOPPED_BY_ERROR != state)
        {
            (ArchiveCounters.DISK_FULL.equals(reason) ? counters.diskFullStops : counters.ioErrorStops).increment();
            log.println("archive: ERROR: the recording of " + name + " (recording " + stoppedRecordingId +
                ") stopped: " + reason + "; the live stream is unaffected, and what passes until it records " +
                "again is reported as a hole");
            state = State.STOPPED_BY_ERROR;
        }
    }

    /**
     * Stop recording because of an error the role found (the disk full): counted once per stop, and the stretch
     * until it records again is reported as a hole.
     *
     * @param reason {@link ArchiveCounters#DISK_FULL} or {@link ArchiveCounters#IO_ERROR}.
     */
    void stopForError(final String reason)
    {
        if (State.STOPPED_BY_ERROR == state || State.SCAN_PREVIOUS == state || State.CLOSED == state ||
            State.AWAIT_NEW_DAY == state)
        {
            return;
        }
        stopRecordingSubscription();
        stopSignalled = true;
        restartedAfterError = false;
        counters.recordingActive.setRelease(0);
        (ArchiveCounters.DISK_FULL.equals(reason) ? counters.diskFullStops : counters.ioErrorStops).increment();
        log.println("archive: ERROR: the recording of " + name + " stopped: " + reason +
            " (recorded to stream sequence " + (nextSequence - 1) + ")");
        state = State.STOPPED_BY_ERROR;
    }

    /** Stop the partition's recording subscription, if one runs (a failure is logged: the role goes on). */
    private void stopRecordingSubscription()
    {
        if (Aeron.NULL_VALUE != subscriptionId)
        {
            try
            {
                archive.stopRecording(subscriptionId);
            }
            catch (final RuntimeException ex)
            {
                log.println("archive: stopping the recording of " + name + ": " + ex.getMessage());
            }
            subscriptionId = Aeron.NULL_VALUE;
        }
    }

    /** The disk has room again after an error stopped the recording: record anew (a new image, a new recording). */
    void restartAfterError()
    {
        if (State.STOPPED_BY_ERROR != state || restartedAfterError)
        {
            return;
        }
        if (Aeron.NULL_VALUE != subscriptionId)
        {
            archive.stopRecording(subscriptionId);
            subscriptionId = Aeron.NULL_VALUE;
        }
        startRecording();
        restartedAfterError = true;
        log.println("archive: " + name + " records again");
    }

    int doWork(final long nowMs)
    {
        int work = 0;
        switch (state)
        {
            case SCAN_PREVIOUS:
                work += pollScan(nowMs);
                if (null == replay)
                {
                    log.println("archive: " + name + ": the session's last recording ends before " +
                        "stream sequence " + nextSequence);
                    state = State.AWAIT_RECORDING;
                    followPending();
                }
                break;
            case AWAIT_NEW_DAY:
                work += watchForNewDay();
                break;
            case FOLLOW:
            case STOPPED_BY_ERROR:
                work += pollReplay();
                awaitFollowConnected(nowMs);
                updateRecorded();
                if (null == replay)
                {
                    if (Aeron.NULL_VALUE != pendingRecordingId)
                    {
                        followPending();
                    }
                    else if (State.STOPPED_BY_ERROR == state && restartedAfterError)
                    {
                        state = State.AWAIT_RECORDING;
                    }
                }
                break;
            default:
                break;
        }
        return work;
    }

    private void followPending()
    {
        if (Aeron.NULL_VALUE != pendingRecordingId)
        {
            follow(pendingRecordingId, pendingPosition);
        }
    }

    /** Bytes received for the partition's current image but not yet written: the archive falling behind. */
    void updateLag(final CountersReader counters)
    {
        if (State.FOLLOW != this.state || CountersReader.NULL_COUNTER_ID == recorderCounterId)
        {
            this.counters.lagBytes.setRelease(0);
            return;
        }
        final long recorded = counters.getCounterValue(recorderCounterId);
        long hwm = recorded;
        for (int id = 0, max = counters.maxCounterId(); id < max; id++)
        {
            if (CountersReader.RECORD_ALLOCATED == counters.getCounterState(id) &&
                ReceiverHwm.RECEIVER_HWM_TYPE_ID == counters.getCounterTypeId(id))
            {
                final DirectBuffer key = counters.metaDataBuffer();
                final int keyOffset = CountersReader.metaDataOffset(id) + CountersReader.KEY_OFFSET;
                if (key.getInt(keyOffset + 8) == aeronSessionId && key.getInt(keyOffset + 12) == streamId)
                {
                    hwm = Math.max(hwm, counters.getCounterValue(id));
                }
            }
        }
        this.counters.lagBytes.setRelease(Math.max(0, hwm - recorded));
    }

    private void updateRecorded()
    {
        if (CountersReader.NULL_COUNTER_ID != recorderCounterId)
        {
            final CountersReader reader = aeron.countersReader();
            if (RecordingPos.isActive(reader, recorderCounterId, recordingId))
            {
                counters.recordedBytes.setRelease(recordedBytesBefore + reader.getCounterValue(recorderCounterId) -
                    startPosition);
            }
        }
    }

    private void startScan(final long previousRecordingId)
    {
        final long stop = archive.getMaxRecordedPosition(previousRecordingId);
        final long[] start = { Aeron.NULL_VALUE };
        archive.listRecording(previousRecordingId, (controlSessionId, correlationId, id, startTimestamp, stopTimestamp,
            startPos, stopPos, initialTermId, segmentFileLength, termBufferLength, mtuLength, sessionId, streamId,
            strippedChannel, originalChannel, sourceIdentity) -> start[0] = startPos);
        state = State.SCAN_PREVIOUS;
        if (Aeron.NULL_VALUE == start[0] || stop <= start[0])
        {
            log.println("archive: " + name + ": recording " + previousRecordingId + " of session " +
                session + " is empty or gone");
            state = State.AWAIT_RECORDING;
            return;
        }
        recordedBytesBefore = stop - start[0];
        counters.recordedBytes.setRelease(recordedBytesBefore);
        firstOfRecording = false;
        firstScanned = true;
        scanStopPosition = stop;
        openReplay(previousRecordingId, start[0], stop - start[0]);
    }

    private void openReplay(final long id, final long position, final long length)
    {
        replayRecordingId = id;
        replayPosition = position;
        replayProgressDeadlineMs = Long.MAX_VALUE; // set on the first duty cycle: the clock is the role's
        replayConnected = false;
        replaySessionId = archive.startReplay(id, position, length, "aeron:ipc", localReplayStreamId);
        replay = aeron.addSubscription("aeron:ipc?session-id=" + (int)replaySessionId, localReplayStreamId);
    }

    /**
     * The scan of the previous recording: done when it has delivered the recording to its end, whatever its image
     * does; a replay that stalls short of the end (never connected, or ended early) is opened again from there.
     */
    private int pollScan(final long nowMs)
    {
        if (null == replay)
        {
            return 0;
        }
        final int fragments = replay.poll(fragmentHandler, FRAGMENT_LIMIT);
        if (replay.imageCount() > 0)
        {
            replayPosition = Math.max(replayPosition, replay.imageAtIndex(0).position());
        }
        if (replayPosition >= scanStopPosition)
        {
            closeReplay();
        }
        else if (fragments > 0 || Long.MAX_VALUE == replayProgressDeadlineMs)
        {
            replayProgressDeadlineMs = nowMs + REPLAY_STALL_TIMEOUT_MS;
        }
        else if (nowMs >= replayProgressDeadlineMs)
        {
            reopenReplay(nowMs, scanStopPosition - replayPosition, replay.imageCount() == 0 ?
                "it never connected" : "it stopped short of the recording's end");
        }
        return fragments;
    }

    private void reopenReplay(final long nowMs, final long length, final String why)
    {
        final long id = replayRecordingId;
        final long position = replayPosition;
        closeReplay();
        replayReopens++;
        log.println("archive: " + name + ": the local replay of recording " + id + " delivered " +
            "nothing for " + REPLAY_STALL_TIMEOUT_MS + " ms at position " + position + " (" + why + "): " +
            "opening it again from there (" + replayReopens + " so far)");
        openReplay(id, position, length);
        replayProgressDeadlineMs = nowMs + REPLAY_STALL_TIMEOUT_MS;
    }

    /**
     * A recording being followed is replayed from where it started for as long as it grows: once its replay
     * connected, the recording's stop ends it; one that never connects is opened again.
     */
    private void awaitFollowConnected(final long nowMs)
    {
        if (null == replay || replayConnected || stopSignalled)
        {
            return;
        }
        if (Long.MAX_VALUE == replayProgressDeadlineMs)
        {
            replayProgressDeadlineMs = nowMs + REPLAY_STALL_TIMEOUT_MS;
        }
        else if (nowMs >= replayProgressDeadlineMs)
        {
            reopenReplay(nowMs, Long.MAX_VALUE, "it never connected");
        }
    }

    /** How many times a local replay was opened again after it stalled (for tests and the log). */
    int replayReopens()
    {
        return replayReopens;
    }

    private int pollReplay()
    {
        if (null == replay)
        {
            return 0;
        }
        final int fragments = replay.poll(fragmentHandler, FRAGMENT_LIMIT);
        if (replay.imageCount() > 0)
        {
            replayPosition = Math.max(replayPosition, replay.imageAtIndex(0).position());
            replayConnected = true;
        }
        if (0 == fragments && replay.imageCount() > 0 && replay.imageAtIndex(0).isEndOfStream())
        {
            closeReplay();
        }
        else if (0 == fragments && State.SCAN_PREVIOUS != state && stopSignalled && replay.imageCount() == 0)
        {
            closeReplay();
        }
        return fragments;
    }

    private void closeReplay()
    {
        if (null != replay)
        {
            replay.close();
            replay = null;
            try
            {
                archive.stopReplay(replaySessionId);
            }
            catch (final RuntimeException ignore)
            {
                // The replay ended on its own already.
            }
        }
        if (State.FOLLOW == state || State.STOPPED_BY_ERROR == state)
        {
            recordedBytesBefore = counters.recordedBytes.get();
        }
    }

    private void onFragment(final DirectBuffer buffer, final int offset, final int length, final io.aeron.logbuffer.Header h)
    {
        if (length < WireFormat.HEADER_LENGTH)
        {
            return;
        }
        header.wrap(buffer, offset);
        final long firstSequence;
        final long endSequence;
        if (PacketHeaderDecoder.TEMPLATE_ID == header.templateId())
        {
            packetHeader.wrap(buffer, offset + WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
            firstSequence = packetHeader.streamSequence();
            endSequence = firstSequence + packetHeader.messageCount();
            if (!endOfMessages && endSequence > nextSequence)
            {
                endOfMessages = containsEndOfMessages(buffer, offset + WireFormat.HEADER_LENGTH + header.blockLength(),
                    offset + length, packetHeader.messageCount());
            }
        }
        else if (HeartbeatDecoder.TEMPLATE_ID == header.templateId())
        {
            heartbeat.wrap(buffer, offset + WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
            firstSequence = heartbeat.nextStreamSequence();
            endSequence = firstSequence;
        }
        else
        {
            return;
        }

        if (null != coverage && PacketHeaderDecoder.TEMPLATE_ID == header.templateId())
        {
            final long previousChain = header.version() >= CHAIN_SCHEMA_VERSION ?
                packetHeader.previousExchangeSequence() : -1;
            if (State.SCAN_PREVIOUS == state && firstScanned)
            {
                firstScanned = false;
                coverage.resumeAt(side, previousChain); // what came before was judged when it was recorded
            }
            coverage.onPacket(side, previousChain, lastChain(buffer, offset + WireFormat.HEADER_LENGTH +
                header.blockLength(), offset + length, packetHeader.messageCount(), previousChain));
        }
        if (State.SCAN_PREVIOUS == state)
        {
            nextSequence = Math.max(nextSequence, endSequence);
            messagesBefore += Math.max(0, endSequence - firstSequence);
            counters.recordedMessages.setRelease(messagesBefore);
            return;
        }
        if (firstOfRecording)
        {
            firstOfRecording = false;
            try
            {
                catalog.recordingStarted(session, partition, side, recordingId, aeronSessionId, firstSequence, startPosition);
            }
            catch (final RuntimeException ex)
            {
                log.println(ex.getMessage());
            }
            log.println("archive: " + name + " recording " + recordingId + " of session " + session +
                " starts at stream sequence " + firstSequence);
            if (0 == nextSequence && firstSequence > 1)
            {
                hole(1, firstSequence - 1, REASON_BEFORE_START);
            }
            else if (0 != nextSequence && firstSequence > nextSequence)
            {
                hole(nextSequence, firstSequence - 1, REASON_NOT_RECORDED);
            }
        }
        else if (firstSequence > nextSequence && 0 != nextSequence)
        {
            hole(nextSequence, firstSequence - 1, REASON_STREAM_GAP);
        }
        if (endSequence > nextSequence)
        {
            messagesBefore += endSequence - Math.max(firstSequence, nextSequence);
            counters.recordedMessages.setRelease(messagesBefore);
            nextSequence = endSequence;
        }
    }

    /**
     * The chain position after a packet's last message that links the partition's chain (a gap notice links through
     * its last missing sequence; an exchange snapshot's message, of exchange sequence 0, is state and links nothing).
     */
    private static long lastChain(
        final DirectBuffer buffer, final int from, final int limit, final int count, final long previousChain)
    {
        long last = previousChain;
        int offset = from;
        for (int i = 0; i < count && offset + WireFormat.HEADER_LENGTH <= limit; i++)
        {
            final long word = WireFormat.headerWord(buffer, offset);
            final int templateId = WireFormat.templateIdOf(word);
            final int length = WireFormat.messageLength(WireFormat.blockLengthOf(word));
            if (offset + length > limit)
            {
                break;
            }
            final int body = offset + WireFormat.HEADER_LENGTH;
            final boolean notice = io.mdfanout.sbe.GapNoticeDecoder.TEMPLATE_ID == templateId;
            if (notice || 0 != buffer.getLong(body + WireFormat.EXCHANGE_SEQUENCE_OFFSET, WireFormat.BYTE_ORDER))
            {
                last = Math.max(last, buffer.getLong(body + WireFormat.chainPositionOffset(templateId),
                    WireFormat.BYTE_ORDER));
            }
            offset += length;
        }
        return last;
    }

    /** Whether a packet's messages include the exchange's End of Messages (System Event 'C', on every partition). */
    private boolean containsEndOfMessages(final DirectBuffer buffer, final int from, final int limit, final int count)
    {
        int offset = from;
        for (int i = 0; i < count && offset + WireFormat.HEADER_LENGTH <= limit; i++)
        {
            final long word = WireFormat.headerWord(buffer, offset);
            final int blockLength = WireFormat.blockLengthOf(word);
            if (SystemEventDecoder.TEMPLATE_ID == WireFormat.templateIdOf(word) &&
                offset + WireFormat.messageLength(blockLength) <= limit)
            {
                systemEvent.wrap(buffer, offset + WireFormat.HEADER_LENGTH, blockLength, WireFormat.versionOf(word));
                if (SystemEventCode.END_OF_MESSAGES == systemEvent.eventCode())
                {
                    return true;
                }
            }
            offset += WireFormat.messageLength(blockLength);
        }
        return false;
    }

    private void hole(final long firstMissing, final long lastMissing, final String reason)
    {
        if (null == coverage)
        {
            holeCounters.holes.increment();
            holeCounters.holeMessages.getAndAdd(lastMissing - firstMissing + 1);
            log.println("archive: HOLE in session " + session + " partition " + partition + ": stream sequences " +
                firstMissing + ".." + lastMissing + " (" + (lastMissing - firstMissing + 1) + " messages) are not " +
                "recorded (" + reason + ")");
        }
        else
        {
            // One side's: the other side may have recorded it; the holes of the pair are found by chain position.
            log.println("archive: " + name + " of session " + session + ": its stream sequences " + firstMissing +
                ".." + lastMissing + " are not recorded (" + reason + "); the other side may have them");
        }
        try
        {
            catalog.hole(session, partition, side, null != coverage, firstMissing, lastMissing, reason);
        }
        catch (final RuntimeException ex)
        {
            log.println(ex.getMessage());
        }
    }

    public void close()
    {
        if (null != watch)
        {
            watch.close();
            watch = null;
        }
        closeReplay();
        state = State.CLOSED;
    }
}
