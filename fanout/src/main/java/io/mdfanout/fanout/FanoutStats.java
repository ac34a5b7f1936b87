package io.mdfanout.fanout;

import io.mdfanout.fanout.derived.DerivedCounters;
import io.mdfanout.wire.FeedStream;
import io.mdfanout.fanout.snapshot.SnapshotCounters;
import io.mdfanout.fanout.state.PartitionStateCounters;

import java.util.Locale;

/**
 * One-line summary of a fanout's counters, summed over partitions, with the message rate since
 * the previous line. For the periodic stats print; read from any thread.
 */
public final class FanoutStats
{
    private final Fanout fanout;
    private long lastMessages;
    private long lastTimeMs;
    private int lastSourceStatus = Integer.MIN_VALUE;
    private long lastDownEvents;

    /**
     * @param fanout whose counters to summarise.
     */
    public FanoutStats(final Fanout fanout)
    {
        this.fanout = fanout;
        this.lastTimeMs = System.currentTimeMillis();
    }

    /**
     * @param nowMs current wall-clock time in milliseconds, for the rate.
     * @return e.g. {@code fanout stats: read=.. published=.. (../s) packets=.. msgs/packet=.. max=.. heartbeats=..
     * backPressure=.. notConnectedDropped=.. invalid=.. pubErrors=.. orders=.. instruments=.. poolFull=..
     * unknownOrder=.. rejected=.. skippedAfterRestart=.. stateResets=.. snapshots=started/completed
     * (abandoned=.. skipped=..) snapshotMsgs=.. snapshotBytes=.. dutyCycleErrors=.. chain=.. source=live(heartbeatAge=..ms)};
     * chain is the highest exchange sequence sent on any partition: where the fanout stands against the exchange. Then,
     * per derived stream, {@code bbo=..(bytes=.. notConnected=.. backPressureDropped=.. pubErrors=..)}.
     */
    public String line(final long nowMs)
    {
        long read = 0;
        long chain = 0;
        long messages = 0;
        long packets = 0;
        long maxPerPacket = 0;
        long heartbeats = 0;
        long backPressure = 0;
        long dropped = 0;
        long invalid = 0;
        long errors = 0;
        long orders = 0;
        long instruments = 0;
        long poolFull = 0;
        long unknownOrders = 0;
        long rejected = 0;
        long skippedAfterRestart = 0;
        long resets = 0;
        long snapshotsStarted = 0;
        long snapshotsCompleted = 0;
        long snapshotsAbandoned = 0;
        long snapshotsSkipped = 0;
        long snapshotMessages = 0;
        long snapshotBytes = 0;
        for (int partition = 0; partition < fanout.partitionCount(); partition++)
        {
            final PartitionCounters counters = fanout.counters(partition);
            read += counters.recordsRead().get();
            chain = Math.max(chain, counters.chainPosition().get());
            messages += counters.messagesPublished().get();
            packets += counters.packetsPublished().get();
            maxPerPacket = Math.max(maxPerPacket, counters.maxMessagesPerPacket().get());
            heartbeats += counters.heartbeats().get();
            backPressure += counters.backPressureEvents().get();
            dropped += counters.notConnectedDropped().get();
            invalid += counters.invalidRecords().get();
            errors += counters.publicationErrors().get();
            final PartitionStateCounters state = fanout.stateCounters(partition);
            orders += state.ordersInState().get();
            instruments += state.instrumentsWithState().get();
            poolFull += state.ordersRejectedPoolFull().get();
            unknownOrders += state.unknownOrderUpdates().get();
            rejected += state.rejectedUpdates().get();
            skippedAfterRestart += state.recordsSkippedAfterRestart().get();
            resets += state.stateResets().get();
            final SnapshotCounters snapshots = fanout.snapshotCounters(partition);
            snapshotsStarted += snapshots.started().get();
            snapshotsCompleted += snapshots.completed().get();
            snapshotsAbandoned += snapshots.abandoned().get();
            snapshotsSkipped += snapshots.skipped().get();
            snapshotMessages += snapshots.messagesSent().get();
            snapshotBytes += snapshots.bytesSent().get();
        }

        final long elapsedMs = Math.max(1, nowMs - lastTimeMs);
        final long rate = (messages - lastMessages) * 1000 / elapsedMs;
        lastMessages = messages;
        lastTimeMs = nowMs;

        return "fanout stats: read=" + read +
            " published=" + messages + " (" + rate + "/s)" +
            " packets=" + packets +
            " msgs/packet=" + (packets == 0 ? "0" : String.format(Locale.ROOT, "%.1f", (double)messages / packets)) +
            " max=" + maxPerPacket +
            " heartbeats=" + heartbeats +
            " backPressure=" + backPressure +
            " notConnectedDropped=" + dropped +
            " invalid=" + invalid +
            " pubErrors=" + errors +
            " orders=" + orders +
            " instruments=" + instruments +
            " poolFull=" + poolFull +
            " unknownOrder=" + unknownOrders +
            " rejected=" + rejected +
            " skippedAfterRestart=" + skippedAfterRestart +
            " stateResets=" + resets +
            " snapshots=" + snapshotsStarted + "/" + snapshotsCompleted +
            " (abandoned=" + snapshotsAbandoned + " skipped=" + snapshotsSkipped + ")" +
            " snapshotMsgs=" + snapshotMessages +
            " snapshotBytes=" + snapshotBytes +
            " dutyCycleErrors=" + fanout.dutyCycleErrors().get() +
            " chain=" + chain +
            " source=" + sourceName((int)fanout.sourceCounters().status().get()) +
            "(heartbeatAge=" + fanout.sourceCounters().heartbeatAgeMs().get() + "ms)" +
            derived();
    }

