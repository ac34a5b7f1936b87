package io.mdfanout.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
 * <p>
 * A real Prometheus scrapes every role with the chart's rules (at 1/{@value #RULE_TIME_SCALE} of their durations):
 * no page-level alert fires while the market is closed (the silent lines, the feed handler stopped for its restart and
 * the archive waiting for the next day are all seen at night, and held back), and the fault injected in day 3's
 * market hours (its feed handler stopped) pages.
 */
class TradingDaysTest
{
    private static final int DAYS = 3;
    private static final long MESSAGES = 60_000;
    private static final int RATE = 30_000;
    /** Day 3 runs slower: long enough to stop its feed handler in market hours and see the alert page. */
    private static final int FAULT_DAY_RATE = 10_000;
    private static final String LOCAL = "127.0.0.1";
    private static final int PARTITIONS = 4;
    private static final int SYMBOLS = 100;
    private static final long NIGHT_MS = 5_000;
    /**
     * The chart's rules run this many times faster here. Not more: restarts are not compressed, and the one-minute
     * MdfanoutTargetDown that rides out a night's restart must still be longer than a restart on this machine.
     */
    private static final int RULE_TIME_SCALE = 5;
    /** Lets the market session reach Prometheus (a scrape, then an evaluation) before a night is judged. */
    private static final long NIGHT_SETTLE_MS = 3_000;
    private static final int FEED_HANDLER_PORT = 36401;
    private static final int FANOUT_PORT = 36402;
    private static final int SUBSCRIBER_PORT = 36403;
    private static final int ARCHIVE_PORT = 36404;
    private static final int PROMETHEUS_PORT = 36490;
    private static final Path RULES =
        Path.of("..", "charts", "mdfanout", "rules", "mdfanout-rules.yaml").toAbsolutePath().normalize();
    /** Alerts held back outside system hours: never even pending at night. */
    private static final String GATED_ALERTS = "MdfanoutFeedLineSilent|MdfanoutSubscriberStale|" +
        "MdfanoutSubscriberSourceDown|MdfanoutFeedHandlerDown|MdfanoutArchiveRecordingStopped";
    /** Critical alerts whose duration rides out a restart: pending while one is restarted in the night, not firing. */
    private static final String RESTART_ALERTS =
        "MdfanoutTargetDown|MdfanoutMetricsAbsent|MdfanoutFeedHandlerDownOutsideHours";

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
        final String[] feed = { "--group", "239.255.36.1", "--port", "36100", "--interface", "127.0.0.1",
            "--line-silence-ms", "1000", "--metrics-port", Integer.toString(FEED_HANDLER_PORT), "--metrics-bind", LOCAL };
        final String[] fanoutOptions = { "--snapshot-interval-ms", "1000",
            "--metrics-port", Integer.toString(FANOUT_PORT), "--metrics-bind", LOCAL };
        final PrometheusClient prometheus = new PrometheusClient(PROMETHEUS_PORT);
        try (ChainHarness chain = new ChainHarness(dir, "tradingdays", PARTITIONS, channel, 3600))
        {
            final ChainProcess feedHandler = chain.feedHandler(feed);
            final ChainProcess fanout = chain.fanout(fanoutOptions);
            // No --session: the archive names the first day by today's date in the exchange's zone, as a pod would.
            final ChainProcess archive = startArchive(chain, dir, "archive", archiveDir, control);
            final List<ChainProcess> subscribers = new ArrayList<>();
            for (int i = 1; i <= 2; i++)
            {
                subscribers.addAll(chain.recorders(i, 1, List.of(), "--sessions", Integer.toString(DAYS),
                    "--metrics-port", Integer.toString(subscriberPort(i)), "--metrics-bind", LOCAL));
            }
            // Prometheus with the chart's rules, as the chart's ServiceMonitor would scrape the roles.
            final ChainProcess server = prometheus.start(dir,
                PrometheusClient.scaled(Files.readString(RULES), RULE_TIME_SCALE),
                "namespace: mdfanout-test, feed: tradingdays", List.of(
                    List.of("mdfanout-feed-handler", LOCAL + ":" + FEED_HANDLER_PORT),
                    List.of("mdfanout-fanout", LOCAL + ":" + FANOUT_PORT),
                    List.of("mdfanout-subscriber", LOCAL + ":" + subscriberPort(1), LOCAL + ":" + subscriberPort(2)),
                    List.of("mdfanout-archive", LOCAL + ":" + ARCHIVE_PORT)));
            try
            {
                prometheus.awaitQuery("count(up == 1) == 5", 60);
                final long prometheusFromMs = System.currentTimeMillis();
                ChainProcess restartedFeed = null;
                ChainProcess restartedArchive = null;
                final long[] dayStartMs = new long[DAYS];
                final long[] dayEndMs = new long[DAYS];
                final long[] fault = new long[2];
                final long[] fanoutRestart = new long[2];

                for (int day = 0; day < DAYS; day++)
                {
                    final boolean faultDay = DAYS - 1 == day;
                    dayStartMs[day] = System.currentTimeMillis();
                    final ChainProcess simulator = chain.start("simulator-day-" + (day + 1), "simulator",
                        "--group", "239.255.36.1", "--port", "36100", "--interface", "127.0.0.1",
                        "--session", "MDFDAY000" + (day + 1), "--seed", Long.toString(seed(day)),
                        "--symbols", Integer.toString(SYMBOLS), "--messages", Long.toString(MESSAGES),
                        "--rate", Integer.toString(faultDay ? FAULT_DAY_RATE : RATE),
                        "--stats-interval-s", faultDay ? "1" : "0",
                        // Day 3's packets hold a millisecond of messages each: its feed handler's socket buffer then
                        // holds the seconds it is stopped (a buffer counts packets, not only their bytes).
                        "--coalesce-us", faultDay ? "1000" : "0");
                    if (faultDay)
                    {
                        // The injected fault, in market hours: the feed handler stopped (SIGSTOP) until its alert
                        // pages. The exchange's packets wait in its socket buffer meanwhile: nothing is lost.
                        ChainHarness.awaitSimulatorProgress(simulator, MESSAGES / 5);
                        fault[0] = System.currentTimeMillis();
                        restartedFeed.signal("STOP");
                        try
                        {
                            prometheus.awaitAlert("MdfanoutFeedHandlerDown", null, "firing", 30);
                        }
                        finally
                        {
                            restartedFeed.signal("CONT");
                        }
                        prometheus.awaitAlert("MdfanoutFeedHandlerDown", null, "inactive", 30);
                        fault[1] = System.currentTimeMillis();
                        System.out.println("trading days: the feed handler stopped in market hours on day 3: " +
                            "MdfanoutFeedHandlerDown fired and resolved in " + (fault[1] - fault[0]) + " ms");
                    }
                    assertEquals(0, simulator.waitFor(3, TimeUnit.MINUTES), "simulator of day " + (day + 1));
                    dayEndMs[day] = System.currentTimeMillis();
                    Thread.sleep(NIGHT_MS);
                    if (1 == day)
                    {
                        // The second night: every role restarted in turn, as a rolling upgrade would.
                        assertEquals(0, feedHandler.stop(), "the feed handler stops on SIGTERM");
                        // An upgrade's feed handler is down for its restart; wait until Prometheus has seen the
                        // fanout say so before starting the new one. fresh33 failed without this wait: the new JVM
                        // re-attached within a 1-second scrape, so no scrape saw the stopped source, and the check
                        // that the night held its alert back had nothing to judge.
                        prometheus.awaitQuery("max_over_time(mdfanout_fanout_source_status[10s]) >= 4", 30);
                        restartedFeed = chain.start("feed-handler-upgraded", concat(new String[] {
                            "feed-handler", "--ring-dir", chain.ringDir().toString(),
                            "--partitions", Integer.toString(PARTITIONS), "--stats-interval-s", "2"}, feed));
                        restartedFeed.awaitLine("re-attached to generation");
                        fanoutRestart[0] = System.currentTimeMillis();
                        assertEquals(0, fanout.stop(), "the fanout stops on SIGTERM");
                        final ChainProcess restartedFanout = chain.namedFanout("fanout-upgraded", fanoutOptions);
                        restartedFanout.awaitLine("fanout: running");
                        fanoutRestart[1] = System.currentTimeMillis();
                        assertEquals(0, archive.stop(), "the archive stops on SIGTERM");
                        restartedArchive = startArchive(chain, dir, "archive-upgraded", archiveDir, control);
                        restartedArchive.awaitLine("recording session " + sessionNames[2] + " from now on");
                        Thread.sleep(NIGHT_MS);
                    }
                }
                verifyTheAlertsOfTheWeek(prometheus, prometheusFromMs, dayStartMs, dayEndMs, fault, fanoutRestart);
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
                restartedArchive.awaitLine("retention deleted session " + sessionNames[0]);
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
            finally
            {
                server.stop();
            }
        }
    }

