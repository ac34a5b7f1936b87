package io.mdfanout.feed.handler;

/**
 * Tracks the MoldUDP64 sequence of one session: which messages of a packet are new, which were
 * seen already, and where messages were lost.
 * <p>
 * Used by the single-source {@link MoldUdp64PacketProcessor} (replay): a gap is reported and
 * skipped over at once. The live feed's A/B arbitration and gap recovery is {@link LineArbiter}.
 * <p>
 * The expected sequence only advances over messages actually processed
 * ({@link #onMessageProcessed(long)}), so messages dropped from a malformed packet show up as
 * a gap when the next packet arrives.
 */
public final class SequenceTracker
{
    /** Returned by {@link #onDataPacket(long, int)} when every message of the packet was seen already. */
    public static final int ALL_SEEN = -1;

    /** Receives the gaps the tracker detects. */
    @FunctionalInterface
    public interface GapHandler
    {
        /**
         * Messages were lost.
         *
         * @param firstMissing first missing sequence.
         * @param lastMissing  last missing sequence, inclusive.
         */
        void onGap(long firstMissing, long lastMissing);
    }

    private final GapHandler gapHandler;
    private final FeedHandlerCounters counters;
    private long nextExpected;

    /**
     * Create a tracker expecting {@code firstExpected} next.
     *
     * @param firstExpected sequence expected first; 1 for a session followed from its start.
     * @param gapHandler    told about every gap.
     * @param counters      gap and duplicate counters.
     */
    public SequenceTracker(final long firstExpected, final GapHandler gapHandler, final FeedHandlerCounters counters)
    {
        this.nextExpected = firstExpected;
        this.gapHandler = gapHandler;
        this.counters = counters;
    }

    /** Sequence number of the next message to process. */
    public long nextExpected()
    {
        return nextExpected;
    }

    /**
     * A data packet arrived: report a gap before it, count the messages seen already.
     *
     * @param sequence     sequence of the packet's first message.
     * @param messageCount messages in the packet (1 to 65534).
     * @return index in the packet of the first message to process, or {@link #ALL_SEEN}.
     */
    public int onDataPacket(final long sequence, final int messageCount)
    {
        final long end = sequence + messageCount;
        if (end <= nextExpected)
        {
            counters.duplicatePackets().incrementRelease();
            counters.duplicateMessages().getAndAddRelease(messageCount);
            return ALL_SEEN;
        }

        if (sequence > nextExpected)
        {
            gap(sequence);
            return 0;
        }

        final int seen = (int)(nextExpected - sequence);
        if (seen > 0)
        {
            counters.duplicateMessages().getAndAddRelease(seen);
        }
        return seen;
    }

    /**
     * A message was processed (published, or counted and skipped as bad): the next one is expected.
     *
     * @param sequence of the message.
     */
    public void onMessageProcessed(final long sequence)
    {
        nextExpected = sequence + 1;
    }

    /**
     * A heartbeat or end-of-session packet announced the next sequence: a value above the
     * expected one means messages were lost.
     *
     * @param nextSequence the sequence the packet carries.
     */
    public void onNextSequenceAnnounced(final long nextSequence)
    {
        if (nextSequence > nextExpected)
        {
            gap(nextSequence);
        }
    }

    private void gap(final long sequenceSeen)
    {
        final long firstMissing = nextExpected;
        final long lastMissing = sequenceSeen - 1;
        counters.gaps().incrementRelease();
        counters.missingMessages().getAndAddRelease(lastMissing - firstMissing + 1);
        nextExpected = sequenceSeen;
        gapHandler.onGap(firstMissing, lastMissing);
    }
}
