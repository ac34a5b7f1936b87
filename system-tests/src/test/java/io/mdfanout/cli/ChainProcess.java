package io.mdfanout.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * One role of the chain (simulator, feed handler, fanout, subscriber) running as a real,
 * separate JVM through the same entry point users run, with its output kept in a log file.
 */
final class ChainProcess implements AutoCloseable
{
    private final String name;
    private final Process process;
    private final Path log;

    private ChainProcess(final String name, final Process process, final Path log)
    {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    static ChainProcess start(final String name, final Path logDir, final String... args) throws IOException
    {
        return start(name, logDir, List.of(), args);
    }

    /** Start a role with extra JVM options (system properties such as Aeron's loss generator). */
    static ChainProcess start(final String name, final Path logDir, final List<String> jvmArgs, final String... args)
        throws IOException
    {
        return start(name, logDir, List.of(), jvmArgs, args);
    }

    /**
     * Start a role under a command prefix that execs it, such as {@code ip netns exec NS} (the role on
     * another "host", {@link TwoHostTest}): the process is still the role's JVM, so stopping it works as
     * for any other.
     */
    static ChainProcess start(
        final String name, final Path logDir, final List<String> prefix, final List<String> jvmArgs, final String... args)
        throws IOException
    {
        final List<String> command = new ArrayList<>(prefix);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--add-opens");
        command.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        command.add("--add-opens");
        command.add("java.base/sun.nio.ch=ALL-UNNAMED");
        command.add("--add-opens");
        command.add("java.base/java.nio=ALL-UNNAMED");
        command.add("-Xms128m");
        command.add("-Xmx512m");
        command.add("-XX:+UseParallelGC");
        command.add("-XX:TieredStopAtLevel=4");
        command.add("-Daeron.print.configuration=false");
        final String role = args.length > 0 ? args[0] : "";
        final List<String> sharing = SharedClassArchives.options(role);
        command.addAll(sharing);
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(SharedClassArchives.classPath());
        command.add(Main.class.getName());
        command.addAll(List.of(args));

        final Path log = logDir.resolve(name + ".log");
        final Process process = new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
        SharedClassArchives.started(role, sharing, process);
        return new ChainProcess(name, process, log);
    }

    /** Any other program (a Prometheus server) with its output in the same kind of log file. */
    static ChainProcess startCommand(final String name, final Path logDir, final List<String> command) throws IOException
    {
        final Path log = logDir.resolve(name + ".log");
        final Process process = new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
        return new ChainProcess(name, process, log);
    }

    String name()
    {
        return name;
    }

    boolean isAlive()
    {
        return process.isAlive();
    }

    /** Wait for the process to exit on its own; -1 if it did not within the timeout. */
    int waitFor(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        return process.waitFor(timeout, unit) ? process.exitValue() : -1;
    }

    long pid()
    {
        return process.pid();
    }

    /** SIGKILL: the process gets no chance to clean up, as after a crash or an OOM kill. */
    void kill9() throws InterruptedException
    {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** Send a signal by name (STOP, CONT) with kill(1): the JDK can only send TERM and KILL. */
    void signal(final String signal) throws IOException, InterruptedException
    {
        final Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0)
        {
            throw new IOException("kill -" + signal + " " + process.pid() + " failed");
        }
    }

    /** Every line of the log that contains {@code text}, in order. */
    List<String> linesContaining(final String text) throws IOException
    {
        final List<String> matches = new ArrayList<>();
        for (final String line : Files.readAllLines(log, StandardCharsets.UTF_8))
        {
            if (line.contains(text))
            {
                matches.add(line);
            }
        }
        return matches;
    }

    /** SIGTERM, as Kubernetes and the demo stop a role, then wait for the clean exit. */
    int stop() throws InterruptedException
    {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS))
        {
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            return -1;
        }
        return process.exitValue();
    }

    /** The last line of the log that contains {@code text}, or an empty string. */
    String lastLineContaining(final String text) throws IOException
    {
        final List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        for (int i = lines.size() - 1; i >= 0; i--)
        {
            if (lines.get(i).contains(text))
            {
                return lines.get(i);
            }
        }
        return "";
    }

    /** Waits (60 s at most, while the process lives) until a line of its log contains {@code text}. */
    void awaitLine(final String text) throws IOException, InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (lastLineContaining(text).isEmpty())
        {
            if (!isAlive() || System.nanoTime() > deadline)
            {
                fail(name + " did not log '" + text + "': " + logTail());
            }
            Thread.sleep(50);
        }
    }

    String logTail()
    {
        try
        {
            final List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return "---- " + name + " (" + log + ") ----\n" +
                String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        }
        catch (final IOException ex)
        {
            return "---- " + name + ": no log (" + ex + ")";
        }
    }

    public void close()
    {
        if (process.isAlive())
        {
            process.destroyForcibly();
        }
    }
}