    /**
     * The alert half of the week, from Prometheus's own record (the {@code ALERTS} series): no page-level alert fired
     * but the injected fault's; at night (from a settle after each day's end to the next day's start, but for the
     * fanout's restart, when its market session series are absent and hold nothing back) the alerts the market
     * session holds back were never even pending, nor any critical alert but those that ride out a restart; and the
     * conditions they were held back from did occur at night (silent lines, the feed handler stopped, an idle archive).
     */
    private static void verifyTheAlertsOfTheWeek(
        final PrometheusClient prometheus,
        final long fromMs,
        final long[] dayStartMs,
        final long[] dayEndMs,
        final long[] fault,
        final long[] fanoutRestart) throws Exception
    {
        Thread.sleep(2_000); // the last evaluations reach the TSDB
        final long toMs = System.currentTimeMillis();
        final String firing = "ALERTS{severity=\"critical\", alertstate=\"firing\"}";
        assertNone(prometheus, firing, fromMs, fault[0], "no page before the injected fault");
        assertNone(prometheus, firing, fault[1], dayEndMs[DAYS - 1], "no page after the injected fault");
        // The recorders end with the week (record --sessions 3): their targets are gone after it, on purpose.
        assertNone(prometheus, "ALERTS{severity=\"critical\", alertstate=\"firing\", job!=\"mdfanout-subscriber\"}",
            dayEndMs[DAYS - 1], toMs, "no page in the last night");

        final List<long[]> nights = new ArrayList<>();
        for (int day = 0; day < DAYS; day++)
        {
            final long nightFromMs = dayEndMs[day] + NIGHT_SETTLE_MS;
            final long nightToMs = day + 1 < DAYS ? dayStartMs[day + 1] : toMs;
            if (nightFromMs < fanoutRestart[0] && fanoutRestart[0] < nightToMs)
            {
                nights.add(new long[] {nightFromMs, fanoutRestart[0]});
                nights.add(new long[] {fanoutRestart[1] + NIGHT_SETTLE_MS, nightToMs});
            }
            else
            {
                nights.add(new long[] {nightFromMs, nightToMs});
            }
        }
        final Map<String, Boolean> seen = new TreeMap<>();
        final Map<String, String> conditions = Map.of(
            "a silent line (MdfanoutFeedLineSilent's condition)", "max_over_time(mdfanout_feed_silent_lines[%ds]) > 0",
            "the feed handler stopped for its restart (source status 4, stopped, or 5, down)",
            "max_over_time(mdfanout_fanout_source_status[%ds]) >= 4",
            "an archive with no recording (MdfanoutArchiveRecordingStopped's)",
            "min_over_time(mdfanout_archive_recording_active[%ds]) == 0");
        for (final long[] night : nights)
        {
            assertNone(prometheus, "ALERTS{alertname=~\"" + GATED_ALERTS + "\"}", night[0], night[1],
                "the alerts the market session holds back are not even pending at night");
            assertNone(prometheus, "ALERTS{severity=\"critical\", alertname!~\"" + RESTART_ALERTS + "\"}",
                night[0], night[1], "no critical alert pending at night but those that ride out a restart");
            for (final Map.Entry<String, String> condition : conditions.entrySet())
            {
                final String query = String.format(condition.getValue(), seconds(night));
                seen.merge(condition.getKey(), PrometheusClient.hasData(prometheus.queryAt(query, night[1])),
                    Boolean::logicalOr);
            }
        }
        System.out.println("trading days: " + nights.size() + " night windows checked in Prometheus (rules at 1/" +
            RULE_TIME_SCALE + " of their durations); what the session held back there: " + seen);
        // How long each job answered no scrape (its restart; the feed handler's stop in day 3): against the
        // scaled minute of MdfanoutTargetDown.
        final String down = prometheus.queryAt("sum by (job) (sum_over_time((up == bool 0)[" +
            seconds(new long[] {fromMs, toMs}) + "s:1s]))", toMs);
        System.out.println("trading days: seconds each job answered no scrape (MdfanoutTargetDown after " +
            60 / RULE_TIME_SCALE + " s): " + down.replaceAll(".*\"result\":", ""));
        for (final Map.Entry<String, Boolean> condition : seen.entrySet())
        {
            assertTrue(condition.getValue(), "at night there was " + condition.getKey() + ", and no alert for it");
        }
    }

