package io.mdfanout.feed.handler;

import io.mdfanout.affinity.CpuSet;
import io.mdfanout.affinity.TaskCpus;
import io.mdfanout.affinity.ThreadAffinity;
import io.mdfanout.wire.ExitCodes;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * CPU pinning of the feed handler's receive thread, checked from outside: a real feed-handler
 * process, and the affinity of each of its threads read back from {@code /proc/<pid>/task/<tid>/status}.
 */
final class FeedHandlerAffinityTest
{
    /** Agrona names the agent's thread after its role. */
    private static final String RECEIVE_THREAD_NAME = "feed-handler";
    private static final String GROUP = "239.255.47.11";

    @TempDir
    Path dir;

    @Test
    void explicitCpuPinsTheReceiveThreadAndNothingElse() throws Exception
    {
        final CpuSet allowed = ThreadAffinity.processAllowedCpus();
        final int cpu = allowed.cpu(allowed.size() - 1); // CPU 1 on this 2-CPU machine
        final Run run = start(null, 47011, "--cpus", Integer.toString(cpu));
        try
        {
            final String pinned = run.awaitLine("feed-handler: pinned ");
            final TaskCpus receive = run.awaitThread(RECEIVE_THREAD_NAME);
            assertEquals("feed-handler: pinned feed-receive (tid " + receive.tid() + ") to CPU " + cpu, pinned);
            assertEquals(CpuSet.of(cpu), receive.cpus(), "read back from the kernel");
            assertTrue(run.output().contains("feed-handler: cpu pinning: feed-receive->" + cpu + "; JVM and OS on " +
                allowed.minus(CpuSet.of(cpu)) + " (allowed " + allowed + ", --cpus " + cpu + ")"),
                String.join("\n", run.output()));
            for (final TaskCpus task : TaskCpus.of(run.process.pid()))
            {
                if (task.tid() != receive.tid())
                {
                    assertEquals(allowed, task.cpus(), "not pinned: " + task);
                }
            }
        }
        finally
        {
            run.stop();
        }
    }

    @Test
    void autoOnOneCpuOfItsOwnPinsTheReceiveThreadThereAndBacksOff() throws Exception
    {
        // As a container given one whole CPU by the static CPU manager: that CPU is the process's own.
        assumeTrue(new File("/usr/bin/taskset").canExecute() || new File("/bin/taskset").canExecute(),
            "taskset (util-linux) is needed to restrict the child process");
        final CpuSet oneCpu = CpuSet.of(ThreadAffinity.processAllowedCpus().cpu(0));
        assumeTrue(!oneCpu.equals(ThreadAffinity.onlineCpus()), "a machine of more than one CPU");
        final Run run = start(oneCpu, 47013, "--cpus", "auto", "--idle-strategy", "busy-spin");
        try
        {
            final String pinned = run.awaitLine("feed-handler: pinned ");
            final TaskCpus receive = run.awaitThread(RECEIVE_THREAD_NAME);
            assertEquals("feed-handler: pinned feed-receive (tid " + receive.tid() + ") to CPU " + oneCpu, pinned);
            assertEquals(oneCpu, receive.cpus(), "read back from the kernel");
            assertTrue(run.output().contains("feed-handler: cpu pinning: feed-receive->" + oneCpu + "; JVM and OS on " +
                "the same CPUs (no CPU to spare: the busy threads back off when idle) (allowed " + oneCpu +
                ", --cpus auto)"), String.join("\n", run.output()));
            assertTrue(run.output().stream().anyMatch((line) -> line.equals(
                "feed-handler: idle strategy backoff (busy-spin asked; the receive thread shares its CPU)")),
                "busy-spin asked, backoff run: " + String.join("\n", run.output()));
        }
        finally
        {
            run.stop();
        }
    }

    @Test
    void autoOnEveryCpuOfTheMachinePinsNothing() throws Exception
    {
        final CpuSet allowed = ThreadAffinity.processAllowedCpus();
        assumeTrue(allowed.equals(ThreadAffinity.onlineCpus()), "this process has every online CPU (no cpuset)");
        final Run run = start(null, 47015);
        try
        {
            run.awaitThread(RECEIVE_THREAD_NAME);
            assertTrue(run.output().contains("feed-handler: cpu pinning off: the allowed set " + allowed + " is every " +
                "online CPU, not CPUs of this process's own (static CPU manager, cpuset or taskset), so other " +
                "processes would pin to the same ones; feed-receive run unpinned as configured; name CPUs with --cpus " +
                "to pin anyway (--cpus auto)"), String.join("\n", run.output()));
            assertNoThreadPinned(run, allowed);
        }
        finally
        {
            run.stop();
        }
    }

