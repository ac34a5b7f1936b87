package io.mdfanout.fanout;

import io.aeron.ExclusivePublication;
import io.aeron.Publication;
import io.mdfanout.fanout.derived.PartitionDerivation;
import io.mdfanout.fanout.snapshot.SnapshotPublisher;
import io.mdfanout.fanout.state.PartitionState;
import io.mdfanout.sbe.HeartbeatEncoder;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.PacketHeaderEncoder;
import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.wire.RingSetHeader;
import io.mdfanout.wire.WireFormat;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.ErrorHandler;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.ringbuffer.RingBuffer;

import java.nio.charset.StandardCharsets;

import static org.agrona.BitUtil.CACHE_LINE_LENGTH;

/**
 * The single writer of one partition's Aeron stream: drains the partition ring, packs as many
 * records as fit into one packet (SBE PacketHeader, then the records' bytes back to back),
 * stamps the stream sequence, and offers the packet on an {@link ExclusivePublication}.
 * <p>
 * Batching is natural: each duty cycle takes whatever the ring holds (up to a limit) and never
 * waits to fill a packet, so under light load a packet carries one message.
 * <p>
 * Publication results:
 * <ul>
 *     <li>BACK_PRESSURED / ADMIN_ACTION: the packet is kept and retried on the next duty cycles
 *     before anything more is read from the ring; the bounded ring then fills and the feed
 *     handler feels it. One packet is the only extra buffering. Counted once per packet held.</li>
 *     <li>NOT_CONNECTED: nobody listens; the packet is dropped and its messages counted. The
 *     sequence still advances, so a subscriber that joins later sees where it joined.</li>
 *     <li>CLOSED / MAX_POSITION_EXCEEDED: counted, reported once to the error handler, and the
 *     publisher stops working ({@link #isStopped()}); it never throws out of {@link #doWork()}.</li>
 * </ul>
 * A heartbeat (nextStreamSequence, sendingTime, partitionId) goes out alone when the stream has
 * sent nothing for the heartbeat interval. With a {@link SourceMonitor} it also carries the status of
 * the source (the feed handler writing the ring), its heartbeat age and last exchange timestamp, and
 * one goes out at once, between packets if need be, whenever that status changes: an idle ring
 * looks the same whether the market is quiet or the feed handler is dead, and only the status
 * tells subscribers which.
 * <p>
 * With a {@link PartitionState}, every record packed is also applied to the state with its stream
 * sequence and its absolute ring position, and the stream continues from the state's last applied
 * sequence + 1. Agrona moves the ring head only at the end of a read call, so after kill -9 the
 * records of the last read are read again: those at or before the persisted ring position are
 * skipped (counted), which makes the application exactly once. With a {@link SnapshotPublisher},
 * snapshots are captured and sent after each ring drain, on the same thread, so the state never
 * changes under a snapshot.
 * <p>
 * The partition's chain (schema version 4, docs/WIRE.md): every packet says where the partition's chain of exchange
 * sequences stood before its first message ({@code previousExchangeSequence}), and every heartbeat where it stands
 * after the last packet sent, so that a subscriber can tell, from the exchange's own numbering, whether it lacks a
 * message, whichever fanout sent what it has. A message moves the chain to its exchange sequence, a gap notice to the
 * gap's last sequence; a message of exchange sequence 0 (an exchange snapshot the feed handler loaded) leaves it. It
 * starts from the state's chain when the state was resumed, from 0 when the first message is the session's first,
 * and is unknown (null) otherwise until a message sets it: a publication that joined the exchange mid-session cannot
 * say what came before its first message.
 * <p>
 * Not thread safe: one thread runs {@link #doWork()}. Allocates nothing in steady state.
 */
