package io.mdfanout.bench;

import io.mdfanout.feed.normalize.ItchNormalizer;
import io.mdfanout.feed.normalize.NormalizerCounters;
import io.mdfanout.feed.sim.ItchEncoder;
import io.mdfanout.feed.sim.ItchEvent;
import io.mdfanout.feed.sim.SessionConfig;
import io.mdfanout.feed.sim.SessionGenerator;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;

import java.nio.ByteOrder;

/**
 * A realistic ITCH 5.0 session generated once (by the simulator's own {@link SessionGenerator} and
 * {@link ItchEncoder}) and held in memory in NASDAQ's file framing: a 2-byte big-endian length, then
 * the message. The same seed always gives the same bytes, so every run measures the same work.
 */
final class GeneratedSession
{
    /** Messages in the benchmark session: large enough to spill the L2 cache, like a real feed. */
    static final int MESSAGES = 200_000;
    /** Symbols: a realistic directory whose opening sequence is a small part of the session. */
    static final int SYMBOLS = 500;
    /** Seed of the session. */
    static final long SEED = 42;

    /** Agrona reaches into jdk.internal.misc for its Unsafe access: every fork needs this. */
    static final String JVM_OPENS = "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED";

    /** Agrona's buffer bounds checks off, as in Aeron's recommended production settings. */
    static final String NO_BOUNDS_CHECKS = "-Dagrona.disable.bounds.checks=true";

    private static final int FRAME_LENGTH_FIELD = 2;

    private GeneratedSession()
    {
    }

    /**
     * Generate the session.
     *
     * @return the framed messages, back to back, in a buffer of exactly their length.
     */
    static UnsafeBuffer framedItch()
    {
        final SessionGenerator generator = new SessionGenerator(
            SEED, new SessionConfig().symbols(SYMBOLS).messageCount(MESSAGES));
        final ItchEvent event = new ItchEvent();
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[MESSAGES * (FRAME_LENGTH_FIELD + ItchEncoder.MAX_MESSAGE_LENGTH)]);
        int length = 0;
        int count = 0;
        while (generator.next(event.reset()))
        {
            final int messageLength = ItchEncoder.encode(event, scratch, length + FRAME_LENGTH_FIELD);
            scratch.putShort(length, (short)messageLength, ByteOrder.BIG_ENDIAN);
            length += FRAME_LENGTH_FIELD + messageLength;
            count++;
        }
        if (count != MESSAGES)
        {
            throw new IllegalStateException("session generated " + count + " messages, expected " + MESSAGES);
        }

        final byte[] framed = new byte[length];
        scratch.getBytes(0, framed);
        return new UnsafeBuffer(framed);
    }

    /**
     * Set-up: the session normalized by the feed handler's {@link ItchNormalizer} into new partition
     * rings, published as one batch.
     *
     * @param partitions   how many rings.
     * @param ringCapacity data capacity of each, large enough for its share of the whole session.
     * @param counters     the normalizer's counters, for the caller's checks.
     * @return the rings, indexed by partition.
     */
    static RingBuffer[] normalizedIntoRings(final int partitions, final int ringCapacity, final NormalizerCounters counters)
    {
        final UnsafeBuffer session = framedItch();
        final RingBuffer[] rings = BenchRings.newRings(partitions, ringCapacity);
        final ItchNormalizer normalizer = new ItchNormalizer(rings, new BusySpinIdleStrategy(), counters);
        long sequence = 0;
        for (int offset = 0; offset < session.capacity(); )
        {
            final int length = session.getShort(offset, ByteOrder.BIG_ENDIAN) & 0xFFFF;
            normalizer.onMessage(session, offset + 2, length, ++sequence);
            offset += 2 + length;
        }
        normalizer.flush();
        return rings;
    }
}
