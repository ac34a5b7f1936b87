package io.mdfanout.cli;

import io.aeron.Aeron;
import io.mdfanout.sbe.BarDecoder;
import io.mdfanout.sbe.BestBidOfferDecoder;
import io.mdfanout.sbe.BookDepthDecoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sbe.TradePrintDecoder;
import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.StaleReason;
import io.mdfanout.wire.FeedStream;
import io.mdfanout.wire.Partitioning;
import io.mdfanout.wire.WireFormat;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A subscriber of one derived stream in the test JVM, on its own polling thread. Once closed: every message it was
 * given as a canonical line ({@link DerivedLines}), per partition, apart for those a snapshot delivered; its top of book
 * table as a subscriber keeps one (a snapshot's begin clears the partition); what it was told of staleness and
 * recovery. While it runs: whether every partition reached the exchange's End of Messages.
 */
final class DerivedCollector implements MarketDataListener, AutoCloseable
{
    final FeedStream stream;
    final int partitions;
    final List<List<String>> lines = new ArrayList<>();
    final List<List<String>> snapshotLines = new ArrayList<>();
    /** Per instrument, the top of book values the subscriber holds. */
    final Map<Long, String> bboTable = new HashMap<>();
    final List<String> stale = new CopyOnWriteArrayList<>();
    final List<String> recovered = new CopyOnWriteArrayList<>();
    final List<String> problems = new CopyOnWriteArrayList<>();
    /** Per partition, how many live lines it had when it last recovered from a snapshot. */
    final int[] linesAtRecovery;
    private final AtomicInteger partitionsEnded = new AtomicInteger();
    private final boolean[] ended;
    private final FeedSubscriber subscriber;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread poller;

    DerivedCollector(
        final Aeron aeron, final String channel, final int streamIdBase, final int partitions, final FeedStream stream)
    {
        this.stream = stream;
        this.partitions = partitions;
        ended = new boolean[partitions];
        linesAtRecovery = new int[partitions];
        for (int p = 0; p < partitions; p++)
        {
            lines.add(new ArrayList<>());
            snapshotLines.add(new ArrayList<>());
        }
        subscriber = new FeedSubscriber(new FeedSubscriber.Context()
            .aeron(aeron).channel(channel).streamIdBase(streamIdBase).partitionCount(partitions).stream(stream)
            .listener(this).errorHandler((throwable) -> problems.add(throwable.toString())));
        poller = new Thread(this::pollLoop, "derived-" + stream.streamName());
        poller.setDaemon(true);
        poller.start();
    }

    /** Wait until every partition has passed the exchange's End of Messages. */
    boolean awaitEnd(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        final long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (partitionsEnded.get() < partitions)
        {
            if (System.nanoTime() > deadline)
            {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    /** @return what the subscriber was told, for a failure's message. */
    String describe()
    {
        final StringBuilder out = new StringBuilder(stream.streamName());
        for (int p = 0; p < partitions; p++)
        {
            out.append(" p").append(p).append(": ended=").append(ended[p])
                .append(" expected=").append(subscriber.expectedSequence(p));
        }
        return out.append(" stale=").append(stale).append(" recovered=").append(recovered).append(" problems=")
            .append(problems).append(" counters=").append(subscriber.counters()).toString();
    }

    /** @return messages delivered, snapshots included. */
    long count()
    {
        long count = 0;
        for (int p = 0; p < partitions; p++)
        {
            count += lines.get(p).size() + snapshotLines.get(p).size();
        }
        return count;
    }

    /**
     * The messages as received, kept raw on the polling thread (it must keep up with the stream; formatting waits for
     * {@link #decode()}): each with its partition and whether a snapshot delivered it, and the snapshots' begins and
     * the recoveries in their places. In chunks, so that a growing session never makes the poller copy what it holds
     * (a 64 MiB copy stalled it long enough for the fanout to drop depth messages).
     */
    private final List<UnsafeBuffer> chunks = new ArrayList<>();
    private final List<Integer> chunkLengths = new ArrayList<>();
    private UnsafeBuffer events = newChunk();
    private int eventsLength;
    private static final int CHUNK_LENGTH = 8 * 1024 * 1024;
    private static final int MESSAGE = 0;
    private static final int SNAPSHOT_MESSAGE = 1;
    private static final int SNAPSHOT_BEGIN = 2;
    private static final int RECOVERED = 3;
    /** An event in a chunk: kind, partition and length (ints), then the message's bytes. */
    private static final int EVENT_HEADER = 3 * Integer.BYTES;

    private UnsafeBuffer newChunk()
    {
        final UnsafeBuffer chunk = new UnsafeBuffer(new byte[CHUNK_LENGTH]);
        chunks.add(chunk);
        chunkLengths.add(0);
        return chunk;
    }

    private void addEvent(final int kind, final int partition, final DirectBuffer buffer, final int offset, final int length)
    {
        if (eventsLength + EVENT_HEADER + length > CHUNK_LENGTH)
        {
            events = newChunk();
            eventsLength = 0;
        }
        events.putInt(eventsLength, kind);
        events.putInt(eventsLength + Integer.BYTES, partition);
        events.putInt(eventsLength + 2 * Integer.BYTES, length);
        if (length > 0)
        {
            events.putBytes(eventsLength + EVENT_HEADER, buffer, offset, length);
        }
        eventsLength += EVENT_HEADER + length;
        chunkLengths.set(chunkLengths.size() - 1, eventsLength);
    }

    public void onRawMessage(final MessageContext context, final DirectBuffer buffer, final int offset, final int length)
    {
        if (WireFormat.isDerivedMessage(context.templateId()))
        {
            addEvent(context.isSnapshot() ? SNAPSHOT_MESSAGE : MESSAGE, context.partition(), buffer, offset, length);
        }
    }

    /** Turn what was received into lines, tables and recovery points; after the poller stopped. */
    void decode()
    {
        final MessageHeaderDecoder header = new MessageHeaderDecoder();
        final BestBidOfferDecoder bbo = new BestBidOfferDecoder();
        final BookDepthDecoder depth = new BookDepthDecoder();
        final TradePrintDecoder trade = new TradePrintDecoder();
        final BarDecoder bar = new BarDecoder();
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[0]);
        for (int c = 0; c < chunks.size(); c++)
        {
            decode(chunks.get(c), chunkLengths.get(c), header, bbo, depth, trade, bar, buffer);
        }
    }

    private void decode(
        final UnsafeBuffer events,
        final int eventsLength,
        final MessageHeaderDecoder header,
        final BestBidOfferDecoder bbo,
        final BookDepthDecoder depth,
        final TradePrintDecoder trade,
        final BarDecoder bar,
        final UnsafeBuffer buffer)
    {
        for (int position = 0; position < eventsLength; )
        {
            final int kind = events.getInt(position);
            final int partition = events.getInt(position + Integer.BYTES);
            final int length = events.getInt(position + 2 * Integer.BYTES);
            final int start = position + EVENT_HEADER;
            position = start + length;
            if (SNAPSHOT_BEGIN == kind)
            {
                bboTable.keySet().removeIf((id) -> Partitioning.partitionOf(id, partitions) == partition);
                continue;
            }
            if (RECOVERED == kind)
            {
                linesAtRecovery[partition] = lines.get(partition).size();
                continue;
            }
            buffer.wrap(events, start, length);
            header.wrap(buffer, 0);
            final int offset = MessageHeaderDecoder.ENCODED_LENGTH;
            final String line;
            switch (header.templateId())
            {
                case BestBidOfferDecoder.TEMPLATE_ID:
                    bbo.wrap(buffer, offset, header.blockLength(), header.version());
                    bboTable.put(bbo.instrumentId(), DerivedLines.bbo(bbo));
                    line = prefix(bbo.exchangeSequence(), bbo.exchangeTimestamp()) + DerivedLines.bbo(bbo);
                    break;
                case BookDepthDecoder.TEMPLATE_ID:
                    depth.wrap(buffer, offset, header.blockLength(), header.version());
                    line = prefix(depth.exchangeSequence(), depth.exchangeTimestamp()) + DerivedLines.depth(depth);
                    break;
                case TradePrintDecoder.TEMPLATE_ID:
                    trade.wrap(buffer, offset, header.blockLength(), header.version());
                    line = prefix(trade.exchangeSequence(), trade.exchangeTimestamp()) + DerivedLines.trade(trade);
                    break;
                default:
                    bar.wrap(buffer, offset, header.blockLength(), header.version());
                    line = prefix(bar.exchangeSequence(), bar.exchangeTimestamp()) + DerivedLines.barKey(bar) + " " +
                        DerivedLines.barValues(bar);
                    break;
            }
            (SNAPSHOT_MESSAGE == kind ? snapshotLines : lines).get(partition).add(line);
        }
    }

    private static String prefix(final long sequence, final long timestamp)
    {
        return DerivedLines.prefix(sequence, timestamp);
    }

    public void onSystemEvent(final MessageContext context, final SystemEventDecoder message)
    {
        if (SystemEventCode.END_OF_MESSAGES == message.eventCode() && !ended[context.partition()])
        {
            ended[context.partition()] = true;
            partitionsEnded.incrementAndGet();
        }
    }

    public void onSnapshotBegin(final int partition, final long snapshotId, final long lastStreamSequence)
    {
        addEvent(SNAPSHOT_BEGIN, partition, null, 0, 0);
    }

    public void onStale(final int partition, final StaleReason reason, final long streamSequence)
    {
        if (StaleReason.SOURCE_DOWN != reason) // the exchange's silence before and after the session costs no data
        {
            stale.add(partition + " " + reason + " " + streamSequence);
        }
    }

    public void onRecovered(
        final int partition, final long snapshotId, final long lastStreamSequence, final long staleNanos)
    {
        if (0 != snapshotId)
        {
            recovered.add(partition + " snapshot=" + snapshotId + " at=" + lastStreamSequence);
            addEvent(RECOVERED, partition, null, 0, 0);
        }
    }

    private void pollLoop()
    {
        final BackoffIdleStrategy idle = new BackoffIdleStrategy(10, 20, 1_000, 1_000_000);
        while (running.get())
        {
            idle.idle(subscriber.poll(FeedSubscriber.DEFAULT_FRAGMENT_LIMIT));
        }
    }

    public void close() throws InterruptedException
    {
        if (running.getAndSet(false))
        {
            poller.join(5_000);
            CloseHelper.close(subscriber);
            decode();
        }
    }
}
