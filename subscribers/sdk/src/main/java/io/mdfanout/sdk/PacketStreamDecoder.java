package io.mdfanout.sdk;

import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;

/**
 * The SDK's packet processing without a transport: validates, sequences and dispatches complete
 * Aeron messages (packets and heartbeats, see WIRE.md) handed to it by the caller, exactly as a
 * {@link FeedSubscriber} does with the messages it polls, with recovery off.
 * <p>
 * For benchmarks, tests and tools that hold the wire bytes already (a capture, a generated
 * stream). A gap is reported to the listener and counted, never recovered: there is no snapshot
 * stream to subscribe to. Not thread safe; allocates nothing per message.
 */
public final class PacketStreamDecoder
{
    private final StreamSequencer sequencer;

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
        final PartitionStream[] streams = new PartitionStream[partitions.length];
        for (int slot = 0; slot < partitions.length; slot++)
        {
            streams[slot] = new PartitionStream(partitions[slot]);
        }
        this.sequencer = new StreamSequencer(
            streams, new PacketValidator(), new MessageDispatcher(listener, counters, errorHandler, streams), counters, null);
        sequencer.now(System.nanoTime());
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
        sequencer.onMessage(slot, sessionId, buffer, offset, length);
    }

    /**
     * Whether a GapNotice of exchange messages lost for good arrived on a partition in its current session.
     *
     * @param slot the partition's index in the array given at construction.
     * @return true until the exchange starts a new session.
     */
    public boolean hasExchangeGap(final int slot)
    {
        return sequencer.stream(slot).exchangeGap;
    }

    /**
     * The next stream sequence expected on a partition slot.
     *
     * @param slot index into the partitions given at construction.
     * @return the expected sequence, or -1 before the stream was joined.
     */
    public long expectedSequence(final int slot)
    {
        return sequencer.expectedSequence(slot);
    }
}
