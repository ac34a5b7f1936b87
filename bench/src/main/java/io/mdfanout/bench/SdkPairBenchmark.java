package io.mdfanout.bench;

import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.PacketHeaderEncoder;
import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.LocalCounters;
import io.mdfanout.sdk.PacketStreamDecoder;
import io.mdfanout.sdk.SubscriberCounters;
import org.agrona.concurrent.UnsafeBuffer;
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

import static java.nio.ByteOrder.LITTLE_ENDIAN;

/**
 * What arbitrating a pair costs a subscriber (issue 37), against one side, on the same packets in the same run: the
 * SDK's receive path without the transport ({@link PacketStreamDecoder}) into a listener that counts the messages, as
 * {@link SdkBookBenchmark#decodeOnly} (the SDK's own cost per message, before the application's).
 * <ul>
 *     <li>{@link #oneSide}: one fanout's packets through a single-side decoder: the baseline.</li>
 *     <li>{@link #pairBothSides}: each packet from side A and then the same packet from side B through a pair's
 *     decoder: every message delivered once, every copy of side B a duplicate dropped. This is a pair in steady state:
 *     twice the packets to validate, the chain to follow and the duplicates to count.</li>
 *     <li>{@link #pairOneSide}: the pair's decoder with side B silent (side B's pod down): the arbitration's cost
 *     without duplicates.</li>
 * </ul>
 * The packets carry each partition's chain (previousExchangeSequence) as the fanout writes it; before each pass
 * (outside the measurement) their stream sequences and the messages' exchange sequences move on by one session, so
 * each pass continues the streams and the chain with no gap. The messages counter gives delivered messages per
 * second; the ratio of {@link #pairBothSides} to {@link #oneSide} is the CPU a subscriber pays for the pair.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = GeneratedSession.JVM_OPENS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class SdkPairBenchmark
{
    private static final int PARTITIONS = SdkBookBenchmark.PARTITIONS;
    private static final int RING_CAPACITY = 32 * 1024 * 1024;
    private static final int SIDE_A = 0;
    private static final int SIDE_B = 1;
    private static final int STREAM_SEQUENCE_OFFSET =
        MessageHeaderEncoder.ENCODED_LENGTH + PacketHeaderEncoder.streamSequenceEncodingOffset();
    private static final int PREVIOUS_CHAIN_OFFSET =
        MessageHeaderEncoder.ENCODED_LENGTH + PacketHeaderEncoder.previousExchangeSequenceEncodingOffset();

    private UnsafeBuffer packets;
    private int packetCount;
    private int[] packetOffset;
    private int[] packetLength;
    private int[] packetSlot;
    private long[] packetFirstSequence;
    private long[] packetPreviousChain;
    private boolean[] packetStartsPartition;
    private int[] exchangeSequenceOffset;
    private long[] exchangeSequence;
    private long[] lastChain;
    private long[] messagesPerPartition;
    private long messagesPerPass;
    private long passes;

    private final SdkBookBenchmark.CountingListener listener = new SdkBookBenchmark.CountingListener();
    private SubscriberCounters counters;
    private PacketStreamDecoder single;
    private PacketStreamDecoder pair;

    /** Build the packet stream and the decoders. */
    @Setup
    public void setup()
    {
        final PacketStreamBuilder builder = PacketStreamBuilder.ofBenchSession(PARTITIONS, RING_CAPACITY);
        packets = builder.packets();
        packetCount = builder.packetCount();
        packetOffset = builder.packetOffsets();
        packetLength = builder.packetLengths();
        packetSlot = builder.packetSlots();
        packetFirstSequence = builder.packetFirstSequences();
        packetPreviousChain = builder.packetPreviousChains();
        packetStartsPartition = builder.packetStartsPartition();
        exchangeSequenceOffset = builder.exchangeSequenceOffsets();
        exchangeSequence = new long[exchangeSequenceOffset.length];
        for (int i = 0; i < exchangeSequence.length; i++)
        {
            exchangeSequence[i] = packets.getLong(exchangeSequenceOffset[i], LITTLE_ENDIAN);
        }
        lastChain = builder.lastChains();
        messagesPerPartition = builder.messagesPerPartition();
        messagesPerPass = builder.messageCount();
        if (exchangeSequence.length != messagesPerPass)
        {
            throw new IllegalStateException(exchangeSequence.length + " exchange sequences, " + messagesPerPass + " messages");
        }

        counters = new SubscriberCounters(LocalCounters.create(SubscriberCounters.COUNTER_COUNT), "bench");
        single = new PacketStreamDecoder(builder.partitions(), listener, counters, SdkPairBenchmark::fail);
        pair = PacketStreamDecoder.forPair(builder.partitions(), FeedSubscriber.Context.DEFAULT_ARBITRATION_WAIT_NS,
            listener, counters, SdkPairBenchmark::fail);
    }

    /**
     * Move the stream on by one session: stream sequences by each partition's messages, exchange sequences by the
     * session's last one; each partition's first packet links to where the pass before left its chain.
     */
    @Setup(Level.Invocation)
    public void nextPass()
    {
        final long exchangeShift = passes * GeneratedSession.MESSAGES;
        for (int i = 0; i < packetCount; i++)
        {
            final int offset = packetOffset[i];
            final int slot = packetSlot[i];
            packets.putLong(offset + STREAM_SEQUENCE_OFFSET, packetFirstSequence[i] + passes * messagesPerPartition[slot]);
            final long previous = !packetStartsPartition[i] ? packetPreviousChain[i] + exchangeShift :
                0 == passes ? 0 : lastChain[slot] + exchangeShift - GeneratedSession.MESSAGES;
            packets.putLong(offset + PREVIOUS_CHAIN_OFFSET, previous, LITTLE_ENDIAN);
        }
        for (int i = 0; i < exchangeSequenceOffset.length; i++)
        {
            packets.putLong(exchangeSequenceOffset[i], exchangeSequence[i] + exchangeShift, LITTLE_ENDIAN);
        }
        passes++;
    }

    /**
     * One side's packets through a single-side decoder.
     *
     * @param messages counts delivered messages.
     * @return messages the listener saw.
     */
    @Benchmark
    public long oneSide(final SdkBookBenchmark.Messages messages)
    {
        final UnsafeBuffer packets = this.packets;
        final PacketStreamDecoder single = this.single;
        for (int i = 0, n = packetCount; i < n; i++)
        {
            single.onMessage(packetSlot[i], 1, packets, packetOffset[i], packetLength[i]);
        }
        messages.messages += messagesPerPass;
        return listener.rawMessages;
    }

    /**
     * Each packet from side A, then its copy from side B, through a pair's decoder.
     *
     * @param messages counts delivered messages (each once).
     * @return messages the listener saw.
     */
    @Benchmark
    public long pairBothSides(final SdkBookBenchmark.Messages messages)
    {
        final UnsafeBuffer packets = this.packets;
        final PacketStreamDecoder pair = this.pair;
        for (int i = 0, n = packetCount; i < n; i++)
        {
            final int slot = packetSlot[i];
            final int offset = packetOffset[i];
            final int length = packetLength[i];
            pair.onSideMessage(slot, SIDE_A, packets, offset, length);
            pair.onSideMessage(slot, SIDE_B, packets, offset, length);
        }
        messages.messages += messagesPerPass;
        return listener.rawMessages;
    }

    /**
     * Side A's packets alone through a pair's decoder (side B down).
     *
     * @param messages counts delivered messages.
     * @return messages the listener saw.
     */
    @Benchmark
    public long pairOneSide(final SdkBookBenchmark.Messages messages)
    {
        final UnsafeBuffer packets = this.packets;
        final PacketStreamDecoder pair = this.pair;
        for (int i = 0, n = packetCount; i < n; i++)
        {
            pair.onSideMessage(packetSlot[i], SIDE_A, packets, packetOffset[i], packetLength[i]);
        }
        messages.messages += messagesPerPass;
        return listener.rawMessages;
    }

    /**
     * Fail the run unless every message of every pass was delivered once, with no gap and nothing malformed, and,
     * where side B sent, every one of its messages was a duplicate.
     */
    @TearDown
    public void verify()
    {
        final long expected = passes * messagesPerPass;
        final long duplicates = counters.sideDuplicates(SIDE_B);
        if (0 != counters.gaps() || 0 != counters.malformed() || 0 != counters.listenerErrors() ||
            counters.messages() != expected || listener.rawMessages != expected ||
            (0 != duplicates && duplicates != expected))
        {
            throw new IllegalStateException("the packet stream was not delivered cleanly over " + passes + " passes: " +
                counters + " side B duplicates=" + duplicates);
        }
    }

    private static void fail(final Throwable throwable)
    {
        throw new IllegalStateException(throwable);
    }
}