public final class PartitionPublisher implements Agent
{
    /** Length of the SBE header plus PacketHeader block that starts every packet. */
    public static final int PACKET_HEADER_LENGTH = MessageHeaderEncoder.ENCODED_LENGTH + PacketHeaderEncoder.BLOCK_LENGTH;
    /** Longest a publisher tries to publish what a replaced ring still holds before it follows the new one. */
    public static final long OLD_GENERATION_DRAIN_LIMIT_NS = 1_000_000_000L;
    /** Length of a heartbeat message: SBE header plus Heartbeat block. */
    public static final int HEARTBEAT_LENGTH = MessageHeaderEncoder.ENCODED_LENGTH + HeartbeatEncoder.BLOCK_LENGTH;
    /** messageCount is a uint16. */
    public static final int MAX_MESSAGES_PER_PACKET = 0xFFFF;
    /** A chain position nobody knows: the null value of previousExchangeSequence (2^64-1, -1 as a long). */
    public static final long UNKNOWN_CHAIN = PacketHeaderEncoder.previousExchangeSequenceNullValue();
    private static final int EXCHANGE_SEQUENCE_OFFSET = MessageHeaderEncoder.ENCODED_LENGTH + WireFormat.EXCHANGE_SEQUENCE_OFFSET;
    private static final byte[] UNKNOWN_SESSION = "          ".getBytes(StandardCharsets.US_ASCII);

    private final int partitionId;
    private final RingBuffer ring;
    private final ExclusivePublication publication;
    private final PartitionCounters counters;
    private final long heartbeatIntervalNs;
    private final int ringReadLimit;
    private final EpochNanoClock epochClock;
    private final NanoClock nanoClock;
    private final ErrorHandler errorHandler;
    private final String roleName;
    private final PartitionState state;
    private final SnapshotPublisher snapshots;
    private final int ringIndexMask;

    private final int maxPacketLength;
    private final UnsafeBuffer packetBuffer;
    private final UnsafeBuffer heartbeatBuffer;
    private final PacketHeaderEncoder packetHeaderEncoder = new PacketHeaderEncoder();
    private final HeartbeatEncoder heartbeatEncoder = new HeartbeatEncoder();
    private final ControlledMessageHandler recordHandler = this::onRingRecord;

    private long nextStreamSequence = 1;
    /** The chain after the last message packed; {@link #UNKNOWN_CHAIN} (below every sequence) until known. */
    private long chainPosition = UNKNOWN_CHAIN;
    /** The chain before the first message of the packet being built. */
    private long packetPreviousExchangeSequence = UNKNOWN_CHAIN;
    /** The chain after the last packet sent (or dropped for want of a subscriber): what heartbeats say. */
    private long sentChainPosition = UNKNOWN_CHAIN;
    private final byte[] sessionBytes = new byte[RingSetHeader.SESSION_LENGTH];
    private boolean sessionKnown;
    private int packetLength = PACKET_HEADER_LENGTH;
    private int packetMessageCount;
    private boolean packetFull;
    private boolean packetPending;
    private long lastSendNs;
    private long readStartPosition;
    private int readStartIndex;
    private volatile boolean stopped;
    private RingSetHeader ringSet;
    private long generation;
    private volatile boolean generationChanged;
    /** No packet before this time ({@link #holdPacketsForNs}); 0 when none is held. */
    private long holdPacketsUntilNs;
    /** When this publisher first saw that the producer replaced its ring; 0 while it has not. */
    private long oldGenerationSeenNs;
    private SourceMonitor sourceMonitor;
    private SourceStatus announcedSourceStatus = SourceStatus.UNKNOWN;
    private PartitionDerivation derived;

    /**
     * Create a publisher for one partition.
     *
     * @param partitionId         the partition, stamped into every packet and heartbeat (0..65535).
     * @param ring                the partition ring this publisher is the single consumer of.
     * @param publication         the partition's stream; this publisher is its only writer.
     * @param counters            where to count; this publisher is their only writer.
     * @param heartbeatIntervalNs idle time after which a heartbeat is sent.
     * @param ringReadLimit       most ring records consumed per duty cycle, bounding one cycle's work.
     * @param epochClock          sending-time source (epoch nanos); must not allocate, e.g. PreciseEpochNanoClock.
     * @param nanoClock           monotonic clock for the heartbeat timer.
     * @param errorHandler        told once when the publication fails for good.
     */
    public PartitionPublisher(
        final int partitionId,
        final RingBuffer ring,
        final ExclusivePublication publication,
        final PartitionCounters counters,
        final long heartbeatIntervalNs,
        final int ringReadLimit,
        final EpochNanoClock epochClock,
        final NanoClock nanoClock,
        final ErrorHandler errorHandler)
    {
        this(partitionId, ring, publication, counters, heartbeatIntervalNs, ringReadLimit, epochClock, nanoClock,
            errorHandler, null, null);
    }

