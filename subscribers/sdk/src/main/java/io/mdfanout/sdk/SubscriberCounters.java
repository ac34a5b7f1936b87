package io.mdfanout.sdk;

import io.mdfanout.wire.MdfanoutCounters;
import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_DUPLICATE_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_DUPLICATE_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_FILTERED_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_GAPS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_HEARTBEATS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_LISTENER_ERRORS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_MALFORMED_BY_REASON_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_MALFORMED_SNAPSHOT_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_MALFORMED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_MISSING_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_OLD_SESSION_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_RECEIVED_BYTES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_NEW_DAYS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_RECOVERIES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_EXCHANGE_GAP_PARTITIONS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_RECOVERING_PARTITIONS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_RECOVERY_ATTEMPTS_ABANDONED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_RECOVERY_BUFFER_OVERFLOWS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SILENT_STREAMS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SNAPSHOTS_APPLIED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SNAPSHOTS_IGNORED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SNAPSHOT_GAPS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SNAPSHOT_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_STALE_BY_REASON_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_STALE_EVENTS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_STALE_PARTITIONS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_REPLAYED_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_REPLAY_SWITCHES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SIDE_BEHIND_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SIDE_DUPLICATES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SIDE_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SIDE_MISMATCHES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SIDE_REFUSED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SIDE_SILENT_PARTITIONS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SUBSCRIPTION_ERRORS_TYPE_ID;

/**
 * Counters of a {@link FeedSubscriber}. Written only by the polling thread (release semantics),
 * readable from any thread through the {@link CountersManager} they were allocated from.
 */
public final class SubscriberCounters implements AutoCloseable
{
    /** How many counters one instance allocates. */
    public static final int COUNTER_COUNT =
        29 + MalformedReason.values().length + StaleReason.values().length + 6 * FeedSubscriber.MAX_SIDES;
    /** The sides' names in counters, metrics and messages: index 0 is A. */
    static final String[] SIDE_NAMES = {"A", "B"};

    private final AtomicCounter packets;
    private final AtomicCounter receivedBytes;
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
    private final AtomicCounter newDays;
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
    private final AtomicCounter replaySwitches;
    private final AtomicCounter replayedMessages;
    private final AtomicCounter stalePartitions;
    private final AtomicCounter exchangeGapPartitions;
    private final AtomicCounter recoveringPartitions;
    private final AtomicCounter[] sideMessages = new AtomicCounter[FeedSubscriber.MAX_SIDES];
    private final AtomicCounter[] sideDuplicates = new AtomicCounter[FeedSubscriber.MAX_SIDES];
    private final AtomicCounter[] sideRefused = new AtomicCounter[FeedSubscriber.MAX_SIDES];
    private final AtomicCounter[] sideSilentPartitions = new AtomicCounter[FeedSubscriber.MAX_SIDES];
    private final AtomicCounter[] sideBehind = new AtomicCounter[FeedSubscriber.MAX_SIDES];
    private final AtomicCounter[] sideMismatches = new AtomicCounter[FeedSubscriber.MAX_SIDES];

