package io.mdfanout.bench;

import io.mdfanout.feed.handler.InMemoryCounters;
import io.mdfanout.feed.normalize.ItchNormalizer;
import io.mdfanout.feed.normalize.NormalizerCounters;
import io.mdfanout.feed.replay.ItchFileReplayer;
import io.mdfanout.feed.replay.ReplayCounters;
import io.mdfanout.feed.replay.ReplayPace;
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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;

/**
 * {@code mdfanout replay} of an ITCH file at the maximum pace, per record, on one thread, from
 * memory: {@link ItchFileReplayer} reading the framed session (see {@link GeneratedSession}) from a
 * stream, through {@link ItchNormalizer} into four real {@link OneToOneRingBuffer}s. The stream
 * drains the rings with a no-op read every {@value #DRAIN_EVERY_BYTES} bytes it hands out (the
 * consumer's cost, included), so that they stay cache-sized as with a live fanout. Read against
 * {@link ItchNormalizeBenchmark} in the same run: the difference is the replayer's own cost
 * (framing, counters, flushes).
 * <p>
 * One operation is one record; the score is records per second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = GeneratedSession.JVM_OPENS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ItchReplayBenchmark
{
    static final int DRAIN_EVERY_BYTES = 8 * 1024;
    private static final int PARTITIONS = 4;
    private static final int RING_CAPACITY = 1024 * 1024;

    private DrainingStream stream;
    private ItchFileReplayer replayer;

    /** The session as a stream that drains the rings as it goes, as a fanout on another core would. */
    private static final class DrainingStream extends InputStream
    {
        private final byte[] bytes;
        private final RingBuffer[] rings;
        private final BenchRings.Drain drain = new BenchRings.Drain();
        private int position;
        private int sinceDrain;

        DrainingStream(final byte[] bytes, final RingBuffer[] rings)
        {
            this.bytes = bytes;
            this.rings = rings;
        }

        void rewind()
        {
            position = 0;
        }

        long drainAll()
        {
            sinceDrain = 0;
            return drain.drainAll(rings);
        }

        public int read()
        {
            if (position == bytes.length)
            {
                return -1;
            }
            if (++sinceDrain >= DRAIN_EVERY_BYTES)
            {
                drainAll();
            }
            return bytes[position++] & 0xFF;
        }

        public int read(final byte[] into, final int offset, final int length)
        {
            if (position == bytes.length)
            {
                return -1;
            }
            final int n = Math.min(length, bytes.length - position);
            System.arraycopy(bytes, position, into, offset, n);
            position += n;
            sinceDrain += n;
            if (sinceDrain >= DRAIN_EVERY_BYTES)
            {
                drainAll();
            }
            return n;
        }
    }

    /** Generate the session and create the rings, the normalizer and the replayer. */
    @Setup
    public void setup()
    {
        final UnsafeBuffer session = GeneratedSession.framedItch();
        final RingBuffer[] rings = BenchRings.newRings(PARTITIONS, RING_CAPACITY);
        final InMemoryCounters counters = new InMemoryCounters(256);
        final NormalizerCounters normalizerCounters = new NormalizerCounters(counters.countersManager(), "bench", PARTITIONS);
        // The rings are drained by the stream, so a full ring would be a bug here, never a wait.
        final ItchNormalizer normalizer = new ItchNormalizer(rings, new BusySpinIdleStrategy(), normalizerCounters);
        replayer = new ItchFileReplayer(normalizer, new ReplayCounters(counters.countersManager()), ReplayPace.MAX);
        stream = new DrainingStream(session.byteArray(), rings);
    }

    /**
     * Replay the whole session once.
     *
     * @return records drained so far, so that nothing is dead code.
     * @throws IOException never: the stream is in memory.
     */
    @Benchmark
    @OperationsPerInvocation(GeneratedSession.MESSAGES)
    public long replaySession() throws IOException
    {
        final DrainingStream stream = this.stream;
        stream.rewind();
        if (ItchFileReplayer.Outcome.COMPLETED != replayer.replay(stream))
        {
            throw new IllegalStateException("the replay of the session did not complete");
        }
        return stream.drainAll();
    }
}