    /**
     * Create a publisher for one partition that keeps the partition's state and publishes snapshots.
     *
     * @param partitionId         the partition, stamped into every packet and heartbeat (0..65535).
     * @param ring                the partition ring this publisher is the single consumer of.
     * @param publication         the partition's stream; this publisher is its only writer.
     * @param counters            where to count; this publisher is their only writer.
     * @param heartbeatIntervalNs idle time after which a heartbeat is sent.
     * @param ringReadLimit       most ring records consumed per duty cycle, bounding one cycle's work.
     * @param epochClock          sending-time source (epoch nanos); must not allocate, e.g. PreciseEpochNanoClock.
     * @param nanoClock           monotonic clock for the heartbeat and snapshot timers.
     * @param errorHandler        told once when the publication fails for good.
     * @param state               the partition's state, applied by this publisher's thread; null for none.
     * @param snapshots           snapshot publisher over that state, run after each ring drain; null for none.
     */
    public PartitionPublisher(
        final int partitionId,
        final RingBuffer ring,
        final ExclusivePublication publication,
        final PartitionCounters counters,
        final long heartbeatIntervalNs,
        final int ringReadLimit,
        final EpochNanoClock epochClock,
        final NanoClock nanoClock,
        final ErrorHandler errorHandler,
        final PartitionState state,
        final SnapshotPublisher snapshots)
    {
        if (partitionId < 0 || partitionId > 0xFFFF)
        {
            throw new IllegalArgumentException("partitionId must be 0..65535: " + partitionId);
        }
        if (heartbeatIntervalNs <= 0)
        {
            throw new IllegalArgumentException("heartbeat interval must be positive: " + heartbeatIntervalNs + "ns");
        }
        if (ringReadLimit <= 0)
        {
            throw new IllegalArgumentException("ring read limit must be positive: " + ringReadLimit);
        }
        this.partitionId = partitionId;
        this.ring = ring;
        this.publication = publication;
        this.counters = counters;
        this.heartbeatIntervalNs = heartbeatIntervalNs;
        this.ringReadLimit = ringReadLimit;
        this.epochClock = epochClock;
        this.nanoClock = nanoClock;
        this.errorHandler = errorHandler;
        this.roleName = "fanout-partition-" + partitionId;
        this.state = state;
        this.snapshots = snapshots;
        this.ringIndexMask = ring.capacity() - 1;
        if (null != state)
        {
            // A restarted fanout continues its stream where the state left off, in a new publication.
            nextStreamSequence = state.lastAppliedStreamSequence() + 1;
            counters.nextStreamSequence().setRelease(nextStreamSequence);
            // Its chain too: what the old process applied but never sent breaks it for subscribers that lack it.
            if (0 != state.lastExchangeSequence())
            {
                chainPosition = state.lastExchangeSequence();
                sentChainPosition = chainPosition;
                counters.chainPosition().setRelease(sentChainPosition);
            }
        }

        // A packet is built whole in this buffer and offered: its length is only known once the
        // ring has been drained, and a refused packet must survive to be retried on a later duty
        // cycle without holding ring records or an Aeron claim open. tryClaim would save one
        // copy of at most one MTU but needs the length up front and cannot be kept across cycles.
        packetBuffer = newPacketBuffer(publication, WireFormat.MAX_MESSAGE_LENGTH);
        maxPacketLength = publication.maxPayloadLength();
        heartbeatBuffer = newHeartbeatBuffer();

        packetHeaderEncoder.wrapAndApplyHeader(packetBuffer, 0, new MessageHeaderEncoder());
        packetHeaderEncoder.partitionId(partitionId);
        heartbeatEncoder.wrapAndApplyHeader(heartbeatBuffer, 0, new MessageHeaderEncoder());
        heartbeatEncoder.partitionId(partitionId)
            .lastExchangeTimestamp(0)
            .sourceHeartbeatAge(HeartbeatEncoder.sourceHeartbeatAgeNullValue())
            .sourceStatus(SourceStatus.UNKNOWN)
            .lastExchangeSequence(UNKNOWN_CHAIN)
            .partitionCount(0)
            .putExchangeSession(UNKNOWN_SESSION, 0);
    }

