package io.mdfanout.bench;

import io.mdfanout.fanout.FanoutConfig;
import io.mdfanout.fanout.state.PartitionState;
import io.mdfanout.fanout.state.PartitionStateCounters;
import io.mdfanout.feed.handler.InMemoryCounters;
import io.mdfanout.feed.normalize.ItchNormalizer;
import io.mdfanout.feed.normalize.NormalizerCounters;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.OrderDeleteEncoder;
import io.mdfanout.wire.WireFormat;
import org.agrona.BitUtil;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.ringbuffer.RingBuffer;
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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The fanout's per-message state upkeep: {@link PartitionState#apply} (order pool, order index,
 * per-instrument order lists, state messages, each store through the undo log that makes a message
 * atomic against kill -9), the work {@code PartitionPublisher} does for every ring record besides
 * copying it into the packet, and the largest part of the fanout's cost per message.
 * <p>
 * Set-up: the generated session (see {@link GeneratedSession}) normalized into four partition rings
 * by the feed handler's {@link ItchNormalizer}; the records then taken in session order (by exchange
 * sequence, as the rings receive them), followed by an OrderDelete for every order still resting at
 * the session's end, so that each pass leaves no orders and the next pass is the same work. The four
 * partition states are real state files, as the fanout maps them: in /dev/shm where there is one
 * (the default state directory is inside the ring directory, on /dev/shm), with the fanout's default
 * {@code --max-orders} and pre-touched.
 * <p>
 * One operation is one pass of ~{@value GeneratedSession#MESSAGES} messages (the close-out deletes
 * included); the {@code messages} counter gives messages per second. After each iteration the
 * states must hold no orders and have counted no unknown, rejected or pool-full update, or the run
 * fails.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = GeneratedSession.JVM_OPENS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class FanoutStateBenchmark
{
    static final int PARTITIONS = ItchNormalizeBenchmark.PARTITIONS;
    private static final int RING_CAPACITY = 32 * 1024 * 1024;

    private UnsafeBuffer records;
    private int recordCount;
    private int[] recordOffset;
    private int[] recordLength;
    private int[] recordTemplateId;
    private int[] recordPartition;
    private PartitionState[] states;
    private final long[] streamSequence = new long[PARTITIONS];
    private final long[] ringPosition = new long[PARTITIONS];
    private Path stateDirectory;

    /** Build the record stream and open the states. */
    @Setup
    public void setup() throws IOException
    {
        final List<Record> stream = closedSession();

        int bytes = 0;
        for (final Record record : stream)
        {
            bytes += record.length;
        }
        records = new UnsafeBuffer(new byte[bytes]);
        recordCount = stream.size();
        recordOffset = new int[recordCount];
        recordLength = new int[recordCount];
        recordTemplateId = new int[recordCount];
        recordPartition = new int[recordCount];
        int offset = 0;
        for (int i = 0; i < recordCount; i++)
        {
            final Record record = stream.get(i);
            records.putBytes(offset, record.bytes, 0, record.length);
            recordOffset[i] = offset;
            recordLength[i] = record.length;
            recordTemplateId[i] = record.templateId;
            recordPartition[i] = record.partition;
            offset += record.length;
        }

        stateDirectory = newStateDirectory("mdfanout-bench-state-");
        states = openStates(stateDirectory, true);
    }

    /**
     * Apply every record of one pass to its partition's state.
     *
     * @param messages counts applied messages.
     * @return orders resting in partition 0 after the pass, so that nothing is dead code.
     */
    @Benchmark
    public int apply(final SdkBookBenchmark.Messages messages)
    {
        applyPass(states);
        messages.messages += recordCount;
        return states[0].orderCount();
    }

    /** Fail the run unless the pass applied cleanly and left no orders. */
    @TearDown(Level.Iteration)
    public void verify()
    {
        for (final PartitionState state : states)
        {
            final PartitionStateCounters counters = state.counters();
            if (0 != state.orderCount() || 0 != counters.unknownOrderUpdates().get() ||
                0 != counters.rejectedUpdates().get() || 0 != counters.ordersRejectedPoolFull().get())
            {
                throw new IllegalStateException("partition " + state.partitionId() + " did not apply cleanly: orders " +
                    state.orderCount() + ", unknown " + counters.unknownOrderUpdates().get() + ", rejected " +
                    counters.rejectedUpdates().get() + ", pool full " + counters.ordersRejectedPoolFull().get());
            }
        }
    }

    /** Close the states and delete their files. */
    @TearDown
    public void close()
    {
        for (final PartitionState state : states)
        {
            state.close();
        }
        IoUtil.delete(stateDirectory.toFile(), true);
    }

    private void applyPass(final PartitionState[] states)
    {
        final UnsafeBuffer records = this.records;
        final long[] streamSequence = this.streamSequence;
        final long[] ringPosition = this.ringPosition;
        for (int i = 0, n = recordCount; i < n; i++)
        {
            final int partition = recordPartition[i];
            final int length = recordLength[i];
            // The ring position after the record, as the publisher computes it: the commit marker.
            ringPosition[partition] += BitUtil.align(length + RecordDescriptor.HEADER_LENGTH, RecordDescriptor.ALIGNMENT);
            states[partition].apply(
                ++streamSequence[partition], ringPosition[partition], recordTemplateId[i], records, recordOffset[i], length);
        }
    }

    /**
     * The session normalized into the partition rings, read back in session order, then an OrderDelete for every order
     * it leaves resting: a pass that leaves every book empty, so that the next pass is the same work.
     *
     * @return the records in session order, the close-out deletes last.
     */
    static List<Record> closedSession() throws IOException
    {
        final List<Record> stream = normalizedSession();
        closeOut(stream);
        return stream;
    }

    /** The session normalized into the partition rings, read back in session order. */
    private static List<Record> normalizedSession()
    {
        final NormalizerCounters normalizerCounters =
            new NormalizerCounters(new InMemoryCounters(256).countersManager(), "bench", PARTITIONS);
        final RingBuffer[] rings = GeneratedSession.normalizedIntoRings(PARTITIONS, RING_CAPACITY, normalizerCounters);

        final List<Record> stream = new ArrayList<>();
        for (int partition = 0; partition < PARTITIONS; partition++)
        {
            final int p = partition;
            rings[partition].read(
                (msgTypeId, buffer, index, length) -> stream.add(new Record(p, msgTypeId, buffer, index, length)),
                Integer.MAX_VALUE);
        }
        // Session order: by exchange sequence; a market-wide message, in every partition, in partition order.
        stream.sort((a, b) -> a.exchangeSequence != b.exchangeSequence ?
            Long.compare(a.exchangeSequence, b.exchangeSequence) : Integer.compare(a.partition, b.partition));
        if (stream.size() != normalizerCounters.ringRecordsWritten().get())
        {
            throw new IllegalStateException(
                "read " + stream.size() + " records, the normalizer wrote " + normalizerCounters.ringRecordsWritten().get());
        }
        return stream;
    }

    /** Append an OrderDelete for every order the stream leaves resting, found by applying it to scratch states. */
    private static void closeOut(final List<Record> stream) throws IOException
    {
        final Path scratch = newStateDirectory("mdfanout-bench-scratch-");
        final PartitionState[] scratchStates = openStates(scratch, false);
        try
        {
            final long[] sequence = new long[PARTITIONS];
            final long[] position = new long[PARTITIONS];
            long lastSequence = 0;
            long lastTimestamp = 0;
            for (final Record record : stream)
            {
                position[record.partition] += BitUtil.align(
                    record.length + RecordDescriptor.HEADER_LENGTH, RecordDescriptor.ALIGNMENT);
                scratchStates[record.partition].apply(
                    ++sequence[record.partition], position[record.partition], record.templateId,
                    new UnsafeBuffer(record.bytes), 0, record.length);
                lastSequence = Math.max(lastSequence, record.exchangeSequence);
                lastTimestamp = Math.max(lastTimestamp, record.exchangeTimestamp);
            }

            final MessageHeaderEncoder header = new MessageHeaderEncoder();
            final OrderDeleteEncoder delete = new OrderDeleteEncoder();
            for (int partition = 0; partition < PARTITIONS; partition++)
            {
                final PartitionState state = scratchStates[partition];
                for (int instrument = state.nextInstrumentWithState(0); PartitionState.NONE != instrument;
                    instrument = state.nextInstrumentWithState(instrument + 1))
                {
                    for (int order = state.firstOrder(instrument); PartitionState.NONE != order; order = state.nextOrder(order))
                    {
                        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[WireFormat.MAX_MESSAGE_LENGTH]);
                        delete.wrapAndApplyHeader(buffer, 0, header)
                            .exchangeSequence(++lastSequence)
                            .exchangeTimestamp(lastTimestamp)
                            .instrumentId(instrument)
                            .orderId(state.orderId(order));
                        stream.add(new Record(partition, OrderDeleteEncoder.TEMPLATE_ID, buffer, 0,
                            MessageHeaderEncoder.ENCODED_LENGTH + delete.encodedLength()));
                    }
                }
            }
        }
        finally
        {
            for (final PartitionState state : scratchStates)
            {
                state.close();
            }
            IoUtil.delete(scratch.toFile(), true);
        }
    }

    private static PartitionState[] openStates(final Path directory, final boolean pretouch)
    {
        final PartitionState[] states = new PartitionState[PARTITIONS];
        final InMemoryCounters counters = new InMemoryCounters(256);
        for (int partition = 0; partition < PARTITIONS; partition++)
        {
            states[partition] = PartitionState.open(directory, partition, FanoutConfig.DEFAULT_MAX_ORDERS,
                new PartitionStateCounters(counters.countersManager(), partition),
                (throwable) -> { throw new IllegalStateException(throwable); }, pretouch);
        }
        return states;
    }

    private static Path newStateDirectory(final String prefix) throws IOException
    {
        final Path shm = Paths.get("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm) ?
            Files.createTempDirectory(shm, prefix) : Files.createTempDirectory(prefix);
    }

    /** One normalized message of the stream, copied out of its ring. Set-up only. */
    static final class Record
    {
        final int partition;
        final int templateId;
        final byte[] bytes;
        final int length;
        final long exchangeSequence;
        final long exchangeTimestamp;

        Record(final int partition, final int templateId, final org.agrona.DirectBuffer buffer, final int index,
            final int length)
        {
            this.partition = partition;
            this.templateId = templateId;
            this.bytes = new byte[length];
            buffer.getBytes(index, bytes, 0, length);
            this.length = length;
            this.exchangeSequence = WireFormat.exchangeSequence(buffer, index);
            this.exchangeTimestamp = WireFormat.exchangeTimestamp(buffer, index);
        }
    }
}
