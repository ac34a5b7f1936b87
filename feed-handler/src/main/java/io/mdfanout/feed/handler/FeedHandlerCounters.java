package io.mdfanout.feed.handler;

import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

import static io.mdfanout.wire.MdfanoutCounters.FEED_BYTES_RECEIVED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_DUPLICATE_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_DUPLICATE_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_END_OF_SESSION_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_HEARTBEATS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_INVALID_SEQUENCE_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_MALFORMED_BLOCKS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_MISSING_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_PACKETS_RECEIVED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_PACKET_ERRORS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RECEIVE_ERRORS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_SEQUENCE_GAPS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_STALE_END_OF_SESSION_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_TRUNCATED_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_WRONG_SESSION_PACKETS_TYPE_ID;

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
    private final AtomicCounter invalidSequencePackets;
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
        packetsReceived = countersManager.newCounter(labelPrefix + ": packets received", FEED_PACKETS_RECEIVED_TYPE_ID);
        bytesReceived = countersManager.newCounter(labelPrefix + ": bytes received", FEED_BYTES_RECEIVED_TYPE_ID);
        truncatedPackets = countersManager.newCounter(
            labelPrefix + ": truncated packets", FEED_TRUNCATED_PACKETS_TYPE_ID);
        invalidSequencePackets = countersManager.newCounter(
            labelPrefix + ": packets with an invalid sequence number", FEED_INVALID_SEQUENCE_PACKETS_TYPE_ID);
        malformedBlocks = countersManager.newCounter(
            labelPrefix + ": malformed message blocks", FEED_MALFORMED_BLOCKS_TYPE_ID);
        wrongSession = countersManager.newCounter(
            labelPrefix + ": packets of a wrong session", FEED_WRONG_SESSION_PACKETS_TYPE_ID);
        duplicatePackets = countersManager.newCounter(
            labelPrefix + ": duplicate packets", FEED_DUPLICATE_PACKETS_TYPE_ID);
        duplicateMessages = countersManager.newCounter(
            labelPrefix + ": duplicate messages", FEED_DUPLICATE_MESSAGES_TYPE_ID);
        gaps = countersManager.newCounter(labelPrefix + ": sequence gaps", FEED_SEQUENCE_GAPS_TYPE_ID);
        missingMessages = countersManager.newCounter(labelPrefix + ": missing messages", FEED_MISSING_MESSAGES_TYPE_ID);
        endOfSession = countersManager.newCounter(
            labelPrefix + ": end of session packets", FEED_END_OF_SESSION_PACKETS_TYPE_ID);
        staleEndOfSession = countersManager.newCounter(
            labelPrefix + ": stale end of session packets ignored", FEED_STALE_END_OF_SESSION_PACKETS_TYPE_ID);
        heartbeats = countersManager.newCounter(labelPrefix + ": heartbeats", FEED_HEARTBEATS_TYPE_ID);
        receiveErrors = countersManager.newCounter(
            labelPrefix + ": socket receive errors", FEED_RECEIVE_ERRORS_TYPE_ID);
        packetErrors = countersManager.newCounter(
            labelPrefix + ": packets failed with an unexpected error", FEED_PACKET_ERRORS_TYPE_ID);
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

    /** @return datagrams whose sequence number no session reaches (2^63 or more), skipped. */
    public AtomicCounter invalidSequencePackets()
    {
        return invalidSequencePackets;
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
            packetsReceived, bytesReceived, truncatedPackets, invalidSequencePackets, malformedBlocks, wrongSession,
            duplicatePackets, duplicateMessages, gaps, missingMessages, endOfSession, staleEndOfSession, heartbeats,
            receiveErrors, packetErrors);
    }
}
