package io.mdfanout.sdk;

import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;

/**
 * The SDK's packet processing without a transport: validates, sequences and dispatches complete
 * Aeron messages (packets and heartbeats, see WIRE.md) handed to it by the caller, exactly as a
 * {@link FeedSubscriber} does with the messages it polls, with recovery off. {@link #withRecovery} makes one
 * that also recovers from the partitions' snapshot streams, whose messages the caller hands in too
 * ({@link #onSnapshotMessage}); {@link #forPair} one that arbitrates the two sides of a pair by their chain, as a
 * subscriber with {@link FeedSubscriber.Context#pairChannel} does.
 * <p>
 * For benchmarks, tests and tools that hold the wire bytes already (a capture, a generated
 * stream). Without recovery a gap is reported to the listener and counted, never recovered: there is no
 * snapshot stream to subscribe to. Not thread safe; allocates nothing per message.
 */
public final class PacketStreamDecoder
{
    /** The snapshot channel of a recovery whose snapshot messages are handed in: never subscribed to. */
    private static final String NO_SNAPSHOT_CHANNEL = "none: handed in";

    private final StreamSequencer sequencer;
    private final PairSequencer pairSequencer;
    /** Per partition slot, its recovery from the snapshot stream; null when recovery is off. */
    private final PartitionRecovery[] recoveries;

    /**
     * Create a decoder for a set of partition streams.
     *
     * @param partitions   the partitions, distinct and non-negative; a message is handed in with its slot in this array.
     * @param listener     receives the messages.
     * @param counters     where to count.
     * @param errorHandler receives exceptions thrown by the listener (counted and otherwise ignored).
     */
    public PacketStreamDecoder(
        final int[] partitions,
        final MarketDataListener listener,
        final SubscriberCounters counters,
        final ErrorHandler errorHandler)
    {
        if (null == partitions || partitions.length == 0 || null == listener || null == counters || null == errorHandler)
        {
            throw new IllegalArgumentException("partitions, listener, counters and error handler are required");
        }
        final PartitionStream[] streams = streams(partitions);
        this.sequencer = new StreamSequencer(
            streams, new PacketValidator(), new MessageDispatcher(listener, counters, errorHandler, streams), counters, null);
        this.pairSequencer = null;
        this.recoveries = null;
        sequencer.now(System.nanoTime());
    }

    private PacketStreamDecoder(final PairSequencer pairSequencer)
    {
        this.sequencer = null;
        this.pairSequencer = pairSequencer;
        this.recoveries = null;
        pairSequencer.now(System.nanoTime());
    }

    private PacketStreamDecoder(final StreamSequencer sequencer, final PartitionRecovery[] recoveries, final long nowNs)
    {
        this.sequencer = sequencer;
        this.pairSequencer = null;
        this.recoveries = recoveries;
        sequencer.now(nowNs);
    }

