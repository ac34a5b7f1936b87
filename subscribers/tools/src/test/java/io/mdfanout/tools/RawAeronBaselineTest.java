package io.mdfanout.tools;

import io.mdfanout.wire.ExitCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** raw-aeron-pub -> raw-aeron-sub over real Aeron multicast on loopback, each with its own embedded driver. */
class RawAeronBaselineTest
{
    private static final String CHANNEL = "aeron:udp?endpoint=224.0.1.7:40476|interface=127.0.0.1|mtu=8192";

    @Test
    void everyMessageArrivesAndIsMeasured(@TempDir final Path dir) throws Exception
    {
        final Path ready = dir.resolve("ready");
        final Path json = dir.resolve("sub.json");
        final CompletableFuture<Integer> sub = CompletableFuture.supplyAsync(() -> new CommandLine(
            new RawAeronSubCommand()).execute("--channel", CHANNEL, "--stream-id", "77", "--messages", "20000",
            "--warmup-messages", "1000", "--timeout-s", "30", "--ready-file", ready.toString(),
            "--json-out", json.toString(), "--hgrm-out", dir.resolve("sub.hgrm").toString()));

        final int pubExit = new CommandLine(new RawAeronPubCommand()).execute("--channel", CHANNEL,
            "--stream-id", "77", "--messages", "20000", "--rate", "50000", "--connect-timeout-s", "20");
        assertEquals(0, pubExit);
        assertEquals(0, sub.get(30, TimeUnit.SECONDS).intValue());
        final String report = Files.readString(json);
        assertTrue(report.contains("\"system\":\"raw-aeron\",\"count\":19000,"), report);
        assertTrue(report.contains("\"messages\":20000,\"missing\":0,\"exit\":0"), report);
    }

    /**
     * Batched (--batch) as the fanout batches: the messages due at each duty cycle in one offer, split again by the
     * subscriber (--message-length); flat out, offers hold many messages, and still every message arrives, in
     * sequence, each measured.
     */
    @Test
    void batchedEveryMessageArrivesAndIsMeasured(@TempDir final Path dir) throws Exception
    {
        final Path ready = dir.resolve("ready");
        final Path json = dir.resolve("sub.json");
        final CompletableFuture<Integer> sub = CompletableFuture.supplyAsync(() -> new CommandLine(
            new RawAeronSubCommand()).execute("--channel", CHANNEL, "--stream-id", "79", "--messages", "200000",
            "--message-length", "48", "--warmup-messages", "1000", "--timeout-s", "30", "--ready-file",
            ready.toString(), "--json-out", json.toString()));

        final RawAeronPubCommand pub = new RawAeronPubCommand();
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        pub.stdout = new PrintStream(out, true, StandardCharsets.UTF_8);
        final int pubExit = new CommandLine(pub).execute("--channel", CHANNEL, "--stream-id", "79",
            "--messages", "200000", "--rate", "0", "--batch", "--message-length", "48", "--connect-timeout-s", "20");
        assertEquals(0, pubExit, out.toString(StandardCharsets.UTF_8));
        assertEquals(0, sub.get(30, TimeUnit.SECONDS).intValue());
        final String report = Files.readString(json);
        assertTrue(report.contains("\"system\":\"raw-aeron\",\"count\":199000,"), report);
        assertTrue(report.contains("\"messages\":200000,\"missing\":0,\"exit\":0"), report);
        final Matcher offers = Pattern.compile("offers=(\\d+)").matcher(out.toString(StandardCharsets.UTF_8));
        assertTrue(offers.find(), out.toString(StandardCharsets.UTF_8));
        assertTrue(Long.parseLong(offers.group(1)) < 200_000 / 10,
            "flat out, an offer holds many messages: " + out.toString(StandardCharsets.UTF_8));
    }

    /** Each side's embedded driver and Aeron client run on its poll thread: still every message, measured. */
    @Test
    void everyMessageArrivesWithTheDriversInvokedByThePollThreads(@TempDir final Path dir) throws Exception
    {
        final Path ready = dir.resolve("ready");
        final Path json = dir.resolve("sub.json");
        final CompletableFuture<Integer> sub = CompletableFuture.supplyAsync(() -> new CommandLine(
            new RawAeronSubCommand()).execute("--channel", CHANNEL, "--stream-id", "78", "--messages", "20000",
            "--warmup-messages", "1000", "--timeout-s", "30", "--ready-file", ready.toString(),
            "--driver-threading", "invoker", "--json-out", json.toString()));

        // With a warm-up too: 5,000 messages at 20,000/s, then the rest at the measured rate.
        final RawAeronPubCommand pub = new RawAeronPubCommand();
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        pub.stdout = new PrintStream(out, true, StandardCharsets.UTF_8);
        final int pubExit = new CommandLine(pub).execute("--channel", CHANNEL,
            "--stream-id", "78", "--messages", "20000", "--rate", "50000", "--connect-timeout-s", "20",
            "--driver-threading", "invoker", "--stamp-send-time", "--warmup-messages", "5000", "--warmup-rate", "20000");
        assertEquals(0, pubExit);
        assertEquals(0, sub.get(30, TimeUnit.SECONDS).intValue());
        final String report = Files.readString(json);
        assertTrue(report.contains("\"messages\":20000,\"missing\":0,\"exit\":0"), report);
        final String done = out.toString(StandardCharsets.UTF_8);
        assertTrue(done.contains("messages=20000 ") && done.contains(" warmup(messages=5000) measuredMessages=15000 "),
            done);
        final Matcher elapsed = Pattern.compile("elapsed=([0-9.]+)s .* measuredElapsed=([0-9.]+)s").matcher(done);
        assertTrue(elapsed.find(), done);
        // The warm-up alone takes 250 ms at 20,000/s: the measured part starts after it.
        assertTrue(Double.parseDouble(elapsed.group(1)) - Double.parseDouble(elapsed.group(2)) >= 0.24, done);
    }

    @Test
    void badOptionsAreOneLineErrors()
    {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final PrintStream stderr = new PrintStream(err, true, StandardCharsets.UTF_8);

        final RawAeronPubCommand pub = new RawAeronPubCommand();
        pub.stderr = stderr;
        assertEquals(ExitCodes.CONFIG, new CommandLine(pub).execute("--message-length", "8"));
        final RawAeronSubCommand sub = new RawAeronSubCommand();
        sub.stderr = stderr;
        assertEquals(ExitCodes.CONFIG, new CommandLine(sub).execute("--channel", "udp://x"));
        final LatencyCommand latency = new LatencyCommand();
        latency.stderr = stderr;
        assertEquals(ExitCodes.CONFIG, new CommandLine(latency).execute("--warmup-messages", "-1"));

        assertEquals("raw-aeron-pub: need 0 <= --rate <= 1e9, --messages > 0, --connect-timeout-s > 0, " +
            "--message-length >= 16, 0 <= --warmup-messages < --messages, 0 <= --warmup-rate <= 1e9, --max-lag-ms >= 0\n" +
            "raw-aeron-sub: need --messages >= 0, --timeout-s >= 0 and an Aeron --channel (udp://x)\n" +
            "latency: --warmup-messages must not be negative: -1\n", err.toString(StandardCharsets.UTF_8));
    }
}
