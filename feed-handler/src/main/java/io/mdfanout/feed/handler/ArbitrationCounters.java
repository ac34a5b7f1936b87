package io.mdfanout.feed.handler;

import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

import static io.mdfanout.wire.MdfanoutCounters.FEED_BEHIND_RINGS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_DECLARED_MISSING_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_ENDED_SESSION_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_GAPS_DECLARED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_GAPS_DETECTED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_GAPS_FILLED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_LINES_SILENT_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_LINE_DUPLICATE_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_LINE_GAP_FILL_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_LINE_MESSAGES_ACCEPTED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_LINE_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_MESSAGES_HELD_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RETRANSMIT_REQUESTS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RETRANSMIT_FOLLOW_UPS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RETRANSMIT_RETRIES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RETRANSMIT_SERVER_ANSWERS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RETRANSMIT_SEND_ERRORS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RETRANSMIT_TIMEOUTS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_GLIMPSE_REBUILDS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_GLIMPSE_REBUILD_FAILURES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RING_STALLS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RING_STALL_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_SESSIONS_ADOPTED_TYPE_ID;

/**
 * Counters of A/B line arbitration and MoldUDP64 gap recovery, per line (A, B and the
 * retransmission channel R) and for the recovery as a whole. Single writer (the feed-handler
 * thread); gauges are set with a release store, totals incremented with release adds.
 */
public final class ArbitrationCounters implements AutoCloseable
{
    /** Line A: the primary multicast feed. */
    public static final int LINE_A = 0;
    /** Line B: the redundant multicast feed. */
    public static final int LINE_B = 1;
    /** Line R: replies of the retransmission server. */
    public static final int LINE_R = 2;
    /** Lines counted. */
    public static final int LINE_COUNT = 3;

    private static final String[] LINE_NAMES = { "A", "B", "R" };

    private final AtomicCounter[] packets = new AtomicCounter[LINE_COUNT];
    private final AtomicCounter[] accepted = new AtomicCounter[LINE_COUNT];
    private final AtomicCounter[] duplicates = new AtomicCounter[LINE_COUNT];
    private final AtomicCounter[] fills = new AtomicCounter[LINE_COUNT];
    private final AtomicCounter requestsSent;
    private final AtomicCounter requestsRetried;
    private final AtomicCounter requestsTimedOut;
    private final AtomicCounter requestSendErrors;
    private final AtomicCounter requestsFollowedUp;
    private final AtomicCounter retransmitServerAnswers;
    private final AtomicCounter behindRings;
    private final AtomicCounter gapsDetected;
    private final AtomicCounter gapsFilled;
    private final AtomicCounter gapsDeclared;
    private final AtomicCounter declaredMissingMessages;
    private final AtomicCounter messagesHeld;
    private final AtomicCounter linesSilent;
    private final AtomicCounter sessionsAdopted;
    private final AtomicCounter endedSessionPackets;
    private final AtomicCounter ringStalls;
    private final AtomicCounter glimpseRebuilds;
    private final AtomicCounter glimpseRebuildFailures;
    private final AtomicCounter ringStallDroppedMessages;

