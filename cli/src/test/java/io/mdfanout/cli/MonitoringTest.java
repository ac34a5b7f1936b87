package io.mdfanout.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The chart's dashboards and alert rules against what the code really exports: the chain runs
 * with its metrics ports open, a real Prometheus server (Debian's, installed by {@code make test})
 * scrapes the feed handler, the fanout and a subscriber every second, and every query of every
 * dashboard panel and every alert rule must return data. promtool checks the rules file, and the
 * server itself must load every rule with health "ok".
 * <p>
 * Then the faults the alerts are for are caused, one at a time, and each alert must go to firing
 * and back to inactive when the fault ends: a stalled fanout (SIGSTOP), a dead feed handler
 * (SIGSTOP: its rings only look idle; held until the exchange's packets overflow its socket buffer,
 * so that it declares a gap when it resumes) and a silent line (the exchange, here the simulator,
 * stopped). The server loads the rules at 1/{@value #RULE_TIME_SCALE} of their durations
 * ({@code for:} and range windows) so that this takes seconds, not minutes.
 */
class MonitoringTest
{
    private static final Path CHART = Path.of("..", "charts", "mdfanout").toAbsolutePath().normalize();
    private static final Path RULES = CHART.resolve("rules/mdfanout-rules.yaml");
    private static final Path DASHBOARDS = CHART.resolve("dashboards");
    private static final int FEED_HANDLER_PORT = 19401;
    private static final int FANOUT_PORT = 19402;
    private static final int SUBSCRIBER_PORT = 19403;
    private static final int PROMETHEUS_PORT = 19490;
    private static final Pattern DASHBOARD_EXPR = Pattern.compile("\"expr\":\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern RULE_EXPR = Pattern.compile("^\\s*expr:\\s*(.+)$", Pattern.MULTILINE);
    private static final Pattern THRESHOLD = Pattern.compile("\\s*(>=|<=|==|!=|>|<)\\s*[0-9.]+\\s*$");
    private static final Pattern DURATION = Pattern.compile("(for: |\\[)(\\d+)([sm])");
    private static final Pattern ALERT_STATE = Pattern.compile("\"state\":\"(\\w+)\"");
    /** The test's rules run this many times faster than the chart's. */
    private static final int RULE_TIME_SCALE = 15;
    private static final String FEED_HANDLER_DOWN = "MdfanoutFeedHandlerDown";
    private static final String LINE_SILENT = "MdfanoutFeedLineSilent";
    private static final String GAPS_DECLARED = "MdfanoutFeedGapsDeclared";
    private static final String FANOUT_STALLED = "MdfanoutFanoutStalled";
    /**
     * The fanout is stopped by a signal for several seconds: its embedded driver and its client must not time
     * each other out when both resume (whichever thread runs first would find the other's heartbeat old).
     */
    private static final List<String> PATIENT_AERON = List.of("-Daeron.client.liveness.timeout=60s",
        "-Daeron.publication.unblock.timeout=90s", "-Daeron.driver.timeout=60000");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void everyDashboardQueryAndAlertRuleReturnsDataAndTheAlertsFireOnTheirFaults(@TempDir final Path dir) throws Exception
    {
        final String prometheus = requireTool("prometheus");
        final String promtool = requireTool("promtool");
        final Process check = new ProcessBuilder(promtool, "check", "rules", RULES.toString())
            .redirectErrorStream(true).start();
        final String checkOutput = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, check.waitFor(), "promtool check rules: " + checkOutput);

        final String channel = "aeron:udp?endpoint=224.0.1.109:46800|interface=127.0.0.1|mtu=8192";
        try (ChainHarness chain = new ChainHarness(dir, "monitoring", 2, channel, 4680))
        {
            // A 1 MiB socket buffer (the kernel doubles it) holds about a second of this feed: a feed handler
            // stopped for several seconds loses packets, and with no line B and no re-request server declares them.
            final ChainProcess feedHandler = chain.feedHandler("--group", "239.255.46.9", "--port", "46900",
                "--interface", "127.0.0.1", "--rcvbuf-bytes", "1048576", "--line-silence-ms", "1000",
                "--metrics-port", Integer.toString(FEED_HANDLER_PORT), "--metrics-bind", "127.0.0.1");
            final ChainProcess fanout = chain.namedFanout("fanout", PATIENT_AERON,
                "--metrics-port", Integer.toString(FANOUT_PORT), "--metrics-bind", "127.0.0.1");
            chain.start("subscriber", "stats", "--channel", channel, "--stream-id-base", "4680", "--partitions", "2",
                "--interval-s", "5", "--metrics-port", Integer.toString(SUBSCRIBER_PORT), "--metrics-bind", "127.0.0.1");
            final ChainProcess simulator = chain.simulator(
                "--group", "239.255.46.9", "--port", "46900", "--interface", "127.0.0.1",
                "--symbols", "50", "--messages", "0", "--rate", "20000", "--coalesce-us", "1000");

            final Path fastRules = dir.resolve("mdfanout-rules-fast.yaml");
            Files.writeString(fastRules, scaled(Files.readString(RULES)));
            final Path config = dir.resolve("prometheus.yml");
            Files.writeString(config, String.join("\n",
                "global: {scrape_interval: 1s, evaluation_interval: 1s}",
                "rule_files: ['" + fastRules + "']",
                "scrape_configs:",
                "  - job_name: mdfanout-feed-handler",
                "    static_configs: [{targets: ['127.0.0.1:" + FEED_HANDLER_PORT + "']}]",
                "  - job_name: mdfanout-fanout",
                "    static_configs: [{targets: ['127.0.0.1:" + FANOUT_PORT + "']}]",
                "  - job_name: mdfanout-subscriber",
                "    static_configs: [{targets: ['127.0.0.1:" + SUBSCRIBER_PORT + "']}]",
                ""));
            final ChainProcess server = ChainProcess.startCommand("prometheus", dir, List.of(prometheus,
                "--config.file=" + config, "--storage.tsdb.path=" + dir.resolve("tsdb"),
                "--web.listen-address=127.0.0.1:" + PROMETHEUS_PORT, "--log.level=warn"));
            try
            {
                awaitReady();
                // Rates over [1m] need two scrapes in the window and histograms a few packets: let
                // the chain run a while under a steady rate.
                awaitQuery("sum(rate(mdfanout_subscriber_messages_delivered_total[1m])) > 1000", 90);
                Thread.sleep(5_000);
                assertTrue(simulator.isAlive(), "the session is still running while the queries are made");

                final List<String> failures = new ArrayList<>();
                final Set<String> queries = new LinkedHashSet<>();
                queries.addAll(dashboardQueries());
                queries.addAll(ruleQueries());
                for (final String query : queries)
                {
                    final String result = query(query);
                    if (!hasData(result))
                    {
                        failures.add(query + " -> " + result);
                    }
                }
                System.out.println("monitoring: " + queries.size() + " dashboard and rule queries checked against " +
                    "Prometheus, " + failures.size() + " without data");
                assertEquals(List.of(), failures, "every dashboard and alert-rule query returns data");

                final String rules = get("/api/v1/rules");
                final Matcher health = Pattern.compile("\"health\":\"(\\w+)\"").matcher(rules);
                int count = 0;
                while (health.find())
                {
                    assertEquals("ok", health.group(1), "rule health: " + rules);
                    count++;
                }
                assertEquals(Files.readString(RULES).split("- alert:", -1).length - 1, count, "every rule loaded");

                causeEachFaultAndSeeItsAlertFireAndResolve(feedHandler, fanout, simulator);
            }
            finally
            {
                server.stop();
            }
            chain.passed();
        }
    }

    /**
     * One fault at a time; before each, its alert is inactive (a gap declared while the chain warmed up has
     * left the scaled window), and after each it must fire, then resolve once the fault ends.
     */
    private void causeEachFaultAndSeeItsAlertFireAndResolve(
        final ChainProcess feedHandler, final ChainProcess fanout, final ChainProcess simulator) throws Exception
    {
        for (final String alert : List.of(FANOUT_STALLED, FEED_HANDLER_DOWN, LINE_SILENT, GAPS_DECLARED))
        {
            awaitAlert(alert, "inactive", 60);
        }
        final long startNs = System.nanoTime();

        // A stalled fanout: records wait in its rings and its position does not move (seen from the feed handler).
        fanout.signal("STOP");
        try
        {
            awaitAlert(FANOUT_STALLED, "firing", 30);
            assertEquals("inactive", alertState(FEED_HANDLER_DOWN), "a stalled fanout is not a dead feed handler");
        }
        finally
        {
            fanout.signal("CONT");
        }
        awaitAlert(FANOUT_STALLED, "inactive", 30);
        System.out.println("monitoring: stalled fanout alerted and resolved");

        // A dead feed handler: its rings only look idle; the fanout says so, to Prometheus and to the subscriber.
        feedHandler.signal("STOP");
        final long stoppedNs = System.nanoTime();
        try
        {
            awaitQuery("mdfanout_fanout_source_status == 5", 20);
            awaitAlert(FEED_HANDLER_DOWN, "firing", 30);
            assertEquals("inactive", alertState(FANOUT_STALLED), "the fanout is fine: its rings are just idle");
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
        awaitAlert(FEED_HANDLER_DOWN, "inactive", 30);
        awaitQuery("mdfanout_subscriber_stale_total{reason=\"source_down\"} > 0", 20);
        // What it lost while stopped, it declares (no line B, no re-request server).
        awaitAlert(GAPS_DECLARED, "firing", 30);
        System.out.println("monitoring: dead feed handler alerted (the subscriber stale with SOURCE_DOWN) and " +
            "resolved, its loss declared");

        // A silent line: the exchange stops sending. The fanout says LINES_SILENT, which is not a dead feed handler.
        simulator.signal("STOP");
        try
        {
            awaitAlert(LINE_SILENT, "firing", 30);
            awaitQuery("mdfanout_fanout_source_status == 2", 10);
            assertEquals("inactive", alertState(FEED_HANDLER_DOWN), "silent lines are not a dead feed handler");
        }
        finally
        {
            simulator.signal("CONT");
        }
        awaitAlert(LINE_SILENT, "inactive", 30);
        awaitAlert(GAPS_DECLARED, "inactive", 60);
        System.out.println("monitoring: silent line alerted and resolved; declared gaps resolved; faults took " +
            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNs) + " s");
    }

    /** The rules with every {@code for:} and range window divided by {@link #RULE_TIME_SCALE} (1 s at least). */
    static String scaled(final String rules)
    {
        final Matcher matcher = DURATION.matcher(rules);
        final StringBuilder scaled = new StringBuilder();
        while (matcher.find())
        {
            final long seconds = Long.parseLong(matcher.group(2)) * ("m".equals(matcher.group(3)) ? 60 : 1);
            matcher.appendReplacement(scaled, matcher.group(1) + Math.max(1, seconds / RULE_TIME_SCALE) + "s");
        }
        matcher.appendTail(scaled);
        return scaled.toString();
    }

    /** @return firing, pending or inactive: the most advanced state of any alert of that name. */
    private String alertState(final String alertName) throws IOException, InterruptedException
    {
        String state = "inactive";
        for (final String alert : get("/api/v1/alerts").split("\\{\"labels\":"))
        {
            if (alert.contains("\"alertname\":\"" + alertName + "\""))
            {
                final Matcher matcher = ALERT_STATE.matcher(alert);
                if (matcher.find())
                {
                    if ("firing".equals(matcher.group(1)))
                    {
                        return "firing";
                    }
                    state = matcher.group(1);
                }
            }
        }
        return state;
    }

    private void awaitAlert(final String alertName, final String state, final int timeoutSeconds) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (!state.equals(alertState(alertName)))
        {
            if (System.nanoTime() > deadline)
            {
                fail(alertName + " not " + state + " after " + timeoutSeconds + " s: " + get("/api/v1/alerts"));
            }
            Thread.sleep(250);
        }
    }

    private static String requireTool(final String name)
    {
        for (final String directory : System.getenv("PATH").split(":"))
        {
            final Path candidate = Path.of(directory, name);
            if (Files.isExecutable(candidate))
            {
                return candidate.toString();
            }
        }
        fail(name + " not found on PATH: `make test` installs it (Debian package prometheus)");
        return null;
    }

    /** Every panel query of every dashboard, with the template variables matching everything. */
    private static List<String> dashboardQueries() throws IOException
    {
        final List<String> queries = new ArrayList<>();
        try (var files = Files.list(DASHBOARDS))
        {
            for (final Path file : files.filter(path -> path.toString().endsWith(".json")).sorted().toList())
            {
                final Matcher matcher = DASHBOARD_EXPR.matcher(Files.readString(file));
                while (matcher.find())
                {
                    queries.add(matcher.group(1).replace("\\\"", "\"").replace("\\\\", "\\")
                        .replace("$instance", ".*").replace("$host", ".*"));
                }
            }
        }
        assertTrue(queries.size() > 10, "dashboards found under " + DASHBOARDS);
        return queries;
    }

    /**
     * The data behind every alert rule: each side of an {@code and}/{@code or}, without its threshold
     * (a rule that does not fire still has to be looking at series that exist).
     */
    private static List<String> ruleQueries() throws IOException
    {
        final List<String> queries = new ArrayList<>();
        final Matcher matcher = RULE_EXPR.matcher(Files.readString(RULES));
        while (matcher.find())
        {
            for (final String side : matcher.group(1).trim().split("\\s+(and|or|unless)\\s+"))
            {
                queries.add(THRESHOLD.matcher(side).replaceAll(""));
            }
        }
        assertTrue(queries.size() >= 7, "rules found in " + RULES);
        return queries;
    }

    private static boolean hasData(final String response)
    {
        return response.contains("\"status\":\"success\"") && !response.contains("\"result\":[]");
    }

    private void awaitReady() throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline)
        {
            try
            {
                if (http.send(HttpRequest.newBuilder(URI.create(base() + "/-/ready")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode() == 200)
                {
                    return;
                }
            }
            catch (final IOException ignore)
            {
                // not listening yet
            }
            Thread.sleep(200);
        }
        fail("prometheus did not become ready");
    }

    private void awaitQuery(final String query, final int timeoutSeconds) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        String last = "";
        while (System.nanoTime() < deadline)
        {
            last = query(query);
            if (hasData(last))
            {
                return;
            }
            Thread.sleep(500);
        }
        fail("no data for " + query + ": " + last);
    }

    private String query(final String query) throws IOException, InterruptedException
    {
        return get("/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8));
    }

    private String get(final String path) throws IOException, InterruptedException
    {
        return http.send(HttpRequest.newBuilder(URI.create(base() + path)).build(),
            HttpResponse.BodyHandlers.ofString()).body();
    }

    private static String base()
    {
        return "http://127.0.0.1:" + PROMETHEUS_PORT;
    }
}
