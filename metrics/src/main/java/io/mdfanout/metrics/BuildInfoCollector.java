package io.mdfanout.metrics;

import io.mdfanout.wire.BuildInfo;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * {@code mdfanout_build_info{version, revision, role} 1}: which build each process runs, to join on or to spot a
 * half-finished rollout.
 */
public final class BuildInfoCollector implements MultiCollector
{
    /** Name of the family. */
    public static final String NAME = "mdfanout_build_info";

    private final MetricSnapshots snapshots;

    /**
     * @param role the process's role, e.g. {@code feed-handler}, {@code fanout}, {@code media-driver}, {@code tail}.
     */
    public BuildInfoCollector(final String role)
    {
        snapshots = MetricSnapshots.of(GaugeSnapshot.builder()
            .name(NAME)
            .help("Always 1: the version and git revision of the build the process runs, and its role.")
            .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                .value(1)
                .labels(Labels.of("version", BuildInfo.version(), "revision", BuildInfo.revision(), "role", role))
                .build())
            .build());
    }

    /** {@inheritDoc} */
    public MetricSnapshots collect()
    {
        return snapshots;
    }
}
