package io.mdfanout.archive;

import io.aeron.Aeron;
import io.aeron.ChannelUri;
import io.aeron.archive.Archive;
import io.aeron.archive.ArchiveMarkFile;
import io.aeron.archive.ArchiveThreadingMode;
import io.aeron.archive.ArchivingMediaDriver;
import io.aeron.archive.client.AeronArchive;
import io.aeron.archive.codecs.RecordingSignal;
import io.aeron.driver.MediaDriver;
import io.mdfanout.wire.ArchiveSessions;
import io.mdfanout.wire.IdleStrategyType;
import io.mdfanout.wire.Partitioning;
import io.mdfanout.wire.RingDirectoryLock;
import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The archive role: an Aeron media driver with Aeron Archive in this process, recording every partition stream
 * of a fanout (never the snapshot streams) into {@code --archive-dir} under a trading session, and serving
 * replays to subscribers on its control channel. It is one more multicast receiver of the fanout's streams: the
 * fanout's flow control does not wait for it, so a slow or full disk here never slows the live path; it shows
 * in this role's counters, log and alerts instead. Its duty cycle ({@link #doWork}) runs the recorders, watches
 * the disk, and applies retention.
 */
final class ArchiveRole implements Agent, AutoCloseable
{
    static final long DISK_CHECK_INTERVAL_MS = 100;
    static final long LAG_CHECK_INTERVAL_MS = 1000;
    /** Room kept beside the recordings' segments for Aeron's catalog and the session catalog. */
    static final long CATALOG_RESERVE_BYTES = 8L * 1024 * 1024;
    static final long RETENTION_INTERVAL_MS = 60_000;
    /** Stream ids of the local replays the recorders read their recordings with (IPC, in this process). */
    static final int LOCAL_REPLAY_STREAM_ID_BASE = 900_000;
    /** The most partitions a feed has (--partitions): side B's local replays take the stream ids after side A's. */
    static final int MAX_PARTITIONS = 256;
    /** How often a pair's holes are judged (the chain positions every side has recorded past). */
    static final long PAIR_HOLE_CHECK_INTERVAL_MS = 1000;
    /** The lock file that makes the archive directory one archive's. */
    static final String LOCK_FILE = "archive.lock";

    private final ArchiveSettings settings;
    private final PrintStream log;
    private final ArchivingMediaDriver driver;
    private final Aeron aeron;
    private final AeronArchive archive;
    private final SessionCatalog catalog;
    private final RingDirectoryLock lock;
    private final ArchiveCounters counters;
    private final CountersManager countersManager;
    /** Side A's partitions, then side B's in a pair. */
    private final PartitionRecorder[] recorders;
    /** A pair's: each partition's chain coverage, which its sides' recorders share; empty for one fanout. */
    private final ChainCoverage[] coverages;
    private final ArchiveCounters.Partition[] partitionCounters;
    private long nextPairHoleCheckMs;
    private final List<long[]> pendingSignals = new ArrayList<>();
    private final FileStore fileStore;
    private volatile boolean sawNoSpace;
    private volatile boolean sawIoError;
    private boolean lowSpaceReported;
    private long nextDiskCheckMs;
    private long nextLagCheckMs;
    private final long reserveBytes;
    private boolean stoppedForSpace;
    private long nextRetentionMs;
    /** The session being recorded: {@code --session} until the exchange ends it, then the next day's. */
    private volatile String session;

