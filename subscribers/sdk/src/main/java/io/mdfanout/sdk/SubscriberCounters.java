package io.mdfanout.sdk;

import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

/**
 * Counters of a {@link FeedSubscriber}. Written only by the polling thread (release semantics),
 * readable from any thread through the {@link CountersManager} they were allocated from.
 */
public final class SubscriberCounters implements AutoCloseable
{
    /** Counter type id of every subscriber counter. */
    public static final int SUBSCRIBER_COUNTER_TYPE_ID = 7001_100;
    /** How many counters one instance allocates. */
    public static final int COUNTER_COUNT = 23 + MalformedReason.values().length + StaleReason.values().length;

    private final AtomicCounter packets;
    private final AtomicCounter messages;
    private final AtomicCounter heartbeats;
    private final AtomicCounter gaps;
    private final AtomicCounter missingMessages;
    private final AtomicCounter duplicatePackets;
    private final AtomicCounter duplicateMessages;
    private final AtomicCounter malformed;
    private final AtomicCounter listenerErrors;
    private final AtomicCounter[] malformedByReason;
    private final AtomicCounter staleEvents;
    private final AtomicCounter[] staleByReason;
    private final AtomicCounter recoveries;
    private final AtomicCounter recoveryAttemptsAbandoned;
    private final AtomicCounter snapshotsApplied;
    private final AtomicCounter snapshotsIgnored;
    private final AtomicCounter recoveryBufferOverflows;
    private final AtomicCounter filteredMessages;
    private final AtomicCounter snapshotPackets;
    private final AtomicCounter snapshotGaps;
    private final AtomicCounter malformedSnapshotPackets;
    private final AtomicCounter oldSessionPackets;
    private final AtomicCounter silentStreams;
    private final AtomicCounter subscriptionErrors;

    /**
     * Allocate the counters from a counters manager.
     *
     * @param countersManager where to allocate them.
     * @param name distinguishes this subscriber's counters in labels, e.g. the application name.
     */
    public SubscriberCounters(final CountersManager countersManager, final String name)
    {
        final String prefix = "mdfanout-sdk " + name + ": ";
        packets = countersManager.newCounter(prefix + "packets received", SUBSCRIBER_COUNTER_TYPE_ID);
        messages = countersManager.newCounter(prefix + "messages delivered", SUBSCRIBER_COUNTER_TYPE_ID);
        heartbeats = countersManager.newCounter(prefix + "heartbeats received", SUBSCRIBER_COUNTER_TYPE_ID);
        gaps = countersManager.newCounter(prefix + "stream gaps", SUBSCRIBER_COUNTER_TYPE_ID);
        missingMessages = countersManager.newCounter(prefix + "missing messages", SUBSCRIBER_COUNTER_TYPE_ID);
        duplicatePackets = countersManager.newCounter(prefix + "duplicate packets", SUBSCRIBER_COUNTER_TYPE_ID);
        duplicateMessages = countersManager.newCounter(prefix + "duplicate messages skipped", SUBSCRIBER_COUNTER_TYPE_ID);
        malformed = countersManager.newCounter(prefix + "malformed packets", SUBSCRIBER_COUNTER_TYPE_ID);
        listenerErrors = countersManager.newCounter(prefix + "listener exceptions", SUBSCRIBER_COUNTER_TYPE_ID);
        final MalformedReason[] reasons = MalformedReason.values();
        malformedByReason = new AtomicCounter[reasons.length];
        for (final MalformedReason reason : reasons)
        {
            malformedByReason[reason.ordinal()] = countersManager.newCounter(
                prefix + "malformed packets: " + reason.label(), SUBSCRIBER_COUNTER_TYPE_ID);
        }
        staleEvents = countersManager.newCounter(prefix + "stale events", SUBSCRIBER_COUNTER_TYPE_ID);
        final StaleReason[] staleReasons = StaleReason.values();
        staleByReason = new AtomicCounter[staleReasons.length];
        for (final StaleReason reason : staleReasons)
        {
            staleByReason[reason.ordinal()] = countersManager.newCounter(
                prefix + "stale events: " + reason.label(), SUBSCRIBER_COUNTER_TYPE_ID);
        }
        recoveries = countersManager.newCounter(prefix + "recoveries completed", SUBSCRIBER_COUNTER_TYPE_ID);
        recoveryAttemptsAbandoned = countersManager.newCounter(
            prefix + "recovery attempts abandoned", SUBSCRIBER_COUNTER_TYPE_ID);
        snapshotsApplied = countersManager.newCounter(prefix + "snapshots applied", SUBSCRIBER_COUNTER_TYPE_ID);
        snapshotsIgnored = countersManager.newCounter(
            prefix + "snapshots ignored (other session or too old)", SUBSCRIBER_COUNTER_TYPE_ID);
        recoveryBufferOverflows = countersManager.newCounter(
            prefix + "recovery buffer overflows", SUBSCRIBER_COUNTER_TYPE_ID);
        filteredMessages = countersManager.newCounter(
            prefix + "messages filtered (already in snapshot)", SUBSCRIBER_COUNTER_TYPE_ID);
        snapshotPackets = countersManager.newCounter(prefix + "snapshot packets received", SUBSCRIBER_COUNTER_TYPE_ID);
        snapshotGaps = countersManager.newCounter(prefix + "snapshot stream gaps", SUBSCRIBER_COUNTER_TYPE_ID);
        malformedSnapshotPackets = countersManager.newCounter(
            prefix + "malformed snapshot packets", SUBSCRIBER_COUNTER_TYPE_ID);
        oldSessionPackets = countersManager.newCounter(
            prefix + "old-session packets ignored", SUBSCRIBER_COUNTER_TYPE_ID);
        silentStreams = countersManager.newCounter(prefix + "streams gone silent", SUBSCRIBER_COUNTER_TYPE_ID);
        subscriptionErrors = countersManager.newCounter(
            prefix + "subscription errors", SUBSCRIBER_COUNTER_TYPE_ID);
    }

