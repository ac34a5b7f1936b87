package io.mdfanout.feed.handler;

import io.mdfanout.feed.glimpse.GlimpseException;
import io.mdfanout.feed.glimpse.GlimpseListener;
import io.mdfanout.feed.glimpse.GlimpseResult;
import io.mdfanout.feed.moldudp.MulticastLine;
import io.mdfanout.feed.normalize.ItchNormalizer;
import io.mdfanout.feed.normalize.NormalizerCounters;
import io.mdfanout.feed.normalize.PartitionRingSet;
import io.mdfanout.metrics.LatencyHistogram;
import io.mdfanout.wire.PreciseEpochNanoClock;
import io.mdfanout.wire.RingSetHeader;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

/**
 * The feed handler's duty cycle: receive MoldUDP64 datagrams from line A (and line B when
 * configured) and the replies of the retransmission server, push them through the
 * {@link LineArbiter} into the partition rings, and run its gap timers.
 * <p>
 * Each multicast socket is a non-blocking IPv4 {@link DatagramChannel} bound to its group and
 * port with SO_REUSEADDR (binding the group, not the wildcard, keeps Linux from delivering
 * another group on the same port to it) and joined on its interface. The request socket is
 * bound to an ephemeral port: requests go out of it and the server's unicast replies come back
 * to it. Each duty cycle receives up to {@link FeedHandlerConfig#datagramsPerPoll()} datagrams
 * per socket into one direct buffer, so the receive path allocates nothing. Nothing escapes
 * {@link #doWork()}: receive errors are counted.
 * <p>
 * Over a {@link PartitionRingSet} the agent keeps the ring directory's header: a producer heartbeat
 * with the last exchange timestamp and the state of its lines every {@link #HEARTBEAT_INTERVAL_NS}
 * (what a fanout reports to its subscribers as source liveness), the session, and the committed
 * sequence (through the normalizer); rings that were re-attached are continued after their committed
 * sequence, with the session they hold.
 * <p>
 * The rings are given, not owned: whoever created them (the command, or a test) unmaps them.
 * The sockets are opened by the constructor, so a wrong interface or port fails at
 * construction, and closed by {@link #onClose()}.
 */
public final class FeedHandlerAgent implements Agent
{
    /** Largest UDP payload. */
    public static final int MAX_DATAGRAM_LENGTH = 65535;
    /** How often the producer heartbeat goes into the ring header. */
    public static final long HEARTBEAT_INTERVAL_NS = 100_000_000L;
    /** After a rebuild that failed or was refused (the exchange's snapshot behind the feed), the next try waits. */
    public static final long REBUILD_RETRY_INTERVAL_NS = 5_000_000_000L;

    /** The exchange's snapshot service (GLIMPSE), for a rebuild of the rings mid-session: see {@link #rebuildFrom}. */
    @FunctionalInterface
    public interface ExchangeSnapshotSource
    {
        /**
         * Load the exchange's whole snapshot, message by message. It blocks the duty cycle, as a start with
         * GLIMPSE does: the feed's packets wait in the socket buffers meanwhile.
         *
         * @param listener given each message of the snapshot.
         * @return what was loaded, with the sequence the feed continues at.
         * @throws GlimpseException when the snapshot cannot be loaded whole.
         */
        GlimpseResult load(GlimpseListener listener) throws GlimpseException;
    }

    private final FeedHandlerConfig config;
    private final FeedHandlerCounters counters;
    private final ArbitrationCounters arbitrationCounters;
    private final NormalizerCounters normalizerCounters;
    private final ItchNormalizer normalizer;
    /** Set only with --stamp-receive-time: the clock whose time of day replaces exchange timestamps. */
    private final PreciseEpochNanoClock receiveClock;
    private static final long NANOS_PER_DAY = 86_400_000_000_000L;
    private final LineArbiter arbiter;
    private final ByteBuffer receiveByteBuffer;
    private final LatencyHistogram receiveLatency;
    private final UnsafeBuffer receiveBuffer;
    private final ByteBuffer requestByteBuffer = ByteBuffer.allocateDirect(64);
    private final DatagramChannel channelA;
    private final DatagramChannel channelB;
    private final DatagramChannel requestChannel;
    private final InetSocketAddress retransmitServer;
    private final int grantedReceiveBufferBytes;
    private final RingSetHeader header;
    private final PartitionRingSet ringSet;
    private long lastHeartbeatNs;
    private long snapshotMessages;
    private ExchangeSnapshotSource rebuildSource;
    /** The declared gaps the rings were last rebuilt after (or counted when rebuilds were enabled). */
    private long declaredAtLastRebuild;
    private long nextRebuildNs;
    /** A rebuild's snapshot, staged whole before a new generation is made: [length][message] records. */
    private ExpandableDirectByteBuffer staging;
    private int stagedLength;
    private long stagedMessages;

