package io.mdfanout.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Trading days in a row, every role a process of its own over real multicast, none restarted by an operator
 * between days: the exchange simulator runs three sessions back to back (each its own MoldUDP64 session, from
 * sequence 1, pre-open to End of Messages), with a silent night between them. The feed handler takes each new
 * session as a new ring generation, the fanout publishes the old rings to their end and follows in new
 * publications, the subscribers start each day again from its first message (no stale, no snapshot), and the
 * archive records each day as its own session, named by the next weekday, applying retention as it rolls. In the
 * second night every role is restarted in turn, as an upgrade would.
 */
class TradingDaysTest
{
    private static final int DAYS = 3;
    private static final long MESSAGES = 60_000;
    private static final int RATE = 30_000;
    private static final int PARTITIONS = 4;
    private static final int SYMBOLS = 100;
    private static final long NIGHT_MS = 3_000;

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void threeSessionsBackToBackAreThreeCleanDaysForTheSubscribersAndThreeArchiveSessions(@TempDir final Path dir)
        throws Exception
    {
        final ExpectedStreams[] days = new ExpectedStreams[DAYS];
        for (int day = 0; day < DAYS; day++)
        {
            days[day] = ExpectedStreams.generate(seed(day), SYMBOLS, MESSAGES, PARTITIONS);
        }
        final String[] sessionNames = new String[DAYS];
        sessionNames[0] = LocalDate.now(ZoneId.of("America/New_York")).toString();
        for (int day = 1; day < DAYS; day++)
        {
            sessionNames[day] = nextWeekday(sessionNames[day - 1]);
        }

        final String channel = "aeron:udp?endpoint=224.0.1.141:36000|interface=127.0.0.1|mtu=8192";
        final String control = "aeron:udp?endpoint=localhost:36010";
        final Path archiveDir = dir.resolve("archive");
        final String[] feed = { "--group", "239.255.36.1", "--port", "36100", "--interface", "127.0.0.1" };
        try (ChainHarness chain = new ChainHarness(dir, "tradingdays", PARTITIONS, channel, 3600))
        {
            final ChainProcess feedHandler = chain.feedHandler(feed);
            final ChainProcess fanout = chain.fanout("--snapshot-interval-ms", "1000");
            // No --session: the archive names the first day by today's date in the exchange's zone, as a pod would.
            final ChainProcess archive = startArchive(chain, dir, "archive", archiveDir, control);
            final List<ChainProcess> subscribers = chain.recorders(1, 2, List.of(), "--sessions", Integer.toString(DAYS));
            ChainProcess restartedArchive = null;

            for (int day = 0; day < DAYS; day++)
            {
                final ChainProcess simulator = chain.start("simulator-day-" + (day + 1), "simulator",
                    "--group", "239.255.36.1", "--port", "36100", "--interface", "127.0.0.1",
                    "--session", "MDFDAY000" + (day + 1), "--seed", Long.toString(seed(day)),
                    "--symbols", Integer.toString(SYMBOLS), "--messages", Long.toString(MESSAGES),
                    "--rate", Integer.toString(RATE), "--stats-interval-s", "0");
                assertEquals(0, simulator.waitFor(3, TimeUnit.MINUTES), "simulator of day " + (day + 1));
                Thread.sleep(NIGHT_MS);
                if (1 == day)
                {
                    // The second night: every role restarted in turn, as a rolling upgrade would.
                    assertEquals(0, feedHandler.stop(), "the feed handler stops on SIGTERM");
                    final ChainProcess restartedFeed = chain.start("feed-handler-upgraded", concat(new String[] {
                        "feed-handler", "--ring-dir", chain.ringDir().toString(),
                        "--partitions", Integer.toString(PARTITIONS), "--stats-interval-s", "2"}, feed));
                    awaitLine(restartedFeed, "re-attached to generation");
                    assertEquals(0, fanout.stop(), "the fanout stops on SIGTERM");
                    final ChainProcess restartedFanout =
                        chain.namedFanout("fanout-upgraded", "--snapshot-interval-ms", "1000");
                    awaitLine(restartedFanout, "fanout: running");
                    assertEquals(0, archive.stop(), "the archive stops on SIGTERM");
                    restartedArchive = startArchive(chain, dir, "archive-upgraded", archiveDir, control);
                    awaitLine(restartedArchive, "recording session " + sessionNames[2] + " from now on");
                    Thread.sleep(NIGHT_MS);
                }
            }
            for (final ChainProcess subscriber : subscribers)
            {
                assertEquals(0, subscriber.waitFor(2, TimeUnit.MINUTES),
                    subscriber.name() + " ends after " + DAYS + " days with nothing lost: " + subscriber.logTail());
            }

            // The feed handler made a new generation for each new session, with no operator step.
            final int newGenerations = countLines(dir, "feed-handler", "a new exchange session: new ring generation") +
                countLines(dir, "feed-handler-upgraded", "a new exchange session: new ring generation");
            assertEquals(DAYS - 1, newGenerations, "one new ring generation per new session");

            // Each subscriber: every day exact against its oracle, each started afresh (no stale, no snapshot).
            for (int i = 1; i <= 2; i++)
            {
                ExpectedStreams.verifyDays(chain.recording(i), "subscriber " + i, days);
                assertEquals(days[DAYS - 1].books(), Files.readString(chain.books(i)),
                    "subscriber " + i + "'s books are the last day's, nothing of the days before");
                final ChainProcess subscriber = subscribers.get(i - 1);
                assertEquals((DAYS - 1) * PARTITIONS, subscriber.linesContaining("NEW_DAY partition=").size(),
                    "each partition started each new day afresh: " + subscriber.logTail());
                final String summary = subscriber.lastLineContaining("record: messages=");
                assertTrue(summary.contains(" gaps=0 ") && summary.contains(" exchangeGaps=0 "), summary);
            }
            for (final String line : subscribers.get(0).linesContaining("STALE partition="))
            {
                assertTrue(line.contains("reason=NEW_PUBLICATION") || line.contains("reason=SOURCE_DOWN") ||
                    line.contains("reason=LOST_IMAGE") || line.contains("reason=SILENT"),
                    "stale only for the roles restarted in the night, and the silent feed: " + line);
            }

            // The archive: each day its own session, named by the next weekday. At the end of day 3 it rolled into
            // day 4's (empty, counted as the session being recorded): retention (3) deleted day 1, and only day 1.
            awaitLine(restartedArchive, "retention deleted session " + sessionNames[0]);
            final String archiveLog = Files.readString(dir.resolve("archive.log")) +
                Files.readString(dir.resolve("archive-upgraded.log"));
            for (int day = 0; day < DAYS; day++)
            {
                assertTrue(archiveLog.contains("archive: session " + sessionNames[day] + " ended"),
                    "the archive rolled after day " + (day + 1) + ": " + archiveLog);
            }
            assertEquals(1, archiveLog.split("retention deleted session", -1).length - 1, archiveLog);
            assertEquals(PARTITIONS * (DAYS - 1), archiveLog.split("the next day's stream started", -1).length - 1,
                "each partition's recording of days 2 and 3 started when the new day's stream did: " + archiveLog);
            assertFalse(archiveLog.contains("HOLE"), "no hole in any session: " + archiveLog);
            for (int day = 1; day < DAYS; day++)
            {
                final Path replayed = dir.resolve("replay-day-" + (day + 1) + ".bin");
                final ChainProcess replay = chain.start("replay-day-" + (day + 1), "record", "--channel", channel,
                    "--stream-id-base", "3600", "--partitions", Integer.toString(PARTITIONS), "--from", "start",
                    "--replay-only", "--replay-session", sessionNames[day], "--archive-control-channel", control,
                    "--out", replayed.toString(), "--timeout-s", "120");
                assertEquals(0, replay.waitFor(2, TimeUnit.MINUTES), "replay of " + sessionNames[day]);
                days[day].verifyRecording(replayed, "archive session " + sessionNames[day]);
            }
            final ChainProcess deleted = chain.start("replay-day-1", "record", "--channel", channel,
                "--stream-id-base", "3600", "--partitions", Integer.toString(PARTITIONS), "--from", "start",
                "--replay-only", "--replay-session", sessionNames[0], "--archive-control-channel", control,
                "--timeout-s", "120");
            assertEquals(4, deleted.waitFor(2, TimeUnit.MINUTES), "day 1 was deleted by retention: " + deleted.logTail());
            chain.passed();
        }
    }

