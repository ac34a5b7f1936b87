package io.mdfanout.fanout;

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
     * backPressure=.. notConnectedDropped=.. invalid=.. pubErrors=.. dutyCycleErrors=..}.
     */
    public String line(final long nowMs)
    {
        long read = 0;
        long messages = 0;
        long packets = 0;
        long maxPerPacket = 0;
        long heartbeats = 0;
        long backPressure = 0;
        long dropped = 0;
        long invalid = 0;
        long errors = 0;
        for (int partition = 0; partition < fanout.partitionCount(); partition++)
        {
            final PartitionCounters counters = fanout.counters(partition);
            read += counters.recordsRead().get();
            messages += counters.messagesPublished().get();
            packets += counters.packetsPublished().get();
            maxPerPacket = Math.max(maxPerPacket, counters.maxMessagesPerPacket().get());
            heartbeats += counters.heartbeats().get();
            backPressure += counters.backPressureEvents().get();
            dropped += counters.notConnectedDropped().get();
            invalid += counters.invalidRecords().get();
            errors += counters.publicationErrors().get();
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
            " dutyCycleErrors=" + fanout.dutyCycleErrors().get();
    }
}