    /** @return Aeron messages accepted as packets (heartbeats excluded). */
    public long packets()
    {
        return packets.get();
    }

    /** @return normalized messages delivered to the listener. */
    public long messages()
    {
        return messages.get();
    }

    /** @return heartbeats accepted. */
    public long heartbeats()
    {
        return heartbeats.get();
    }

    /** @return gaps detected in stream sequences. */
    public long gaps()
    {
        return gaps.get();
    }

    /** @return stream sequences lost in all gaps. */
    public long missingMessages()
    {
        return missingMessages.get();
    }

    /** @return packets wholly below the expected sequence, skipped. */
    public long duplicatePackets()
    {
        return duplicatePackets.get();
    }

    /** @return messages skipped because their sequence was already delivered (duplicate and overlapping packets). */
    public long duplicateMessages()
    {
        return duplicateMessages.get();
    }

    /** @return malformed Aeron messages, all reasons together. */
    public long malformed()
    {
        return malformed.get();
    }

    /**
     * Malformed Aeron messages rejected for one reason.
     *
     * @param reason the reason.
     * @return the count.
     */
    public long malformed(final MalformedReason reason)
    {
        return malformedByReason[reason.ordinal()].get();
    }

    /** @return exceptions thrown by the listener, caught and counted. */
    public long listenerErrors()
    {
        return listenerErrors.get();
    }

    /** @return times a partition went stale (or restarted its recovery on buffer overflow), all reasons. */
    public long staleEvents()
    {
        return staleEvents.get();
    }

    /**
     * Stale events for one reason.
     *
     * @param reason the reason.
     * @return the count.
     */
    public long staleEvents(final StaleReason reason)
    {
        return staleByReason[reason.ordinal()].get();
    }

    /** @return recoveries completed (snapshot applied, buffer replayed, partition live again). */
    public long recoveries()
    {
        return recoveries.get();
    }

    /** @return snapshot applications abandoned half-way (snapshot loss, incremental gap, overflow, bad snapshot). */
    public long recoveryAttemptsAbandoned()
    {
        return recoveryAttemptsAbandoned.get();
    }

    /** @return snapshots applied completely. */
    public long snapshotsApplied()
    {
        return snapshotsApplied.get();
    }

    /** @return SnapshotBegins passed over: other incremental session or older than the buffered incrementals. */
    public long snapshotsIgnored()
    {
        return snapshotsIgnored.get();
    }

    /** @return recovery buffer overflows (buffer dropped and restarted). */
    public long recoveryBufferOverflows()
    {
        return recoveryBufferOverflows.get();
    }

    /** @return incremental messages not delivered because the applied snapshot already contained them. */
    public long filteredMessages()
    {
        return filteredMessages.get();
    }

    /** @return Aeron messages received on snapshot streams. */
    public long snapshotPackets()
    {
        return snapshotPackets.get();
    }

