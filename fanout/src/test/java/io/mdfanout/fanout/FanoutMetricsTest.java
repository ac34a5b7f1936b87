package io.mdfanout.fanout;

import io.mdfanout.wire.PartitionRings;
import org.agrona.CloseHelper;
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

/** A real fanout process serves its counters and the media driver's on {@code --metrics-port}. */
final class FanoutMetricsTest
{
    private static final String CHANNEL = "aeron:udp?endpoint=224.0.1.43:41023|interface=127.0.0.1|mtu=8192";

    @TempDir
    Path ringDirectory;

    @Test
    void servesFanoutAndAeronMetrics() throws Exception
    {
        final int port;
        try (ServerSocket socket = new ServerSocket(0))
        {
            port = socket.getLocalPort();
        }
        final PartitionRings.MappedRing[] rings =
            { PartitionRings.create(ringDirectory, 0, 64 * 1024), PartitionRings.create(ringDirectory, 1, 64 * 1024) };
        final Path outputFile = ringDirectory.resolve("fanout.out");
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final Process process = new ProcessBuilder(
            java, "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"),
            FanoutCommand.class.getName(),
            "--ring-dir", ringDirectory.toString(), "--partitions", "2", "--channel", CHANNEL,
            "--state-dir", ringDirectory.resolve("state").toString(),
            "--term-length-bytes", "1048576", "--stats-interval-s", "0",
            "--metrics-port", Integer.toString(port), "--metrics-bind", "127.0.0.1")
            .redirectErrorStream(true)
            .redirectOutput(outputFile.toFile())
            .start();
        try
        {
            final String line = awaitLine(outputFile, "fanout: metrics: ", process);
            assertEquals("fanout: metrics: http://127.0.0.1:" + port + "/metrics", line);
            final HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode());
            final String body = response.body();
            final List<String> lines = List.of(body.split("\n"));
            assertTrue(lines.contains("# TYPE mdfanout_fanout_messages_published_total counter"), body);
            assertTrue(lines.contains("mdfanout_fanout_messages_published_total{partition=\"1\"} 0.0"), body);
            assertTrue(lines.contains("# TYPE mdfanout_fanout_next_stream_sequence gauge"), body);
            assertTrue(lines.contains("mdfanout_fanout_next_stream_sequence{partition=\"0\"} 1.0"), body);
            assertTrue(lines.contains("mdfanout_fanout_chain_position{partition=\"0\"} 0.0"), body);
            assertTrue(lines.contains("# TYPE mdfanout_fanout_snapshots_completed_total counter"), body);
            assertTrue(lines.contains("# TYPE mdfanout_fanout_state_orders gauge"), body);
            assertTrue(lines.contains("# TYPE mdfanout_market_session_state gauge"), body);
            assertTrue(lines.contains("mdfanout_market_session_state{partition=\"0\",state=\"unknown\"} 1.0"), body);
            assertTrue(lines.contains("mdfanout_market_session_state{partition=\"1\",state=\"open\"} 0.0"), body);
            assertTrue(lines.contains("mdfanout_fanout_duty_cycle_errors_total 0.0"), body);
            assertTrue(lines.contains("# TYPE mdfanout_fanout_source_status gauge"), body);
            assertTrue(lines.contains("mdfanout_fanout_source_status 0.0"), "rings without a header: unknown " + body);
            assertTrue(lines.contains("# TYPE mdfanout_fanout_source_heartbeat_age_seconds gauge"), body);
            assertTrue(lines.contains("mdfanout_fanout_source_down_events_total 0.0"), body);
            assertFalse(body.contains("mdfanout_unmapped_counter"), "every fanout counter is mapped: " + body);
            assertTrue(lines.contains("# TYPE mdfanout_aeron_naks_received_total counter"), body);
            assertTrue(body.contains("mdfanout_aeron_position_bytes{kind=\"publisher\",session_id="), body);
            assertTrue(body.contains("stream_id=\"1001\""), body);
            assertTrue(body.contains("# TYPE jvm_threads_current gauge"), body);
            assertTrue(body.contains("mdfanout_build_info{revision=\""), body);
            assertTrue(body.contains(",role=\"fanout\",version=\""), body);

            process.destroy();
            assertTrue(process.waitFor(20, TimeUnit.SECONDS), "stopped after SIGTERM");
            assertTrue(Files.readAllLines(outputFile).contains("fanout: stopped"));
        }
        finally
        {
            process.destroyForcibly();
            CloseHelper.closeAll(rings);
        }
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
