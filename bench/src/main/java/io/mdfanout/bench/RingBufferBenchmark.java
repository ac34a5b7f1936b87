package io.mdfanout.bench;

import io.mdfanout.feed.normalize.BatchingRingWriter;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.OrderExecutedEncoder;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The partition ring (an Agrona {@link OneToOneRingBuffer}, as in {@code PartitionRings}) with a
 * typical record: a 44-byte OrderExecuted (SBE header + block), record type = template id.
 * <ul>
 *     <li>{@code writeRead}: one thread claims, fills (two longs, as an encoder touches the record)
 *     and commits a record, then reads it back: the cost of the hand-off without contention.</li>
 *     <li>{@code datagramTryClaimCommit} and {@code datagramBatchingWriter}: a datagram's worth of
 *     records ({@value #DATAGRAM_RECORDS}, about what a 365-byte MoldUDP64 packet carries) written
 *     with {@code tryClaim}/{@code commit} each, or with the feed handler's
 *     {@link BatchingRingWriter} and one publish, then read back in one read; per record.</li>
 *     <li>{@code spsc}: a producer and a consumer thread on one ring (the feed handler and the
 *     fanout); a full ring fails the claim, counted as an operation that wrote nothing. Run on
 *     fewer than two free cores it measures the scheduler more than the ring.</li>
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = GeneratedSession.JVM_OPENS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class RingBufferBenchmark
{
    static final int RECORD_LENGTH = MessageHeaderEncoder.ENCODED_LENGTH + OrderExecutedEncoder.BLOCK_LENGTH;
    static final int TYPE_ID = OrderExecutedEncoder.TEMPLATE_ID;
    static final int DATAGRAM_RECORDS = 10;
    private static final int CAPACITY = 64 * 1024;

    /** Counts and sums what it reads; static so that the read captures nothing. */
    static final class CountingHandler implements MessageHandler
    {
        long sum;

        public void onMessage(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
        {
            sum += buffer.getLong(index + MessageHeaderEncoder.ENCODED_LENGTH) + length;
        }
    }

    /** One ring, and the handler reading it. */
    @State(Scope.Group)
    public static class Ring
    {
        RingBuffer ring;
        final CountingHandler handler = new CountingHandler();
        long value;

        /** Allocate the ring off heap, cache-line aligned. */
        @Setup
        public void setup()
        {
            ring = BenchRings.newRing(CAPACITY);
        }
    }

    /** Per-thread ring for the single-threaded case. */
    @State(Scope.Thread)
    public static class ThreadRing extends Ring
    {
        BatchingRingWriter writer;

        /** The batching writer over the same ring. */
        @Setup
        public void setupWriter()
        {
            writer = new BatchingRingWriter(ring);
        }
    }

    /**
     * Claim, fill, commit and read back one record on one thread.
     *
     * @param state the ring.
     * @return the reader's running sum, so that nothing is dead code.
     */
    @Benchmark
    public long writeRead(final ThreadRing state)
    {
        write(state);
        state.ring.read(state.handler, 1);
        return state.handler.sum;
    }

    /**
     * Write a datagram's records with {@code tryClaim}/{@code commit} each, then read them.
     *
     * @param state the ring.
     * @return the reader's running sum, so that nothing is dead code.
     */
    @Benchmark
    @OperationsPerInvocation(DATAGRAM_RECORDS)
    public long datagramTryClaimCommit(final ThreadRing state)
    {
        for (int i = 0; i < DATAGRAM_RECORDS; i++)
        {
            write(state);
        }
        state.ring.read(state.handler, DATAGRAM_RECORDS);
        return state.handler.sum;
    }

    /**
     * Write a datagram's records with the feed handler's batching writer and publish them once,
     * then read them.
     *
     * @param state the ring.
     * @return the reader's running sum, so that nothing is dead code.
     */
    @Benchmark
    @OperationsPerInvocation(DATAGRAM_RECORDS)
    public long datagramBatchingWriter(final ThreadRing state)
    {
        final BatchingRingWriter writer = state.writer;
        final MutableDirectBuffer buffer = writer.buffer();
        for (int i = 0; i < DATAGRAM_RECORDS; i++)
        {
            final int index = writer.claim(TYPE_ID, RECORD_LENGTH);
            if (index >= 0)
            {
                final long value = ++state.value;
                buffer.putLong(index, value);
                buffer.putLong(index + MessageHeaderEncoder.ENCODED_LENGTH, value);
            }
        }
        writer.publish();
        state.ring.read(state.handler, DATAGRAM_RECORDS);
        return state.handler.sum;
    }

    /**
     * Producer side of the two-thread hand-off.
     *
     * @param state the shared ring.
     * @return whether the record was written (false: ring full).
     */
    @Benchmark
    @Group("spsc")
    @GroupThreads(1)
    public boolean spscWrite(final Ring state)
    {
        return write(state);
    }

    /**
     * Consumer side of the two-thread hand-off.
     *
     * @param state the shared ring.
     * @return records read (0 or 1).
     */
    @Benchmark
    @Group("spsc")
    @GroupThreads(1)
    public int spscRead(final Ring state)
    {
        return state.ring.read(state.handler, 1);
    }

    private static boolean write(final Ring state)
    {
        final RingBuffer ring = state.ring;
        final int index = ring.tryClaim(TYPE_ID, RECORD_LENGTH);
        if (index < 0) // RingBuffer.INSUFFICIENT_CAPACITY
        {
            return false;
        }
        final MutableDirectBuffer buffer = ring.buffer();
        final long value = ++state.value;
        buffer.putLong(index, value);
        buffer.putLong(index + MessageHeaderEncoder.ENCODED_LENGTH, value);
        ring.commit(index);
        return true;
    }
}
