package io.mdfanout.metrics;

import io.mdfanout.wire.PortCheck;
import picocli.CommandLine.Option;

/**
 * The picocli mixin every long-running role shares: where to serve Prometheus metrics.
 * <p>
 * Suggested ports, so that the roles of one host (or one pod) never collide: feed-handler
 * {@value #FEED_HANDLER_PORT}, fanout {@value #FANOUT_PORT}, subscriber tools {@value #TOOLS_PORT}.
 */
public final class MetricsOptions
{
    /** Suggested metrics port of the feed handler. */
    public static final int FEED_HANDLER_PORT = 9401;
    /** Suggested metrics port of the fanout. */
    public static final int FANOUT_PORT = 9402;
    /** Suggested metrics port of the subscriber tools (book, stats, tail, record). */
    public static final int TOOLS_PORT = 9403;
    /** Suggested metrics port of the archive. */
    public static final int ARCHIVE_PORT = 9404;

    @Option(names = "--metrics-port", defaultValue = "0",
        description = "Serve Prometheus metrics on http://<bind>:<port>/metrics; 0 = off. Suggested: feed-handler " +
            FEED_HANDLER_PORT + ", fanout " + FANOUT_PORT + ", tools " + TOOLS_PORT + ", archive " + ARCHIVE_PORT + ".")
    int port;

    @Option(names = "--metrics-bind", defaultValue = "0.0.0.0",
        description = "Address the metrics HTTP server binds to (0.0.0.0 = every interface).")
    String bind = "0.0.0.0";

    /**
     * Options set programmatically (tests, embedding).
     *
     * @param port metrics port, 0 = off.
     * @param bind address to bind.
     * @return these options.
     */
    public MetricsOptions set(final int port, final String bind)
    {
        this.port = port;
        this.bind = bind;
        return this;
    }

    /** @return true when a port is configured. */
    public boolean enabled()
    {
        return port != 0;
    }

    /** @return the configured port, 0 = off. */
    public int port()
    {
        return port;
    }

    /** @return the bind address. */
    public String bind()
    {
        return bind;
    }

    /**
     * Check the values and, when enabled, that the port is free (bound and let go again): a role calls this
     * before it creates anything, so a port another process holds stops it with nothing left behind.
     *
     * @return these options.
     * @throws IllegalArgumentException with a one-line message naming the wrong option, or the port another process
     *                                  holds.
     */
    public MetricsOptions validate()
    {
        if (port < 0 || port > 65535)
        {
            throw new IllegalArgumentException("--metrics-port must be 0 (off) or 1..65535: " + port);
        }
        if (null == bind || bind.isBlank())
        {
            throw new IllegalArgumentException("--metrics-bind must be an address: '" + bind + "'");
        }
        PortCheck.tcp("--metrics-port", bind, port);
        return this;
    }
}
