package io.mdfanout.fanout;

import io.aeron.driver.ThreadingMode;
import io.mdfanout.affinity.CpuSet;
import io.mdfanout.affinity.TaskCpus;
import io.mdfanout.affinity.ThreadAffinity;
import io.mdfanout.wire.ExitCodes;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * CPU pinning of the fanout's busy threads, checked from outside: a real fanout process, restricted
 * with {@code taskset} to two CPUs like this 2-core machine, and the affinity of each of its threads
 * read back from {@code /proc/<pid>/task/<tid>/status}.
 */
final class FanoutAffinityTest
{
    private static final String CHANNEL = "aeron:udp?endpoint=224.0.1.43:41031|interface=127.0.0.1|mtu=8192";
    private static final Pattern PINNED = Pattern.compile("^fanout: pinned (\\S+) \\(tid (\\d+)\\) to CPU (\\d+)$");

    @TempDir
    Path ringDirectory;

    @Test
    void busyThreadsFollowTheThreadingOfPublishersAndDriver()
    {
        assertEquals(List.of("fanout-publisher", "driver-shared"), Fanout.busyThreads(new FanoutConfig()));
        assertEquals(List.of("fanout-publisher-0", "fanout-publisher-1", "driver-conductor", "driver-network"),
            Fanout.busyThreads(new FanoutConfig().partitionCount(2).threading(FanoutThreading.DEDICATED)
                .driverThreadingMode(ThreadingMode.SHARED_NETWORK)));
        assertEquals(List.of("fanout-publisher", "driver-conductor", "driver-sender", "driver-receiver"),
            Fanout.busyThreads(new FanoutConfig().driverThreadingMode(ThreadingMode.DEDICATED)));
        assertEquals(List.of("fanout-publisher"),
            Fanout.busyThreads(new FanoutConfig().aeronDirectoryName("/dev/shm/external")), "no embedded driver");
    }

    @Test
    void cpusThatCannotBeParsedOrHonouredAreUsageOrConfigurationErrors()
    {
        assertEquals(ExitCodes.USAGE, execute("--cpus", "everything"));
        assertEquals(ExitCodes.CONFIG, execute("--cpus", "1000", "--ring-dir", ringDirectory.toString()), "CPU not allowed");
        assertEquals(ExitCodes.CONFIG, execute("--cpus", ThreadAffinity.processAllowedCpus().cpu(0) + "",
            "--ring-dir", ringDirectory.toString()), "one CPU for two busy threads");
        final FanoutCommand command = new FanoutCommand();
        new CommandLine(command).parseArgs("--cpus", "3,1");
        assertEquals(CpuSet.of(1, 3), command.toConfig().cpus().explicitCpus());
        new CommandLine(command).parseArgs();
        assertTrue(command.toConfig().cpus().isAuto(), "auto by default");

        final StringWriter help = new StringWriter();
        final CommandLine commandLine = new CommandLine(new FanoutCommand());
        commandLine.setOut(new PrintWriter(help, true));
        assertEquals(0, commandLine.execute("--help"));
        assertTrue(help.toString().contains("--cpus=<cpus>"), help.toString());
        assertTrue(help.toString().contains("Default: auto"), help.toString());
    }

    @Test
    void autoOnTwoCpusFallsBackToSharedBackoffThreadsAndPinsNothing() throws Exception
    {
        final CpuSet twoCpus = twoAllowedCpus();
        // Asks for dedicated, spinning threads everywhere: 5 busy threads, far more than 2 CPUs can pin.
        final Run run = runUntilRunning(twoCpus, 2,
            "--cpus", "auto", "--threading", "dedicated", "--idle-strategy", "busy-spin",
            "--driver-threading", "dedicated");
        final List<String> output = run.output;
        final String fallback = "fanout: cpu pinning off: 2 CPUs allowed (" + twoCpus + ") but 5 busy threads " +
            "(fanout-publisher-0, fanout-publisher-1, driver-conductor, driver-sender, driver-receiver) need 6 " +
            "(one each and one for the JVM and OS); running shared threads with backoff idle strategies, unpinned " +
            "(--cpus auto)";
        assertTrue(output.contains(fallback), String.join("\n", output));
        assertFalse(output.stream().anyMatch((line) -> line.startsWith("fanout: pinned")), String.join("\n", output));
        // Shared after all: both publishers in one composite agent, the driver's three agents on one thread.
        assertEquals(List.of("[fanout-partiti"), run.threadsNamed("fanout-partiti"), run.tasks.toString());
        assertEquals(List.of(), run.threadsNamed("fanout-partitio"), run.tasks.toString());
        assertEquals(List.of(), run.threadsNamed("driver-conducto"), run.tasks.toString());
        assertEquals(List.of(), run.threadsNamed("sender"), run.tasks.toString());
        assertEquals(List.of(), run.threadsNamed("receiver"), run.tasks.toString());
        assertEquals(1, run.threadsNamed(run.driverThreadName()).size(), run.tasks.toString());
    }

    @Test
    void explicitCpusPinThePublisherAndTheEmbeddedDriverThread() throws Exception
    {
        final CpuSet twoCpus = twoAllowedCpus();
        final Run run = runUntilRunning(twoCpus, 1, "--cpus", twoCpus.toString());
        final List<String> output = run.output;
        assertTrue(output.contains("fanout: cpu pinning: fanout-publisher->" + twoCpus.cpu(0) + " driver-shared->" +
            twoCpus.cpu(1) + "; JVM and OS on the same CPUs (no CPU to spare) (allowed " + twoCpus + ", --cpus " + twoCpus + ")"),
            String.join("\n", output));
        assertEquals(CpuSet.of(twoCpus.cpu(0)), run.cpusOfThreadNamed("fanout-partitio"), run.tasks.toString());
        assertEquals(CpuSet.of(twoCpus.cpu(1)), run.cpusOfThreadNamed(run.driverThreadName()), run.tasks.toString());
    }

