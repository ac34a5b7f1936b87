package io.mdfanout.feed.handler;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.nio.ByteBuffer;

/**
 * A {@link CountersManager} over process-local direct buffers, for a standalone process or a
 * test. A deployment that exports counters (Prometheus) can give its own manager instead.
 */
public final class InMemoryCounters
{
    private final CountersManager countersManager;

    /**
     * Allocate buffers for up to {@code maxCounters} counters.
     *
     * @param maxCounters capacity in counters.
     */
    public InMemoryCounters(final int maxCounters)
    {
        final UnsafeBuffer values = new UnsafeBuffer(
            ByteBuffer.allocateDirect(maxCounters * CountersReader.COUNTER_LENGTH));
        final UnsafeBuffer metadata = new UnsafeBuffer(
            ByteBuffer.allocateDirect(maxCounters * CountersReader.METADATA_LENGTH));
        countersManager = new CountersManager(metadata, values);
    }

    /** The manager to allocate counters from. */
    public CountersManager countersManager()
    {
        return countersManager;
    }
}
