package io.mdfanout.tools;

import io.mdfanout.metrics.AeronCountersCollector;
import io.mdfanout.metrics.CountersCollector;
import io.mdfanout.metrics.LatencyHistogram;
import io.mdfanout.metrics.MetricsOptions;
import io.mdfanout.metrics.MetricsServer;
import io.mdfanout.sdk.DeliveryLatencyRecorder;
import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.LocalCounters;
import io.mdfanout.sdk.SubscriberCounters;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Labels;
import org.agrona.CloseHelper;
import org.agrona.concurrent.status.CountersManager;

import java.io.PrintStream;

/**
 * A tool's Prometheus export: the subscriber's counters live in a counters manager of this class
 * (so the scrape thread can read them), and {@link #start} serves them with the media driver's
 * counters when {@code --metrics-port} is set.
 */
final class ToolMetrics implements AutoCloseable
{
    private final CountersManager countersManager;
    private final SubscriberCounters counters;
    private final LatencyHistogram deliveryLatency;
    private final DeliveryLatencyRecorder deliveryLatencyRecorder;
    private MetricsServer server;

    /**
     * @param tool the tool's name, the {@code subscriber} label of its metrics.
     */
    ToolMetrics(final String tool)
    {
        countersManager = LocalCounters.create(SubscriberCounters.COUNTER_COUNT);
        counters = new SubscriberCounters(countersManager, tool);
        deliveryLatency = new LatencyHistogram("mdfanout_subscriber_delivery_latency_seconds",
            "Time from the fanout sending a packet to its delivery to this subscriber's callbacks (wall clocks)",
            Labels.of("subscriber", tool));
        deliveryLatencyRecorder = deliveryLatency::recordNanos; // one instance: nothing allocated per packet
    }

    /**
     * The subscriber settings of a tool, counting into this tool's counters and recording delivery latency
     * into its histogram.
     *
     * @param options the tool's subscriber options.
     * @return the SDK context to build the FeedSubscriber with, less the Aeron client, partitions and listener.
     */
    FeedSubscriber.Context feedSubscriberContext(final SubscriberOptions options)
    {
        return options.feedSubscriberContext()
            .counters(counters)
            .deliveryLatencyRecorder(deliveryLatencyRecorder);
    }

    /** @return the counters to give the {@link io.mdfanout.sdk.FeedSubscriber}. */
    SubscriberCounters counters()
    {
        return counters;
    }

    /**
     * Serve the metrics when enabled.
     *
     * @param options the metrics options.
     * @param media   the tool's Aeron client, whose counters reader maps the driver's counters.
     * @param out     where to print the URL.
     * @param tool    prefix of the printed line.
     */
    void start(final MetricsOptions options, final ToolMedia media, final PrintStream out, final String tool)
    {
        if (!options.enabled())
        {
            return;
        }
        final PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new CountersCollector(countersManager));
        registry.register(new AeronCountersCollector(media.aeron()::countersReader));
        registry.register(deliveryLatency);
        server = MetricsServer.start(tool, options, registry);
        out.println(tool + ": metrics: " + server.url());
    }

    /** Stop serving. */
    public void close()
    {
        CloseHelper.quietClose(server);
    }
}