    /**
     * Allocate the counters.
     *
     * @param countersManager to allocate from.
     * @param labelPrefix     prefix of every label, e.g. "feed-handler".
     */
    public ArbitrationCounters(final CountersManager countersManager, final String labelPrefix)
    {
        for (int line = 0; line < LINE_COUNT; line++)
        {
            final String name = labelPrefix + ": line " + LINE_NAMES[line];
            packets[line] = newLineCounter(countersManager, name + " packets", FEED_LINE_PACKETS_TYPE_ID, line);
            accepted[line] = newLineCounter(
                countersManager, name + " messages accepted first", FEED_LINE_MESSAGES_ACCEPTED_TYPE_ID, line);
            duplicates[line] = newLineCounter(
                countersManager, name + " duplicate messages", FEED_LINE_DUPLICATE_MESSAGES_TYPE_ID, line);
            fills[line] = newLineCounter(
                countersManager, name + " messages that filled a gap", FEED_LINE_GAP_FILL_MESSAGES_TYPE_ID, line);
        }
        requestsSent = countersManager.newCounter(
            labelPrefix + ": retransmission requests sent", FEED_RETRANSMIT_REQUESTS_TYPE_ID);
        requestsRetried = countersManager.newCounter(
            labelPrefix + ": retransmission requests retried", FEED_RETRANSMIT_RETRIES_TYPE_ID);
        requestsTimedOut = countersManager.newCounter(
            labelPrefix + ": retransmission requests timed out", FEED_RETRANSMIT_TIMEOUTS_TYPE_ID);
        requestSendErrors = countersManager.newCounter(
            labelPrefix + ": retransmission request send errors", FEED_RETRANSMIT_SEND_ERRORS_TYPE_ID);
        requestsFollowedUp = countersManager.newCounter(
            labelPrefix + ": partial answers followed up at once", FEED_RETRANSMIT_FOLLOW_UPS_TYPE_ID);
        retransmitServerAnswers = countersManager.newCounter(
            labelPrefix + ": re-request server answers (gauge: 0 unknown, 1 one packet, 2 streams)",
            FEED_RETRANSMIT_SERVER_ANSWERS_TYPE_ID);
        behindRings = countersManager.newCounter(
            labelPrefix + ": every packet below what the rings hold (gauge)", FEED_BEHIND_RINGS_TYPE_ID);
        gapsDetected = countersManager.newCounter(labelPrefix + ": gaps detected", FEED_GAPS_DETECTED_TYPE_ID);
        gapsFilled = countersManager.newCounter(labelPrefix + ": gaps filled", FEED_GAPS_FILLED_TYPE_ID);
        gapsDeclared = countersManager.newCounter(
            labelPrefix + ": gaps declared unrecoverable", FEED_GAPS_DECLARED_TYPE_ID);
        declaredMissingMessages = countersManager.newCounter(
            labelPrefix + ": messages missing in declared gaps", FEED_DECLARED_MISSING_MESSAGES_TYPE_ID);
        messagesHeld = countersManager.newCounter(
            labelPrefix + ": messages held behind a gap (gauge)", FEED_MESSAGES_HELD_TYPE_ID);
        linesSilent = countersManager.newCounter(labelPrefix + ": lines silent (gauge)", FEED_LINES_SILENT_TYPE_ID);
        sessionsAdopted = countersManager.newCounter(
            labelPrefix + ": new sessions adopted after end of session", FEED_SESSIONS_ADOPTED_TYPE_ID);
        endedSessionPackets = countersManager.newCounter(
            labelPrefix + ": packets of an ended session ignored", FEED_ENDED_SESSION_PACKETS_TYPE_ID);
        ringStalls = countersManager.newCounter(
            labelPrefix + ": ring stalls (a ring full past the ring-full wait)", FEED_RING_STALLS_TYPE_ID);
        ringStallDroppedMessages = countersManager.newCounter(
            labelPrefix + ": messages received while a ring stalled (requested or declared after)",
            FEED_RING_STALL_MESSAGES_TYPE_ID);
        glimpseRebuilds = countersManager.newCounter(
            labelPrefix + ": rings rebuilt from the exchange's snapshot after a declared gap", FEED_GLIMPSE_REBUILDS_TYPE_ID);
        glimpseRebuildFailures = countersManager.newCounter(
            labelPrefix + ": rebuilds not done (the snapshot did not load, or was behind the feed)",
            FEED_GLIMPSE_REBUILD_FAILURES_TYPE_ID);
    }

    /** Rings rebuilt from the exchange's snapshot (GLIMPSE) after a declared gap. */
    public AtomicCounter glimpseRebuilds()
    {
        return glimpseRebuilds;
    }

    /** Rebuilds not done: the exchange's snapshot did not load, or it was behind the feed. */
    public AtomicCounter glimpseRebuildFailures()
    {
        return glimpseRebuildFailures;
    }

    private static AtomicCounter newLineCounter(
        final CountersManager countersManager, final String label, final int typeId, final int line)
    {
        // Key: the line index, from which the metrics' label line is derived.
        return countersManager.newCounter(label, typeId, (key) -> key.putInt(0, line));
    }

