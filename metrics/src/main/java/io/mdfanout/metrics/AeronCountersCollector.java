package io.mdfanout.metrics;

import io.aeron.AeronCounters;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.agrona.concurrent.status.CountersReader;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Exports the media driver's own counters (from its CnC file, embedded or external driver):
 * selected system counters as {@code mdfanout_aeron_*_total} and the per-stream positions
 * (publisher, sender, receiver high-water mark, receiver, subscriber) as
 * {@code mdfanout_aeron_position_bytes{kind, stream_id, session_id}}. Read at scrape time only.
 * <p>
 * The positions carry no registration id (a new one on every reconnect would churn the series): where two counters
 * of one driver share kind, stream and session (two subscriptions of one stream), the subscriber and receiver
 * positions export the lowest (the slowest reader, what holds the publisher back) and the others the highest.
 */
public final class AeronCountersCollector implements MultiCollector
{
    /** A system counter and its metric. */
    private static final class SystemCounter
    {
        final int id;
        final String name;
        final String help;
        final MetricKind kind;

        SystemCounter(final int id, final String name, final MetricKind kind, final String help)
        {
            this.id = id;
            this.name = name;
            this.kind = kind;
            this.help = help;
        }
    }

    private static final SystemCounter[] SYSTEM_COUNTERS =
    {
        new SystemCounter(AeronCounters.SYSTEM_COUNTER_ID_BYTES_SENT, "mdfanout_aeron_sent_bytes_total",
            MetricKind.COUNTER, "Bytes the media driver sent."),
        new SystemCounter(AeronCounters.SYSTEM_COUNTER_ID_BYTES_RECEIVED, "mdfanout_aeron_received_bytes_total",
            MetricKind.COUNTER, "Bytes the media driver received."),
        new SystemCounter(AeronCounters.SYSTEM_COUNTER_ID_NAK_MESSAGES_SENT, "mdfanout_aeron_naks_sent_total",
            MetricKind.COUNTER, "NAKs sent (receiver detected loss)."),
        new SystemCounter(AeronCounters.SYSTEM_COUNTER_ID_NAK_MESSAGES_RECEIVED, "mdfanout_aeron_naks_received_total",
            MetricKind.COUNTER, "NAKs received (a receiver lost data we sent)."),
        new SystemCounter(AeronCounters.SYSTEM_COUNTER_ID_RETRANSMITS_SENT, "mdfanout_aeron_retransmits_sent_total",
            MetricKind.COUNTER, "Retransmits sent in answer to NAKs."),
        new SystemCounter(AeronCounters.SYSTEM_COUNTER_ID_RETRANSMITTED_BYTES, "mdfanout_aeron_retransmitted_bytes_total",
            MetricKind.COUNTER, "Bytes retransmitted."),
        new SystemCounter(AeronCounters.SYSTEM_COUNTER_ID_STATUS_MESSAGES_SENT,
            "mdfanout_aeron_status_messages_sent_total", MetricKind.COUNTER, "Status messages (flow control) sent."),
        new SystemCounter(AeronCounters.SYSTEM_COUNTER_ID_STATUS_MESSAGES_RECEIVED,
            "mdfanout_aeron_status_messages_received_total", MetricKind.COUNTER, "Status messages (flow control) received."),
        new SystemCounter(AeronCounters.SYSTEM_COUNTER_ID_HEARTBEATS_SENT, "mdfanout_aeron_heartbeats_sent_total",
            MetricKind.COUNTER, "Data heartbeats sent."),
        new SystemCounter(AeronCounters.SYSTEM_COUNTER_ID_HEARTBEATS_RECEIVED, "mdfanout_aeron_heartbeats_received_total",
            MetricKind.COUNTER, "Data heartbeats received."),
        new SystemCounter(AeronCounters.SYSTEM_COUNTER_ID_ERRORS, "mdfanout_aeron_errors_total",
            MetricKind.COUNTER, "Errors the media driver logged."),
        new SystemCounter(AeronCounters.SYSTEM_COUNTER_ID_SHORT_SENDS, "mdfanout_aeron_short_sends_total",
            MetricKind.COUNTER, "Sends the socket did not take whole."),
        new SystemCounter(AeronCounters.SYSTEM_COUNTER_ID_LOSS_GAP_FILLS, "mdfanout_aeron_loss_gap_fills_total",
            MetricKind.COUNTER, "Gaps filled with padding because the data was lost for good."),
        new SystemCounter(AeronCounters.SYSTEM_COUNTER_ID_INVALID_PACKETS, "mdfanout_aeron_invalid_packets_total",
            MetricKind.COUNTER, "Invalid packets received."),
        new SystemCounter(AeronCounters.SYSTEM_COUNTER_ID_FLOW_CONTROL_UNDER_RUNS,
            "mdfanout_aeron_flow_control_under_runs_total", MetricKind.COUNTER, "Flow control under runs."),
        new SystemCounter(AeronCounters.SYSTEM_COUNTER_ID_FLOW_CONTROL_OVER_RUNS,
            "mdfanout_aeron_flow_control_over_runs_total", MetricKind.COUNTER, "Flow control over runs."),
        new SystemCounter(AeronCounters.SYSTEM_COUNTER_ID_SENDER_FLOW_CONTROL_LIMITS,
            "mdfanout_aeron_sender_flow_control_limits_total", MetricKind.COUNTER,
            "Times the sender was held back by flow control."),
        new SystemCounter(AeronCounters.SYSTEM_COUNTER_ID_CLIENT_TIMEOUTS, "mdfanout_aeron_client_timeouts_total",
            MetricKind.COUNTER, "Clients timed out by the driver."),
        new SystemCounter(AeronCounters.SYSTEM_COUNTER_ID_UNBLOCKED_PUBLICATIONS,
            "mdfanout_aeron_unblocked_publications_total", MetricKind.COUNTER, "Publications unblocked by the driver."),
        new SystemCounter(AeronCounters.SYSTEM_COUNTER_ID_BYTES_CURRENTLY_MAPPED, "mdfanout_aeron_mapped_bytes",
            MetricKind.GAUGE, "Bytes the driver has mapped now."),
    };