    ArchiveRole(final ArchiveSettings settings, final CountersManager countersManager, final ErrorHandler errorLog,
        final PrintStream log)
    {
        this.settings = settings;
        this.log = log;
        this.countersManager = countersManager;
        final Path archiveDir = settings.archiveDir();
        try
        {
            Files.createDirectories(archiveDir);
            fileStore = Files.getFileStore(archiveDir);
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("--archive-dir " + archiveDir + " cannot be used: " + ex.getMessage(), ex);
        }
        this.lock = RingDirectoryLock.acquire(archiveDir, LOCK_FILE, "archive",
            "one archive per --archive-dir; stop it or use another directory");
        removeStaleMarkFile(archiveDir, log);
        // Recording stops while this much is still free: a memory-mapped file (Aeron's catalog) on a full disk
        // faults the process instead of failing a write, and each partition's segment file may still grow by one.
        this.reserveBytes = (long)settings.partitions() * settings.segmentFileLength() + CATALOG_RESERVE_BYTES;
        this.counters = new ArchiveCounters(countersManager);
        this.catalog = new SessionCatalog(archiveDir);

        final ErrorHandler errors = (throwable) ->
        {
            if (isNoSpace(throwable))
            {
                sawNoSpace = true;
            }
            else if (isIoError(throwable))
            {
                sawIoError = true;
            }
            errorLog.onError(throwable);
        };
        final long maxParkNs = TimeUnit.MICROSECONDS.toNanos(settings.idleMaxParkUs());
        final IdleStrategyType idle = settings.idleStrategy();
        final MediaDriver.Context driverContext = new MediaDriver.Context()
            .aeronDirectoryName(settings.aeronDirectoryName())
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .threadingMode(settings.driverThreading())
            .sharedIdleStrategy(idle.newIdleStrategy(maxParkNs))
            .sharedNetworkIdleStrategy(idle.newIdleStrategy(maxParkNs))
            .conductorIdleStrategy(idle.newIdleStrategy(maxParkNs))
            .senderIdleStrategy(idle.newIdleStrategy(maxParkNs))
            .receiverIdleStrategy(idle.newIdleStrategy(maxParkNs))
            .socketRcvbufLength(ArchiveSettings.SOCKET_BUFFER_LENGTH)
            .initialWindowLength(ArchiveSettings.SOCKET_BUFFER_LENGTH)
            .spiesSimulateConnection(true)
            .errorHandler(errors);
        final Archive.Context archiveContext = new Archive.Context()
            .archiveDir(archiveDir.toFile())
            .aeronDirectoryName(settings.aeronDirectoryName())
            .controlChannel(settings.controlChannel())
            .controlStreamId(settings.controlStreamId())
            .localControlChannel("aeron:ipc")
            .replicationChannel(settings.replicationChannel())
            .recordingEventsEnabled(false)
            .threadingMode(ArchiveThreadingMode.SHARED)
            .idleStrategySupplier(() -> idle.newIdleStrategy(maxParkNs))
            .segmentFileLength(settings.segmentFileLength())
            .lowStorageSpaceThreshold(settings.segmentFileLength())
            .deleteArchiveOnStart(false)
            .markFileDir(new java.io.File(settings.aeronDirectoryName()))
            .errorHandler(errors);

        ArchivingMediaDriver launched = null;
        Aeron client = null;
        AeronArchive archiveClient = null;
        try
        {
            launched = ArchivingMediaDriver.launch(driverContext, archiveContext);
            client = Aeron.connect(new Aeron.Context().aeronDirectoryName(settings.aeronDirectoryName())
                .errorHandler(errors));
            archiveClient = AeronArchive.connect(new AeronArchive.Context()
                .aeron(client)
                .controlRequestChannel("aeron:ipc")
                .controlRequestStreamId(archiveContext.localControlStreamId())
                .controlResponseChannel("aeron:ipc")
                .controlResponseStreamId(ArchiveSettings.LOCAL_CONTROL_RESPONSE_STREAM_ID)
                .recordingSignalConsumer(this::onSignal)
                .errorHandler(errors));
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(archiveClient, client, launched, catalog, lock);
            throw ex;
        }
        this.driver = launched;
        this.aeron = client;
        this.archive = archiveClient;

        this.session = settings.sessionGiven() ? settings.session() :
            SessionRoll.current(settings.session(), catalog.sessions());
        if (!session.equals(settings.session()))
        {
            log.println("archive: continuing session " + session + ", the newest this archive rolled into (today is " +
                settings.session() + ")");
        }
        final int partitions = settings.partitions();
        recorders = new PartitionRecorder[settings.sideCount() * partitions];
        coverages = new ChainCoverage[settings.sideCount() > 1 ? partitions : 0];
        partitionCounters = new ArchiveCounters.Partition[partitions];
        for (int partition = 0; partition < partitions; partition++)
        {
            partitionCounters[partition] = counters.partition(partition);
            if (coverages.length > 0)
            {
                coverages[partition] = new ChainCoverage(settings.sideCount());
            }
        }
        for (int side = 0; side < settings.sideCount(); side++)
        {
            final String recordingChannel = recordingChannel(session, side);
            for (int partition = 0; partition < partitions; partition++)
            {
                recorders[side * partitions + partition] = new PartitionRecorder(
                    partition, side, coverages.length > 0 ? coverages[partition] : null,
                    Partitioning.streamId(settings.streamIdBase(side), partition), recordingChannel, session,
                    LOCAL_REPLAY_STREAM_ID_BASE + side * MAX_PARTITIONS + partition, aeron, archive, catalog,
                    counters.side(partition, side), partitionCounters[partition], log);
            }
        }
    }