    /** @return gaps in snapshot stream sequences. */
    public long snapshotGaps()
    {
        return snapshotGaps.get();
    }

    /** @return snapshot stream messages rejected as malformed. */
    public long malformedSnapshotPackets()
    {
        return malformedSnapshotPackets.get();
    }

    /** @return packets and heartbeats from a publisher session replaced by a newer one, ignored. */
    public long oldSessionPackets()
    {
        return oldSessionPackets.get();
    }

    /** @return times a joined stream went silent. */
    public long silentStreams()
    {
        return silentStreams.get();
    }

    /** @return failed (re-)subscriptions reported by Aeron, retried. */
    public long subscriptionErrors()
    {
        return subscriptionErrors.get();
    }

    void onStale(final StaleReason reason)
    {
        staleEvents.incrementRelease();
        staleByReason[reason.ordinal()].incrementRelease();
    }

    void onRecovered()
    {
        recoveries.incrementRelease();
    }

    void onRecoveryAbandoned()
    {
        recoveryAttemptsAbandoned.incrementRelease();
    }

    void onSnapshotApplied()
    {
        snapshotsApplied.incrementRelease();
    }

    void onSnapshotIgnored()
    {
        snapshotsIgnored.incrementRelease();
    }

    void onRecoveryBufferOverflow()
    {
        recoveryBufferOverflows.incrementRelease();
    }

    void onFiltered()
    {
        filteredMessages.incrementRelease();
    }

    void onSnapshotPacket()
    {
        snapshotPackets.incrementRelease();
    }

    void onSnapshotGap()
    {
        snapshotGaps.incrementRelease();
    }

    void onMalformedSnapshot()
    {
        malformedSnapshotPackets.incrementRelease();
    }

    void onOldSession()
    {
        oldSessionPackets.incrementRelease();
    }

    void onSilent()
    {
        silentStreams.incrementRelease();
    }

    void onSubscriptionError()
    {
        subscriptionErrors.incrementRelease();
    }

    void onPacket()
    {
        packets.incrementRelease();
    }

    void onMessage()
    {
        messages.incrementRelease();
    }

    void onHeartbeat()
    {
        heartbeats.incrementRelease();
    }

    void onGap(final long missing)
    {
        gaps.incrementRelease();
        missingMessages.getAndAddRelease(missing);
    }

    void onDuplicatePacket(final long messageCount)
    {
        duplicatePackets.incrementRelease();
        duplicateMessages.getAndAddRelease(messageCount);
    }

    void onOverlap(final long skippedMessages)
    {
        duplicateMessages.getAndAddRelease(skippedMessages);
    }

    void onMalformed(final MalformedReason reason)
    {
        malformed.incrementRelease();
        malformedByReason[reason.ordinal()].incrementRelease();
    }

    void onListenerError()
    {
        listenerErrors.incrementRelease();
    }

    /** Free the counters in their manager. */
    public void close()
    {
        CloseHelper.closeAll(packets, messages, heartbeats, gaps, missingMessages, duplicatePackets,
            duplicateMessages, malformed, listenerErrors);
        CloseHelper.closeAll(malformedByReason);
        CloseHelper.closeAll(staleEvents, recoveries, recoveryAttemptsAbandoned, snapshotsApplied, snapshotsIgnored,
            recoveryBufferOverflows, filteredMessages, snapshotPackets, snapshotGaps, malformedSnapshotPackets,
            oldSessionPackets, silentStreams, subscriptionErrors);
        CloseHelper.closeAll(staleByReason);
    }

    /** {@inheritDoc} */
    public String toString()
    {
        return "packets=" + packets() + " messages=" + messages() + " heartbeats=" + heartbeats() +
            " gaps=" + gaps() + " missing=" + missingMessages() + " duplicatePackets=" + duplicatePackets() +
            " malformed=" + malformed() + " listenerErrors=" + listenerErrors() + " stale=" + staleEvents() +
            " recoveries=" + recoveries() + " abandoned=" + recoveryAttemptsAbandoned() +
            " snapshotsApplied=" + snapshotsApplied() + " snapshotsIgnored=" + snapshotsIgnored() +
            " bufferOverflows=" + recoveryBufferOverflows() + " filtered=" + filteredMessages() +
            " snapshotPackets=" + snapshotPackets() + " snapshotGaps=" + snapshotGaps() +
            " oldSession=" + oldSessionPackets() + " silent=" + silentStreams();
    }
}
