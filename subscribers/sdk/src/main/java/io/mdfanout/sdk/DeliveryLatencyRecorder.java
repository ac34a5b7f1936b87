package io.mdfanout.sdk;

/**
 * Told, once per incremental packet delivered live, how long ago the fanout sent it: the
 * subscriber's wall clock minus the packet's {@code sendingTime}, in nanoseconds (publish to
 * callback; across hosts it includes their clock offset). Called on the polling thread, before
 * the packet's messages are dispatched; it must not block or allocate. Packets replayed from the
 * recovery buffer are not recorded: their age measures the recovery, not the transport.
 */
@FunctionalInterface
public interface DeliveryLatencyRecorder
{
    /**
     * Record one packet's delivery latency.
     *
     * @param nanos receive time minus sending time; may be negative when clocks disagree.
     */
    void recordNanos(long nanos);
}
