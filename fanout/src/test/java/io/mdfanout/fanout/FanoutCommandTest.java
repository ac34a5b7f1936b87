package io.mdfanout.fanout;

import io.mdfanout.wire.ExitCodes;
import io.mdfanout.wire.IdleStrategyType;
import io.mdfanout.wire.PartitionRings;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** The {@code fanout} command: option handling, exit codes, and a clean stop on SIGTERM in a real process. */
final class FanoutCommandTest
{
    private static final String CHANNEL = "aeron:udp?endpoint=224.0.1.41:41021|interface=127.0.0.1|mtu=8192";

    @TempDir
    Path ringDirectory;

    private static int execute(final StringWriter err, final String... args)
    {
        final CommandLine commandLine = new CommandLine(new FanoutCommand());
        commandLine.setErr(new PrintWriter(err, true));
        commandLine.setOut(new PrintWriter(new StringWriter(), true));
        return commandLine.execute(args);
    }

    @Test
    void rejectsInvalidOptionsWithUsageOrConfigurationErrors()
    {
        assertEquals(ExitCodes.USAGE, execute(new StringWriter(), "--threading", "sideways"));
        assertEquals(ExitCodes.USAGE, execute(new StringWriter(), "--idle-strategy", "nap"));
        assertEquals(ExitCodes.CONFIG, execute(new StringWriter(), "--idle-max-park-us", "0"));
        assertEquals(ExitCodes.CONFIG, execute(new StringWriter(), "--driver-threading", "invoker", "--threading", "dedicated"));
        assertEquals(ExitCodes.USAGE, execute(new StringWriter(), "--driver-threading", "sideways"));
        assertEquals(ExitCodes.CONFIG, execute(new StringWriter(), "--partitions", "0"));
        assertEquals(ExitCodes.CONFIG, execute(new StringWriter(), "--term-length-bytes", "1000"));
        assertEquals(ExitCodes.CONFIG, execute(new StringWriter(), "--stats-interval-s", "-1"));
        assertEquals(ExitCodes.CONFIG, execute(new StringWriter(), "--source-timeout-ms", "150"));
        assertEquals(ExitCodes.CONFIG, execute(new StringWriter(), "--source-timeout-ms", "60001"));
    }