    /**
     * Create a decoder that recovers each partition from its snapshot stream, as a {@link FeedSubscriber} with
     * recovery on does: a late join, a gap or a new publication makes the partition stale, its incrementals are held
     * back in a bounded buffer until a snapshot handed in with {@link #onSnapshotMessage} was applied, then they are
     * replayed through the snapshot's filter and the partition is live again (docs/SDK.md, "Late join, gaps and
     * recovery").
     * <p>
     * For captures, tests and tools that hold the snapshot streams' bytes too: the conformance suite proves every
     * SDK's recovery against the same recorded streams with it. It takes the time once, when made, and reads no clock
     * after: a silent stream and a lost image, which a live client detects by polling, are never reported, and every
     * stale duration {@link MarketDataListener#onRecovered} is given is 0.
     *
     * @param partitions          the partitions, distinct and non-negative; a message is handed in with its slot.
     * @param recoveryBufferBytes capacity of each partition's recovery buffer, allocated on its first recovery
     *                            ({@link FeedSubscriber.Context#recoveryBufferBytes}); a packet that does not fit
     *                            drops what was buffered and makes the partition stale again
     *                            ({@link StaleReason#RECOVERY_BUFFER_OVERFLOW}). Each packet takes its length and 16
     *                            bytes, 8-aligned; a packet larger than the whole buffer counts as lost (only a
     *                            snapshot that holds it recovers the partition), which a live client's floor
     *                            ({@link FeedSubscriber.Context#MIN_RECOVERY_BUFFER_BYTES}) rules out.
     * @param listener            receives the messages, the snapshots and the recoveries.
     * @param counters            where to count.
     * @param errorHandler        receives exceptions thrown by the listener (counted and otherwise ignored).
     * @return the decoder.
     */
    public static PacketStreamDecoder withRecovery(
        final int[] partitions,
        final int recoveryBufferBytes,
        final MarketDataListener listener,
        final SubscriberCounters counters,
        final ErrorHandler errorHandler)
    {
        if (null == partitions || partitions.length == 0 || null == listener || null == counters || null == errorHandler)
        {
            throw new IllegalArgumentException("partitions, listener, counters and error handler are required");
        }
        if (recoveryBufferBytes <= 0)
        {
            throw new IllegalArgumentException("recovery buffer must be more than 0 bytes: " + recoveryBufferBytes);
        }
        final PartitionStream[] streams = streams(partitions);
        final PacketValidator validator = new PacketValidator();
        final MessageDispatcher dispatcher = new MessageDispatcher(listener, counters, errorHandler, streams);
        final long nowNs = System.nanoTime();
        final PartitionRecovery[] recoveries = new PartitionRecovery[streams.length];
        for (int slot = 0; slot < streams.length; slot++)
        {
            // No Aeron and no channel: the snapshot messages are handed in, never subscribed to (doWork never runs).
            recoveries[slot] = new PartitionRecovery(
                streams[slot], validator, dispatcher, counters, null, NO_SNAPSHOT_CHANNEL, 0, recoveryBufferBytes);
            recoveries[slot].now(nowNs);
            streams[slot].recovery = recoveries[slot];
        }
        return new PacketStreamDecoder(
            new StreamSequencer(streams, validator, dispatcher, counters, null), recoveries, nowNs);
    }

    /**
     * Create a decoder of a pair's two sides: per partition the first copy of each message is delivered, the other
     * side's is a duplicate (counted per side, dropped), and what one side lacks is taken from the other. Messages
     * are handed in with {@link #onSideMessage}. The arbitration's waits are measured on the time given to
     * {@link #doWork}: a span both sides lack is a gap once a call of it finds its wait over.
     *
     * @param partitions        the partitions, distinct and non-negative; a message is handed in with its slot.
     * @param arbitrationWaitNs how long a message one side lacks waits for the other
     *                          ({@link FeedSubscriber.Context#arbitrationWaitNs}).
     * @param listener          receives the messages.
     * @param counters          where to count, per side too.
     * @param errorHandler      receives listener exceptions and a side's refusal.
     * @return the decoder.
     */
    public static PacketStreamDecoder forPair(
        final int[] partitions,
        final long arbitrationWaitNs,
        final MarketDataListener listener,
        final SubscriberCounters counters,
        final ErrorHandler errorHandler)
    {
        if (null == partitions || partitions.length == 0 || null == listener || null == counters || null == errorHandler)
        {
            throw new IllegalArgumentException("partitions, listener, counters and error handler are required");
        }
        final PartitionStream[] streams = streams(partitions);
        return new PacketStreamDecoder(new PairSequencer(streams, FeedSubscriber.MAX_SIDES, 0, arbitrationWaitNs,
            FeedSubscriber.Context.ARBITRATION_HOLD_BYTES, new PacketValidator(),
            new MessageDispatcher(listener, counters, errorHandler, streams), counters, errorHandler, null));
    }

    private static PartitionStream[] streams(final int[] partitions)
    {
        final PartitionStream[] streams = new PartitionStream[partitions.length];
        for (int slot = 0; slot < partitions.length; slot++)
        {
            streams[slot] = new PartitionStream(partitions[slot]);
        }
        return streams;
    }

