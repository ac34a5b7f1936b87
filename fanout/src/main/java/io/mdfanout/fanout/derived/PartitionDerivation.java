package io.mdfanout.fanout.derived;

import io.mdfanout.fanout.snapshot.SnapshotPublisher;
import io.mdfanout.fanout.state.PartitionState;
import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sdk.CompositeListener;
import io.mdfanout.sdk.LocalCounters;
import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.PacketStreamDecoder;
import io.mdfanout.sdk.SubscriberCounters;
import io.mdfanout.sdk.book.BookCounters;
import io.mdfanout.sdk.book.OrderBooks;
import io.mdfanout.sdk.derive.DerivedHandler;
import io.mdfanout.sdk.derive.Derivation;
import io.mdfanout.sdk.derive.LastMessages;
import io.mdfanout.wire.FeedStream;
import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;

/**
 * The derived streams of one partition (docs/WIRE.md, "Derived streams"), run by the partition's publisher thread:
 * each MBO packet the publisher builds is handed in ({@link #onPacket}) and read back by the SDK's own decoder into a
 * {@link Derivation}, exactly as a subscriber of the MBO stream reads it, so that what the derived streams say is what
 * an MBO subscriber's books say; each derived message goes to its stream's {@link DerivedPublisher}, and the market's
 * session events (SystemEvent) and exchange gaps (GapNotice) to every derived stream as they are. Then the derived
 * packets are sent. Between ring drains, {@link #doWork} sends the derived streams' heartbeats and snapshots.
 * <p>
 * After a restart the partition's state was resumed: the books are rebuilt from its orders ({@link #restore}) and
 * taken as the derived state, without sending anything; subscribers see the derived streams' new publications and
 * recover from their snapshots. Allocates nothing in steady state.
 */
public final class PartitionDerivation implements DerivedHandler
{
    /** Live orders a partition's derivation holds before its books grow (they grow as needed, allocating). */
    public static final int DEFAULT_ORDER_CAPACITY = 256 * 1024;

    private final int partitionId;
    private final Derivation derivation;
    private final PacketStreamDecoder decoder;
    private final DerivedPublisher[] publishers = new DerivedPublisher[FeedStream.values().length];
    private final DerivedPublisher[] active;
    private long nowNs;
    private int lastSourceStatus = -1;

    /**
     * @param partitionId  the partition.
     * @param publishers   one per derived stream to publish.
     * @param errorHandler told of what a listener throws (a defect: counted by the decoder too).
     */
    public PartitionDerivation(
        final int partitionId, final DerivedPublisher[] publishers, final ErrorHandler errorHandler)
    {
        this(partitionId, publishers, errorHandler, DEFAULT_ORDER_CAPACITY);
    }

    /**
     * @param partitionId   the partition.
     * @param publishers    one per derived stream to publish.
     * @param errorHandler  told of what a listener throws (a defect: counted by the decoder too).
     * @param orderCapacity live orders the books hold before they grow.
     */
    public PartitionDerivation(
        final int partitionId, final DerivedPublisher[] publishers, final ErrorHandler errorHandler,
        final int orderCapacity)
    {
        this.partitionId = partitionId;
        this.active = publishers.clone();
        final FeedStream[] streams = new FeedStream[publishers.length];
        for (int i = 0; i < publishers.length; i++)
        {
            streams[i] = publishers[i].stream();
            this.publishers[streams[i].ordinal()] = publishers[i];
        }
        derivation = new Derivation(new OrderBooks(orderCapacity, OrderBooks.DEFAULT_LEVELS_PER_SIDE,
            new BookCounters(LocalCounters.create(BookCounters.COUNTER_COUNT), "fanout-derivation")), this, streams);
        final MarketDataListener passThrough = new MarketDataListener()
        {
            public void onGapNotice(final MessageContext context, final GapNoticeDecoder message)
            {
                passToAll(message.buffer(), message.offset() - io.mdfanout.wire.WireFormat.HEADER_LENGTH,
                    io.mdfanout.wire.WireFormat.HEADER_LENGTH + message.encodedLength());
            }

            public void onSystemEvent(final MessageContext context, final SystemEventDecoder message)
            {
                passToAll(message.buffer(), message.offset() - io.mdfanout.wire.WireFormat.HEADER_LENGTH,
                    io.mdfanout.wire.WireFormat.HEADER_LENGTH + message.encodedLength());
            }
        };
        decoder = new PacketStreamDecoder(
            new int[] {partitionId},
            new CompositeListener(passThrough, derivation),
            new SubscriberCounters(LocalCounters.create(SubscriberCounters.COUNTER_COUNT), "fanout-derivation"),
            errorHandler);
    }

