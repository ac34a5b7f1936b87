package io.mdfanout.sdk;

import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sbe.PacketHeaderDecoder;
import io.mdfanout.wire.WireFormat;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Sequences one partition's packets from the sides of a feed (two for a pair, one for a single fanout) by the
 * partition's chain of exchange sequences (schema version 4, docs/WIRE.md), as the feed handler's line arbiter
 * sequences lines A and B by MoldUDP64 sequence: the first copy wins, a message one side lacks is taken from the
 * other, and a gap exists only when no side has a message within a bounded wait.
 * <p>
 * With T the chain position delivered so far (every message of the partition up to T was delivered, or declared lost
 * by a delivered gap notice): a message of a packet links when the packet's chain before it (its
 * {@code previousExchangeSequence}, then each message before it in the packet) is at most T; it is new when its own
 * chain position is above T, and then delivered; at or below T it is a duplicate of what another side delivered
 * (counted, dropped). Messages of exchange sequence 0 (an exchange snapshot a side's feed handler loaded) are state,
 * never a link of the chain: dropped here (a subscriber that needs that state recovers it from a snapshot). A side
 * whose next message does not link, or whose next message is a gap notice (the side lost that span; the other side
 * may have it), is held: its packets are copied and wait, in order, until the chain reaches them or the wait
 * ({@code maxWaitNs}) runs out; then the span is a gap ({@link Output#onGap}) or the notice is delivered. A side's
 * heartbeat whose chain is above T says the side sent messages this subscriber never received: the same wait, then a
 * gap. With one side the wait is 0: what that side lacks is a gap at once.
 * <p>
 * The first packet joins the partition: at the session's start (a chain from 0) nothing is missing; anywhere else the
 * arbiter starts at that packet's chain and says so ({@link Output#onJoin}), and what came before is the recovery's
 * business.
 * <p>
 * With two sides, each duplicate is compared byte for byte with the message that was delivered at its chain position
 * (kept in a {@link DeliveredHistory} of the last {@value #HISTORY_BYTES} bytes of messages): a copy that differs means
 * the sides disagree on what the exchange sent, and the side whose copy came second is taken out of the arbitration
 * until the next trading day ({@link Output#onMismatch}), never mixed silently. Time is passed in; nothing allocates
 * once the hold buffers are sized. Not thread safe.
 */
final class ChainArbiter
{
    /** The chain position nobody knows: previousExchangeSequence's null value (2^64-1, -1 as a long). */
    static final long UNKNOWN = PacketHeaderDecoder.previousExchangeSequenceNullValue();

    /** What the arbiter decides, in order. */
    interface Output
    {
        /**
         * The partition joined at chain position {@code chain}.
         *
         * @param side        the side whose packet joined.
         * @param chain       where the chain stands before the first message delivered.
         * @param sessionStart true when nothing came before (the session's first message is next).
         */
        void onJoin(int side, long chain, boolean sessionStart);

        /**
         * Messages {@code [fromIndex, toIndex)} of a packet are the partition's next, in order.
         *
         * @param side       the side they came from.
         * @param buffer     the packet (valid during the call only).
         * @param offset     of the packet's SBE header.
         * @param length     of the whole packet.
         * @param fromIndex  first message to deliver (0-based within the packet).
         * @param toIndex    one past the last.
         * @param chainAfter the chain position after the last of them.
         */
        void onMessages(
            int side, DirectBuffer buffer, int offset, int length, int fromIndex, int toIndex, long chainAfter);

        /**
         * No side had the chain's span after {@code afterChain} up to {@code throughChain} within the wait.
         *
         * @param afterChain   the chain position delivered before the span.
         * @param throughChain the chain position after it, where delivery goes on.
         */
        void onGap(long afterChain, long throughChain);

        /**
         * A side's copy of a delivered message differs from it, byte for byte: the sides disagree. The side is out of
         * the arbitration from now (its packets and heartbeats ignored) until {@link #reset}.
         *
         * @param side  the side whose copy came second.
         * @param chain the message's chain position.
         */
        void onMismatch(int side, long chain);

        /**
         * A side's messages that another side had delivered already.
         *
         * @param side  the side.
         * @param count how many.
         */
        void onDuplicates(int side, int count);
    }

    /** Bytes of delivered messages a pair keeps per partition to compare the other side's copies with. */
    static final int HISTORY_BYTES = 512 * 1024;
    /** Messages a pair keeps at most per partition (messages are 30 to 60 bytes: the bytes bind first). */
    static final int HISTORY_ENTRIES = 16 * 1024;
    private static final int LENGTH_PREFIX = Integer.BYTES;
    /** {@link #walk}'s answer when a side's copy differed: the side is out, its packet dropped. */
    private static final int MISMATCHED = -2;

    private final int sideCount;
    private long maxWaitNs;
    private final Output output;
    private final PacketHeaderDecoder packetHeader = new PacketHeaderDecoder();
    private final SideQueue[] queues;
    /** Per side, the furthest chain position its packets or heartbeats reached. */
    private final long[] sideChain;
    /** Two sides: the delivered messages, for comparing copies; null with one side. */
    private final DeliveredHistory history;
    /** Per side: out of the arbitration since its copy of a message differed, until {@link #reset}. */
    private final boolean[] mismatched;
    private long chain = UNKNOWN;
    private boolean joined;
    /** Before joining: the lowest chain a heartbeat announced, where the partition joins if no packet does first. */
    private long pendingJoinChain = UNKNOWN;
    private int pendingJoinSide;
    private long pendingJoinSinceNs;
    /** Set by {@link #walk} when it stops: the side's chain before the message that waits. */
    private long resumeLink;

    /**
     * @param sideCount          1 or 2.
     * @param maxWaitNs          how long a side's unlinked packet, gap notice or missed span waits for another side;
     *                           ignored with one side (0).
     * @param holdCapacityBytes  per side, the most packet bytes held while waiting; a side that outgrows it ends its
     *                           wait early (its span is a gap unless another side has filled it).
     * @param output             where the decisions go.
     */
    ChainArbiter(final int sideCount, final long maxWaitNs, final int holdCapacityBytes, final Output output)
    {
        if (sideCount < 1 || sideCount > 2)
        {
            throw new IllegalArgumentException("sides: 1 or 2, not " + sideCount);
        }
        if (maxWaitNs < 0)
        {
            throw new IllegalArgumentException("maxWaitNs must not be negative: " + maxWaitNs);
        }
        this.sideCount = sideCount;
        this.maxWaitNs = 1 == sideCount ? 0 : maxWaitNs;
        this.output = output;
        queues = new SideQueue[sideCount];
        sideChain = new long[sideCount];
        history = 1 == sideCount ? null : new DeliveredHistory(HISTORY_BYTES, HISTORY_ENTRIES, sideCount);
        mismatched = new boolean[sideCount];
        for (int side = 0; side < sideCount; side++)
        {
            queues[side] = new SideQueue(holdCapacityBytes);
            sideChain[side] = UNKNOWN;
        }
    }

    /**
     * Forget everything: the exchange started a new session (its chain starts again from 0), and the next packet joins.
     */
    void reset()
    {
        joined = false;
        chain = UNKNOWN;
        pendingJoinChain = UNKNOWN;
        for (int side = 0; side < sideCount; side++)
        {
            queues[side].clear();
            sideChain[side] = UNKNOWN;
            mismatched[side] = false;
        }
        if (null != history)
        {
            history.clear();
        }
    }

    /**
     * Change how long what one side lacks waits for another (a replay from the archive waits for the other side's
     * replay to reach it, longer than live sides ever differ); ignored with one side.
     *
     * @param waitNs the wait, not negative.
     */
    void waitNs(final long waitNs)
    {
        if (waitNs < 0)
        {
            throw new IllegalArgumentException("waitNs must not be negative: " + waitNs);
        }
        maxWaitNs = 1 == sideCount ? 0 : waitNs;
    }

    /** @return true while a side's packets or a side's missed span wait, or the join waits for a packet. */
    boolean isWaiting()
    {
        if (!joined)
        {
            return UNKNOWN != pendingJoinChain;
        }
        for (int side = 0; side < sideCount; side++)
        {
            if (isHolding(side))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * No side can give what the waiting sides wait for any more (a replay's sides that ended, or that wait too): end
     * the wait that blocks the earliest chain position now, so no message a side holds is skipped, then deliver what
     * links. Called again while {@link #isWaiting()} to decide everything.
     *
     * @param nowNs the time.
     * @return true when a wait ended.
     */
    boolean endEarliestWait(final long nowNs)
    {
        if (!joined)
        {
            if (UNKNOWN == pendingJoinChain)
            {
                return false;
            }
            return poll(pendingJoinSinceNs + maxWaitNs) > 0;
        }
        int earliestSide = -1;
        long earliest = Long.MAX_VALUE;
        for (int side = 0; side < sideCount; side++)
        {
            final SideQueue queue = queues[side];
            final long blockedFrom;
            if (!queue.isEmpty())
            {
                blockedFrom = blockedFrom(queue);
            }
            else if (UNKNOWN != queue.missingThrough)
            {
                blockedFrom = queue.missingThrough;
            }
            else
            {
                continue;
            }
            if (blockedFrom < earliest)
            {
                earliest = blockedFrom;
                earliestSide = side;
            }
        }
        if (earliestSide < 0)
        {
            return false;
        }
        final SideQueue queue = queues[earliestSide];
        if (!queue.isEmpty())
        {
            endWait(earliestSide);
        }
        else
        {
            if (queue.missingThrough > chain)
            {
                final long from = chain;
                chain = queue.missingThrough;
                output.onGap(from, chain);
            }
            queue.missingThrough = UNKNOWN;
        }
        drain(nowNs);
        return true;
    }

    /**
     * @param buffer a validated incremental packet.
     * @param offset of its SBE header.
     * @return the chain position before its first message of the chain: where it links; {@link #UNKNOWN} when it
     * neither says nor holds a message of the chain (an exchange snapshot's messages only).
     */
    long linkOf(final DirectBuffer buffer, final int offset)
    {
        final long previous = previousOf(buffer, offset);
        if (UNKNOWN != previous)
        {
            return previous;
        }
        final long start = firstChainStart(buffer, offset);
        return 0 == start ? UNKNOWN : start - 1;
    }

    /**
     * @param side 0-based.
     * @return the furthest chain position the side's packets or heartbeats reached; {@link #UNKNOWN} before any.
     */
    long sideChain(final int side)
    {
        return sideChain[side];
    }

    /** @return the chain position delivered so far; {@link #UNKNOWN} before the partition joined. */
    long chain()
    {
        return chain;
    }

    /** @return true while a side's packets wait for another side. */
    boolean isHolding(final int side)
    {
        return !queues[side].isEmpty() || UNKNOWN != queues[side].missingThrough;
    }

    /** @return packets of the side waiting now. */
    int heldPackets(final int side)
    {
        return queues[side].count;
    }

    /**
     * One validated incremental packet of schema version 4 or later from a side.
     *
     * @param side   0-based.
     * @param buffer holding it.
     * @param offset of its SBE header.
     * @param length of the whole packet.
     * @param nowNs  the time, for the wait.
     */
    void onPacket(final int side, final DirectBuffer buffer, final int offset, final int length, final long nowNs)
    {
        if (mismatched[side])
        {
            return;
        }
        final SideQueue queue = queues[side];
        if (!queue.isEmpty())
        {
            while (!queue.append(buffer, offset, length, nowNs))
            {
                endWait(side); // outgrew its hold: decide now, then keep this one
                drain(nowNs);
                if (queue.isEmpty())
                {
                    break;
                }
            }
            if (!queue.isEmpty())
            {
                return;
            }
        }
        if (!joined)
        {
            join(side, buffer, offset);
        }
        final int held = walk(side, buffer, offset, length, 0, previousOf(buffer, offset), false);
        if (held >= 0)
        {
            queue.append(buffer, offset, length, nowNs);
            queue.resumeIndex = held;
            queue.resumeLink = resumeLink;
            queue.headWalked = true;
            if (0 == maxWaitNs)
            {
                poll(nowNs); // one side: nobody else can fill it
            }
        }
        else
        {
            if (MISMATCHED == held)
            {
                queue.clear();
            }
            drain(nowNs); // the chain moved: another side's held packets may link now
        }
    }

    /**
     * A side's heartbeat: where its chain stands. Above what was delivered, the side sent what never arrived here.
     * Before anything was delivered it joins the partition there (at 0: at the session's start).
     *
     * @param side                 0-based.
     * @param lastExchangeSequence the heartbeat's chain; {@link #UNKNOWN} says nothing.
     * @param nowNs                the time.
     */
    void onHeartbeat(final int side, final long lastExchangeSequence, final long nowNs)
    {
        if (UNKNOWN == lastExchangeSequence || mismatched[side])
        {
            return;
        }
        sideChain[side] = Math.max(sideChain[side], lastExchangeSequence);
        if (!joined)
        {
            // A quiet partition joins on a heartbeat, where its side's chain stands, unless a packet joins it within
            // the wait (another side may have what this side's heartbeat is past: a packet loses nothing).
            if (UNKNOWN == pendingJoinChain || lastExchangeSequence < pendingJoinChain)
            {
                if (UNKNOWN == pendingJoinChain)
                {
                    pendingJoinSinceNs = nowNs;
                }
                pendingJoinChain = lastExchangeSequence;
                pendingJoinSide = side;
            }
            poll(nowNs);
            return;
        }
        if (lastExchangeSequence <= chain)
        {
            return;
        }
        final SideQueue queue = queues[side];
        if (queue.isEmpty() && lastExchangeSequence > queue.missingThrough)
        {
            if (UNKNOWN == queue.missingThrough)
            {
                queue.missingSinceNs = nowNs;
            }
            queue.missingThrough = lastExchangeSequence;
        }
        poll(nowNs);
    }

    /**
     * End the waits that ran out.
     *
     * @param nowNs the time.
     * @return work done.
     */
    int poll(final long nowNs)
    {
        int work = 0;
        if (!joined)
        {
            if (UNKNOWN != pendingJoinChain && nowNs - pendingJoinSinceNs >= maxWaitNs)
            {
                joined = true;
                chain = pendingJoinChain;
                pendingJoinChain = UNKNOWN;
                output.onJoin(pendingJoinSide, chain, 0 == chain);
                return 1;
            }
            return 0;
        }
        for (int side = 0; side < sideCount; side++)
        {
            final SideQueue queue = queues[side];
            if (!queue.isEmpty())
            {
                if (nowNs - queue.heldSinceNs >= maxWaitNs)
                {
                    endWait(side);
                    work++;
                }
            }
            else if (UNKNOWN != queue.missingThrough)
            {
                if (queue.missingThrough <= chain)
                {
                    queue.missingThrough = UNKNOWN; // another side delivered it
                }
                else if (nowNs - queue.missingSinceNs >= maxWaitNs)
                {
                    final long from = chain;
                    chain = queue.missingThrough;
                    queue.missingThrough = UNKNOWN;
                    output.onGap(from, chain);
                    work++;
                }
            }
        }
        if (work > 0)
        {
            drain(nowNs);
        }
        return work;
    }

    private void join(final int side, final DirectBuffer buffer, final int offset)
    {
        joined = true;
        pendingJoinChain = UNKNOWN;
        final long previous = previousOf(buffer, offset);
        final boolean sessionStart = 0 == previous;
        chain = UNKNOWN != previous ? previous : firstChainStartOf(buffer, offset) - 1;
        output.onJoin(side, chain, sessionStart);
    }

    /**
     * The head of a side's queue waited long enough: what blocks it is decided now. A span before an unlinked message
     * is a gap; a gap notice no other side filled goes out.
     */
    private void endWait(final int side)
    {
        final SideQueue queue = queues[side];
        if (queue.isEmpty())
        {
            return;
        }
        final long blockedFrom = blockedFrom(queue);
        if (blockedFrom > chain)
        {
            final long from = chain;
            chain = blockedFrom;
            output.onGap(from, chain);
        }
        queue.force = true; // its next message goes out even if it is a gap notice
    }

    /** @return the chain position the head of a non-empty queue waits after: where its next message would link. */
    private long blockedFrom(final SideQueue queue)
    {
        readHeadLink(queue);
        return UNKNOWN == queue.resumeLink ?
            messageStartOf(queue.buffer, queue.headOffset(), queue.resumeIndex) - 1 : queue.resumeLink;
    }

    /** Deliver what the queues' heads allow, again and again while the chain moves. */
    private void drain(final long nowNs)
    {
        boolean progress = true;
        while (progress)
        {
            progress = false;
            for (int side = 0; side < sideCount; side++)
            {
                final SideQueue queue = queues[side];
                if (mismatched[side])
                {
                    queue.clear();
                }
                while (!queue.isEmpty())
                {
                    readHeadLink(queue);
                    final long chainBefore = chain;
                    final int held = walk(side, queue.buffer, queue.headOffset(), queue.headLength(),
                        queue.resumeIndex, queue.resumeLink, queue.force);
                    if (held >= 0)
                    {
                        if (chain != chainBefore || held != queue.resumeIndex)
                        {
                            progress = true;
                            queue.force = false;
                        }
                        queue.resumeIndex = held;
                        queue.resumeLink = resumeLink;
                        break;
                    }
                    if (MISMATCHED == held)
                    {
                        queue.clear();
                        progress = true;
                        break;
                    }
                    queue.force = false;
                    queue.removeHead(nowNs);
                    progress = true;
                }
                if (UNKNOWN != queue.missingThrough && queue.missingThrough <= chain)
                {
                    queue.missingThrough = UNKNOWN;
                }
            }
        }
    }

    private void readHeadLink(final SideQueue queue)
    {
        if (!queue.headWalked)
        {
            queue.resumeIndex = 0;
            queue.resumeLink = previousOf(queue.buffer, queue.headOffset());
            queue.headWalked = true;
        }
    }

    /**
     * Walk a packet's messages from {@code fromIndex}, the side's chain before them at {@code link}: deliver the new
     * ones that link, drop duplicates and state messages, stop at the first that must wait.
     *
     * @param force deliver the first new message even if it is a gap notice (the wait for other sides is over).
     * @return -1 when the packet is done, {@link #MISMATCHED} when a copy differed from the delivered message (the side
     * is out), else the index of the message that waits ({@link #resumeLink} then holds the side's chain before it).
     */
    private int walk(
        final int side, final DirectBuffer buffer, final int offset, final int length, final int fromIndex,
        final long link, final boolean force)
    {
        final int messageCount = messageCountOf(buffer, offset);
        int position = messagePosition(buffer, offset, fromIndex);

        boolean forceNext = force;
        long before = link;
        int runStart = -1;
        int duplicates = 0;
        for (int i = fromIndex; i < messageCount; i++)
        {
            final long headerWord = WireFormat.headerWord(buffer, position);
            final boolean gapNotice = GapNoticeDecoder.TEMPLATE_ID == WireFormat.templateIdOf(headerWord);
            final int body = position + WireFormat.HEADER_LENGTH;
            final long start = buffer.getLong(body + WireFormat.EXCHANGE_SEQUENCE_OFFSET, WireFormat.BYTE_ORDER);
            final long end = buffer.getLong(
                body + WireFormat.chainPositionOffset(WireFormat.templateIdOf(headerWord)), WireFormat.BYTE_ORDER);

            if (!gapNotice && 0 == start) // an exchange snapshot's message: state, no link of the chain
            {
                runStart = flush(side, buffer, offset, length, runStart, i);
                duplicates++;
            }
            else if (end <= chain)
            {
                runStart = flush(side, buffer, offset, length, runStart, i);
                if (null != history && !gapNotice && DeliveredHistory.DIFFERENT == history.compare(
                    side, end, buffer, position, WireFormat.messageLength(WireFormat.blockLengthOf(headerWord))))
                {
                    if (duplicates > 0)
                    {
                        output.onDuplicates(side, duplicates);
                    }
                    mismatched[side] = true;
                    output.onMismatch(side, end);
                    return MISMATCHED;
                }
                duplicates++;
                before = end;
            }
            else if ((UNKNOWN == before ? start - 1 : before) <= chain && (!gapNotice || 1 == sideCount || forceNext))
            {
                forceNext = false;
                if (runStart < 0)
                {
                    runStart = i;
                }
                chain = end;
                before = end;
                if (null != history && !gapNotice)
                {
                    history.append(end, buffer, position, WireFormat.messageLength(WireFormat.blockLengthOf(headerWord)));
                }
            }
            else
            {
                flush(side, buffer, offset, length, runStart, i);
                if (duplicates > 0)
                {
                    output.onDuplicates(side, duplicates);
                }
                resumeLink = before;
                sideChain[side] = Math.max(sideChain[side], before);
                return i;
            }
            position += WireFormat.messageLength(WireFormat.blockLengthOf(headerWord));
        }
        flush(side, buffer, offset, length, runStart, messageCount);
        if (duplicates > 0)
        {
            output.onDuplicates(side, duplicates);
        }
        sideChain[side] = Math.max(sideChain[side], before);
        return -1;
    }

    private int flush(
        final int side, final DirectBuffer buffer, final int offset, final int length, final int runStart, final int end)
    {
        if (runStart >= 0)
        {
            output.onMessages(side, buffer, offset, length, runStart, end, chain);
        }
        return -1;
    }

    private long previousOf(final DirectBuffer buffer, final int offset)
    {
        final long headerWord = WireFormat.headerWord(buffer, offset);
        packetHeader.wrap(buffer, offset + WireFormat.HEADER_LENGTH, WireFormat.blockLengthOf(headerWord),
            WireFormat.versionOf(headerWord));
        return packetHeader.previousExchangeSequence();
    }

    /** The exchange sequence message {@code index} of the packet starts at (a gap notice: its first missing one). */
    private long messageStartOf(final DirectBuffer buffer, final int offset, final int index)
    {
        return buffer.getLong(messagePosition(buffer, offset, index) + WireFormat.HEADER_LENGTH +
            WireFormat.EXCHANGE_SEQUENCE_OFFSET, WireFormat.BYTE_ORDER);
    }

    private int messageCountOf(final DirectBuffer buffer, final int offset)
    {
        final long packetWord = WireFormat.headerWord(buffer, offset);
        packetHeader.wrap(buffer, offset + WireFormat.HEADER_LENGTH, WireFormat.blockLengthOf(packetWord),
            WireFormat.versionOf(packetWord));
        return packetHeader.messageCount();
    }

    /** Where message {@code index} of the packet at {@code offset} starts (its SBE header). */
    private static int messagePosition(final DirectBuffer buffer, final int offset, final int index)
    {
        int position = offset + WireFormat.HEADER_LENGTH + WireFormat.blockLengthOf(WireFormat.headerWord(buffer, offset));
        for (int i = 0; i < index; i++)
        {
            position += WireFormat.messageLength(WireFormat.blockLengthOf(WireFormat.headerWord(buffer, position)));
        }
        return position;
    }

    /** Where the packet's first message of the chain starts (messages of exchange sequence 0 are not of it). */
    private long firstChainStartOf(final DirectBuffer buffer, final int offset)
    {
        final long start = firstChainStart(buffer, offset);
        return 0 == start ? 1 : start; // only state messages: the chain starts before the session's first
    }

    /** @return the exchange sequence the packet's first message of the chain starts at; 0 when it has none. */
    private long firstChainStart(final DirectBuffer buffer, final int offset)
    {
        final int messageCount = messageCountOf(buffer, offset);
        int position = messagePosition(buffer, offset, 0);
        for (int i = 0; i < messageCount; i++)
        {
            final long start = buffer.getLong(position + WireFormat.HEADER_LENGTH + WireFormat.EXCHANGE_SEQUENCE_OFFSET,
                WireFormat.BYTE_ORDER);
            if (0 != start)
            {
                return start;
            }
            position += WireFormat.messageLength(WireFormat.blockLengthOf(WireFormat.headerWord(buffer, position)));
        }
        return 0;
    }

    /** A side's packets waiting for the chain, copied in arrival order: [int32 length][packet], ... */
    private static final class SideQueue
    {
        final UnsafeBuffer buffer;
        int head;
        int tail;
        int count;
        int resumeIndex;
        long resumeLink;
        boolean headWalked;
        boolean force;
        long heldSinceNs;
        long missingThrough = UNKNOWN;
        long missingSinceNs;

        SideQueue(final int capacity)
        {
            buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(Math.max(capacity, 64 * 1024), 64));
        }

        boolean isEmpty()
        {
            return 0 == count;
        }

        void clear()
        {
            head = 0;
            tail = 0;
            count = 0;
            resumeIndex = 0;
            headWalked = false;
            force = false;
            missingThrough = UNKNOWN;
        }

        int headOffset()
        {
            return head + LENGTH_PREFIX;
        }

        int headLength()
        {
            return buffer.getInt(head);
        }

        boolean append(final DirectBuffer src, final int offset, final int length, final long nowNs)
        {
            final int needed = LENGTH_PREFIX + length;
            if (tail + needed > buffer.capacity())
            {
                if (head > 0) // compact: move what waits to the front
                {
                    buffer.putBytes(0, buffer, head, tail - head);
                    tail -= head;
                    head = 0;
                }
                if (tail + needed > buffer.capacity())
                {
                    return false;
                }
            }
            buffer.putInt(tail, length);
            buffer.putBytes(tail + LENGTH_PREFIX, src, offset, length);
            tail += needed;
            if (0 == count++)
            {
                heldSinceNs = nowNs;
                headWalked = false;
                resumeIndex = 0;
            }
            return true;
        }

        void removeHead(final long nowNs)
        {
            head += LENGTH_PREFIX + buffer.getInt(head);
            if (0 == --count)
            {
                head = 0;
                tail = 0;
            }
            else
            {
                heldSinceNs = nowNs; // the next packet waits from now
            }
            headWalked = false;
            resumeIndex = 0;
        }
    }
}