    /**
     * Process one complete Aeron message (a packet or a heartbeat) of a partition stream.
     *
     * @param slot      index into the partitions given at construction.
     * @param sessionId the publisher session the message came from; a new one re-joins the stream.
     * @param buffer    holding the message.
     * @param offset    of the SBE message header.
     * @param length    of the whole message.
     */
    public void onMessage(final int slot, final int sessionId, final DirectBuffer buffer, final int offset, final int length)
    {
        if (null == sequencer)
        {
            throw new IllegalStateException("a pair's decoder: hand messages in with their side");
        }
        sequencer.onMessage(slot, sessionId, buffer, offset, length);
    }

    /**
     * Process one complete Aeron message (a snapshot packet or a heartbeat) of a partition's snapshot stream: while the
     * partition recovers, the first recent enough snapshot of the incremental publication it follows is applied, and
     * loss or an inconsistency abandons it (counted) until the next one. Outside a recovery it is counted and passed
     * over.
     *
     * @param slot      index into the partitions given at construction.
     * @param sessionId the session of the snapshot publication the message came from (not the incremental one: a
     *                  snapshot names that in its SnapshotBegin).
     * @param buffer    holding the message.
     * @param offset    of the SBE message header.
     * @param length    of the whole message.
     * @throws IllegalStateException when the decoder was made without recovery.
     */
    public void onSnapshotMessage(
        final int slot, final int sessionId, final DirectBuffer buffer, final int offset, final int length)
    {
        if (null == recoveries)
        {
            throw new IllegalStateException("recovery is off: make the decoder withRecovery to hand in snapshot messages");
        }
        recoveries[slot].onSnapshotMessage(sessionId, buffer, offset, length);
    }

    /**
     * Process one complete Aeron message (a packet or a heartbeat) of a partition stream from one side of a pair.
     *
     * @param slot   index into the partitions given at construction.
     * @param side   0 for side A, 1 for side B.
     * @param buffer holding the message.
     * @param offset of the SBE message header.
     * @param length of the whole message.
     */
    public void onSideMessage(final int slot, final int side, final DirectBuffer buffer, final int offset, final int length)
    {
        if (null == pairSequencer)
        {
            throw new IllegalStateException("one side's decoder: hand messages in with their publisher session");
        }
        pairSequencer.onMessage(slot, side, buffer, offset, length);
    }

    /**
     * A pair's decoder: take the time as now and end the arbitration waits it finds over (a span both sides lacked
     * for the wait is then a gap); what a {@link FeedSubscriber} does at each poll. Sides are never timed out as silent.
     *
     * @param nowNs the time, as {@link System#nanoTime()}.
     */
    public void doWork(final long nowNs)
    {
        if (null == pairSequencer)
        {
            throw new IllegalStateException("one side's decoder has no waits");
        }
        pairSequencer.now(nowNs);
        for (int slot = 0, slots = pairSequencer.slotCount(); slot < slots; slot++)
        {
            pairSequencer.doWork(slot, Long.MAX_VALUE);
        }
    }

    /**
     * Whether a GapNotice of exchange messages lost for good arrived on a partition in its current session.
     *
     * @param slot the partition's index in the array given at construction.
     * @return true until the exchange starts a new session.
     */
    public boolean hasExchangeGap(final int slot)
    {
        return (null != sequencer ? sequencer.stream(slot) : pairSequencer.stream(slot)).exchangeGap;
    }

    /**
     * Whether a partition's messages may be missing: stale for a stream reason, its incrementals held back until a
     * snapshot was applied ({@link FeedSubscriber#isRecovering}). Always false without recovery.
     *
     * @param slot the partition's index in the array given at construction.
     * @return true while the partition recovers.
     */
    public boolean isRecovering(final int slot)
    {
        return (null != sequencer ? sequencer.stream(slot) : pairSequencer.stream(slot)).isRecovering();
    }

    /**
     * The next stream sequence expected on a partition slot.
     *
     * @param slot index into the partitions given at construction.
     * @return the expected sequence, or -1 before the stream was joined.
     */
    public long expectedSequence(final int slot)
    {
        return null != sequencer ? sequencer.expectedSequence(slot) : pairSequencer.stream(slot).expectedSequence;
    }
}
