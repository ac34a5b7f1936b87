package io.mdfanout.sdk;

import org.agrona.BitUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Creates a process-local {@link CountersManager} over direct {@link UnsafeBuffer}s, for a
 * component that is not given one by its application. The values are readable from any thread
 * through the returned manager (a {@link CountersReader}), e.g. by a metrics exporter.
 */
public final class LocalCounters
{
    private LocalCounters()
    {
    }

    /**
     * Create a counters manager with room for {@code maxCounters} counters.
     *
     * @param maxCounters how many counters it must hold.
     * @return a new counters manager.
     */
    public static CountersManager create(final int maxCounters)
    {
        if (maxCounters <= 0)
        {
            throw new IllegalArgumentException("maxCounters must be positive: " + maxCounters);
        }
        final int valuesLength = BitUtil.align(maxCounters * CountersReader.COUNTER_LENGTH, 4096);
        // Agrona requires the metadata buffer to hold METADATA_LENGTH per COUNTER_LENGTH slot of values.
        final int metadataLength = valuesLength * (CountersReader.METADATA_LENGTH / CountersReader.COUNTER_LENGTH);
        return new CountersManager(
            new UnsafeBuffer(ByteBuffer.allocateDirect(metadataLength)),
            new UnsafeBuffer(ByteBuffer.allocateDirect(valuesLength)),
            StandardCharsets.US_ASCII);
    }
}
