package io.mdfanout.bench;

import io.mdfanout.feed.handler.InMemoryCounters;
import io.mdfanout.feed.normalize.ItchNormalizer;
import io.mdfanout.feed.normalize.NormalizerCounters;
import io.mdfanout.feed.sim.MoldUdp64Packetizer;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

/**
 * ITCH 5.0 decode + validate + normalize + SBE encode + ring write, per message, on one thread,
 * from memory: the feed handler's message path without the socket. The session (see
 * {@link GeneratedSession}) is fed through {@link ItchNormalizer} into four real
 * {@link OneToOneRingBuffer}s in datagrams as the simulator packs them (MoldUDP64 packets of at
 * most {@value MoldUdp64Packetizer#DEFAULT_MAX_PACKET_BYTES} bytes): after each, the normalizer
 * publishes its ring records and counters, as the feed handler does once per datagram. The rings
 * are emptied every {@value #DRAIN_EVERY} messages so that they never fill, as with a live fanout:
 * with {@code consumer=read} by a no-op read of every record (the consumer's cost, included in the
 * figure), with {@code consumer=advance} by moving each ring's head to its tail (the writer's cost
 * alone: in the feed handler the fanout reads on another core). The target's "decode + normalize +
 * ring write" is the second; the first is the conservative figure.
 * <p>
 * One operation is one ITCH message; the score is messages per second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = GeneratedSession.JVM_OPENS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ItchNormalizeBenchmark
{
    static final int PARTITIONS = 4;
    static final int DRAIN_EVERY = 256;
    private static final int RING_CAPACITY = 1024 * 1024;

    private UnsafeBuffer session;
    private int sessionLength;
    private RingBuffer[] rings;
    private ItchNormalizer normalizer;
    private long exchangeSequence;

    private final BenchRings.Drain drain = new BenchRings.Drain();

    /** How the rings are emptied: {@code read} reads every record, {@code advance} only moves the head. */
    @Param({ "read", "advance" })
    public String consumer;
    private boolean readRecords;

    /** Generate the session and create rings, counters and the normalizer. */
    @Setup
    public void setup()
    {
        session = GeneratedSession.framedItch();
        sessionLength = session.capacity();
        rings = BenchRings.newRings(PARTITIONS, RING_CAPACITY);
        final NormalizerCounters counters = new NormalizerCounters(
            new InMemoryCounters(256).countersManager(), "bench", PARTITIONS);
        // The rings are drained inline, so a full ring would be a bug here, never a wait.
        normalizer = new ItchNormalizer(rings, new BusySpinIdleStrategy(), counters);
        readRecords = "read".equals(consumer);
    }

    /**
     * Normalize the whole session once.
     *
     * @return records drained so far, so that nothing is dead code.
     */
    @Benchmark
    @OperationsPerInvocation(GeneratedSession.MESSAGES)
    public long normalizeSession()
    {
        final UnsafeBuffer session = this.session;
        final ItchNormalizer normalizer = this.normalizer;
        final int end = sessionLength;
        long sequence = exchangeSequence;
        int offset = 0;
        int sinceDrain = 0;
        int datagramBytes = MoldUdp64Packetizer.HEADER_LENGTH;
        while (offset < end)
        {
            final int length = session.getShort(offset, ByteOrder.BIG_ENDIAN) & 0xFFFF;
            if (datagramBytes + 2 + length > MoldUdp64Packetizer.DEFAULT_MAX_PACKET_BYTES)
            {
                normalizer.flush(); // the end of a datagram, as the feed handler does
                datagramBytes = MoldUdp64Packetizer.HEADER_LENGTH;
            }
            datagramBytes += 2 + length;
            normalizer.onMessage(session, offset + 2, length, ++sequence);
            offset += 2 + length;
            if (++sinceDrain == DRAIN_EVERY)
            {
                sinceDrain = 0;
                if (readRecords)
                {
                    drain.drainAll(rings);
                }
                else
                {
                    BenchRings.advanceAll(rings);
                }
            }
        }
        normalizer.flush();
        exchangeSequence = sequence;
        return readRecords ? drain.drainAll(rings) : BenchRings.advanceAll(rings);
    }
}