    @Test
    void cpusThatCannotBeParsedOrHonouredAreUsageOrConfigurationErrors()
    {
        assertEquals(ExitCodes.CONFIG, execute("--ring-dir", dir.toString(), "--group", GROUP, "--cpus", "1000"));
        assertEquals(ExitCodes.USAGE, execute("--ring-dir", dir.toString(), "--group", GROUP, "--cpus", "0-x"));
        assertEquals(ExitCodes.USAGE, execute("--ring-dir", dir.toString(), "--group", GROUP, "--cpus", ""));

        final StringWriter help = new StringWriter();
        final CommandLine commandLine = new CommandLine(new FeedHandlerCommand());
        commandLine.setOut(new PrintWriter(help, true));
        assertEquals(0, commandLine.execute("--help"));
        assertTrue(help.toString().contains("--cpus=<cpus>"), help.toString());
        assertTrue(help.toString().contains("Default: auto"), help.toString());
    }

    private static void assertNoThreadPinned(final Run run, final CpuSet allowed)
    {
        assertFalse(run.output().stream().anyMatch((line) -> line.startsWith("feed-handler: pinned")),
            String.join("\n", run.output()));
        for (final TaskCpus task : TaskCpus.of(run.process.pid()))
        {
            assertEquals(allowed, task.cpus(), "not pinned: " + task);
        }
    }

    private static int execute(final String... args)
    {
        final CommandLine commandLine = new CommandLine(new FeedHandlerCommand());
        commandLine.setErr(new PrintWriter(new StringWriter(), true));
        commandLine.setOut(new PrintWriter(new StringWriter(), true));
        return commandLine.execute(args);
    }

    private Run start(final CpuSet taskset, final int port, final String... extraArgs) throws Exception
    {
        final List<String> command = new ArrayList<>();
        if (null != taskset)
        {
            command.addAll(List.of("taskset", "-c", taskset.toString()));
        }
        command.addAll(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"),
            FeedHandlerCommand.class.getName(),
            "--ring-dir", dir.resolve("rings").toString(), "--partitions", "1", "--ring-capacity-bytes", "65536",
            "--group", GROUP, "--port", Integer.toString(port), "--interface", "127.0.0.1",
            "--stats-interval-s", "0"));
        command.addAll(List.of(extraArgs));
        final Path outputFile = dir.resolve("feed-handler-" + port + ".out");
        final Process process = new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(outputFile.toFile()) // a file, not a pipe: nothing lost when the process exits
            .start();
        return new Run(process, outputFile);
    }

    /** A feed-handler process and what it printed. */
    private static final class Run
    {
        final Process process;
        final Path outputFile;

        Run(final Process process, final Path outputFile)
        {
            this.process = process;
            this.outputFile = outputFile;
        }

        List<String> output()
        {
            try
            {
                return Files.readAllLines(outputFile);
            }
            catch (final java.io.IOException ex)
            {
                throw new IllegalStateException(ex);
            }
        }

        String awaitLine(final String prefix) throws InterruptedException
        {
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadlineNs && process.isAlive())
            {
                for (final String line : output())
                {
                    if (line.startsWith(prefix))
                    {
                        return line;
                    }
                }
                Thread.sleep(20);
            }
            fail("no line starting with '" + prefix + "' in " + output());
            return null;
        }

        /** Wait until the agent's thread runs (it is named when started), then read it from /proc. */
        TaskCpus awaitThread(final String name) throws InterruptedException
        {
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadlineNs && process.isAlive())
            {
                for (final TaskCpus task : TaskCpus.of(process.pid()))
                {
                    if (task.name().equals(name))
                    {
                        return task;
                    }
                }
                Thread.sleep(20);
            }
            fail("no thread named " + name + "; output " + output());
            return null;
        }

        void stop() throws InterruptedException
        {
            try
            {
                process.destroy(); // SIGTERM
                assertTrue(process.waitFor(20, TimeUnit.SECONDS), "stopped after SIGTERM");
                assertTrue(output().contains("feed-handler: stopping"), String.join("\n", output()));
            }
            finally
            {
                process.destroyForcibly();
            }
        }
    }
}
