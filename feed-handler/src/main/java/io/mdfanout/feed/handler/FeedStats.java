package io.mdfanout.feed.handler;

import io.mdfanout.feed.normalize.NormalizerCounters;

/**
 * Formats the one-line counter summary printed periodically to stderr. Runs on the stats thread,
 * never on the message path, so it may build strings.
 */
public final class FeedStats
{
    private FeedStats()
    {
    }

    /**
     * One line of the main counters with the per-line arbitration and recovery counters.
     *
     * @param feed        packet counters.
     * @param arbitration per-line and recovery counters.
     * @param normalizer  decode and ring counters.
     * @return the line.
     */
    public static String line(
        final FeedHandlerCounters feed, final ArbitrationCounters arbitration, final NormalizerCounters normalizer)
    {
        final StringBuilder sb = new StringBuilder(512);
        for (int line = 0; line < ArbitrationCounters.LINE_COUNT; line++)
        {
            sb.append("line").append(ArbitrationCounters.lineName(line))
                .append("[packets=").append(arbitration.packets(line).get())
                .append(" first=").append(arbitration.accepted(line).get())
                .append(" dup=").append(arbitration.duplicates(line).get())
                .append(" fills=").append(arbitration.fills(line).get())
                .append("] ");
        }
        sb.append("gapsDetected=").append(arbitration.gapsDetected().get())
            .append(" gapsFilled=").append(arbitration.gapsFilled().get())
            .append(" gapsDeclared=").append(arbitration.gapsDeclared().get())
            .append(" declaredMissing=").append(arbitration.declaredMissingMessages().get())
            .append(" held=").append(arbitration.messagesHeld().get())
            .append(" requests=").append(arbitration.requestsSent().get())
            .append(" retried=").append(arbitration.requestsRetried().get())
            .append(" timedOut=").append(arbitration.requestsTimedOut().get())
            .append(" followUps=").append(arbitration.requestsFollowedUp().get())
            .append(" linesSilent=").append(arbitration.linesSilent().get())
            .append(" ringStalls=").append(arbitration.ringStalls().get())
            .append(" stallMessages=").append(arbitration.ringStallDroppedMessages().get())
            .append(' ')
            .append(line(feed, normalizer));
        return sb.toString();
    }

    /**
     * One line of the main counters.
     *
     * @param feed       packet counters, or null (replay has none).
     * @param normalizer decode and ring counters.
     * @return the line.
     */
    public static String line(final FeedHandlerCounters feed, final NormalizerCounters normalizer)
    {
        final StringBuilder sb = new StringBuilder(256);
        if (null != feed)
        {
            sb.append("packets=").append(feed.packetsReceived().get())
                .append(" bytes=").append(feed.bytesReceived().get())
                .append(" heartbeats=").append(feed.heartbeats().get())
                .append(" gaps=").append(feed.gaps().get())
                .append(" missing=").append(feed.missingMessages().get())
                .append(" dupPackets=").append(feed.duplicatePackets().get())
                .append(" dupMessages=").append(feed.duplicateMessages().get())
                .append(" truncated=").append(feed.truncatedPackets().get())
                .append(" malformedBlocks=").append(feed.malformedBlocks().get())
                .append(" wrongSession=").append(feed.wrongSession().get())
                .append(" endOfSession=").append(feed.endOfSession().get())
                .append(" staleEndOfSession=").append(feed.staleEndOfSession().get())
                .append(' ');
        }
        sb.append("decoded=").append(normalizer.totalDecoded())
            .append(" published=").append(normalizer.messagesPublished().get())
            .append(" ringRecords=").append(normalizer.ringRecordsWritten().get())
            .append(" gapNotices=").append(normalizer.gapNoticesPublished().get())
            .append(" unknownType=").append(normalizer.unknownTypes().get())
            .append(" invalidLength=").append(normalizer.invalidLength().get())
            .append(" invalidField=").append(normalizer.invalidField().get())
            .append(" ringFullWaits=");
        for (int i = 0; i < normalizer.partitionCount(); i++)
        {
            sb.append(i == 0 ? "" : ",").append(normalizer.ringFullWaits(i).get());
        }
        return sb.toString();
    }
}
