package io.mdfanout.feed.support;

import io.mdfanout.sbe.MessageHeaderDecoder;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** In-memory partition rings and a reader that copies their records out for assertions. */
public final class Rings
{
    /** One record read from a ring: its type id and a copy of its payload (a complete SBE message). */
    public record Rec(int typeId, UnsafeBuffer buffer)
    {
        public int templateId()
        {
            return new MessageHeaderDecoder().wrap(buffer, 0).templateId();
        }
    }

    private Rings()
    {
    }

    public static RingBuffer[] inMemory(final int partitions, final int capacity)
    {
        final RingBuffer[] rings = new RingBuffer[partitions];
        for (int i = 0; i < partitions; i++)
        {
            rings[i] = new OneToOneRingBuffer(
                new UnsafeBuffer(ByteBuffer.allocateDirect(capacity + RingBufferDescriptor.TRAILER_LENGTH)));
        }
        return rings;
    }

    public static List<Rec> drain(final RingBuffer ring)
    {
        final List<Rec> records = new ArrayList<>();
        ring.read((typeId, buffer, index, length) ->
        {
            final UnsafeBuffer copy = new UnsafeBuffer(new byte[length]);
            copy.putBytes(0, buffer, index, length);
            records.add(new Rec(typeId, copy));
        }, Integer.MAX_VALUE);
        return records;
    }
}
