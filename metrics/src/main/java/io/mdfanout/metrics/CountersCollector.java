package io.mdfanout.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.agrona.concurrent.status.CountersReader;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Exports a process's Agrona counters, read through a {@link CountersReader} over its
 * CountersManager's buffers, as Prometheus metrics named by {@link CounterMappings} after their type id, with
 * labels from their key. Runs on the
 * scrape thread: the writers are never involved beyond their ordered stores, and a counter
 * allocated or freed concurrently is simply seen or not.
 * <p>
 * A counter whose type id no rule maps is exported as {@code mdfanout_unmapped_counter{label="..."}} so that
 * nothing is silently hidden; tests assert the mdfanout roles have none.
 */
public final class CountersCollector implements MultiCollector
{
    /** Name of the family of counters no rule maps. */
    public static final String UNMAPPED_NAME = "mdfanout_unmapped_counter";

    private final CountersReader countersReader;
    private final Labels constantLabels;

    /**
     * @param countersReader over the process's counters.
     */
    public CountersCollector(final CountersReader countersReader)
    {
        this(countersReader, Labels.EMPTY);
    }

    /**
     * @param countersReader over the process's counters.
     * @param constantLabels added to every data point, e.g. {@code role="fanout"}; may be empty.
     */
    public CountersCollector(final CountersReader countersReader, final Labels constantLabels)
    {
        this.countersReader = countersReader;
        this.constantLabels = constantLabels;
    }

    /** {@inheritDoc} */
    public MetricSnapshots collect()
    {
        final Map<CounterRule, List<Object>> byRule = new LinkedHashMap<>();
        for (final CounterRule rule : CounterMappings.rules())
        {
            byRule.put(rule, new ArrayList<>());
        }
        final List<GaugeSnapshot.GaugeDataPointSnapshot> unmapped = new ArrayList<>();

        countersReader.forEach((counterId, typeId, keyBuffer, label) ->
        {
            final long counterValue = countersReader.getCounterValue(counterId);
            final CounterRule rule = CounterMappings.find(typeId);
            if (null == rule)
            {
                unmapped.add(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                    .value(counterValue)
                    .labels(constantLabels.merge(Labels.of("label", label, "type_id", Integer.toString(typeId),
                        "counter_id", Integer.toString(counterId))))
                    .build());
            }
            else if (MetricKind.STATE_SET == rule.kind())
            {
                final String[] names = Arrays.copyOf(rule.labelNames(), rule.labelNames().length + 1);
                names[names.length - 1] = "state";
                final String[] values = Arrays.copyOf(rule.labelValues(keyBuffer), names.length);
                for (int state = 0; state < rule.stateCount(); state++)
                {
                    values[values.length - 1] = rule.state(state);
                    byRule.get(rule).add(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                        .value(counterValue == state ? 1 : 0)
                        .labels(constantLabels.merge(Labels.of(names, values)))
                        .build());
                }
            }
            else if (rule.exported())
            {
                final double value = counterValue * rule.scale();
                final Labels labels = constantLabels.merge(Labels.of(rule.labelNames(), rule.labelValues(keyBuffer)));
                byRule.get(rule).add(MetricKind.COUNTER == rule.kind() ?
                    CounterSnapshot.CounterDataPointSnapshot.builder().value(value).labels(labels).build() :
                    GaugeSnapshot.GaugeDataPointSnapshot.builder().value(value).labels(labels).build());
            }
        });

        final MetricSnapshots.Builder snapshots = MetricSnapshots.builder();
        for (final Map.Entry<CounterRule, List<Object>> entry : byRule.entrySet())
        {
            if (!entry.getValue().isEmpty())
            {
                snapshots.metricSnapshot(snapshot(entry.getKey(), entry.getValue()));
            }
        }
        if (!unmapped.isEmpty())
        {
            final GaugeSnapshot.Builder builder = GaugeSnapshot.builder()
                .name(UNMAPPED_NAME)
                .help("Agrona counters that no mdfanout metric maps (label, type id and counter id as labels).");
            unmapped.forEach(builder::dataPoint);
            snapshots.metricSnapshot(builder.build());
        }
        return snapshots.build();
    }

    private static MetricSnapshot snapshot(final CounterRule rule, final List<Object> dataPoints)
    {
        if (MetricKind.COUNTER == rule.kind())
        {
            // The model takes the name without _total and adds it in the exposition.
            final String name = rule.name().substring(0, rule.name().length() - "_total".length());
            final CounterSnapshot.Builder builder = CounterSnapshot.builder().name(name).help(rule.help());
            for (final Object dataPoint : dataPoints)
            {
                builder.dataPoint((CounterSnapshot.CounterDataPointSnapshot)dataPoint);
            }
            return builder.build();
        }
        final GaugeSnapshot.Builder builder = GaugeSnapshot.builder().name(rule.name()).help(rule.help());
        for (final Object dataPoint : dataPoints)
        {
            builder.dataPoint((GaugeSnapshot.GaugeDataPointSnapshot)dataPoint);
        }
        return builder.build();
    }
}