    /**
     * Create the agent and open its sockets.
     *
     * @param config          validated here.
     * @param rings           one ring per partition ({@code config.partitions()} of them).
     * @param countersManager to allocate the counters from (freed on close).
     * @throws IllegalArgumentException for a wrong configuration.
     * @throws UncheckedIOException     when a socket cannot be opened, bound or joined.
     */
    public FeedHandlerAgent(
        final FeedHandlerConfig config, final RingBuffer[] rings, final CountersManager countersManager)
    {
        this(config, rings, countersManager, null);
    }

    /**
     * @param config          validated here.
     * @param rings           one ring per partition, written by this agent only.
     * @param countersManager where the agent's counters are allocated.
     * @param receiveLatency  records, per datagram, receive -> processed (messages committed to the
     *                        rings or held behind a gap); null to measure nothing.
     */
    public FeedHandlerAgent(
        final FeedHandlerConfig config,
        final RingBuffer[] rings,
        final CountersManager countersManager,
        final LatencyHistogram receiveLatency)
    {
        this(config, rings, null, countersManager, receiveLatency);
    }

    /**
     * Over a ring directory: keeps its header and commit marks, and continues resumed rings.
     *
     * @param config          validated here.
     * @param ringSet         the locked ring directory, written by this agent only.
     * @param countersManager where the agent's counters are allocated.
     * @param receiveLatency  as {@link #FeedHandlerAgent(FeedHandlerConfig, RingBuffer[], CountersManager,
     *                        LatencyHistogram)}.
     */
    public FeedHandlerAgent(
        final FeedHandlerConfig config,
        final PartitionRingSet ringSet,
        final CountersManager countersManager,
        final LatencyHistogram receiveLatency)
    {
        this(config, ringSet.rings(), ringSet, countersManager, receiveLatency);
    }

    private FeedHandlerAgent(
        final FeedHandlerConfig config,
        final RingBuffer[] rings,
        final PartitionRingSet ringSet,
        final CountersManager countersManager,
        final LatencyHistogram receiveLatency)
    {
        this.receiveLatency = receiveLatency;
        this.ringSet = ringSet;
        this.header = null == ringSet ? null : ringSet.header();
        config.validate();
        if (rings.length != config.partitions())
        {
            throw new IllegalArgumentException(
                "config has " + config.partitions() + " partitions but " + rings.length + " rings were given");
        }
        this.config = config;
        retransmitServer = config.retransmitServerAddress();
        counters = new FeedHandlerCounters(countersManager, "feed-handler");
        arbitrationCounters = new ArbitrationCounters(countersManager, "feed-handler");
        normalizerCounters = new NormalizerCounters(countersManager, "feed-handler", rings.length);
        normalizer = null == ringSet ?
            new ItchNormalizer(rings, config.newIdleStrategy(), normalizerCounters) :
            new ItchNormalizer(rings, ringSet.ringFiles(), ringSet.header(), config.newIdleStrategy(), normalizerCounters);
        normalizer.ringFullTimeoutNs(config.ringFullWaitMs() * 1_000_000L);
        receiveClock = config.stampReceiveTime() ? new PreciseEpochNanoClock() : null;

        receiveByteBuffer = ByteBuffer.allocateDirect(MAX_DATAGRAM_LENGTH);
        receiveBuffer = new UnsafeBuffer(receiveByteBuffer);

        DatagramChannel a = null;
        DatagramChannel b = null;
        DatagramChannel r = null;
        String opening = config.group() + ":" + config.port() + " on " + config.interfaceAddress();
        try
        {
            a = openMulticast(config.groupAddress(), config.port(), config.networkInterface(), config.sourceAddress());
            if (config.hasLineB())
            {
                opening = "line B " + config.groupB() + ":" + config.portB() + " on " + config.interfaceAddressB();
                b = openMulticast(
                    config.groupBAddress(), config.portB(), config.networkInterfaceB(), config.sourceBAddress());
            }
            if (null != retransmitServer)
            {
                opening = "the retransmission request socket";
                r = DatagramChannel.open(StandardProtocolFamily.INET);
                r.setOption(StandardSocketOptions.SO_RCVBUF, config.receiveBufferBytes());
                r.bind(new InetSocketAddress(0));
                r.configureBlocking(false);
            }
            grantedReceiveBufferBytes = a.getOption(StandardSocketOptions.SO_RCVBUF);
        }
        catch (final IOException ex)
        {
            CloseHelper.quietCloseAll(a, b, r);
            CloseHelper.quietCloseAll(normalizerCounters, arbitrationCounters, counters);
            throw new UncheckedIOException("cannot receive " + opening + ": " + ex.getMessage(), ex);
        }
        channelA = a;
        channelB = b;
        requestChannel = r;
        arbiter = new LineArbiter(
            config, normalizer, counters, arbitrationCounters, null == r ? null : this::sendRequest);
        if (null != ringSet)
        {
            arbiter.sessionListener(new LineArbiter.SessionListener()
            {
                public void onSession(final byte[] session, final long firstSequence)
                {
                    ringSet.session(session);
                }

                public boolean onNewSession(final long sequenceBefore)
                {
                    return newGeneration(ringSet, sequenceBefore);
                }
            });
            if (ringSet.isResumed())
            {
                normalizer.resume(ringSet.committedSequence(), ringSet.lastRecordSequences());
                arbiter.resumeAt(ringSet.committedSequence() + 1, ringSet.session());
            }
        }
    }

