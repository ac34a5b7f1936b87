package io.mdfanout.fanout.derived;

import io.mdfanout.wire.FeedStream;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

import static io.mdfanout.wire.MdfanoutCounters.FANOUT_DERIVED_BACK_PRESSURE_DROPPED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_DERIVED_BYTES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_DERIVED_HEARTBEATS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_DERIVED_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_DERIVED_NEXT_STREAM_SEQUENCE_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_DERIVED_NOT_CONNECTED_DROPPED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_DERIVED_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_DERIVED_PUBLICATION_ERRORS_TYPE_ID;

/**
 * The counters of one derived stream of one partition. Single writer (the partition's publisher thread); any thread may
 * read them. Key: the partition id (int at 0) and the stream's {@link FeedStream} ordinal (int at 4).
 */
public final class DerivedCounters implements AutoCloseable
{
    private final int partitionId;
    private final FeedStream stream;
    private final AtomicCounter messages;
    private final AtomicCounter packets;
    private final AtomicCounter bytes;
    private final AtomicCounter heartbeats;
    private final AtomicCounter notConnectedDropped;
    private final AtomicCounter backPressureDropped;
    private final AtomicCounter publicationErrors;
    private final AtomicCounter nextStreamSequence;

    /**
     * @param countersManager to allocate from, on the thread that owns it.
     * @param partitionId     the partition.
     * @param stream          the derived stream.
     */
    public DerivedCounters(final CountersManager countersManager, final int partitionId, final FeedStream stream)
    {
        this.partitionId = partitionId;
        this.stream = stream;
        messages = newCounter(countersManager, FANOUT_DERIVED_MESSAGES_TYPE_ID, "messages");
        packets = newCounter(countersManager, FANOUT_DERIVED_PACKETS_TYPE_ID, "packets published");
        bytes = newCounter(countersManager, FANOUT_DERIVED_BYTES_TYPE_ID, "bytes published");
        heartbeats = newCounter(countersManager, FANOUT_DERIVED_HEARTBEATS_TYPE_ID, "heartbeats sent");
        notConnectedDropped = newCounter(
            countersManager, FANOUT_DERIVED_NOT_CONNECTED_DROPPED_TYPE_ID, "messages dropped, no subscriber connected");
        backPressureDropped = newCounter(
            countersManager, FANOUT_DERIVED_BACK_PRESSURE_DROPPED_TYPE_ID, "messages dropped under back pressure");
        publicationErrors = newCounter(
            countersManager, FANOUT_DERIVED_PUBLICATION_ERRORS_TYPE_ID, "publication errors (closed or max position)");
        nextStreamSequence = newCounter(countersManager, FANOUT_DERIVED_NEXT_STREAM_SEQUENCE_TYPE_ID, "next stream sequence");
        nextStreamSequence.setRelease(1);
    }

    private AtomicCounter newCounter(final CountersManager countersManager, final int typeId, final String name)
    {
        final int partition = partitionId;
        final int ordinal = stream.ordinal();
        return countersManager.newCounter(
            "fanout partition=" + partition + " stream=" + stream.streamName() + " " + name, typeId,
            (keyBuffer) ->
            {
                keyBuffer.putInt(0, partition);
                keyBuffer.putInt(Integer.BYTES, ordinal);
            });
    }

    /** @return the partition. */
    public int partitionId()
    {
        return partitionId;
    }

    /** @return the stream. */
    public FeedStream stream()
    {
        return stream;
    }

    /** @return derived messages sequenced (published or dropped). */
    public AtomicCounter messages()
    {
        return messages;
    }

    /** @return packets published. */
    public AtomicCounter packets()
    {
        return packets;
    }

    /** @return bytes published. */
    public AtomicCounter bytes()
    {
        return bytes;
    }

    /** @return heartbeats sent. */
    public AtomicCounter heartbeats()
    {
        return heartbeats;
    }

    /** @return messages dropped with no subscriber connected. */
    public AtomicCounter notConnectedDropped()
    {
        return notConnectedDropped;
    }

    /** @return messages dropped under back pressure. */
    public AtomicCounter backPressureDropped()
    {
        return backPressureDropped;
    }

    /** @return publication errors. */
    public AtomicCounter publicationErrors()
    {
        return publicationErrors;
    }

    /** @return the next stream sequence. */
    public AtomicCounter nextStreamSequence()
    {
        return nextStreamSequence;
    }

    /** {@inheritDoc} */
    public void close()
    {
        messages.close();
        packets.close();
        bytes.close();
        heartbeats.close();
        notConnectedDropped.close();
        backPressureDropped.close();
        publicationErrors.close();
        nextStreamSequence.close();
    }
}