    private String recordingChannel(final String session, final int side)
    {
        final ChannelUri recordingUri = ChannelUri.parse(settings.channel(side));
        recordingUri.put("alias", ArchiveSessions.alias(session, side));
        return recordingUri.toString();
    }

    /**
     * A pair's holes: the chain positions no side recorded, once every side is past them (or the session ended).
     *
     * @param ended the session ended: a side that never came back lacks what it did not record.
     */
    private int reportPairHoles(final String ofSession, final boolean ended)
    {
        int work = 0;
        for (int partition = 0; partition < coverages.length; partition++)
        {
            final int p = partition;
            final ChainCoverage.HoleHandler handler = (afterChain, throughChain) ->
            {
                partitionCounters[p].holes.increment();
                log.println("archive: HOLE in session " + ofSession + " partition " + p + ": no side recorded the " +
                    "chain positions after " + afterChain + " through " + throughChain + " (" +
                    (0 == afterChain ? PartitionRecorder.REASON_BEFORE_START : PartitionRecorder.REASON_NO_SIDE) + ")");
                try
                {
                    catalog.pairHole(ofSession, p, afterChain, throughChain,
                        0 == afterChain ? PartitionRecorder.REASON_BEFORE_START : PartitionRecorder.REASON_NO_SIDE);
                }
                catch (final RuntimeException ex)
                {
                    log.println(ex.getMessage());
                }
            };
            work += ended ? coverages[partition].finish(handler) : coverages[partition].confirm(handler);
        }
        return work;
    }

    /** The session being recorded now. */
    String session()
    {
        return session;
    }

    /**
     * The exchange ended the trading day (its End of Messages recorded on every partition): from now on the
     * next session is recorded, under its own name ({@link SessionRoll}), with no restart; retention runs at once.
     */
    private int rollIfDayEnded()
    {
        final int partitions = settings.partitions();
        for (int partition = 0; partition < partitions; partition++)
        {
            boolean ended = false; // on some side: a side that is down does not hold the day open
            for (int side = 0; side < settings.sideCount(); side++)
            {
                ended |= recorders[side * partitions + partition].hasEndOfMessages();
            }
            if (!ended)
            {
                return 0;
            }
        }
        final String ended = session;
        reportPairHoles(ended, true);
        for (final ChainCoverage coverage : coverages)
        {
            coverage.reset();
        }
        session = SessionRoll.next(ended);
        for (int side = 0; side < settings.sideCount(); side++)
        {
            final String channel = recordingChannel(session, side);
            for (int partition = 0; partition < partitions; partition++)
            {
                recorders[side * partitions + partition].roll(session, channel, settings.channel(side));
            }
        }
        counters.sessionsRolled.increment();
        log.println("archive: session " + ended + " ended (the exchange's End of Messages on every partition): " +
            "recording session " + session + " from now on");
        applyRetention();
        return 1;
    }

    /**
     * Aeron Archive refuses to start for a while (the driver timeout) after a crash, its mark file looking active.
     * This process holds the directory's lock, so no archive runs on it: the mark file is a dead one's.
     */
    private static void removeStaleMarkFile(final Path archiveDir, final PrintStream log)
    {
        final Path markFile = archiveDir.resolve(ArchiveMarkFile.FILENAME);
        try
        {
            if (Files.deleteIfExists(markFile))
            {
                log.println("archive: removed the mark file of an archive that stopped here before (" + markFile + ")");
            }
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot remove " + markFile + ": " + ex.getMessage(), ex);
        }
    }