    /**
     * A new exchange session (the next trading day) starts in a new generation of rings: the fanout publishes
     * the old rings to their end, then follows with new publications, its state (books, snapshots) empty, so
     * no order of the day before survives into the new day and subscribers see the new day as a new stream.
     */
    private boolean newGeneration(final PartitionRingSet ringSet, final long sequenceBefore)
    {
        normalizer.flush();
        final long before = ringSet.generation();
        ringSet.newGeneration("the exchange started a new session");
        normalizer.newGeneration(ringSet.rings(), ringSet.ringFiles(), sequenceBefore);
        System.err.println("feed-handler: a new exchange session: new ring generation " + ringSet.generation() +
            " (was " + before + ") in " + ringSet.directory());
        return true;
    }

    private DatagramChannel openMulticast(
        final InetAddress group, final int port, final NetworkInterface networkInterface, final InetAddress source)
        throws IOException
    {
        return MulticastLine.open(group, port, networkInterface, source, config.receiveBufferBytes());
    }

    private boolean sendRequest(final DirectBuffer buffer, final int offset, final int length)
    {
        try
        {
            requestByteBuffer.clear();
            buffer.getBytes(offset, requestByteBuffer, length);
            requestByteBuffer.flip();
            return requestChannel.send(requestByteBuffer, retransmitServer) == length;
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    /**
     * Before the duty cycle starts: write one message of an exchange snapshot (GLIMPSE: the directory,
     * trading states, every open order as an add) into the rings of a new generation. The messages carry
     * exchange sequence 0 (they are state, not a sequenced event). While the snapshot loads, a full ring
     * is waited for without limit (the fanout drains it), and the ring header says the source is loading.
     *
     * @param buffer holding the ITCH message.
     * @param offset of its type byte.
     * @param length of the message.
     */
    public void onSnapshotMessage(final DirectBuffer buffer, final int offset, final int length)
    {
        if (0 == snapshotMessages)
        {
            normalizer.ringFullTimeoutNs(Long.MAX_VALUE);
        }
        normalizer.onMessage(buffer, offset, length, 0);
        if ((++snapshotMessages & 255) == 0)
        {
            normalizer.flush();
            if (null != header)
            {
                header.heartbeat(System.currentTimeMillis(), normalizer.lastTimestamp(), RingSetHeader.SOURCE_LOADING);
            }
        }
    }

    /**
     * The snapshot is complete: it is the state after every message before {@code nextSequence}, so the
     * feed continues there (the packets that arrived meanwhile wait in the socket buffers; what the
     * kernel could not hold is a gap, requested as any other).
     *
     * @param nextSequence the MoldUDP64 sequence the snapshot's End of Snapshot message gives.
     */
    public void onSnapshotComplete(final long nextSequence)
    {
        completeSnapshot(nextSequence);
        arbiter.resumeAt(nextSequence, "");
    }

    private void completeSnapshot(final long nextSequence)
    {
        normalizer.flush();
        normalizer.ringFullTimeoutNs(config.ringFullWaitMs() * 1_000_000L);
        final long[] lastRecords = new long[normalizer.partitionCount()];
        java.util.Arrays.fill(lastRecords, nextSequence - 1);
        normalizer.resume(nextSequence - 1, lastRecords);
        if (null != header)
        {
            header.committedSequence(nextSequence - 1);
        }
    }

    /**
     * Rebuild the rings from the exchange's snapshot when re-requests could not fill a gap: once the gap is
     * declared (its GapNotice is in the rings and every subscriber is stale with {@code EXCHANGE_GAP}) and nothing
     * else waits, the snapshot is loaded whole, then written into a new generation of rings, and the feed continues
     * at the snapshot's sequence. The fanout follows the new generation with new publications and a state that
     * lacks nothing, so subscribers recover from its snapshots to exact books and are stale no more. A load that
     * fails, or a snapshot behind the feed, leaves the rings as they are; it is tried again after
     * {@link #REBUILD_RETRY_INTERVAL_NS}. Needs a ring directory (a generation to make).
     *
     * @param source the exchange's snapshot service.
     */
    public void rebuildFrom(final ExchangeSnapshotSource source)
    {
        if (null == ringSet)
        {
            throw new IllegalStateException("a rebuild from the exchange's snapshot needs a ring directory");
        }
        rebuildSource = source;
        declaredAtLastRebuild = arbitrationCounters.gapsDeclared().get();
        staging = new ExpandableDirectByteBuffer(1 << 20);
    }

    private boolean isRebuildDue(final long nowNs)
    {
        return null != rebuildSource && nowNs >= nextRebuildNs &&
            arbitrationCounters.gapsDeclared().get() > declaredAtLastRebuild && arbiter.isQuiescent() &&
            !arbiter.isSessionEnded();
    }

    private int rebuild(final long nowNs)
    {
        final long declared = arbitrationCounters.gapsDeclared().get();
        final long feedAt = arbiter.nextExpected();
        System.err.println("feed-handler: GLIMPSE: rebuilding the rings after " + (declared - declaredAtLastRebuild) +
            " declared gap(s), the feed at sequence " + feedAt + ": loading the exchange's snapshot (the feed's " +
            "packets wait in the socket buffers)");
        stagedLength = 0;
        stagedMessages = 0;
        // The duty cycle waits for the load: the fanout and its subscribers hear that the source is loading.
        header.sourceState(RingSetHeader.SOURCE_LOADING);
        final GlimpseResult result;
        try
        {
            result = rebuildSource.load(this::stage);
        }
        catch (final GlimpseException | RuntimeException ex)
        {
            nextRebuildNs = nowNs + REBUILD_RETRY_INTERVAL_NS;
            arbitrationCounters.glimpseRebuildFailures().increment();
            System.err.println("feed-handler: GLIMPSE: the rebuild failed: " + ex.getMessage() + "; the rings go " +
                "on as they are (lacking the declared messages); trying again in " +
                REBUILD_RETRY_INTERVAL_NS / 1_000_000_000L + " s");
            return 1;
        }
        if (result.nextSequence() < feedAt)
        {
            nextRebuildNs = nowNs + REBUILD_RETRY_INTERVAL_NS;
            arbitrationCounters.glimpseRebuildFailures().increment();
            System.err.println("feed-handler: GLIMPSE: the exchange's snapshot continues at sequence " +
                result.nextSequence() + ", behind the feed at " + feedAt + ": not used; trying again in " +
                REBUILD_RETRY_INTERVAL_NS / 1_000_000_000L + " s");
            return 1;
        }

        declaredAtLastRebuild = declared;
        nextRebuildNs = nowNs + REBUILD_RETRY_INTERVAL_NS; // a loss the load itself caused waits its turn
        normalizer.flush();
        final long before = ringSet.generation();
        ringSet.newGeneration("rebuilt from the exchange's snapshot after a declared gap");
        normalizer.newGeneration(ringSet.rings(), ringSet.ringFiles(), feedAt - 1);
        header.sourceState(RingSetHeader.SOURCE_LOADING);
        snapshotMessages = 0;
        int offset = 0;
        while (offset < stagedLength)
        {
            final int length = staging.getInt(offset);
            onSnapshotMessage(staging, offset + Integer.BYTES, length);
            offset += Integer.BYTES + length;
        }
        completeSnapshot(result.nextSequence());
        arbiter.continueAt(result.nextSequence());
        header.heartbeat(System.currentTimeMillis(), normalizer.lastTimestamp(), RingSetHeader.SOURCE_LIVE);
        arbitrationCounters.glimpseRebuilds().increment();
        System.err.println("feed-handler: GLIMPSE: rebuilt: ring generation " + ringSet.generation() + " (was " +
            before + ") holds the exchange's snapshot (" + result.messages() + " messages, session '" +
            result.session().trim() + "') and continues at sequence " + result.nextSequence() + " (the feed was at " +
            feedAt + ")");
        return 1;
    }

    private void stage(final DirectBuffer buffer, final int offset, final int length)
    {
        staging.putInt(stagedLength, length);
        staging.putBytes(stagedLength + Integer.BYTES, buffer, offset, length);
        stagedLength += Integer.BYTES + length;
        if ((++stagedMessages & 255) == 0)
        {
            header.heartbeat(System.currentTimeMillis(), normalizer.lastTimestamp(), RingSetHeader.SOURCE_LOADING);
        }
    }


    /** {@inheritDoc} */
    public String roleName()
    {
        return "feed-handler";
    }

    /** {@inheritDoc} */
    public void onStart()
    {
        System.err.println("feed-handler: receiving line A " + config.group() + ":" + config.port() + " on " +
            config.interfaceAddress() +
            (config.hasLineB() ? ", line B " + config.groupB() + ":" + config.portB() + " on " +
                config.interfaceAddressB() : "") +
            (null != retransmitServer ? ", re-requests to " + retransmitServer : ", no re-request server") +
            ", SO_RCVBUF requested " + config.receiveBufferBytes() + " granted " + grantedReceiveBufferBytes +
            " (Linux reports twice the usable size; raise net.core.rmem_max for more)");
    }

    /**
     * Receive and process up to {@code datagramsPerPoll} datagrams per socket, then run the gap timers.
     *
     * @return the number of datagrams processed plus the timer work done.
     */
    public int doWork()
    {
        final long nowNs = System.nanoTime();
        int workCount = receive(channelA, ArbitrationCounters.LINE_A, nowNs);
        if (null != channelB)
        {
            workCount += receive(channelB, ArbitrationCounters.LINE_B, nowNs);
        }
        if (null != requestChannel)
        {
            workCount += receive(requestChannel, ArbitrationCounters.LINE_R, nowNs);
        }
        workCount += arbiter.poll(nowNs);
        if (isRebuildDue(nowNs))
        {
            workCount += rebuild(nowNs);
        }
        if (null != header && nowNs - lastHeartbeatNs >= HEARTBEAT_INTERVAL_NS)
        {
            lastHeartbeatNs = nowNs;
            header.heartbeat(System.currentTimeMillis(), normalizer.lastTimestamp(),
                arbiter.allLinesSilent() || arbiter.isBehindRings() ?
                    RingSetHeader.SOURCE_LINES_SILENT : RingSetHeader.SOURCE_LIVE);
        }
        return workCount;
    }

    private int receive(final DatagramChannel channel, final int line, final long nowNs)
    {
        final int limit = config.datagramsPerPoll();
        int workCount = 0;
        try
        {
            while (workCount < limit)
            {
                receiveByteBuffer.clear();
                if (null == channel.receive(receiveByteBuffer))
                {
                    break;
                }
                final long receivedNs = System.nanoTime();
                if (null != receiveClock)
                {
                    normalizer.timestampOverride(receiveClock.nanoTime() % NANOS_PER_DAY);
                }
                arbiter.onPacket(line, receiveBuffer, 0, receiveByteBuffer.position(), nowNs);
                if (null != receiveLatency)
                {
                    receiveLatency.recordNanos(System.nanoTime() - receivedNs);
                }
                workCount++;
            }
        }
        catch (final IOException ex)
        {
            counters.receiveErrors().incrementRelease();
        }
        return workCount;
    }

    /** Close the sockets and free the counters; the rings stay mapped (their owner unmaps them). */
    public void onClose()
    {
        if (null != header)
        {
            header.sourceState(RingSetHeader.SOURCE_STOPPED);
        }
        CloseHelper.quietCloseAll(channelA, channelB, requestChannel);
        CloseHelper.quietCloseAll(normalizerCounters, arbitrationCounters, counters);
    }

    /** SO_RCVBUF of line A as granted by the kernel. */
    public int grantedReceiveBufferBytes()
    {
        return grantedReceiveBufferBytes;
    }

    /** Packet, sequencing and socket counters. */
    public FeedHandlerCounters counters()
    {
        return counters;
    }

    /** Per-line arbitration and gap recovery counters. */
    public ArbitrationCounters arbitrationCounters()
    {
        return arbitrationCounters;
    }

    /** Decode and ring-write counters. */
    public NormalizerCounters normalizerCounters()
    {
        return normalizerCounters;
    }

    /** The socket-free arbiter, for driving the agent without a network. */
    public LineArbiter arbiter()
    {
        return arbiter;
    }

    /** The configuration. */
    public FeedHandlerConfig config()
    {
        return config;
    }
}
