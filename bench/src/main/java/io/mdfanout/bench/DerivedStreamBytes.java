package io.mdfanout.bench;

import io.mdfanout.wire.FeedStream;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Locale;

/**
 * What a subscriber of each stream receives per session (issue 40): the bench session published by
 * {@link DerivedFanout} with all four derived streams, once (the first trading day of a fresh fanout), every stream
 * read to its end by its IPC subscriptions; per stream and per session, the messages, packets and heartbeats, the
 * packets' bytes (what the subscriber's callback gets: SBE and packet headers and the messages) and the Aeron log's
 * bytes (with Aeron's 32-byte frame headers and alignment: what crosses the network, less UDP/IP). For the derived
 * streams the fanout's own counters (bytes published, {@code mdfanout_fanout_derived_sent_bytes_total}) are given
 * too, and must equal the packets' bytes.
 * <p>
 * Usage: {@code DerivedStreamBytes [OUT.json [SESSION.bin]]}; prints one line per stream and writes them as JSON, and
 * every stream's packets to SESSION.bin, which {@link DerivedSubscriberBenchmark} decodes instead of publishing the
 * session again in each fork when {@value DerivedSubscriberBenchmark#SESSION_ENV} names it.
 */
public final class DerivedStreamBytes
{
    private static final int PASSES = 1;

    private DerivedStreamBytes()
    {
    }

    /**
     * @param args the JSON file to write, optional.
     * @throws IOException when it cannot be written.
     */
    public static void main(final String[] args) throws IOException
    {
        final DerivedFanout.StreamTotals[] totals;
        final long messagesPerPass;
        final DerivedFanout.Recording recording = args.length > 1 ? new DerivedFanout.Recording() : null;
        try (DerivedFanout fanout = new DerivedFanout(DerivedFanout.DERIVED, recording))
        {
            for (int pass = 0; pass < PASSES; pass++)
            {
                fanout.runPass();
            }
            fanout.verify();
            totals = fanout.totals();
            messagesPerPass = fanout.messagesPerPass();
        }

        final StringBuilder json = new StringBuilder();
        json.append("{\"sessions\":").append(PASSES).append(",\"ringMessagesPerSession\":").append(messagesPerPass)
            .append(",\"partitions\":").append(DerivedFanout.PARTITIONS).append(",\"streams\":{");
        final DerivedFanout.StreamTotals mbo = totals[FeedStream.MBO.ordinal()];
        for (int s = 0; s < totals.length; s++)
        {
            final DerivedFanout.StreamTotals t = totals[s];
            if (t.stream.isDerived() && t.counterBytes != t.packetBytes)
            {
                throw new IllegalStateException(t.stream.streamName() + ": the fanout counted " + t.counterBytes +
                    " bytes published, its subscriptions read " + t.packetBytes);
            }
            System.out.printf(Locale.ROOT,
                "derived-bytes: %-7s messages/session %,10d  packets/session %,8d  packet bytes/session %,12d " +
                "(%.3f of MBO)  aeron log bytes/session %,12d (%.3f of MBO)%n",
                t.stream.streamName(), t.messages / PASSES, t.packets / PASSES, t.packetBytes / PASSES,
                (double)t.packetBytes / mbo.packetBytes, t.logBytes / PASSES, (double)t.logBytes / mbo.logBytes);
            json.append(0 == s ? "" : ",").append('"').append(t.stream.streamName()).append("\":{")
                .append("\"messages\":").append(t.messages / PASSES)
                .append(",\"packets\":").append(t.packets / PASSES)
                .append(",\"heartbeats\":").append(t.heartbeats / PASSES)
                .append(",\"packetBytes\":").append(t.packetBytes / PASSES)
                .append(",\"aeronLogBytes\":").append(t.logBytes / PASSES)
                .append(",\"fanoutCounterBytes\":").append(t.stream.isDerived() ? t.counterBytes / PASSES : -1)
                .append('}');
        }
        json.append("}}\n");
        if (args.length > 0)
        {
            final Path out = Paths.get(args[0]);
            if (null != out.getParent())
            {
                Files.createDirectories(out.getParent());
            }
            Files.write(out, json.toString().getBytes(StandardCharsets.UTF_8));
        }
        if (null != recording)
        {
            DerivedSubscriberBenchmark.writeSession(recording, Paths.get(args[1]));
        }
    }
}
