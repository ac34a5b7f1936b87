package io.mdfanout.metrics;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.agrona.CloseHelper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * Serves {@code /metrics} (Prometheus text and protobuf formats) from a {@link PrometheusRegistry}
 * on the HTTP server's own daemon thread. Every collector runs at scrape time on that thread, so
 * the message path is never touched: it only writes its counters with ordered stores.
 * <p>
 * JVM metrics (memory, GC, threads, class loading, buffer pools, process) are registered too, and
 * {@code /ready} answers whether the role is ready to serve ({@link Readiness}: always, unless the role says otherwise).
 */
public final class MetricsServer implements AutoCloseable
{
    private final HTTPServer server;
    private final String url;
    private final List<AutoCloseable> resources = new ArrayList<>();

    private MetricsServer(final HTTPServer server, final String url)
    {
        this.server = server;
        this.url = url;
    }

    /**
     * Register the JVM metrics and {@code mdfanout_build_info} in {@code registry} and start serving it.
     *
     * @param role     the process's role, the label role of {@code mdfanout_build_info}, e.g. {@code fanout}.
     * @param options  where to bind; must be {@link MetricsOptions#enabled() enabled} (or port 0 from
     *                 {@link #start(String, int, PrometheusRegistry)} for an ephemeral port in tests).
     * @param registry the process's collectors.
     * @return the running server.
     * @throws IllegalArgumentException when the options are wrong or the address cannot be bound (one line).
     */
    public static MetricsServer start(
        final String role, final MetricsOptions options, final PrometheusRegistry registry)
    {
        return start(role, options, registry, Readiness.ALWAYS);
    }

    /**
     * As {@link #start(String, MetricsOptions, PrometheusRegistry)}, with {@code GET /ready} answered from
     * {@code readiness} (200 or 503 with the reason): what the chart's readiness probe asks.
     *
     * @param role      the process's role, the label role of {@code mdfanout_build_info}.
     * @param options   where to bind; must be enabled.
     * @param registry  the process's collectors.
     * @param readiness whether the role is ready, evaluated at each request on the server's thread.
     * @return the running server.
     * @throws IllegalArgumentException when the options are wrong or the address cannot be bound (one line).
     */
    public static MetricsServer start(
        final String role, final MetricsOptions options, final PrometheusRegistry registry, final Readiness readiness)
    {
        options.validate();
        registry.register(new BuildInfoCollector(role));
        return start(options.bind(), options.port(), registry, readiness);
    }

    /**
     * Register the JVM metrics in {@code registry} and start serving it.
     *
     * @param bind     address to bind.
     * @param port     port, 0 = any free port (see {@link #port()}).
     * @param registry the process's collectors.
     * @return the running server.
     * @throws IllegalArgumentException when the address cannot be resolved or bound (one line).
     */
    public static MetricsServer start(final String bind, final int port, final PrometheusRegistry registry)
    {
        return start(bind, port, registry, Readiness.ALWAYS);
    }

    /**
     * Register the JVM metrics in {@code registry} and start serving it, with {@code GET /ready} from {@code readiness}.
     *
     * @param bind      address to bind.
     * @param port      port, 0 = any free port (see {@link #port()}).
     * @param registry  the process's collectors.
     * @param readiness whether the role is ready.
     * @return the running server.
     * @throws IllegalArgumentException when the address cannot be resolved or bound (one line).
     */
    public static MetricsServer start(
        final String bind, final int port, final PrometheusRegistry registry, final Readiness readiness)
    {
        final InetAddress address;
        try
        {
            address = InetAddress.getByName(bind);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("--metrics-bind is not a known address: " + bind);
        }
        JvmMetrics.builder().register(registry);
        try
        {
            final HTTPServer server = HTTPServer.builder()
                .inetAddress(address)
                .port(port)
                .registry(registry)
                .defaultHandler(new ReadinessHandler(readiness))
                .buildAndStart();
            final String host = address.getHostAddress().contains(":") ?
                "[" + address.getHostAddress() + "]" : address.getHostAddress();
            return new MetricsServer(server, "http://" + host + ":" + server.getPort() + "/metrics");
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("cannot serve metrics on " + bind + ":" + port + ": " + ex.getMessage());
        }
        catch (final UncheckedIOException ex)
        {
            throw new IllegalArgumentException(
                "cannot serve metrics on " + bind + ":" + port + ": " + ex.getCause().getMessage());
        }
    }

    /** @return the port served (the chosen one when started with port 0). */
    public int port()
    {
        return server.getPort();
    }

    /** @return the metrics URL, e.g. {@code http://0.0.0.0:9402/metrics}. */
    public String url()
    {
        return url;
    }

    /**
     * Close {@code resource} (e.g. a {@link CncCounters} mapping a collector reads) when this server
     * is closed, after the HTTP server has stopped, so that no scrape can read it once released.
     *
     * @param resource to close after the server.
     * @return this server.
     */
    public MetricsServer closeAfter(final AutoCloseable resource)
    {
        resources.add(resource);
        return this;
    }

    /** Stop the HTTP server and its threads, then close the resources given to {@link #closeAfter(AutoCloseable)}. */
    public void close()
    {
        server.close();
        CloseHelper.quietCloseAll(resources);
    }
}
