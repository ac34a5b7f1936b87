package io.mdfanout.fanout.state;

/** Reads a state's counters by short name, for assertions. */
final class PartitionStateTestAccess
{
    private PartitionStateTestAccess()
    {
    }

    static long counters(final PartitionState state, final String which)
    {
        final PartitionStateCounters counters = state.counters();
        return switch (which)
        {
            case "unknown" -> counters.unknownOrderUpdates().get();
            case "poolFull" -> counters.ordersRejectedPoolFull().get();
            case "rejected" -> counters.rejectedUpdates().get();
            case "skipped" -> counters.recordsSkippedAfterRestart().get();
            case "rolledBack" -> counters.rolledBackStores().get();
            case "marketSession" -> counters.marketSession().get();
            default -> throw new IllegalArgumentException(which);
        };
    }
}