    /** Times a ring stayed full past the ring-full wait: the feed handler stopped writing and read on. */
    public AtomicCounter ringStalls()
    {
        return ringStalls;
    }

    /** Messages received while stalled: not written, requested (or declared) once the rings drain. */
    public AtomicCounter ringStallDroppedMessages()
    {
        return ringStallDroppedMessages;
    }

    /** Name of a line: "A", "B" or "R". */
    public static String lineName(final int line)
    {
        return LINE_NAMES[line];
    }

    /** Datagrams received on {@code line} (valid or not). */
    public AtomicCounter packets(final int line)
    {
        return packets[line];
    }

    /** Messages {@code line} delivered first (gap fills included). */
    public AtomicCounter accepted(final int line)
    {
        return accepted[line];
    }

    /** Messages of {@code line} dropped because another line (or itself) delivered them already. */
    public AtomicCounter duplicates(final int line)
    {
        return duplicates[line];
    }

    /** Messages of {@code line} that filled a missing sequence of an open gap. */
    public AtomicCounter fills(final int line)
    {
        return fills[line];
    }

    /** Retransmission requests sent (first attempts). */
    public AtomicCounter requestsSent()
    {
        return requestsSent;
    }

    /** Retransmission requests sent again after a timeout. */
    public AtomicCounter requestsRetried()
    {
        return requestsRetried;
    }

    /** Retransmission requests whose reply did not complete within the timeout. */
    public AtomicCounter requestsTimedOut()
    {
        return requestsTimedOut;
    }

    /** Partial answers of a one-packet re-request server followed at once by a request for the rest. */
    public AtomicCounter requestsFollowedUp()
    {
        return requestsFollowedUp;
    }

    /** Gauge: how the re-request server answers, the ordinal of {@link LineArbiter.ServerAnswers}. */
    public AtomicCounter retransmitServerAnswers()
    {
        return retransmitServerAnswers;
    }

    /** Gauge: 1 while the feed has been below what the rings hold for the line silence. */
    public AtomicCounter behindRings()
    {
        return behindRings;
    }

    /** Retransmission requests the socket failed to send (they time out and are retried). */
    public AtomicCounter requestSendErrors()
    {
        return requestSendErrors;
    }

    /** Gaps detected (by data beyond the expected sequence or by a heartbeat). */
    public AtomicCounter gapsDetected()
    {
        return gapsDetected;
    }

    /** Gaps completely filled by another line or by retransmission. */
    public AtomicCounter gapsFilled()
    {
        return gapsFilled;
    }

    /** Gaps declared unrecoverable (each published as a GapNotice). */
    public AtomicCounter gapsDeclared()
    {
        return gapsDeclared;
    }

    /** Messages missing in the declared gaps. */
    public AtomicCounter declaredMissingMessages()
    {
        return declaredMissingMessages;
    }

    /** Gauge: messages held behind an open gap now. */
    public AtomicCounter messagesHeld()
    {
        return messagesHeld;
    }

    /** Gauge: lines silent for longer than the silence threshold now. */
    public AtomicCounter linesSilent()
    {
        return linesSilent;
    }

    /** New sessions adopted after an end of session. */
    public AtomicCounter sessionsAdopted()
    {
        return sessionsAdopted;
    }

    /** Packets of a session that has ended: ignored. */
    public AtomicCounter endedSessionPackets()
    {
        return endedSessionPackets;
    }

    /** Free the counters in their manager. */
    public void close()
    {
        CloseHelper.closeAll(packets);
        CloseHelper.closeAll(accepted);
        CloseHelper.closeAll(duplicates);
        CloseHelper.closeAll(fills);
        CloseHelper.closeAll(
            requestsSent, requestsRetried, requestsTimedOut, requestSendErrors, requestsFollowedUp,
            retransmitServerAnswers, behindRings, gapsDetected, gapsFilled, gapsDeclared, declaredMissingMessages, messagesHeld,
            linesSilent, sessionsAdopted, endedSessionPackets, ringStalls, ringStallDroppedMessages, glimpseRebuilds,
            glimpseRebuildFailures);
    }
}
