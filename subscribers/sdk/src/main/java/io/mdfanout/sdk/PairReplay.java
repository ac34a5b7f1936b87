package io.mdfanout.sdk;

import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;

/**
 * One partition of a pair started from a point of a recorded session: each side's recordings replay through a
 * {@link PartitionReplay} of their own into the pair's arbitration as that side ({@link PairSequencer}), so a span one
 * side's recordings lack (its fanout was down) comes from the other's, and the listener sees the partition once, in
 * order, as a subscriber that ran since then. Then into the live streams, by chain position: each side holds its live
 * stream until the pair's chain reaches it; the first side that gets there merges ({@link
 * MarketDataListener#onReplayLive}), and the other stops replaying and follows its own live stream from the same
 * chain, so the pair arbitrates live as always.
 * <p>
 * What no side's recordings hold waits for the other side's replay only while it can still come: a side that waits
 * while no other side replays (each ended, gave up or waits too) ends its wait at once, the earliest first, and that
 * span is a gap (then a snapshot recovery, as live). When no side's replay reaches its live stream (nothing recorded,
 * an unreachable archive, the live streams outran the replays) both sides follow their live streams and the pair
 * reports what lacks as it would for any subscriber. Replay only, the partition ends once every side ended. Polling
 * thread only.
 */
final class PairReplay implements AutoCloseable
{
    private final int slot;
    private final PartitionStream stream;
    private final PairSequencer pair;
    private final MessageDispatcher dispatcher;
    private final SubscriberCounters counters;
    private final PartitionReplay[] sides;
    private final boolean toLive;
    /** Following the live streams (merged, or given up on the replay), or replay only: ended. */
    private boolean done;

    PairReplay(
        final int slot,
        final PartitionStream stream,
        final PairSequencer pair,
        final MessageDispatcher dispatcher,
        final SubscriberCounters counters,
        final PartitionReplay[] sides,
        final boolean toLive)
    {
        this.slot = slot;
        this.stream = stream;
        this.pair = pair;
        this.dispatcher = dispatcher;
        this.counters = counters;
        this.sides = sides;
        this.toLive = toLive;
        pair.replaying(slot, true, PartitionReplay.REPLAY_TIMEOUT_NS);
    }

    /** @return true while side {@code side}'s live stream must not be subscribed. */
    boolean blocksLive(final int side)
    {
        return sides[side].blocksLive();
    }

    /** @return true while side {@code side}'s live packets go to its replay (held). */
    boolean capturesLive(final int side)
    {
        return sides[side].capturesLive();
    }

    /** A live packet of side {@code side} while its replay holds them. */
    void onLive(final int side, final DirectBuffer buffer, final int offset, final int length)
    {
        sides[side].onLive(0, buffer, offset, length);
    }

    /** @return true until the partition follows the live streams, or (replay only) every side ended. */
    boolean isReplaying()
    {
        return !done;
    }

    /** @return true once the replay-only replay ended on every side. */
    boolean isEnded()
    {
        return done && !toLive;
    }

    /** @return true when a replay-only replay ended on every side without what was asked (the reasons were reported). */
    boolean failed()
    {
        for (final PartitionReplay side : sides)
        {
            if (!side.failed())
            {
                return false;
            }
        }
        return true;
    }

    int doWork(final long nowNs, final int fragmentLimit)
    {
        int work = 0;
        for (final PartitionReplay side : sides)
        {
            work += side.doWork(nowNs, fragmentLimit);
        }
        return done ? work : work + coordinate();
    }

    private int coordinate()
    {
        PartitionReplay live = null;
        boolean anyReplaying = false;
        boolean allEnded = true;
        for (final PartitionReplay side : sides)
        {
            if (PartitionReplay.State.LIVE == side.state() && null == live)
            {
                live = side;
            }
            anyReplaying |= side.isReplaying();
            allEnded &= PartitionReplay.State.ENDED == side.state();
        }
        if (null != live)
        {
            // A side reached its live stream: the partition is live; the other side's replay is not needed any more,
            // its live stream joins when the chain reaches it.
            for (final PartitionReplay side : sides)
            {
                side.awaitLive();
            }
            finish(live.merged());
            return 1;
        }
        if (toLive && !anyReplaying)
        {
            // No side's replay reached its live stream: follow them, what no side has is a gap (then a snapshot).
            decideWaits();
            stream.primeUntil = null;
            finish(false);
            for (final PartitionReplay side : sides)
            {
                side.goLive();
            }
            return 1;
        }
        if (!toLive && allEnded)
        {
            decideWaits();
            done = true;
            pair.replaying(slot, false, 0);
            dispatcher.onReplayEnd(stream.partition, stream.expectedSequence);
            return 1;
        }
        if (pair.isWaiting(slot) && !canFill())
        {
            pair.endEarliestWait(slot);
            return 1;
        }
        return 0;
    }

    /** @return whether some side's replay may still give what the arbitration waits for. */
    private boolean canFill()
    {
        for (int side = 0; side < sides.length; side++)
        {
            if (sides[side].isReplaying() && !pair.isHolding(slot, side))
            {
                return true;
            }
        }
        return false;
    }

    /** Nothing more comes from the replays: every wait is decided, the earliest first. */
    private void decideWaits()
    {
        while (pair.isWaiting(slot) && pair.endEarliestWait(slot))
        {
            // each round delivers what links and declares the earliest span no side has
        }
    }

    private void finish(final boolean merged)
    {
        done = true;
        pair.replaying(slot, false, 0);
        if (merged)
        {
            long replayed = 0;
            for (final PartitionReplay side : sides)
            {
                replayed += side.replayedMessages();
            }
            counters.onReplaySwitch();
            dispatcher.onReplayLive(stream.partition, stream.expectedSequence, replayed);
        }
    }

    public void close()
    {
        done = true;
        CloseHelper.closeAll(sides);
    }
}
