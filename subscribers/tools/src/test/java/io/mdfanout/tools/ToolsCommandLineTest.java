package io.mdfanout.tools;

import io.mdfanout.wire.ExitCodes;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Formatting helpers, and wrong configuration giving a one-line error and exit 1 (no stack trace). */
class ToolsCommandLineTest
{
    @Test
    void statsOldIntervalNameStillWorksAndWarns()
    {
        final StatsCommand stats = new StatsCommand();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        stats.stderr = new PrintStream(err, true, StandardCharsets.UTF_8);
        // The old name's value is the one checked: 0 is refused, so nothing connects.
        assertEquals(ExitCodes.CONFIG, new CommandLine(stats).execute("--interval-s", "0"));
        assertEquals("stats: --interval-s is deprecated, use --stats-interval-s\n" +
            "stats: --stats-interval-s must be positive: 0\n", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldFormatTimesAndPrices()
    {
        assertEquals("09:30:00.000000042",
            TextFormat.appendTime(new StringBuilder(), (9 * 3600 + 30 * 60) * 1_000_000_000L + 42).toString());
        assertEquals("123.4500", TextFormat.price4(1_234_500));
        assertEquals("0.0001", TextFormat.price4(1));
        assertEquals("4600.00000000", TextFormat.appendPrice(new StringBuilder(), 460_000_000_000L, 8).toString());
    }

    @Test
    void advertiseInterfacePutsTheInterfacesAddressIntoTheEndpoint()
    {
        assertEquals("127.0.0.1", SubscriberOptions.ipv4AddressOf("lo"));
        final io.aeron.ChannelUri rewritten = io.aeron.ChannelUri.parse(SubscriberOptions.withEndpointHost(
            "aeron:udp?endpoint=10.0.0.7:0|control=10.20.0.10:40457|control-mode=dynamic", "127.0.0.1", "--channel"));
        assertEquals("127.0.0.1:0", rewritten.get("endpoint"), "the host replaced, the port kept");
        assertEquals("10.20.0.10:40457", rewritten.get("control"));
        assertEquals("dynamic", rewritten.get("control-mode"));
        final IllegalArgumentException unknown = org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> SubscriberOptions.ipv4AddressOf("nosuch9"));
        assertTrue(unknown.getMessage().startsWith("--advertise-interface nosuch9: no such interface here (there are ["),
            unknown.getMessage());
        assertTrue(unknown.getMessage().contains("lo"), unknown.getMessage());

        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final StatsCommand stats = new StatsCommand();
        stats.stderr = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertEquals(ExitCodes.CONFIG, new CommandLine(stats).execute("--advertise-interface", "nosuch9"));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("stats: --advertise-interface nosuch9: no such interface"),
            err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldRejectWrongConfigurationWithOneLine()
    {
        final ByteArrayOutputStream tailErr = new ByteArrayOutputStream();
        final TailCommand tail = new TailCommand();
        tail.stderr = new PrintStream(tailErr, true, StandardCharsets.UTF_8);
        assertEquals(ExitCodes.CONFIG, new CommandLine(tail).execute("--partitions", "0"));
        assertEquals("tail: --partitions must be positive: 0\n", tailErr.toString(StandardCharsets.UTF_8));

        final ByteArrayOutputStream statsErr = new ByteArrayOutputStream();
        final StatsCommand stats = new StatsCommand();
        stats.stderr = new PrintStream(statsErr, true, StandardCharsets.UTF_8);
        assertEquals(ExitCodes.CONFIG, new CommandLine(stats).execute("--aeron-dir", "/nonexistent/mdfanout-aeron"));
        final String statsMessage = statsErr.toString(StandardCharsets.UTF_8);
        assertTrue(statsMessage.startsWith("stats: no media driver at --aeron-dir /nonexistent/mdfanout-aeron"),
            statsMessage);
        assertEquals(1, statsMessage.split("\n").length);

        final ByteArrayOutputStream bookErr = new ByteArrayOutputStream();
        final BookCommand book = new BookCommand();
        book.stderr = new PrintStream(bookErr, true, StandardCharsets.UTF_8);
        assertEquals(ExitCodes.CONFIG, new CommandLine(book).execute("--depth", "0"));
        assertEquals("book: --depth and --refresh-ms must be positive\n", bookErr.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldRejectWrongRecoveryOptionsWithOneLine()
    {
        assertEquals("tail: --silent-timeout-ms must be positive: 0\n", tailError("--silent-timeout-ms", "0"));
        assertEquals("tail: --recovery-buffer-bytes must be 65536..1073741824: 10\n",
            tailError("--recovery-buffer-bytes", "10"));
        assertEquals("tail: --snapshot-channel is not an Aeron channel: udp://x\n",
            tailError("--snapshot-channel", "udp://x"));
        assertEquals("tail: snapshot stream id 1000 (partition 0) is also the incremental stream of partition 0 " +
            "on the same channel\n", tailError("--snapshot-stream-id-base", "1000"));
    }

    @Test
    void shouldRejectWrongIdleOptionsWithOneLine()
    {
        assertEquals("tail: unknown --idle-strategy 'nap' (backoff, park, yield or busy-spin)\n",
            tailError("--idle-strategy", "nap"));
        assertEquals("tail: --idle-max-park-us must be 1 to 1000000: 0\n", tailError("--idle-max-park-us", "0"));
        assertEquals("tail: unknown --driver-threading 'dedicated' (shared or invoker)\n",
            tailError("--driver-threading", "dedicated"));

        final ByteArrayOutputStream subErr = new ByteArrayOutputStream();
        final RawAeronSubCommand sub = new RawAeronSubCommand();
        sub.stderr = new PrintStream(subErr, true, StandardCharsets.UTF_8);
        assertEquals(ExitCodes.CONFIG, new CommandLine(sub).execute("--idle-strategy", "nap"));
        assertEquals("raw-aeron-sub: unknown --idle-strategy 'nap' (backoff, park, yield or busy-spin)\n",
            subErr.toString(StandardCharsets.UTF_8));

        final ByteArrayOutputStream pubErr = new ByteArrayOutputStream();
        final RawAeronPubCommand pub = new RawAeronPubCommand();
        pub.stderr = new PrintStream(pubErr, true, StandardCharsets.UTF_8);
        assertEquals(ExitCodes.CONFIG, new CommandLine(pub).execute("--idle-max-park-us", "-5"));
        assertEquals("raw-aeron-pub: --idle-max-park-us must be 1 to 1000000: -5\n",
            pubErr.toString(StandardCharsets.UTF_8));
    }

    @Test
    void idleOptionsBuildTheNamedStrategy()
    {
        final IdleOptions options = new IdleOptions();
        assertEquals("backoff(maxPark=100us)", options.toString());
        assertTrue(options.newIdleStrategy() instanceof org.agrona.concurrent.BackoffIdleStrategy);
        new CommandLine(options).parseArgs("--idle-strategy", "busy-spin");
        assertTrue(options.newIdleStrategy() instanceof org.agrona.concurrent.BusySpinIdleStrategy);
    }

    @Test
    void parkIsTheSharedStrategy()
    {
        final IdleOptions park = new IdleOptions();
        new CommandLine(park).parseArgs("--idle-strategy", "park", "--idle-max-park-us", "50");
        assertEquals("park(maxPark=50us)", park.toString());
        assertEquals(io.mdfanout.wire.IdleStrategyType.park(50_000).toString(), park.newIdleStrategy().toString());
    }

    private static String tailError(final String... args)
    {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final TailCommand tail = new TailCommand();
        tail.stderr = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertEquals(ExitCodes.CONFIG, new CommandLine(tail).execute(args));
        return err.toString(StandardCharsets.UTF_8);
    }
}
