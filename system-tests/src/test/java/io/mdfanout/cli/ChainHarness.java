package io.mdfanout.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Starts the roles of one chain as separate processes (through {@link ChainProcess}) with the
 * addresses of one test, and takes them all down again: in reverse order with SIGTERM, printing
 * every log when the test did not pass, and removing the ring files.
 */
final class ChainHarness implements AutoCloseable
{
    private final Path dir;
    private static final java.util.regex.Pattern SIMULATOR_PROGRESS =
        java.util.regex.Pattern.compile("simulator: messages=(\\d+)");
    private static final java.util.regex.Pattern FANOUT_CHAIN = java.util.regex.Pattern.compile(" chain=(\\d+) ");

    private final Path ringDir;
    private final int partitions;
    private final String channel;
    private final String streamIdBase;
    private final List<ChainProcess> processes = new ArrayList<>();
    private boolean passed;
    private String fanoutStatsIntervalS = "5";

    ChainHarness(final Path dir, final String name, final int partitions, final String channel, final int streamIdBase)
    {
        this.dir = dir;
        this.ringDir = Path.of("/dev/shm", "mdfanout-" + name + "-" + ProcessHandle.current().pid());
        this.partitions = partitions;
        this.channel = channel;
        this.streamIdBase = Integer.toString(streamIdBase);
    }

    Path ringDir()
    {
        return ringDir;
    }

    /** @return where the chain's processes keep their logs and files. */
    Path dir()
    {
        return dir;
    }

    int partitions()
    {
        return partitions;
    }

    String channel()
    {
        return channel;
    }

    String streamIdBase()
    {
        return streamIdBase;
    }

    /** How often this chain's fanouts print their stats line (5 s; a test that waits on the line may ask for 1). */
    ChainHarness fanoutStatsInterval(final int seconds)
    {
        fanoutStatsIntervalS = Integer.toString(seconds);
        return this;
    }

    /** The feed handler writing this chain's rings, with the given feed options (--group, --port, ...). */
    ChainProcess feedHandler(final String... feedArgs) throws IOException
    {
        return start("feed-handler", concat(new String[] {"feed-handler",
            "--ring-dir", ringDir.toString(), "--partitions", Integer.toString(partitions), "--stats-interval-s", "2"},
            feedArgs));
    }

    /** A replay of a file into this chain's rings. */
    ChainProcess replay(final String name, final String... replayArgs) throws IOException
    {
        return start(name, concat(new String[] {"replay",
            "--ring-dir", ringDir.toString(), "--partitions", Integer.toString(partitions), "--stats-interval-s", "0"},
            replayArgs));
    }

    ChainProcess fanout(final String... fanoutArgs) throws IOException
    {
        return namedFanout("fanout", fanoutArgs);
    }

    /** A fanout under a log name of its own (a restarted fanout), with extra options (snapshot settings). */
    ChainProcess namedFanout(final String name, final String... fanoutArgs) throws IOException
    {
        return namedFanout(name, List.of(), fanoutArgs);
    }

    /** A fanout under a log name of its own, with extra JVM options (Aeron's timeouts) and options. */
    ChainProcess namedFanout(final String name, final List<String> jvmArgs, final String... fanoutArgs)
        throws IOException
    {
        final ChainProcess process = ChainProcess.start(name, dir, jvmArgs, concat(new String[] {"fanout",
            "--ring-dir", ringDir.toString(), "--partitions", Integer.toString(partitions), "--channel", channel,
            "--stream-id-base", streamIdBase, "--stats-interval-s", fanoutStatsIntervalS}, fanoutArgs));
        processes.add(process);
        return process;
    }

    /** Subscriber processes recording everything until END_OF_MESSAGES; returns once all have joined. */
    List<ChainProcess> recorders(final int count) throws IOException, InterruptedException
    {
        return recorders(1, count, List.of());
    }

    /**
     * Subscribers {@code first .. first + count - 1}, started at once, each with the given extra JVM
     * options; returns once all have joined.
     */
    List<ChainProcess> recorders(final int first, final int count, final List<String> jvmArgs)
        throws IOException, InterruptedException
    {
        return recorders(first, count, jvmArgs, new String[0]);
    }

    /** As {@link #recorders(int, int, List)}, with extra {@code record} options (e.g. {@code --sessions 3}). */
    List<ChainProcess> recorders(final int first, final int count, final List<String> jvmArgs, final String... extra)
        throws IOException, InterruptedException
    {
        final List<ChainProcess> recorders = new ArrayList<>();
        for (int i = first; i < first + count; i++)
        {
            final ChainProcess process = ChainProcess.start("subscriber-" + i, dir, jvmArgs, concat(new String[] {
                "record",
                "--channel", channel, "--stream-id-base", streamIdBase, "--partitions", Integer.toString(partitions),
                "--out", recording(i).toString(), "--books-out", books(i).toString(),
                "--coverage-out", ExpectedStreams.coverageFile(recording(i)).toString(),
                "--ready-file", dir.resolve("subscriber-" + i + ".ready").toString(),
                "--until-end-of-messages", "--timeout-s", "600"}, extra));
            processes.add(process);
            recorders.add(process);
        }
        for (int i = first; i < first + count; i++)
        {
            awaitFile(dir.resolve("subscriber-" + i + ".ready"), 120);
        }
        return recorders;
    }

    ChainProcess simulator(final String... simulatorArgs) throws IOException
    {
        return start("simulator", concat(new String[] {"simulator", "--stats-interval-s", "2"}, simulatorArgs));
    }

