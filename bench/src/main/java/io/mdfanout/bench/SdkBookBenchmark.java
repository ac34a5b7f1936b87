package io.mdfanout.bench;

import io.mdfanout.feed.handler.InMemoryCounters;
import io.mdfanout.feed.normalize.ItchNormalizer;
import io.mdfanout.feed.normalize.NormalizerCounters;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.PacketHeaderEncoder;
import io.mdfanout.sdk.LocalCounters;
import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.PacketStreamDecoder;
import io.mdfanout.sdk.SubscriberCounters;
import io.mdfanout.sdk.book.BookCounters;
import io.mdfanout.sdk.book.OrderBooks;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The SDK's receive path without the transport: packet validation, stream sequencing, SBE decode
 * and dispatch into {@link OrderBooks} (order map and price levels), through
 * {@link PacketStreamDecoder}, on one thread.
 * <p>
 * Set-up builds the wire bytes the fanout would send: the generated session (see
 * {@link GeneratedSession}) normalized into four partition rings by the feed handler's own
 * {@link ItchNormalizer}, then each ring packed into packets as {@code PartitionPublisher} does
 * (SBE PacketHeader, then whole ring records back to back, at most {@value #MAX_PAYLOAD} bytes: the
 * payload of Aeron's default 1408-byte MTU), the partitions' packets interleaved. One operation is
 * one pass over the session; the {@code messages} counter gives normalized messages per second.
 * Before each pass (outside the measurement) the books are emptied and the packets' stream
 * sequences moved on, so each pass is a fresh, gap-free continuation of the streams.
 * <p>
 * {@link #decodeOnly} runs the same packets into a listener that only counts the raw messages: the
 * SDK's own cost per message, which every subscriber process pays before its application does any
 * work (a recorder, a book, a strategy).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = GeneratedSession.JVM_OPENS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class SdkBookBenchmark
{
    static final int PARTITIONS = ItchNormalizeBenchmark.PARTITIONS;
    static final int MAX_PAYLOAD = 1376;
    static final int RING_CAPACITY = 32 * 1024 * 1024;
    private static final int STREAM_SEQUENCE_OFFSET =
        MessageHeaderEncoder.ENCODED_LENGTH + PacketHeaderEncoder.streamSequenceEncodingOffset();

    /** Normalized messages delivered, reported by JMH as a rate next to the passes. */
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class Messages
    {
        /** Normalized messages handed to the books. */
        public long messages;

        /** Reset at each iteration, as JMH expects of an operations counter. */
        @Setup(Level.Iteration)
        public void reset()
        {
            messages = 0;
        }
    }

    private UnsafeBuffer packets;
    private int packetCount;
    private int[] packetOffset;
    private int[] packetLength;
    private int[] packetSlot;
    private long[] packetFirstSequence;
    private long[] messagesPerPartition;
    private long messagesPerPass;
    private long passes;

    private OrderBooks books;
    private PacketStreamDecoder decoder;
    private SubscriberCounters counters;
    private final CountingListener countingListener = new CountingListener();
    private PacketStreamDecoder countingDecoder;
    private SubscriberCounters countingCounters;

    /** Build the packet stream, the books and the decoder. */
    @Setup
    public void setup()
    {
        final NormalizerCounters normalizerCounters =
            new NormalizerCounters(new InMemoryCounters(256).countersManager(), "bench", PARTITIONS);
        final PacketStreamBuilder builder =
            PacketStreamBuilder.ofBenchSession(PARTITIONS, RING_CAPACITY, normalizerCounters);
        packets = builder.packets();
        packetCount = builder.packetCount();
        packetOffset = builder.packetOffsets();
        packetLength = builder.packetLengths();
        packetSlot = builder.packetSlots();
        packetFirstSequence = builder.packetFirstSequences();
        messagesPerPartition = builder.messagesPerPartition();
        messagesPerPass = builder.messageCount();
        final long records = normalizerCounters.ringRecordsWritten().get();
        if (0 == messagesPerPass || messagesPerPass != records)
        {
            throw new IllegalStateException(
                "packed " + messagesPerPass + " messages, the normalizer wrote " + records + " ring records");
        }

        books = new OrderBooks(1 << 20, 64, new BookCounters(LocalCounters.create(BookCounters.COUNTER_COUNT), "bench"));
        counters = new SubscriberCounters(LocalCounters.create(SubscriberCounters.COUNTER_COUNT), "bench");
        decoder = new PacketStreamDecoder(
            builder.partitions(), books, counters, (throwable) -> { throw new IllegalStateException(throwable); });
        countingCounters = new SubscriberCounters(LocalCounters.create(SubscriberCounters.COUNTER_COUNT), "count");
        countingDecoder = new PacketStreamDecoder(
            builder.partitions(), countingListener, countingCounters,
            (throwable) -> { throw new IllegalStateException(throwable); });
    }

    /** Empty the books and move the packets' stream sequences on by one pass. */
    @Setup(Level.Invocation)
    public void nextPass()
    {
        for (int partition = 0; partition < PARTITIONS; partition++)
        {
            books.onSnapshotBegin(partition, 0, 0);
        }
        for (int i = 0; i < packetCount; i++)
        {
            packets.putLong(packetOffset[i] + STREAM_SEQUENCE_OFFSET,
                packetFirstSequence[i] + passes * messagesPerPartition[packetSlot[i]]);
        }
        passes++;
    }

    /**
     * Decode every packet of the session into the books.
     *
     * @param messages counts normalized messages.
     * @return resting orders after the pass, so that nothing is dead code.
     */
    @Benchmark
    public int decodeIntoBooks(final Messages messages)
    {
        decodePass(decoder, messages);
        return books.orderCount();
    }

    /**
     * Decode every packet of the session and dispatch each message to a listener that counts it.
     *
     * @param messages counts normalized messages.
     * @return raw messages the listener saw, so that nothing is dead code.
     */
    @Benchmark
    public long decodeOnly(final Messages messages)
    {
        decodePass(countingDecoder, messages);
        return countingListener.rawMessages;
    }

    /** One pass: every packet of the session, in order, through the decoder. */
    private void decodePass(final PacketStreamDecoder decoder, final Messages messages)
    {
        final UnsafeBuffer packets = this.packets;
        for (int i = 0, n = packetCount; i < n; i++)
        {
            decoder.onMessage(packetSlot[i], 1, packets, packetOffset[i], packetLength[i]);
        }
        messages.messages += messagesPerPass;
    }

    /**
     * Fail the run if the stream was not what the benchmark claims to measure: gap-free and valid, every
     * message delivered (and, into the books, every order known), through whichever decoder the run used.
     */
    @TearDown
    public void verify()
    {
        final boolean intoBooks = 0 != counters.messages();
        final SubscriberCounters used = intoBooks ? counters : countingCounters;
        final long delivered = intoBooks ? used.messages() : countingListener.rawMessages;
        if (0 != used.gaps() || 0 != used.malformed() || 0 != used.duplicatePackets() ||
            0 != used.listenerErrors() || used.messages() != passes * messagesPerPass ||
            delivered != passes * messagesPerPass)
        {
            throw new IllegalStateException("the packet stream was not delivered cleanly: " + used);
        }
    }

    /** Counts the raw messages it is given and does nothing else. */
    static final class CountingListener implements MarketDataListener
    {
        long rawMessages;

        /** {@inheritDoc} */
        public void onRawMessage(final MessageContext context, final DirectBuffer buffer, final int offset, final int length)
        {
            rawMessages++;
        }
    }
}