    /** What a fanout process printed until it stopped, and its threads while it ran. */
    private static final class Run
    {
        final List<String> output;
        final List<TaskCpus> tasks;

        Run(final List<String> output, final List<TaskCpus> tasks)
        {
            this.output = output;
            this.tasks = tasks;
        }

        /** The shared driver agent's thread is named after the driver directory: its first 15 characters. */
        String driverThreadName()
        {
            for (final String line : output)
            {
                final int at = line.indexOf("mediaDriverDir=");
                if (line.startsWith("fanout: running") && at > 0)
                {
                    final String directory = line.substring(at + "mediaDriverDir=".length());
                    return directory.substring(0, Math.min(15, directory.length()));
                }
            }
            fail("no running line in " + output);
            return null;
        }

        /** Names (15 characters, as the kernel keeps them) of the threads whose name contains the text. */
        List<String> threadsNamed(final String text)
        {
            final List<String> names = new ArrayList<>();
            for (final TaskCpus task : tasks)
            {
                if (task.name().contains(text))
                {
                    names.add(task.name());
                }
            }
            return names;
        }

        CpuSet cpusOfThreadNamed(final String name)
        {
            for (final TaskCpus task : tasks)
            {
                if (task.name().equals(name))
                {
                    return task.cpus();
                }
            }
            fail("no thread named " + name + " in " + tasks);
            return null;
        }
    }

    /**
     * Start a fanout restricted to the given CPUs, wait until it runs, check every thread's affinity against
     * the pinning lines it printed (threads that did not print one must have the whole set), stop it.
     */
    private Run runUntilRunning(final CpuSet cpus, final int partitions, final String... extraArgs)
        throws Exception
    {
        final List<PartitionRings.MappedRing> rings = new ArrayList<>();
        final Path outputFile = ringDirectory.resolve("fanout.out");
        Process process = null;
        try
        {
            for (int partition = 0; partition < partitions; partition++)
            {
                rings.add(PartitionRings.create(ringDirectory, partition, 64 * 1024));
            }
            final List<String> command = new ArrayList<>(List.of(
                "taskset", "-c", cpus.toString(),
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"),
                FanoutCommand.class.getName(),
                "--ring-dir", ringDirectory.toString(), "--partitions", Integer.toString(partitions),
                "--channel", CHANNEL, "--term-length-bytes", "1048576", "--stats-interval-s", "0"));
            command.addAll(List.of(extraArgs));
            process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(outputFile.toFile())
                .start();
            final List<String> output = awaitLine(outputFile, "fanout: running", process);
            final List<TaskCpus> tasks = TaskCpus.of(process.pid());

            final List<Long> pinnedTids = new ArrayList<>();
            for (final String line : output)
            {
                final Matcher pinned = PINNED.matcher(line);
                if (pinned.matches())
                {
                    final long tid = Long.parseLong(pinned.group(2));
                    pinnedTids.add(tid);
                    assertEquals(CpuSet.of(Integer.parseInt(pinned.group(3))), cpusOf(tasks, tid), line);
                }
            }
            for (final TaskCpus task : tasks)
            {
                if (!pinnedTids.contains(task.tid()))
                {
                    assertEquals(cpus, task.cpus(), "unpinned thread " + task);
                }
            }

            process.destroy(); // SIGTERM
            assertTrue(process.waitFor(20, TimeUnit.SECONDS), "stopped after SIGTERM");
            final List<String> finalOutput = Files.readAllLines(outputFile);
            assertTrue(finalOutput.contains("fanout: stopped"), String.join("\n", finalOutput));
            return new Run(finalOutput, tasks);
        }
        finally
        {
            if (null != process)
            {
                process.destroyForcibly();
            }
            CloseHelper.closeAll(rings);
        }
    }

    private static CpuSet cpusOf(final List<TaskCpus> tasks, final long tid)
    {
        for (final TaskCpus task : tasks)
        {
            if (task.tid() == tid)
            {
                return task.cpus();
            }
        }
        fail("no thread " + tid + " in " + tasks);
        return null;
    }

    /** The first two CPUs this JVM may use: what a 2-CPU container or this 2-core machine gives. */
    private static CpuSet twoAllowedCpus()
    {
        assumeTrue(new File("/usr/bin/taskset").canExecute() || new File("/bin/taskset").canExecute(),
            "taskset (util-linux) is needed to restrict the child process");
        final CpuSet allowed = ThreadAffinity.processAllowedCpus();
        assumeTrue(allowed.size() >= 2, "needs two CPUs, has " + allowed);
        return CpuSet.of(allowed.cpu(0), allowed.cpu(1));
    }

    private int execute(final String... args)
    {
        final CommandLine commandLine = new CommandLine(new FanoutCommand());
        commandLine.setErr(new PrintWriter(new StringWriter(), true));
        commandLine.setOut(new PrintWriter(new StringWriter(), true));
        return commandLine.execute(args);
    }

    private static List<String> awaitLine(final Path outputFile, final String prefix, final Process process)
        throws Exception
    {
        List<String> output = List.of();
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadlineNs)
        {
            output = Files.readAllLines(outputFile);
            if (output.stream().anyMatch((line) -> line.startsWith(prefix)))
            {
                return output;
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