    /**
     * Allocate the counters from a counters manager.
     *
     * @param countersManager where to allocate them.
     * @param name distinguishes this subscriber's counters in labels, e.g. the application name.
     */
    public SubscriberCounters(final CountersManager countersManager, final String name)
    {
        final String prefix = "mdfanout-sdk " + name + ": ";
        packets = newCounter(countersManager, prefix + "packets received", SUBSCRIBER_PACKETS_TYPE_ID, name);
        receivedBytes = newCounter(countersManager, prefix + "bytes received", SUBSCRIBER_RECEIVED_BYTES_TYPE_ID, name);
        messages = newCounter(countersManager, prefix + "messages delivered", SUBSCRIBER_MESSAGES_TYPE_ID, name);
        heartbeats = newCounter(countersManager, prefix + "heartbeats received", SUBSCRIBER_HEARTBEATS_TYPE_ID, name);
        gaps = newCounter(countersManager, prefix + "stream gaps", SUBSCRIBER_GAPS_TYPE_ID, name);
        missingMessages = newCounter(
            countersManager, prefix + "missing messages", SUBSCRIBER_MISSING_MESSAGES_TYPE_ID, name);
        duplicatePackets = newCounter(
            countersManager, prefix + "duplicate packets", SUBSCRIBER_DUPLICATE_PACKETS_TYPE_ID, name);
        duplicateMessages = newCounter(
            countersManager, prefix + "duplicate messages skipped", SUBSCRIBER_DUPLICATE_MESSAGES_TYPE_ID, name);
        malformed = newCounter(countersManager, prefix + "malformed packets", SUBSCRIBER_MALFORMED_TYPE_ID, name);
        listenerErrors = newCounter(
            countersManager, prefix + "listener exceptions", SUBSCRIBER_LISTENER_ERRORS_TYPE_ID, name);
        final MalformedReason[] reasons = MalformedReason.values();
        malformedByReason = new AtomicCounter[reasons.length];
        for (final MalformedReason reason : reasons)
        {
            malformedByReason[reason.ordinal()] = countersManager.newCounter(
                prefix + "malformed packets: " + reason.label(),
                SUBSCRIBER_MALFORMED_BY_REASON_TYPE_ID,
                (key) -> MdfanoutCounters.putSubscriberReasonKey(key, name, reason.label()));
        }
        staleEvents = newCounter(countersManager, prefix + "stale events", SUBSCRIBER_STALE_EVENTS_TYPE_ID, name);
        final StaleReason[] staleReasons = StaleReason.values();
        staleByReason = new AtomicCounter[staleReasons.length];
        for (final StaleReason reason : staleReasons)
        {
            staleByReason[reason.ordinal()] = countersManager.newCounter(
                prefix + "stale events: " + reason.label(),
                SUBSCRIBER_STALE_BY_REASON_TYPE_ID,
                (key) -> MdfanoutCounters.putSubscriberReasonKey(key, name, reason.label()));
        }
        recoveries = newCounter(countersManager, prefix + "recoveries completed", SUBSCRIBER_RECOVERIES_TYPE_ID, name);
        newDays = newCounter(countersManager, prefix + "streams started again for a new day", SUBSCRIBER_NEW_DAYS_TYPE_ID,
            name);
        recoveryAttemptsAbandoned = newCounter(
            countersManager,
            prefix + "recovery attempts abandoned",
            SUBSCRIBER_RECOVERY_ATTEMPTS_ABANDONED_TYPE_ID,
            name);
        snapshotsApplied = newCounter(
            countersManager, prefix + "snapshots applied", SUBSCRIBER_SNAPSHOTS_APPLIED_TYPE_ID, name);
        snapshotsIgnored = newCounter(
            countersManager,
            prefix + "snapshots ignored (other session or too old)",
            SUBSCRIBER_SNAPSHOTS_IGNORED_TYPE_ID,
            name);
        recoveryBufferOverflows = newCounter(
            countersManager, prefix + "recovery buffer overflows", SUBSCRIBER_RECOVERY_BUFFER_OVERFLOWS_TYPE_ID, name);
        filteredMessages = newCounter(
            countersManager,
            prefix + "messages filtered (already in snapshot)",
            SUBSCRIBER_FILTERED_MESSAGES_TYPE_ID,
            name);
        snapshotPackets = newCounter(
            countersManager, prefix + "snapshot packets received", SUBSCRIBER_SNAPSHOT_PACKETS_TYPE_ID, name);
        snapshotGaps = newCounter(
            countersManager, prefix + "snapshot stream gaps", SUBSCRIBER_SNAPSHOT_GAPS_TYPE_ID, name);
        malformedSnapshotPackets = newCounter(
            countersManager,
            prefix + "malformed snapshot packets",
            SUBSCRIBER_MALFORMED_SNAPSHOT_PACKETS_TYPE_ID,
            name);
        oldSessionPackets = newCounter(
            countersManager, prefix + "old-session packets ignored", SUBSCRIBER_OLD_SESSION_PACKETS_TYPE_ID, name);
        silentStreams = newCounter(
            countersManager, prefix + "streams gone silent", SUBSCRIBER_SILENT_STREAMS_TYPE_ID, name);
        subscriptionErrors = newCounter(
            countersManager, prefix + "subscription errors", SUBSCRIBER_SUBSCRIPTION_ERRORS_TYPE_ID, name);
        replaySwitches = newCounter(
            countersManager, prefix + "replay switches to live", SUBSCRIBER_REPLAY_SWITCHES_TYPE_ID, name);
        replayedMessages = newCounter(
            countersManager, prefix + "messages replayed from the archive", SUBSCRIBER_REPLAYED_MESSAGES_TYPE_ID, name);
        stalePartitions = newCounter(
            countersManager, prefix + "partitions stale now", SUBSCRIBER_STALE_PARTITIONS_TYPE_ID, name);
        recoveringPartitions = newCounter(
            countersManager, prefix + "partitions recovering now", SUBSCRIBER_RECOVERING_PARTITIONS_TYPE_ID, name);
        exchangeGapPartitions = newCounter(countersManager, prefix + "partitions with exchange messages lost for good",
            SUBSCRIBER_EXCHANGE_GAP_PARTITIONS_TYPE_ID, name);
        for (int side = 0; side < FeedSubscriber.MAX_SIDES; side++)
        {
            final String sideName = SIDE_NAMES[side];
            final String sidePrefix = prefix + "side " + sideName + ": ";
            sideMessages[side] = newSideCounter(countersManager, sidePrefix + "messages delivered first",
                SUBSCRIBER_SIDE_MESSAGES_TYPE_ID, name, sideName);
            sideDuplicates[side] = newSideCounter(countersManager, sidePrefix + "messages the other side delivered",
                SUBSCRIBER_SIDE_DUPLICATES_TYPE_ID, name, sideName);
            sideRefused[side] = newSideCounter(countersManager, sidePrefix + "packets refused (side disagrees)",
                SUBSCRIBER_SIDE_REFUSED_TYPE_ID, name, sideName);
            sideSilentPartitions[side] = newSideCounter(countersManager, sidePrefix + "partitions silent now",
                SUBSCRIBER_SIDE_SILENT_PARTITIONS_TYPE_ID, name, sideName);
            sideBehind[side] = newSideCounter(countersManager, sidePrefix + "exchange sequences behind",
                SUBSCRIBER_SIDE_BEHIND_TYPE_ID, name, sideName);
            sideMismatches[side] = newSideCounter(countersManager, sidePrefix + "copies that differ from the delivered",
                SUBSCRIBER_SIDE_MISMATCHES_TYPE_ID, name, sideName);
        }
    }

