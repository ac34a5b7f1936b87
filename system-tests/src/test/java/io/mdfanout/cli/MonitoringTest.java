package io.mdfanout.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The chart's dashboards and alert rules against what the code really exports: the chain runs
 * with its metrics ports open, a real Prometheus server (Debian's, installed by {@code make test})
 * scrapes the feed handler, the fanout and a subscriber every second under the chart's job names and
 * labels, and every query of every dashboard panel and every alert rule must return data (the
 * dashboards' template variables substituted with the chain's namespace, feed and instances, and
 * {@code $__rate_interval} with 1m), as must every variable's {@code label_values} query. promtool
 * checks the rules file and runs its unit tests ({@code mdfanout-rules.test.yaml}: the liveness, market-session
 * and subscriber alerts on their real durations), and the server itself must load every rule with health "ok".
 * <p>
 * Without the chain: every panel has a description, a unit and queries that filter by the
 * namespace, feed and instance variables and use {@code $__rate_interval} for every range; every
 * series an alert fires on is plotted by some panel; every alert has a severity, a summary, a
 * description and a runbook_url whose anchor is a heading of docs/RUNBOOKS.md.
 * <p>
 * Then the faults the alerts are for are caused, one at a time, and each alert must go to firing
 * and back to inactive when the fault ends: a stalled fanout (SIGSTOP; it answers no scrape either,
 * so MdfanoutTargetDown fires for it), a dead feed handler (SIGSTOP: its rings only look idle; its
 * scrapes fail and its series go stale, so MdfanoutTargetDown and MdfanoutMetricsAbsent fire for it;
 * held until the exchange's packets overflow its socket buffer, so that it declares a gap when it
 * resumes; MdfanoutSubscriberSourceDown, which it causes, is held back) and a silent line (the exchange, here the
 * simulator, stopped, with the market open: MdfanoutSubscriberSourceDown fires too). Neither liveness alert fires
 * on the healthy chain. The server loads the rules at 1/{@value #RULE_TIME_SCALE} of their durations
 * ({@code for:} and range windows) so that this takes seconds, not minutes.
 */
class MonitoringTest
{
    private static final Path CHART = Path.of("..", "charts", "mdfanout").toAbsolutePath().normalize();
    private static final Path RULES = CHART.resolve("rules/mdfanout-rules.yaml");
    private static final Path RULES_TESTS = CHART.resolve("rules/mdfanout-rules.test.yaml");
    private static final Path DASHBOARDS = CHART.resolve("dashboards");
    private static final Path RUNBOOKS = CHART.resolve("../../docs/RUNBOOKS.md").normalize();
    private static final int FEED_HANDLER_PORT = 19401;
    private static final int FANOUT_PORT = 19402;
    private static final int SUBSCRIBER_PORT = 19403;
    private static final int ARCHIVE_PORT = 19404;
    private static final int PROMETHEUS_PORT = 19490;
    /** The labels the chart's ServiceMonitor gives every target (the operator's namespace, the feed's name). */
    private static final String NAMESPACE = "mdfanout-test";
    private static final String FEED = "monitoring";
    private static final List<String> INSTANCES = List.of("127.0.0.1:" + FEED_HANDLER_PORT, "127.0.0.1:" + FANOUT_PORT,
        "127.0.0.1:" + SUBSCRIBER_PORT, "127.0.0.1:" + ARCHIVE_PORT);
    /** The chart's job names (its ServiceMonitor's relabelings), which the rules and the dashboards select on. */
    private static final String FEED_HANDLER_JOB = "mdfanout-feed-handler";
    private static final String FANOUT_JOB = "mdfanout-fanout";
    private static final String SUBSCRIBER_JOB = "mdfanout-subscriber";
    /** What Grafana's variables become here: the chain's labels (a multi-value selection of every instance). */
    private static final Map<String, String> VARIABLES = Map.of(
        "$__rate_interval", "1m",
        "$namespace", NAMESPACE,
        "$feed", FEED,
        "$instance", "(" + String.join("|", INSTANCES) + ")");
    private static final Pattern METRIC_NAME = Pattern.compile("\\b(up|mdfanout_\\w+|jvm_\\w+|process_\\w+)\\b");
    private static final Pattern SELECTOR = Pattern.compile("\\{[^}]*}");
    private static final Pattern RANGE = Pattern.compile("\\[[^\\]]*]");
    private static final Pattern LABEL_VALUES = Pattern.compile("^label_values\\((.+),\\s*(\\w+)\\)$");
    private static final Pattern HEADING = Pattern.compile("^#+\\s+(.+?)\\s*$", Pattern.MULTILINE);
    private static final Pattern ABSENT = Pattern.compile("^absent\\((.+)\\)$");
    private static final Pattern RULE_EXPR = Pattern.compile("^\\s*expr:\\s*(.+)$", Pattern.MULTILINE);
    /** A set operator between two sides of a rule, with its label matching ({@code on (...)}, {@code ignoring (...)}). */
    private static final String SET_OPERATOR = "\\s+(?:and|or|unless)(?:\\s+(?:on|ignoring)\\s*\\([^)]*\\))?\\s+";
    private static final Pattern THRESHOLD = Pattern.compile("\\s*(>=|<=|==|!=|>|<)\\s*[0-9.]+\\s*$");
    /**
     * The archive's queries (issue 29): its metrics and the subscribers' replay metrics. The chain here runs an
     * archive on a small disk and a subscriber that replays before it goes live, so they are checked with the
     * others, and the archive's disk fills during the test: its alerts must fire (and the disk-filling one is
     * inactive before it does).
     */
    private static final Pattern ARCHIVE_QUERIES =
        Pattern.compile("\\b(mdfanout_archive_\\w+|mdfanout_subscriber_replay\\w*)\\b");
    private static final String ARCHIVE_JOB = "mdfanout-archive";
    private static final String ARCHIVE_RECORDING_ERRORS = "MdfanoutArchiveRecordingErrors";
    private static final String ARCHIVE_RECORDING_STOPPED = "MdfanoutArchiveRecordingStopped";
    private static final String ARCHIVE_DISK_FILLING = "MdfanoutArchiveDiskFilling";
    /** The test's rules run this many times faster than the chart's. */
    private static final int RULE_TIME_SCALE = 15;
    private static final String FEED_HANDLER_DOWN = "MdfanoutFeedHandlerDown";
    private static final String LINE_SILENT = "MdfanoutFeedLineSilent";
    private static final String GAPS_DECLARED = "MdfanoutFeedGapsDeclared";
    private static final String FANOUT_STALLED = "MdfanoutFanoutStalled";
    private static final String TARGET_DOWN = "MdfanoutTargetDown";
    private static final String METRICS_ABSENT = "MdfanoutMetricsAbsent";
    private static final String SUBSCRIBER_SOURCE_DOWN = "MdfanoutSubscriberSourceDown";
    /**
     * The fanout is stopped by a signal for several seconds: its embedded driver and its client must not time
     * each other out when both resume (whichever thread runs first would find the other's heartbeat old).
     */
    private static final List<String> PATIENT_AERON = List.of("-Daeron.client.liveness.timeout=60s",
        "-Daeron.publication.unblock.timeout=90s", "-Daeron.driver.timeout=60000");

    private final PrometheusClient prometheus = new PrometheusClient(PROMETHEUS_PORT);

    /**
     * What an on-call engineer needs of the dashboards and the rules, read from the files: no chain. promtool checks
     * the rules and runs their unit tests.
     */
    @Test
    void dashboardsAndRulesAreComplete() throws Exception
    {
        final String promtool = PrometheusClient.requireTool("promtool");
        runTool(promtool, "check", "rules", RULES.toString());
        runTool(promtool, "test", "rules", RULES_TESTS.toString());

        final List<String> problems = new ArrayList<>();
        final Set<String> plotted = new HashSet<>();
        int panels = 0;
        for (final Map.Entry<String, Map<String, Object>> dashboard : dashboards().entrySet())
        {
            final String file = dashboard.getKey();
            checkVariables(file, dashboard.getValue(), problems);
            for (final Object item : list(dashboard.getValue().get("panels")))
            {
                final Map<String, Object> panel = map(item);
                final String where = file + " panel '" + panel.get("title") + "'";
                panels++;
                if (isBlank(panel.get("description")))
                {
                    problems.add(where + " has no description");
                }
                final Object fieldConfig = panel.get("fieldConfig");
                final Object unit = null == fieldConfig ? null : map(map(fieldConfig).get("defaults")).get("unit");
                if (isBlank(unit))
                {
                    problems.add(where + " has no unit");
                }
                final List<Object> targets = list(panel.get("targets"));
                if (targets.isEmpty())
                {
                    problems.add(where + " has no query");
                }
                for (final Object target : targets)
                {
                    final String expr = (String)map(target).get("expr");
                    checkPanelQuery(where, expr, problems);
                    final Matcher metric = METRIC_NAME.matcher(expr);
                    while (metric.find())
                    {
                        plotted.add(metric.group(1));
                    }
                }
            }
        }

        final Set<String> anchors = runbookAnchors();
        final List<String> alerts = alertRules();
        for (final String rule : alerts)
        {
            final String alert = rule.lines().findFirst().orElse("").trim();
            for (final String field : List.of("expr", "severity", "summary", "description", "runbook_url"))
            {
                if (!Pattern.compile("\\b" + field + ":\\s*\\S").matcher(rule).find())
                {
                    problems.add(alert + " has no " + field);
                }
            }
            final Matcher runbook = Pattern.compile("runbook_url:\\s*\"[^\"#]*RUNBOOKS\\.md#([^\"]+)\"").matcher(rule);
            if (!runbook.find())
            {
                problems.add(alert + ": its runbook_url does not point into docs/RUNBOOKS.md");
            }
            else if (!anchors.contains(runbook.group(1)))
            {
                problems.add(alert + ": docs/RUNBOOKS.md has no heading for #" + runbook.group(1));
            }
            final Matcher expr = RULE_EXPR.matcher(rule);
            if (expr.find())
            {
                final Matcher metric = METRIC_NAME.matcher(expr.group(1));
                while (metric.find())
                {
                    if (!plotted.contains(metric.group(1)))
                    {
                        problems.add(alert + " fires on " + metric.group(1) + ", which no dashboard panel plots");
                    }
                }
            }
        }
        System.out.println("monitoring: " + panels + " panels and " + alerts.size() + " alerts checked, " +
            problems.size() + " problems");
        assertEquals(List.of(), problems, "dashboards and rules an on-call engineer can use");
        assertTrue(panels > 20 && alerts.size() >= 11, panels + " panels, " + alerts.size() + " alerts");
    }

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void everyDashboardQueryAndAlertRuleReturnsDataAndTheAlertsFireOnTheirFaults(@TempDir final Path dir) throws Exception
    {

        final String channel = "aeron:udp?endpoint=224.0.1.109:46800|interface=127.0.0.1|mtu=8192";
        try (SmallDisk disk = new SmallDisk(dir.resolve("archive-disk"), 32);
            ChainHarness chain = new ChainHarness(dir, "monitoring", 2, channel, 4680))
        {
            // A 1 MiB socket buffer (the kernel doubles it) holds about a second of this feed: a feed handler
            // stopped for several seconds loses packets, and with no line B and no re-request server declares them.
            final ChainProcess feedHandler = chain.feedHandler("--group", "239.255.46.9", "--port", "46900",
                "--interface", "127.0.0.1", "--rcvbuf-bytes", "1048576", "--line-silence-ms", "1000",
                "--metrics-port", Integer.toString(FEED_HANDLER_PORT), "--metrics-bind", "127.0.0.1");
            // 1 MiB terms: the archive's segment files are 1 MiB, on a disk of 32 MiB that fills during the test.
            final ChainProcess fanout = chain.namedFanout("fanout", PATIENT_AERON,
                "--metrics-port", Integer.toString(FANOUT_PORT), "--metrics-bind", "127.0.0.1",
                "--term-length-bytes", "1048576", "--derived-streams", "bbo,trades");
            final String archiveControl = "aeron:udp?endpoint=localhost:46810";
            final ChainProcess archive = ArchiveTest.archive(chain, dir, "archive", disk.path().resolve("archive"),
                archiveControl, ARCHIVE_PORT, "--segment-file-bytes", "1048576", "--min-free-bytes", "4m");
            // The subscriber replays the session from the archive before it goes live: the replay metrics.
            chain.start("subscriber", "stats", "--channel", channel, "--stream-id-base", "4680", "--partitions", "2",
                "--from", "start", "--archive-control-channel", archiveControl,
                "--stats-interval-s", "5", "--metrics-port", Integer.toString(SUBSCRIBER_PORT), "--metrics-bind", "127.0.0.1");
            final ChainProcess simulator = chain.simulator(
                "--group", "239.255.46.9", "--port", "46900", "--interface", "127.0.0.1",
                "--symbols", "50", "--messages", "0", "--rate", "20000", "--coalesce-us", "1000");

            // The chart's job names and the labels its ServiceMonitor adds (namespace, feed); instance is host:port.
            final ChainProcess server = prometheus.start(dir,
                PrometheusClient.scaled(Files.readString(RULES), RULE_TIME_SCALE),
                "namespace: " + NAMESPACE + ", feed: " + FEED, List.of(
                    List.of(FEED_HANDLER_JOB, INSTANCES.get(0)), List.of(FANOUT_JOB, INSTANCES.get(1)),
                    List.of(SUBSCRIBER_JOB, INSTANCES.get(2)), List.of(ARCHIVE_JOB, INSTANCES.get(3))));
            try
            {
                seeTheArchiveDiskFillingAlertQuietWhileTheDiskHasRoom();
                // Rates over [1m] need two scrapes in the window and histograms a few packets: let
                // the chain run a while under a steady rate.
                prometheus.awaitQuery("sum(rate(mdfanout_subscriber_messages_delivered_total[1m])) > 1000", 90);
                Thread.sleep(5_000);
                assertTrue(simulator.isAlive(), "the session is still running while the queries are made");

                final List<String> failures = new ArrayList<>();
                final Set<String> queries = new LinkedHashSet<>();
                queries.addAll(dashboardQueries());
                queries.addAll(ruleQueries());
                // The subscriber's replay has switched to live, so its replay counters moved.
                prometheus.awaitQuery("sum(mdfanout_subscriber_replay_switches_total) >= 2", 60);
                System.out.println("monitoring: " + queries.stream().filter(q -> ARCHIVE_QUERIES.matcher(q).find())
                    .count() + " of the queries are the archive's and the replaying subscriber's");
                for (final String query : queries)
                {
                    if (!PrometheusClient.hasData(prometheus.query(query)))
                    {
                        failures.add(query + " -> " + prometheus.query(query));
                    }
                }
                System.out.println("monitoring: " + queries.size() + " dashboard and rule queries checked against " +
                    "Prometheus, " + failures.size() + " without data");
                failures.addAll(variableQueryFailures());
                assertEquals(List.of(), failures, "every dashboard, variable and alert-rule query returns data");

                final String rules = prometheus.get("/api/v1/rules");
                final Matcher health = Pattern.compile("\"health\":\"(\\w+)\"").matcher(rules);
                int count = 0;
                while (health.find())
                {
                    assertEquals("ok", health.group(1), "rule health: " + rules);
                    count++;
                }
                assertEquals(alertRules().size(), count, "every rule loaded");
                // The healthy chain has been scraped for well over the liveness alerts' (scaled) durations.
                assertEquals("inactive", prometheus.alertState(TARGET_DOWN, null),
                    "every target up: " + prometheus.get("/api/v1/alerts"));
                assertEquals("inactive", prometheus.alertState(METRICS_ABSENT, null),
                    "key series there: " + prometheus.get("/api/v1/alerts"));

                causeEachFaultAndSeeItsAlertFireAndResolve(feedHandler, fanout, simulator);
                seeTheArchiveDiskFillAndItsAlertsFire(archive, disk);
            }
            finally
            {
                server.stop();
            }
            chain.passed();
        }
    }

    /**
     * Before the archive's disk fills, its alert is inactive: the rule has been evaluated on a few scrapes of the
     * archive's disk while this 32 MiB volume still has more than 40 % free (a rule with an absolute floor, such as
     * the 1 GiB it once had, is pending on so small a volume from its first evaluation).
     */
    private void seeTheArchiveDiskFillingAlertQuietWhileTheDiskHasRoom() throws Exception
    {
        prometheus.awaitQuery("count_over_time(mdfanout_archive_disk_free_bytes[1m]) >= 3", 60);
        final String free = "mdfanout_archive_disk_free_bytes / mdfanout_archive_disk_total_bytes";
        final String before = prometheus.query(free);
        final String state = prometheus.alertState(ARCHIVE_DISK_FILLING, ARCHIVE_JOB);
        final String after = prometheus.query(free);
        assertTrue(PrometheusClient.hasData(prometheus.query(free + " > 0.4")),
            "the archive's disk still has room here: " + after);
        assertEquals("inactive", state, "the archive's disk has room (free fraction " + before + " then " + after +
            "): " + prometheus.get("/api/v1/alerts"));
        System.out.println("monitoring: " + ARCHIVE_DISK_FILLING + " inactive while the archive's disk has room: " +
            after);
    }

    /**
     * The archive's small disk fills while the chain runs: the archive stops recording with a clear error and stays
     * up, and the disk-full, recording-stopped and disk-filling alerts fire.
     */
    private void seeTheArchiveDiskFillAndItsAlertsFire(final ChainProcess archive, final SmallDisk disk) throws Exception
    {
        prometheus.awaitQuery("sum(mdfanout_archive_recording_errors_total{reason=\"disk_full\"}) > 0", 240);
        prometheus.awaitAlert(ARCHIVE_RECORDING_ERRORS, ARCHIVE_JOB, "firing", 60);
        prometheus.awaitAlert(ARCHIVE_RECORDING_STOPPED, ARCHIVE_JOB, "firing", 60);
        prometheus.awaitAlert(ARCHIVE_DISK_FILLING, ARCHIVE_JOB, "firing", 60);
        final String error = archive.lastLineContaining("archive: ERROR: disk full");
        assertTrue(error.contains(disk.path().toString()), "the archive names its full disk: " + archive.logTail());
        assertTrue(archive.isAlive(), "the archive survives its full disk");
        System.out.println("monitoring: the archive's disk filled (" + error + "); " + ARCHIVE_RECORDING_ERRORS +
            ", " + ARCHIVE_RECORDING_STOPPED + " and " + ARCHIVE_DISK_FILLING + " fired");
    }

    /**
     * One fault at a time; before each, its alert is inactive (a gap declared while the chain warmed up has
     * left the scaled window), and after each it must fire, then resolve once the fault ends.
     */
    private void causeEachFaultAndSeeItsAlertFireAndResolve(
        final ChainProcess feedHandler, final ChainProcess fanout, final ChainProcess simulator) throws Exception
    {
        for (final String alert : List.of(FANOUT_STALLED, FEED_HANDLER_DOWN, LINE_SILENT, GAPS_DECLARED, TARGET_DOWN,
            METRICS_ABSENT))
        {
            prometheus.awaitAlert(alert, null, "inactive", 60);
        }
        final long startNs = System.nanoTime();

        // A stalled fanout: records wait in its rings and its position does not move (seen from the feed handler).
        // Stopped, it answers no scrape either.
        fanout.signal("STOP");
        try
        {
            prometheus.awaitAlert(FANOUT_STALLED, null, "firing", 30);
            assertEquals("inactive", prometheus.alertState(FEED_HANDLER_DOWN, null),
                "a stalled fanout is not a dead feed handler");
            prometheus.awaitAlert(TARGET_DOWN, FANOUT_JOB, "firing", 30);
            assertEquals("inactive", prometheus.alertState(TARGET_DOWN, FEED_HANDLER_JOB), "the feed handler answers");
        }
        finally
        {
            fanout.signal("CONT");
        }
        prometheus.awaitAlert(FANOUT_STALLED, null, "inactive", 30);
        prometheus.awaitAlert(TARGET_DOWN, null, "inactive", 30);
        System.out.println("monitoring: stalled fanout alerted (and its target down) and resolved");

        // A dead feed handler: its rings only look idle; the fanout says so, to Prometheus and to the subscriber.
        // Its scrapes fail: up is 0 and its series are marked stale, so its key series is absent.
        feedHandler.signal("STOP");
        final long stoppedNs = System.nanoTime();
        try
        {
            prometheus.awaitQuery("mdfanout_fanout_source_status == 5", 20);
            prometheus.awaitAlert(FEED_HANDLER_DOWN, null, "firing", 30);
            assertEquals("inactive", prometheus.alertState(FANOUT_STALLED, null), "the fanout is fine: its rings are just idle");
            prometheus.awaitAlert(TARGET_DOWN, FEED_HANDLER_JOB, "firing", 30);
            prometheus.awaitAlert(METRICS_ABSENT, FEED_HANDLER_JOB, "firing", 30);
            assertEquals("inactive", prometheus.alertState(TARGET_DOWN, FANOUT_JOB), "the fanout answers");
            assertEquals("inactive", prometheus.alertState(METRICS_ABSENT, FANOUT_JOB), "the fanout's series are there");
            assertNotEquals("firing", prometheus.alertState(SUBSCRIBER_SOURCE_DOWN, null),
                "a dead feed handler holds back the subscriber alert it causes: " + prometheus.get("/api/v1/alerts"));
            // Held long enough for the exchange's packets to overflow the stopped feed handler's socket buffer.
            final long heldNs = TimeUnit.SECONDS.toNanos(5) - (System.nanoTime() - stoppedNs);
            if (heldNs > 0)
            {
                Thread.sleep(TimeUnit.NANOSECONDS.toMillis(heldNs));
            }
        }
        finally
        {
            feedHandler.signal("CONT");
        }
        prometheus.awaitAlert(FEED_HANDLER_DOWN, null, "inactive", 30);
        prometheus.awaitAlert(TARGET_DOWN, null, "inactive", 30);
        prometheus.awaitAlert(METRICS_ABSENT, null, "inactive", 30);
        prometheus.awaitQuery("mdfanout_subscriber_stale_events_total{reason=\"source_down\"} > 0", 20);
        // What it lost while stopped, it declares (no line B, no re-request server).
        prometheus.awaitAlert(GAPS_DECLARED, null, "firing", 30);
        System.out.println("monitoring: dead feed handler alerted (the subscriber stale with SOURCE_DOWN; its target " +
            "down and its metrics absent) and resolved, its loss declared");

        // A silent line: the exchange stops sending. The fanout says LINES_SILENT, which is not a dead feed handler.
        simulator.signal("STOP");
        try
        {
            prometheus.awaitAlert(LINE_SILENT, null, "firing", 30);
            prometheus.awaitQuery("mdfanout_fanout_source_status == 2", 10);
            assertEquals("inactive", prometheus.alertState(FEED_HANDLER_DOWN, null), "silent lines are not a dead feed handler");
            // The simulator opened the market (System Events O, S, Q): silent lines in market hours leave the
            // subscribers without data, and that pages.
            prometheus.awaitQuery("mdfanout_market_session_state{state=\"open\"} == 1", 10);
            prometheus.awaitAlert(SUBSCRIBER_SOURCE_DOWN, SUBSCRIBER_JOB, "firing", 30);
        }
        finally
        {
            simulator.signal("CONT");
        }
        prometheus.awaitAlert(LINE_SILENT, null, "inactive", 30);
        prometheus.awaitAlert(SUBSCRIBER_SOURCE_DOWN, null, "inactive", 30);
        prometheus.awaitAlert(GAPS_DECLARED, null, "inactive", 60);
        System.out.println("monitoring: silent line alerted and resolved; declared gaps resolved; faults took " +
            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNs) + " s");
    }

    private static void runTool(final String... command) throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), String.join(" ", command) + ": " + output);
    }

    /** @return every dashboard, parsed, by file name. */
    private static Map<String, Map<String, Object>> dashboards() throws IOException
    {
        final Map<String, Map<String, Object>> dashboards = new TreeMap<>();
        try (var files = Files.list(DASHBOARDS))
        {
            for (final Path file : files.filter(path -> path.toString().endsWith(".json")).toList())
            {
                dashboards.put(file.getFileName().toString(), map(MiniJson.parse(Files.readString(file))));
            }
        }
        assertEquals(2, dashboards.size(), "dashboards found under " + DASHBOARDS);
        return dashboards;
    }

    /**
     * The namespace, feed and instance variables: {@code label_values} of the targets' {@code up} series, each
     * narrowed by the ones before it, with "All" matching everything (also a target without the label).
     */
    private static void checkVariables(
        final String file, final Map<String, Object> dashboard, final List<String> problems)
    {
        final Map<String, Map<String, Object>> variables = new LinkedHashMap<>();
        for (final Object variable : list(map(dashboard.get("templating")).get("list")))
        {
            variables.put((String)map(variable).get("name"), map(variable));
        }
        if (!variables.containsKey("datasource"))
        {
            problems.add(file + " has no datasource variable");
        }
        for (final String name : List.of("namespace", "feed", "instance"))
        {
            final Map<String, Object> variable = variables.get(name);
            if (null == variable)
            {
                problems.add(file + " has no variable " + name);
                continue;
            }
            final String query = (String)map(variable.get("query")).get("query");
            final Matcher matcher = LABEL_VALUES.matcher(query);
            if (!"query".equals(variable.get("type")) || !matcher.matches() || !name.equals(matcher.group(2)) ||
                !matcher.group(1).startsWith("up{job=~\"mdfanout-.*\""))
            {
                problems.add(file + " variable " + name + ": not label_values(up{job=~\"mdfanout-.*\", ...}, " + name +
                    "): " + query);
            }
            if (!Boolean.TRUE.equals(variable.get("includeAll")) || !Boolean.TRUE.equals(variable.get("multi")) ||
                !".*".equals(variable.get("allValue")))
            {
                problems.add(file + " variable " + name + ": not multi-value with All = .*");
            }
        }
    }

    /**
     * A panel's query filters every selector by the three variables, names every metric with a selector, and uses
     * {@code $__rate_interval} for every range.
     */
    private static void checkPanelQuery(final String where, final String expr, final List<String> problems)
    {
        final Matcher metric = METRIC_NAME.matcher(expr);
        while (metric.find())
        {
            if (metric.end() >= expr.length() || expr.charAt(metric.end()) != '{')
            {
                problems.add(where + ": " + metric.group(1) + " without the variables' filters: " + expr);
            }
        }
        final Matcher selector = SELECTOR.matcher(expr);
        while (selector.find())
        {
            for (final String filter : List.of("namespace=~\"$namespace\"", "feed=~\"$feed\"", "instance=~\"$instance\""))
            {
                if (!selector.group().contains(filter))
                {
                    problems.add(where + ": selector " + selector.group() + " lacks " + filter);
                }
            }
        }
        final Matcher range = RANGE.matcher(expr);
        while (range.find())
        {
            if (!"[$__rate_interval]".equals(range.group()))
            {
                problems.add(where + ": range " + range.group() + " instead of [$__rate_interval]: " + expr);
            }
        }
    }

    /** Every panel query of every dashboard, with the template variables as this chain's labels. */
    private static List<String> dashboardQueries() throws IOException
    {
        final List<String> queries = new ArrayList<>();
        for (final Map<String, Object> dashboard : dashboards().values())
        {
            for (final Object panel : list(dashboard.get("panels")))
            {
                for (final Object target : list(map(panel).get("targets")))
                {
                    queries.add(substituted((String)map(target).get("expr")));
                }
            }
        }
        assertTrue(queries.size() > 10, "dashboards found under " + DASHBOARDS);
        return queries;
    }

    private static String substituted(final String query)
    {
        String substituted = query;
        for (final Map.Entry<String, String> variable : VARIABLES.entrySet())
        {
            substituted = substituted.replace(variable.getKey(), variable.getValue());
        }
        assertTrue(!substituted.contains("$"), "a variable left in " + substituted);
        return substituted;
    }

    /** Each dashboard variable's label_values query, against the chain: it offers the chain's labels. */
    private List<String> variableQueryFailures() throws IOException, InterruptedException
    {
        final Map<String, List<String>> expected = Map.of(
            "namespace", List.of(NAMESPACE), "feed", List.of(FEED), "instance", INSTANCES);
        final List<String> failures = new ArrayList<>();
        for (final Map.Entry<String, Map<String, Object>> dashboard : dashboards().entrySet())
        {
            for (final Object item : list(map(dashboard.getValue().get("templating")).get("list")))
            {
                final Map<String, Object> variable = map(item);
                if (!expected.containsKey((String)variable.get("name")))
                {
                    continue;
                }
                final Matcher matcher = LABEL_VALUES.matcher((String)map(variable.get("query")).get("query"));
                assertTrue(matcher.matches(), dashboard.getKey() + " variable " + variable.get("name"));
                final String response = prometheus.get("/api/v1/label/" + matcher.group(2) + "/values?match[]=" +
                    URLEncoder.encode(substituted(matcher.group(1)), StandardCharsets.UTF_8));
                for (final String value : expected.get((String)variable.get("name")))
                {
                    if (!response.contains("\"" + value + "\""))
                    {
                        failures.add(dashboard.getKey() + " variable " + variable.get("name") + " does not offer " +
                            value + ": " + response);
                    }
                }
            }
        }
        return failures;
    }

    /** @return each alert rule's text, from its name (after {@code - alert:}) to the next rule. */
    private static List<String> alertRules() throws IOException
    {
        final String[] parts = Files.readString(RULES).split("\n\\s*- alert:");
        return List.of(parts).subList(1, parts.length);
    }

    /** @return the anchors GitHub gives the headings of docs/RUNBOOKS.md. */
    private static Set<String> runbookAnchors() throws IOException
    {
        final Set<String> anchors = new HashSet<>();
        final Matcher heading = HEADING.matcher(Files.readString(RUNBOOKS));
        while (heading.find())
        {
            anchors.add(heading.group(1).toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-'));
        }
        return anchors;
    }

    /**
     * The data behind every alert rule: each side of an {@code and}/{@code or}, without its threshold
     * (a rule that does not fire still has to be looking at series that exist), and the series inside an
     * {@code absent()} (present while the chain is healthy).
     */
    private static List<String> ruleQueries() throws IOException
    {
        final List<String> queries = new ArrayList<>();
        final Matcher matcher = RULE_EXPR.matcher(Files.readString(RULES));
        while (matcher.find())
        {
            for (final String side : matcher.group(1).trim().split(SET_OPERATOR))
            {
                final String query = THRESHOLD.matcher(side).replaceAll("");
                final Matcher absent = ABSENT.matcher(query);
                queries.add(absent.matches() ? absent.group(1) : query);
            }
        }
        assertTrue(queries.size() >= 7, "rules found in " + RULES);
        return queries;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(final Object value)
    {
        return null == value ? Map.of() : (Map<String, Object>)value;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(final Object value)
    {
        return null == value ? List.of() : (List<Object>)value;
    }

    private static boolean isBlank(final Object value)
    {
        return !(value instanceof String) || ((String)value).isBlank();
    }
}
