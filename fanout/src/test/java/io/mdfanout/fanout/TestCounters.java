package io.mdfanout.fanout;

import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

/** A counters manager over heap buffers, for tests. */
final class TestCounters
{
    private TestCounters()
    {
    }

    static CountersManager newManager()
    {
        final int valuesLength = 16 * 1024;
        return new CountersManager(
            new UnsafeBuffer(ByteBuffer.allocateDirect(
                valuesLength * (CountersReader.METADATA_LENGTH / CountersReader.COUNTER_LENGTH))),
            new UnsafeBuffer(ByteBuffer.allocateDirect(valuesLength)));
    }
}