    /**
     * The buffer a stream's packets are built in, one publication payload long (the partition stream's and each derived
     * stream's: one layout, docs/WIRE.md).
     *
     * @param publication          the stream's publication.
     * @param largestMessageLength the longest message the stream carries.
     * @return a cache-line aligned direct buffer of the publication's max payload.
     * @throws IllegalArgumentException when a packet header and the largest message do not fit the payload.
     */
    public static UnsafeBuffer newPacketBuffer(final Publication publication, final int largestMessageLength)
    {
        final int maxPayload = publication.maxPayloadLength();
        if (maxPayload < PACKET_HEADER_LENGTH + largestMessageLength)
        {
            throw new IllegalArgumentException("publication max payload " + maxPayload +
                " bytes cannot hold a packet header and the largest message; raise the channel mtu");
        }
        return new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            BitUtil.align(maxPayload, CACHE_LINE_LENGTH), CACHE_LINE_LENGTH));
    }

    /** @return a cache-line aligned direct buffer a heartbeat is encoded in. */
    public static UnsafeBuffer newHeartbeatBuffer()
    {
        return new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            BitUtil.align(HEARTBEAT_LENGTH, CACHE_LINE_LENGTH), CACHE_LINE_LENGTH));
    }

    /**
     * Say in every heartbeat which feed this stream belongs to: how many partitions it has, and (from the ring set's
     * header, once the feed handler has seen it) the exchange session it carries, so that a subscriber of two sides
     * can refuse a side that is not the same feed. Call before the publisher runs.
     *
     * @param partitionCount the feed's partition count (1..65535).
     */
    public void describeFeed(final int partitionCount)
    {
        if (partitionCount < 1 || partitionCount > 0xFFFF)
        {
            throw new IllegalArgumentException("partitionCount must be 1..65535: " + partitionCount);
        }
        heartbeatEncoder.partitionCount(partitionCount);
    }

    /** @return where the partition's chain stands after the last message packed; {@link #UNKNOWN_CHAIN} if unknown. */
    public long chainPosition()
    {
        return chainPosition;
    }

    /** {@inheritDoc} */
    public void onStart()
    {
        lastSendNs = nanoClock.nanoTime();
        if (null != derived)
        {
            derived.onStart(lastSendNs);
        }
    }

    /**
     * Follow the ring set's generation: once it differs from {@code generation}, this publisher stops
     * reading its ring (whose producer has replaced it) and says so ({@link #hasGenerationChanged()}),
     * within one duty cycle; its owner then maps the new rings and starts new publishers.
     *
     * @param ringSet    the ring directory's header.
     * @param generation the generation of the ring this publisher reads.
     */
    public void followGeneration(final RingSetHeader ringSet, final long generation)
    {
        this.ringSet = ringSet;
        this.generation = generation;
    }

    /**
     * Carry the source's status in every heartbeat, and send one as soon as it changes. Without a monitor
     * heartbeats say {@link SourceStatus#UNKNOWN}.
     *
     * @param sourceMonitor read on this publisher's thread only; set before the publisher runs.
     */
    public void monitorSource(final SourceMonitor sourceMonitor)
    {
        this.sourceMonitor = sourceMonitor;
    }

    /**
     * Derive the partition's derived streams from its packets: each packet built is handed to {@code derived} (whatever
     * becomes of its offer), and the derived streams' heartbeats and snapshots run after each drain. Call before the
     * publisher runs.
     *
     * @param derived the partition's derived streams.
     */
    public void derive(final PartitionDerivation derived)
    {
        this.derived = derived;
    }

    /** @return the partition's derived streams, or null. */
    public PartitionDerivation derivation()
    {
        return derived;
    }

    /** Stop reading the ring as if its generation had changed (its owner replaced the ring set); any thread. */
    public void stopForNewGeneration()
    {
        generationChanged = true;
    }

    /** @return true once the ring set's generation moved past this publisher's ring; safe from any thread. */
    public boolean hasGenerationChanged()
    {
        return generationChanged;
    }

    /**
     * Send heartbeats only (stream sequence 1 next) for a while before the first packet, so that every receiver has
     * set up its image of this new publication before the stream starts (a followed generation's).
     *
     * @param graceNs how long, from now.
     */
    public void holdPacketsForNs(final long graceNs)
    {
        holdPacketsUntilNs = nanoClock.nanoTime() + graceNs;
        if (0 == holdPacketsUntilNs)
        {
            holdPacketsUntilNs = 1;
        }
    }

    /** {@inheritDoc} */
    public int doWork()
    {
        if (stopped || generationChanged)
        {
            return 0;
        }
        if (null != ringSet && ringSet.generation() != generation)
        {
            return drainOldGeneration(); // one acquire load a cycle
        }

        final long nowNs = nanoClock.nanoTime();
        int workCount = 0;
        if (0 != holdPacketsUntilNs)
        {
            if (nowNs - holdPacketsUntilNs < 0)
            {
                return sendHeartbeatIfDue(nowNs);
            }
            holdPacketsUntilNs = 0;
        }
        if (packetPending)
        {
            if (!sendPacket(nowNs))
            {
                return 0; // still refused: leave the ring alone so it fills and the producer feels it
            }
            workCount++;
        }

        workCount += drainRing(nowNs);

        if (null != snapshots && !stopped)
        {
            workCount += snapshots.doWork(nowNs); // after the drain: the incremental stream goes first
        }

        if (!packetPending && !stopped)
        {
            workCount += sendHeartbeatIfDue(nowNs);
        }

        if (null != derived)
        {
            workCount += derived.doWork(nowNs, heartbeatBuffer, announcedSourceStatus.ordinal());
        }

        return workCount;
    }

    private int sendHeartbeatIfDue(final long nowNs)
    {
        final SourceStatus sourceStatus = null != sourceMonitor ? sourceMonitor.poll(nowNs) : SourceStatus.UNKNOWN;
        if (nowNs - lastSendNs >= heartbeatIntervalNs || sourceStatus != announcedSourceStatus)
        {
            return sendHeartbeat(nowNs, sourceStatus);
        }
        return 0;
    }

    /**
     * The producer replaced the rings. What the old generation still holds was written before the new one
     * existed (the end of a trading day, before the next day's rings): it is published first, then the owner
     * takes it from here. A publication that refuses it for {@link #OLD_GENERATION_DRAIN_LIMIT_NS} (no end to the
     * back pressure) is left behind: the new generation is not held up for ever.
     */
    private int drainOldGeneration()
    {
        final long nowNs = nanoClock.nanoTime();
        if (0 == oldGenerationSeenNs)
        {
            oldGenerationSeenNs = nowNs;
        }
        int workCount = 0;
        if (!packetPending || sendPacket(nowNs))
        {
            workCount = drainRing(nowNs);
        }
        if ((0 == workCount && !packetPending) || nowNs - oldGenerationSeenNs > OLD_GENERATION_DRAIN_LIMIT_NS)
        {
            generationChanged = true;
            return 1;
        }
        return workCount;
    }

    /** {@inheritDoc} */
    public String roleName()
    {
        return roleName;
    }

    /** @return the partition this publisher serves. */
    public int partitionId()
    {
        return partitionId;
    }

    /** @return the counters this publisher writes. */
    public PartitionCounters counters()
    {
        return counters;
    }

    /** @return the stream sequence the next message will carry (read it on the duty-cycle thread). */
    public long nextStreamSequence()
    {
        return nextStreamSequence;
    }

    /** @return true while a refused packet waits to be retried (read it on the duty-cycle thread). */
    public boolean hasPendingPacket()
    {
        return packetPending;
    }

    /** @return the partition state this publisher applies, or null. */
    public PartitionState state()
    {
        return state;
    }

    /** @return the snapshot publisher run after each drain, or null. */
    public SnapshotPublisher snapshots()
    {
        return snapshots;
    }

    /** @return true once the publication failed for good (CLOSED or MAX_POSITION_EXCEEDED); safe from any thread. */
    public boolean isStopped()
    {
        return stopped;
    }

    private int drainRing(final long nowNs)
    {
        int workCount = 0;
        int recordsRead = 0;
        while (true)
        {
            final int limit = ringReadLimit - recordsRead;
            readStartPosition = ring.consumerPosition();
            readStartIndex = (int)readStartPosition & ringIndexMask;
            final int read = limit > 0 ? ring.controlledRead(recordHandler, limit) : 0;
            recordsRead += read;

            if (packetMessageCount > 0 && (packetFull || read == 0))
            {
                // Full, or nothing more to take right now (ring empty or limit reached): send it.
                // Never wait for more records to fill a packet; latency matters more than size.
                packetFull = false;
                workCount++;
                if (!sendPacket(nowNs))
                {
                    break;
                }
            }
            else if (read == 0)
            {
                break;
            }
        }

        if (recordsRead > 0)
        {
            counters.recordsRead().getAndAddRelease(recordsRead);
            if (null != state)
            {
                state.publishGauges();
            }
        }

        return workCount + recordsRead;
    }

    private ControlledMessageHandler.Action onRingRecord(
        final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        // One read call never wraps (Agrona reads one contiguous block), so the record's absolute
        // end position is the position at the start of the call plus its offset within the block.
        final long recordEndPosition = readStartPosition + (index - RecordDescriptor.HEADER_LENGTH - readStartIndex) +
            BitUtil.align(length + RecordDescriptor.HEADER_LENGTH, RecordDescriptor.ALIGNMENT);
        final PartitionState state = this.state;
        if (null != state && recordEndPosition <= state.ringPosition())
        {
            state.onSkippedAfterRestart(); // applied before a restart; the ring head had not moved yet
            return ControlledMessageHandler.Action.CONTINUE;
        }

        if (!isValidRecord(msgTypeId, buffer, index, length))
        {
            counters.invalidRecords().incrementRelease();
            return ControlledMessageHandler.Action.CONTINUE; // consumed and skipped
        }

        if (packetLength + length > maxPacketLength || packetMessageCount == MAX_MESSAGES_PER_PACKET)
        {
            packetFull = true;
            return ControlledMessageHandler.Action.ABORT; // stays in the ring for the next packet
        }

        if (0 == packetMessageCount)
        {
            packetPreviousExchangeSequence = chainPosition;
        }
        advanceChain(msgTypeId, buffer, index, length);
        packetBuffer.putBytes(packetLength, buffer, index, length);
        packetLength += length;
        if (null != state)
        {
            state.apply(nextStreamSequence + packetMessageCount, recordEndPosition, msgTypeId, buffer, index, length);
        }
        packetMessageCount++;

        return ControlledMessageHandler.Action.CONTINUE;
    }

    /** Move the chain past one packed message (see the class comment). */
    private void advanceChain(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final int offset = MessageHeaderEncoder.ENCODED_LENGTH + WireFormat.chainPositionOffset(msgTypeId);
        if (length < offset + Long.BYTES)
        {
            return;
        }
        final long position = buffer.getLong(index + offset, WireFormat.BYTE_ORDER);
        final long firstSequence = buffer.getLong(index + EXCHANGE_SEQUENCE_OFFSET, WireFormat.BYTE_ORDER);
        if (UNKNOWN_CHAIN == chainPosition && 1 == firstSequence && UNKNOWN_CHAIN == packetPreviousExchangeSequence)
        {
            packetPreviousExchangeSequence = 0; // the session's first message: nothing came before it
        }
        // Exchange sequence 0 (a loaded exchange snapshot) never moves it, not even from unknown: after GLIMPSE the
        // chain before the first sequenced message is not known, and saying 0 would link it to the session's start.
        if (0 != firstSequence && position > chainPosition)
        {
            chainPosition = position;
        }
    }

    /** {@link WireFormat#isPublishableRecord}: the rule shared with every publisher of our packets. */
    private boolean isValidRecord(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        return WireFormat.isPublishableRecord(msgTypeId, buffer, index, length, maxPacketLength - PACKET_HEADER_LENGTH);
    }

    private boolean sendPacket(final long nowNs)
    {
        final int messageCount = packetMessageCount;
        packetHeaderEncoder
            .streamSequence(nextStreamSequence)
            .sendingTime(epochClock.nanoTime())
            .messageCount(messageCount)
            .previousExchangeSequence(packetPreviousExchangeSequence);
        if (null != derived && !packetPending)
        {
            derived.onPacket(publication.sessionId(), packetBuffer, 0, packetLength, nowNs); // once per packet
        }

        final long result = publication.offer(packetBuffer, 0, packetLength);
        if (result > 0)
        {
            final PartitionCounters counters = this.counters;
            counters.messagesPublished().getAndAddRelease(messageCount);
            counters.packetsPublished().incrementRelease();
            counters.maxMessagesPerPacket().proposeMaxRelease(messageCount);
            advanceSequence(messageCount);
            lastSendNs = nowNs;
            return true;
        }

        if (result == Publication.NOT_CONNECTED)
        {
            counters.notConnectedDropped().getAndAddRelease(messageCount);
            advanceSequence(messageCount);
            lastSendNs = nowNs; // nobody to heartbeat to either
            return true;
        }

        if (result == Publication.BACK_PRESSURED || result == Publication.ADMIN_ACTION)
        {
            if (!packetPending)
            {
                packetPending = true;
                counters.backPressureEvents().incrementRelease();
            }
            return false;
        }

        stop(result);
        return false;
    }

    private void advanceSequence(final int messageCount)
    {
        sentChainPosition = chainPosition;
        nextStreamSequence += messageCount;
        counters.nextStreamSequence().setRelease(nextStreamSequence);
        if (UNKNOWN_CHAIN != sentChainPosition)
        {
            counters.chainPosition().setRelease(sentChainPosition);
        }
        packetLength = PACKET_HEADER_LENGTH;
        packetMessageCount = 0;
        packetPending = false;
    }

    private int sendHeartbeat(final long nowNs, final SourceStatus sourceStatus)
    {
        heartbeatEncoder
            .nextStreamSequence(nextStreamSequence)
            .sendingTime(epochClock.nanoTime())
            .lastExchangeSequence(sentChainPosition);
        if (!sessionKnown && null != ringSet && ringSet.copySession(sessionBytes))
        {
            sessionKnown = true; // a new session is a new generation, with new publishers
            heartbeatEncoder.putExchangeSession(sessionBytes, 0);
        }
        final SourceMonitor sourceMonitor = this.sourceMonitor;
        if (null != sourceMonitor)
        {
            heartbeatEncoder
                .lastExchangeTimestamp(sourceMonitor.lastExchangeTimestampNs())
                .sourceHeartbeatAge(sourceMonitor.wireHeartbeatAgeMs())
                .sourceStatus(sourceStatus);
        }

        final long result = publication.offer(heartbeatBuffer, 0, HEARTBEAT_LENGTH);
        if (result > 0)
        {
            counters.heartbeats().incrementRelease();
            lastSendNs = nowNs;
            announcedSourceStatus = sourceStatus;
            return 1;
        }

        if (result == Publication.NOT_CONNECTED)
        {
            lastSendNs = nowNs; // try again one interval later rather than every duty cycle
            announcedSourceStatus = sourceStatus; // nobody to tell: a subscriber that joins gets the next one
        }
        else if (result != Publication.BACK_PRESSURED && result != Publication.ADMIN_ACTION)
        {
            stop(result);
        }

        return 0;
    }

    private void stop(final long result)
    {
        stopped = true;
        packetPending = false;
        counters.publicationErrors().incrementRelease();
        final String reason = result == Publication.CLOSED ? "was closed" :
            result == Publication.MAX_POSITION_EXCEEDED ? "reached its maximum position" :
            "failed with result " + result;
        errorHandler.onError(new IllegalStateException(
            "fanout partition " + partitionId + ": publication " + reason + "; publisher stopped at stream sequence " +
            nextStreamSequence));
    }
}