    static boolean isNoSpace(final Throwable throwable)
    {
        for (Throwable t = throwable; null != t; t = t.getCause())
        {
            final String message = t.getMessage();
            if (null != message && (message.contains("No space left") || message.contains("insufficient usable storage")))
            {
                return true;
            }
        }
        return false;
    }

    static boolean isIoError(final Throwable throwable)
    {
        for (Throwable t = throwable; null != t; t = t.getCause())
        {
            if (t instanceof IOException || t instanceof java.io.UncheckedIOException)
            {
                return true;
            }
        }
        return false;
    }

    /** Start the recordings (after the recorders scanned what they need, on the first duty cycles). */
    public void onStart()
    {
        checkDisk(System.currentTimeMillis());
        applyRetention();
    }

    public int doWork()
    {
        int work = 0;
        final long nowMs = System.currentTimeMillis();
        work += archive.pollForRecordingSignals();
        // Handled after the poll: the recorders call the archive client, which its callbacks may not.
        for (int i = 0; i < pendingSignals.size(); i++)
        {
            final long[] signal = pendingSignals.get(i);
            handleSignal(signal[0], signal[1], signal[2], RecordingSignal.get((short)signal[3]));
        }
        pendingSignals.clear();
        for (final PartitionRecorder recorder : recorders)
        {
            if ((PartitionRecorder.State.AWAIT_RECORDING == recorder.state() ||
                PartitionRecorder.State.SCAN_PREVIOUS == recorder.state()) && Aeron.NULL_VALUE == recorder.subscriptionId())
            {
                recorder.startRecording();
                work++;
            }
            work += recorder.doWork(nowMs);
        }
        if (coverages.length > 0 && nowMs >= nextPairHoleCheckMs)
        {
            nextPairHoleCheckMs = nowMs + PAIR_HOLE_CHECK_INTERVAL_MS;
            work += reportPairHoles(session, false);
        }
        work += rollIfDayEnded();
        if (nowMs >= nextDiskCheckMs)
        {
            nextDiskCheckMs = nowMs + DISK_CHECK_INTERVAL_MS;
            checkDisk(nowMs);
        }
        if (nowMs >= nextLagCheckMs)
        {
            nextLagCheckMs = nowMs + LAG_CHECK_INTERVAL_MS;
            final CountersReader reader = aeron.countersReader();
            for (final PartitionRecorder recorder : recorders)
            {
                recorder.updateLag(reader);
            }
        }
        if (nowMs >= nextRetentionMs)
        {
            nextRetentionMs = nowMs + RETENTION_INTERVAL_MS;
            applyRetention();
        }
        return work;
    }

    public String roleName()
    {
        return "archive";
    }

    ArchiveCounters counters()
    {
        return counters;
    }

    String aeronDirectoryName()
    {
        return settings.aeronDirectoryName();
    }

    Path catalogFile()
    {
        return catalog.file();
    }

    private void onSignal(
        final long controlSessionId,
        final long correlationId,
        final long recordingId,
        final long subscriptionId,
        final long position,
        final RecordingSignal signal)
    {
        pendingSignals.add(new long[]{ recordingId, subscriptionId, position, signal.value() });
    }

    private void handleSignal(
        final long recordingId, final long subscriptionId, final long position, final RecordingSignal signal)
    {
        for (final PartitionRecorder recorder : recorders)
        {
            if (recorder.subscriptionId() == subscriptionId ||
                (RecordingSignal.STOP == signal && Aeron.NULL_VALUE == subscriptionId))
            {
                if (RecordingSignal.START == signal)
                {
                    recorder.onRecordingStarted(recordingId, position);
                }
                else if (RecordingSignal.STOP == signal)
                {
                    final boolean diskFull = sawNoSpace || usableSpace() < settings.segmentFileLength();
                    final boolean byError = diskFull || sawIoError;
                    sawIoError = false;
                    recorder.onRecordingStopped(recordingId, byError,
                        diskFull ? ArchiveCounters.DISK_FULL : ArchiveCounters.IO_ERROR);
                }
            }
        }
    }

    private long usableSpace()
    {
        try
        {
            return fileStore.getUsableSpace();
        }
        catch (final IOException ex)
        {
            return 0;
        }
    }

