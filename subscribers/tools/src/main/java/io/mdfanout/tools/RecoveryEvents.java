package io.mdfanout.tools;

import io.mdfanout.sdk.StaleReason;

import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/**
 * Prints a subscriber's stream-state events, one line each, in the formats scripts and tests parse:
 * <pre>
 * STALE partition=&lt;p&gt; reason=&lt;REASON&gt; streamSequence=&lt;s&gt; epochMs=&lt;ms&gt;
 * RECOVERED partition=&lt;p&gt; snapshotId=&lt;id&gt; lastStreamSequence=&lt;L&gt; staleMs=&lt;ms&gt; epochMs=&lt;ms&gt;
 * SILENT partition=&lt;p&gt; silentMs=&lt;ms&gt; epochMs=&lt;ms&gt;
 * ACTIVE partition=&lt;p&gt; epochMs=&lt;ms&gt;
 * REPLAY_LIVE partition=&lt;p&gt; nextStreamSequence=&lt;s&gt; replayedMessages=&lt;n&gt; epochMs=&lt;ms&gt;
 * REPLAY_END partition=&lt;p&gt; nextStreamSequence=&lt;s&gt; epochMs=&lt;ms&gt;
 * </pre>
 * These are rare events, so formatting (which allocates) is acceptable here.
 */
final class RecoveryEvents
{
    private final PrintStream out;

    RecoveryEvents(final PrintStream out)
    {
        this.out = out;
    }

    void onStale(final int partition, final StaleReason reason, final long streamSequence)
    {
        out.println("STALE partition=" + partition + " reason=" + reason.name() + " streamSequence=" + streamSequence +
            " epochMs=" + System.currentTimeMillis());
    }

    void onRecovered(final int partition, final long snapshotId, final long lastStreamSequence, final long staleForNanos)
    {
        out.println("RECOVERED partition=" + partition + " snapshotId=" + snapshotId + " lastStreamSequence=" +
            lastStreamSequence + " staleMs=" + TimeUnit.NANOSECONDS.toMillis(staleForNanos) +
            " epochMs=" + System.currentTimeMillis());
    }

    void onStreamSilent(final int partition, final long silentForNanos)
    {
        out.println("SILENT partition=" + partition + " silentMs=" + TimeUnit.NANOSECONDS.toMillis(silentForNanos) +
            " epochMs=" + System.currentTimeMillis());
    }

    void onReplayLive(final int partition, final long nextStreamSequence, final long replayedMessages)
    {
        out.println("REPLAY_LIVE partition=" + partition + " nextStreamSequence=" + nextStreamSequence +
            " replayedMessages=" + replayedMessages + " epochMs=" + System.currentTimeMillis());
    }

    void onReplayEnd(final int partition, final long nextStreamSequence)
    {
        out.println("REPLAY_END partition=" + partition + " nextStreamSequence=" + nextStreamSequence +
            " epochMs=" + System.currentTimeMillis());
    }

    void onNewDay(final int partition)
    {
        out.println("NEW_DAY partition=" + partition + " epochMs=" + System.currentTimeMillis());
    }

    void onStreamActive(final int partition)
    {
        out.println("ACTIVE partition=" + partition + " epochMs=" + System.currentTimeMillis());
    }
}
