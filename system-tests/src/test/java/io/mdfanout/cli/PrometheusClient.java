package io.mdfanout.cli;

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
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * A real Prometheus server for the system tests (Debian's {@code prometheus}, which {@code make test} installs): the
 * chart's rules loaded at a faster time scale, the chain's roles scraped every second under the chart's job names and
 * the labels its ServiceMonitor adds, and its HTTP API read for queries and alert states.
 */
final class PrometheusClient
{
    private static final Pattern DURATION = Pattern.compile("(for: |\\[)(\\d+)([sm])");
    private static final Pattern ALERT_STATE = Pattern.compile("\"state\":\"(\\w+)\"");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final int port;

    PrometheusClient(final int port)
    {
        this.port = port;
    }

    /** The rules with every {@code for:} and range window divided by {@code scale} (1 s at least). */
    static String scaled(final String rules, final int scale)
    {
        final Matcher matcher = DURATION.matcher(rules);
        final StringBuilder scaled = new StringBuilder();
        while (matcher.find())
        {
            final long seconds = Long.parseLong(matcher.group(2)) * ("m".equals(matcher.group(3)) ? 60 : 1);
            matcher.appendReplacement(scaled, matcher.group(1) + Math.max(1, seconds / scale) + "s");
        }
        matcher.appendTail(scaled);
        return scaled.toString();
    }

    /**
     * Writes the configuration (1 s scrapes and evaluations, {@code rules}, one static job per entry of
     * {@code jobs}: job name then its targets, each with {@code labels}), starts the server on this client's port
     * and waits until it is ready.
     */
    ChainProcess start(final Path dir, final String rules, final String labels, final List<List<String>> jobs)
        throws IOException, InterruptedException
    {
        final Path rulesFile = dir.resolve("mdfanout-rules-scaled.yaml");
        Files.writeString(rulesFile, rules);
        final StringBuilder config = new StringBuilder("global: {scrape_interval: 1s, evaluation_interval: 1s}\n")
            .append("rule_files: ['").append(rulesFile).append("']\n")
            .append("scrape_configs:\n");
        for (final List<String> job : jobs)
        {
            config.append("  - job_name: ").append(job.get(0)).append('\n')
                .append("    static_configs: [{targets: ['").append(String.join("', '", job.subList(1, job.size())))
                .append("'], labels: {").append(labels).append("}}]\n");
        }
        final Path configFile = dir.resolve("prometheus.yml");
        Files.writeString(configFile, config.toString());
        final ChainProcess server = ChainProcess.startCommand("prometheus", dir, List.of(requireTool("prometheus"),
            "--config.file=" + configFile, "--storage.tsdb.path=" + dir.resolve("tsdb"),
            "--web.listen-address=127.0.0.1:" + port, "--log.level=warn"));
        awaitReady();
        return server;
    }

    static String requireTool(final String name)
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

    static boolean hasData(final String response)
    {
        return response.contains("\"status\":\"success\"") && !response.contains("\"result\":[]");
    }

    void awaitReady() throws InterruptedException
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

    void awaitQuery(final String query, final int timeoutSeconds) throws Exception
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

    String query(final String query) throws IOException, InterruptedException
    {
        return get("/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8));
    }

    /** An instant query evaluated at {@code epochMs} (a range selector in it then looks back from there). */
    String queryAt(final String query, final long epochMs) throws IOException, InterruptedException
    {
        return get("/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8) +
            "&time=" + epochMs / 1000 + "." + String.format("%03d", epochMs % 1000));
    }

    String get(final String path) throws IOException, InterruptedException
    {
        return http.send(HttpRequest.newBuilder(URI.create(base() + path)).build(),
            HttpResponse.BodyHandlers.ofString()).body();
    }

    /**
     * @param job the job the alert must be about (its label job), or null for any.
     * @return firing, pending or inactive: the most advanced state of any alert of that name (and job).
     */
    String alertState(final String alertName, final String job) throws IOException, InterruptedException
    {
        String state = "inactive";
        for (final String alert : get("/api/v1/alerts").split("\\{\"labels\":"))
        {
            if (alert.contains("\"alertname\":\"" + alertName + "\"") &&
                (null == job || alert.contains("\"job\":\"" + job + "\"")))
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

    /** @param job the job the alert must be about, or null for any. */
    void awaitAlert(final String alertName, final String job, final String state, final int timeoutSeconds)
        throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (!state.equals(alertState(alertName, job)))
        {
            if (System.nanoTime() > deadline)
            {
                fail(alertName + (null == job ? "" : " of " + job) + " not " + state + " after " + timeoutSeconds +
                    " s: " + get("/api/v1/alerts"));
            }
            Thread.sleep(250);
        }
    }

    private String base()
    {
        return "http://127.0.0.1:" + port;
    }
}