    /**
     * Give each derived stream its snapshots, over the partition's state and the stream's last messages.
     *
     * @param state    the partition's MBO state.
     * @param snapshot makes the snapshot publisher of a stream over its source.
     */
    public void publishSnapshots(final PartitionState state, final SnapshotFactory snapshot)
    {
        for (final DerivedPublisher publisher : active)
        {
            final LastMessages last = derivation.lastMessages(publisher.stream());
            final SnapshotPublisher snapshots = snapshot.newSnapshotPublisher(
                publisher, new DerivedSnapshotSource(state, publisher, last));
            publisher.snapshots(snapshots);
        }
    }

    /**
     * The partition's state was resumed after a restart: rebuild the books from its orders and take them as the
     * derived state (nothing is sent).
     *
     * @param state the resumed state.
     */
    public void restore(final PartitionState state)
    {
        final OrderBooks books = derivation.books();
        for (int instrument = state.nextInstrumentWithState(1); PartitionState.NONE != instrument;
            instrument = state.nextInstrumentWithState(instrument + 1))
        {
            for (int order = state.firstOrder(instrument); PartitionState.NONE != order; order = state.nextOrder(order))
            {
                books.restoreOrder(partitionId, instrument, state.orderId(order), state.orderSide(order),
                    state.orderPrice(order), state.orderShares(order));
            }
        }
        derivation.restored(state.lastExchangeSequence(), state.lastExchangeTimestamp());
    }

    /** @return the derivation. */
    public Derivation derivation()
    {
        return derivation;
    }

    /** @return the publishers, one per derived stream published. */
    public DerivedPublisher[] publishers()
    {
        return active.clone();
    }

    /** Start the heartbeat timers. */
    public void onStart(final long nowNs)
    {
        for (final DerivedPublisher publisher : active)
        {
            publisher.onStart(nowNs);
        }
    }

    /**
     * One MBO packet, as built (header stamped), whatever becomes of its offer: derive, then send the derived packets.
     *
     * @param sessionId the MBO publication's session id.
     * @param buffer    holding the packet.
     * @param offset    of the packet.
     * @param length    of the packet.
     * @param nowNs     monotonic time.
     */
    public void onPacket(final int sessionId, final DirectBuffer buffer, final int offset, final int length, final long nowNs)
    {
        this.nowNs = nowNs;
        decoder.onMessage(0, sessionId, buffer, offset, length);
        for (final DerivedPublisher publisher : active)
        {
            publisher.flush(nowNs);
        }
    }

    /**
     * Heartbeats and snapshots of the derived streams.
     *
     * @param nowNs        monotonic time.
     * @param mboHeartbeat the MBO stream's heartbeat as last encoded (its source and feed fields).
     * @param sourceStatus the source status the MBO stream announced last: a change sends heartbeats at once.
     * @return work done.
     */
    public int doWork(final long nowNs, final DirectBuffer mboHeartbeat, final int sourceStatus)
    {
        final boolean statusChanged = sourceStatus != lastSourceStatus;
        lastSourceStatus = sourceStatus;
        int workCount = 0;
        for (final DerivedPublisher publisher : active)
        {
            workCount += publisher.drainBacklog();
            final SnapshotPublisher snapshots = publisher.snapshots();
            if (null != snapshots)
            {
                workCount += snapshots.doWork(nowNs);
            }
            workCount += publisher.heartbeatIfDue(nowNs, mboHeartbeat, statusChanged);
        }
        return workCount;
    }

    /** {@inheritDoc} */
    public void onDerived(final FeedStream stream, final DirectBuffer buffer, final int offset, final int length)
    {
        publishers[stream.ordinal()].append(buffer, offset, length, nowNs);
    }

    private void passToAll(final DirectBuffer buffer, final int offset, final int length)
    {
        for (final DerivedPublisher publisher : active)
        {
            publisher.append(buffer, offset, length, nowNs);
        }
    }

    /** Makes a derived stream's snapshot publisher. */
    @FunctionalInterface
    public interface SnapshotFactory
    {
        /**
         * @param publisher the derived stream's publisher.
         * @param source    its state.
         * @return its snapshot publisher.
         */
        SnapshotPublisher newSnapshotPublisher(DerivedPublisher publisher, DerivedSnapshotSource source);
    }
}
