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
    public static final int COUNTER_COUNT = 9 + MalformedReason.values().length;

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
    }

    /** {@inheritDoc} */
    public String toString()
    {
        return "packets=" + packets() + " messages=" + messages() + " heartbeats=" + heartbeats() +
            " gaps=" + gaps() + " missing=" + missingMessages() + " duplicatePackets=" + duplicatePackets() +
            " malformed=" + malformed() + " listenerErrors=" + listenerErrors();
    }
}
