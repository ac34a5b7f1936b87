package io.mdfanout.tools;

import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.MarketDataListener;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A subscriber tool on a channel where no fanout publishes says so, once after a few seconds and then at a low
 * rate, naming the channel and the streams (issue 36): a real subscriber over an embedded driver, no publisher.
 */
class PublisherWatchTest
{
    private static final String CHANNEL = "aeron:udp?endpoint=224.0.1.47:42947|interface=127.0.0.1|mtu=8192";
    private static final int STREAM_ID_BASE = 4900;

    @Test
    void saysSoWhileNoPublisherComesAtALowRate()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        try (ToolMedia media = ToolMedia.connect(null);
            FeedSubscriber subscriber = new FeedSubscriber(new FeedSubscriber.Context().aeron(media.aeron())
                .channel(CHANNEL).streamIdBase(STREAM_ID_BASE).partitions(new int[] {0, 1})
                .listener(new MarketDataListener()
                {
                })))
        {
            final long start = TimeUnit.SECONDS.toNanos(1000);
            final PublisherWatch watch = new PublisherWatch("stats", CHANNEL, STREAM_ID_BASE, subscriber, err, start);
            watch.check(start);
            assertEquals(2, watch.missing(), "both partitions lack a publisher");
            watch.check(start + TimeUnit.SECONDS.toNanos(4));
            assertEquals(List.of(), lines(bytes), "nothing said before the first warning's time");

            watch.check(start + TimeUnit.SECONDS.toNanos(6));
            watch.check(start + TimeUnit.SECONDS.toNanos(7));
            watch.check(start + TimeUnit.SECONDS.toNanos(20));
            assertEquals(List.of("stats: no publisher on " + CHANNEL + " stream 4900,4901 after 6 s (is the fanout " +
                "running, on this channel and stream id base, and does its traffic reach this host?)"), lines(bytes));

            watch.check(start + TimeUnit.SECONDS.toNanos(37));
            assertEquals(2, lines(bytes).size(), "repeated after " + PublisherWatch.REPEAT_NS + " ns");
            assertEquals(true, lines(bytes).get(1).contains("after 37 s"), lines(bytes).get(1));
        }
    }

    private static List<String> lines(final ByteArrayOutputStream bytes)
    {
        final String text = bytes.toString(StandardCharsets.UTF_8);
        return text.isEmpty() ? List.of() : List.of(text.split("\n"));
    }
}
