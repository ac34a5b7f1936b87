package io.mdfanout.bench;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.mdfanout.fanout.FanoutConfig;
import io.mdfanout.fanout.PartitionCounters;
import io.mdfanout.fanout.PartitionPublisher;
import io.mdfanout.fanout.derived.DerivedCounters;
import io.mdfanout.fanout.derived.DerivedPublisher;
import io.mdfanout.fanout.derived.PartitionDerivation;
import io.mdfanout.fanout.state.PartitionState;
import io.mdfanout.fanout.state.PartitionStateCounters;
import io.mdfanout.feed.handler.InMemoryCounters;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.PacketHeaderDecoder;
import io.mdfanout.sbe.PacketHeaderEncoder;
import io.mdfanout.wire.FeedStream;
import io.mdfanout.wire.Partitioning;
import io.mdfanout.wire.PreciseEpochNanoClock;
import io.mdfanout.wire.WireFormat;
import org.agrona.BitUtil;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.IoUtil;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The fanout's publishing side for the derived-streams benchmarks, on the benchmark's thread with the real classes:
 * per partition a ring, a {@link PartitionState} (the fanout's state upkeep, as in production), a
 * {@link PartitionPublisher} and, when derived streams are asked for, a {@link PartitionDerivation} with a
 * {@link DerivedPublisher} per stream, as {@code Fanout} wires them (no snapshot publishers: their cost is per
 * snapshot interval, not per message). Every stream of every partition is an IPC publication of an embedded media
 * driver with the fanout's default term length, not sparse, read by an IPC subscription of this class.
 * <p>
 * A pass is the bench session ({@link GeneratedSession}, closed out so that it leaves no orders:
 * {@link FanoutStateBenchmark#closedSession}) in {@link #SLICES} slices, each written into the rings
 * ({@link #fillRings}, as the feed handler would) and published ({@link #publishAll}); {@link #drainSubscribers} then
 * reads every stream to its end, counting what each carried. Each pass is a new trading day: its records' exchange
 * sequences and times are moved on by a session's sequences and by a day, so that the derivation's bar clock and the
 * partitions' chains move forward as on a real next day. Not thread safe.
 */
final class DerivedFanout implements AutoCloseable
{
    static final int PARTITIONS = FanoutStateBenchmark.PARTITIONS;
    /** The fanout's default term length: a slice of any stream of a partition fits in a window of it (checked). */
    static final int TERM_LENGTH = FanoutConfig.DEFAULT_TERM_LENGTH;
    private static final String CHANNEL = "aeron:ipc?term-length=" + TERM_LENGTH + "|sparse=false";
    private static final int STREAM_ID_BASE = 7100;
    private static final long DAY_NS = TimeUnit.DAYS.toNanos(1);
    /** Slices of a pass: each fills the rings once. */
    static final int SLICES = 8;
    private static final int STREAM_SEQUENCE_OFFSET =
        MessageHeaderEncoder.ENCODED_LENGTH + PacketHeaderEncoder.streamSequenceEncodingOffset();
    private static final int MESSAGE_COUNT_OFFSET =
        MessageHeaderEncoder.ENCODED_LENGTH + PacketHeaderEncoder.messageCountEncodingOffset();

    /** Every stream, MBO first: the index of a stream in the per-stream arrays is its ordinal. */
    static final FeedStream[] STREAMS = FeedStream.values();
    /** The derived streams, in {@link FeedStream} order. */
    static final FeedStream[] DERIVED = {FeedStream.BBO, FeedStream.DEPTH, FeedStream.TRADES, FeedStream.BARS};

    // The session, per partition: its records back to back, and where each starts, its length and template.
    private final UnsafeBuffer[] records = new UnsafeBuffer[PARTITIONS];
    private final int[][] recordOffset = new int[PARTITIONS][];
    private final int[][] recordLength = new int[PARTITIONS][];
    private final int[][] recordTemplateId = new int[PARTITIONS][];
    private final long[][] baseSequence = new long[PARTITIONS][];
    private final long[][] baseTimestamp = new long[PARTITIONS][];
    private final long sequencesPerDay;
    private final int messagesPerPass;

    private final FeedStream[] derived;
    private final Path stateDirectory;
    private final MediaDriver driver;
    private final Aeron aeron;
    private final RingBuffer[] rings = new RingBuffer[PARTITIONS];
    private final PartitionState[] states = new PartitionState[PARTITIONS];
    private final PartitionPublisher[] publishers = new PartitionPublisher[PARTITIONS];
    private final PartitionDerivation[] derivations = new PartitionDerivation[PARTITIONS];
    /** [partition][stream ordinal]: null for a stream not published. */
    private final ExclusivePublication[][] publications = new ExclusivePublication[PARTITIONS][STREAMS.length];
    private final Subscription[][] subscriptions = new Subscription[PARTITIONS][STREAMS.length];
    private final long[][] window = new long[PARTITIONS][STREAMS.length];
    private final StreamReader[][] readers = new StreamReader[PARTITIONS][STREAMS.length];
    private final Recording recording;
    private int passes;
    private int slice;
    private int lastSliceMessages;

    /**
     * @param derived   the derived streams to publish besides MBO (none: the MBO-only fanout).
     * @param recording where to copy every packet the subscriptions read, or null.
     */
    DerivedFanout(final FeedStream[] derived, final Recording recording)
    {
        this.derived = derived.clone();
        this.recording = recording;
        final List<FanoutStateBenchmark.Record> session;
        try
        {
            session = FanoutStateBenchmark.closedSession();
            stateDirectory = newDirectory("mdfanout-bench-derived-state-");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        messagesPerPass = session.size();
        long lastSequence = 0;
        final int[] count = new int[PARTITIONS];
        final int[] bytes = new int[PARTITIONS];
        for (final FanoutStateBenchmark.Record record : session)
        {
            count[record.partition]++;
            bytes[record.partition] += record.length;
            lastSequence = Math.max(lastSequence, record.exchangeSequence);
        }
        sequencesPerDay = lastSequence;
        int largestRing = 0;
        for (int p = 0; p < PARTITIONS; p++)
        {
            records[p] = new UnsafeBuffer(new byte[bytes[p]]);
            recordOffset[p] = new int[count[p]];
            recordLength[p] = new int[count[p]];
            recordTemplateId[p] = new int[count[p]];
            baseSequence[p] = new long[count[p]];
            baseTimestamp[p] = new long[count[p]];
            // A ring could hold a whole pass (a slice needs an eighth): headers and alignment at most double the bytes.
            largestRing = Math.max(largestRing, BitUtil.findNextPositivePowerOfTwo(
                2 * (bytes[p] + count[p] * RecordDescriptor.HEADER_LENGTH)));
        }
        final int[] filled = new int[PARTITIONS];
        final int[] at = new int[PARTITIONS];
        for (final FanoutStateBenchmark.Record record : session)
        {
            final int p = record.partition;
            final int i = filled[p]++;
            records[p].putBytes(at[p], record.bytes, 0, record.length);
            recordOffset[p][i] = at[p];
            recordLength[p][i] = record.length;
            recordTemplateId[p][i] = record.templateId;
            baseSequence[p][i] = record.exchangeSequence;
            baseTimestamp[p][i] = record.exchangeTimestamp;
            at[p] += record.length;
        }

        driver = MediaDriver.launchEmbedded(new MediaDriver.Context()
            .aeronDirectoryName(stateDirectory.resolve("aeron").toString())
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .threadingMode(ThreadingMode.SHARED)
            // IPC needs only the conductor (publication limits, log cleaning): it sleeps, off the measured core.
            .sharedIdleStrategy(new SleepingMillisIdleStrategy(1))
            .ipcTermBufferLength(TERM_LENGTH));
        aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()).preTouchMappedMemory(true));

        final CountersManager counters = new InMemoryCounters(1024).countersManager();
        final PreciseEpochNanoClock epochClock = new PreciseEpochNanoClock();
        for (int p = 0; p < PARTITIONS; p++)
        {
            rings[p] = BenchRings.newRing(largestRing);
            states[p] = PartitionState.open(stateDirectory, p, FanoutConfig.DEFAULT_MAX_ORDERS,
                new PartitionStateCounters(counters, p), (throwable) -> { throw new IllegalStateException(throwable); },
                true);
            addStream(p, FeedStream.MBO);
            publishers[p] = new PartitionPublisher(p, rings[p], publications[p][0], new PartitionCounters(counters, p),
                FanoutConfig.DEFAULT_HEARTBEAT_INTERVAL_NS, FanoutConfig.DEFAULT_RING_READ_LIMIT, epochClock,
                SystemNanoClock.INSTANCE, DerivedFanout::fail, states[p], null);
            publishers[p].describeFeed(PARTITIONS);
            if (this.derived.length > 0)
            {
                final DerivedPublisher[] derivedPublishers = new DerivedPublisher[this.derived.length];
                for (int i = 0; i < this.derived.length; i++)
                {
                    final FeedStream stream = this.derived[i];
                    addStream(p, stream);
                    derivedPublishers[i] = new DerivedPublisher(p, stream, publications[p][stream.ordinal()],
                        new DerivedCounters(counters, p, stream), FanoutConfig.DEFAULT_HEARTBEAT_INTERVAL_NS,
                        epochClock, DerivedFanout::fail);
                }
                derivations[p] = new PartitionDerivation(p, derivedPublishers, DerivedFanout::fail,
                    Math.min(FanoutConfig.DEFAULT_MAX_ORDERS, PartitionDerivation.DEFAULT_ORDER_CAPACITY));
                publishers[p].derive(derivations[p]);
            }
        }
        awaitConnected();
        for (final PartitionPublisher publisher : publishers)
        {
            publisher.onStart();
        }
    }

    private void addStream(final int partition, final FeedStream stream)
    {
        final int streamId = Partitioning.streamId(stream.base(STREAM_ID_BASE), partition);
        final int s = stream.ordinal();
        publications[partition][s] = aeron.addExclusivePublication(CHANNEL, streamId);
        subscriptions[partition][s] = aeron.addSubscription(CHANNEL, streamId);
        readers[partition][s] = new StreamReader(partition, stream, recording);
    }

    private void awaitConnected()
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (int p = 0; p < PARTITIONS; p++)
        {
            for (int s = 0; s < STREAMS.length; s++)
            {
                final ExclusivePublication publication = publications[p][s];
                if (null == publication)
                {
                    continue;
                }
                while (!publication.isConnected() || 0 == subscriptions[p][s].imageCount() ||
                    publication.positionLimit() <= publication.position())
                {
                    if (System.nanoTime() > deadline)
                    {
                        throw new IllegalStateException("stream " + STREAMS[s].streamName() + " of partition " + p +
                            " did not connect over IPC");
                    }
                    Thread.onSpinWait();
                }
                window[p][s] = publication.positionLimit() - publication.position();
            }
        }
    }

    /** @return messages the rings receive per pass (the MBO messages the fanout publishes). */
    int messagesPerPass()
    {
        return messagesPerPass;
    }

    /** @return messages of the slice last filled. */
    int messagesOfLastSlice()
    {
        return lastSliceMessages;
    }

    /** @return the derived streams published. */
    FeedStream[] derived()
    {
        return derived.clone();
    }

    /**
     * Write the next slice of the session into the rings: set-up, not measured. A pass is {@link #SLICES} slices, each
     * partition's records cut into that many runs (the partitions are independent: each has its own publisher and
     * derivation), so that what a slice puts on any stream fits in its publication's window until the subscriptions
     * read it (MBP-10 carries several times MBO's bytes).
     */
    void fillRings()
    {
        final long sequenceShift = passes * sequencesPerDay;
        final long timeShift = passes * DAY_NS;
        lastSliceMessages = 0;
        for (int p = 0; p < PARTITIONS; p++)
        {
            final RingBuffer ring = rings[p];
            if (ring.producerPosition() != ring.consumerPosition())
            {
                throw new IllegalStateException("partition " + p + ": the last slice left " +
                    (ring.producerPosition() - ring.consumerPosition()) + " bytes in the ring (back pressure?)");
            }
            final UnsafeBuffer buffer = records[p];
            final int count = recordOffset[p].length;
            lastSliceMessages += (int)((long)count * (slice + 1) / SLICES) - (int)((long)count * slice / SLICES);
            for (int i = (int)((long)count * slice / SLICES), n = (int)((long)count * (slice + 1) / SLICES); i < n; i++)
            {
                final int offset = recordOffset[p][i] + WireFormat.HEADER_LENGTH;
                buffer.putLong(offset + WireFormat.EXCHANGE_SEQUENCE_OFFSET, baseSequence[p][i] + sequenceShift,
                    WireFormat.BYTE_ORDER);
                buffer.putLong(offset + WireFormat.EXCHANGE_TIMESTAMP_OFFSET, baseTimestamp[p][i] + timeShift,
                    WireFormat.BYTE_ORDER);
                if (!ring.write(recordTemplateId[p][i], buffer, recordOffset[p][i], recordLength[p][i]))
                {
                    throw new IllegalStateException("partition " + p + ": ring full at record " + i);
                }
            }
        }
        if (++slice == SLICES)
        {
            slice = 0;
            passes++;
        }
    }

    /** Write a whole pass into the rings, publish it and read every stream to its end: set-up, not measured. */
    void runPass()
    {
        for (int i = 0; i < SLICES; i++)
        {
            fillRings();
            publishAll();
            drainSubscribers();
        }
    }

    /**
     * The measured work: every partition's publisher runs its duty cycle, in turn, until none has anything left to
     * do (the rings empty, every packet and derived packet offered).
     *
     * @return work done, so that nothing is dead code.
     */
    long publishAll()
    {
        final PartitionPublisher[] publishers = this.publishers;
        final RingBuffer[] rings = this.rings;
        long total = 0;
        long lastRingPositions = -1;
        int roundsWithoutRecords = 0;
        int work;
        do
        {
            work = 0;
            long ringPositions = 0;
            for (int p = 0; p < publishers.length; p++)
            {
                work += publishers[p].doWork();
                ringPositions += rings[p].consumerPosition();
            }
            total += work;
            // Work without a record read: derived packets held under back pressure, which only the (idle) subscriptions
            // could relieve. A slice must fit in the windows; say so rather than spin.
            roundsWithoutRecords = ringPositions == lastRingPositions ? roundsWithoutRecords + 1 : 0;
            if (roundsWithoutRecords > 1_000_000)
            {
                throw new IllegalStateException("the publishers are stuck under back pressure: a slice of the session " +
                    "does not fit in a publication's window");
            }
            lastRingPositions = ringPositions;
        }
        while (work > 0);
        return total;
    }

    /**
     * Read every stream to its end (set-up, not measured), then wait until each publication's window is whole again,
     * so that the next pass meets no back pressure.
     */
    void drainSubscribers()
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (int p = 0; p < PARTITIONS; p++)
        {
            for (int s = 0; s < STREAMS.length; s++)
            {
                final ExclusivePublication publication = publications[p][s];
                if (null == publication)
                {
                    continue;
                }
                final Subscription subscription = subscriptions[p][s];
                final FragmentHandler reader = readers[p][s];
                // The driver moves a publication's limit in steps of an eighth of the window: wait for three quarters.
                while (subscription.imageAtIndex(0).position() < publication.position() ||
                    publication.positionLimit() - publication.position() < window[p][s] / 4 * 3)
                {
                    if (0 == subscription.poll(reader, 1024))
                    {
                        if (System.nanoTime() > deadline)
                        {
                            throw new IllegalStateException("stream " + STREAMS[s].streamName() + " of partition " + p +
                                " was not read to its end: read to " + subscription.imageAtIndex(0).position() +
                                ", published to " + publication.position() + ", limit " + publication.positionLimit() +
                                ", window " + window[p][s]);
                        }
                        Thread.onSpinWait();
                    }
                }
            }
        }
    }

    /**
     * Fail unless everything so far went out whole: no MBO packet waiting, no derived packet dropped or waiting,
     * nothing dropped for want of a subscriber, no bad record, the states applied cleanly.
     */
    void verify()
    {
        for (int p = 0; p < PARTITIONS; p++)
        {
            final PartitionCounters counters = publishers[p].counters();
            // Back-pressure events are not failures: ADMIN_ACTION (a term rotation) counts as one, and the packet goes
            // out on the next duty cycle; a slice that did not go out leaves records in its ring (see fillRings).
            if (publishers[p].isStopped() || publishers[p].hasPendingPacket() ||
                0 != counters.notConnectedDropped().get() || 0 != counters.invalidRecords().get())
            {
                throw new IllegalStateException("partition " + p + ": the MBO stream did not go out whole: pending " +
                    publishers[p].hasPendingPacket() + ", not connected " + counters.notConnectedDropped().get() +
                    ", invalid " + counters.invalidRecords().get());
            }
            final PartitionStateCounters state = states[p].counters();
            if (0 != state.unknownOrderUpdates().get() || 0 != state.rejectedUpdates().get() ||
                0 != state.ordersRejectedPoolFull().get())
            {
                throw new IllegalStateException("partition " + p + ": the state did not apply cleanly");
            }
            if (null == derivations[p])
            {
                continue;
            }
            for (final DerivedPublisher publisher : derivations[p].publishers())
            {
                final DerivedCounters derivedCounters = publisher.counters();
                if (publisher.isStopped() || 0 != publisher.backlogBytes() ||
                    0 != derivedCounters.backPressureDropped().get() || 0 != derivedCounters.notConnectedDropped().get())
                {
                    throw new IllegalStateException("partition " + p + ": " + publisher.stream().streamName() +
                        " did not go out whole: backlog " + publisher.backlogBytes() + " bytes, dropped " +
                        derivedCounters.backPressureDropped().get() + " (back pressure), " +
                        derivedCounters.notConnectedDropped().get() + " (not connected)");
                }
            }
        }
    }

    /** @return per stream (ordinal), what the subscriptions read so far, over every partition. */
    StreamTotals[] totals()
    {
        final StreamTotals[] totals = new StreamTotals[STREAMS.length];
        for (int s = 0; s < STREAMS.length; s++)
        {
            totals[s] = new StreamTotals(STREAMS[s]);
            for (int p = 0; p < PARTITIONS; p++)
            {
                final StreamReader reader = readers[p][s];
                if (null != reader)
                {
                    totals[s].published = true;
                    totals[s].packets += reader.packets;
                    totals[s].messages += reader.messages;
                    totals[s].packetBytes += reader.packetBytes;
                    totals[s].heartbeats += reader.heartbeats;
                    totals[s].logBytes += publications[p][s].position();
                    if (null != derivations[p] && s > 0)
                    {
                        for (final DerivedPublisher publisher : derivations[p].publishers())
                        {
                            if (publisher.stream() == STREAMS[s])
                            {
                                totals[s].counterBytes += publisher.counters().bytes().get();
                                totals[s].counterMessages += publisher.counters().messages().get();
                            }
                        }
                    }
                }
            }
        }
        return totals;
    }

    /** {@inheritDoc} */
    public void close()
    {
        for (final PartitionState state : states)
        {
            CloseHelper.quietClose(state);
        }
        CloseHelper.quietClose(aeron);
        CloseHelper.quietClose(driver);
        IoUtil.delete(stateDirectory.toFile(), true);
    }

    private static void fail(final Throwable throwable)
    {
        throw new IllegalStateException(throwable);
    }

    private static Path newDirectory(final String prefix) throws IOException
    {
        final Path shm = Paths.get("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm) ?
            Files.createTempDirectory(shm, prefix) : Files.createTempDirectory(prefix);
    }

    /**
     * Parse a benchmark's stream parameter: {@code mbo} (none derived), {@code all}, or one derived stream's name.
     *
     * @param name the parameter.
     * @return the derived streams it names.
     */
    static FeedStream[] derivedStreams(final String name)
    {
        switch (name.toLowerCase(Locale.ROOT))
        {
            case "mbo":
                return new FeedStream[0];
            case "all":
                return DERIVED.clone();
            default:
                final FeedStream stream = FeedStream.fromName(name);
                if (!stream.isDerived())
                {
                    throw new IllegalArgumentException(name);
                }
                return new FeedStream[] {stream};
        }
    }

    /** What one stream carried, over every partition. */
    static final class StreamTotals
    {
        final FeedStream stream;
        boolean published;
        long packets;
        long messages;
        /** Bytes of the packets as offered (the subscriber's payload): SBE headers, packet headers, messages. */
        long packetBytes;
        long heartbeats;
        /** Bytes of the Aeron log: the packets and heartbeats with Aeron's frame headers and alignment. */
        long logBytes;
        /** The fanout's own counters (derived streams only): bytes published, messages sequenced. */
        long counterBytes;
        long counterMessages;

        StreamTotals(final FeedStream stream)
        {
            this.stream = stream;
        }
    }

    /** Reads one stream of one partition: counts each packet and heartbeat and copies packets to the recording. */
    private static final class StreamReader implements FragmentHandler
    {
        private final int partition;
        private final FeedStream stream;
        private final Recording recording;
        long packets;
        long messages;
        long packetBytes;
        long heartbeats;

        StreamReader(final int partition, final FeedStream stream, final Recording recording)
        {
            this.partition = partition;
            this.stream = stream;
            this.recording = recording;
        }

        public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
        {
            final int templateId = buffer.getShort(offset + 2, WireFormat.BYTE_ORDER) & 0xFFFF;
            if (PacketHeaderDecoder.TEMPLATE_ID != templateId)
            {
                heartbeats++;
                return;
            }
            packets++;
            messages += buffer.getShort(offset + MESSAGE_COUNT_OFFSET, WireFormat.BYTE_ORDER) & 0xFFFF;
            packetBytes += length;
            if (null != recording)
            {
                recording.add(stream, partition, buffer, offset, length);
            }
        }
    }

    /** Every packet the subscriptions read, per stream, in the order they were read (set-up only: allocates). */
    static final class Recording
    {
        final ExpandableArrayBuffer[] buffers = new ExpandableArrayBuffer[STREAMS.length];
        final int[] bytes = new int[STREAMS.length];
        final List<List<int[]>> packets = new ArrayList<>();

        Recording()
        {
            for (int s = 0; s < STREAMS.length; s++)
            {
                buffers[s] = new ExpandableArrayBuffer(1 << 20);
                packets.add(new ArrayList<>());
            }
        }

        void add(final FeedStream stream, final int partition, final DirectBuffer buffer, final int offset, final int length)
        {
            final int s = stream.ordinal();
            buffers[s].putBytes(bytes[s], buffer, offset, length);
            packets.get(s).add(new int[] {partition, bytes[s], length});
            bytes[s] += length;
        }

        /**
         * One stream's packets as a replayable pass.
         *
         * @param stream the stream.
         * @return its packets.
         */
        RecordedStream stream(final FeedStream stream)
        {
            final int s = stream.ordinal();
            // The partitions' packets interleaved round-robin, as a subscriber of every partition receives them.
            final List<List<int[]>> byPartition = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++)
            {
                byPartition.add(new ArrayList<>());
            }
            for (final int[] packet : packets.get(s))
            {
                byPartition.get(packet[0]).add(packet);
            }
            final List<int[]> list = new ArrayList<>();
            for (int round = 0; list.size() < packets.get(s).size(); round++)
            {
                for (int p = 0; p < PARTITIONS; p++)
                {
                    if (round < byPartition.get(p).size())
                    {
                        list.add(byPartition.get(p).get(round));
                    }
                }
            }
            final RecordedStream recorded = new RecordedStream(stream, list.size());
            recorded.packets = new UnsafeBuffer(new byte[Math.max(1, bytes[s])]);
            recorded.packets.putBytes(0, buffers[s], 0, bytes[s]);
            for (int i = 0; i < list.size(); i++)
            {
                final int[] packet = list.get(i);
                recorded.partition[i] = packet[0];
                recorded.offset[i] = packet[1];
                recorded.length[i] = packet[2];
                recorded.firstSequence[i] = recorded.packets.getLong(packet[1] + STREAM_SEQUENCE_OFFSET,
                    WireFormat.BYTE_ORDER);
                final int messages = recorded.packets.getShort(packet[1] + MESSAGE_COUNT_OFFSET, WireFormat.BYTE_ORDER) &
                    0xFFFF;
                recorded.messagesPerPartition[packet[0]] += messages;
                recorded.messages += messages;
                recorded.bytes += packet[2];
            }
            return recorded;
        }
    }

    /** One stream's packets of one pass, each with its partition and first stream sequence. */
    static final class RecordedStream
    {
        final FeedStream stream;
        UnsafeBuffer packets;
        final int[] partition;
        final int[] offset;
        final int[] length;
        final long[] firstSequence;
        final long[] messagesPerPartition = new long[PARTITIONS];
        long messages;
        long bytes;

        RecordedStream(final FeedStream stream, final int count)
        {
            this.stream = stream;
            partition = new int[count];
            offset = new int[count];
            length = new int[count];
            firstSequence = new long[count];
        }

        int count()
        {
            return offset.length;
        }

        /** Write the stream's packets of the pass, to be read back by {@link #readFrom}. */
        void writeTo(final DataOutputStream out) throws IOException
        {
            out.writeUTF(stream.streamName());
            out.writeInt(count());
            out.writeInt(packets.capacity());
            final byte[] bytes = new byte[packets.capacity()];
            packets.getBytes(0, bytes);
            out.write(bytes);
            for (int i = 0; i < count(); i++)
            {
                out.writeInt(partition[i]);
                out.writeInt(offset[i]);
                out.writeInt(length[i]);
                out.writeLong(firstSequence[i]);
            }
            for (final long m : messagesPerPartition)
            {
                out.writeLong(m);
            }
            out.writeLong(messages);
            out.writeLong(this.bytes);
        }

        /** Read a stream's packets as {@link #writeTo} wrote them. */
        static RecordedStream readFrom(final DataInputStream in) throws IOException
        {
            final FeedStream stream = FeedStream.fromName(in.readUTF());
            final RecordedStream recorded = new RecordedStream(stream, in.readInt());
            final byte[] bytes = new byte[in.readInt()];
            in.readFully(bytes);
            recorded.packets = new UnsafeBuffer(bytes);
            for (int i = 0; i < recorded.count(); i++)
            {
                recorded.partition[i] = in.readInt();
                recorded.offset[i] = in.readInt();
                recorded.length[i] = in.readInt();
                recorded.firstSequence[i] = in.readLong();
            }
            for (int p = 0; p < PARTITIONS; p++)
            {
                recorded.messagesPerPartition[p] = in.readLong();
            }
            recorded.messages = in.readLong();
            recorded.bytes = in.readLong();
            return recorded;
        }

        /** Move every packet's stream sequence on by {@code passes} passes: a gap-free continuation of the streams. */
        void moveOn(final long passes)
        {
            for (int i = 0; i < offset.length; i++)
            {
                packets.putLong(offset[i] + STREAM_SEQUENCE_OFFSET,
                    firstSequence[i] + passes * messagesPerPartition[partition[i]], WireFormat.BYTE_ORDER);
            }
        }
    }
}