    private static void assertNone(
        final PrometheusClient prometheus, final String selector, final long fromMs, final long toMs, final String what)
        throws Exception
    {
        final String range = "[" + seconds(new long[] {fromMs, toMs}) + "s]";
        final String response = prometheus.queryAt(selector + range, toMs);
        assertTrue(response.contains("\"status\":\"success\""), response);
        if (PrometheusClient.hasData(response))
        {
            // What the rules read meanwhile: a target that missed a scrape (its series all stale at once), and the
            // market session each partition said.
            final String context = "; targets that missed a scrape: " +
                prometheus.queryAt("min_over_time(up" + range + ") == 0", toMs) + "; sessions: " +
                prometheus.queryAt("max_over_time(mdfanout_market_session_state" + range + ") == 1", toMs);
            fail(what + " (" + selector + " from " + fromMs + " to " + toMs + " ms): " + response + context);
        }
    }

    private static long seconds(final long[] window)
    {
        return Math.max(1, (window[1] - window[0]) / 1000);
    }

    private static int subscriberPort(final int subscriber)
    {
        return SUBSCRIBER_PORT + 2 * (subscriber - 1);
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
            "--retain-sessions", "3", "--metrics-port", Integer.toString(ARCHIVE_PORT), "--metrics-bind", LOCAL);
        archive.awaitLine("archive: running");
        return archive;
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
