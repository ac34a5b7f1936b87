package io.mdfanout.archive;

import java.util.ArrayList;
import java.util.List;

/**
 * Which chain positions of one partition each side of a pair has recorded, and the holes of the pair: the spans that
 * no side recorded. Work in progress on the branch that records both sides of a pair (issue 37); not wired yet.
 * <p>
 * A recorded packet covers the chain positions ({@code previousExchangeSequence}, the exchange sequence of its last
 * sequenced message]; one that carries only exchange sequence 0 (an exchange snapshot's state) covers nothing. A side's
 * holes are the spans its coverage skipped, and the span after all it recorded is open until it records again. A side
 * may cover a span late (a restarted fanout publishes what its ring still held): that fills its hole. A hole of the
 * pair is where every side's holes overlap, confirmed once every side recorded past it ({@link #confirm}), or at the
 * end of the session for a side that never came back ({@link #finish}); each is reported once, in chain order.
 * Chain positions are the exchange's MoldUDP64 sequences: 0 before the session's first message.
 */
final class ChainCoverage
{
    /** A hole of the pair, reported once. */
    interface HoleHandler
    {
        /**
         * No side recorded the chain positions after {@code afterChain} up to and including {@code throughChain}.
         *
         * @param afterChain   the last chain position recorded before the hole.
         * @param throughChain the last chain position of the hole (the next recorded packet's previous position).
         */
        void onHole(long afterChain, long throughChain);
    }

    private final int sideCount;
    /** Per side: the highest chain position it recorded (0 before anything). */
    private final long[] end;
    /** Per side: its closed holes, as {after, through} pairs, in chain order, disjoint; open spans are implied. */
    private final List<List<long[]>> holes = new ArrayList<>();
    /** Everything at or below this was judged: holes of the pair there were reported. */
    private long confirmedThrough;

    /**
     * @param sideCount how many sides record the partition (1 for a single fanout, 2 for a pair).
     */
    ChainCoverage(final int sideCount)
    {
        if (sideCount < 1)
        {
            throw new IllegalArgumentException("at least one side: " + sideCount);
        }
        this.sideCount = sideCount;
        this.end = new long[sideCount];
        for (int side = 0; side < sideCount; side++)
        {
            holes.add(new ArrayList<>());
        }
    }

    /**
     * A packet side {@code side} recorded.
     *
     * @param side          the side.
     * @param previousChain the packet's previousExchangeSequence: the chain position before its first message.
     * @param lastChain     the exchange sequence of its last sequenced message; at most previousChain when it has none.
     */
    void onPacket(final int side, final long previousChain, final long lastChain)
    {
        if (previousChain < 0 || lastChain <= previousChain)
        {
            return; // the publication cannot say where it stands, or the packet carries no sequenced message
        }
        final List<long[]> sideHoles = holes.get(side);
        if (previousChain > end[side])
        {
            sideHoles.add(new long[] {end[side], previousChain});
        }
        else if (previousChain < end[side])
        {
            fill(sideHoles, previousChain, Math.min(lastChain, end[side]));
        }
        end[side] = Math.max(end[side], lastChain);
    }

    /**
     * A restarted archive resumes a side where its last recording, read again, starts: what came before was judged
     * while it was recorded, so it is no hole of this side.
     *
     * @param side          the side.
     * @param previousChain the chain position before the first packet read again.
     */
    void resumeAt(final int side, final long previousChain)
    {
        if (previousChain > end[side])
        {
            end[side] = previousChain;
        }
    }

    /**
     * Report the holes of the pair every side has recorded past.
     *
     * @param handler told each new hole, in chain order.
     * @return how many were reported.
     */
    int confirm(final HoleHandler handler)
    {
        long limit = Long.MAX_VALUE;
        for (int side = 0; side < sideCount; side++)
        {
            limit = Math.min(limit, end[side]);
        }
        return judge(limit, handler);
    }

    /**
     * The session ended (or the archive stops recording it): a side that never recorded past a span lacks it, so
     * every span up to where any side got is judged.
     *
     * @param handler told each new hole, in chain order.
     * @return how many were reported.
     */
    int finish(final HoleHandler handler)
    {
        long limit = 0;
        for (int side = 0; side < sideCount; side++)
        {
            limit = Math.max(limit, end[side]);
        }
        return judge(limit, handler);
    }

    /** A new trading session: its chain starts from 0 on every side. */
    void reset()
    {
        java.util.Arrays.fill(end, 0);
        for (final List<long[]> sideHoles : holes)
        {
            sideHoles.clear();
        }
        confirmedThrough = 0;
    }

    /** @return the highest chain position side {@code side} recorded; 0 before anything. */
    long end(final int side)
    {
        return end[side];
    }

    private int judge(final long limit, final HoleHandler handler)
    {
        if (limit <= confirmedThrough)
        {
            return 0;
        }
        // The pair's holes in (confirmedThrough, limit]: start from the whole span, intersect with each side's holes.
        List<long[]> common = new ArrayList<>();
        common.add(new long[] {confirmedThrough, limit});
        for (int side = 0; side < sideCount; side++)
        {
            final List<long[]> sideHoles = new ArrayList<>(holes.get(side));
            if (end[side] < limit)
            {
                sideHoles.add(new long[] {end[side], limit}); // open: nothing recorded after end
            }
            common = intersect(common, sideHoles);
        }
        int reported = 0;
        for (final long[] hole : common)
        {
            handler.onHole(hole[0], hole[1]);
            reported++;
        }
        confirmedThrough = limit;
        for (int side = 0; side < sideCount; side++)
        {
            holes.get(side).removeIf(hole -> hole[1] <= limit);
        }
        return reported;
    }

    /** Remove the chain positions (from, through] from a side's holes: it recorded them late. */
    private static void fill(final List<long[]> sideHoles, final long from, final long through)
    {
        final List<long[]> kept = new ArrayList<>(sideHoles.size() + 1);
        for (final long[] hole : sideHoles)
        {
            if (hole[1] <= from || hole[0] >= through)
            {
                kept.add(hole);
                continue;
            }
            if (hole[0] < from)
            {
                kept.add(new long[] {hole[0], from});
            }
            if (through < hole[1])
            {
                kept.add(new long[] {through, hole[1]});
            }
        }
        sideHoles.clear();
        sideHoles.addAll(kept);
    }

    /** The overlaps of two lists of spans (after, through], each in order and disjoint. */
    private static List<long[]> intersect(final List<long[]> a, final List<long[]> b)
    {
        final List<long[]> result = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < a.size() && j < b.size())
        {
            final long after = Math.max(a.get(i)[0], b.get(j)[0]);
            final long through = Math.min(a.get(i)[1], b.get(j)[1]);
            if (after < through)
            {
                result.add(new long[] {after, through});
            }
            if (a.get(i)[1] < b.get(j)[1])
            {
                i++;
            }
            else
            {
                j++;
            }
        }
        return result;
    }
}
