package io.mdfanout.fanout.derived;

import io.aeron.ExclusivePublication;
import io.aeron.Publication;
import io.mdfanout.fanout.PartitionPublisher;
import io.mdfanout.fanout.snapshot.SnapshotPublisher;
import io.mdfanout.sbe.HeartbeatEncoder;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.PacketHeaderEncoder;
import io.mdfanout.wire.FeedStream;
import io.mdfanout.wire.WireFormat;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.UnsafeBuffer;

import static io.mdfanout.fanout.PartitionPublisher.HEARTBEAT_LENGTH;
import static io.mdfanout.fanout.PartitionPublisher.MAX_MESSAGES_PER_PACKET;
import static io.mdfanout.fanout.PartitionPublisher.PACKET_HEADER_LENGTH;
import static io.mdfanout.fanout.PartitionPublisher.UNKNOWN_CHAIN;
import static org.agrona.BitUtil.CACHE_LINE_LENGTH;

/**
 * The single writer of one derived stream of one partition (docs/WIRE.md, "Derived streams"): packs the derived
 * messages of each MBO packet into packets of its own, with the stream's own sequence, and sends them once the MBO
 * packet was handed on; heartbeats when the stream is idle or the source's status changed, as the MBO stream's, with
 * its source fields; its {@link SnapshotPublisher} publishes the stream's state for late joiners and gaps.
 * <p>
 * The MBO stream is never held up by a derived one: a derived packet refused by back pressure waits in a bounded
 * backlog of its own ({@link #BACKLOG_BYTES}), offered again on the next cycles before anything newer, so that a burst
 * costs nothing; a packet that finds the backlog full is dropped, its messages counted and its sequence passed, so that
 * the stream's subscribers see a gap and recover from its next snapshot (trades, which have no state, stay lost to them,
 * and are reported as a gap). NOT_CONNECTED drops packets as the MBO stream does; CLOSED or MAX_POSITION_EXCEEDED stops
 * the stream (reported once). Allocates nothing in steady state.
 */
public final class DerivedPublisher
{
    /** Bytes of derived packets held per stream and partition while its subscribers push back. */
    public static final int BACKLOG_BYTES = 2 * 1024 * 1024;
    private static final int ADMIN_ACTION_RETRIES = 3;

    private final int partitionId;
    private final FeedStream stream;
    private final ExclusivePublication publication;
    private final DerivedCounters counters;
    private final long heartbeatIntervalNs;
    private final EpochNanoClock epochClock;
    private final ErrorHandler errorHandler;
    private final int maxPacketLength;
    private final UnsafeBuffer packetBuffer;
    private final UnsafeBuffer heartbeatBuffer;
    private final PacketHeaderEncoder packetHeaderEncoder = new PacketHeaderEncoder();
    private final HeartbeatEncoder heartbeatEncoder = new HeartbeatEncoder();
    private SnapshotPublisher snapshots;
    private final UnsafeBuffer backlog;
    private int backlogHead;
    private int backlogTail;

    private long nextStreamSequence = 1;
    private int packetLength = PACKET_HEADER_LENGTH;
    private int packetMessageCount;
    private long lastSendNs;
    private boolean stopped;

    /**
     * @param partitionId         the partition.
     * @param stream              the derived stream.
     * @param publication         the stream's publication; this publisher is its only writer.
     * @param counters            where to count; this publisher is their only writer.
     * @param heartbeatIntervalNs idle time after which a heartbeat is sent.
     * @param epochClock          sending-time source; must not allocate.
     * @param errorHandler        told once when the publication fails for good.
     */
    public DerivedPublisher(
        final int partitionId,
        final FeedStream stream,
        final ExclusivePublication publication,
        final DerivedCounters counters,
        final long heartbeatIntervalNs,
        final EpochNanoClock epochClock,
        final ErrorHandler errorHandler)
    {
        this.partitionId = partitionId;
        this.stream = stream;
        this.publication = publication;
        this.counters = counters;
        this.heartbeatIntervalNs = heartbeatIntervalNs;
        this.epochClock = epochClock;
        this.errorHandler = errorHandler;
        packetBuffer = PartitionPublisher.newPacketBuffer(publication, WireFormat.MAX_STREAM_MESSAGE_LENGTH);
        maxPacketLength = publication.maxPayloadLength();
        heartbeatBuffer = PartitionPublisher.newHeartbeatBuffer();
        backlog = new UnsafeBuffer(BufferUtil.allocateDirectAligned(BACKLOG_BYTES, CACHE_LINE_LENGTH));
        packetHeaderEncoder.wrapAndApplyHeader(packetBuffer, 0, new MessageHeaderEncoder())
            .partitionId(partitionId)
            .previousExchangeSequence(UNKNOWN_CHAIN); // a derived stream is no link of the exchange's chain
    }