    private final Supplier<CountersReader> countersReader;

    /**
     * @param countersReader the driver's counters: {@code aeron.countersReader()} or {@link CncCounters#reader()};
     *                       the supplier may return null while no driver is mapped (nothing is exported then).
     */
    public AeronCountersCollector(final Supplier<CountersReader> countersReader)
    {
        this.countersReader = countersReader;
    }

    /** {@inheritDoc} */
    public MetricSnapshots collect()
    {
        final CountersReader reader = countersReader.get();
        final MetricSnapshots.Builder snapshots = MetricSnapshots.builder();
        if (null == reader)
        {
            return snapshots.build();
        }
        final long[] systemValues = new long[SYSTEM_COUNTERS.length];
        final boolean[] systemFound = new boolean[SYSTEM_COUNTERS.length];
        final Map<Labels, long[]> positions = new LinkedHashMap<>();

        reader.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (AeronCounters.DRIVER_SYSTEM_COUNTER_TYPE_ID == typeId)
            {
                final int systemId = keyBuffer.getInt(0);
                for (int i = 0; i < SYSTEM_COUNTERS.length; i++)
                {
                    if (SYSTEM_COUNTERS[i].id == systemId)
                    {
                        systemValues[i] = reader.getCounterValue(counterId);
                        systemFound[i] = true;
                    }
                }
                return;
            }
            final String kind = positionKind(typeId);
            if (null != kind)
            {
                // Stream counters' key: registration id (long, 0), session id (int, 8), stream id (int, 12).
                final Labels labels = Labels.of(
                    "kind", kind,
                    "stream_id", Integer.toString(keyBuffer.getInt(12)),
                    "session_id", Integer.toString(keyBuffer.getInt(8)));
                final long value = reader.getCounterValue(counterId);
                final long[] position = positions.get(labels);
                if (null == position)
                {
                    positions.put(labels, new long[]{ value });
                }
                else
                {
                    final boolean slowest = AeronCounters.DRIVER_SUBSCRIBER_POSITION_TYPE_ID == typeId ||
                        AeronCounters.DRIVER_RECEIVER_POS_TYPE_ID == typeId;
                    position[0] = slowest ? Math.min(position[0], value) : Math.max(position[0], value);
                }
            }
        });

        for (int i = 0; i < SYSTEM_COUNTERS.length; i++)
        {
            if (!systemFound[i])
            {
                continue;
            }
            final SystemCounter counter = SYSTEM_COUNTERS[i];
            if (MetricKind.COUNTER == counter.kind)
            {
                snapshots.metricSnapshot(CounterSnapshot.builder()
                    .name(counter.name.substring(0, counter.name.length() - "_total".length()))
                    .help(counter.help)
                    .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().value(systemValues[i]).build())
                    .build());
            }
            else
            {
                snapshots.metricSnapshot(GaugeSnapshot.builder()
                    .name(counter.name)
                    .help(counter.help)
                    .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(systemValues[i]).build())
                    .build());
            }
        }
        if (!positions.isEmpty())
        {
            final GaugeSnapshot.Builder builder = GaugeSnapshot.builder()
                .name("mdfanout_aeron_position_bytes")
                .help("Aeron stream positions in bytes: kind = publisher, sender, receiver_hwm, receiver, subscriber.");
            positions.forEach((labels, position) -> builder.dataPoint(
                GaugeSnapshot.GaugeDataPointSnapshot.builder().value(position[0]).labels(labels).build()));
            snapshots.metricSnapshot(builder.build());
        }
        return snapshots.build();
    }

    private static String positionKind(final int typeId)
    {
        switch (typeId)
        {
            case AeronCounters.DRIVER_PUBLISHER_POS_TYPE_ID: return "publisher";
            case AeronCounters.DRIVER_SENDER_POSITION_TYPE_ID: return "sender";
            case AeronCounters.DRIVER_RECEIVER_HWM_TYPE_ID: return "receiver_hwm";
            case AeronCounters.DRIVER_RECEIVER_POS_TYPE_ID: return "receiver";
            case AeronCounters.DRIVER_SUBSCRIBER_POSITION_TYPE_ID: return "subscriber";
            default: return null;
        }
    }
}
