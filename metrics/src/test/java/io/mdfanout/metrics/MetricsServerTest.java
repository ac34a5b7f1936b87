package io.mdfanout.metrics;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.mdfanout.testing.AllocationWindows;
import io.mdfanout.wire.BuildInfo;
import io.mdfanout.wire.MarketSession;
import io.mdfanout.wire.MdfanoutCounters;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Labels;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.Field;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static io.mdfanout.wire.MdfanoutCounters.FANOUT_MARKET_SESSION_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_MESSAGES_PUBLISHED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SOURCE_HEARTBEAT_AGE_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_GAPS_DECLARED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_LINE_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_MESSAGES_DECODED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_MESSAGES_HELD_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.REPLAY_RECORDS_READ_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_STALE_BY_REASON_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_STALE_EVENTS_TYPE_ID;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MetricsServerTest
{
    private static final Pattern SAMPLE = Pattern.compile(
        "[a-zA-Z_:][a-zA-Z0-9_:]*(\\{[a-zA-Z_][a-zA-Z0-9_]*=\"[^\"]*\"(,[a-zA-Z_][a-zA-Z0-9_]*=\"[^\"]*\")*\\})? " +
        "[-+0-9.eE]+|[-+]?Inf|NaN");

    @TempDir
    Path tempDir;

    private static CountersManager newCountersManager()
    {
        return new CountersManager(
            new UnsafeBuffer(ByteBuffer.allocateDirect(64 * CountersReader.METADATA_LENGTH)),
            new UnsafeBuffer(ByteBuffer.allocateDirect(64 * CountersReader.COUNTER_LENGTH)));
    }

    private static String scrape(final int port) throws Exception
    {
        final HttpClient client = HttpClient.newHttpClient();
        final HttpResponse<String> response = client.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        return response.body();
    }

    private static void assertParses(final String body)
    {
        for (final String line : body.split("\n"))
        {
            if (line.isEmpty() || line.startsWith("# HELP ") || line.startsWith("# TYPE "))
            {
                continue;
            }
            assertTrue(SAMPLE.matcher(line).matches() || line.matches(".* [-+]?Inf|.* NaN"), "bad line: " + line);
        }
    }

    @Test
    void servesMappedCountersRingsLatencyAndAeronCounters() throws Exception
    {
        final CountersManager counters = newCountersManager();
        final AtomicCounter linePackets = counters.newCounter(
            "feed-handler: line A packets", FEED_LINE_PACKETS_TYPE_ID, (key) -> key.putInt(0, 0));
        final AtomicCounter decoded = counters.newCounter(
            "feed-handler: ITCH messages decoded type=A", FEED_MESSAGES_DECODED_TYPE_ID, (key) -> key.putInt(0, 'A'));
        final AtomicCounter held = counters.newCounter(
            "feed-handler: messages held behind a gap (gauge)", FEED_MESSAGES_HELD_TYPE_ID);
        final AtomicCounter published = counters.newCounter(
            "fanout partition=1 messages published", FANOUT_MESSAGES_PUBLISHED_TYPE_ID, (key) -> key.putInt(0, 1));
        final AtomicCounter stale = counters.newCounter("mdfanout-sdk tail: stale events: late join",
            SUBSCRIBER_STALE_BY_REASON_TYPE_ID,
            (key) -> MdfanoutCounters.putSubscriberReasonKey(key, "tail", "late join"));
        final AtomicCounter staleTotal = counters.newCounter("mdfanout-sdk tail: stale events",
            SUBSCRIBER_STALE_EVENTS_TYPE_ID, (key) -> MdfanoutCounters.putSubscriberKey(key, "tail"));
        final AtomicCounter unknown = counters.newCounter("something new");
        final AtomicCounter sourceAge = counters.newCounter(
            "fanout source heartbeat age (ms)", FANOUT_SOURCE_HEARTBEAT_AGE_TYPE_ID);
        final AtomicCounter sourceDown = counters.newCounter("mdfanout-sdk tail: stale events: source down",
            SUBSCRIBER_STALE_BY_REASON_TYPE_ID,
            (key) -> MdfanoutCounters.putSubscriberReasonKey(key, "tail", "source down"));
        final AtomicCounter session = counters.newCounter(
            "fanout partition=1 market session", FANOUT_MARKET_SESSION_TYPE_ID, (key) -> key.putInt(0, 1));
        session.setRelease(MarketSession.OPEN.value());
        staleTotal.getAndAddRelease(2);
        sourceAge.setRelease(1_250);
        sourceDown.incrementRelease();
        linePackets.incrementRelease();
        linePackets.incrementRelease();
        decoded.getAndAddRelease(5);
        held.setRelease(7);
        published.getAndAddRelease(11);
        stale.incrementRelease();
        unknown.setRelease(3);

        final RingBuffer ring = new OneToOneRingBuffer(
            new UnsafeBuffer(ByteBuffer.allocateDirect(4096 + RingBufferDescriptor.TRAILER_LENGTH)));
        assertTrue(ring.write(1, new UnsafeBuffer(new byte[100]), 0, 100));
        assertTrue(ring.write(1, new UnsafeBuffer(new byte[100]), 0, 100));
        assertEquals(1, ring.read((msgTypeId, buffer, index, length) -> { }, 1));

        final LatencyHistogram latency = new LatencyHistogram(
            "mdfanout_test_latency_seconds", "Test latency.", Labels.EMPTY);
        latency.recordNanos(3_000);
        latency.recordNanos(2_000_000);
        latency.recordNanos(-5);

        final MediaDriver.Context driverContext = new MediaDriver.Context()
            .aeronDirectoryName(tempDir.resolve("aeron").toString())
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new BackoffIdleStrategy())
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true);
        try (MediaDriver driver = MediaDriver.launchEmbedded(driverContext);
            Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
            Subscription subscription = aeron.addSubscription("aeron:ipc", 4242);
            ExclusivePublication publication = aeron.addExclusivePublication("aeron:ipc", 4242);
            CncCounters cnc = CncCounters.map(driver.aeronDirectoryName()))
        {
            while (!publication.isConnected())
            {
                Thread.yield();
            }
            while (publication.offer(new UnsafeBuffer(new byte[64])) < 0)
            {
                Thread.yield();
            }

            final PrometheusRegistry registry = new PrometheusRegistry();
            registry.register(new CountersCollector(counters));
            registry.register(new RingCollector(new RingBuffer[]{ ring }));
            registry.register(latency);
            registry.register(new AeronCountersCollector(cnc::reader));
            registry.register(new BuildInfoCollector("test"));
            try (MetricsServer server = MetricsServer.start("127.0.0.1", 0, registry))
            {
                assertEquals("http://127.0.0.1:" + server.port() + "/metrics", server.url());
                final String body = scrape(server.port());
                assertParses(body);
                final List<String> lines = Arrays.stream(body.split("\n")).collect(Collectors.toList());

                assertTrue(lines.contains("# TYPE mdfanout_feed_packets_received_total counter"), body);
                assertTrue(lines.contains("mdfanout_feed_packets_received_total{line=\"A\"} 2.0"), body);
                assertTrue(lines.contains("mdfanout_feed_messages_decoded_total{type=\"add_order\"} 5.0"), body);
                assertTrue(lines.contains("# TYPE mdfanout_feed_held_messages gauge"), body);
                assertTrue(lines.contains("mdfanout_feed_held_messages 7.0"), body);
                assertTrue(lines.contains("mdfanout_fanout_messages_published_total{partition=\"1\"} 11.0"), body);
                assertTrue(lines.contains(
                    "mdfanout_subscriber_stale_events_total{reason=\"late_join\",subscriber=\"tail\"} 1.0"), body);
                assertFalse(body.contains("mdfanout_subscriber_stale_events_total{subscriber="),
                    "total folded: " + body);
                assertTrue(body.contains("mdfanout_unmapped_counter{counter_id="), body);
                // A state set: one series per state, 1 for the current one.
                assertTrue(lines.contains("# TYPE mdfanout_market_session_state gauge"), body);
                assertTrue(lines.contains("mdfanout_market_session_state{partition=\"1\",state=\"open\"} 1.0"), body);
                for (final MarketSession other : MarketSession.all())
                {
                    if (MarketSession.OPEN != other)
                    {
                        assertTrue(lines.contains("mdfanout_market_session_state{partition=\"1\",state=\"" +
                            other.label() + "\"} 0.0"), body);
                    }
                }

                assertTrue(lines.contains("mdfanout_ring_capacity_bytes{partition=\"0\"} 4096.0"), body);
                assertTrue(lines.contains("mdfanout_ring_used_bytes{partition=\"0\"} 112.0"), body);
                assertTrue(lines.contains("# TYPE mdfanout_ring_consumed_bytes_total counter"), body);
                assertTrue(lines.contains("mdfanout_ring_consumed_bytes_total{partition=\"0\"} 112.0"), body);
                assertTrue(lines.contains("mdfanout_fanout_source_heartbeat_age_seconds 1.25"), "ms as seconds: " + body);
                assertTrue(lines.contains(
                    "mdfanout_subscriber_stale_events_total{reason=\"source_down\",subscriber=\"tail\"} 1.0"), body);
                assertTrue(lines.contains("mdfanout_build_info{revision=\"" + BuildInfo.revision() +
                    "\",role=\"test\",version=\"" + BuildInfo.version() + "\"} 1.0"), body);

                assertTrue(lines.contains("# TYPE mdfanout_test_latency_seconds histogram"), body);
                assertTrue(lines.contains("mdfanout_test_latency_seconds_count 3"), body);
                assertTrue(lines.contains("mdfanout_test_latency_seconds_bucket{le=\"5.0E-6\"} 2"), body);
                assertTrue(lines.contains("mdfanout_test_latency_seconds_bucket{le=\"+Inf\"} 3"), body);

                assertTrue(lines.contains("# TYPE mdfanout_aeron_naks_sent_total counter"), body);
                assertTrue(body.contains("mdfanout_aeron_position_bytes{kind=\"publisher\",session_id="), body);
                assertFalse(body.contains("registration_id"), "no label that churns on reconnect: " + body);
                assertTrue(body.contains("stream_id=\"4242\""), body);
                assertTrue(body.contains("jvm_memory_used_bytes"), body);
            }
        }
    }

    @Test
    void latencyRecordingAllocatesNothing() throws Exception
    {
        final LatencyHistogram latency = new LatencyHistogram("mdfanout_x_seconds", "x", Labels.EMPTY);
        for (int i = 0; i < 20; i++)
        {
            record(latency); // warm up: the JIT compiles the path (its own work is not the path's)
        }
        final int windows = AllocationWindows.assertOneWindowAllocatesNothing(
            "recording 100,001 latencies", AllocationWindows.WINDOWS, () -> record(latency));
        assertEquals((20 + windows) * 100_001L, latency.snapshot().getTotalCount());
    }

    private static void record(final LatencyHistogram latency)
    {
        for (int i = 0; i < 100_000; i++)
        {
            latency.recordNanos(i * 79_193L);
        }
        latency.recordNanos(Long.MAX_VALUE);
    }

    @Test
    void wrongOptionsGiveOneLineErrors()
    {
        final IllegalArgumentException port = assertThrows(IllegalArgumentException.class,
            () -> new MetricsOptions().set(70000, "0.0.0.0").validate());
        assertTrue(port.getMessage().contains("--metrics-port"));
        assertFalse(new MetricsOptions().set(0, "0.0.0.0").validate().enabled());
        final IllegalArgumentException bind = assertThrows(IllegalArgumentException.class,
            () -> MetricsServer.start("no.such.host.invalid", 0, new PrometheusRegistry()));
        assertTrue(bind.getMessage().contains("--metrics-bind"));
    }

    @Test
    void everyRuleIsWellFormed()
    {
        final Set<String> families = new HashSet<>();
        for (final CounterRule rule : CounterMappings.rules())
        {
            assertTrue(rule.name().matches("mdfanout_[a-z0-9_]+"), rule.name());
            assertFalse(rule.help().isEmpty());
            assertFalse(rule.name().contains("_by_"), "a breakdown is a label, not a family: " + rule.name());
            if (rule.exported())
            {
                assertTrue(families.add(rule.name()), "one rule per family: " + rule.name());
            }
        }
        for (final CounterRule rule : CounterMappings.rules())
        {
            assertTrue(families.contains(rule.name()), "folded into an exported family: " + rule.name());
        }
        assertEquals("mdfanout_feed_gaps_declared_total", CounterMappings.find(FEED_GAPS_DECLARED_TYPE_ID).name());
        assertEquals(null, CounterMappings.find(REPLAY_RECORDS_READ_TYPE_ID));
    }

    @Test
    void everyTypeIdOfTheExportingRolesIsMapped() throws IllegalAccessException
    {
        // The feed handler, the fanout and the SDK serve metrics; replay and the simulator only print.
        for (final Field field : MdfanoutCounters.class.getFields())
        {
            final String name = field.getName();
            if (name.endsWith("_TYPE_ID") &&
                (name.startsWith("FEED_") || name.startsWith("FANOUT_") || name.startsWith("SUBSCRIBER_") ||
                name.startsWith("BOOK_")))
            {
                assertTrue(null != CounterMappings.find(field.getInt(null)), "no rule for " + name);
            }
        }
    }

    @Test
    void readyAnswersFromTheRolesReadinessAndEveryOtherPathAsBefore() throws Exception
    {
        final String[] reason = {"recovering a gap: 12 messages held until it is filled"};
        try (MetricsServer server = MetricsServer.start("127.0.0.1", 0, new PrometheusRegistry(), () -> reason[0]))
        {
            final HttpClient client = HttpClient.newHttpClient();
            final URI ready = URI.create("http://127.0.0.1:" + server.port() + "/ready");
            HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(ready).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(503, response.statusCode());
            assertEquals("not ready: recovering a gap: 12 messages held until it is filled\n", response.body());

            reason[0] = null;
            response = client.send(HttpRequest.newBuilder(ready).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode());
            assertEquals("ready\n", response.body());

            assertEquals(200, client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/"))
                .GET().build(), HttpResponse.BodyHandlers.ofString()).statusCode(), "the landing page");
            assertTrue(scrape(server.port()).contains("jvm_"), "metrics as before");
        }
        try (MetricsServer server = MetricsServer.start("127.0.0.1", 0, new PrometheusRegistry(), () ->
        {
            throw new IllegalStateException("boom");
        }))
        {
            final HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + "/ready")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
            assertEquals(503, response.statusCode());
            assertEquals("not ready: readiness check failed: java.lang.IllegalStateException: boom\n", response.body());
        }
        try (MetricsServer server = MetricsServer.start("127.0.0.1", 0, new PrometheusRegistry()))
        {
            assertEquals(200, HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + "/ready")).GET().build(),
                HttpResponse.BodyHandlers.ofString()).statusCode(), "a role that does not say: always ready");
        }
    }
}