    /** Per derived stream, summed over partitions: messages sequenced, bytes sent, and what was dropped. */
    private String derived()
    {
        final StringBuilder line = new StringBuilder();
        for (final FeedStream stream : fanout.derivedStreams())
        {
            long messages = 0;
            long bytes = 0;
            long notConnected = 0;
            long backPressure = 0;
            long errors = 0;
            for (int partition = 0; partition < fanout.partitionCount(); partition++)
            {
                final DerivedCounters counters = fanout.derivedCounters(partition, stream);
                messages += counters.messages().get();
                bytes += counters.bytes().get();
                notConnected += counters.notConnectedDropped().get();
                backPressure += counters.backPressureDropped().get();
                errors += counters.publicationErrors().get();
            }
            line.append(' ').append(stream.streamName()).append("=").append(messages)
                .append("(bytes=").append(bytes).append(" notConnected=").append(notConnected)
                .append(" backPressureDropped=").append(backPressure).append(" pubErrors=").append(errors).append(')');
        }
        return line.toString();
    }

    /**
     * What changed in the source's status since the last call, for the log: the monitor thread asks about every
     * 100 ms, so a subscriber's SOURCE_DOWN and the fanout's reason for it are found side by side in the logs. The
     * publishers only set counters (a flapping source allocates nothing on the message path); a flap shorter than
     * the interval is still said, from the count of down events.
     *
     * @return e.g. {@code fanout: source feed_handler_down: the feed handler's heartbeat is 612 ms old (subscribers
     * hear the source is down)} or {@code fanout: source live}; null when nothing changed.
     */
    public String sourceChange()
    {
        final SourceCounters counters = fanout.sourceCounters();
        if (null == counters)
        {
            return null;
        }
        final int status = (int)counters.status().get();
        final long downEvents = counters.downEvents().get();
        final long newDownEvents = downEvents - lastDownEvents;
        lastDownEvents = downEvents;
        if (status == lastSourceStatus && 0 == newDownEvents)
        {
            return null;
        }
        final boolean first = Integer.MIN_VALUE == lastSourceStatus;
        lastSourceStatus = status;
        final String name = sourceName(status);
        final String why;
        if (io.mdfanout.sbe.SourceStatus.FEED_HANDLER_DOWN.value() == status)
        {
            why = ": the feed handler's heartbeat is " + counters.heartbeatAgeMs().get() + " ms old";
        }
        else if (io.mdfanout.sbe.SourceStatus.LINES_SILENT.value() == status)
        {
            why = ": the feed handler hears nothing from the exchange";
        }
        else if (io.mdfanout.sbe.SourceStatus.LOADING.value() == status)
        {
            why = ": the feed handler loads the exchange's snapshot";
        }
        else if (io.mdfanout.sbe.SourceStatus.STOPPED.value() == status)
        {
            why = ": the feed handler stopped";
        }
        else
        {
            why = "";
        }
        final boolean down = why.length() > 0;
        final long flaps = newDownEvents - (down && !first ? 1 : 0);
        return "fanout: source " + name + why + (down ? " (subscribers hear the source is down)" : "") +
            (flaps > 0 && !first ? " (down " + flaps + " time(s) in between, shorter than " +
            "this line's interval)" : "");
    }

    /** @return the SourceStatus a {@link SourceCounters#status()} value stands for, as operators read it. */
    static String sourceName(final int status)
    {
        for (final io.mdfanout.sbe.SourceStatus value : io.mdfanout.sbe.SourceStatus.values())
        {
            if (value.value() == status && io.mdfanout.sbe.SourceStatus.NULL_VAL != value)
            {
                return value.name().toLowerCase(Locale.ROOT);
            }
        }
        return "?" + status;
    }
}
