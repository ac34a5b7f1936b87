package io.mdfanout.feed.handler;

import io.mdfanout.feed.moldudp.MoldUdp64Packet;
import io.mdfanout.feed.normalize.ItchNormalizer;
import io.mdfanout.feed.recovery.GapList;
import io.mdfanout.feed.recovery.HoldBuffer;
import io.mdfanout.feed.recovery.RequestRateLimiter;
import io.mdfanout.feed.recovery.RequestSender;
import io.mdfanout.feed.recovery.RequestWindow;
import io.mdfanout.feed.recovery.RetransmitRequestEncoder;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The socket-free core of a redundant MoldUDP64 feed: A/B line arbitration, gap hold and
 * recovery by retransmission request, in strict sequence order into the {@link ItchNormalizer}.
 * <p>
 * Every sequence is taken from whichever line ({@link ArbitrationCounters#LINE_A}, {@code _B},
 * or the retransmission replies {@code _R}) delivers it first; later copies are duplicates. A
 * message beyond the expected sequence opens a gap: it and everything after it are held in a
 * pre-allocated {@link HoldBuffer} until the gap is filled (by any line), then released in order.
 * A gap still open after the gap wait is requested from the re-request server as a window of requests
 * ({@link RequestWindow}: at most {@code --max-outstanding-requests} in flight, 65535 messages each, a rate limit).
 * The specification's server answers a request with one packet and the client asks again for the rest; other
 * servers stream the whole answer. The arbiter learns which from the first partial answer ({@link ServerAnswers}):
 * a partial answer followed by silence means one packet a request (then every partial answer is followed at once
 * by a request for the rest, and requests are sized to one reply); a continuation means the server streams (then
 * a partial answer waits for the rest). A request is sent again, from the first sequence still missing, only when
 * it and (unless the server answers one packet a request) the server have been silent for the retransmit timeout.
 * A gap is given up only on silence: nothing of it arrived for the recovery silence budget, while a request in
 * flight asked for it, and the server was silent as long (or for four budgets whatever the server did: it answers
 * other requests but no longer holds these messages). A gap waiting its turn for room in the window is not silent.
 * A gap that cannot be recovered (no server, silence budget spent, hold window or gap list full) is declared:
 * when the stream reaches it, a GapNotice of exactly its range goes to every partition and the held messages
 * behind it are released.
 * <p>
 * Time is given by the caller ({@code nowNs}, monotonic), so tests drive timers exactly.
 * {@link #poll(long)} runs the timers; call it every duty cycle. Nothing here allocates in steady
 * state and nothing throws: an unexpected exception is counted as a packet error.
 * <p>
 * End of session: the end-of-session packet ends the session once every message before it is
 * processed; a packet of another session name is then adopted (its own sequence is the next
 * expected) and packets of the ended session are counted and ignored. An end-of-session packet
 * whose sequence is below a message already received or announced is stale (it would end the
 * session before data that exists): it is counted ({@link FeedHandlerCounters#staleEndOfSession()})
 * and ignored. A heartbeat below the known end changes nothing, and a data packet below the next
 * expected sequence is a duplicate: stale input never moves the sequence backwards or ends anything.
 * <p>
 * The arbiter is a state machine ({@link State}, read with {@link #state()}): the session states move on
 * packets, the gap states are settled after every datagram and every {@link #poll(long)}.
 * <p>
 * A {@link #singleLine single-line} arbiter (replays, fuzzers) has one line and no recovery: nothing
 * can fill a gap, so every gap is declared as soon as it is seen and nothing is ever held.
 */
public final class LineArbiter
{
    /** The highest sequence number accepted: a packet's last message (up to 65,535 on) must not overflow a long. */
    static final long MAX_SEQUENCE = Long.MAX_VALUE - 0x1_0000;
    /** Told of the session whose messages follow: the first one seen, or one adopted after an end of session. */
    @FunctionalInterface
    public interface SessionListener
    {
        /**
         * @param session       the 10 session bytes (a new array: session changes are rare).
         * @param firstSequence the sequence the arbiter expects next in it.
         */
        void onSession(byte[] session, long firstSequence);

        /**
         * Another session is adopted (a new trading day, numbered from 1 again): before any of its messages.
         *
         * @param sequenceBefore the sequence its first message follows.
         * @return true when the listener moved the normalizer to new rings for it (a new generation); false to
         * go on in the same rings.
         */
        default boolean onNewSession(final long sequenceBefore)
        {
            return false;
        }
    }

    /** The states of the arbiter between two calls. */
    public enum State
    {
        /** No session configured or resumed: the first packet's session is taken. */
        AWAIT_SESSION,
        /** Resumed with the session the rings hold: the first packet confirms it or shows that it is over. */
        AWAIT_CONFIRMATION,
        /** Every sequence up to the highest one known was released: nothing held, no gap open. */
        IN_SEQUENCE,
        /** Gaps are open (messages may be held behind them) and none is requested yet: waiting the gap wait. */
        GAP_HOLDING,
        /** Retransmission requests are outstanding for open gaps. */
        RECOVERING,
        /** A ring stayed full past the ring-full wait: nothing is written, the feed is read on till the rings drain. */
        STALLED,
        /** The end of session was reached: its packets are ignored until another session is adopted. */
        SESSION_ENDED
    }

    /** What the re-request server does with a request for more than one packet's worth, as learned. */
    public enum ServerAnswers
    {
        /** Not known yet: no request was answered in part. */
        UNKNOWN,
        /** One packet a request, as the MoldUDP64 specification says: the client asks again for the rest. */
        ONE_PACKET,
        /** As many packets as the request needs. */
        STREAMS
    }

    /** Most gaps open at once; beyond it the oldest gap is declared. */
    public static final int MAX_OPEN_GAPS = 1024;

    private final MoldUdp64Packet packet = new MoldUdp64Packet();
    private final UnsafeBuffer session = new UnsafeBuffer(new byte[MoldUdp64Packet.SESSION_LENGTH]);
    private final UnsafeBuffer requestBuffer = new UnsafeBuffer(new byte[RetransmitRequestEncoder.LENGTH]);
    private final ItchNormalizer normalizer;
    private final FeedHandlerCounters feedCounters;
    private final ArbitrationCounters counters;
    private final RequestSender requestSender;
    private final RequestRateLimiter rateLimiter;
    private final HoldBuffer hold;
    private final GapList gaps = new GapList(MAX_OPEN_GAPS);
    private final long gapWaitNs;
    private final long retransmitTimeoutNs;
    private final long silenceBudgetNs;
    private final RequestWindow window;
    private final long lineSilenceNs;
    private final int multicastLines;
    /** No line can fill a gap and no server is asked: every gap is declared as soon as it is seen. */
    private final boolean declareGapsAtOnce;
    /** Sequences after the next expected one a message may have and still be held: 1 holds nothing. */
    private final int holdWindow;
    private final long[] lastPacketNs = new long[2];
    private final boolean[] lineSilent = new boolean[2];
    private boolean timersStarted;

    /** Next sequence to release into the normalizer. */
    private long nextExpected = 1;
    /** Sequence after the highest one known to exist (received or announced). */
    private long highestKnownEnd = 1;
    private State state = State.AWAIT_SESSION;
    private long endOfSessionSequence = -1;
    /** The last sequence of this session declared missing (-1: none): reaching the session's end, it lost the end. */
    private long declaredThrough = -1;
    private long now;
    private boolean packetErrorLogged;
    private boolean staleEndOfSessionLogged;
    private boolean resumed;
    private SessionListener sessionListener;
    private long stalledAtNs;
    private ServerAnswers serverAnswers = ServerAnswers.UNKNOWN;
    private long serverAnsweredNs;
    private boolean serverAnswered;
    /** Most messages seen in one reply packet: one reply's worth, the size of requests to a one-packet server. */
    private int largestReply = 1;
    /** Since when every packet has been wholly below {@link #nextExpected} (0: the feed delivers). */
    private long behindSinceNs;
    private boolean behindRings;

    /**
     * Create an arbiter.
     *
     * @param config        validated configuration: session, line B presence and the recovery settings.
     * @param normalizer    where messages go, in sequence order.
     * @param feedCounters  packet-level counters.
     * @param counters      per-line and recovery counters.
     * @param requestSender sends retransmission requests, or null when no server is configured.
     */
    public LineArbiter(
        final FeedHandlerConfig config,
        final ItchNormalizer normalizer,
        final FeedHandlerCounters feedCounters,
        final ArbitrationCounters counters,
        final RequestSender requestSender)
    {
        this(
            config.session(),
            config.hasLineB() ? 2 : 1,
            false,
            config.maxHeldMessages(),
            config.gapWaitMs(),
            config.retransmitTimeoutMs(),
            config.recoverySilenceBudgetMs(),
            config.maxOutstandingRequests(),
            config.maxRequestsPerSecond(),
            config.lineSilenceMs(),
            normalizer,
            feedCounters,
            counters,
            requestSender);
    }

    private LineArbiter(
        final String session,
        final int multicastLines,
        final boolean declareGapsAtOnce,
        final int maxHeldMessages,
        final int gapWaitMs,
        final int retransmitTimeoutMs,
        final int recoverySilenceBudgetMs,
        final int maxOutstandingRequests,
        final int maxRequestsPerSecond,
        final int lineSilenceMs,
        final ItchNormalizer normalizer,
        final FeedHandlerCounters feedCounters,
        final ArbitrationCounters counters,
        final RequestSender requestSender)
    {
        this.normalizer = normalizer;
        this.feedCounters = feedCounters;
        this.counters = counters;
        this.requestSender = requestSender;
        this.multicastLines = multicastLines;
        this.declareGapsAtOnce = declareGapsAtOnce;
        rateLimiter = new RequestRateLimiter(maxRequestsPerSecond);
        hold = new HoldBuffer(maxHeldMessages);
        holdWindow = declareGapsAtOnce ? 1 : hold.capacity();
        gapWaitNs = gapWaitMs * 1_000_000L;
        retransmitTimeoutNs = retransmitTimeoutMs * 1_000_000L;
        silenceBudgetNs = recoverySilenceBudgetMs * 1_000_000L;
        window = new RequestWindow(Math.max(1, maxOutstandingRequests));
        lineSilenceNs = lineSilenceMs * 1_000_000L;
        if (null != session)
        {
            this.session.putBytes(0, sessionBytes(session));
            state = State.IN_SEQUENCE;
        }
    }

    /**
     * An arbiter of one line with no recovery, for a recorded or otherwise single source (replays,
     * fuzzers): every gap is declared as soon as it is seen (a GapNotice at once, processing goes on
     * after it) and nothing is held. Feed it with {@link #onDatagram(DirectBuffer, int, int)}; it has
     * no timers, so {@link #poll(long)} is not needed (unless its normalizer has a ring-full wait: a
     * stall ends on a poll).
     *
     * @param session      session to accept (at most 10 ASCII characters), or null to take the first one seen.
     * @param normalizer   where messages go, in sequence order.
     * @param feedCounters packet-level counters.
     * @param counters     per-line counters (line A only) and the declared gaps.
     * @return the arbiter.
     */
    public static LineArbiter singleLine(
        final String session,
        final ItchNormalizer normalizer,
        final FeedHandlerCounters feedCounters,
        final ArbitrationCounters counters)
    {
        return new LineArbiter(
            session,
            1,
            true,
            1,
            0,
            FeedHandlerConfig.DEFAULT_RETRANSMIT_TIMEOUT_MS,
            FeedHandlerConfig.DEFAULT_RECOVERY_SILENCE_BUDGET_MS,
            0,
            FeedHandlerConfig.DEFAULT_MAX_REQUESTS_PER_SECOND,
            FeedHandlerConfig.DEFAULT_LINE_SILENCE_MS,
            normalizer,
            feedCounters,
            counters,
            null);
    }

    /**
     * The 10 bytes of a MoldUDP64 session name: ASCII, left-justified, space-padded.
     *
     * @param name at most 10 printable ASCII characters.
     * @return the 10 bytes.
     * @throws IllegalArgumentException when the name is longer or not printable ASCII.
     */
    public static byte[] sessionBytes(final String name)
    {
        if (name.length() > MoldUdp64Packet.SESSION_LENGTH)
        {
            throw new IllegalArgumentException(
                "session must be at most " + MoldUdp64Packet.SESSION_LENGTH + " characters: '" + name + "'");
        }
        for (int i = 0; i < name.length(); i++)
        {
            final char c = name.charAt(i);
            if (c < 0x20 || c > 0x7E)
            {
                throw new IllegalArgumentException("session must be printable ASCII: '" + name + "'");
            }
        }
        final byte[] bytes = new byte[MoldUdp64Packet.SESSION_LENGTH];
        Arrays.fill(bytes, (byte)' ');
        final byte[] ascii = name.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(ascii, 0, bytes, 0, ascii.length);
        return bytes;
    }

    /** Set who hears of session changes (the ring header keeps the session). */
    public void sessionListener(final SessionListener listener)
    {
        this.sessionListener = listener;
    }

    /**
     * Continue a feed after a restart: the rings hold everything before {@code nextSequence} of the
     * given session. The first packet of that session confirms it; a packet of another one means the
     * session ended while the feed handler was down, and the new one is adopted.
     *
     * @param nextSequence the sequence to continue from.
     * @param session      the session the rings hold (10 characters), or "" when unknown.
     */
    public void resumeAt(final long nextSequence, final String session)
    {
        nextExpected = nextSequence;
        highestKnownEnd = nextSequence;
        resumed = true;
        if (State.AWAIT_SESSION == state && null != session && session.length() == MoldUdp64Packet.SESSION_LENGTH)
        {
            this.session.putStringWithoutLengthAscii(0, session);
            state = State.AWAIT_CONFIRMATION;
        }
    }

    /**
     * @return true while every packet of the session has been below what the rings hold for the line silence: the
     * exchange restarted the session under the same name (or a recording of it plays). Nothing is written meanwhile,
     * so the source is not live.
     */
    public boolean isBehindRings()
    {
        return behindRings;
    }

    /** @return true when every multicast line is silent (no packet, not even a heartbeat, for the line silence). */
    public boolean allLinesSilent()
    {
        for (int line = 0; line < multicastLines; line++)
        {
            if (!lineSilent[line])
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @return true when nothing waits: no gap open and no message held (every gap filled or declared). A rebuild
     * of the rings from the exchange's snapshot waits for this, so that it continues from one known point.
     */
    public boolean isQuiescent()
    {
        return 0 == gaps.count() && 0 == hold.size();
    }

    /**
     * The rings were rebuilt mid-session from the exchange's snapshot (GLIMPSE), which holds the state through
     * {@code nextSequence - 1}: continue there. Only when {@link #isQuiescent() quiescent} and not behind (the
     * snapshot is at or after the next expected sequence): what arrives below it is a duplicate from now on.
     *
     * @param nextSequence the snapshot's next sequence.
     * @throws IllegalStateException when a gap is open, a message held, or the snapshot is behind.
     */
    public void continueAt(final long nextSequence)
    {
        if (!isQuiescent() || nextSequence < nextExpected)
        {
            throw new IllegalStateException("cannot continue at " + nextSequence + ": next expected " + nextExpected +
                ", " + gaps.count() + " gaps open, " + hold.size() + " messages held");
        }
        nextExpected = nextSequence;
        highestKnownEnd = nextSequence;
        declaredThrough = -1; // the rebuilt state lacks nothing
    }

    /** Next sequence to be released. */
    public long nextExpected()
    {
        return nextExpected;
    }

    /** Open gaps (for tests and diagnostics). */
    public int openGaps()
    {
        return gaps.count();
    }

    /** Messages held behind open gaps. */
    public int heldMessages()
    {
        return hold.size();
    }

    /** Sequences the hold can span after the next expected one (max held messages, rounded up to a power of two). */
    public int holdCapacity()
    {
        return hold.capacity();
    }

    /** True once the end of session was reached and no new session adopted yet. */
    public boolean isSessionEnded()
    {
        return State.SESSION_ENDED == state;
    }

    /** @return what the re-request server was seen to do with a request for more than one packet. */
    public ServerAnswers serverAnswers()
    {
        return serverAnswers;
    }

    /** @return retransmission requests in flight. */
    public int requestsInFlight()
    {
        return window.count();
    }

    /** @return the state after the last datagram or poll. */
    public State state()
    {
        return state;
    }

    /**
     * Process one datagram of a {@link #singleLine single-line} arbiter: line A, at the time last given
     * (it has no timers).
     *
     * @param buffer holding the datagram.
     * @param offset of its first byte.
     * @param length of the datagram.
     */
    public void onDatagram(final DirectBuffer buffer, final int offset, final int length)
    {
        onPacket(ArbitrationCounters.LINE_A, buffer, offset, length, now);
    }

    /**
     * Process one datagram received on {@code line}.
     *
     * @param line   {@link ArbitrationCounters#LINE_A}, {@code LINE_B} or {@code LINE_R}.
     * @param buffer holding the datagram.
     * @param offset of its first byte.
     * @param length of the datagram.
     * @param nowNs  monotonic time of reception.
     */
    public void onPacket(final int line, final DirectBuffer buffer, final int offset, final int length, final long nowNs)
    {
        now = nowNs;
        counters.packets(line).incrementRelease();
        feedCounters.packetsReceived().incrementRelease();
        feedCounters.bytesReceived().getAndAddRelease(length);
        if (line < multicastLines)
        {
            lastPacketNs[line] = nowNs;
            if (lineSilent[line])
            {
                lineSilent[line] = false;
                counters.linesSilent().decrementRelease();
                System.err.println("feed-handler: line " + ArbitrationCounters.lineName(line) + " recovered");
            }
        }
        try
        {
            processPacket(line, buffer, offset, length);
        }
        catch (final RuntimeException ex)
        {
            feedCounters.packetErrors().incrementRelease();
            if (!packetErrorLogged)
            {
                packetErrorLogged = true;
                System.err.println("feed-handler: packet processing failed (logged once, then counted): " + ex);
            }
        }
        finally
        {
            normalizer.flush(); // once per datagram, not per message
            settleGapState();
        }
    }

    /** Between calls, the sequencing state tells whether gaps are open and whether they are requested. */
    private void settleGapState()
    {
        if (State.IN_SEQUENCE == state || State.GAP_HOLDING == state || State.RECOVERING == state)
        {
            state = 0 == gaps.count() ? State.IN_SEQUENCE :
                window.count() > 0 ? State.RECOVERING : State.GAP_HOLDING;
        }
    }

    /**
     * Run the timers: request gaps past the gap wait, retry or declare timed-out requests,
     * release what declared gaps unblock, report silent lines.
     *
     * @param nowNs monotonic time.
     * @return work done (requests sent, gaps declared, lines reported).
     */
    public int poll(final long nowNs)
    {
        now = nowNs;
        int work = 0;
        if (!timersStarted)
        {
            timersStarted = true;
            for (int line = 0; line < multicastLines; line++)
            {
                if (0 == lastPacketNs[line])
                {
                    lastPacketNs[line] = nowNs;
                }
            }
        }
        try
        {
            if (State.STALLED == state)
            {
                work += tryEndStall(nowNs);
            }
            if (gaps.count() > 0 && State.STALLED != state)
            {
                work += runGapTimers(nowNs);
            }
            checkBehindRings(nowNs);
            for (int line = 0; line < multicastLines; line++)
            {
                if (!lineSilent[line] && nowNs - lastPacketNs[line] >= lineSilenceNs)
                {
                    lineSilent[line] = true;
                    counters.linesSilent().incrementRelease();
                    System.err.println("feed-handler: line " + ArbitrationCounters.lineName(line) +
                        " silent for " + (lineSilenceNs / 1_000_000) + " ms");
                    work++;
                }
            }
        }
        catch (final RuntimeException ex)
        {
            feedCounters.packetErrors().incrementRelease();
            if (!packetErrorLogged)
            {
                packetErrorLogged = true;
                System.err.println("feed-handler: gap recovery failed (logged once, then counted): " + ex);
            }
        }
        finally
        {
            normalizer.flush(); // held messages released by a declared gap
            settleGapState();
        }
        return work;
    }

    private int runGapTimers(final long nowNs)
    {
        int work = 0;
        boolean declared = false;
        final boolean serverSilent = !serverAnswered || nowNs - serverAnsweredNs >= silenceBudgetNs;
        for (int i = 0; i < gaps.count(); i++)
        {
            if (gaps.isDeclared(i))
            {
                continue;
            }
            if (null == requestSender)
            {
                if (nowNs - gaps.detectedNs(i) >= gapWaitNs)
                {
                    gaps.declare(i);
                    declared = true;
                    work++;
                }
            }
            else if (gaps.isRequested(i))
            {
                if (window.indexCovering(gaps.first(i)) < 0)
                {
                    // No request in flight asks for it: it waits its turn in the window, nobody refused it yet.
                    gaps.progressed(i, nowNs);
                    continue;
                }
                final long quietNs = nowNs - gaps.progressNs(i);
                if ((serverSilent && quietNs >= silenceBudgetNs) || quietNs >= 4 * silenceBudgetNs)
                {
                    onSilenceBudgetSpent(i, quietNs);
                    declared = true;
                    work++;
                }
            }
        }
        if (null != requestSender)
        {
            work += runRequestTimers(nowNs);
            for (int i = 0; i < gaps.count() && !window.isFull(); i++)
            {
                if (!gaps.isDeclared(i) && nowNs - gaps.detectedNs(i) >= gapWaitNs)
                {
                    work += requestUncovered(i, nowNs);
                }
            }
        }
        if (declared)
        {
            release();
        }
        return work;
    }

    /**
     * The requests in flight: forget what is no longer missing, follow up a one-packet server's partial answers,
     * send again what the server has been silent about for the retransmit timeout.
     */
    private int runRequestTimers(final long nowNs)
    {
        int work = 0;
        final boolean serverQuiet = !serverAnswered || nowNs - serverAnsweredNs >= retransmitTimeoutNs;
        for (int i = 0; i < window.count(); )
        {
            final long first = firstMissing(window.from(i), window.to(i));
            if (first < 0)
            {
                window.remove(i);
                continue;
            }
            window.trim(i, first);
            if (ServerAnswers.ONE_PACKET == serverAnswers && window.isAwaitingContinuation(i))
            {
                if (followUp(i, nowNs))
                {
                    work++;
                }
            }
            else if (nowNs - window.answeredNs(i) >= retransmitTimeoutNs &&
                (ServerAnswers.ONE_PACKET == serverAnswers || serverQuiet))
            {
                if (window.isAwaitingContinuation(i) && ServerAnswers.UNKNOWN == serverAnswers)
                {
                    // Answered in part, then silence: the server sends one packet a request.
                    serverAnswersWith(ServerAnswers.ONE_PACKET);
                }
                if (rateLimiter.tryAcquire(nowNs))
                {
                    counters.requestsTimedOut().incrementRelease();
                    counters.requestsRetried().incrementRelease();
                    sendRequest(first, window.to(i));
                    window.resent(i, first, nowNs);
                    work++;
                }
            }
            i++;
        }
        return work;
    }

    /** Request what of gap {@code i} no request in flight covers, as far as the hold can take the replies. */
    private int requestUncovered(final int i, final long nowNs)
    {
        if (gaps.requestedThrough(i) >= gaps.first(i) && window.indexCovering(gaps.first(i)) < 0)
        {
            gaps.rerequest(i); // every request that covered its start is closed, yet it is missing
        }
        int work = 0;
        long start = Math.max(gaps.first(i), gaps.requestedThrough(i) + 1);
        final long limit = Math.min(gaps.last(i), nextExpected + holdWindow - 1);
        final int chunk = ServerAnswers.ONE_PACKET == serverAnswers ?
            Math.min(largestReply, RetransmitRequestEncoder.MAX_COUNT) : RetransmitRequestEncoder.MAX_COUNT;
        while (start <= limit && !window.isFull() && rateLimiter.tryAcquire(nowNs))
        {
            final long end = Math.min(limit, start + chunk - 1);
            sendRequest(start, end);
            window.add(start, end, nowNs);
            gaps.requestedThrough(i, end, nowNs);
            counters.requestsSent().incrementRelease();
            work++;
            start = end + 1;
        }
        return work;
    }

    /** Ask a one-packet server for the rest of request {@code i} at once (when the rate limit allows). */
    private boolean followUp(final int i, final long nowNs)
    {
        final long first = firstMissing(window.from(i), window.to(i));
        if (first < 0)
        {
            window.remove(i);
            return false;
        }
        if (!rateLimiter.tryAcquire(nowNs))
        {
            return false;
        }
        counters.requestsFollowedUp().incrementRelease();
        sendRequest(first, window.to(i));
        window.resent(i, first, nowNs);
        return true;
    }

    /**
     * A reply packet of {@code messageCount} messages from {@code sequence} arrived from the re-request server
     * (after its messages were taken): match it to its request, learn how the server answers, follow up.
     */
    private void onReply(final long sequence, final int messageCount)
    {
        serverAnswered = true;
        serverAnsweredNs = now;
        if (messageCount > largestReply)
        {
            largestReply = messageCount;
        }
        final long next = sequence + messageCount;
        final int i = window.indexOfReplyStart(sequence);
        if (i < 0)
        {
            final int covering = window.indexCovering(sequence);
            if (covering >= 0)
            {
                window.answered(covering, now); // a late copy: the server is working on it
            }
            return;
        }
        if (window.isAwaitingContinuation(i) && ServerAnswers.UNKNOWN == serverAnswers)
        {
            serverAnswersWith(ServerAnswers.STREAMS);
        }
        if (next > window.to(i))
        {
            window.remove(i);
            return;
        }
        window.answeredInPart(i, next, now);
        if (ServerAnswers.ONE_PACKET == serverAnswers)
        {
            followUp(i, now);
        }
    }

    private void serverAnswersWith(final ServerAnswers answers)
    {
        serverAnswers = answers;
        if (ServerAnswers.ONE_PACKET == answers)
        {
            // Requests asked for 65535 messages each, one reply's worth of which comes a round trip: cut them to one
            // reply so the rest of each gap goes out as a window of requests answered side by side.
            for (int j = 0; j < window.count(); j++)
            {
                window.shorten(j, Math.min(window.to(j), window.from(j) + largestReply - 1));
            }
            for (int i = 0; i < gaps.count(); i++)
            {
                long reach = gaps.first(i) - 1;
                for (int j = 0; j < window.count(); j++)
                {
                    if (window.from(j) <= gaps.last(i) && window.to(j) >= gaps.first(i))
                    {
                        reach = Math.max(reach, Math.min(window.to(j), gaps.last(i)));
                    }
                }
                gaps.setRequestedThrough(i, reach);
            }
        }
        counters.retransmitServerAnswers().setRelease(answers.ordinal());
        System.err.println("feed-handler: the re-request server answers " + (ServerAnswers.ONE_PACKET == answers ?
            "one packet a request (as MoldUDP64 specifies): asking again at once for the rest of each answer" :
            "a request with as many packets as it needs: waiting for the rest of each answer"));
    }

    private void onSilenceBudgetSpent(final int i, final long quietNs)
    {
        System.err.println("feed-handler: declaring " + gaps.first(i) + ".." + gaps.last(i) + " missing: nothing " +
            "of it arrived for " + quietNs / 1_000_000 + " ms (recovery silence budget " +
            silenceBudgetNs / 1_000_000 + " ms) and the re-request server was last heard " + (serverAnswered ?
            (now - serverAnsweredNs) / 1_000_000 + " ms ago" : "never"));
        gaps.declare(i);
    }

    /**
     * @return the first sequence of {@code [from, to]} still missing in a gap not declared, or -1 when none is.
     */
    private long firstMissing(final long from, final long to)
    {
        final int i = gaps.indexOfUndeclaredFrom(from);
        if (i < 0 || gaps.first(i) > to)
        {
            return -1;
        }
        return Math.max(from, gaps.first(i));
    }

    private void sendRequest(final long first, final long last)
    {
        RetransmitRequestEncoder.encode(requestBuffer, 0, session, 0, first, (int)(last - first + 1));
        if (!requestSender.send(requestBuffer, 0, RetransmitRequestEncoder.LENGTH))
        {
            counters.requestSendErrors().incrementRelease();
        }
    }

    /**
     * A u64 sequence no session reaches (a corrupted header) is negative as a long, or about to overflow: taken as
     * a session's start or a gap's bound it would corrupt both. Counted and skipped.
     */
    private boolean isInvalidSequence(final MoldUdp64Packet packet)
    {
        final long sequence = packet.sequenceNumber();
        if (sequence < 0 || sequence > MAX_SEQUENCE)
        {
            feedCounters.invalidSequencePackets().incrementRelease();
            return true;
        }
        return false;
    }

    private void processPacket(final int line, final DirectBuffer buffer, final int offset, final int length)
    {
        final MoldUdp64Packet packet = this.packet.wrap(buffer, offset, length);
        if (packet.isTruncated())
        {
            feedCounters.truncatedPackets().incrementRelease();
            return;
        }

        if (State.AWAIT_SESSION == state)
        {
            if (isInvalidSequence(packet))
            {
                return;
            }
            buffer.getBytes(offset + MoldUdp64Packet.SESSION_OFFSET, session, 0, MoldUdp64Packet.SESSION_LENGTH);
            state = State.IN_SEQUENCE;
            onFirstSession(packet.sequenceNumber());
        }
        else if (State.AWAIT_CONFIRMATION == state && !packet.sessionEquals(session, 0))
        {
            System.err.println("feed-handler: the session the rings hold ('" +
                session.getStringWithoutLengthAscii(0, MoldUdp64Packet.SESSION_LENGTH).trim() +
                "') is over: the feed now carries another");
            adoptSession(buffer, offset, 1);
        }
        else if (!packet.sessionEquals(session, 0))
        {
            if (State.SESSION_ENDED != state)
            {
                feedCounters.wrongSession().incrementRelease();
                return;
            }
            if (isInvalidSequence(packet))
            {
                return;
            }
            adoptSession(buffer, offset, packet.sequenceNumber());
        }
        else if (State.SESSION_ENDED == state)
        {
            counters.endedSessionPackets().incrementRelease();
            return;
        }

        if (isInvalidSequence(packet))
        {
            return;
        }
        if (State.AWAIT_CONFIRMATION == state)
        {
            state = State.IN_SEQUENCE;
            notifySession();
        }
        final long sequence = packet.sequenceNumber();
        final int messageCount = packet.messageCount();
        if (State.STALLED == state)
        {
            onPacketWhileStalled(sequence, messageCount);
            return;
        }
        if (MoldUdp64Packet.HEARTBEAT_COUNT == messageCount)
        {
            feedCounters.heartbeats().incrementRelease();
            if (sequence >= nextExpected)
            {
                onAhead();
            }
            else if (0 == behindSinceNs && line < multicastLines)
            {
                behindSinceNs = now;
            }
            onNextSequenceAnnounced(sequence);
            return;
        }
        if (MoldUdp64Packet.END_OF_SESSION_COUNT == messageCount)
        {
            if (sequence < highestKnownEnd)
            {
                // It says the session ended before messages that were received or announced: a stray
                // packet (another sender reusing the session name on this group, a late copy). Honouring
                // it would end the session early and drop every valid message after it.
                onStaleEndOfSession(sequence);
                return;
            }
            feedCounters.endOfSession().incrementRelease();
            onAhead(); // the session's end, at or past what the rings hold: not a session started again
            if (endOfSessionSequence < 0)
            {
                endOfSessionSequence = sequence;
            }
            onNextSequenceAnnounced(sequence);
            checkEndOfSession();
            return;
        }

        if (sequence + messageCount <= nextExpected)
        {
            if (0 == behindSinceNs && line < multicastLines)
            {
                behindSinceNs = now; // a slower line's copy, or the feed restarted below the rings: poll tells
            }
            // The common case of the slower line: the whole packet was delivered already.
            feedCounters.duplicatePackets().incrementRelease();
            feedCounters.duplicateMessages().getAndAddRelease(messageCount);
            counters.duplicates(line).getAndAddRelease(messageCount);
            if (ArbitrationCounters.LINE_R == line)
            {
                onReply(sequence, messageCount);
            }
            return;
        }

        final int limit = packet.limit();
        int blockOffset = packet.firstBlockOffset();
        for (int i = 0; i < messageCount; i++)
        {
            if (blockOffset + MoldUdp64Packet.BLOCK_LENGTH_FIELD_LENGTH > limit)
            {
                feedCounters.malformedBlocks().incrementRelease();
                return;
            }
            final int messageLength = packet.blockLength(blockOffset);
            final int messageOffset = blockOffset + MoldUdp64Packet.BLOCK_LENGTH_FIELD_LENGTH;
            if (messageOffset + messageLength > limit)
            {
                feedCounters.malformedBlocks().incrementRelease();
                return;
            }
            onMessage(line, buffer, messageOffset, messageLength, sequence + i);
            if (State.STALLED == state)
            {
                // The rest of this datagram comes again with the outage's request.
                onPacketWhileStalled(sequence + i + 1, messageCount - i - 1);
                return;
            }
            blockOffset = messageOffset + messageLength;
        }
        if (ArbitrationCounters.LINE_R == line)
        {
            onReply(sequence, messageCount);
        }
    }

    private void onMessage(
        final int line, final DirectBuffer buffer, final int offset, final int length, final long sequence)
    {
        if (sequence >= nextExpected + holdWindow)
        {
            makeRoomFor(sequence);
        }
        if (sequence > highestKnownEnd && gaps.isFull())
        {
            declareOldest();
        }
        if (sequence < highestKnownEnd && sequence > nextExpected && gaps.isFull() && !hold.isHeld(sequence))
        {
            final int i = gaps.indexOf(sequence);
            if (i >= 0 && sequence != gaps.first(i) && sequence != gaps.last(i))
            {
                declareOldest(); // a split needs a free entry
            }
        }

        if (sequence < nextExpected || (sequence < highestKnownEnd && hold.isHeld(sequence)))
        {
            duplicate(line);
            return;
        }

        onAhead();
        if (sequence == nextExpected)
        {
            if (gaps.count() > 0 && gaps.first(0) == sequence)
            {
                fill(line, 0, sequence);
            }
            normalizer.onMessage(buffer, offset, length, sequence);
            if (normalizer.isStalled())
            {
                onStall(sequence);
                return;
            }
            nextExpected = sequence + 1;
            if (highestKnownEnd < nextExpected)
            {
                highestKnownEnd = nextExpected;
            }
            counters.accepted(line).incrementRelease();
            if (hold.size() > 0 || gaps.count() > 0 || endOfSessionSequence >= 0)
            {
                release();
            }
            return;
        }

        if (sequence >= highestKnownEnd)
        {
            if (sequence > highestKnownEnd)
            {
                openGap(highestKnownEnd, sequence - 1);
            }
            highestKnownEnd = sequence + 1;
        }
        else
        {
            fill(line, gaps.indexOf(sequence), sequence);
        }
        hold.put(sequence, buffer, offset, length);
        counters.accepted(line).incrementRelease();
        counters.messagesHeld().setRelease(hold.size());
    }

    /** A message at or beyond the next expected sequence: the feed delivers. */
    private void onAhead()
    {
        behindSinceNs = 0;
        if (behindRings)
        {
            behindRings = false;
            counters.behindRings().setRelease(0);
            System.err.println("feed-handler: the feed is past what the rings hold again, at sequence " + nextExpected);
        }
    }

    /**
     * Every packet for the line silence wholly below the next expected sequence, and none at or beyond it: the exchange
     * started the session again under the name the rings hold (QUICKSTART's second run on the same --ring-dir), or a
     * recording of it plays. Those messages are not written (they would repeat sequences the rings hold); said once,
     * a gauge, and the source reported not live, so that no signal says healthy.
     */
    private void checkBehindRings(final long nowNs)
    {
        if (!behindRings && 0 != behindSinceNs && nowNs - behindSinceNs >= lineSilenceNs &&
            endOfSessionSequence < 0 && State.SESSION_ENDED != state)
        {
            behindRings = true;
            counters.behindRings().setRelease(1);
            System.err.println("feed-handler: for " + (nowNs - behindSinceNs) / 1_000_000 + " ms every packet of " +
                "session '" + session.getStringWithoutLengthAscii(0, MoldUdp64Packet.SESSION_LENGTH).trim() +
                "' was below sequence " + nextExpected + ", which the rings hold already: the exchange started the " +
                "session again under the same name, or a recording of it plays. Nothing of it is written. A new " +
                "session needs new rings: stop, remove the ring directory's files (or use another --ring-dir), start");
        }
    }

    private void duplicate(final int line)
    {
        feedCounters.duplicateMessages().incrementRelease();
        counters.duplicates(line).incrementRelease();
    }

    private void fill(final int line, final int gapIndex, final long sequence)
    {
        counters.fills(line).incrementRelease();
        if (GapList.CLOSED == gaps.fill(gapIndex, sequence, now))
        {
            counters.gapsFilled().incrementRelease();
        }
    }

    private void onNextSequenceAnnounced(final long nextSequence)
    {
        if (nextSequence > highestKnownEnd && declareGapsAtOnce)
        {
            // Nothing is held and nothing can fill it (so nextExpected == highestKnownEnd): declared at once.
            counters.gapsDetected().incrementRelease();
            publishGap(highestKnownEnd, nextSequence - 1);
            nextExpected = nextSequence;
            highestKnownEnd = nextSequence;
        }
        else if (nextSequence > highestKnownEnd)
        {
            // Nothing is held for an announced gap, so it needs no room in the hold; a message
            // arriving beyond the hold window later declares it (makeRoomFor).
            if (gaps.isFull())
            {
                declareOldest();
            }
            openGap(highestKnownEnd, nextSequence - 1);
            highestKnownEnd = nextSequence;
        }
    }

    private void openGap(final long first, final long last)
    {
        gaps.add(first, last, now);
        counters.gapsDetected().incrementRelease();
    }

    /**
     * The hold cannot span {@code sequence}: declare the oldest gaps until it can. When every gap is
     * gone and the sequence is still too far (one gap wider than the hold), that gap is declared
     * at once and the stream moves to it.
     */
    private void makeRoomFor(final long sequence)
    {
        while (sequence >= nextExpected + holdWindow && gaps.count() > 0)
        {
            declareOldest();
        }
        if (sequence >= nextExpected + holdWindow)
        {
            // Nothing is held (every gap is gone), so nextExpected == highestKnownEnd.
            counters.gapsDetected().incrementRelease();
            publishGap(highestKnownEnd, sequence - 1);
            nextExpected = sequence;
            highestKnownEnd = sequence;
        }
    }

    private void declareOldest()
    {
        if (gaps.count() > 0)
        {
            gaps.declare(0);
            release();
        }
    }

    /** Release held messages and declared gaps in order, up to the first gap still open. */
    private void release()
    {
        while (true)
        {
            if (gaps.count() > 0 && gaps.first(0) == nextExpected)
            {
                if (!gaps.isDeclared(0))
                {
                    break;
                }
                final long last = gaps.last(0);
                final long first = nextExpected;
                gaps.remove(0);
                publishGap(first, last);
                if (normalizer.isStalled())
                {
                    onStall(first);
                    return;
                }
                nextExpected = last + 1;
            }
            else if (nextExpected < highestKnownEnd)
            {
                final long sequence = nextExpected;
                if (hold.isHeld(sequence))
                {
                    normalizer.onMessage(hold.buffer(), hold.messageOffset(sequence), hold.messageLength(sequence), sequence);
                    if (normalizer.isStalled())
                    {
                        onStall(sequence);
                        return;
                    }
                    hold.remove(sequence);
                }
                nextExpected = sequence + 1;
            }
            else
            {
                break;
            }
        }
        counters.messagesHeld().setRelease(hold.size());
        checkEndOfSession();
    }

    private void publishGap(final long first, final long last)
    {
        feedCounters.gaps().incrementRelease();
        feedCounters.missingMessages().getAndAddRelease(last - first + 1);
        counters.gapsDeclared().incrementRelease();
        counters.declaredMissingMessages().getAndAddRelease(last - first + 1);
        declaredThrough = Math.max(declaredThrough, last);
        normalizer.onGap(first, last);
    }

    private void onStaleEndOfSession(final long sequence)
    {
        feedCounters.staleEndOfSession().incrementRelease();
        if (!staleEndOfSessionLogged)
        {
            staleEndOfSessionLogged = true;
            System.err.println("feed-handler: stale end-of-session packet ignored (logged once, then counted): " +
                "next sequence " + sequence + " but sequences up to " + (highestKnownEnd - 1) + " exist");
        }
    }

    private void checkEndOfSession()
    {
        if (endOfSessionSequence >= 0 && State.SESSION_ENDED != state && nextExpected >= endOfSessionSequence &&
            gaps.count() == 0)
        {
            state = State.SESSION_ENDED;
            System.err.println("feed-handler: end of session, " + (nextExpected - 1) + " messages");
            // The last sequence released (normally the end-of-session packet's less one; never below what the rings
            // hold, whatever a malformed feed announced).
            final long lastSequence = nextExpected - 1;
            if (lastSequence > 0 && declaredThrough >= lastSequence)
            {
                // The session's last message is its End of Messages: declared missing, subscribers would wait for it
                // for ever. A GapNotice STALE tells them the session is over.
                normalizer.onSessionEndLost(lastSequence);
                System.err.println("feed-handler: the session's last messages were declared missing (through " +
                    declaredThrough + "), its End of Messages with them: a GapNotice STALE at sequence " +
                    lastSequence + " tells subscribers the session is over");
            }
        }
    }

    /**
     * A ring stayed full past the ring-full wait (the fanout is not draining): stop writing at
     * {@code sequence}, which was not (wholly) written, drop what is held and what gaps are open (all of it
     * will be asked for again), and read on, only noting how far the feed goes.
     */
    private void onStall(final long sequence)
    {
        state = State.STALLED;
        stalledAtNs = now;
        nextExpected = sequence;
        hold.clear(nextExpected, highestKnownEnd);
        gaps.clear();
        window.clear();
        counters.messagesHeld().setRelease(0);
        counters.ringStalls().incrementRelease();
        System.err.println("feed-handler: a partition ring is full and nothing drains it (is the fanout running?): " +
            "stopped writing at sequence " + sequence + ", reading the feed on; what arrives meanwhile is " +
            (null == requestSender ? "declared missing" : "requested from the re-request server") +
            " once the rings drain");
    }

    private void onPacketWhileStalled(final long sequence, final int messageCount)
    {
        if (MoldUdp64Packet.END_OF_SESSION_COUNT == messageCount)
        {
            if (sequence >= highestKnownEnd && endOfSessionSequence < 0)
            {
                feedCounters.endOfSession().incrementRelease();
                endOfSessionSequence = sequence;
            }
        }
        final long end = MoldUdp64Packet.HEARTBEAT_COUNT == messageCount ||
            MoldUdp64Packet.END_OF_SESSION_COUNT == messageCount ? sequence : sequence + messageCount;
        if (end > highestKnownEnd)
        {
            if (MoldUdp64Packet.HEARTBEAT_COUNT != messageCount && MoldUdp64Packet.END_OF_SESSION_COUNT != messageCount)
            {
                counters.ringStallDroppedMessages().getAndAddRelease(end - Math.max(sequence, highestKnownEnd));
            }
            highestKnownEnd = end;
        }
    }

    private int tryEndStall(final long nowNs)
    {
        if (!normalizer.tryResume())
        {
            return 0;
        }
        state = State.IN_SEQUENCE;
        System.err.println("feed-handler: the rings drain again after " + (nowNs - stalledAtNs) / 1_000_000 +
            " ms: " + (highestKnownEnd > nextExpected ? (null == requestSender ? "declaring " : "requesting ") +
            nextExpected + ".." + (highestKnownEnd - 1) : "nothing missed"));
        if (highestKnownEnd > nextExpected)
        {
            // Detected a gap wait ago: requested (or declared) on this very poll.
            gaps.add(nextExpected, highestKnownEnd - 1, nowNs - gapWaitNs);
            counters.gapsDetected().incrementRelease();
        }
        return 1;
    }

    /** @return true while a ring stall lasts (nothing written, the feed read on). */
    public boolean isStalled()
    {
        return State.STALLED == state;
    }

    /** The first packet of a live feed handler that was not resumed: say where it joined (a replay declares). */
    private void onFirstSession(final long sequence)
    {
        notifySession();
        if (!resumed && !declareGapsAtOnce && sequence > 1)
        {
            System.err.println("feed-handler: joined session '" +
                session.getStringWithoutLengthAscii(0, MoldUdp64Packet.SESSION_LENGTH).trim() +
                "' mid-session at sequence " + sequence + " with no state: " + (null == requestSender ?
                "1.." + (sequence - 1) + " will be declared missing (no re-request server)" :
                "requesting 1.." + (sequence - 1) + " from the re-request server; what it cannot give is declared") +
                " (a snapshot of the exchange, --glimpse, joins without that)");
        }
    }

    private void notifySession()
    {
        if (null != sessionListener)
        {
            final byte[] bytes = new byte[MoldUdp64Packet.SESSION_LENGTH];
            session.getBytes(0, bytes);
            sessionListener.onSession(bytes, nextExpected);
        }
    }

    private void adoptSession(final DirectBuffer buffer, final int offset, final long firstSequence)
    {
        if (null == sessionListener || !sessionListener.onNewSession(firstSequence - 1))
        {
            normalizer.newSession(firstSequence - 1);
        }
        hold.clear(nextExpected, highestKnownEnd);
        gaps.clear();
        window.clear();
        buffer.getBytes(offset + MoldUdp64Packet.SESSION_OFFSET, session, 0, MoldUdp64Packet.SESSION_LENGTH);
        state = State.IN_SEQUENCE;
        endOfSessionSequence = -1;
        declaredThrough = -1;
        nextExpected = firstSequence;
        highestKnownEnd = firstSequence;
        counters.messagesHeld().setRelease(0);
        counters.sessionsAdopted().incrementRelease();
        notifySession();
        System.err.println("feed-handler: new session '" + session.getStringWithoutLengthAscii(0, 10).trim() +
            "' adopted at sequence " + firstSequence);
    }
}