    private static long seed(final int day)
    {
        return 36001L + day;
    }

    private static String nextWeekday(final String date)
    {
        LocalDate next = LocalDate.parse(date).plusDays(1);
        while (DayOfWeek.SATURDAY == next.getDayOfWeek() || DayOfWeek.SUNDAY == next.getDayOfWeek())
        {
            next = next.plusDays(1);
        }
        return next.toString();
    }

    private static ChainProcess startArchive(
        final ChainHarness chain, final Path dir, final String name, final Path archiveDir, final String control)
        throws Exception
    {
        final ChainProcess archive = chain.start(name, "archive", "--archive-dir", archiveDir.toString(),
            "--aeron-dir", "/dev/shm/mdfanout-archive-" + dir.getFileName() + "-" + ProcessHandle.current().pid(),
            "--channel", chain.channel(), "--stream-id-base", chain.streamIdBase(),
            "--partitions", Integer.toString(chain.partitions()), "--control-channel", control,
            "--retain-sessions", "3");
        awaitLine(archive, "archive: running");
        return archive;
    }

    private static void awaitLine(final ChainProcess process, final String text) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (process.lastLineContaining(text).isEmpty())
        {
            if (!process.isAlive() || System.nanoTime() > deadline)
            {
                fail(process.name() + " did not log '" + text + "': " + process.logTail());
            }
            Thread.sleep(50);
        }
    }

    private static int countLines(final Path dir, final String name, final String text) throws Exception
    {
        final Path log = dir.resolve(name + ".log");
        return !Files.exists(log) ? 0 :
            (int)Files.readAllLines(log).stream().filter(line -> line.contains(text)).count();
    }

    private static String[] concat(final String[] first, final String[] second)
    {
        final String[] all = java.util.Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        return all;
    }
}
