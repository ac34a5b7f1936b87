package io.mdfanout.feed.handler;

import io.mdfanout.feed.support.ItchBytes;
import io.mdfanout.feed.support.MoldPackets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** A real feed-handler process, fed over multicast, serves its counters and ring fill on {@code --metrics-port}. */
final class FeedHandlerMetricsTest
{
    private static final String GROUP = "239.255.47.11";
    private static final int PORT = 47011;

    @TempDir
    Path directory;

    @Test
    void servesFeedCountersAndRingFillAfterTraffic() throws Exception
    {
        final int metricsPort;
        try (ServerSocket socket = new ServerSocket(0))
        {
            metricsPort = socket.getLocalPort();
        }
        final Path outputFile = directory.resolve("feed-handler.out");
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final Process process = new ProcessBuilder(
            java, "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"), FeedHandlerCommand.class.getName(),
            "--group", GROUP, "--port", Integer.toString(PORT), "--interface", "127.0.0.1",
            "--ring-dir", directory.resolve("rings").toString(), "--partitions", "2",
            "--ring-capacity-bytes", "65536", "--stats-interval-s", "0",
            "--metrics-port", Integer.toString(metricsPort), "--metrics-bind", "127.0.0.1")
            .redirectErrorStream(true)
            .redirectOutput(outputFile.toFile())
            .start();
        try
        {
            assertEquals("feed-handler: metrics: http://127.0.0.1:" + metricsPort + "/metrics",
                awaitLine(outputFile, "feed-handler: metrics: ", process));
            final byte[] systemEvent = new ItchBytes(12, 'S', 0, 0, 1_000).ch(11, 'O').bytes();
            String body = "";
            try (UdpSender sender = new UdpSender(GROUP, PORT))
            {
                final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                long sequence = 1;
                while (System.nanoTime() < deadlineNs)
                {
                    sender.send(MoldPackets.packet("SESSION001", sequence++, systemEvent));
                    body = scrape(metricsPort);
                    if (body.contains("mdfanout_feed_messages_decoded_total{type=\"system_event\"} 3.0"))
                    {
                        break;
                    }
                    Thread.sleep(100);
                }
            }
            final List<String> lines = List.of(body.split("\n"));
            assertTrue(body.contains("mdfanout_feed_messages_decoded_total{type=\"system_event\"} 3.0"), body);
            assertTrue(lines.contains("# TYPE mdfanout_feed_messages_decoded_total counter"), body);
            assertTrue(lines.contains("mdfanout_feed_messages_decoded_total{type=\"add_order\"} 0.0"), body);
            assertTrue(lines.contains("# TYPE mdfanout_feed_packets_received_total counter"), body);
            assertTrue(body.contains("mdfanout_feed_packets_received_total{line=\"A\"} "), body);
            assertFalse(lines.contains("mdfanout_feed_packets_received_total{line=\"A\"} 0.0"), body);
            assertTrue(lines.contains("# TYPE mdfanout_feed_held_messages gauge"), body);
            assertTrue(lines.contains("mdfanout_feed_gaps_detected_total 0.0"), body);
            assertTrue(body.contains("mdfanout_feed_duplicate_messages_total{line=\"B\"} "),
                "one family, per line: " + body);
            assertFalse(body.contains("mdfanout_feed_datagrams_received_total"), "sum of packets_received: " + body);
            assertTrue(body.contains(",role=\"feed-handler\",version=\""), body);
            assertTrue(lines.contains("mdfanout_ring_capacity_bytes{partition=\"1\"} 65536.0"), body);
            // A system event goes to every partition and nothing drains the rings here.
            assertFalse(lines.contains("mdfanout_ring_used_bytes{partition=\"0\"} 0.0"), body);
            assertFalse(body.contains("mdfanout_unmapped_counter"), "every feed-handler counter is mapped: " + body);

            process.destroy();
            assertTrue(process.waitFor(20, TimeUnit.SECONDS), "stopped after SIGTERM");
        }
        finally
        {
            process.destroyForcibly();
        }
    }

    private static String scrape(final int port) throws Exception
    {
        final HttpResponse<String> response = HttpClient.newHttpClient().send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        return response.body();
    }

    private static String awaitLine(final Path outputFile, final String prefix, final Process process)
        throws Exception
    {
        List<String> output = List.of();
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadlineNs)
        {
            output = Files.readAllLines(outputFile);
            for (final String line : output)
            {
                if (line.startsWith(prefix))
                {
                    return line;
                }
            }
            if (!process.isAlive())
            {
                break;
            }
            Thread.sleep(50);
        }
        fail("no line starting with '" + prefix + "' in " + output);
        return null;
    }
}
