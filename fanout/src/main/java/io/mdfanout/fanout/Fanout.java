package io.mdfanout.fanout;

import io.aeron.Aeron;
import io.aeron.ChannelUri;
import io.aeron.CommonContext;
import io.aeron.ExclusivePublication;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.mdfanout.affinity.AffinityPlan;
import io.mdfanout.fanout.derived.DerivedCounters;
import io.mdfanout.fanout.derived.DerivedPublisher;
import io.mdfanout.fanout.derived.PartitionDerivation;
import io.mdfanout.fanout.snapshot.SnapshotCounters;
import io.mdfanout.fanout.snapshot.SnapshotPublisher;
import io.mdfanout.fanout.state.PartitionState;
import io.mdfanout.fanout.state.PartitionStateCounters;
import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.wire.ConfigurationException;
import io.mdfanout.wire.IdleStrategyType;
import io.mdfanout.wire.PartitionRings;
import io.mdfanout.wire.FeedStream;
import io.mdfanout.wire.Partitioning;
import io.mdfanout.wire.PreciseEpochNanoClock;
import io.mdfanout.wire.RingSetHeader;
import io.mdfanout.wire.RoleErrorLog;
import io.mdfanout.wire.WireFormat;
import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.CompositeAgent;
import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static io.mdfanout.wire.MdfanoutCounters.FANOUT_DUTY_CYCLE_ERRORS_TYPE_ID;

/**
 * The running fanout: maps the partition rings the feed handler created, connects to a media
 * driver (embedded by default), adds one {@link ExclusivePublication} per partition on the
 * configured channel with stream id {@code streamIdBase + partition}, and runs one
 * {@link PartitionPublisher} per partition, each keeping the partition's {@link PartitionState} in
 * {@code <state-dir>/partition-<n>.state} and publishing snapshots on its snapshot stream
 * ({@link SnapshotPublisher}), all on one thread ({@link FanoutThreading#SHARED}) or
 * one thread each ({@link FanoutThreading#DEDICATED}).
 * <p>
 * The busy threads (the publisher threads and the embedded driver's) are pinned to CPUs as
 * {@link #planAffinity(FanoutConfig)} decides from {@link FanoutConfig#cpus()}; when {@code auto}
 * finds too few CPUs, everything runs on shared threads with backoff idle strategies instead.
 * <p>
 * Ring generations: the fanout maps the ring directory's header ({@link RingSetHeader}) and refuses
 * rings that disagree with its options (another partition count, another schema). Each publisher
 * checks the header's generation every duty cycle; when the feed handler replaced the rings (a new
 * layout, a snapshot load), a watcher thread of this class stops the publishers, resets the
 * partition states, maps the new rings and starts again in new publications, which is what
 * subscribers see as a new publication (stale, then recovered from the next snapshot), exactly as
 * after a restart of the fanout. A feed handler that restarts onto the same rings changes nothing here.
 * <p>
 * Construction either completes with everything running or fails with a clear message having
 * released whatever it had acquired. {@link #close()} stops the threads, then closes the
 * publications, the client, the embedded driver (deleting its directory) and unmaps the rings.
 */
public final class Fanout implements AutoCloseable
{
    /** Held, exclusively, in the state directory for as long as the fanout runs. */
    public static final String LOCK_FILE_NAME = "fanout.lock";
    /**
     * A fanout with more than this fraction of a partition's ring unread is catching up, not ready ({@link
     * #notReadyReason()}): a restarted fanout reading what its feed handler wrote meanwhile, or one that cannot keep up.
     */
    public static final double READY_UNREAD_FRACTION = 0.25;
    private static final int COUNTER_VALUES_LENGTH = 64 * 1024;
    private static final long RING_POLL_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final long GENERATION_WATCH_INTERVAL_MS = 10;
    /**
     * A followed generation's new publications send heartbeats only for this long before their first packet: every
     * receiver sets up its image meanwhile, so each one joins the new stream at its first message (a receiver that
     * set up after the first packets would join mid-stream and have to recover from a snapshot).
     */
    static final long NEW_GENERATION_JOIN_GRACE_NS = TimeUnit.SECONDS.toNanos(1);
    /** Longer than a publisher's own limit for draining the old generation. */
    private static final long FOLLOW_GENERATION_LIMIT_MS = 3_000;
    private static final long HEADER_FILE_CHECK_CYCLES = 50;

    /** Busy thread of all publishers in {@link FanoutThreading#SHARED} threading. */
    public static final String PUBLISHER_THREAD = "fanout-publisher";
    /** Busy thread of partition p's publisher in {@link FanoutThreading#DEDICATED} threading: this + p. */
    public static final String PUBLISHER_THREAD_PREFIX = "fanout-publisher-";
    /** The embedded driver's one thread in {@link ThreadingMode#SHARED}. */
    public static final String DRIVER_SHARED_THREAD = "driver-shared";
    /** The embedded driver's conductor in {@link ThreadingMode#SHARED_NETWORK} and {@link ThreadingMode#DEDICATED}. */
    public static final String DRIVER_CONDUCTOR_THREAD = "driver-conductor";
    /** The embedded driver's sender and receiver thread in {@link ThreadingMode#SHARED_NETWORK}. */
    public static final String DRIVER_NETWORK_THREAD = "driver-network";
    /** The embedded driver's sender in {@link ThreadingMode#DEDICATED}. */
    public static final String DRIVER_SENDER_THREAD = "driver-sender";
    /** The embedded driver's receiver in {@link ThreadingMode#DEDICATED}. */
    public static final String DRIVER_RECEIVER_THREAD = "driver-receiver";
    private static final ThreadFactory UNPINNED = Thread::new;
    /** Term length of the symbol directory's publications: a day's definitions (~9,000 of 60 bytes) in two terms. */
    public static final int DIRECTORY_TERM_LENGTH = 1024 * 1024;