    @Test
    void sourceTimeoutIsValidatedWithAMessageThatSaysWhy()
    {
        final IllegalArgumentException tooShort = org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () -> new FanoutConfig().sourceTimeoutNs(TimeUnit.MILLISECONDS.toNanos(150)).validate());
        assertEquals("--source-timeout-ms must be 200..60000 (at least twice the feed handler's 100 ms heartbeat), " +
            "not 150", tooShort.getMessage());
        assertEquals(TimeUnit.MILLISECONDS.toNanos(500), new FanoutConfig().sourceTimeoutNs());
        assertFalse(new FanoutConfig().sourceTimeoutReachesSilentTimeout(), "the defaults stay inside 2 s");
        assertTrue(new FanoutConfig().sourceTimeoutNs(TimeUnit.MILLISECONDS.toNanos(1800)).validate()
            .sourceTimeoutReachesSilentTimeout(), "1.8 s + a 250 ms heartbeat reach it");
    }

    @Test
    void parsesCommandLineNamesIntoTheConfiguration()
    {
        final FanoutCommand command = new FanoutCommand();
        new CommandLine(command).parseArgs(
            "--threading", "dedicated", "--idle-strategy", "busy-spin", "--driver-threading", "shared-network",
            "--partitions", "8", "--heartbeat-interval-ms", "100", "--idle-max-park-us", "20",
            "--source-timeout-ms", "750");
        final FanoutConfig config = command.toConfig().validate();
        assertEquals(FanoutThreading.DEDICATED, config.threading());
        assertEquals(IdleStrategyType.BUSY_SPIN, config.idleStrategy());
        assertEquals(TimeUnit.MICROSECONDS.toNanos(20), config.idleMaxParkNs());
        assertEquals(IdleStrategyType.DEFAULT_MAX_PARK_NS, new FanoutConfig().idleMaxParkNs());
        assertEquals(io.aeron.driver.ThreadingMode.SHARED_NETWORK, config.driverThreadingMode());
        assertEquals(8, config.partitionCount());
        assertEquals(TimeUnit.MILLISECONDS.toNanos(100), config.heartbeatIntervalNs());
        assertEquals(TimeUnit.MILLISECONDS.toNanos(750), config.sourceTimeoutNs());
        assertEquals(FanoutConfig.DEFAULT_CHANNEL, config.channel());
    }

    @Test
    void aPairsSidePicksItsChannelFromItsNameOrItsPodIndex()
    {
        final String sideB = "aeron:udp?endpoint=224.0.1.43:41021|mtu=8192";
        for (final String side : List.of("A", "0", "a"))
        {
            final FanoutCommand command = new FanoutCommand();
            new CommandLine(command).parseArgs("--channel", CHANNEL, "--side", side, "--side-b-channel", sideB);
            assertEquals(CHANNEL, command.toConfig().channel(), "side " + side);
        }
        for (final String side : List.of("B", "1"))
        {
            final FanoutCommand command = new FanoutCommand();
            new CommandLine(command).parseArgs("--channel", CHANNEL, "--side", side, "--side-b-channel", sideB,
                "--snapshot-channel", CHANNEL);
            final FanoutConfig config = command.toConfig();
            assertEquals(sideB, config.channel(), "side " + side);
            assertEquals(null, config.snapshotChannel(), "side B's snapshots on its own channel, not side A's");
        }

        assertEquals(ExitCodes.CONFIG, execute(new StringWriter(), "--side", "C"));
        assertEquals(ExitCodes.CONFIG, execute(new StringWriter(), "--side", "1"));
        final FanoutCommand other = new FanoutCommand();
        new CommandLine(other).parseArgs("--side", "C");
        assertEquals("--side must be A or B (or a pod index, 0 or 1): C",
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, other::toConfig).getMessage());
        final FanoutCommand missing = new FanoutCommand();
        new CommandLine(missing).parseArgs("--side", "1");
        assertEquals("--side 1 needs --side-b-channel: the channel side B publishes on",
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, missing::toConfig).getMessage());
    }

    @Test
    void helpListsEveryOptionWithDefaults()
    {
        final StringWriter out = new StringWriter();
        final CommandLine commandLine = new CommandLine(new FanoutCommand());
        commandLine.setOut(new PrintWriter(out, true));
        assertEquals(0, commandLine.execute("--help"));
        for (final String option : List.of("--ring-dir", "--partitions", "--channel", "--stream-id-base", "--aeron-dir",
            "--driver-threading", "--threading", "--idle-strategy", "--idle-max-park-us", "--heartbeat-interval-ms",
            "--term-length-bytes",
            "--ring-wait-timeout-s", "--stats-interval-s", "--source-timeout-ms"))
        {
            assertTrue(out.toString().contains(option), option);
        }
        assertTrue(out.toString().contains("/dev/shm/mdfanout/feed-1"), "defaults shown");
    }

    @Test
    void failsWithAClearMessageWhenTheRingsAreMissing()
    {
        final String args = "--ring-dir " + ringDirectory.resolve("absent") + " --ring-wait-timeout-s 0";
        assertEquals(ExitCodes.FAILURE, execute(new StringWriter(), args.split(" ")));
    }

    @Test
    void stopsCleanlyOnSigtermAndDeletesTheEmbeddedDriverDirectory() throws Exception
    {
        final PartitionRings.MappedRing ring = PartitionRings.create(ringDirectory, 0, 64 * 1024);
        final Path outputFile = ringDirectory.resolve("fanout.out");
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final Process process = new ProcessBuilder(
            java, "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"),
            FanoutCommand.class.getName(),
            "--ring-dir", ringDirectory.toString(), "--partitions", "1", "--channel", CHANNEL,
            "--term-length-bytes", "1048576", "--stats-interval-s", "1")
            .redirectErrorStream(true)
            .redirectOutput(outputFile.toFile()) // a file, not a pipe: nothing lost when the process exits
            .start();
        try
        {
            final String running = awaitLine(outputFile, "fanout: running", process);
            final String aeronDirectory = running.substring(running.lastIndexOf("mediaDriverDir=") + "mediaDriverDir=".length());
            assertTrue(new File(aeronDirectory).exists(), aeronDirectory);
            awaitLine(outputFile, "fanout stats:", process);

            process.destroy(); // SIGTERM
            assertTrue(process.waitFor(20, TimeUnit.SECONDS), "stopped after SIGTERM");
            final List<String> output = Files.readAllLines(outputFile);
            assertFalse(new File(aeronDirectory).exists(), "embedded driver directory deleted");
            assertTrue(output.contains("fanout: stopped"), "exit " + process.exitValue() + " " + output);
        }
        finally
        {
            process.destroyForcibly();
            CloseHelper.close(ring);
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
