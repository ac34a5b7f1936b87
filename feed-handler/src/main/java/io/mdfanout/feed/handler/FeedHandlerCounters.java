package io.mdfanout.feed.handler;

import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

/**
 * Counters of the MoldUDP64 receive and sequencing step. Single writer (the feed-handler
 * thread), readable by any thread through the {@link CountersManager}'s buffers. The ITCH
 * decode and ring-write counters are in {@link io.mdfanout.feed.normalize.NormalizerCounters}.
 */
public final class FeedHandlerCounters implements AutoCloseable
{
    private final AtomicCounter packetsReceived;
    private final AtomicCounter bytesReceived;
    private final AtomicCounter truncatedPackets;
    private final AtomicCounter malformedBlocks;
    private final AtomicCounter wrongSession;
    private final AtomicCounter duplicatePackets;
    private final AtomicCounter duplicateMessages;
    private final AtomicCounter gaps;
    private final AtomicCounter missingMessages;
    private final AtomicCounter endOfSession;
    private final AtomicCounter staleEndOfSession;
    private final AtomicCounter heartbeats;
    private final AtomicCounter receiveErrors;
    private final AtomicCounter packetErrors;

    /**
     * Allocate the counters.
     *
     * @param countersManager to allocate from.
     * @param labelPrefix     prefix of every label, e.g. "feed-handler".
     */
    public FeedHandlerCounters(final CountersManager countersManager, final String labelPrefix)
    {
        packetsReceived = countersManager.newCounter(labelPrefix + ": packets received");
        bytesReceived = countersManager.newCounter(labelPrefix + ": bytes received");
        truncatedPackets = countersManager.newCounter(labelPrefix + ": truncated packets");
        malformedBlocks = countersManager.newCounter(labelPrefix + ": malformed message blocks");
        wrongSession = countersManager.newCounter(labelPrefix + ": packets of a wrong session");
        duplicatePackets = countersManager.newCounter(labelPrefix + ": duplicate packets");
        duplicateMessages = countersManager.newCounter(labelPrefix + ": duplicate messages");
        gaps = countersManager.newCounter(labelPrefix + ": sequence gaps");
        missingMessages = countersManager.newCounter(labelPrefix + ": missing messages");
        endOfSession = countersManager.newCounter(labelPrefix + ": end of session packets");
        staleEndOfSession = countersManager.newCounter(labelPrefix + ": stale end of session packets ignored");
        heartbeats = countersManager.newCounter(labelPrefix + ": heartbeats");
        receiveErrors = countersManager.newCounter(labelPrefix + ": socket receive errors");
        packetErrors = countersManager.newCounter(labelPrefix + ": packets failed with an unexpected error");
    }

    /** Datagrams received (every one, valid or not). */
    public AtomicCounter packetsReceived()
    {
        return packetsReceived;
    }

    /** Bytes of datagrams received. */
    public AtomicCounter bytesReceived()
    {
        return bytesReceived;
    }

    /** Datagrams shorter than the MoldUDP64 header: skipped. */
    public AtomicCounter truncatedPackets()
    {
        return truncatedPackets;
    }

    /** Message blocks running past the end of their packet: the rest of the packet is dropped. */
    public AtomicCounter malformedBlocks()
    {
        return malformedBlocks;
    }

    /** Packets of a session other than the configured (or adopted) one: skipped. */
    public AtomicCounter wrongSession()
    {
        return wrongSession;
    }

    /** Packets whose every message had been seen already: skipped. */
    public AtomicCounter duplicatePackets()
    {
        return duplicatePackets;
    }

    /** Messages skipped because their sequence had been seen already (whole or overlapping packets). */
    public AtomicCounter duplicateMessages()
    {
        return duplicateMessages;
    }

    /** Sequence gaps detected (each published as a GapNotice). */
    public AtomicCounter gaps()
    {
        return gaps;
    }

    /** Messages lost in gaps. */
    public AtomicCounter missingMessages()
    {
        return missingMessages;
    }

    /** End-of-session packets received and honoured (stale ones are counted by {@link #staleEndOfSession()}). */
    public AtomicCounter endOfSession()
    {
        return endOfSession;
    }

    /**
     * End-of-session packets of the current session name whose sequence is below one already received or
     * announced: they claim the session ended before messages that exist (a stray packet, e.g. of another
     * sender reusing the session name on the same group, or a late copy), so they are ignored.
     */
    public AtomicCounter staleEndOfSession()
    {
        return staleEndOfSession;
    }

    /** Heartbeat packets received. */
    public AtomicCounter heartbeats()
    {
        return heartbeats;
    }

    /** Socket receive calls that failed with an I/O error. */
    public AtomicCounter receiveErrors()
    {
        return receiveErrors;
    }

    /** Packets whose processing hit an unexpected exception (a bug): the rest of that packet is dropped. */
    public AtomicCounter packetErrors()
    {
        return packetErrors;
    }

    /** Free the counters in their manager. */
    public void close()
    {
        CloseHelper.closeAll(
            packetsReceived, bytesReceived, truncatedPackets, malformedBlocks, wrongSession, duplicatePackets,
            duplicateMessages, gaps, missingMessages, endOfSession, staleEndOfSession, heartbeats, receiveErrors,
            packetErrors);
    }
}