    private final FanoutConfig config;
    private final ErrorHandler errorHandler;
    private final RoleErrorLog errorLog;
    private final PartitionRings.MappedRing[] rings;
    private final ExclusivePublication[] publications;
    private final PartitionCounters[] counters;
    private final PartitionPublisher[] publishers;
    private final ExclusivePublication[] snapshotPublications;
    private final PartitionStateCounters[] stateCounters;
    private final SnapshotCounters[] snapshotCounters;
    private final PartitionState[] states;
    /**
     * The streams published besides the MBO stream: the derived ones (config) and the symbol directory; per partition
     * one publication, snapshot publication and counters each.
     */
    private final FeedStream[] derivedStreams;
    private final ExclusivePublication[][] derivedPublications;
    private final ExclusivePublication[][] derivedSnapshotPublications;
    private final DerivedCounters[][] derivedCounters;
    private final SnapshotCounters[][] derivedSnapshotCounters;
    private final PartitionDerivation[] derivations;
    private final AgentRunner[] runners;
    private final CountersManager countersManager;
    private final AffinityPlan affinityPlan;
    private final FanoutThreading threading;
    private final IdleStrategyType idleStrategy;
    private final ThreadingMode driverThreadingMode;
    private MediaDriver driver;
    private Aeron aeron;
    private FileChannel lockChannel;
    private AtomicCounter dutyCycleErrors;
    private SourceCounters sourceCounters;
    private RingSetHeader ringSet;
    private long generation;
    private Thread generationWatcher;
    private volatile boolean closed;
    private volatile long generationChanges;
    private long refusedGeneration;
    private boolean holdNewPublications;

    /**
     * Start a fanout. Blocks until every ring file exists (up to the configured timeout) and every
     * publication is registered with the driver.
     *
     * @param config what to run; validated first.
     * @throws IllegalArgumentException on invalid configuration, including a {@code cpus} list that cannot be honoured.
     * @throws IllegalStateException    when the rings do not appear in time or cannot be mapped.
     * @throws RuntimeException         from Aeron when the driver cannot be started or reached.
     */
    public Fanout(final FanoutConfig config)
    {
        this.config = config.validate();
        // Unless told otherwise, errors go to the one error log of every role, in this instance's state directory.
        errorLog = null != config.errorHandler() ? null :
            RoleErrorLog.open(config.resolvedStateDirectory(), "fanout", Fanout::printError);
        this.errorHandler = null != config.errorHandler() ? config.errorHandler() : errorLog;
        affinityPlan = planAffinity(config);
        // Too few CPUs for auto pinning: spinning or dedicated threads would starve each other, so share and back off.
        final boolean shared = affinityPlan.fellBackToShared();
        threading = shared ? FanoutThreading.SHARED : config.threading();
        idleStrategy = affinityPlan.mustBackOff() ? config.idleStrategy().onSharedCores() : config.idleStrategy();
        driverThreadingMode = shared && ThreadingMode.INVOKER != config.driverThreadingMode() ?
            ThreadingMode.SHARED : config.driverThreadingMode();
        final int partitionCount = config.partitionCount();
        rings = new PartitionRings.MappedRing[partitionCount];
        publications = new ExclusivePublication[partitionCount];
        counters = new PartitionCounters[partitionCount];
        publishers = new PartitionPublisher[partitionCount];
        snapshotPublications = new ExclusivePublication[partitionCount];
        stateCounters = new PartitionStateCounters[partitionCount];
        snapshotCounters = new SnapshotCounters[partitionCount];
        states = new PartitionState[partitionCount];
        derivedStreams = publishedStreams(config);
        derivedPublications = new ExclusivePublication[partitionCount][derivedStreams.length];
        derivedSnapshotPublications = new ExclusivePublication[partitionCount][derivedStreams.length];
        derivedCounters = new DerivedCounters[partitionCount][derivedStreams.length];
        derivedSnapshotCounters = new SnapshotCounters[partitionCount][derivedStreams.length];
        derivations = new PartitionDerivation[partitionCount];
        runners = new AgentRunner[FanoutThreading.SHARED == threading ? 1 : partitionCount];
        countersManager = null != config.countersManager() ? config.countersManager() : newCountersManager();

        try
        {
            lockStateDirectory();
            openRingSet();
            mapRings();
            SharedMemoryBudget.check(config, null == config.aeronDirectoryName() ?
                embeddedDriverDirectory(config.resolvedStateDirectory()) : null);
            openStates();
            connectAeron();
            addPublications();
            createCounters();
            startPublishers();
            startGenerationWatcher();
        }
        catch (final RuntimeException ex)
        {
            close();
            throw ex;
        }
    }

    /**
     * Decide which CPU each busy thread of this configuration runs on: the publisher thread(s) and, with an
     * embedded driver, the driver's thread(s) for its threading mode. Pinning lines from the threads go to stderr.
     *
     * @param config the configuration; its {@link FanoutConfig#cpus()} says how to pin.
     * @return the plan over this process's allowed CPUs; {@link AffinityPlan#startupLine()} describes it.
     * @throws IllegalArgumentException when an explicit CPU list cannot be honoured (too few, not allowed, ...).
     */
    public static AffinityPlan planAffinity(final FanoutConfig config)
    {
        return AffinityPlan.forThisProcess("fanout", config.cpus(), busyThreads(config), System.err);
    }

