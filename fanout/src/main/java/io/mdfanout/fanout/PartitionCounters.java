package io.mdfanout.fanout;

import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

import static io.mdfanout.wire.MdfanoutCounters.FANOUT_BACK_PRESSURE_EVENTS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_CHAIN_POSITION_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_HEARTBEATS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_INVALID_RECORDS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_MAX_MESSAGES_PER_PACKET_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_MESSAGES_PUBLISHED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_NEXT_STREAM_SEQUENCE_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_NOT_CONNECTED_DROPPED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_PACKETS_PUBLISHED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_PUBLICATION_ERRORS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_RECORDS_READ_TYPE_ID;

/**
 * The counters of one partition's publisher. Single writer (the publisher's duty cycle, using
 * release-ordered updates); any other thread may read them, e.g. a stats printer or a
 * Prometheus exporter walking the {@link CountersManager}.
 * <p>
 * Each counter has its own type id (so an exporter can map it to a metric name without parsing
 * labels) and the partition id as its 4-byte key. The mean number of messages per packet is
 * {@code messagesPublished / packetsPublished}.
 */
public final class PartitionCounters implements AutoCloseable
{
    private final int partitionId;
    private final AtomicCounter recordsRead;
    private final AtomicCounter messagesPublished;
    private final AtomicCounter packetsPublished;
    private final AtomicCounter maxMessagesPerPacket;
    private final AtomicCounter heartbeats;
    private final AtomicCounter backPressureEvents;
    private final AtomicCounter notConnectedDropped;
    private final AtomicCounter invalidRecords;
    private final AtomicCounter publicationErrors;
    private final AtomicCounter nextStreamSequence;
    private final AtomicCounter chainPosition;

    /**
     * Allocate the counters of a partition.
     *
     * @param countersManager to allocate from; allocation is not thread safe, so call it from the thread that owns it.
     * @param partitionId     the partition, used as key and in the labels.
     */
    public PartitionCounters(final CountersManager countersManager, final int partitionId)
    {
        this.partitionId = partitionId;
        recordsRead = newCounter(countersManager, FANOUT_RECORDS_READ_TYPE_ID, "ring records read");
        messagesPublished = newCounter(countersManager, FANOUT_MESSAGES_PUBLISHED_TYPE_ID, "messages published");
        packetsPublished = newCounter(countersManager, FANOUT_PACKETS_PUBLISHED_TYPE_ID, "packets published");
        maxMessagesPerPacket = newCounter(
            countersManager, FANOUT_MAX_MESSAGES_PER_PACKET_TYPE_ID, "max messages per packet");
        heartbeats = newCounter(countersManager, FANOUT_HEARTBEATS_TYPE_ID, "heartbeats sent");
        backPressureEvents = newCounter(
            countersManager, FANOUT_BACK_PRESSURE_EVENTS_TYPE_ID, "back-pressure events (packets held for retry)");
        notConnectedDropped = newCounter(
            countersManager, FANOUT_NOT_CONNECTED_DROPPED_TYPE_ID, "messages dropped, no subscriber connected");
        invalidRecords = newCounter(countersManager, FANOUT_INVALID_RECORDS_TYPE_ID, "invalid ring records skipped");
        publicationErrors = newCounter(
            countersManager, FANOUT_PUBLICATION_ERRORS_TYPE_ID, "publication errors (closed or max position)");
        nextStreamSequence = newCounter(countersManager, FANOUT_NEXT_STREAM_SEQUENCE_TYPE_ID, "next stream sequence");
        nextStreamSequence.setRelease(1);
        chainPosition = newCounter(countersManager, FANOUT_CHAIN_POSITION_TYPE_ID, "chain position sent");
    }

    private AtomicCounter newCounter(final CountersManager countersManager, final int typeId, final String name)
    {
        final int partition = partitionId;
        return countersManager.newCounter(
            "fanout partition=" + partition + " " + name, typeId, (keyBuffer) -> keyBuffer.putInt(0, partition));
    }

    /** @return the partition these counters belong to. */
    public int partitionId()
    {
        return partitionId;
    }

    /** @return ring records consumed, valid or not. */
    public AtomicCounter recordsRead()
    {
        return recordsRead;
    }

    /** @return normalized messages published (sum of messageCount over published packets). */
    public AtomicCounter messagesPublished()
    {
        return messagesPublished;
    }

    /** @return packets published. */
    public AtomicCounter packetsPublished()
    {
        return packetsPublished;
    }

    /** @return the largest messageCount of any published packet. */
    public AtomicCounter maxMessagesPerPacket()
    {
        return maxMessagesPerPacket;
    }

    /** @return heartbeats sent. */
    public AtomicCounter heartbeats()
    {
        return heartbeats;
    }

    /** @return packets the publication refused with BACK_PRESSURED or ADMIN_ACTION and that were held for retry. */
    public AtomicCounter backPressureEvents()
    {
        return backPressureEvents;
    }

    /** @return messages dropped because no subscriber was connected (their stream sequences were still consumed). */
    public AtomicCounter notConnectedDropped()
    {
        return notConnectedDropped;
    }

    /** @return ring records skipped because they were not a well-formed normalized message. */
    public AtomicCounter invalidRecords()
    {
        return invalidRecords;
    }

    /** @return fatal publication results (CLOSED, MAX_POSITION_EXCEEDED); the publisher stops after one. */
    public AtomicCounter publicationErrors()
    {
        return publicationErrors;
    }

    /** @return the stream sequence the next published message will carry. */
    public AtomicCounter nextStreamSequence()
    {
        return nextStreamSequence;
    }

    /**
     * @return the partition's chain as sent: the exchange sequence of its last message sent, which both sides of a
     * pair share (0 before one is known).
     */
    public AtomicCounter chainPosition()
    {
        return chainPosition;
    }

    /** Free the counters in their manager. */
    public void close()
    {
        CloseHelper.closeAll(
            recordsRead, messagesPublished, packetsPublished, maxMessagesPerPacket, heartbeats, backPressureEvents,
            notConnectedDropped, invalidRecords, publicationErrors, nextStreamSequence, chainPosition);
    }
}
