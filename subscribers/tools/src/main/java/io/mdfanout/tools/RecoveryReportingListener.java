package io.mdfanout.tools;

import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.StaleReason;

/**
 * The part every tool's listener shares: stale, recovered, silent and active partitions are
 * printed as {@link RecoveryEvents} lines, and so are a replay's switch to the live stream and its end (the
 * formats tests and operators grep for).
 */
abstract class RecoveryReportingListener implements MarketDataListener
{
    protected final RecoveryEvents events;

    RecoveryReportingListener(final RecoveryEvents events)
    {
        this.events = events;
    }

    public void onStale(final int partition, final StaleReason reason, final long streamSequence)
    {
        events.onStale(partition, reason, streamSequence);
    }

    public void onRecovered(
        final int partition, final long snapshotId, final long lastStreamSequence, final long staleForNanos)
    {
        events.onRecovered(partition, snapshotId, lastStreamSequence, staleForNanos);
    }

    public void onStreamSilent(final int partition, final long silentForNanos)
    {
        events.onStreamSilent(partition, silentForNanos);
    }

    public void onReplayLive(final int partition, final long nextStreamSequence, final long replayedMessages)
    {
        events.onReplayLive(partition, nextStreamSequence, replayedMessages);
    }

    public void onReplayEnd(final int partition, final long nextStreamSequence)
    {
        events.onReplayEnd(partition, nextStreamSequence);
    }

    public void onStreamActive(final int partition)
    {
        events.onStreamActive(partition);
    }

    public void onNewDay(final int partition)
    {
        events.onNewDay(partition);
    }
}
