package io.mdfanout.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.prometheus.metrics.exporter.httpserver.DefaultHandler;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The metrics server's handler of every path but {@code /metrics} and {@code /-/healthy}: {@value #PATH} answers from a
 * {@link Readiness} (200 {@code ready}, or 503 {@code not ready: <reason>}); any other path gets the Prometheus client's
 * landing page, as before.
 */
final class ReadinessHandler implements HttpHandler
{
    /** The readiness path, the chart's readiness probe. */
    static final String PATH = "/ready";

    private final Readiness readiness;
    private final DefaultHandler landingPage = new DefaultHandler("/metrics");

    ReadinessHandler(final Readiness readiness)
    {
        this.readiness = readiness;
    }

    public void handle(final HttpExchange exchange) throws IOException
    {
        if (!PATH.equals(exchange.getRequestURI().getPath()))
        {
            landingPage.handle(exchange);
            return;
        }
        try
        {
            String reason;
            try
            {
                reason = readiness.notReadyReason();
            }
            catch (final RuntimeException ex)
            {
                reason = "readiness check failed: " + ex;
            }
            final byte[] body = (null == reason ? "ready\n" : "not ready: " + reason + "\n")
                .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            exchange.sendResponseHeaders(null == reason ? 200 : 503, "HEAD".equals(exchange.getRequestMethod()) ? -1 :
                body.length);
            if (!"HEAD".equals(exchange.getRequestMethod()))
            {
                try (OutputStream out = exchange.getResponseBody())
                {
                    out.write(body);
                }
            }
        }
        finally
        {
            exchange.close();
        }
    }
}
