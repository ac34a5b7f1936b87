package io.mdfanout.sdk;

import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.wire.MarketSession;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Everything the subscriber knows about one partition: the incremental stream being followed
 * (session, next sequence, retired sessions), the snapshot filter its last recovery left, the status
 * of its source and its liveness; its {@link PartitionRecovery} (null when recovery is off) holds the
 * rest of the recovery. The partition is good when it neither {@link #isRecovering() recovers} nor
 * {@link #sourceDown} holds. Written by the polling thread only, except {@link #lostImage}, which
 * Aeron's client conductor sets.
 */
final class PartitionStream
{
    static final long NOT_JOINED = -1;
    /** Instrument ids a snapshot's per-instrument filter covers directly; larger ids use the SnapshotEnd L. */
    static final int FILTER_INSTRUMENTS = 65536;
    private static final int RETIRED_SESSIONS = 8;
    private static final long NO_LOST_IMAGE = 0;

    final int partition;

    // Incremental stream.
    boolean joined;
    int sessionId;
    long expectedSequence = NOT_JOINED;
    private final int[] retiredSessionIds = new int[RETIRED_SESSIONS];
    private int retiredCount;
    private int retiredNext;

    // Recovery: the state machine, and what outlives one recovery.
    /** Null when recovery is off. */
    PartitionRecovery recovery;
    long staleSinceNs;
    /** L covering each instrument id in the last snapshot applied; allocated on the first recovery. */
    long[] coveringSequence;
    long coveringSequenceAbove;
    /** Incrementals with a sequence up to this are checked against {@link #coveringSequence}; 0 = filter off. */
    long filterMaxSequence;
    /**
     * Every message up to this sequence (a pair's: chain position) is in the state of the last snapshot applied, for
     * every instrument: a span lost at or below it lacks nothing the books need (a subscriber whose incremental
     * stream still catches up a backlog while a newer snapshot recovered it). 0 for none; reset with the stream.
     */
    long coveredThrough;

    // Replay from the archive.
    /** The replay's start point while the messages before it are still delivered as the state; null otherwise. */
    ReplayStart primeUntil;
    /** Null when the partition does not replay, or once it follows the live stream. */
    PartitionReplay replay;

    // Source (the feed handler behind the fanout), from the fanout's heartbeats.
    /** Last status a heartbeat announced; NULL_VAL before any, or from a fanout of schema version 1. */
    SourceStatus sourceStatus = SourceStatus.NULL_VAL;
    /** A heartbeat said the source does not deliver, and no LIVE heartbeat or data has come since. */
    boolean sourceDown;
    /** A GapNotice said exchange messages of this session are lost for good ({@link StaleReason#EXCHANGE_GAP}). */
    boolean exchangeGap;
    /** Snapshot applied while the source was down, reported when the partition is good again; 0 for none. */
    long recoverySnapshotId;
    /** The lastStreamSequence of the SnapshotBegin of {@link #recoverySnapshotId}. */
    long recoverySnapshotSequence;

    // The trading day, from the partition's System Events (a snapshot's last one included).
    MarketSession marketSession = MarketSession.UNKNOWN;

    // A pair (PairSequencer): the trading day the sides are arbitrated on, and its exchange session from heartbeats.
    /** Days started since the subscriber did: a side on an older one still sends the day the partition left. */
    long pairDay;
    boolean pairSessionKnown;
    long pairSessionHigh;
    long pairSessionLow;
    long previousSessionHigh;
    long previousSessionLow;

    // Liveness.
    long lastActivityNs;
    boolean silent;
    final AtomicLong lostImage = new AtomicLong(NO_LOST_IMAGE);

    PartitionStream(final int partition)
    {
        this.partition = partition;
    }

    /** @return true while messages were or may have been lost and a snapshot is awaited or applied. */
    boolean isRecovering()
    {
        return null != recovery && recovery.isRecovering();
    }

    /**
     * Mark the partition stale from the poll loop (silence, a lost image) when recovery is on and it is joined: a
     * partition already recovering buffers again from the next sequence, else it goes stale for {@code reason}.
     */
    void markStale(final StaleReason reason, final long nowNs)
    {
        if (null != recovery && joined)
        {
            if (recovery.isRecovering())
            {
                recovery.restartBuffering(expectedSequence);
            }
            else
            {
                recovery.goStale(reason, expectedSequence, nowNs);
            }
        }
    }

    /**
     * The first message of a lost span {@code [firstMissing, ...]} that the last snapshot applied does not hold. While a
     * recovery runs, every loss counts: the snapshot it will apply may be older than the last one (a pair's other side).
     *
     * @param firstMissing the span's first message.
     * @return {@code firstMissing}, or the first message after what the snapshot covers when that is later.
     */
    long firstUncovered(final long firstMissing)
    {
        return isRecovering() ? firstMissing : Math.max(firstMissing, coveredThrough + 1);
    }

    void allocateFilter()
    {
        if (null == coveringSequence)
        {
            coveringSequence = new long[FILTER_INSTRUMENTS];
        }
    }

    long coveringSequence(final long instrumentId)
    {
        return instrumentId >= 0 && instrumentId < FILTER_INSTRUMENTS ?
            coveringSequence[(int)instrumentId] : coveringSequenceAbove;
    }

    void cover(final long fromInstrumentId, final long toInstrumentIdInclusive, final long sequence)
    {
        final int from = (int)Math.min(fromInstrumentId, FILTER_INSTRUMENTS);
        final int to = (int)Math.min(toInstrumentIdInclusive + 1, FILTER_INSTRUMENTS);
        if (from < to)
        {
            Arrays.fill(coveringSequence, from, to, sequence);
        }
    }

    void retire(final int oldSessionId)
    {
        retiredSessionIds[retiredNext] = oldSessionId;
        retiredNext = (retiredNext + 1) % RETIRED_SESSIONS;
        retiredCount = Math.min(retiredCount + 1, RETIRED_SESSIONS);
    }

    boolean isRetired(final int candidateSessionId)
    {
        for (int i = 0; i < retiredCount; i++)
        {
            if (retiredSessionIds[i] == candidateSessionId)
            {
                return true;
            }
        }
        return false;
    }

    /** Called on Aeron's conductor thread when an image of the incremental subscription goes away. */
    void onImageLost(final int lostSessionId)
    {
        lostImage.set((1L << 32) | (lostSessionId & 0xFFFF_FFFFL));
    }

    /** @return true, once, when the image of the followed session was reported lost. */
    boolean takeLostImageOfFollowedSession()
    {
        final long value = lostImage.get();
        if (NO_LOST_IMAGE == value)
        {
            return false;
        }
        lostImage.compareAndSet(value, NO_LOST_IMAGE);
        return joined && (int)value == sessionId;
    }
}