    private static AtomicCounter newSideCounter(
        final CountersManager countersManager, final String label, final int typeId, final String name,
        final String side)
    {
        return countersManager.newCounter(label, typeId, (key) -> MdfanoutCounters.putSubscriberReasonKey(key, name, side));
    }

    private static AtomicCounter newCounter(
        final CountersManager countersManager, final String label, final int typeId, final String name)
    {
        // Key: the subscriber's name, from which the metrics' label subscriber is derived.
        return countersManager.newCounter(label, typeId, (key) -> MdfanoutCounters.putSubscriberKey(key, name));
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

    /**
     * @return stream sequences lost in all gaps. In a pair, chain positions (exchange sequences): they number every
     * partition's messages together, so a pair's gap counts the other partitions' messages in its span too.
     */
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

    /** @return partition streams that started again at their first message after the exchange ended the day. */
    public long newDays()
    {
        return newDays.get();
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

    /** @return partitions switched from an archive replay to the live stream. */
    public long replaySwitches()
    {
        return replaySwitches.get();
    }

    /** @return messages delivered from an archive replay, the state before the start point included. */
    public long replayedMessages()
    {
        return replayedMessages.get();
    }

    /**
     * Partitions stale now, as {@code FeedSubscriber.isStale} says (recovering, or their source down): a gauge, unlike
     * {@link #staleEvents()}, so that an alert sees a partition that stays stale for as long as it stays stale.
     *
     * @return partitions stale at the last poll.
     */
    public long stalePartitions()
    {
        return stalePartitions.get();
    }

    /** @return partitions recovering at the last poll ({@code FeedSubscriber.isRecovering}): a gauge. */
    public long recoveringPartitions()
    {
        return recoveringPartitions.get();
    }

    /** @return partitions whose session lost exchange messages for good ({@code FeedSubscriber.hasExchangeGap}). */
    public long exchangeGapPartitions()
    {
        return exchangeGapPartitions.get();
    }

    void stalePartitions(final int stale, final int recovering, final int exchangeGap)
    {
        stalePartitions.setRelease(stale);
        recoveringPartitions.setRelease(recovering);
        exchangeGapPartitions.setRelease(exchangeGap);
    }

    void onReplaySwitch()
    {
        replaySwitches.incrementRelease();
    }

    void onReplayed(final long messages)
    {
        replayedMessages.getAndAddRelease(messages);
    }

    void onStale(final StaleReason reason)
    {
        staleEvents.incrementRelease();
        staleByReason[reason.ordinal()].incrementRelease();
    }

    void onNewDay()
    {
        newDays.incrementRelease();
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

    /**
     * Messages lost on the incremental stream that the last snapshot applied already holds: skipped like the messages
     * its filter skips, never a gap.
     */
    void onCoveredLoss(final long messages)
    {
        if (messages > 0)
        {
            filteredMessages.getAndAddRelease(messages);
        }
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

    /** An Aeron message of an incremental or snapshot stream arrived, whatever becomes of it. */
    void onReceived(final int length)
    {
        receivedBytes.getAndAddRelease(length);
    }

    /**
     * @return bytes of the Aeron messages received on every stream subscribed (packets, heartbeats, snapshots, malformed
     *         ones included): what the subscriber's streams cost it.
     */
    public long receivedBytes()
    {
        return receivedBytes.get();
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

    void onSideMessages(final int side, final int count)
    {
        sideMessages[side].getAndAddRelease(count);
    }

    void onSideDuplicates(final int side, final int count)
    {
        sideDuplicates[side].getAndAddRelease(count);
    }

    void onSideRefused(final int side)
    {
        sideRefused[side].incrementRelease();
    }

    void onSideMismatch(final int side)
    {
        sideMismatches[side].incrementRelease();
    }

    void sideSilentPartitions(final int side, final int partitions)
    {
        sideSilentPartitions[side].setRelease(partitions);
    }

    void sideBehind(final int side, final long exchangeSequences)
    {
        sideBehind[side].setRelease(exchangeSequences);
    }

    /**
     * @param side 0 for A, 1 for B.
     * @return messages of a pair's side delivered because it had them first.
     */
    public long sideMessages(final int side)
    {
        return sideMessages[side].get();
    }

    /**
     * @param side 0 for A, 1 for B.
     * @return messages of a pair's side dropped because the other side had delivered them.
     */
    public long sideDuplicates(final int side)
    {
        return sideDuplicates[side].get();
    }

    /**
     * @param side 0 for A, 1 for B.
     * @return packets of a pair's side refused because it disagrees with the other side.
     */
    public long sideRefused(final int side)
    {
        return sideRefused[side].get();
    }

    /**
     * @param side 0 for A, 1 for B.
     * @return a pair's side: its copies of delivered messages whose bytes differed from them (each takes the side
     * out until the next trading day).
     */
    public long sideMismatches(final int side)
    {
        return sideMismatches[side].get();
    }

    /**
     * @param side 0 for A, 1 for B.
     * @return partitions on which a pair's side is silent now.
     */
    public long sideSilentPartitions(final int side)
    {
        return sideSilentPartitions[side].get();
    }

    /**
     * @param side 0 for A, 1 for B.
     * @return exchange sequences a pair's side is behind what was delivered, the most over its partitions.
     */
    public long sideBehind(final int side)
    {
        return sideBehind[side].get();
    }

    /** Free the counters in their manager. */
    public void close()
    {
        CloseHelper.closeAll(packets, receivedBytes, messages, heartbeats, gaps, missingMessages, duplicatePackets,
            duplicateMessages, malformed, listenerErrors);
        CloseHelper.closeAll(malformedByReason);
        CloseHelper.closeAll(staleEvents, recoveries, newDays, recoveryAttemptsAbandoned, snapshotsApplied, snapshotsIgnored,
            recoveryBufferOverflows, filteredMessages, snapshotPackets, snapshotGaps, malformedSnapshotPackets,
            oldSessionPackets, silentStreams, subscriptionErrors, stalePartitions, recoveringPartitions,
            exchangeGapPartitions, replaySwitches, replayedMessages);
        CloseHelper.closeAll(staleByReason);
        CloseHelper.closeAll(sideMessages);
        CloseHelper.closeAll(sideDuplicates);
        CloseHelper.closeAll(sideRefused);
        CloseHelper.closeAll(sideSilentPartitions);
        CloseHelper.closeAll(sideBehind);
        CloseHelper.closeAll(sideMismatches);
    }

    /** {@inheritDoc} */
    public String toString()
    {
        return "packets=" + packets() + " bytes=" + receivedBytes() + " messages=" + messages() + " heartbeats=" + heartbeats() +
            " gaps=" + gaps() + " missing=" + missingMessages() + " duplicatePackets=" + duplicatePackets() +
            " malformed=" + malformed() + " listenerErrors=" + listenerErrors() + " stale=" + staleEvents() +
            " recoveries=" + recoveries() + " abandoned=" + recoveryAttemptsAbandoned() +
            " snapshotsApplied=" + snapshotsApplied() + " snapshotsIgnored=" + snapshotsIgnored() +
            " bufferOverflows=" + recoveryBufferOverflows() + " filtered=" + filteredMessages() +
            " snapshotPackets=" + snapshotPackets() + " snapshotGaps=" + snapshotGaps() +
            " oldSession=" + oldSessionPackets() + " silent=" + silentStreams() + " newDays=" + newDays() +
            " sideA=" + sideMessages(0) + "/" + sideDuplicates(0) + "/" + sideRefused(0) +
            " sideB=" + sideMessages(1) + "/" + sideDuplicates(1) + "/" + sideRefused(1);
    }
}
