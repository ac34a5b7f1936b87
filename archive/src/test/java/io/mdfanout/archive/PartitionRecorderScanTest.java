package io.mdfanout.archive;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.archive.Archive;
import io.aeron.archive.ArchiveThreadingMode;
import io.aeron.archive.ArchivingMediaDriver;
import io.aeron.archive.client.AeronArchive;
import io.aeron.archive.codecs.SourceLocation;
import io.aeron.archive.status.RecordingPos;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.PacketHeaderEncoder;
import io.mdfanout.wire.ArchiveSessions;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A restarted archive reads the session's last recording of each partition to its end, for where it stopped; the
 * hole it then reports, and the catalog line of the new recording, wait for that scan. Aeron Archive drops a replay
 * whose subscriber did not connect in time, or ends one early on an error: a scan must not wait for it forever. A
 * real archive and a real recording; the replay is stopped from outside, and the role's clock is injected.
 */
class PartitionRecorderScanTest
{
    private static final String SESSION = "2026-11-27";
    private static final int STREAM_ID = 4001;
    private static final int MESSAGES_PER_PACKET = 3;
    private static final int PACKETS = 20_000;

    @TempDir
    Path dir;

    private ArchivingMediaDriver driver;
    private Aeron aeron;
    private AeronArchive archive;

    @BeforeEach
    void launch()
    {
        final String aeronDir = dir.resolve("aeron").toString();
        driver = ArchivingMediaDriver.launch(
            new MediaDriver.Context().aeronDirectoryName(aeronDir).threadingMode(ThreadingMode.SHARED)
                .dirDeleteOnStart(true).dirDeleteOnShutdown(true),
            new Archive.Context().aeronDirectoryName(aeronDir).archiveDir(dir.resolve("archive").toFile())
                .controlChannel("aeron:udp?endpoint=localhost:0").localControlChannel("aeron:ipc")
                .replicationChannel("aeron:udp?endpoint=localhost:0").recordingEventsEnabled(false)
                .threadingMode(ArchiveThreadingMode.SHARED).deleteArchiveOnStart(true));
        aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(aeronDir));
        archive = AeronArchive.connect(new AeronArchive.Context().aeron(aeron)
            .controlRequestChannel("aeron:ipc").controlRequestStreamId(driver.archive().context().localControlStreamId())
            .controlResponseChannel("aeron:ipc").controlResponseStreamId(ArchiveSettings.LOCAL_CONTROL_RESPONSE_STREAM_ID));
    }

    @AfterEach
    void close()
    {
        CloseHelper.quietCloseAll(archive, aeron, driver);
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aScanWhoseReplayTheArchiveDroppedIsOpenedAgainFromWhereItStoppedAndCountsEveryMessageOnce() throws Exception
    {
        final long recordingId = record();
        final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
        final PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);
        final ArchiveCounters counters = new ArchiveCounters(new CountersManager(
            new UnsafeBuffer(ByteBuffer.allocateDirect(64 * 1024)), new UnsafeBuffer(ByteBuffer.allocateDirect(16 * 1024))));
        final ArchiveCounters.Side partitionCounters = counters.side(0, 0);
        try (SessionCatalog catalog = new SessionCatalog(dir.resolve("archive"));
            PartitionRecorder recorder = scanAfterRestart(catalog, recordingId, counters, partitionCounters, log))
        {
            // The archive drops the scan's replay before it delivered the recording (as it does with one whose
            // subscriber did not connect in time): the replay's publication is closed mid-recording.
            archive.stopAllReplays(recordingId);
            long nowMs = 1_000;
            final long realDeadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (PartitionRecorder.State.SCAN_PREVIOUS == recorder.state() && System.nanoTime() < realDeadlineNs)
            {
                if (0 == recorder.doWork(nowMs))
                {
                    Thread.sleep(1);
                    nowMs += 100; // the role's clock: a stalled replay is noticed once REPLAY_STALL_TIMEOUT_MS passed
                }
            }
            final String logText = logBytes.toString(StandardCharsets.UTF_8);
            assertEquals(PartitionRecorder.State.AWAIT_RECORDING, recorder.state(), "the scan ended: " + logText);
            assertTrue(recorder.replayReopens() >= 1, "the dropped replay was opened again: " + logText);
            assertTrue(logText.contains("archive: partition 0: the local replay of recording " + recordingId),
                "the stall is logged: " + logText);
            final long messages = (long)PACKETS * MESSAGES_PER_PACKET;
            assertTrue(logText.contains("the session's last recording ends before stream sequence " + (messages + 1)),
                "the scan read the recording to its end, for the exact next stream sequence: " + logText);
            assertEquals(messages, partitionCounters.recordedMessages.get(),
                "every recorded message counted once, none twice across the reopened replay");
        }
    }

    private PartitionRecorder scanAfterRestart(
        final SessionCatalog catalog,
        final long recordingId,
        final ArchiveCounters counters,
        final ArchiveCounters.Side sideCounters,
        final PrintStream log)
    {
        catalog.recordingStarted(SESSION, 0, 0, recordingId, 0, 1, 0);
        return new PartitionRecorder(0, 0, null, STREAM_ID, "aeron:ipc?alias=" + ArchiveSessions.alias(SESSION),
            SESSION, ArchiveRole.LOCAL_REPLAY_STREAM_ID_BASE, aeron, archive, catalog, sideCounters,
            counters.partition(0), log);
    }

    /** A partition's stream of packets, recorded to its end and stopped: the session's last recording. */
    private long record() throws InterruptedException
    {
        // A small term: the replay cannot run ahead of its subscriber by more than a term, so it is mid-recording
        // when the test drops it.
        final String channel = "aeron:ipc?term-length=64k";
        final long subscriptionId = archive.startRecording(channel, STREAM_ID, SourceLocation.LOCAL);
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        final MessageHeaderEncoder header = new MessageHeaderEncoder();
        final PacketHeaderEncoder packet = new PacketHeaderEncoder();
        try (ExclusivePublication publication = aeron.addExclusivePublication(channel, STREAM_ID))
        {
            final CountersReader counters = aeron.countersReader();
            int counterId;
            while (CountersReader.NULL_COUNTER_ID ==
                (counterId = RecordingPos.findCounterIdBySession(counters, publication.sessionId(),
                    archive.archiveId())))
            {
                Thread.sleep(1);
            }
            final long recordingId = RecordingPos.getRecordingId(counters, counterId);
            for (int i = 0; i < PACKETS; i++)
            {
                packet.wrapAndApplyHeader(buffer, 0, header).streamSequence(1L + (long)i * MESSAGES_PER_PACKET)
                    .sendingTime(i).partitionId(0).messageCount(MESSAGES_PER_PACKET);
                while (publication.offer(buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + packet.encodedLength()) < 0)
                {
                    Thread.yield();
                }
            }
            while (counters.getCounterValue(counterId) < publication.position())
            {
                Thread.sleep(1);
            }
            archive.stopRecording(subscriptionId);
            return recordingId;
        }
    }
}