    Path recording(final int subscriber)
    {
        return dir.resolve("subscriber-" + subscriber + ".bin");
    }

    Path books(final int subscriber)
    {
        return dir.resolve("subscriber-" + subscriber + ".books");
    }

    /** Mark the test as passed, so that closing does not print the logs. */
    void passed()
    {
        passed = true;
    }

    ChainProcess start(final String name, final String... args) throws IOException
    {
        final ChainProcess process = ChainProcess.start(name, dir, args);
        processes.add(process);
        return process;
    }

    /**
     * A role started under a command prefix that execs it ({@code ip netns exec NS}: the role on another
     * "host"), with extra JVM options; taken down with the others.
     */
    ChainProcess start(final String name, final List<String> prefix, final List<String> jvmArgs, final String... args)
        throws IOException
    {
        final ChainProcess process = ChainProcess.start(name, dir, prefix, jvmArgs, args);
        processes.add(process);
        return process;
    }

    /** Wait for a file a role writes (a subscriber's ready file), failing early when any role has exited. */
    void awaitFile(final Path file, final int timeoutSeconds) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (!Files.exists(file))
        {
            for (final ChainProcess process : processes)
            {
                if (!process.isAlive())
                {
                    fail(process.name() + " exited early");
                }
            }
            if (System.nanoTime() > deadline)
            {
                fail("timed out waiting for " + file);
            }
            Thread.sleep(50);
        }
    }

    /**
     * Stop every role still running (SIGTERM, in reverse order) and remove the rings. A role stopped here must exit
     * 0, as the docs promise (a subscriber with data loss to report exits on its own, before this): the test fails
     * otherwise, after everything was taken down.
     */
    public void close() throws Exception
    {
        final List<String> unclean = new ArrayList<>();
        for (int i = processes.size() - 1; i >= 0; i--)
        {
            final ChainProcess process = processes.get(i);
            if (process.isAlive())
            {
                final int exitCode = process.stop();
                if (0 != exitCode)
                {
                    unclean.add(process.name() + " exited " + exitCode);
                }
            }
        }
        if (!passed || !unclean.isEmpty())
        {
            processes.forEach(process -> System.err.println(process.logTail()));
        }
        if (Files.exists(ringDir))
        {
            try (Stream<Path> paths = Files.walk(ringDir))
            {
                paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
        if (passed && !unclean.isEmpty())
        {
            fail("after SIGTERM, every role exits 0: " + unclean);
        }
    }

    /** Wait until the simulator's progress line says it sent at least {@code messages} (3 minutes at most). */
    /** @return the messages the simulator's last progress line says it sent, 0 before its first. */
    static long simulatorProgress(final ChainProcess simulator) throws IOException
    {
        final java.util.regex.Matcher progress =
            SIMULATOR_PROGRESS.matcher(simulator.lastLineContaining("simulator: messages="));
        return progress.find() ? Long.parseLong(progress.group(1)) : 0;
    }

    /**
     * Wait until a (restarted) fanout has caught up with the exchange: its stats line's chain (the highest exchange
     * sequence it sent, see {@link #fanoutStatsInterval}) reaches the simulator's progress (its last message's exchange
     * sequence) as last reported, read again at every check. A side that is still recovering (its feed handler filling
     * an outage by re-requests slower than the exchange sends, its live messages held) never reaches it, so a fault on
     * the other side cannot follow while this side lags: a target taken once, when the wait began, let a side that
     * passed it still be seconds behind the exchange (a chaos run killed side A's fanout then, and both sides lacked
     * the same span for longer than the arbitration wait). Live, the fanout's line (every second) passes the
     * simulator's (every two) within a second.
     */
    static void awaitCaughtUp(final ChainProcess fanout, final ChainProcess simulator)
        throws IOException, InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (true)
        {
            final long target = simulatorProgress(simulator);
            final java.util.regex.Matcher chain = FANOUT_CHAIN.matcher(fanout.lastLineContaining("fanout stats: read="));
            final long sent = chain.find() ? Long.parseLong(chain.group(1)) : 0;
            if (sent >= target && target > 0)
            {
                return;
            }
            assertTrue(fanout.isAlive(), fanout.name() + " runs");
            assertTrue(System.nanoTime() < deadline, fanout.name() + " did not catch up with the exchange: sent through " +
                sent + ", the exchange at " + target);
            Thread.sleep(100);
        }
    }

    static void awaitSimulatorProgress(final ChainProcess simulator, final long messages)
        throws IOException, InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (System.nanoTime() < deadline)
        {
            if (simulatorProgress(simulator) >= messages)
            {
                return;
            }
            if (!simulator.isAlive())
            {
                fail("the simulator ended before sending " + messages + " messages");
            }
            Thread.sleep(20);
        }
        fail("the simulator did not reach " + messages + " messages");
    }

    /**
     * Ends a simulator whose session is over, as its subscribers' ends (End of Messages on every partition) show. With
     * a re-request or GLIMPSE server it lingers after the session for late requests (restarted by each), so waiting
     * for its exit would wait out the linger for nothing; SIGTERM ends the linger, and it exits 0 with its summary.
     */
    static void endLingeringSimulator(final ChainProcess simulator) throws IOException, InterruptedException
    {
        assertEquals(0, simulator.stop(), "the simulator stopped on SIGTERM after its session: " + simulator.logTail());
        assertFalse(simulator.lastLineContaining("simulator: done:").isEmpty(),
            "the simulator printed its summary: " + simulator.logTail());
    }

    private static String[] concat(final String[] first, final String[] second)
    {
        final String[] all = java.util.Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        return all;
    }
}