    /**
     * @param config the configuration.
     * @return names of the busy threads it runs, in the order CPUs are handed out: publishers, then driver.
     */
    static List<String> busyThreads(final FanoutConfig config)
    {
        final List<String> threads = new ArrayList<>();
        if (FanoutThreading.SHARED == config.threading())
        {
            threads.add(PUBLISHER_THREAD);
        }
        else
        {
            for (int partition = 0; partition < config.partitionCount(); partition++)
            {
                threads.add(PUBLISHER_THREAD_PREFIX + partition);
            }
        }
        if (null == config.aeronDirectoryName())
        {
            switch (config.driverThreadingMode())
            {
                case DEDICATED:
                    threads.add(DRIVER_CONDUCTOR_THREAD);
                    threads.add(DRIVER_SENDER_THREAD);
                    threads.add(DRIVER_RECEIVER_THREAD);
                    break;
                case SHARED_NETWORK:
                    threads.add(DRIVER_CONDUCTOR_THREAD);
                    threads.add(DRIVER_NETWORK_THREAD);
                    break;
                case INVOKER:
                    break; // run by the publisher thread
                default:
                    threads.add(DRIVER_SHARED_THREAD);
                    break;
            }
        }
        return threads;
    }

    /** The factory a busy thread is created with: a pinning one when the plan pins, a plain one otherwise. */
    private ThreadFactory threadFactory(final String busyThread)
    {
        return affinityPlan.isPinned() ? affinityPlan.threadFactory(busyThread) : UNPINNED;
    }

    private static CountersManager newCountersManager()
    {
        return new CountersManager(
            new UnsafeBuffer(ByteBuffer.allocateDirect(
                COUNTER_VALUES_LENGTH * (CountersReader.METADATA_LENGTH / CountersReader.COUNTER_LENGTH))),
            new UnsafeBuffer(ByteBuffer.allocateDirect(COUNTER_VALUES_LENGTH)));
    }

    private static void printError(final Throwable throwable)
    {
        System.err.println("fanout: " + throwable.getMessage());
    }

    /**
     * Map the ring directory's header, waiting for the feed handler to create it, and check that the rings
     * it describes are the ones this fanout is configured for. Rings without a header (made by a test or a
     * peer with {@link PartitionRings#create(Path, int, int)}) are read as they are, with no generations to follow.
     */
    private void openRingSet()
    {
        final Path directory = config.ringDirectory();
        final long deadlineNs = System.nanoTime() + config.ringWaitTimeoutNs();
        while (true)
        {
            ringSet = RingSetHeader.openExisting(directory);
            if (null != ringSet && ringSet.isInitialised() && 0 != ringSet.generation())
            {
                break;
            }
            if (null == ringSet && PartitionRings.ringFile(directory, 0).toFile().isFile())
            {
                System.err.println("fanout: " + directory + " has rings but no " + RingSetHeader.FILE_NAME +
                    ": reading them as they are, with no generations to follow");
                return;
            }
            CloseHelper.close(ringSet);
            ringSet = null;
            if (System.nanoTime() - deadlineNs >= 0)
            {
                throw new IllegalStateException("no rings in " + directory + " after " +
                    TimeUnit.NANOSECONDS.toSeconds(config.ringWaitTimeoutNs()) + "s: is the feed handler running " +
                    "with --ring-dir " + directory + "?");
            }
            LockSupport.parkNanos(RING_POLL_INTERVAL_NS);
            if (Thread.currentThread().isInterrupted())
            {
                throw new IllegalStateException("interrupted while waiting for the rings in " + directory);
            }
        }
        final String disagreement = disagreement(ringSet);
        if (null != disagreement)
        {
            throw new IllegalArgumentException(disagreement);
        }
        generation = ringSet.generation();
    }

    /** @return what about the rings this fanout's options disagree with, naming the option and both values; or null. */
    private String disagreement(final RingSetHeader header)
    {
        if (header.partitionCount() != config.partitionCount())
        {
            return "--partitions " + config.partitionCount() + " disagrees with the rings in " +
                config.ringDirectory() + ": they have " + header.partitionCount() +
                " partitions (the feed handler's --partitions); start the fanout with --partitions " +
                header.partitionCount();
        }
        if (header.schemaId() != WireFormat.SCHEMA_ID || header.schemaVersion() > WireFormat.SCHEMA_VERSION)
        {
            return "the rings in " + config.ringDirectory() + " hold schema " + header.schemaId() + " version " +
                header.schemaVersion() + ", this fanout reads schema " + WireFormat.SCHEMA_ID + " up to version " +
                WireFormat.SCHEMA_VERSION + ": run a fanout of the feed handler's release";
        }
        return null;
    }

    private void mapRings()
    {
        final Path directory = config.ringDirectory();
        final long deadlineNs = System.nanoTime() + config.ringWaitTimeoutNs();
        for (int partition = 0; partition < rings.length; partition++)
        {
            rings[partition] = awaitRing(directory, partition, deadlineNs);
        }
    }

    /**
     * The feed handler creates the ring files; wait until each exists with a valid length (it may be
     * mid-creation), then map it.
     */
    private PartitionRings.MappedRing awaitRing(final Path directory, final int partition, final long deadlineNs)
    {
        final File file = PartitionRings.ringFile(directory, partition).toFile();
        RuntimeException lastError = null;
        while (true)
        {
            if (hasRingLength(file))
            {
                try
                {
                    final PartitionRings.MappedRing ring = PartitionRings.map(directory, partition);
                    if (null == ringSet || ring.generation() == generation)
                    {
                        return ring;
                    }
                    lastError = new IllegalStateException(
                        "ring of generation " + ring.generation() + ", the header's is " + generation);
                    ring.close(); // the producer renames the new generation's files into place first
                }
                catch (final RuntimeException ex)
                {
                    if (null != ex.getMessage() && ex.getMessage().contains("another layout"))
                    {
                        // Files appear whole (renamed into place), so one of another layout will not change.
                        throw new ConfigurationException(ex.getMessage() + ": refusing it; stop whatever wrote it " +
                            "and start the feed handler of this release on " + directory, ex);
                    }
                    lastError = ex;
                }
            }
            else if (file.isFile() && file.length() > 0)
            {
                throw new ConfigurationException("ring file " + file + " has another layout (" + file.length() +
                    " bytes fit no ring of this release): refusing it");
            }

            if (System.nanoTime() - deadlineNs >= 0)
            {
                throw new IllegalStateException(
                    "ring file " + file + " not ready after " +
                    TimeUnit.NANOSECONDS.toSeconds(config.ringWaitTimeoutNs()) + "s" +
                    (null != lastError ? " (" + lastError.getMessage() + ")" : "") +
                    ": is the feed handler running with --ring-dir " + directory + " and --partitions " +
                    config.partitionCount() + "?", lastError);
            }
            LockSupport.parkNanos(RING_POLL_INTERVAL_NS);
            if (Thread.currentThread().isInterrupted())
            {
                throw new IllegalStateException("interrupted while waiting for ring file " + file);
            }
        }
    }

