package io.mdfanout.sdk;

import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;

/**
 * The SDK's packet processing without a transport: validates, sequences and dispatches complete
 * Aeron messages (packets and heartbeats, see WIRE.md) handed to it by the caller, exactly as a
 * {@link FeedSubscriber} does with the messages it polls, with recovery off. {@link #forPair} makes
 * one that arbitrates the two sides of a pair by their chain, as a subscriber with
 * {@link FeedSubscriber.Context#pairChannel} does.
 * <p>
 * For benchmarks, tests and tools that hold the wire bytes already (a capture, a generated
 * stream). A gap is reported to the listener and counted, never recovered: there is no snapshot
 * stream to subscribe to. Not thread safe; allocates nothing per message.
 */
public final class PacketStreamDecoder
{
    private final StreamSequencer sequencer;
    private final PairSequencer pairSequencer;

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
        sequencer.now(System.nanoTime());
    }

    private PacketStreamDecoder(final PairSequencer pairSequencer)
    {
        this.sequencer = null;
        this.pairSequencer = pairSequencer;
        pairSequencer.now(System.nanoTime());
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
