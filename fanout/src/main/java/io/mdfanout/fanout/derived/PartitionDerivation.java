package io.mdfanout.fanout.derived;

import io.mdfanout.fanout.snapshot.SnapshotPublisher;
import io.mdfanout.fanout.state.PartitionState;
import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sbe.InstrumentDirectoryDecoder;
import io.mdfanout.sbe.PacketHeaderDecoder;
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
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The derived streams of one partition (docs/WIRE.md, "Derived streams"), run by the partition's publisher thread:
 * each MBO packet the publisher builds is handed in ({@link #onPacket}) and read back by the SDK's own decoder into a
 * {@link Derivation}, exactly as a subscriber of the MBO stream reads it, so that what the derived streams say is what
 * an MBO subscriber's books say; each derived message goes to its stream's {@link DerivedPublisher}, and the market's
 * session events (SystemEvent) and exchange gaps (GapNotice) to every derived stream as they are. Then the derived
 * packets are sent. Between ring drains, {@link #doWork} sends the derived streams' heartbeats and snapshots.
 * <p>
 * The partition's symbol directory stream is one of them: the InstrumentDirectory messages of its packets, read off
 * their headers (nothing else is decoded for it), with each instrument's last one for its snapshots.
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
    private final boolean deriving;
    /** The partition's symbol directory: its InstrumentDirectory messages, and its last one per instrument. */
    private final DirectoryStream directory;
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
        this(partitionId, publishers, null, errorHandler, DEFAULT_ORDER_CAPACITY);
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
        this(partitionId, publishers, null, errorHandler, orderCapacity);
    }

    /**
     * @param partitionId   the partition.
     * @param publishers    one per derived stream to publish; none for the directory alone.
     * @param directory     the partition's symbol directory stream; null for none.
     * @param errorHandler  told of what a listener throws (a defect: counted by the decoder too).
     * @param orderCapacity live orders the books hold before they grow.
     */
    public PartitionDerivation(
        final int partitionId,
        final DerivedPublisher[] publishers,
        final DerivedPublisher directory,
        final ErrorHandler errorHandler,
        final int orderCapacity)
    {
        this.partitionId = partitionId;
        this.active = publishers.clone();
        this.deriving = publishers.length > 0;
        this.directory = null == directory ? null : new DirectoryStream(directory);
        final FeedStream[] streams = new FeedStream[publishers.length];
        for (int i = 0; i < publishers.length; i++)
        {
            streams[i] = publishers[i].stream();
            this.publishers[streams[i].ordinal()] = publishers[i];
        }
        derivation = new Derivation(new OrderBooks(orderCapacity, OrderBooks.DEFAULT_LEVELS_PER_SIDE,
            new BookCounters(LocalCounters.create(BookCounters.COUNTER_COUNT), "fanout-derivation")), this, streams);
        // The market's session events and exchange gaps go to the derived streams from the decoder, in their places
        // among the derived messages (the directory stream takes its own off the packet headers: it decodes nothing).
        final MarketDataListener passThrough = new MarketDataListener()
        {
            public void onGapNotice(final MessageContext context, final GapNoticeDecoder message)
            {
                passToAll(message.buffer(), message.offset() - WireFormat.HEADER_LENGTH,
                    WireFormat.HEADER_LENGTH + message.encodedLength());
            }

            public void onSystemEvent(final MessageContext context, final SystemEventDecoder message)
            {
                passToAll(message.buffer(), message.offset() - WireFormat.HEADER_LENGTH,
                    WireFormat.HEADER_LENGTH + message.encodedLength());
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
        if (null != directory)
        {
            directory.publisher.snapshots(snapshot.newSnapshotPublisher(
                directory.publisher, new DerivedSnapshotSource(state, directory.publisher, directory.last)));
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
        if (null != directory)
        {
            directory.restore(state);
        }
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

    /** @return the partition's symbol directory stream's publisher, or null. */
    public DerivedPublisher directoryPublisher()
    {
        return null == directory ? null : directory.publisher;
    }

    /** Start the heartbeat timers. */
    public void onStart(final long nowNs)
    {
        for (final DerivedPublisher publisher : active)
        {
            publisher.onStart(nowNs);
        }
        if (null != directory)
        {
            directory.publisher.onStart(nowNs);
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
        if (deriving)
        {
            decoder.onMessage(0, sessionId, buffer, offset, length);
            for (final DerivedPublisher publisher : active)
            {
                publisher.flush(nowNs);
            }
        }
        if (null != directory)
        {
            directory.onPacket(buffer, offset, nowNs);
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
        if (null != directory)
        {
            final DerivedPublisher publisher = directory.publisher;
            workCount += publisher.drainBacklog();
            if (null != publisher.snapshots())
            {
                workCount += publisher.snapshots().doWork(nowNs);
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

    /**
     * The partition's symbol directory (docs/WIRE.md, "The symbol directory"): the InstrumentDirectory messages of each
     * packet, and the market's session events, passed on as they are, read off the packet's headers without decoding
     * anything else; each instrument's last one kept for the stream's snapshots.
     */
    private static final class DirectoryStream
    {
        private static final int DIRECTORY_LENGTH = WireFormat.HEADER_LENGTH + InstrumentDirectoryDecoder.BLOCK_LENGTH;

        final DerivedPublisher publisher;
        final LastMessages last = new LastMessages(1, DIRECTORY_LENGTH, Derivation.DEFAULT_EXPECTED_INSTRUMENTS);
        private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[WireFormat.MAX_MESSAGE_LENGTH]);

        DirectoryStream(final DerivedPublisher publisher)
        {
            this.publisher = publisher;
        }

        void onPacket(final DirectBuffer buffer, final int offset, final long nowNs)
        {
            final int headerBlock = WireFormat.blockLengthOf(WireFormat.headerWord(buffer, offset));
            final int count = buffer.getShort(offset + WireFormat.HEADER_LENGTH +
                PacketHeaderDecoder.messageCountEncodingOffset(), WireFormat.BYTE_ORDER) & 0xFFFF;
            int position = offset + WireFormat.HEADER_LENGTH + headerBlock;
            for (int i = 0; i < count; i++)
            {
                final long word = WireFormat.headerWord(buffer, position);
                final int templateId = WireFormat.templateIdOf(word);
                final int length = WireFormat.HEADER_LENGTH + WireFormat.blockLengthOf(word);
                if (InstrumentDirectoryDecoder.TEMPLATE_ID == templateId)
                {
                    if (length <= DIRECTORY_LENGTH)
                    {
                        last.put(WireFormat.instrumentId(buffer, position), 0, buffer, position, length);
                    }
                    publisher.append(buffer, position, length, nowNs);
                }
                else if (SystemEventDecoder.TEMPLATE_ID == templateId)
                {
                    publisher.append(buffer, position, length, nowNs);
                }
                position += length;
            }
            publisher.flush(nowNs);
        }

        /** After a restart: every instrument's InstrumentDirectory the resumed state kept. */
        void restore(final PartitionState state)
        {
            for (int instrument = state.nextInstrumentWithState(1); PartitionState.NONE != instrument;
                instrument = state.nextInstrumentWithState(instrument + 1))
            {
                final int length = state.instrumentMessageLength(instrument, PartitionState.INSTRUMENT_DIRECTORY);
                if (length > 0 && length <= DIRECTORY_LENGTH)
                {
                    state.copyInstrumentMessage(instrument, PartitionState.INSTRUMENT_DIRECTORY, scratch, 0);
                    last.put(instrument, 0, scratch, 0, length);
                }
            }
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
