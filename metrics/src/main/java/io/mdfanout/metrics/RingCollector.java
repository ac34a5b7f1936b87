package io.mdfanout.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.agrona.concurrent.ringbuffer.RingBuffer;

/**
 * Exports the capacity and fill of the partition rings as {@code mdfanout_ring_capacity_bytes}
 * and {@code mdfanout_ring_used_bytes} per partition, and the consumer's position as
 * {@code mdfanout_ring_consumed_bytes_total}: the fanout's progress seen from the feed handler's
 * process, which still answers scrapes when the fanout is hung or stopped (a stalled fanout is a
 * ring with bytes in it and a position that does not move). Reads only the producer and consumer
 * positions (volatile loads) of the rings: neither side is disturbed.
 */
public final class RingCollector implements MultiCollector
{
    private final RingBuffer[] rings;

    /**
     * @param rings indexed by partition; the array is read at every scrape.
     */
    public RingCollector(final RingBuffer[] rings)
    {
        this.rings = rings;
    }

    /** {@inheritDoc} */
    public MetricSnapshots collect()
    {
        final GaugeSnapshot.Builder capacity = GaugeSnapshot.builder()
            .name("mdfanout_ring_capacity_bytes")
            .help("Data capacity of the partition's ring buffer.");
        final GaugeSnapshot.Builder used = GaugeSnapshot.builder()
            .name("mdfanout_ring_used_bytes")
            .help("Bytes written to the partition's ring and not yet consumed by the fanout.");
        final CounterSnapshot.Builder consumed = CounterSnapshot.builder()
            .name("mdfanout_ring_consumed_bytes")
            .help("Bytes of the partition's ring the fanout has consumed (its position; starts again with new rings).");
        for (int partition = 0; partition < rings.length; partition++)
        {
            final RingBuffer ring = rings[partition];
            if (null == ring)
            {
                continue;
            }
            final Labels labels = Labels.of("partition", Integer.toString(partition));
            // Consumer first: the producer position read after it is never behind it.
            final long consumer = ring.consumerPosition();
            final long producer = ring.producerPosition();
            capacity.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                .value(ring.capacity()).labels(labels).build());
            used.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                .value(Math.max(0, Math.min(ring.capacity(), producer - consumer))).labels(labels).build());
            consumed.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                .value(consumer).labels(labels).build());
        }
        return MetricSnapshots.of(capacity.build(), used.build(), consumed.build());
    }
}