    private void checkDisk(final long nowMs)
    {
        final long free = usableSpace();
        long total = 0;
        try
        {
            total = fileStore.getTotalSpace();
        }
        catch (final IOException ignore)
        {
            // Reported as 0.
        }
        counters.diskFreeBytes.setRelease(free);
        counters.diskTotalBytes.setRelease(total);
        final boolean low = free < settings.minFreeBytes();
        if (low && !lowSpaceReported)
        {
            log.println("archive: WARNING: " + settings.archiveDir() + " has " + free + " bytes free of " + total +
                ", below --min-free-bytes " + settings.minFreeBytes() + ": recording stops at " + reserveBytes +
                " bytes free");
        }
        lowSpaceReported = low;
        if (free < reserveBytes || sawNoSpace)
        {
            if (!stoppedForSpace)
            {
                stoppedForSpace = true;
                log.println("archive: ERROR: disk full: " + settings.archiveDir() + " has " + free + " bytes free of " +
                    total + " (recording stops below " + reserveBytes + "): every recording is stopped; the live " +
                    "stream is unaffected; recording resumes once " + (reserveBytes + settings.minFreeBytes()) +
                    " bytes are free, and what passes meanwhile is reported as a hole");
            }
            for (final PartitionRecorder recorder : recorders)
            {
                recorder.stopForError(ArchiveCounters.DISK_FULL);
            }
        }
        else if (stoppedForSpace && free >= reserveBytes + settings.minFreeBytes())
        {
            stoppedForSpace = false;
            sawNoSpace = false;
            log.println("archive: " + settings.archiveDir() + " has " + free + " bytes free again: recording resumes");
            for (final PartitionRecorder recorder : recorders)
            {
                recorder.restartAfterError();
            }
        }
    }

    /**
     * Retention: keep the newest {@code --retain-sessions} sessions and at most {@code --retain-bytes} of
     * recordings, deleting whole sessions, oldest first, never the one being recorded.
     */
    private void applyRetention()
    {
        final Map<String, List<long[]>> sessions = new LinkedHashMap<>();
        archive.listRecordings(0, Integer.MAX_VALUE, (controlSessionId, correlationId, recordingId, startTimestamp,
            stopTimestamp, startPosition, stopPosition, initialTermId, segmentFileLength, termBufferLength, mtuLength,
            sessionId, streamId, strippedChannel, originalChannel, sourceIdentity) ->
        {
            final String session = ArchiveSessions.sessionOf(originalChannel);
            if (null != session)
            {
                final long length = stopPosition >= startPosition ? stopPosition - startPosition : 0;
                sessions.computeIfAbsent(session, (s) -> new ArrayList<>()).add(new long[]{ recordingId, length });
            }
        });
        // The session being recorded counts from the start, before its first recording is in the catalog.
        sessions.putIfAbsent(session, new ArrayList<>());
        final List<String> names = new ArrayList<>(sessions.keySet());
        long totalBytes = 0;
        for (final List<long[]> recordings : sessions.values())
        {
            for (final long[] recording : recordings)
            {
                totalBytes += recording[1];
            }
        }
        int retained = names.size();
        for (final String name : names)
        {
            final boolean tooMany = settings.retainSessions() > 0 && retained > settings.retainSessions();
            final boolean tooBig = settings.retainBytes() > 0 && totalBytes > settings.retainBytes();
            if (name.equals(session) || !(tooMany || tooBig))
            {
                continue;
            }
            for (final long[] recording : sessions.get(name))
            {
                try
                {
                    archive.purgeRecording(recording[0]);
                    totalBytes -= recording[1];
                }
                catch (final RuntimeException ex)
                {
                    log.println("archive: retention could not delete recording " + recording[0] + " of session " +
                        name + ": " + ex.getMessage());
                }
            }
            retained--;
            counters.sessionsDeleted.increment();
            log.println("archive: retention deleted session " + name + " (" + sessions.get(name).size() +
                " recordings)");
        }
        counters.sessionsRetained.setRelease(retained);
    }

    public void onClose()
    {
        close();
    }

    public void close()
    {
        for (final PartitionRecorder recorder : recorders)
        {
            CloseHelper.quietClose(recorder);
        }
        CloseHelper.quietCloseAll(archive, aeron, driver, catalog, lock);
    }
}