    /** Publish the stream's snapshots with this publisher; call before it runs. */
    public void snapshots(final SnapshotPublisher snapshots)
    {
        this.snapshots = snapshots;
    }

    /** @return the stream's snapshot publisher, or null. */
    public SnapshotPublisher snapshots()
    {
        return snapshots;
    }

    /** @return the stream. */
    public FeedStream stream()
    {
        return stream;
    }

    /** @return the stream's publication. */
    public ExclusivePublication publication()
    {
        return publication;
    }

    /** @return the counters. */
    public DerivedCounters counters()
    {
        return counters;
    }

    /** @return the last stream sequence given to a message (0 before the first): what the stream's state includes. */
    public long lastStreamSequence()
    {
        return nextStreamSequence - 1;
    }

    /** @return true once the publication failed for good. */
    public boolean isStopped()
    {
        return stopped;
    }

    /**
     * Add one message to the packet being built, sending the packet first when the message does not fit.
     */
    public void append(final DirectBuffer buffer, final int offset, final int length, final long nowNs)
    {
        if (packetLength + length > maxPacketLength || MAX_MESSAGES_PER_PACKET == packetMessageCount)
        {
            flush(nowNs);
        }
        packetBuffer.putBytes(packetLength, buffer, offset, length);
        packetLength += length;
        packetMessageCount++;
    }

    /** Send the packet being built, if it holds anything, after what waits in the backlog. */
    public void flush(final long nowNs)
    {
        final int messageCount = packetMessageCount;
        if (0 == messageCount)
        {
            return;
        }
        packetHeaderEncoder.streamSequence(nextStreamSequence).messageCount(messageCount);
        if (!stopped)
        {
            // Nothing overtakes what waits: the packet goes out only behind an empty backlog.
            if (backlogHead != backlogTail)
            {
                offerBacklog();
            }
            if (backlogHead != backlogTail || !offer(packetBuffer, 0, packetLength))
            {
                hold();
            }
        }
        nextStreamSequence += messageCount;
        counters.messages().getAndAddRelease(messageCount);
        counters.nextStreamSequence().setRelease(nextStreamSequence);
        lastSendNs = nowNs;
        packetLength = PACKET_HEADER_LENGTH;
        packetMessageCount = 0;
    }

    /** @return bytes of packets waiting in the backlog. */
    public int backlogBytes()
    {
        return backlogTail - backlogHead;
    }

    /**
     * Offer what waits in the backlog, in order, until the publication pushes back.
     *
     * @return packets sent.
     */
    public int drainBacklog()
    {
        if (backlogHead == backlogTail || stopped)
        {
            return 0;
        }
        return offerBacklog();
    }

    /**
     * @return packets sent: 0 while the publication still pushes back, so that the duty cycle's idle strategy backs
     * off instead of spinning on a refused offer (on shared cores that spin took the CPU its subscribers needed).
     */
    private int offerBacklog()
    {
        int sent = 0;
        while (backlogHead < backlogTail)
        {
            final int length = backlog.getInt(backlogHead);
            final int packet = backlogHead + Integer.BYTES;
            if (!offer(backlog, packet, length))
            {
                if (stopped)
                {
                    backlogHead = backlogTail;
                }
                break;
            }
            backlogHead = packet + length;
            sent++;
        }
        if (backlogHead == backlogTail)
        {
            backlogHead = 0;
            backlogTail = 0;
        }
        return sent;
    }

