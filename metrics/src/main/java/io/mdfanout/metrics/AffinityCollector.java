package io.mdfanout.metrics;

import io.mdfanout.affinity.AffinityPlan;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * Where a role's busy threads run, from its {@link AffinityPlan}: one {@code mdfanout_thread_pinned_cpu} series per
 * busy thread (the CPU it is pinned to, -1 when unpinned) and {@code mdfanout_allowed_cpus}, the number of CPUs the
 * process may use, with the list in its {@code cpus} label (its cpuset: a Guaranteed container's exclusive CPUs
 * under the static CPU manager; fixed for the life of the process, so the label does not churn). Together
 * they show on a dashboard that a pod got the CPUs it was meant to and pinned its threads there.
 */
public final class AffinityCollector implements MultiCollector
{
    private final AffinityPlan plan;

    /**
     * @param plan the role's plan, fixed at start.
     */
    public AffinityCollector(final AffinityPlan plan)
    {
        this.plan = plan;
    }

    /** {@inheritDoc} */
    public MetricSnapshots collect()
    {
        final GaugeSnapshot.Builder pinned = GaugeSnapshot.builder()
            .name("mdfanout_thread_pinned_cpu")
            .help("CPU a busy thread is pinned to; -1 when it is not pinned.");
        for (final String thread : plan.threads())
        {
            pinned.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                .value(plan.cpuOf(thread)).labels(Labels.of("thread", thread)).build());
        }
        final GaugeSnapshot.Builder allowed = GaugeSnapshot.builder()
            .name("mdfanout_allowed_cpus")
            .help("Number of CPUs this process may run on (its cpuset, read from inside the container at start), " +
                "listed in the cpus label; 0 when unknown.");
        allowed.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
            .value(null == plan.allowedCpus() ? 0 : plan.allowedCpus().size())
            .labels(Labels.of("cpus", null == plan.allowedCpus() ? "unknown" : plan.allowedCpus().toString()))
            .build());
        return MetricSnapshots.of(pinned.build(), allowed.build());
    }
}
