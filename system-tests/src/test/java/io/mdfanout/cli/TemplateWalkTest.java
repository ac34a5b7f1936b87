package io.mdfanout.cli;

import io.mdfanout.fanout.derived.DerivedCounters;
import io.mdfanout.fanout.derived.DerivedPublisher;
import io.mdfanout.fanout.derived.PartitionDerivation;
import io.mdfanout.sbe.BestBidOfferDecoder;
import io.mdfanout.sbe.TradePrintDecoder;
import io.mdfanout.wire.FeedStream;
import io.aeron.Aeron;
import io.aeron.CommonContext;
import io.aeron.ExclusivePublication;
import io.aeron.FragmentAssembler;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.FragmentHandler;
import io.mdfanout.fanout.PartitionCounters;
import io.mdfanout.fanout.PartitionPublisher;
import io.mdfanout.fanout.snapshot.SnapshotCounters;
import io.mdfanout.fanout.snapshot.SnapshotPublisher;
import io.mdfanout.fanout.state.PartitionState;
import io.mdfanout.fanout.state.PartitionStateCounters;
import io.mdfanout.feed.itch.ItchMessageType;
import io.mdfanout.feed.normalize.ItchNormalizer;
import io.mdfanout.feed.normalize.NormalizerCounters;
import io.mdfanout.feed.sim.ItchEncoder;
import io.mdfanout.feed.sim.ItchEvent;
import io.mdfanout.feed.sim.ReferenceBook;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.PacketHeaderDecoder;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.TradingState;
import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.LocalCounters;
import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.PacketStreamDecoder;
import io.mdfanout.sdk.SubscriberCounters;
import io.mdfanout.sdk.book.OrderBooks;
import io.mdfanout.tools.TailPrinters;
import io.mdfanout.wire.PartitionRings;
import io.mdfanout.wire.Partitioning;
import io.mdfanout.wire.PreciseEpochNanoClock;
import io.mdfanout.wire.WireFormat;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.YieldingIdleStrategy;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Walks every template of the wire schema through every layer it passes: the exchange (ITCH, built by the
 * simulator's {@link ItchEncoder}), the feed handler's {@link ItchNormalizer} into a partition ring
 * ({@link PartitionRings}), the fanout ({@link PartitionPublisher}: its packets and its {@link PartitionState},
 * which keeps the state messages for snapshots and passes the events through), the snapshot stream
 * ({@link SnapshotPublisher}), the SDK ({@link FeedSubscriber}, its typed {@link MarketDataListener} callbacks and
 * its {@link OrderBooks}) and the {@code tail} tool's line format.
 * <p>
 * The templates come from the schema itself (mdfanout-schema.xml on the class path), never from a list in this
 * test, so a template added to the schema and not handled by some layer fails here, naming the template and the
 * layer. What a layer must do with a template follows rules, not names: a normalized template (its block starts
 * with the schema's common prefix, and {@link WireFormat} must agree) must reach the ring, a packet, the state, a
 * typed SDK callback carrying the values it was given, and a tail line; a state template
 * ({@link WireFormat#isStateMessage}) must also be kept by the fanout and re-sent in a snapshot; a snapshot template
 * must be sent on the snapshot stream and reach the SDK's recovery; a transport template (no common prefix:
 * PacketHeader, Heartbeat) must be sent by the fanout and seen by the SDK.
 * <p>
 * Each template is walked from where it is born: the templates that come from the exchange from an ITCH message
 * (which template an ITCH type becomes is observed, not declared), GapNotice from the feed handler's gap report
 * ({@link ItchNormalizer#onGap}), PacketHeader and Heartbeat from the fanout's publisher, and the snapshot
 * templates from the fanout's snapshot publisher, reached by a second subscriber that joins late and recovers. A
 * derived template (schema version 5, ids 50 and up) is born in the fanout's derivation from its own packets, travels
 * on its derived stream, reaches a subscriber of that stream and tail, and, when it is state (all but TradePrint), a
 * late subscriber of the stream through its snapshot.
 * <p>
 * In process: an embedded media driver on IPC, the fanout's agents driven on the test thread.
 */
final class TemplateWalkTest
{
    private static final String CHANNEL = "aeron:ipc";
    private static final int STREAM_ID_BASE = 7300;
    private static final int PARTITION = 0;
    private static final int STREAM_ID = Partitioning.streamId(STREAM_ID_BASE, PARTITION);
    private static final int SNAPSHOT_STREAM_ID = Partitioning.snapshotStreamId(
        Partitioning.defaultSnapshotStreamIdBase(STREAM_ID_BASE), PARTITION);
    private static final int LOCATE = 7;
    private static final int HEADER = MessageHeaderDecoder.ENCODED_LENGTH;
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(20);

    private static final String WIRE_FORMAT = "WireFormat";
    private static final String ORIGIN = "origin";
    private static final String RING = "normalizer -> ring";
    private static final String FANOUT_PACKET = "fanout packet";
    private static final String FANOUT_STATE = "fanout state";
    private static final String SNAPSHOT = "snapshot";
    private static final String SDK = "SDK";
    private static final String TAIL = "tail";

    /**
     * The templates no typed callback carries a decoder of, and the {@link MarketDataListener} callback that
     * shows the SDK handled one. Any other template must have a callback taking its decoder.
     */
    private static final Map<String, String> SDK_CALLBACK_WITHOUT_DECODER = Map.of(
        "PacketHeader", "onStreamJoined",
        "Heartbeat", "onHeartbeat",
        "SnapshotBegin", "onSnapshotBegin",
        "SnapshotEnd", "onRecovered");

    /** Where each layer handles templates: named when a template never reached it. */
    private static final Map<String, String> WHERE = Map.of(
        WIRE_FORMAT, "WireFormat's tables",
        RING, "ItchNormalizer: templateIdFor, blockLengthFor, encodeBody",
        FANOUT_PACKET, "PartitionPublisher, which publishes what WireFormat.isPublishableRecord accepts",
        FANOUT_STATE, "PartitionState.apply: a state message (WireFormat.isStateMessage, StateLayout) or an event",
        SNAPSHOT, "SnapshotPublisher and PartitionState's state slots",
        SDK, "the SDK's dispatch to MarketDataListener",
        TAIL, "TailCommand.Printer");

    @TempDir
    static Path directory;

    private static final List<Template> TEMPLATES = new ArrayList<>();
    private static final Map<Integer, Walk> WALKS = new TreeMap<>();
    private static final List<RingRecord> RING_RECORDS = new ArrayList<>();
    private static final List<byte[]> INCREMENTAL_MESSAGES = new ArrayList<>();
    private static final Map<Integer, List<byte[]>> CARRIED = new TreeMap<>();
    private static final Map<Integer, List<byte[]>> SNAPSHOT_CARRIED = new TreeMap<>();
    private static final Set<Character> ITCH_TYPES_WALKED = new HashSet<>();
    private static final Set<Character> ITCH_TYPES_NOT_PUBLISHED = new HashSet<>();
    private static final List<Throwable> ERRORS = new ArrayList<>();

    private static MediaDriver driver;
    private static Aeron aeron;
    private static PartitionRings.MappedRing mappedRing;
    private static PartitionState state;
    private static PartitionPublisher publisher;
    private static FeedSubscriber liveSubscriber;
    private static FeedSubscriber lateSubscriber;
    private static Subscription rawIncremental;
    private static Subscription rawSnapshot;
    private static ExclusivePublication publication;
    private static ExclusivePublication snapshotPublication;
    /** The derived streams: a subscriber of each from the start and one that joins late, each group into one Recorder. */
    private static final FeedStream[] DERIVED = {FeedStream.BBO, FeedStream.DEPTH, FeedStream.TRADES, FeedStream.BARS};
    private static final List<AutoCloseable> DERIVED_RESOURCES = new ArrayList<>();
    private static Recorder derivedLive;
    private static Recorder derivedLate;

    @BeforeAll
    static void walkEveryTemplate() throws Exception
    {
        TEMPLATES.addAll(schemaTemplates());
        for (final Template template : TEMPLATES)
        {
            WALKS.put(template.id, new Walk(template));
        }

        driver = MediaDriver.launchEmbedded(new MediaDriver.Context()
            .aeronDirectoryName(CommonContext.generateRandomDirName())
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new BackoffIdleStrategy())
            .ipcTermBufferLength(64 * 1024));
        aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
        final CountersManager counters = LocalCounters.create(1024);

        // Exchange -> feed handler -> ring.
        mappedRing = PartitionRings.create(directory.resolve("rings"), PARTITION, 1024 * 1024);
        final RingBuffer ring = mappedRing.ring();
        final ItchNormalizer normalizer = new ItchNormalizer(new RingBuffer[]{ ring },
            new PartitionRings.MappedRing[]{ mappedRing }, null, new YieldingIdleStrategy(),
            new NormalizerCounters(counters, "walk", 1));

        // The SDK joined from the start (and tail's printer), and the fanout's packets as sent.
        final Recorder live = new Recorder(null);
        liveSubscriber = new FeedSubscriber(new FeedSubscriber.Context()
            .aeron(aeron).channel(CHANNEL).streamIdBase(STREAM_ID_BASE).partitions(new int[]{ PARTITION })
            .listener(live.listener()).errorHandler(ERRORS::add));
        rawIncremental = aeron.addSubscription(CHANNEL, STREAM_ID);
        final FragmentHandler incrementalHandler = new FragmentAssembler(
            (buffer, offset, length, header) -> onFanoutMessage(buffer, offset, length, false));

        // The fanout: state, snapshots and the incremental stream of the partition.
        publication = aeron.addExclusivePublication(CHANNEL, STREAM_ID);
        snapshotPublication = aeron.addExclusivePublication(CHANNEL, SNAPSHOT_STREAM_ID);
        state = PartitionState.open(directory.resolve("state"), PARTITION, 1024,
            new PartitionStateCounters(counters, PARTITION), ERRORS::add);
        final SnapshotPublisher snapshots = new SnapshotPublisher(PARTITION, state, snapshotPublication,
            publication.sessionId(), new SnapshotCounters(counters, PARTITION), TimeUnit.MILLISECONDS.toNanos(5),
            64 * 1024, new PreciseEpochNanoClock(), ERRORS::add);
        publisher = new PartitionPublisher(PARTITION, ring, publication, new PartitionCounters(counters, PARTITION),
            TimeUnit.MILLISECONDS.toNanos(20), 1024, new PreciseEpochNanoClock(), SystemNanoClock.INSTANCE,
            ERRORS::add, state, snapshots);
        derivedLive = new Recorder(null);
        final List<FeedSubscriber> derivedSubscribers = new ArrayList<>();
        final List<Subscription> derivedRaw = new ArrayList<>();
        publisher.derive(derivation(counters, derivedSubscribers, derivedRaw));
        publisher.onStart();
        final FragmentHandler derivedHandler = new FragmentAssembler(
            (buffer, offset, length, header) -> onDerivedMessage(buffer, offset, length, CARRIED));

        final Runnable dutyCycle = () ->
        {
            publisher.doWork();
            liveSubscriber.poll(64);
            rawIncremental.poll(incrementalHandler, 64);
            for (final FeedSubscriber subscriber : derivedSubscribers)
            {
                subscriber.poll(64);
            }
            for (final Subscription raw : derivedRaw)
            {
                raw.poll(derivedHandler, 64);
            }
        };
        if (!await(dutyCycle, () -> publication.isConnected() && live.called("onStreamJoined")))
        {
            fail("the SDK did not join the fanout's stream");
        }

        final ReferenceBook exchangeBook = new ReferenceBook();
        final UnsafeBuffer itch = new UnsafeBuffer(new byte[ItchEncoder.MAX_MESSAGE_LENGTH]);
        long sequence = 0;
        for (final ItchEvent event : exchangeScript())
        {
            sequence++;
            ITCH_TYPES_WALKED.add(event.type);
            final int length = ItchEncoder.encode(event, itch, 0);
            exchangeBook.apply(event);
            final Map<Long, Long> before = stateOrders();
            normalizer.onMessage(itch, 0, length, sequence);
            normalizer.flush();
            final RingRecord record = peek(ring, sequence, event);
            if (null == record)
            {
                ITCH_TYPES_NOT_PUBLISHED.add(event.type);
                continue;
            }
            walkDownstream(record, "ITCH '" + event.type + "' -> ItchNormalizer.onMessage", dutyCycle, live, ring,
                before, exchangeBook);
        }

        // Born in the feed handler: exchange messages it could not recover.
        final Map<Long, Long> beforeGap = stateOrders();
        normalizer.onGap(sequence + 1, sequence + 5);
        final RingRecord gap = peek(ring, sequence + 1, null);
        if (null != gap)
        {
            gap.expected.put("lastMissingSequence", String.valueOf(sequence + 5));
            gap.expected.put("reason", "UNRECOVERED");
        }
        if (null != gap)
        {
            walkDownstream(gap, "ItchNormalizer.onGap (the feed handler lost exchange messages)", dutyCycle, live,
                ring, beforeGap, exchangeBook);
        }

        // Born in the fanout: the heartbeat of an idle stream.
        await(dutyCycle, () -> live.called("onHeartbeat"));

        // Snapshots: a subscriber that joins late recovers from the snapshot stream.
        final Recorder late = new Recorder(null);
        rawSnapshot = aeron.addSubscription(CHANNEL, SNAPSHOT_STREAM_ID);
        final FragmentHandler snapshotHandler = new FragmentAssembler(
            (buffer, offset, length, header) -> onFanoutMessage(buffer, offset, length, true));
        lateSubscriber = new FeedSubscriber(new FeedSubscriber.Context()
            .aeron(aeron).channel(CHANNEL).streamIdBase(STREAM_ID_BASE).partitions(new int[]{ PARTITION })
            .listener(late.listener()).errorHandler(ERRORS::add));
        final Runnable lateCycle = () ->
        {
            dutyCycle.run();
            lateSubscriber.poll(64);
            rawSnapshot.poll(snapshotHandler, 64);
        };
        await(lateCycle, () -> late.called("onRecovered"));

        // The derived streams' snapshots: a subscriber of each that joins late recovers from them.
        derivedLate = new Recorder(null);
        final List<FeedSubscriber> lateDerived = new ArrayList<>();
        final List<Subscription> derivedSnapshotRaw = new ArrayList<>();
        for (final FeedStream stream : DERIVED)
        {
            final FeedSubscriber subscriber = new FeedSubscriber(new FeedSubscriber.Context()
                .aeron(aeron).channel(CHANNEL).streamIdBase(STREAM_ID_BASE).stream(stream)
                .partitions(new int[]{ PARTITION }).listener(derivedLate.listener()).errorHandler(ERRORS::add));
            lateDerived.add(subscriber);
            DERIVED_RESOURCES.add(subscriber);
            final Subscription raw = aeron.addSubscription(CHANNEL, Partitioning.snapshotStreamId(
                stream.base(Partitioning.defaultSnapshotStreamIdBase(STREAM_ID_BASE)), PARTITION));
            derivedSnapshotRaw.add(raw);
            DERIVED_RESOURCES.add(raw);
        }
        final FragmentHandler derivedSnapshotHandler = new FragmentAssembler(
            (buffer, offset, length, header) -> onDerivedMessage(buffer, offset, length, SNAPSHOT_CARRIED));
        await(() ->
        {
            lateCycle.run();
            for (final FeedSubscriber subscriber : lateDerived)
            {
                subscriber.poll(64);
            }
            for (final Subscription raw : derivedSnapshotRaw)
            {
                raw.poll(derivedSnapshotHandler, 64);
            }
        }, () -> derivedLate.count("onRecovered") >= DERIVED.length);

        checkWalks(live, late, exchangeBook);
    }

    /**
     * The partition's derived streams on the test's publisher: a publication and a snapshot publication of each, with
     * a subscriber of each from the start (into {@link #derivedLive}) and a raw subscription of its packets.
     */
    private static PartitionDerivation derivation(
        final CountersManager counters, final List<FeedSubscriber> subscribers, final List<Subscription> raw)
    {
        final DerivedPublisher[] publishers = new DerivedPublisher[DERIVED.length];
        final ExclusivePublication[] snapshotPublications = new ExclusivePublication[DERIVED.length];
        for (int i = 0; i < DERIVED.length; i++)
        {
            final FeedStream stream = DERIVED[i];
            final ExclusivePublication derived = aeron.addExclusivePublication(
                CHANNEL, Partitioning.streamId(stream.base(STREAM_ID_BASE), PARTITION));
            snapshotPublications[i] = aeron.addExclusivePublication(CHANNEL, Partitioning.snapshotStreamId(
                stream.base(Partitioning.defaultSnapshotStreamIdBase(STREAM_ID_BASE)), PARTITION));
            DERIVED_RESOURCES.add(derived);
            DERIVED_RESOURCES.add(snapshotPublications[i]);
            publishers[i] = new DerivedPublisher(PARTITION, stream, derived,
                new DerivedCounters(counters, PARTITION, stream), TimeUnit.MILLISECONDS.toNanos(20),
                new PreciseEpochNanoClock(), ERRORS::add);
            final FeedSubscriber subscriber = new FeedSubscriber(new FeedSubscriber.Context()
                .aeron(aeron).channel(CHANNEL).streamIdBase(STREAM_ID_BASE).stream(stream)
                .partitions(new int[]{ PARTITION }).listener(derivedLive.listener()).errorHandler(ERRORS::add));
            subscribers.add(subscriber);
            DERIVED_RESOURCES.add(subscriber);
            final Subscription rawSubscription = aeron.addSubscription(
                CHANNEL, Partitioning.streamId(stream.base(STREAM_ID_BASE), PARTITION));
            raw.add(rawSubscription);
            DERIVED_RESOURCES.add(rawSubscription);
        }
        final PartitionDerivation derivation = new PartitionDerivation(PARTITION, publishers, ERRORS::add);
        derivation.publishSnapshots(state, (derived, source) ->
        {
            final int i = java.util.Arrays.asList(DERIVED).indexOf(derived.stream());
            return new SnapshotPublisher(PARTITION, source, snapshotPublications[i], derived.publication().sessionId(),
                new SnapshotCounters(counters, PARTITION, derived.stream()), TimeUnit.MILLISECONDS.toNanos(5),
                64 * 1024, new PreciseEpochNanoClock(), ERRORS::add);
        });
        return derivation;
    }

    /** A derived stream's Aeron message: the derived messages in its packets, by template. */
    private static void onDerivedMessage(
        final DirectBuffer buffer, final int offset, final int length, final Map<Integer, List<byte[]>> carried)
    {
        if (PacketHeaderDecoder.TEMPLATE_ID != (buffer.getShort(offset + 2, WireFormat.BYTE_ORDER) & 0xFFFF))
        {
            return; // a heartbeat: the MBO stream's walk covers it
        }
        final int blockLength = buffer.getShort(offset, WireFormat.BYTE_ORDER) & 0xFFFF;
        final PacketHeaderDecoder packet = new PacketHeaderDecoder().wrap(buffer, offset + HEADER, blockLength, 0);
        int position = offset + HEADER + blockLength;
        for (int i = 0; i < packet.messageCount() && position < offset + length; i++)
        {
            final int messageLength = HEADER + (buffer.getShort(position, WireFormat.BYTE_ORDER) & 0xFFFF);
            final int templateId = buffer.getShort(position + 2, WireFormat.BYTE_ORDER) & 0xFFFF;
            if (WireFormat.isDerivedMessage(templateId))
            {
                carried.computeIfAbsent(templateId, (k) -> new ArrayList<>()).add(copy(buffer, position, messageLength));
            }
            position += messageLength;
        }
    }

    /**
     * A derived template: derived by the fanout from its own packets, sent on its derived stream, given to a subscriber
     * of that stream by its typed callback and printed by tail, and (state: all but TradePrint) re-sent in the stream's
     * snapshot and given to a late subscriber with isSnapshot.
     */
    private static void checkDerived(final Walk walk)
    {
        final int id = walk.template.id;
        final String name = walk.template.name;
        if (CARRIED.containsKey(id))
        {
            walk.origin = "PartitionDerivation (the fanout derives it from its own packets: the SDK's Derivation)";
            walk.handled(ORIGIN, walk.origin);
            walk.handled(FANOUT_PACKET, CARRIED.get(id).size() + " sent on its derived stream");
        }
        final String callback = decoderCallback(name);
        if (null == callback)
        {
            walk.problem(SDK, "MarketDataListener has no callback taking " + name + "Decoder");
        }
        else if (derivedLive.calls.stream().anyMatch((call) -> name.equals(call.decoder) && !call.snapshot))
        {
            walk.handled(SDK, callback + " on a subscriber of its stream (FeedSubscriber.Context.stream)");
        }
        final String marker = " " + name + " p=";
        derivedLive.tailLines().stream().filter((line) -> line.contains(marker)).findFirst().ifPresentOrElse(
            (line) -> walk.handled(TAIL, line.substring(line.indexOf(' ') + 1)),
            () -> walk.problem(TAIL, "no line with \"" + marker + "\": add its callback to TailCommand.Printer"));
        if (walk.requiredLayers().contains(SNAPSHOT) && SNAPSHOT_CARRIED.containsKey(id) &&
            derivedLate.calls.stream().anyMatch((call) -> name.equals(call.decoder) && call.snapshot))
        {
            walk.handled(SNAPSHOT, SNAPSHOT_CARRIED.get(id).size() + " re-sent on its stream's snapshot, delivered " +
                "by the SDK's recovery (isSnapshot)");
        }
    }

    @AfterAll
    static void close()
    {
        for (final AutoCloseable resource : DERIVED_RESOURCES)
        {
            CloseHelper.quietClose(resource);
        }
        CloseHelper.closeAll(lateSubscriber, liveSubscriber, rawSnapshot, rawIncremental, publication,
            snapshotPublication, state, mappedRing, aeron, driver);
    }

    /**
     * One test per template of the schema: every layer it must pass handled it.
     */
    @TestFactory
    Stream<DynamicTest> everyTemplateOfTheSchemaPassesEveryLayer()
    {
        return WALKS.values().stream().map((walk) -> DynamicTest.dynamicTest(walk.label(), () ->
        {
            System.out.println(walk.report());
            assertTrue(walk.problems.isEmpty(), walk.label() + " is not handled everywhere:\n  " +
                String.join("\n  ", walk.problems) + "\nwalked so far:\n" + walk.report() +
                "\n(docs/WIRE.md, \"Adding a template\", lists what to change)");
        }));
    }

    @Test
    void walkCoversEveryItchTypeAndRanCleanly()
    {
        final Set<Character> all = new HashSet<>();
        for (final byte type : ItchMessageType.ALL_TYPES)
        {
            all.add((char)type);
        }
        all.removeAll(ITCH_TYPES_WALKED);
        assertEquals(Set.of(), all,
            "ITCH types the walk's exchange script does not send: add them to exchangeScript()");
        System.out.println("ITCH types decoded but not in the normalized schema: " + ITCH_TYPES_NOT_PUBLISHED);
        assertEquals(List.of(), ERRORS);
    }

    /**
     * The walk's SDK check can fail: the fanout's packets of this walk replayed through the SDK's
     * {@link PacketStreamDecoder} into a listener that ignores one template are reported, naming that template.
     */
    @Test
    void sdkCheckReportsAListenerThatIgnoresATemplate()
    {
        final RingRecord ignored = RING_RECORDS.stream()
            .filter((record) -> null != decoderCallback(record.template.name))
            .reduce((first, second) -> second)
            .orElseThrow();
        final String callback = decoderCallback(ignored.template.name);

        final Recorder complete = replay(null);
        final Recorder deaf = replay(callback);

        final List<String> completeFindings = new ArrayList<>();
        final List<String> deafFindings = new ArrayList<>();
        for (final RingRecord record : RING_RECORDS)
        {
            sdkFinding(record, complete).ifPresent(completeFindings::add);
            sdkFinding(record, deaf).ifPresent(deafFindings::add);
        }
        assertEquals(List.of(), completeFindings);
        assertEquals(1, deafFindings.size(), deafFindings.toString());
        assertTrue(deafFindings.get(0).startsWith(ignored.template.label()), deafFindings.get(0));
    }

    /**
     * The completeness check can fail: a template the schema would gain and no layer handles is reported at
     * every layer it needs, starting with where it is born.
     */
    @Test
    void aTemplateNoLayerHandlesIsReportedAtEveryLayer()
    {
        final int unusedId = WALKS.keySet().stream().mapToInt(Integer::intValue).max().orElseThrow() + 1;
        final Walk walk = new Walk(new Template(unusedId, "NewTemplate",
            List.of("exchangeSequence", "exchangeTimestamp", "instrumentId", "newField")));
        checkWireFormat(walk);
        reportMissingLayers(walk);
        assertEquals(walk.requiredLayers().size(), walk.problems.size(), walk.problems.toString());
        assertTrue(walk.problems.get(0).startsWith(WIRE_FORMAT + ": no generated decoder"), walk.problems.get(0));
        assertTrue(walk.problems.get(1).startsWith(ORIGIN + ": born nowhere"), walk.problems.get(1));
    }

    private static Recorder replay(final String ignoredCallback)
    {
        final Recorder recorder = new Recorder(ignoredCallback);
        final PacketStreamDecoder decoder = new PacketStreamDecoder(new int[]{ PARTITION }, recorder.listener(),
            new SubscriberCounters(LocalCounters.create(SubscriberCounters.COUNTER_COUNT), "walk"), ERRORS::add);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[0]);
        for (final byte[] message : INCREMENTAL_MESSAGES)
        {
            buffer.wrap(message);
            decoder.onMessage(0, publication.sessionId(), buffer, 0, message.length);
        }
        return recorder;
    }

    // ---------------------------------------------------------------------------------------------------------
    // The walk of one normalized message from the ring on.
    // ---------------------------------------------------------------------------------------------------------

    private static void walkDownstream(
        final RingRecord record,
        final String origin,
        final Runnable dutyCycle,
        final Recorder live,
        final RingBuffer ring,
        final Map<Long, Long> stateBefore,
        final ReferenceBook exchangeBook)
    {
        final Walk walk = record.walk();
        if (null == walk.origin)
        {
            walk.origin = origin;
            walk.handled(ORIGIN, origin);
        }
        RING_RECORDS.add(record);
        checkRingRecord(walk, record);

        final int rawBefore = live.count("onRawMessage");
        if (!await(dutyCycle, () -> ring.producerPosition() == ring.consumerPosition() &&
            live.count("onRawMessage") > rawBefore))
        {
            walk.problem(SDK, "exchange sequence " + record.exchangeSequence +
                " was never delivered (not even onRawMessage): the fanout or the SDK dropped it");
        }
        checkState(walk, record, stateBefore, exchangeBook);
        final int exchangeOrders = exchangeOrders(exchangeBook).size();
        if (live.books.orderCount() != exchangeOrders)
        {
            walk.problem(SDK, "the SDK's OrderBooks holds " + live.books.orderCount() + " orders after it, the " +
                "exchange's book " + exchangeOrders + " (OrderBooks ignores or misapplies it)");
        }
    }

    private static void checkRingRecord(final Walk walk, final RingRecord record)
    {
        if (!WireFormat.isNormalizedMessage(record.template.id))
        {
            walk.problem(RING, "written into a ring but WireFormat.isNormalizedMessage is false for it");
            return;
        }
        final List<String> checked = new ArrayList<>();
        for (final Map.Entry<String, String> expected : record.expected.entrySet())
        {
            final String actual = record.fields.get(expected.getKey());
            if (null == actual)
            {
                continue;
            }
            if (!expected.getValue().equals(actual.trim()))
            {
                walk.problem(RING, expected.getKey() + " is " + actual + ", the exchange sent " + expected.getValue() +
                    " (" + record.text + ")");
            }
            checked.add(expected.getKey() + "=" + actual.trim());
        }
        if (!record.fields.containsKey("exchangeSequence") || !record.fields.containsKey("instrumentId"))
        {
            walk.problem(RING, "no common prefix (exchangeSequence, exchangeTimestamp, instrumentId): " + record.text);
        }
        walk.handled(RING, "decoded with the exchange's values: " + String.join(", ", checked));
    }

    private static void checkState(
        final Walk walk, final RingRecord record, final Map<Long, Long> before, final ReferenceBook exchangeBook)
    {
        final Map<Long, Long> after = stateOrders();
        final String kept = keptBy(record);
        if (WireFormat.isStateMessage(walk.template.id))
        {
            if (null == kept)
            {
                walk.problem(FANOUT_STATE, "WireFormat.isStateMessage says it is state, but PartitionState kept no " +
                    "copy of it: give it a slot (StateLayout) and a case in PartitionState.apply");
            }
            else
            {
                walk.handled(FANOUT_STATE, "kept for snapshots (" + kept + ")");
            }
        }
        else if (null != kept && io.mdfanout.sbe.GapNoticeDecoder.TEMPLATE_ID == walk.template.id &&
            kept.equals("market-wide kind " + PartitionState.UNRECOVERED_GAP))
        {
            // Not a state message (no snapshot stream carries it): what the state lacks travels in the SnapshotBegin.
            if (state.unrecoveredFromSequence() != record.exchangeSequence)
            {
                walk.problem(FANOUT_STATE, "kept as the unrecovered gap, but the state says it lacks from " +
                    state.unrecoveredFromSequence() + ", the notice from " + record.exchangeSequence);
            }
            walk.handled(FANOUT_STATE, "kept as the state's unrecovered gap (" + kept + "): every SnapshotBegin " +
                "carries " + state.unrecoveredFromSequence() + ".." + state.unrecoveredToSequence());
        }
        else if (null != kept)
        {
            walk.problem(FANOUT_STATE, "kept as state (" + kept + ") but WireFormat.isStateMessage is false");
        }
        else if (!before.equals(after))
        {
            walk.handled(FANOUT_STATE, "book updated: orders " + before + " -> " + after);
        }
        else
        {
            walk.handled(FANOUT_STATE, "passed through (an event: no state kept)");
        }
        final Map<Long, Long> exchange = exchangeOrders(exchangeBook);
        if (!after.equals(exchange))
        {
            walk.problem(FANOUT_STATE, "the fanout's book holds " + after + " but the exchange's holds " + exchange +
                " (PartitionState.apply ignores or misapplies it)");
        }
    }

    /** Where the fanout's state holds an exact copy of the record, or null. */
    private static String keptBy(final RingRecord record)
    {
        final UnsafeBuffer copy = new UnsafeBuffer(new byte[1024]);
        for (int kind = 0; kind < PartitionState.MARKET_KINDS; kind++)
        {
            final int length = state.marketMessageLength(kind);
            if (length == record.bytes.length)
            {
                state.copyMarketMessage(kind, copy, 0);
                if (equalBytes(copy, length, record.bytes))
                {
                    return "market-wide kind " + kind;
                }
            }
        }
        for (int kind = 0; kind < PartitionState.INSTRUMENT_KINDS; kind++)
        {
            final int length = state.instrumentMessageLength(LOCATE, kind);
            if (length == record.bytes.length)
            {
                state.copyInstrumentMessage(LOCATE, kind, copy, 0);
                if (equalBytes(copy, length, record.bytes))
                {
                    return "instrument kind " + kind;
                }
            }
        }
        return null;
    }

    // ---------------------------------------------------------------------------------------------------------
    // After the walk: packets, SDK, tail, snapshots, and every layer each template needed.
    // ---------------------------------------------------------------------------------------------------------

    private static void checkWalks(final Recorder live, final Recorder late, final ReferenceBook exchangeBook)
    {
        final Map<Long, Long> exchange = exchangeOrders(exchangeBook);
        for (final RingRecord record : RING_RECORDS)
        {
            final Walk walk = record.walk();
            if (CARRIED.getOrDefault(walk.template.id, List.of()).stream()
                .anyMatch((b) -> Arrays.equals(b, record.bytes)))
            {
                walk.handled(FANOUT_PACKET, "carried byte for byte in a packet of the incremental stream");
            }
            else
            {
                walk.problem(FANOUT_PACKET, "exchange sequence " + record.exchangeSequence + " is in no packet");
            }
            sdkFinding(record, live).ifPresentOrElse(
                (problem) -> walk.problem(SDK, problem),
                () -> walk.handled(SDK, decoderCallback(walk.template.name) + " with the ring's values"));
            checkTail(walk, record, live);
            if (WireFormat.isStateMessage(walk.template.id))
            {
                checkResentInSnapshot(walk, record, late);
            }
        }

        for (final Walk walk : WALKS.values())
        {
            final int id = walk.template.id;
            checkWireFormat(walk);
            if (Kind.DERIVED == walk.template.kind())
            {
                checkDerived(walk);
                continue;
            }
            if (Kind.NORMALIZED == walk.template.kind())
            {
                checkCallbacksDeclared(walk);
            }
            if (null == walk.origin && CARRIED.containsKey(id))
            {
                walk.origin = "PartitionPublisher (the fanout)";
                walk.handled(ORIGIN, walk.origin);
                walk.handled(FANOUT_PACKET, CARRIED.get(id).size() + " sent on the incremental stream");
            }
            if (null == walk.origin && SNAPSHOT_CARRIED.containsKey(id))
            {
                walk.origin = "SnapshotPublisher (the fanout, from PartitionState)";
                walk.handled(ORIGIN, walk.origin);
            }
            if (WireFormat.isSnapshotMessage(id))
            {
                if (SNAPSHOT_CARRIED.containsKey(id))
                {
                    walk.handled(SNAPSHOT, SNAPSHOT_CARRIED.get(id).size() + " sent on the snapshot stream");
                }
            }
            if (Kind.NORMALIZED != walk.template.kind())
            {
                final Recorder recorder = WireFormat.isSnapshotMessage(id) ? late : live;
                checkSdkWithoutRing(walk, recorder);
                if ("onRecovered".equals(SDK_CALLBACK_WITHOUT_DECODER.get(walk.template.name)))
                {
                    final String recovered = recorder.tailEvents.toString(StandardCharsets.UTF_8).lines()
                        .filter((line) -> line.startsWith("RECOVERED ")).findFirst().orElse(null);
                    if (null == recovered)
                    {
                        walk.problem(TAIL, "the recovery it ends printed no RECOVERED line");
                    }
                    else
                    {
                        walk.handled(TAIL, "the recovery it ends: " + recovered);
                    }
                }
                walk.handled(TAIL, "not printed: tail prints the normalized feed, recovery as STALE/RECOVERED lines");
            }
        }

        checkSnapshotContent(late, exchange);
        WALKS.values().forEach(TemplateWalkTest::reportMissingLayers);
    }

    /** WireFormat, the shared leaf every role validates with, knows the template as the schema defines it. */
    private static void checkWireFormat(final Walk walk)
    {
        final Template template = walk.template;
        final int schemaBlockLength;
        try
        {
            schemaBlockLength = Class.forName("io.mdfanout.sbe." + template.name + "Decoder")
                .getField("BLOCK_LENGTH").getInt(null);
        }
        catch (final ReflectiveOperationException ex)
        {
            walk.problem(WIRE_FORMAT, "no generated decoder: " + ex);
            return;
        }
        final int known = WireFormat.knownBlockLength(template.id);
        if (known != schemaBlockLength)
        {
            walk.problem(WIRE_FORMAT, "knownBlockLength is " + known + ", the schema's block " + schemaBlockLength +
                ": add it to WireFormat's BLOCK_LENGTHS (and MAX_TEMPLATE_ID)");
        }
        else if (Kind.DERIVED == template.kind())
        {
            if (!WireFormat.isDerivedMessage(template.id) || WireFormat.isNormalizedMessage(template.id) ||
                0 == WireFormat.streamBlockLength(template.id) || 0 == WireFormat.snapshotStreamBlockLength(template.id))
            {
                walk.problem(WIRE_FORMAT, "a derived template: WireFormat.isDerivedMessage must be true and " +
                    "isNormalizedMessage false (never in a ring), and streams and snapshot streams must admit it");
            }
            else
            {
                walk.handled(WIRE_FORMAT, "derived, block length " + known + " (streams and snapshot streams, never rings)");
            }
        }
        else if (Kind.NORMALIZED == template.kind() && !WireFormat.isNormalizedMessage(template.id))
        {
            walk.problem(WIRE_FORMAT, "it starts with the normalized prefix, but WireFormat.isNormalizedMessage is " +
                "false: rings and packets would reject it");
        }
        else if (Kind.NORMALIZED != template.kind() && WireFormat.isNormalizedMessage(template.id))
        {
            walk.problem(WIRE_FORMAT, "WireFormat.isNormalizedMessage is true, but it lacks the common prefix");
        }
        else
        {
            walk.handled(WIRE_FORMAT, template.kind() + ", block length " + known +
                (WireFormat.isStateMessage(template.id) ? ", state (kept for snapshots)" : ""));
        }
    }

    /** Every layer the template must pass (by the schema's rules) and that neither handled nor rejected it. */
    static void reportMissingLayers(final Walk walk)
    {
        for (final String layer : walk.requiredLayers())
        {
            if (!walk.handled.containsKey(layer) && walk.problems.stream().noneMatch((p) -> p.startsWith(layer)))
            {
                walk.problem(layer, ORIGIN.equals(layer) ?
                    "born nowhere: no ITCH type normalizes to it and neither the feed handler nor the fanout " +
                    "sends it (map its ITCH type in ItchNormalizer, or have the layer that makes it send it)" :
                    "never reached: no message of this template got here (" + WHERE.get(layer) + ")");
            }
        }
    }

    /** Empty when the SDK delivered the record through its typed callback with the ring's values. */
    private static Optional<String> sdkFinding(final RingRecord record, final Recorder recorder)
    {
        final String name = record.template.name;
        final String callback = decoderCallback(name);
        if (null == callback)
        {
            return Optional.of(record.template.label() + ": MarketDataListener has no callback taking " +
                name + "Decoder: add one and dispatch the template to it in the SDK");
        }
        final boolean delivered = recorder.calls.stream().anyMatch((call) ->
            name.equals(call.decoder) && !call.snapshot && record.text.equals(call.text));
        return delivered ? Optional.empty() : Optional.of(record.template.label() + ": " +
            callback + " never called with " + record.text + " (the SDK dropped it or decoded other values)");
    }

    private static void checkTail(final Walk walk, final RingRecord record, final Recorder live)
    {
        final String marker = " " + walk.template.name + " p=";
        final String xseq = " xseq=" + record.exchangeSequence + " ";
        final String line = live.tailLines().stream()
            .filter((l) -> l.contains(marker) && l.contains(xseq))
            .findFirst().orElse(null);
        if (null == line)
        {
            walk.problem(TAIL, "no line with \"" + marker + "\" and \"" + xseq + "\" for exchange sequence " +
                record.exchangeSequence + ": add its callback to TailCommand.Printer");
            return;
        }
        final List<String> missing = new ArrayList<>();
        for (final Map.Entry<String, String> field : record.fields.entrySet())
        {
            final String key = field.getKey();
            final String value = field.getValue().trim();
            final String shown;
            if (key.endsWith("Id") && !key.equals("instrumentId") || key.equals("matchNumber"))
            {
                shown = value;
            }
            else if (key.endsWith("rice.mantissa") || key.equals("price.mantissa"))
            {
                final long mantissa = Long.parseLong(value);
                shown = (mantissa / 10_000) + "." + String.format("%04d", Math.abs(mantissa % 10_000));
            }
            else
            {
                continue;
            }
            if (!line.contains(shown))
            {
                missing.add(key + "=" + shown);
            }
        }
        if (!missing.isEmpty())
        {
            walk.problem(TAIL, "line lacks " + missing + ": " + line);
            return;
        }
        walk.handled(TAIL, line.substring(line.indexOf(' ') + 1));
    }

    private static void checkResentInSnapshot(final Walk walk, final RingRecord record, final Recorder late)
    {
        final boolean sent = SNAPSHOT_CARRIED.getOrDefault(walk.template.id, List.of()).stream()
            .anyMatch((b) -> Arrays.equals(b, record.bytes));
        final boolean delivered = late.calls.stream().anyMatch((call) ->
            walk.template.name.equals(call.decoder) && call.snapshot && record.text.equals(call.text));
        if (!sent)
        {
            walk.problem(SNAPSHOT, "not re-sent byte for byte on the snapshot stream (SnapshotPublisher)");
        }
        else if (!delivered)
        {
            walk.problem(SNAPSHOT, "re-sent, but the SDK's recovery did not deliver it with isSnapshot()");
        }
        else
        {
            walk.handled(SNAPSHOT, "re-sent byte for byte and delivered by the SDK's recovery (isSnapshot)");
        }
    }

    private static void checkSdkWithoutRing(final Walk walk, final Recorder recorder)
    {
        final String name = walk.template.name;
        String callback = decoderCallback(name);
        if (null == callback)
        {
            callback = SDK_CALLBACK_WITHOUT_DECODER.get(name);
        }
        if (null == callback)
        {
            walk.problem(SDK, "MarketDataListener has no callback for it: add one taking " + name + "Decoder and " +
                "dispatch it (or, for a transport template, name the callback that shows it in " +
                "SDK_CALLBACK_WITHOUT_DECODER)");
            return;
        }
        final String expected = callback;
        final List<Call> calls = recorder.calls.stream()
            .filter((call) -> expected.equals(call.method) && (null == call.decoder || name.equals(call.decoder)))
            .collect(Collectors.toList());
        if (calls.isEmpty())
        {
            walk.problem(SDK, callback + " was never called");
            return;
        }
        walk.handled(SDK, callback + " x" + calls.size() + ", e.g. " + calls.get(0).describe());
    }

    private static void checkSnapshotContent(final Recorder late, final Map<Long, Long> exchange)
    {
        final Walk order = walkNamed("SnapshotOrder");
        if (null != order)
        {
            final Map<Long, Long> snapshotOrders = new TreeMap<>();
            late.calls.stream().filter((call) -> "SnapshotOrder".equals(call.decoder)).forEach((call) ->
                snapshotOrders.put(Long.parseLong(call.fields.get("orderId")),
                    Long.parseLong(call.fields.get("shares"))));
            if (!snapshotOrders.equals(exchange))
            {
                order.problem(SDK, "the snapshot's orders " + snapshotOrders + " are not the exchange's " + exchange);
            }
        }
        final Walk instrument = walkNamed("SnapshotInstrument");
        if (null != instrument)
        {
            final boolean counted = late.calls.stream().anyMatch((call) -> "SnapshotInstrument".equals(call.decoder) &&
                String.valueOf(LOCATE).equals(call.fields.get("instrumentId")) &&
                String.valueOf(exchange.size()).equals(call.fields.get("orderCount")));
            if (!counted)
            {
                instrument.problem(SDK, "no SnapshotInstrument for instrument " + LOCATE + " with orderCount " +
                    exchange.size());
            }
        }
        if (late.books.orderCount() != exchange.size() && null != order)
        {
            order.problem(SDK, "the late subscriber's OrderBooks holds " + late.books.orderCount() +
                " orders after recovery, the exchange " + exchange.size());
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // The exchange's script: every ITCH 5.0 type once (order flow on live orders), in a plausible order.
    // ---------------------------------------------------------------------------------------------------------

    private static List<ItchEvent> exchangeScript()
    {
        final List<ItchEvent> script = new ArrayList<>();
        add(script, 'S', 0, (e) -> e.eventCode = 'O');
        add(script, 'R', LOCATE, (e) ->
        {
            e.stock("WALK");
            e.marketCategory = 'Q';
            e.financialStatusIndicator = 'N';
            e.roundLotSize = 100;
            e.roundLotsOnly = 'N';
            e.issueClassification = 'C';
            ItchEvent.setAlpha(e.issueSubType, "Z");
            e.authenticity = 'P';
            e.shortSaleThresholdIndicator = 'N';
            e.ipoFlag = 'N';
            e.luldReferencePriceTier = '1';
            e.etpFlag = 'N';
            e.etpLeverageFactor = 2;
            e.inverseIndicator = 'N';
        });
        add(script, 'H', LOCATE, (e) ->
        {
            e.stock("WALK");
            e.tradingState = 'T';
            ItchEvent.setAlpha(e.reason, "WALK");
        });
        add(script, 'Y', LOCATE, (e) ->
        {
            e.stock("WALK");
            e.regShoAction = '1';
        });
        add(script, 'L', LOCATE, (e) ->
        {
            e.stock("WALK");
            ItchEvent.setAlpha(e.mpid, "MPID");
            e.primaryMarketMaker = 'Y';
            e.marketMakerMode = 'N';
            e.marketParticipantState = 'A';
        });
        add(script, 'V', 0, (e) ->
        {
            e.level1Price = 350_012_345_678L;
            e.level2Price = 330_012_345_678L;
            e.level3Price = 310_012_345_678L;
        });
        add(script, 'W', 0, (e) -> e.breachedLevel = '1');
        add(script, 'K', LOCATE, (e) ->
        {
            e.stock("WALK");
            e.ipoQuotationReleaseTime = 36_000;
            e.ipoQuotationReleaseQualifier = 'A';
            e.ipoPrice = 200_000;
        });
        add(script, 'J', LOCATE, (e) ->
        {
            e.stock("WALK");
            e.auctionCollarReferencePrice = 1_230_000;
            e.upperAuctionCollarPrice = 1_290_000;
            e.lowerAuctionCollarPrice = 1_170_000;
            e.auctionCollarExtension = 1;
        });
        add(script, 'h', LOCATE, (e) ->
        {
            e.stock("WALK");
            e.marketCode = 'Q';
            e.operationalHaltAction = 'T';
        });
        add(script, 'A', LOCATE, (e) -> order(e, 1001, 'B', 300, 1_234_500));
        add(script, 'F', LOCATE, (e) ->
        {
            order(e, 1002, 'S', 400, 1_235_000);
            ItchEvent.setAlpha(e.attribution, "MPID");
        });
        add(script, 'E', LOCATE, (e) ->
        {
            e.orderReferenceNumber = 1001;
            e.shares = 100;
            e.matchNumber = 5001;
        });
        add(script, 'C', LOCATE, (e) ->
        {
            e.orderReferenceNumber = 1002;
            e.shares = 50;
            e.matchNumber = 5002;
            e.printable = 'Y';
            e.price = 1_234_900;
        });
        add(script, 'X', LOCATE, (e) ->
        {
            e.orderReferenceNumber = 1001;
            e.shares = 20;
        });
        add(script, 'U', LOCATE, (e) ->
        {
            e.orderReferenceNumber = 1002;
            e.newOrderReferenceNumber = 1003;
            e.shares = 200;
            e.price = 1_235_100;
        });
        add(script, 'A', LOCATE, (e) -> order(e, 1004, 'B', 700, 1_233_300));
        add(script, 'D', LOCATE, (e) -> e.orderReferenceNumber = 1001);
        add(script, 'P', LOCATE, (e) ->
        {
            order(e, 9001, 'B', 60, 1_234_700);
            e.matchNumber = 5003;
        });
        add(script, 'Q', LOCATE, (e) ->
        {
            e.stock("WALK");
            e.longShares = 123_456_789_012L;
            e.price = 1_234_600;
            e.matchNumber = 5004;
            e.crossType = 'O';
        });
        add(script, 'B', LOCATE, (e) -> e.matchNumber = 5003);
        add(script, 'I', LOCATE, (e) ->
        {
            e.stock("WALK");
            e.pairedShares = 11_000_000_000L;
            e.imbalanceShares = 2_500;
            e.imbalanceDirection = 'B';
            e.farPrice = 1_240_000;
            e.nearPrice = 1_238_000;
            e.currentReferencePrice = 1_236_000;
            e.crossType = 'C';
            e.priceVariationIndicator = 'L';
        });
        add(script, 'N', LOCATE, (e) ->
        {
            e.stock("WALK");
            e.interestFlag = 'B';
        });
        add(script, 'O', LOCATE, (e) ->
        {
            e.stock("WALK");
            e.openEligibilityStatus = 'Y';
            e.minimumAllowablePrice = 1_000_000;
            e.maximumAllowablePrice = 1_500_000;
            e.nearExecutionPrice = 1_234_000;
            e.nearExecutionTime = 34_300_000_000_000L;
            e.lowerPriceRangeCollar = 1_100_000;
            e.upperPriceRangeCollar = 1_400_000;
        });
        // Two seconds later: the partition's exchange clock passes the second of the prints above, whose derived
        // bars are closed and sent.
        add(script, 'I', LOCATE, (e) ->
        {
            e.stock("WALK");
            e.pairedShares = 12_000;
            e.imbalanceShares = 300;
            e.imbalanceDirection = 'S';
            e.farPrice = 1_240_000;
            e.nearPrice = 1_238_000;
            e.currentReferencePrice = 1_236_000;
            e.crossType = 'C';
            e.priceVariationIndicator = 'L';
            e.timestamp += 2_000_000_000L;
        });
        return script;
    }

    private static void add(
        final List<ItchEvent> script, final char type, final int locate, final Consumer<ItchEvent> fields)
    {
        final ItchEvent event = new ItchEvent().reset();
        event.type = type;
        event.stockLocate = locate;
        event.trackingNumber = script.size() + 1;
        event.timestamp = 34_200_000_000_000L + 1_000L * script.size();
        fields.accept(event);
        script.add(event);
    }

    private static void order(
        final ItchEvent e, final long orderId, final char side, final long shares, final long price)
    {
        e.stock("WALK");
        e.orderReferenceNumber = orderId;
        e.side = side;
        e.shares = shares;
        e.price = price;
    }

    /** What the normalized message's fields must say, by SBE field name (those a template has are checked). */
    private static Map<String, String> expectedFields(final ItchEvent e, final long sequence)
    {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("exchangeSequence", String.valueOf(sequence));
        if (null == e)
        {
            m.put("instrumentId", "0"); // a gap notice of the feed handler: the whole market
            return m;
        }
        m.put("exchangeTimestamp", String.valueOf(e.timestamp));
        m.put("instrumentId", String.valueOf(e.stockLocate));
        m.put("orderId", String.valueOf(e.orderReferenceNumber));
        m.put("originalOrderId", String.valueOf(e.orderReferenceNumber));
        m.put("newOrderId", String.valueOf(e.newOrderReferenceNumber));
        m.put("matchNumber", String.valueOf(e.matchNumber));
        for (final String price : List.of("price", "executionPrice", "crossPrice"))
        {
            m.put(price + ".mantissa", String.valueOf(e.price));
        }
        m.put("shares", String.valueOf('Q' == e.type ? e.longShares : e.shares));
        m.put("executedShares", String.valueOf(e.shares));
        m.put("cancelledShares", String.valueOf(e.shares));
        if (' ' != e.side)
        {
            m.put("side", 'B' == e.side ? "BUY" : "SELL");
        }
        m.put("attribution", ItchEvent.alphaToString(e.attribution).trim());
        m.put("symbol", e.stockAsString().trim());
        m.put("roundLotSize", String.valueOf(e.roundLotSize));
        m.put("etpLeverageFactor", String.valueOf(e.etpLeverageFactor));
        m.put("level1.mantissa", String.valueOf(e.level1Price));
        m.put("level2.mantissa", String.valueOf(e.level2Price));
        m.put("level3.mantissa", String.valueOf(e.level3Price));
        m.put("pairedShares", String.valueOf(e.pairedShares));
        m.put("imbalanceShares", String.valueOf(e.imbalanceShares));
        m.put("farPrice.mantissa", String.valueOf(e.farPrice));
        m.put("nearPrice.mantissa", String.valueOf(e.nearPrice));
        m.put("currentReferencePrice.mantissa", String.valueOf(e.currentReferencePrice));
        if ('S' == e.type)
        {
            m.put("eventCode", SystemEventCode.get((byte)e.eventCode).name());
        }
        if ('H' == e.type)
        {
            m.put("tradingState", TradingState.get((byte)e.tradingState).name());
        }
        // One-letter codes, which SBE prints as their byte value.
        m.put("marketCategory", String.valueOf((int)e.marketCategory));
        m.put("printable", String.valueOf((int)e.printable));
        m.put("crossType", String.valueOf((int)e.crossType));
        m.put("regShoAction", String.valueOf((int)e.regShoAction));
        m.put("breachedLevel", String.valueOf((int)e.breachedLevel));
        m.put("marketCode", String.valueOf((int)e.marketCode));
        m.put("haltAction", String.valueOf((int)e.operationalHaltAction));
        m.put("imbalanceDirection", String.valueOf((int)e.imbalanceDirection));
        m.put("priceVariationIndicator", String.valueOf((int)e.priceVariationIndicator));
        return m;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Plumbing.
    // ---------------------------------------------------------------------------------------------------------

    /** The templates as the schema declares them. */
    static List<Template> schemaTemplates() throws Exception
    {
        final List<Template> templates = new ArrayList<>();
        try (InputStream in = WireFormat.class.getResourceAsStream("/mdfanout-schema.xml"))
        {
            assertTrue(null != in, "mdfanout-schema.xml is not on the class path");
            final DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setNamespaceAware(true);
            final NodeList messages = factory.newDocumentBuilder().parse(in)
                .getElementsByTagNameNS("http://fixprotocol.io/2016/sbe", "message");
            for (int i = 0; i < messages.getLength(); i++)
            {
                final Element message = (Element)messages.item(i);
                final List<String> fields = new ArrayList<>();
                final NodeList children = message.getElementsByTagName("field");
                for (int j = 0; j < children.getLength(); j++)
                {
                    fields.add(((Element)children.item(j)).getAttribute("name"));
                }
                templates.add(new Template(
                    Integer.parseInt(message.getAttribute("id")), message.getAttribute("name"), fields));
            }
        }
        assertTrue(templates.size() > 20, "the schema has " + templates.size() + " templates?");
        return templates;
    }

    /** The name of the typed callback of MarketDataListener that takes the template's decoder, or null. */
    private static String decoderCallback(final String templateName)
    {
        final Method method = decoderCallbackMethod(templateName);
        return null == method ? null : method.getName();
    }

    /** The typed callback of MarketDataListener that takes the template's decoder, or null. */
    private static Method decoderCallbackMethod(final String templateName)
    {
        for (final Method method : MarketDataListener.class.getMethods())
        {
            for (final Class<?> parameter : method.getParameterTypes())
            {
                if (parameter.getSimpleName().equals(templateName + "Decoder"))
                {
                    return method;
                }
            }
        }
        return null;
    }

    /**
     * Without a message: the SDK has a typed callback for a normalized template and tail's printer implements it,
     * so a template no message reached yet still names what is missing.
     */
    private static void checkCallbacksDeclared(final Walk walk)
    {
        final String name = walk.template.name;
        final Method callback = decoderCallbackMethod(name);
        if (null == callback)
        {
            walk.problem(SDK, "MarketDataListener has no callback taking " + name + "Decoder: add one and dispatch " +
                "the template to it in the SDK");
            return;
        }
        final PrintStream discard = new PrintStream(OutputStream.nullOutputStream());
        try
        {
            final Method printed = TailPrinters.printer(discard, discard).getClass()
                .getMethod(callback.getName(), callback.getParameterTypes());
            if (printed.getDeclaringClass().isInterface())
            {
                walk.problem(TAIL, "TailCommand.Printer does not implement " + callback.getName() +
                    ": tail prints nothing for it");
            }
        }
        catch (final NoSuchMethodException ex)
        {
            throw new AssertionError(ex);
        }
    }

    private static Walk walkNamed(final String name)
    {
        return WALKS.values().stream().filter((w) -> w.template.name.equals(name)).findFirst().orElse(null);
    }

    private static RingRecord peek(final RingBuffer ring, final long sequence, final ItchEvent event)
    {
        final RingRecord[] peeked = new RingRecord[1];
        ring.controlledRead((msgTypeId, buffer, index, length) ->
        {
            final byte[] bytes = new byte[length];
            buffer.getBytes(index, bytes);
            final int templateId = new UnsafeBuffer(bytes).getShort(2, WireFormat.BYTE_ORDER) & 0xFFFF;
            final Walk walk = WALKS.get(templateId);
            if (null == walk || templateId != msgTypeId)
            {
                fail("ring record type " + msgTypeId + " holds template " + templateId + ", not one of the schema's");
            }
            peeked[0] = new RingRecord(walk.template, bytes, sequence, expectedFields(event, sequence));
            return ControlledMessageHandler.Action.ABORT; // only look: the fanout consumes it
        }, 1);
        return peeked[0];
    }

    private static void onFanoutMessage(
        final DirectBuffer buffer, final int offset, final int length, final boolean snapshotStream)
    {
        final Map<Integer, List<byte[]>> carried = snapshotStream ? SNAPSHOT_CARRIED : CARRIED;
        if (!snapshotStream)
        {
            final byte[] whole = new byte[length];
            buffer.getBytes(offset, whole);
            INCREMENTAL_MESSAGES.add(whole);
        }
        final int templateId = buffer.getShort(offset + 2, WireFormat.BYTE_ORDER) & 0xFFFF;
        final int blockLength = buffer.getShort(offset, WireFormat.BYTE_ORDER) & 0xFFFF;
        carried.computeIfAbsent(templateId, (k) -> new ArrayList<>()).add(copy(buffer, offset, HEADER + blockLength));
        if (PacketHeaderDecoder.TEMPLATE_ID == templateId)
        {
            final PacketHeaderDecoder packet = new PacketHeaderDecoder().wrap(buffer, offset + HEADER, blockLength, 0);
            int position = offset + HEADER + blockLength;
            for (int i = 0; i < packet.messageCount() && position < offset + length; i++)
            {
                final int messageLength = HEADER + (buffer.getShort(position, WireFormat.BYTE_ORDER) & 0xFFFF);
                final int messageTemplateId = buffer.getShort(position + 2, WireFormat.BYTE_ORDER) & 0xFFFF;
                carried.computeIfAbsent(messageTemplateId, (k) -> new ArrayList<>())
                    .add(copy(buffer, position, messageLength));
                position += messageLength;
            }
        }
    }

    private static byte[] copy(final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        return bytes;
    }

    private static boolean equalBytes(final DirectBuffer buffer, final int length, final byte[] bytes)
    {
        final byte[] copy = new byte[length];
        buffer.getBytes(0, copy);
        return Arrays.equals(copy, bytes);
    }

    private static Map<Long, Long> stateOrders()
    {
        final Map<Long, Long> orders = new TreeMap<>();
        for (int i = state.firstOrder(LOCATE); i != PartitionState.NONE; i = state.nextOrder(i))
        {
            orders.put(state.orderId(i), state.orderShares(i));
        }
        return orders;
    }

    private static Map<Long, Long> exchangeOrders(final ReferenceBook book)
    {
        final Map<Long, Long> orders = new TreeMap<>();
        for (final long orderId : new long[]{ 1001, 1002, 1003, 1004, 9001 })
        {
            final long shares = book.sharesOf(orderId);
            if (shares >= 0)
            {
                orders.put(orderId, shares);
            }
        }
        return orders;
    }

    private static boolean await(final Runnable dutyCycle, final BooleanSupplier condition)
    {
        final long deadline = System.nanoTime() + TIMEOUT_NS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            dutyCycle.run();
            Thread.yield();
        }
        return true;
    }

    /** SBE's text of a decoder ("[Name](sbe...):a=1|b=(mantissa=2|)|") as flat fields: a=1, b.mantissa=2. */
    static Map<String, String> fields(final String text)
    {
        final Map<String, String> fields = new LinkedHashMap<>();
        final int start = text.indexOf("):");
        if (start >= 0)
        {
            flatten(text.substring(start + 2), "", fields);
        }
        return fields;
    }

    private static void flatten(final String body, final String prefix, final Map<String, String> fields)
    {
        int depth = 0;
        int itemStart = 0;
        for (int i = 0; i <= body.length(); i++)
        {
            final char c = i < body.length() ? body.charAt(i) : '|';
            if ('(' == c)
            {
                depth++;
            }
            else if (')' == c)
            {
                depth--;
            }
            else if ('|' == c && 0 == depth)
            {
                final String item = body.substring(itemStart, i);
                itemStart = i + 1;
                final int equals = item.indexOf('=');
                if (equals > 0)
                {
                    final String key = prefix + item.substring(0, equals);
                    final String value = item.substring(equals + 1);
                    if (value.startsWith("(") && value.endsWith(")"))
                    {
                        flatten(value.substring(1, value.length() - 1), key + ".", fields);
                    }
                    else
                    {
                        fields.put(key, value);
                    }
                }
            }
        }
    }

    /** What the schema says a template is: the rules the layers it must pass follow from it. */
    enum Kind
    {
        /** The normalized feed: starts with the common prefix; rings, incremental packets, SDK, tail. */
        NORMALIZED,
        /** Snapshot streams only ({@link WireFormat#isSnapshotMessage}). */
        SNAPSHOT,
        /** The fanout's own framing and liveness (PacketHeader, Heartbeat): no common prefix. */
        TRANSPORT,
        /** Derived streams only (schema version 5: the schema's templates from 50 on, after the snapshot ones). */
        DERIVED
    }

    static final class Template
    {
        private static final List<String> COMMON_PREFIX =
            List.of("exchangeSequence", "exchangeTimestamp", "instrumentId");

        final int id;
        final String name;
        final List<String> fields;

        Template(final int id, final String name, final List<String> fields)
        {
            this.id = id;
            this.name = name;
            this.fields = fields;
        }

        /** By the schema's own rules (its header comment): the normalized feed starts with the common prefix. */
        Kind kind()
        {
            if (WireFormat.isSnapshotMessage(id))
            {
                return Kind.SNAPSHOT;
            }
            if (id >= BestBidOfferDecoder.TEMPLATE_ID)
            {
                return Kind.DERIVED;
            }
            final boolean prefixed = fields.size() >= COMMON_PREFIX.size() &&
                fields.subList(0, COMMON_PREFIX.size()).equals(COMMON_PREFIX);
            return prefixed ? Kind.NORMALIZED : Kind.TRANSPORT;
        }

        String label()
        {
            return name + " (" + id + ")";
        }
    }

    /** One template's way through the layers: what each did with it, and what went wrong. */
    static final class Walk
    {
        final Template template;
        final Map<String, String> handled = new LinkedHashMap<>();
        final List<String> problems = new ArrayList<>();
        String origin;

        Walk(final Template template)
        {
            this.template = template;
        }

        String label()
        {
            return template.label();
        }

        void handled(final String layer, final String how)
        {
            handled.putIfAbsent(layer, how);
        }

        void problem(final String layer, final String what)
        {
            problems.add(layer + ": " + what);
        }

        /** The layers this template must pass, by what the schema says it is. */
        List<String> requiredLayers()
        {
            switch (template.kind())
            {
                case NORMALIZED:
                    return WireFormat.isStateMessage(template.id) ?
                        List.of(WIRE_FORMAT, ORIGIN, RING, FANOUT_PACKET, FANOUT_STATE, SNAPSHOT, SDK, TAIL) :
                        List.of(WIRE_FORMAT, ORIGIN, RING, FANOUT_PACKET, FANOUT_STATE, SDK, TAIL);
                case SNAPSHOT:
                    return List.of(WIRE_FORMAT, ORIGIN, SNAPSHOT, SDK, TAIL);
                case DERIVED:
                    return TradePrintDecoder.TEMPLATE_ID == template.id ?
                        List.of(WIRE_FORMAT, ORIGIN, FANOUT_PACKET, SDK, TAIL) :
                        List.of(WIRE_FORMAT, ORIGIN, FANOUT_PACKET, SNAPSHOT, SDK, TAIL);
                default:
                    return List.of(WIRE_FORMAT, ORIGIN, FANOUT_PACKET, SDK, TAIL);
            }
        }

        String report()
        {
            return handled.entrySet().stream()
                .map((e) -> "  " + label() + " | " + e.getKey() + ": " + e.getValue())
                .collect(Collectors.joining("\n"));
        }
    }

    /** A normalized message as the feed handler wrote it into the ring. */
    static final class RingRecord
    {
        final Template template;
        final byte[] bytes;
        final long exchangeSequence;
        final Map<String, String> expected;
        final String text;
        final Map<String, String> fields;

        RingRecord(final Template template, final byte[] bytes, final long exchangeSequence,
            final Map<String, String> expected)
        {
            this.template = template;
            this.bytes = bytes;
            this.exchangeSequence = exchangeSequence;
            this.expected = expected;
            this.text = decode(template.name, new UnsafeBuffer(bytes), 0);
            this.fields = fields(text);
        }

        Walk walk()
        {
            return WALKS.get(template.id);
        }
    }

    /** The generated decoder's text of a message (header at offset), found by the template's name. */
    static String decode(final String templateName, final DirectBuffer buffer, final int offset)
    {
        try
        {
            final Class<?> type = Class.forName("io.mdfanout.sbe." + templateName + "Decoder");
            final Object decoder = type.getConstructor().newInstance();
            type.getMethod("wrap", DirectBuffer.class, int.class, int.class, int.class).invoke(decoder, buffer,
                offset + HEADER, buffer.getShort(offset, WireFormat.BYTE_ORDER) & 0xFFFF,
                buffer.getShort(offset + 6, WireFormat.BYTE_ORDER) & 0xFFFF);
            return decoder.toString();
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new AssertionError("no generated decoder for " + templateName + ": " + ex, ex);
        }
    }

    /** One listener callback as it happened: decoders as their text (they are flyweights). */
    static final class Call
    {
        final String method;
        final String decoder;
        final String text;
        final Map<String, String> fields;
        final boolean snapshot;
        final List<Object> values = new ArrayList<>();

        Call(final Method method, final Object[] args)
        {
            this.method = method.getName();
            String decoder = null;
            String text = null;
            boolean snapshot = false;
            for (final Object arg : null == args ? new Object[0] : args)
            {
                if (arg instanceof MessageContext)
                {
                    snapshot = ((MessageContext)arg).isSnapshot();
                    values.add("seq=" + ((MessageContext)arg).streamSequence());
                }
                else if (null != arg && arg.getClass().getName().startsWith("io.mdfanout.sbe.") &&
                    arg.getClass().getSimpleName().endsWith("Decoder"))
                {
                    decoder = arg.getClass().getSimpleName().replace("Decoder", "");
                    text = arg.toString();
                }
                else if (!(arg instanceof DirectBuffer))
                {
                    values.add(arg);
                }
            }
            this.decoder = decoder;
            this.text = text;
            this.fields = null == text ? Map.of() : fields(text);
            this.snapshot = snapshot;
        }

        String describe()
        {
            return method + values + (null == text ? "" : " " + text);
        }
    }

    /**
     * A {@link MarketDataListener} that records every callback (all of them, through a proxy, so that a
     * callback added to the interface is recorded too) and passes it on to an {@link OrderBooks} and to
     * {@code tail}'s printer; optionally deaf to one callback, to show the checks fail.
     */
    static final class Recorder implements InvocationHandler
    {
        final List<Call> calls = new ArrayList<>();
        final OrderBooks books = new OrderBooks();
        final ByteArrayOutputStream tail = new ByteArrayOutputStream();
        final ByteArrayOutputStream tailEvents = new ByteArrayOutputStream();
        final List<MarketDataListener> targets = List.of(books, TailPrinters.printer(
            new PrintStream(tail, true, StandardCharsets.UTF_8),
            new PrintStream(tailEvents, true, StandardCharsets.UTF_8)));
        final String ignoredCallback;

        Recorder(final String ignoredCallback)
        {
            this.ignoredCallback = ignoredCallback;
        }

        MarketDataListener listener()
        {
            return (MarketDataListener)Proxy.newProxyInstance(
                MarketDataListener.class.getClassLoader(), new Class<?>[]{ MarketDataListener.class }, this);
        }

        public Object invoke(final Object proxy, final Method method, final Object[] args) throws Throwable
        {
            if (Object.class == method.getDeclaringClass())
            {
                switch (method.getName())
                {
                    case "equals": return proxy == args[0];
                    case "hashCode": return System.identityHashCode(proxy);
                    default: return "Recorder";
                }
            }
            if (method.getName().equals(ignoredCallback))
            {
                return null;
            }
            calls.add(new Call(method, args));
            for (final MarketDataListener target : targets)
            {
                try
                {
                    method.invoke(target, args);
                }
                catch (final InvocationTargetException ex)
                {
                    throw ex.getCause();
                }
            }
            return null;
        }

        boolean called(final String method)
        {
            return count(method) > 0;
        }

        int count(final String method)
        {
            return (int)calls.stream().filter((call) -> call.method.equals(method)).count();
        }

        List<String> tailLines()
        {
            return Arrays.asList(tail.toString(StandardCharsets.UTF_8).split("\n"));
        }
    }
}