    /**
     * One fanout per state directory (and so per set of rings, whose single consumer it is): an
     * exclusive lock on {@code <state-dir>/fanout.lock}. The kernel releases it when the process
     * dies, even by kill -9, so a restart is never refused by a dead predecessor.
     */
    private void lockStateDirectory()
    {
        final Path lockFile = config.resolvedStateDirectory().resolve(LOCK_FILE_NAME);
        try
        {
            Files.createDirectories(lockFile.getParent());
            lockChannel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            boolean locked;
            try
            {
                locked = null != lockChannel.tryLock();
            }
            catch (final OverlappingFileLockException ex)
            {
                locked = false; // held by another fanout in this very JVM
            }
            if (!locked)
            {
                throw new IllegalStateException("another fanout is running on state directory " +
                    lockFile.getParent() + " (it holds " + lockFile + "): one fanout per ring directory");
            }
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot lock " + lockFile + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * Open (or create) each partition's state. A persisted ring position beyond what the ring ever
     * held means the ring is new (the feed handler restarted with fresh rings): the state is reset
     * rather than skipping records forever.
     */
    private void openStates()
    {
        final Path stateDirectory = config.resolvedStateDirectory();
        for (int partition = 0; partition < states.length; partition++)
        {
            stateCounters[partition] = new PartitionStateCounters(countersManager, partition);
            states[partition] = PartitionState.open(
                stateDirectory, partition, config.maxOrders(), stateCounters[partition], errorHandler,
                config.statePretouch());
            final long producerPosition = rings[partition].ring().producerPosition();
            final long statePosition = states[partition].ringPosition();
            if (statePosition > producerPosition)
            {
                states[partition].reset("persisted ring position " + statePosition +
                    " is beyond the ring's producer position " + producerPosition + ": the ring is new");
            }
        }
    }

    private static boolean hasRingLength(final File file)
    {
        return file.isFile() && PartitionRings.capacityOf(file.length()) > 0;
    }

    private void connectAeron()
    {
        String aeronDirectoryName = config.aeronDirectoryName();
        if (null == aeronDirectoryName)
        {
            final MediaDriver.Context driverContext = DriverContexts.newContext(
                embeddedDriverDirectory(config.resolvedStateDirectory()), driverThreadingMode, config.termLength(),
                errorHandler, idleStrategy, config.idleMaxParkNs());
            DriverContexts.applyThreadFactories(driverContext, driverThreadingMode, this::threadFactory);
            driver = MediaDriver.launchEmbedded(driverContext);
            aeronDirectoryName = driver.aeronDirectoryName();
        }

        final boolean invoker = null != driver && ThreadingMode.INVOKER == driverThreadingMode;
        aeron = Aeron.connect(new Aeron.Context()
            .aeronDirectoryName(aeronDirectoryName)
            // This process's own mapping of each publication's log is touched when it is added, not by
            // the first message to reach each page (the driver allocates the pages: see publicationChannel).
            .preTouchMappedMemory(true)
            // In invoker mode the publisher thread runs the client's conductor and the driver; until it
            // starts, a blocking client call runs the driver itself while it waits.
            .useConductorAgentInvoker(invoker)
            .driverAgentInvoker(invoker ? driver.sharedAgentInvoker() : null)
            .errorHandler(errorHandler));
    }

    private void addPublications()
    {
        final String channel = publicationChannel();
        for (int partition = 0; partition < publications.length; partition++)
        {
            publications[partition] = aeron.addExclusivePublication(
                channel, Partitioning.streamId(config.streamIdBase(), partition));
        }
        final boolean snapshots = config.snapshotIntervalNs() > 0 && config.stateUpkeep();
        final String snapshotChannel = publicationChannel(config.resolvedSnapshotChannel(), config.termLength());
        final int snapshotStreamIdBase = (int)config.resolvedSnapshotStreamIdBase();
        if (snapshots)
        {
            for (int partition = 0; partition < snapshotPublications.length; partition++)
            {
                snapshotPublications[partition] = aeron.addExclusivePublication(
                    snapshotChannel, Partitioning.snapshotStreamId(snapshotStreamIdBase, partition));
            }
        }
        for (int partition = 0; partition < publications.length; partition++)
        {
            for (int i = 0; i < derivedStreams.length; i++)
            {
                final FeedStream stream = derivedStreams[i];
                final int termLength = termLength(config, stream);
                derivedPublications[partition][i] = aeron.addExclusivePublication(
                    publicationChannel(config.channel(), termLength),
                    Partitioning.streamId(stream.base(config.streamIdBase()), partition));
                if (snapshots)
                {
                    derivedSnapshotPublications[partition][i] = aeron.addExclusivePublication(
                        publicationChannel(config.resolvedSnapshotChannel(), termLength),
                        Partitioning.snapshotStreamId(stream.base(snapshotStreamIdBase), partition));
                }
            }
        }
    }

    /**
     * The streams a fanout of this configuration publishes besides the MBO stream: its derived streams, then the symbol
     * directory (unless the feed has more partitions than the streams' id offsets leave room for).
     */
    static FeedStream[] publishedStreams(final FanoutConfig config)
    {
        final FeedStream[] derived = config.derivedStreams();
        if (config.partitionCount() > FeedStream.MAX_PARTITIONS || !config.stateUpkeep())
        {
            return derived;
        }
        final FeedStream[] streams = java.util.Arrays.copyOf(derived, derived.length + 1);
        streams[derived.length] = FeedStream.DIRECTORY;
        return streams;
    }

    /** A published stream's term length: the directory's is small (a few thousand definitions a day). */
    static int termLength(final FanoutConfig config, final FeedStream stream)
    {
        return FeedStream.DIRECTORY == stream ? DIRECTORY_TERM_LENGTH : config.derivedTermLength();
    }

    private void closeDerivedPublications()
    {
        for (int partition = 0; partition < derivedPublications.length; partition++)
        {
            CloseHelper.closeAll(derivedSnapshotPublications[partition]);
            CloseHelper.closeAll(derivedPublications[partition]);
            java.util.Arrays.fill(derivedSnapshotPublications[partition], null);
            java.util.Arrays.fill(derivedPublications[partition], null);
        }
    }

    /**
     * The derived streams of a partition over its new publications: a derivation fed by the partition's publisher,
     * with each stream's snapshots over the partition's state; rebuilt from the state when it was resumed.
     */
    private PartitionDerivation newDerivation(final int partition, final EpochNanoClock epochClock)
    {
        if (0 == derivedStreams.length)
        {
            return null;
        }
        final List<DerivedPublisher> derivedPublishers = new ArrayList<>();
        DerivedPublisher directory = null;
        for (int i = 0; i < derivedStreams.length; i++)
        {
            final DerivedPublisher publisher = new DerivedPublisher(partition, derivedStreams[i],
                derivedPublications[partition][i], derivedCounters[partition][i], config.heartbeatIntervalNs(),
                epochClock, errorHandler);
            if (FeedStream.DIRECTORY == derivedStreams[i])
            {
                directory = publisher;
            }
            else
            {
                derivedPublishers.add(publisher);
            }
        }
        final PartitionDerivation derivation = new PartitionDerivation(partition,
            derivedPublishers.toArray(new DerivedPublisher[0]), directory, errorHandler,
            Math.min(config.maxOrders(), PartitionDerivation.DEFAULT_ORDER_CAPACITY));
        if (null != snapshotPublications[partition])
        {
            derivation.publishSnapshots(states[partition], (publisher, source) ->
            {
                final int i = indexOf(publisher.stream());
                return new SnapshotPublisher(
                    partition,
                    source,
                    derivedSnapshotPublications[partition][i],
                    publisher.publication().sessionId(),
                    derivedSnapshotCounters[partition][i],
                    config.snapshotIntervalNs(),
                    config.snapshotBytesPerCycle(),
                    epochClock,
                    errorHandler);
            });
        }
        if (states[partition].lastAppliedStreamSequence() > 0)
        {
            derivation.restore(states[partition]);
        }
        return derivation;
    }

    private int indexOf(final FeedStream stream)
    {
        for (int i = 0; i < derivedStreams.length; i++)
        {
            if (derivedStreams[i] == stream)
            {
                return i;
            }
        }
        throw new IllegalArgumentException("not a derived stream of this fanout: " + stream);
    }

    /** The configured channel as the fanout publishes on it: see {@link #publicationChannel(String, int)}. */
    String publicationChannel()
    {
        return publicationChannel(config.channel(), config.termLength());
    }

    /**
     * The channel the fanout publishes on: the given term length, max multicast flow control and a
     * log that is not sparse, unless the channel names its own. Max flow control is stated
     * explicitly because it is the contract with subscribers: the publisher follows the fastest
     * receiver, so a stalled subscriber never slows the others (see docs/OPERATIONS.md for min and tagged). Not sparse
     * (Aeron's default is sparse): the driver allocates and touches the whole log when the publication is added, so the
     * first pass through each term takes no page fault per 4 KiB page on the message path, in the
     * first seconds of a session, when the open brings the day's highest rates. The shared memory
     * it commits at start is what the terms fill after one pass anyway (the chart sizes /dev/shm for it).
     *
     * @param channel    the channel as configured.
     * @param termLength the term length to use unless the channel names its own.
     * @return the channel the fanout publishes on.
     */
    static String publicationChannel(final String channel, final int termLength)
    {
        final ChannelUri uri = ChannelUri.parse(channel);
        if (!uri.containsKey(CommonContext.TERM_LENGTH_PARAM_NAME))
        {
            uri.put(CommonContext.TERM_LENGTH_PARAM_NAME, Integer.toString(termLength));
        }
        if (!uri.containsKey(CommonContext.SPARSE_PARAM_NAME))
        {
            uri.put(CommonContext.SPARSE_PARAM_NAME, "false");
        }
        if (!uri.containsKey(CommonContext.FLOW_CONTROL_PARAM_NAME) && isMulticast(uri))
        {
            uri.put(CommonContext.FLOW_CONTROL_PARAM_NAME, "max");
        }
        return uri.toString();
    }

    private static boolean isMulticast(final ChannelUri uri)
    {
        final String endpoint = uri.get(CommonContext.ENDPOINT_PARAM_NAME);
        if (!uri.isUdp() || null == endpoint)
        {
            return false;
        }
        final int portSeparator = endpoint.lastIndexOf(':');
        final String host = (portSeparator > 0 ? endpoint.substring(0, portSeparator) : endpoint)
            .replace("[", "").replace("]", "");
        try
        {
            return InetAddress.getByName(host).isMulticastAddress();
        }
        catch (final IOException | RuntimeException ex)
        {
            return false; // let Aeron report the bad endpoint when the publication is added
        }
    }

    /**
     * The embedded driver's directory is named after the state directory rather than at random, so
     * a fanout restarted after kill -9 takes over (and cleans) its predecessor's directory instead
     * of leaving one behind in /dev/shm per crash. The state-directory lock makes it exclusive.
     */
    static String embeddedDriverDirectory(final Path stateDirectory)
    {
        final File shm = new File("/dev/shm");
        final File parent = shm.isDirectory() ? shm : new File(System.getProperty("java.io.tmpdir"));
        final String key = stateDirectory.toAbsolutePath().normalize().toString();
        return new File(parent, "mdfanout-fanout-" + Integer.toHexString(key.hashCode())).getAbsolutePath();
    }

    /** Once per fanout: publishers that follow a new generation keep counting in the same counters. */
    private void createCounters()
    {
        dutyCycleErrors = countersManager.newCounter("fanout duty-cycle errors", FANOUT_DUTY_CYCLE_ERRORS_TYPE_ID);
        sourceCounters = new SourceCounters(countersManager);
        for (int partition = 0; partition < publishers.length; partition++)
        {
            counters[partition] = new PartitionCounters(countersManager, partition);
            snapshotCounters[partition] = new SnapshotCounters(countersManager, partition);
            for (int i = 0; i < derivedStreams.length; i++)
            {
                derivedCounters[partition][i] = new DerivedCounters(countersManager, partition, derivedStreams[i]);
                derivedSnapshotCounters[partition][i] =
                    new SnapshotCounters(countersManager, partition, derivedStreams[i]);
            }
        }
    }

    private void startPublishers()
    {
        final PreciseEpochNanoClock epochClock = new PreciseEpochNanoClock();
        for (int partition = 0; partition < publishers.length; partition++)
        {
            final SnapshotPublisher snapshots = null == snapshotPublications[partition] ? null : new SnapshotPublisher(
                partition,
                states[partition],
                snapshotPublications[partition],
                publications[partition].sessionId(),
                snapshotCounters[partition],
                config.snapshotIntervalNs(),
                config.snapshotBytesPerCycle(),
                epochClock,
                errorHandler);
            publishers[partition] = new PartitionPublisher(
                partition,
                rings[partition].ring(),
                publications[partition],
                counters[partition],
                config.heartbeatIntervalNs(),
                config.ringReadLimit(),
                epochClock,
                SystemNanoClock.INSTANCE,
                errorHandler,
                config.stateUpkeep() ? states[partition] : null,
                snapshots);
            publishers[partition].describeFeed(publishers.length);
            derivations[partition] = newDerivation(partition, epochClock);
            if (null != derivations[partition])
            {
                publishers[partition].derive(derivations[partition]);
            }
            if (null != ringSet)
            {
                publishers[partition].followGeneration(ringSet, generation);
            }
            if (holdNewPublications)
            {
                publishers[partition].holdPacketsForNs(NEW_GENERATION_JOIN_GRACE_NS);
            }
            // One monitor per publisher thread over the same header; partition 0's publishes the metrics.
            publishers[partition].monitorSource(new SourceMonitor(ringSet, SystemEpochClock.INSTANCE,
                TimeUnit.NANOSECONDS.toMillis(config.sourceTimeoutNs()), 0 == partition ? sourceCounters : null));
        }

        if (FanoutThreading.SHARED == threading)
        {
            final Agent agent;
            if (ThreadingMode.INVOKER == driverThreadingMode && null != driver)
            {
                final Agent[] agents = java.util.Arrays.copyOf(publishers, publishers.length + 1, Agent[].class);
                agents[publishers.length] = new MediaInvokerAgent(driver.sharedAgentInvoker(), aeron.conductorAgentInvoker());
                agent = new CompositeAgent(agents);
            }
            else
            {
                agent = publishers.length == 1 ? publishers[0] : new CompositeAgent(publishers);
            }
            runners[0] = new AgentRunner(
                idleStrategy.newIdleStrategy(config.idleMaxParkNs()), errorHandler, dutyCycleErrors, agent);
            AgentRunner.startOnThread(runners[0], threadFactory(PUBLISHER_THREAD));
        }
        else
        {
            for (int partition = 0; partition < publishers.length; partition++)
            {
                runners[partition] = new AgentRunner(
                    idleStrategy.newIdleStrategy(config.idleMaxParkNs()), errorHandler, dutyCycleErrors, publishers[partition]);
                AgentRunner.startOnThread(runners[partition], threadFactory(PUBLISHER_THREAD_PREFIX + partition));
            }
        }
    }

    /**
     * A plain thread, not a busy one: the publishers notice a new generation within one duty cycle and stop;
     * this thread (every {@value #GENERATION_WATCH_INTERVAL_MS} ms) does the slow part, off their threads.
     */
    private void startGenerationWatcher()
    {
        if (null == ringSet)
        {
            return;
        }
        generationWatcher = new Thread(this::watchGeneration, "fanout-generation");
        generationWatcher.setDaemon(true);
        generationWatcher.start();
    }

    private void watchGeneration()
    {
        long checks = 0;
        long changeSeenMs = 0;
        while (!closed)
        {
            try
            {
                Thread.sleep(GENERATION_WATCH_INTERVAL_MS);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
            final boolean changed = ringSet.generation() != generation;
            final long nowMs = System.currentTimeMillis();
            changeSeenMs = !changed ? 0 : 0 == changeSeenMs ? nowMs : changeSeenMs;
            // Every publisher first publishes what the old generation still holds (bounded by each one's limit);
            // a publisher that never gets there (not running) holds the others up for the watcher's limit only.
            if (changed && (allPublishersSawNewGeneration() ||
                (anyPublisherSawNewGeneration() && nowMs - changeSeenMs > FOLLOW_GENERATION_LIMIT_MS)))
            {
                changeSeenMs = 0;
                synchronized (this)
                {
                    if (!closed)
                    {
                        followGeneration(null);
                    }
                }
            }
            else if (++checks % HEADER_FILE_CHECK_CYCLES == 0)
            {
                // The ring directory emptied and made again under a running fanout (a feed handler started
                // on a wiped /dev/shm): the file's generation differs from the one of the mapping held here.
                final long onDisk = RingSetHeader.readGeneration(config.ringDirectory());
                if (onDisk > 0 && onDisk != ringSet.generation())
                {
                    final RingSetHeader replaced = reopenHeader();
                    if (null != replaced)
                    {
                        synchronized (this)
                        {
                            if (!closed)
                            {
                                followGeneration(replaced);
                            }
                        }
                    }
                }
            }
        }
    }

    /** Map the directory's new header in place of the old one; returns the old one, or null when not ready yet. */
    private RingSetHeader reopenHeader()
    {
        try
        {
            final RingSetHeader fresh = RingSetHeader.openExisting(config.ringDirectory());
            if (null == fresh || !fresh.isInitialised() || 0 == fresh.generation() || generation == fresh.generation())
            {
                // Not ready yet, or the same generation after all (read while the producer was writing it).
                CloseHelper.close(fresh);
                return null;
            }
            final RingSetHeader old = ringSet;
            ringSet = fresh;
            System.err.println("fanout: " + RingSetHeader.file(config.ringDirectory()) + " was replaced " +
                "(the ring directory was emptied and a feed handler started afresh)");
            return old;
        }
        catch (final RuntimeException ex)
        {
            errorHandler.onError(ex);
            return null;
        }
    }

    private boolean allPublishersSawNewGeneration()
    {
        for (final PartitionPublisher publisher : publishers)
        {
            if (!publisher.hasGenerationChanged() && !publisher.isStopped())
            {
                return false;
            }
        }
        return true;
    }

    private boolean anyPublisherSawNewGeneration()
    {
        for (final PartitionPublisher publisher : publishers)
        {
            if (publisher.hasGenerationChanged() || publisher.isStopped())
            {
                return true;
            }
        }
        return false;
    }

    /**
     * The feed handler replaced the rings: stop, reset the states (the new generation starts from nothing or
     * from an exchange snapshot), map the new rings and publish them in new publications. Rings of another
     * layout are not followed: the error says which option disagrees, and the fanout waits for rings it can read.
     */
    private void followGeneration(final RingSetHeader replacedHeader)
    {
        for (final PartitionPublisher publisher : publishers)
        {
            publisher.stopForNewGeneration(); // so that a generation refused now is tried again when it changes
        }
        CloseHelper.closeAll(runners);
        java.util.Arrays.fill(runners, null);
        CloseHelper.close(replacedHeader); // no publisher reads it any more
        final long newGeneration = ringSet.generation();
        final String disagreement = disagreement(ringSet);
        if (null != disagreement)
        {
            if (newGeneration != refusedGeneration)
            {
                refusedGeneration = newGeneration; // reported once per generation
                errorHandler.onError(new IllegalStateException("ring generation " + newGeneration +
                    " not followed: " + disagreement));
            }
            return;
        }
        System.err.println("fanout: the feed handler replaced the rings in " + config.ringDirectory() +
            " (generation " + generation + " -> " + newGeneration + "): following, in new publications");
        closeDerivedPublications();
        CloseHelper.closeAll(snapshotPublications);
        CloseHelper.closeAll(publications);
        CloseHelper.closeAll(rings);
        java.util.Arrays.fill(rings, null);
        generation = newGeneration;
        try
        {
            mapRings();
            for (final PartitionState state : states)
            {
                state.reset("the rings were replaced: generation " + newGeneration);
            }
            addPublications();
            holdNewPublications = true;
            startPublishers();
            holdNewPublications = false;
            generationChanges++;
        }
        catch (final RuntimeException ex)
        {
            errorHandler.onError(new IllegalStateException("fanout: cannot follow ring generation " + newGeneration +
                ": " + ex.getMessage(), ex));
            generation = -1; // tried again on the next change, or at once when the rings appear
        }
    }

    /** @return how many new ring generations this fanout followed since it started. */
    public long generationChanges()
    {
        return generationChanges;
    }

    /** @return the ring generation being published (0 for rings without a header). */
    public long generation()
    {
        return generation;
    }

    /** @return the configuration this fanout runs with. */
    public FanoutConfig config()
    {
        return config;
    }

    /** @return which CPU each busy thread runs on, or why none is pinned. */
    public AffinityPlan affinityPlan()
    {
        return affinityPlan;
    }

    /** @return the publisher threading in effect: the configured one, or shared when auto pinning fell back. */
    public FanoutThreading threading()
    {
        return threading;
    }

    /** @return the publisher idle strategy in effect: the configured one, or backoff when auto pinning fell back. */
    public IdleStrategyType idleStrategy()
    {
        return idleStrategy;
    }

    /** @return the embedded driver's threading in effect: the configured one, or shared when auto pinning fell back. */
    public ThreadingMode driverThreadingMode()
    {
        return driverThreadingMode;
    }

    /** @return directory of the media driver in use (the embedded one's, or the configured external one). */
    public String aeronDirectoryName()
    {
        return null != driver ? driver.aeronDirectoryName() : config.aeronDirectoryName();
    }

    /** @return the channel the partition streams are published on (term length applied). */
    public String channel()
    {
        return publications[0].channel();
    }

    /** @return number of partitions. */
    public int partitionCount()
    {
        return publishers.length;
    }

    /**
     * @param partition 0..partitionCount-1.
     * @return that partition's counters.
     */
    public PartitionCounters counters(final int partition)
    {
        return counters[partition];
    }

    /**
     * @param partition 0..partitionCount-1.
     * @return that partition's state counters.
     */
    public PartitionStateCounters stateCounters(final int partition)
    {
        return stateCounters[partition];
    }

    /**
     * @param partition 0..partitionCount-1.
     * @return that partition's snapshot counters.
     */
    public SnapshotCounters snapshotCounters(final int partition)
    {
        return snapshotCounters[partition];
    }

    /** @return the streams this fanout publishes besides the MBO stream: its derived streams and the directory. */
    public FeedStream[] derivedStreams()
    {
        return derivedStreams.clone();
    }

    /**
     * @param partition a partition.
     * @return the partition's derived streams (null when none are published); read their state on its thread only.
     */
    public PartitionDerivation derivation(final int partition)
    {
        return derivations[partition];
    }

    /**
     * @param partition a partition.
     * @param stream    one of {@link #derivedStreams()}.
     * @return that derived stream's counters.
     */
    public DerivedCounters derivedCounters(final int partition, final FeedStream stream)
    {
        return derivedCounters[partition][indexOf(stream)];
    }

    /**
     * @param partition 0..partitionCount-1.
     * @return Aeron session id of that partition's incremental publication (new on every start).
     */
    public int sessionId(final int partition)
    {
        return publications[partition].sessionId();
    }

    /**
     * @return {@code state=fresh} or
     * {@code state=resumed(p0 seq=1235, p1 seq=998)} naming the stream sequence each resumed partition continues at.
     */
    public String stateDescription()
    {
        final StringBuilder resumed = new StringBuilder();
        for (final PartitionState state : states)
        {
            if (state.wasResumed())
            {
                resumed.append(resumed.length() == 0 ? "" : ", ")
                    .append('p').append(state.partitionId())
                    .append(" seq=").append(state.lastAppliedStreamSequence() + 1);
            }
        }
        return resumed.length() == 0 ? "state=fresh" : "state=resumed(" + resumed + ")";
    }

    /** @return the source's status as partition 0's publisher last derived it, for export. */
    public SourceCounters sourceCounters()
    {
        return sourceCounters;
    }

    /** @return counter of exceptions caught by the agent runners (should stay 0). */
    public AtomicCounter dutyCycleErrors()
    {
        return dutyCycleErrors;
    }

    /** @return a reader over every counter of this fanout, for export. */
    public CountersReader countersReader()
    {
        return countersManager;
    }

    /**
     * @param partition 0..partitionCount-1.
     * @return true when at least one subscriber is connected to that partition's stream.
     */
    public boolean isConnected(final int partition)
    {
        return publications[partition].isConnected();
    }

    /** @return true when any publisher stopped on a fatal publication error; the fanout should then be closed. */
    public boolean hasFailed()
    {
        for (final PartitionPublisher publisher : publishers)
        {
            if (null != publisher && publisher.isStopped())
            {
                return true;
            }
        }
        return null != aeron && aeron.isClosed();
    }

    /**
     * Why this fanout is not ready to serve subscribers, or null when it is: its feed handler is live (or its lines are
     * silent: a closed market is nothing to catch up with), every partition's ring is read to within
     * {@link #READY_UNREAD_FRACTION} of its capacity, and no publisher has failed. What {@code GET /ready} answers and
     * the chart's readiness probe asks: a pair's upgrade goes on to the other side only once this side is ready, and
     * two sides that are each caught up with the exchange publish in step with each other.
     * <p>
     * Called from the metrics server's thread; synchronized with a change of ring generation, which unmaps the rings.
     *
     * @return null when ready, else the reason in one line.
     */
    public synchronized String notReadyReason()
    {
        if (closed)
        {
            return "closed";
        }
        if (hasFailed())
        {
            return "a publisher stopped on a publication error";
        }
        if (null != ringSet)
        {
            final SourceStatus source = SourceStatus.get((short)sourceCounters.status().get());
            if (SourceStatus.LIVE != source && SourceStatus.LINES_SILENT != source)
            {
                return "source " + source;
            }
        }
        for (int partition = 0; partition < rings.length; partition++)
        {
            final PartitionRings.MappedRing ring = rings[partition];
            if (null == ring)
            {
                return "partition " + partition + ": no ring mapped (following new rings)";
            }
            final long consumer = ring.ring().consumerPosition();
            final long unread = ring.ring().producerPosition() - consumer;
            if (unread > ring.capacity() * READY_UNREAD_FRACTION)
            {
                return "partition " + partition + ": catching up, " + unread + " bytes of its ring unread";
            }
        }
        return null;
    }

    /** Stop the publisher threads and release the publications, client, embedded driver and rings. Idempotent. */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (null != generationWatcher)
        {
            generationWatcher.interrupt();
        }
        synchronized (this)
        {
            closeAll();
        }
    }

    private void closeAll()
    {
        CloseHelper.closeAll(runners);
        closeDerivedPublications();
        CloseHelper.closeAll(snapshotPublications);
        CloseHelper.closeAll(publications);
        CloseHelper.closeAll(states);
        CloseHelper.close(aeron);
        CloseHelper.close(driver);
        CloseHelper.closeAll(rings);
        CloseHelper.close(ringSet);
        CloseHelper.close(lockChannel); // releases the lock
        CloseHelper.close(errorLog);
        if (null != config.countersManager())
        {
            CloseHelper.closeAll(counters);
            CloseHelper.closeAll(stateCounters);
            CloseHelper.closeAll(snapshotCounters);
            for (int partition = 0; partition < derivedCounters.length; partition++)
            {
                CloseHelper.closeAll(derivedCounters[partition]);
                CloseHelper.closeAll(derivedSnapshotCounters[partition]);
            }
            CloseHelper.close(dutyCycleErrors);
            CloseHelper.close(sourceCounters);
        }
    }
}
