package io.mdfanout.cli;

import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.OrderExecutedDecoder;
import io.mdfanout.sbe.OrderExecutedWithPriceDecoder;
import io.mdfanout.sbe.OrderReplaceDecoder;
import io.mdfanout.wire.WireFormat;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The archive in the chain, every role a process of its own over real multicast with a real Aeron Archive: a
 * subscriber started late from an earlier point replays then joins live with nothing lost or repeated; the
 * archive killed with -9 and restarted reports exactly the stretch it missed; a full disk stops the recording
 * with a clear error while the live subscribers lose nothing; an export of a range reads back in Databento's own
 * decoder.
 */
class ArchiveTest
{
    private static final long MESSAGES = 1_000_000L;
    private static final int RATE = 40_000;
    private static final int PARTITIONS = 4;
    private static final int SYMBOLS = 200;
    private static final String SESSION = "2026-11-27";
    private static final Pattern REPLAY_LIVE = Pattern.compile("REPLAY_LIVE partition=(\\d+) nextStreamSequence=(\\d+)");
    private static final Pattern HOLE = Pattern.compile(
        "^hole session=\\S+ partition=(\\d+) first-missing=(\\d+) last-missing=(\\d+) .*reason=(\\S+)");
    private static final Path DBN_PYTHON = Path.of(System.getProperty("user.home"), ".cache", "mdfanout", "dbn-venv",
        "bin", "python");
    private static final Path DBN_READER = Path.of("..", "scripts", "dbn", "read_dbn.py").toAbsolutePath().normalize();

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void aSubscriberStartedAtFortyPercentFromTenPercentGetsEveryMessageOnceThenLiveAndTheExportReadsBack(
        @TempDir final Path dir) throws Exception
    {
        final long seed = 29001L;
        final ExpectedStreams expected = ExpectedStreams.generate(seed, SYMBOLS, MESSAGES, PARTITIONS);
        final long[] counts = expected.counts();
        final long[] from = new long[PARTITIONS];
        final StringBuilder fromOption = new StringBuilder("seq:");
        for (int p = 0; p < PARTITIONS; p++)
        {
            from[p] = counts[p] / 10;
            fromOption.append(0 == p ? "" : ",").append(p).append('=').append(from[p]);
        }

        final String channel = "aeron:udp?endpoint=224.0.1.129:29000|interface=127.0.0.1|mtu=8192";
        final String control = "aeron:udp?endpoint=localhost:29010";
        try (ChainHarness chain = new ChainHarness(dir, "archive", PARTITIONS, channel, 2900))
        {
            chain.feedHandler("--group", "239.255.29.1", "--port", "29100", "--interface", "127.0.0.1");
            chain.fanout();
            final ChainProcess archive = archive(chain, dir, "archive", dir.resolve("archive"), control, 19404);
            final List<ChainProcess> live = chain.recorders(1);
            final ChainProcess simulator = chain.simulator(
                "--group", "239.255.29.1", "--port", "29100", "--interface", "127.0.0.1",
                "--seed", Long.toString(seed), "--symbols", Integer.toString(SYMBOLS),
                "--messages", Long.toString(MESSAGES), "--rate", Integer.toString(RATE));

            // At 40%: the replay (from the session's first message, for the books) must catch up with a live
            // stream that moves on. Started at 60%, a loaded 2-core machine replayed to the session's end before
            // three of four partitions could switch (the replay's lead over live was too small to close).
            ChainHarness.awaitSimulatorProgress(simulator, MESSAGES * 4 / 10);
            final String progress = simulator.lastLineContaining("simulator: messages=");
            final Path lateRecording = dir.resolve("late.bin");
            final Path lateBooks = dir.resolve("late.books");
            final ChainProcess late = chain.start("late", "record", "--channel", channel, "--stream-id-base", "2900",
                "--partitions", Integer.toString(PARTITIONS), "--from", fromOption.toString(),
                "--archive-control-channel", control, "--out", lateRecording.toString(),
                "--books-out", lateBooks.toString(), "--until-end-of-messages", "--timeout-s", "600");
            System.out.println("archive: the late subscriber started at " + progress + ", from " + fromOption);

            assertEquals(0, simulator.waitFor(10, TimeUnit.MINUTES), "simulator exit code");
            assertEquals(0, live.get(0).waitFor(5, TimeUnit.MINUTES), "live subscriber exit code");
            assertEquals(0, late.waitFor(5, TimeUnit.MINUTES), "late subscriber exit code (0: no gap, no stale)");
            assertTrue(Long.parseLong(progress.replaceAll("^.*?simulator: messages=(\\d+).*$", "$1")) >= MESSAGES * 4 / 10,
                "started after 40% of the session: " + progress);

            expected.verifyRecording(chain.recording(1), "live subscriber");
            expected.verifyRecordingFrom(lateRecording, "late subscriber", from);
            assertEquals(expected.books(), Files.readString(lateBooks),
                "the late subscriber's books equal the reference book");

            final List<String> switches = late.linesContaining("REPLAY_LIVE");
            assertEquals(PARTITIONS, switches.size(), "one replay-to-live switch per partition, logged: " + switches);
            for (final String line : switches)
            {
                final Matcher matcher = REPLAY_LIVE.matcher(line);
                assertTrue(matcher.find(), line);
                final int p = Integer.parseInt(matcher.group(1));
                final long next = Long.parseLong(matcher.group(2));
                assertTrue(next > counts[p] * 4 / 10 && next <= counts[p],
                    "partition " + p + " went live after the 40% point it started at, before the end: " + line);
            }
            final String summary = late.lastLineContaining("record: messages=");
            assertTrue(summary.matches(".* replaySwitches=" + PARTITIONS + "\\b.*"), "the switches are counted: " + summary);
            assertTrue(summary.contains(" gaps=0 "), summary);

            exportARangeAndReadItBackWithDatabentosDecoder(chain, dir, expected, control);
            assertEquals(0, archive.stop(), "archive stopped on SIGTERM");
            chain.passed();
        }
    }

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void anArchiveKilledAndRestartedMidSessionHoldsExactlyWhatItReceivedAndReportsTheHole(@TempDir final Path dir)
        throws Exception
    {
        final long seed = 29002L;
        // Shorter than the others: the archive is down from 30% to 50%, and nothing here needs a long session.
        final long messages = MESSAGES * 6 / 10;
        final String channel = "aeron:udp?endpoint=224.0.1.131:29200|interface=127.0.0.1|mtu=8192";
        final String control = "aeron:udp?endpoint=localhost:29210";
        final Path archiveDir = dir.resolve("archive");
        try (ChainHarness chain = new ChainHarness(dir, "archivekill", PARTITIONS, channel, 2920))
        {
            chain.feedHandler("--group", "239.255.29.3", "--port", "29300", "--interface", "127.0.0.1");
            chain.fanout();
            final ChainProcess archive = archive(chain, dir, "archive", archiveDir, control, 0);
            final List<ChainProcess> live = chain.recorders(1);
            final ChainProcess simulator = chain.simulator(
                "--group", "239.255.29.3", "--port", "29300", "--interface", "127.0.0.1",
                "--seed", Long.toString(seed), "--symbols", Integer.toString(SYMBOLS),
                "--messages", Long.toString(messages), "--rate", Integer.toString(RATE));

            ChainHarness.awaitSimulatorProgress(simulator, messages * 3 / 10);
            archive.kill9();
            assertFalse(archive.isAlive(), "the archive is dead");
            ChainHarness.awaitSimulatorProgress(simulator, messages * 5 / 10);
            final ChainProcess restarted = archive(chain, dir, "archive-restarted", archiveDir, control, 0);
            final ChainProcess second = chain.start("second-archive", "archive", "--archive-dir", archiveDir.toString(),
                "--aeron-dir", "/dev/shm/mdfanout-archive-second-" + ProcessHandle.current().pid(),
                "--control-channel", "aeron:udp?endpoint=localhost:29211", "--session", SESSION);
            assertEquals(3, second.waitFor(60, TimeUnit.SECONDS), "a second archive on the directory is refused");
            assertFalse(second.lastLineContaining("is in use by archive pid " + restarted.pid()).isEmpty(),
                "the refusal names the archive that holds the directory: " + second.logTail());

            assertEquals(0, simulator.waitFor(10, TimeUnit.MINUTES), "simulator exit code");
            assertEquals(0, live.get(0).waitFor(5, TimeUnit.MINUTES), "live subscriber exit code");
            final ExpectedStreams expected = ExpectedStreams.generate(seed, SYMBOLS, messages, PARTITIONS);
            expected.verifyRecording(chain.recording(1), "live subscriber (the archive's death changes nothing live)");

            // Everything the archive holds, replayed to its end: the holes are gaps, reported, and the rest exact.
            final Path replayed = dir.resolve("replayed.bin");
            final ChainProcess replay = chain.start("replay-only", "record", "--channel", channel,
                "--stream-id-base", "2920", "--partitions", Integer.toString(PARTITIONS), "--from", "start",
                "--replay-only", "--archive-control-channel", control, "--out", replayed.toString(),
                "--timeout-s", "300");
            assertEquals(4, replay.waitFor(5, TimeUnit.MINUTES),
                "a replay of an archive with holes ends in data loss (exit 4), not silently");
            final List<List<long[]>> missing = expected.missingRanges(replayed, "the archive's recording");

            final List<List<long[]>> reported = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++)
            {
                reported.add(new ArrayList<>());
            }
            for (final String line : Files.readAllLines(archiveDir.resolve("mdfanout-catalog.txt")))
            {
                final Matcher matcher = HOLE.matcher(line);
                if (matcher.find())
                {
                    reported.get(Integer.parseInt(matcher.group(1))).add(
                        new long[]{ Long.parseLong(matcher.group(2)), Long.parseLong(matcher.group(3)) });
                    assertEquals("not-recorded", matcher.group(4), line);
                }
            }
            long missed = 0;
            for (int p = 0; p < PARTITIONS; p++)
            {
                assertEquals(1, missing.get(p).size(), "partition " + p + ": one stretch missed while the archive " +
                    "was dead: " + describe(missing.get(p)));
                assertEquals(describe(missing.get(p)), describe(reported.get(p)),
                    "partition " + p + ": the hole the catalog reports is exactly what the recording lacks");
                missed += missing.get(p).get(0)[1] - missing.get(p).get(0)[0] + 1;
            }
            assertEquals(PARTITIONS, restarted.linesContaining("archive: HOLE in session").size(),
                "the restarted archive logs each hole");
            final String summary = replay.lastLineContaining("record: messages=");
            assertTrue(summary.contains(" gaps=" + PARTITIONS + " ") && summary.contains(" missing=" + missed + " "),
                "the replay reports the holes as gaps: " + summary);
            System.out.println("archive: killed at 30%, restarted at 50%: " + missed + " messages not recorded, " +
                "reported as " + PARTITIONS + " holes; the rest of the recording is byte-exact");

            // A subscriber that replays from the start into live meets the holes: each partition joins the live
            // stream there, reports the gap, goes stale and recovers from a snapshot, as any subscriber would.
            final Path lateRecording = dir.resolve("late.bin");
            final Path lateBooks = dir.resolve("late.books");
            final ChainProcess late = chain.start("late", "record", "--channel", channel, "--stream-id-base", "2920",
                "--partitions", Integer.toString(PARTITIONS), "--from", "start", "--archive-control-channel", control,
                "--out", lateRecording.toString(), "--books-out", lateBooks.toString(),
                "--coverage-out", ExpectedStreams.coverageFile(lateRecording).toString(), "--until-end-of-messages",
                "--timeout-s", "300");
            assertEquals(0, late.waitFor(5, TimeUnit.MINUTES), "the late subscriber recovered every partition");
            assertEquals(PARTITIONS, late.linesContaining("reason=GAP").size(),
                "each partition's hole is a reported gap: " + late.linesContaining("STALE"));
            assertEquals(PARTITIONS, late.linesContaining("replay of partition").size(),
                "each partition's replay says where the archive's hole made it join the live stream");
            final String lateSummary = late.lastLineContaining("record: messages=");
            assertTrue(lateSummary.contains(" snapshotsApplied=" + PARTITIONS + " ") &&
                lateSummary.contains(" gaps=" + PARTITIONS + " "), "a gap and a snapshot per partition: " + lateSummary);
            // The session is over: after its snapshot a partition delivers nothing more, so the recording is checked
            // for exactness and order, and the books for the state the snapshots completed.
            expected.verifyDisturbedRecording(lateRecording, "late subscriber");
            assertEquals(expected.books(), Files.readString(lateBooks), "its books equal the reference after recovery");
            assertEquals(0, restarted.stop(), "restarted stopped on SIGTERM");
            chain.passed();
        }
    }

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void aFanoutKilledMidSessionStartsANewRecordingAndArchiveAndReplayAccountForEveryMessage(@TempDir final Path dir)
        throws Exception
    {
        final long seed = 29004L;
        // A longer session than the others: the late subscriber joins at half-time and must replay half a session
        // and merge before the end (on 2 loaded cores, a partition whose replay met the session's end never merged).
        final long messages = MESSAGES * 3 / 2;
        final String channel = "aeron:udp?endpoint=224.0.1.135:29600|interface=127.0.0.1|mtu=8192";
        final String control = "aeron:udp?endpoint=localhost:29610";
        final Path archiveDir = dir.resolve("archive");
        try (ChainHarness chain = new ChainHarness(dir, "archivefanout", PARTITIONS, channel, 2960))
        {
            chain.feedHandler("--group", "239.255.29.7", "--port", "29700", "--interface", "127.0.0.1");
            final ChainProcess fanout = chain.fanout();
            final ChainProcess archive = archive(chain, dir, "archive", archiveDir, control, 0);
            final ChainProcess simulator = chain.simulator(
                "--group", "239.255.29.7", "--port", "29700", "--interface", "127.0.0.1",
                "--seed", Long.toString(seed), "--symbols", Integer.toString(SYMBOLS),
                "--messages", Long.toString(messages), "--rate", Integer.toString(RATE));

            ChainHarness.awaitSimulatorProgress(simulator, messages * 4 / 10);
            fanout.kill9();
            assertFalse(fanout.isAlive(), "the fanout is dead");
            Thread.sleep(1_000);
            chain.namedFanout("fanout-restarted");
            ChainHarness.awaitSimulatorProgress(simulator, messages / 2);
            final Path lateRecording = dir.resolve("late.bin");
            final Path lateBooks = dir.resolve("late.books");
            final ChainProcess late = chain.start("late", "record", "--channel", channel, "--stream-id-base", "2960",
                "--partitions", Integer.toString(PARTITIONS), "--from", "seq:2", "--archive-control-channel", control,
                "--out", lateRecording.toString(), "--books-out", lateBooks.toString(),
                "--coverage-out", ExpectedStreams.coverageFile(lateRecording).toString(), "--until-end-of-messages",
                "--timeout-s", "300");

            assertEquals(0, simulator.waitFor(10, TimeUnit.MINUTES), "simulator exit code");
            assertEquals(0, late.waitFor(5, TimeUnit.MINUTES), "late subscriber exit code (0: no partition stale)");
            final ExpectedStreams expected = ExpectedStreams.generate(seed, SYMBOLS, messages, PARTITIONS);

            // What the archive holds: two recordings per partition (one per fanout publication) and, where the
            // killed fanout's last packets never reached the wire, a hole between them, reported exactly.
            final Path replayed = dir.resolve("replayed.bin");
            final ChainProcess replay = chain.start("replay-only", "record", "--channel", channel,
                "--stream-id-base", "2960", "--partitions", Integer.toString(PARTITIONS), "--from", "start",
                "--replay-only", "--archive-control-channel", control, "--out", replayed.toString(),
                "--timeout-s", "300");
            final int replayExit = replay.waitFor(5, TimeUnit.MINUTES);
            final List<List<long[]>> missing = expected.missingRanges(replayed, "the archive's recordings, replayed");
            final List<String> catalog = Files.readAllLines(archiveDir.resolve("mdfanout-catalog.txt"));
            assertEquals(2 * PARTITIONS, catalog.stream().filter(l -> l.startsWith("recording ")).count(),
                "a recording per partition per fanout publication: " + catalog);
            int holes = 0;
            for (int p = 0; p < PARTITIONS; p++)
            {
                final StringBuilder reported = new StringBuilder();
                for (final String line : catalog)
                {
                    final Matcher matcher = HOLE.matcher(line);
                    if (matcher.find() && Integer.parseInt(matcher.group(1)) == p)
                    {
                        reported.append(matcher.group(2)).append("..").append(matcher.group(3)).append(' ');
                    }
                }
                assertEquals(describe(missing.get(p)), reported.toString().trim(),
                    "partition " + p + ": the catalog reports exactly what the recordings lack");
                holes += missing.get(p).size();
            }
            assertEquals(0 == holes ? 0 : 4, replayExit, "replay-only exit code (4: the holes)");

            // The late subscriber replays across the restart: where the recordings are contiguous it merges into
            // live exactly; where the kill left a hole, that partition reports the gap and recovers from a snapshot.
            final List<String> gaps = late.linesContaining("reason=GAP");
            assertEquals(holes, gaps.size(), "one reported gap per hole: " + gaps);
            assertEquals(PARTITIONS - holes, late.linesContaining("REPLAY_LIVE").size(),
                "every partition without a hole merged into live: " + late.linesContaining("REPLAY") +
                late.linesContaining("replay of partition"));
            // Asked from stream sequence 2: a partition that merged without a hole is whole from there (with some
            // partitions holed and others not, both checks apply in one recording).
            final long[] from = new long[PARTITIONS];
            java.util.Arrays.fill(from, 2);
            if (0 == holes)
            {
                expected.verifyRecordingFrom(lateRecording, "late subscriber (across the fanout restart)", from);
            }
            else
            {
                expected.verifyDisturbedRecording(lateRecording, "late subscriber (across the fanout restart)", from);
            }
            assertEquals(expected.books(), Files.readString(lateBooks), "its books equal the reference book");
            System.out.println("archive: fanout killed at 40%: " + holes + " hole(s) where its last packets never " +
                "reached the wire, each reported; the late subscriber merged or recovered accordingly");
            assertEquals(0, archive.stop(), "archive stopped on SIGTERM");
            chain.passed();
        }
    }

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void aFullDiskStopsTheRecordingWithAClearErrorAndTheLiveSubscribersLoseNothing(@TempDir final Path dir)
        throws Exception
    {
        final long seed = 29003L;
        // An 18 MiB disk with recording stopped below 2 MiB free fills about two thirds through this session.
        final long messages = MESSAGES * 7 / 10;
        final String channel = "aeron:udp?endpoint=224.0.1.133:29400|interface=127.0.0.1|mtu=8192";
        final String control = "aeron:udp?endpoint=localhost:29410";
        try (SmallDisk disk = new SmallDisk(dir.resolve("small-disk"), 18);
            ChainHarness chain = new ChainHarness(dir, "archivefull", PARTITIONS, channel, 2940))
        {
            chain.feedHandler("--group", "239.255.29.5", "--port", "29500", "--interface", "127.0.0.1");
            // 1 MiB terms, so the archive's segment files can be 1 MiB (a multiple of the term) on a small disk.
            chain.fanout("--term-length-bytes", "1048576");
            final ChainProcess archive = archive(chain, dir, "archive", disk.path().resolve("archive"), control, 0,
                "--segment-file-bytes", "1048576", "--min-free-bytes", "2m");
            final List<ChainProcess> live = chain.recorders(2);
            final ChainProcess simulator = chain.simulator(
                "--group", "239.255.29.5", "--port", "29500", "--interface", "127.0.0.1",
                "--seed", Long.toString(seed), "--symbols", Integer.toString(SYMBOLS),
                "--messages", Long.toString(messages), "--rate", Integer.toString(RATE));

            assertEquals(0, simulator.waitFor(10, TimeUnit.MINUTES), "simulator exit code");
            final ExpectedStreams expected = ExpectedStreams.generate(seed, SYMBOLS, messages, PARTITIONS);
            for (int i = 1; i <= 2; i++)
            {
                assertEquals(0, live.get(i - 1).waitFor(5, TimeUnit.MINUTES), "live subscriber " + i + " exit code");
                expected.verifyRecording(chain.recording(i), "live subscriber " + i);
                assertEquals(expected.books(), Files.readString(chain.books(i)), "live subscriber " + i + " books");
            }
            final String diskFull = archive.lastLineContaining("archive: ERROR: disk full");
            assertFalse(diskFull.isEmpty(), "the archive says its disk is full: " + archive.logTail());
            assertTrue(diskFull.contains(disk.path().resolve("archive").toString()) && diskFull.contains("bytes free"),
                "the error names the directory and the space: " + diskFull);
            assertEquals(PARTITIONS, archive.linesContaining("stopped: disk full").size(),
                "every partition's recording stopped, each logged");
            assertTrue(archive.isAlive(), "the archive survives its full disk (it records again when space is freed)");
            System.out.println("archive: " + diskFull);
            assertEquals(0, archive.stop(), "archive stopped on SIGTERM");
            chain.passed();
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void retentionDeletesTheOldestSessionsAndAReplayOfADeletedSessionFailsLoudly(@TempDir final Path dir)
        throws Exception
    {
        final String channel = "aeron:udp?endpoint=224.0.1.137:29800|interface=127.0.0.1|mtu=8192";
        final String control = "aeron:udp?endpoint=localhost:29810";
        final Path archiveDir = dir.resolve("archive");
        try (ChainHarness chain = new ChainHarness(dir, "archiveretention", PARTITIONS, channel, 2980))
        {
            chain.feedHandler("--group", "239.255.29.9", "--port", "29900", "--interface", "127.0.0.1");
            chain.fanout();
            final ChainProcess dayOne = archiveOfSession(chain, dir, "archive-day-1", archiveDir, control, 0, "day-1");
            final ChainProcess simulator = chain.simulator(
                "--group", "239.255.29.9", "--port", "29900", "--interface", "127.0.0.1",
                "--seed", "29005", "--symbols", "50", "--messages", "20000", "--rate", "20000");
            assertEquals(0, simulator.waitFor(2, TimeUnit.MINUTES), "simulator exit code");
            final String[] replayDayOne = { "record", "--channel", channel, "--stream-id-base", "2980",
                "--partitions", Integer.toString(PARTITIONS), "--from", "start", "--replay-only",
                "--replay-session", "day-1", "--archive-control-channel", control, "--timeout-s", "120" };
            final ChainProcess before = chain.start("replay-day-1", replayDayOne);
            assertEquals(0, before.waitFor(2, TimeUnit.MINUTES), "day 1 is in the archive");
            assertTrue(before.lastLineContaining("record: messages=").matches(".* replayed=[1-9]\\d*\\b.*"),
                before.lastLineContaining("record: messages="));
            assertEquals(0, dayOne.stop(), "dayOne stopped on SIGTERM");
            assertFalse(dayOne.lastLineContaining("archive: stopped").isEmpty(), "the archive stopped cleanly");

            final ChainProcess dayTwo = archiveOfSession(chain, dir, "archive-day-2", archiveDir, control, 0, "day-2",
                "--retain-sessions", "1");
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (dayTwo.lastLineContaining("retention deleted session day-1").isEmpty())
            {
                assertTrue(System.nanoTime() < deadline, "retention deleted day 1: " + dayTwo.logTail());
                Thread.sleep(100);
            }
            final ChainProcess after = chain.start("replay-day-1-deleted", replayDayOne);
            assertEquals(4, after.waitFor(2, TimeUnit.MINUTES), "a replay of a deleted session fails (exit 4)");
            assertFalse(after.lastLineContaining("holds no recording of session day-1").isEmpty(),
                "and says why: " + after.logTail());
            // tail and export (asked together) agree with record: exit 4 with the reason, and export leaves no file.
            final ChainProcess tail = chain.start("tail-day-1-deleted", "tail", "--channel", channel,
                "--stream-id-base", "2980", "--partitions", Integer.toString(PARTITIONS), "--from", "start",
                "--replay-only", "--replay-session", "day-1", "--archive-control-channel", control);
            final Path dbn = dir.resolve("day-1.dbn");
            final ChainProcess export = chain.start("export-day-1-deleted", "export", "--channel", channel,
                "--stream-id-base", "2980", "--partitions", Integer.toString(PARTITIONS), "--replay-session", "day-1",
                "--date", "2026-11-27", "--archive-control-channel", control, "--out", dbn.toString());
            assertEquals(4, tail.waitFor(2, TimeUnit.MINUTES), "tail of a deleted session: " + tail.logTail());
            assertFalse(tail.lastLineContaining("holds no recording of session day-1").isEmpty(), tail.logTail());
            assertEquals(4, export.waitFor(2, TimeUnit.MINUTES), "export of a deleted session: " + export.logTail());
            assertFalse(export.lastLineContaining("holds no recording of session day-1").isEmpty(), export.logTail());
            assertFalse(Files.exists(dbn), "no file of a session the archive does not hold");
            assertEquals(0, dayTwo.stop(), "dayTwo stopped on SIGTERM");
            chain.passed();
        }
    }

    private void exportARangeAndReadItBackWithDatabentosDecoder(
        final ChainHarness chain, final Path dir, final ExpectedStreams expected, final String control) throws Exception
    {
        assertTrue(Files.isExecutable(DBN_PYTHON), "Databento's decoder is installed: `make dbn-tools` (" + DBN_PYTHON + ")");
        // The range: the exchange times of partition 0's messages at 20% and 30% of its stream.
        final byte[][] streams = RecordFile.streamsByPartition(chain.recording(1), PARTITIONS);
        final long startTime = timestampAt(chain.recording(1), 0, expected.counts()[0] / 5);
        final long endTime = timestampAt(chain.recording(1), 0, expected.counts()[0] * 3 / 10);
        assertTrue(streams.length == PARTITIONS && endTime > startTime, "a range of the session");
        final Path dbn = dir.resolve("range.dbn.zst");
        final ChainProcess export = chain.start("export", "export", "--channel", "aeron:udp?endpoint=224.0.1.129:29000|" +
            "interface=127.0.0.1|mtu=8192", "--stream-id-base", "2900", "--partitions", Integer.toString(PARTITIONS),
            // No --replay-session nor --date: the newest session the archive holds, SESSION, named by its date.
            "--archive-control-channel", control, "--zone", "UTC",
            "--start", LocalTime.ofNanoOfDay(startTime).toString(), "--end", LocalTime.ofNanoOfDay(endTime).toString(),
            "--zstd", "--out", dbn.toString());
        assertEquals(0, export.waitFor(5, TimeUnit.MINUTES), "export exit code: " + export.logTail());
        assertFalse(export.lastLineContaining("export: session " + SESSION + ", the newest").isEmpty(), export.logTail());

        // What the recording says the range holds: its adds (by order id) and its executions.
        final long dayStart = TimeUnit.SECONDS.toNanos(java.time.LocalDate.parse(SESSION).atStartOfDay(
            java.time.ZoneOffset.UTC).toEpochSecond());
        final Map<Long, long[]> adds = new HashMap<>();
        long replaces = 0;
        long executions = 0;
        final MessageHeaderDecoder header = new MessageHeaderDecoder();
        final AddOrderDecoder add = new AddOrderDecoder();
        final AddOrderAttributedDecoder addAttributed = new AddOrderAttributedDecoder();
        final OrderExecutedWithPriceDecoder executedWithPrice = new OrderExecutedWithPriceDecoder();
        try (RecordFile records = new RecordFile(chain.recording(1)))
        {
            while (records.next())
            {
                final UnsafeBuffer message = new UnsafeBuffer(records.message(), 0, records.length());
                header.wrap(message, 0);
                final long timestamp = WireFormat.exchangeTimestamp(message, 0);
                if (timestamp < startTime || timestamp >= endTime)
                {
                    continue;
                }
                switch (header.templateId())
                {
                    case AddOrderDecoder.TEMPLATE_ID:
                        add.wrap(message, WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
                        adds.put(add.orderId(), new long[]{ add.price().mantissa() * 100_000, add.shares(),
                            add.sideRaw(), dayStart + timestamp });
                        break;
                    case AddOrderAttributedDecoder.TEMPLATE_ID:
                        addAttributed.wrap(message, WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
                        adds.put(addAttributed.orderId(), new long[]{ addAttributed.price().mantissa() * 100_000,
                            addAttributed.shares(), addAttributed.sideRaw(), dayStart + timestamp });
                        break;
                    case OrderReplaceDecoder.TEMPLATE_ID:
                        replaces++;
                        break;
                    case OrderExecutedDecoder.TEMPLATE_ID:
                        executions++;
                        break;
                    case OrderExecutedWithPriceDecoder.TEMPLATE_ID:
                        // A non-printable execution is no fill in DBN: only the cancel of its shares (EXPORT.md)
                        executedWithPrice.wrap(message, WireFormat.HEADER_LENGTH, header.blockLength(), header.version());
                        executions += 'Y' == executedWithPrice.printable() ? 1 : 0;
                        break;
                    default:
                        break;
                }
            }
        }

        final Process reader = new ProcessBuilder(DBN_PYTHON.toString(), DBN_READER.toString(), dbn.toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final String json = new String(reader.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(reader.waitFor(5, TimeUnit.MINUTES) && 0 == reader.exitValue(), "databento-dbn read the file");
        final Map<String, Object> summary = map(MiniJson.parse(json));
        assertEquals("zstd", summary.get("compression"));
        final Map<String, Object> mbo = map(map(summary.get("columns")).get("MBOMsg"));
        final List<Object> actions = list(mbo.get("action"));
        final List<Object> orderIds = list(mbo.get("order_id"));
        long addRecords = 0;
        long fills = 0;
        long matched = 0;
        for (int i = 0; i < actions.size(); i++)
        {
            final String action = String.valueOf(actions.get(i));
            if ("F".equals(action))
            {
                fills++;
            }
            if (!"A".equals(action))
            {
                continue;
            }
            addRecords++;
            final long[] want = adds.get(number(orderIds.get(i)));
            if (null == want)
            {
                continue; // the add of an OrderReplace: a new order id
            }
            matched++;
            final String where = "order " + orderIds.get(i);
            assertEquals(want[0], number(list(mbo.get("price")).get(i)), where + " price");
            assertEquals(want[1], number(list(mbo.get("size")).get(i)), where + " size");
            // DBN's sides: B (bid) for a buy, A (ask) for a sell.
            assertEquals('S' == want[2] ? "A" : "B", String.valueOf(list(mbo.get("side")).get(i)), where + " side");
            assertEquals(want[3], number(list(mbo.get("ts_event")).get(i)), where + " ts_event");
        }
        assertEquals(adds.size(), matched, "every add of the range is in the export, once");
        assertEquals(adds.size() + replaces, addRecords, "A records: the adds and the replaces' new orders");
        assertEquals(executions, fills, "F records: one per printable execution of the range");
        assertTrue(adds.size() > 1000, "a range with content: " + adds.size() + " adds");
        System.out.println("archive: export of " + LocalTime.ofNanoOfDay(startTime) + ".." +
            LocalTime.ofNanoOfDay(endTime) + " read by databento-dbn: " + summary.get("counts") + "; " + adds.size() +
            " adds with order ids, prices, sizes, sides and timestamps equal to the recording's, " + executions +
            " executions");
    }

    private static long timestampAt(final Path recording, final int partition, final long sequence) throws IOException
    {
        try (RecordFile records = new RecordFile(recording))
        {
            while (records.next())
            {
                if (records.partition() == partition && records.streamSequence() == sequence)
                {
                    return WireFormat.exchangeTimestamp(new UnsafeBuffer(records.message()), 0);
                }
            }
        }
        fail("no message " + sequence + " on partition " + partition);
        return 0;
    }

    static ChainProcess archive(
        final ChainHarness chain,
        final Path dir,
        final String name,
        final Path archiveDir,
        final String control,
        final int metricsPort,
        final String... extra) throws Exception
    {
        return archiveOfSession(chain, dir, name, archiveDir, control, metricsPort, SESSION, extra);
    }

    static ChainProcess archiveOfSession(
        final ChainHarness chain,
        final Path dir,
        final String name,
        final Path archiveDir,
        final String control,
        final int metricsPort,
        final String session,
        final String... extra) throws Exception
    {
        final List<String> args = new ArrayList<>(List.of("archive", "--archive-dir", archiveDir.toString(),
            "--aeron-dir", "/dev/shm/mdfanout-archive-" + dir.getFileName() + "-" + ProcessHandle.current().pid(),
            "--channel", chain.channel(), "--stream-id-base", chain.streamIdBase(),
            "--partitions", Integer.toString(chain.partitions()), "--control-channel", control, "--session", session,
            "--metrics-port", Integer.toString(metricsPort), "--metrics-bind", "127.0.0.1"));
        args.addAll(List.of(extra));
        final ChainProcess archive = chain.start(name, args.toArray(new String[0]));
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (archive.lastLineContaining("archive: running").isEmpty())
        {
            if (!archive.isAlive() || System.nanoTime() > deadline)
            {
                fail("the archive did not start: " + archive.logTail());
            }
            Thread.sleep(50);
        }
        return archive;
    }

    /** Per partition, the lastStreamSequence of the last RECOVERED line of a tool's log (0: never recovered). */
    private static String describe(final List<long[]> ranges)
    {
        final StringBuilder text = new StringBuilder();
        for (final long[] range : ranges)
        {
            text.append(range[0]).append("..").append(range[1]).append(' ');
        }
        return text.toString().trim();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(final Object value)
    {
        return (Map<String, Object>)value;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(final Object value)
    {
        return (List<Object>)value;
    }

    private static long number(final Object value)
    {
        return value instanceof Number ? ((Number)value).longValue() : Long.parseLong(String.valueOf(value));
    }
}