    /** Put the packet being built behind the backlog; when it does not fit, drop it (its subscribers see the gap). */
    private void hold()
    {
        if (stopped)
        {
            return;
        }
        final int needed = Integer.BYTES + packetLength;
        if (backlogTail + needed > BACKLOG_BYTES && backlogHead > 0)
        {
            backlog.putBytes(0, backlog, backlogHead, backlogTail - backlogHead); // compact
            backlogTail -= backlogHead;
            backlogHead = 0;
        }
        if (backlogTail + needed > BACKLOG_BYTES)
        {
            counters.backPressureDropped().getAndAddRelease(packetMessageCount);
            return;
        }
        backlog.putInt(backlogTail, packetLength);
        backlog.putBytes(backlogTail + Integer.BYTES, packetBuffer, 0, packetLength);
        backlogTail += needed;
    }

    /**
     * Offer one packet, its sending time stamped now.
     *
     * @return true when it is done with (published, or dropped with nobody connected or the stream stopped); false
     *         when the publication pushed back.
     */
    private boolean offer(final UnsafeBuffer buffer, final int offset, final int length)
    {
        buffer.putLong(offset + MessageHeaderEncoder.ENCODED_LENGTH + PacketHeaderEncoder.sendingTimeEncodingOffset(),
            epochClock.nanoTime(), java.nio.ByteOrder.LITTLE_ENDIAN);
        long result = publication.offer(buffer, offset, length);
        for (int i = 0; Publication.ADMIN_ACTION == result && i < ADMIN_ACTION_RETRIES; i++)
        {
            result = publication.offer(buffer, offset, length);
        }
        if (result > 0)
        {
            counters.packets().incrementRelease();
            counters.bytes().getAndAddRelease(length);
            return true;
        }
        if (Publication.NOT_CONNECTED == result)
        {
            counters.notConnectedDropped().getAndAddRelease(messageCountOf(buffer, offset));
            return true;
        }
        if (Publication.BACK_PRESSURED == result || Publication.ADMIN_ACTION == result)
        {
            return false;
        }
        stop(result);
        return false;
    }

    private static int messageCountOf(final UnsafeBuffer buffer, final int offset)
    {
        return buffer.getShort(offset + MessageHeaderEncoder.ENCODED_LENGTH +
            PacketHeaderEncoder.messageCountEncodingOffset(), java.nio.ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
    }

    /**
     * Send a heartbeat when the stream was idle for the interval, or at once when {@code now} says so.
     *
     * @param nowNs         monotonic time.
     * @param mboHeartbeat  the partition's MBO heartbeat as last encoded: its source and feed fields are this one's.
     * @param now           send whatever the interval (the source's status changed).
     * @return work done.
     */
    public int heartbeatIfDue(final long nowNs, final DirectBuffer mboHeartbeat, final boolean now)
    {
        if (stopped || backlogHead < backlogTail || (!now && nowNs - lastSendNs < heartbeatIntervalNs))
        {
            return 0;
        }
        heartbeatBuffer.putBytes(0, mboHeartbeat, 0, HEARTBEAT_LENGTH);
        heartbeatEncoder.wrap(heartbeatBuffer, MessageHeaderEncoder.ENCODED_LENGTH)
            .nextStreamSequence(nextStreamSequence)
            .sendingTime(epochClock.nanoTime())
            .lastExchangeSequence(UNKNOWN_CHAIN);
        final long result = publication.offer(heartbeatBuffer, 0, HEARTBEAT_LENGTH);
        if (result > 0)
        {
            counters.heartbeats().incrementRelease();
            lastSendNs = nowNs;
            return 1;
        }
        if (Publication.NOT_CONNECTED == result)
        {
            lastSendNs = nowNs;
        }
        else if (Publication.BACK_PRESSURED != result && Publication.ADMIN_ACTION != result)
        {
            stop(result);
        }
        return 0;
    }

    /** Start the heartbeat timer. */
    public void onStart(final long nowNs)
    {
        lastSendNs = nowNs;
    }

    private void stop(final long result)
    {
        stopped = true;
        counters.publicationErrors().incrementRelease();
        errorHandler.onError(new IllegalStateException("fanout partition " + partitionId + ": " + stream.streamName() +
            " publication " + (Publication.CLOSED == result ? "was closed" :
            Publication.MAX_POSITION_EXCEEDED == result ? "reached its maximum position" :
            "failed with result " + result) + "; the stream stopped at stream sequence " + nextStreamSequence));
    }
}
