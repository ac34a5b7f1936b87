package io.mdfanout.feed.sim;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code simulator}: an exchange that sends a generated NASDAQ TotalView-ITCH 5.0 session as MoldUDP64 over UDP
 * multicast, paced to a rate with optional bursts, and/or writes it to a NASDAQ binary ITCH file.
 * <p>
 * Exit codes: 0 done, 1 I/O failure, 2 bad configuration. Stops cleanly on SIGINT/SIGTERM: the packet in progress
 * is flushed, the end-of-session packet is sent and everything is closed.
 */
@Command(
    name = "simulator",
    mixinStandardHelpOptions = true,
    showDefaultValues = true,
    description = "Exchange simulator: sends a generated ITCH 5.0 session as MoldUDP64 over UDP multicast "
        + "and/or writes it to a NASDAQ binary ITCH file.")
public final class SimulatorCommand implements Callable<Integer>
{
    /** Exit code of a bad configuration. */
    public static final int EXIT_CONFIG = 2;
    /** Exit code of an I/O failure. */
    public static final int EXIT_IO = 1;

    @Option(names = "--group", description = "IPv4 multicast group to send to.")
    String group = "239.1.1.1";

    @Option(names = "--port", description = "UDP port.")
    int port = 26400;

    @Option(names = "--interface", description = "IP address of the interface to send through.")
    String interfaceAddress = "127.0.0.1";

    @Option(names = "--ttl", description = "Multicast TTL (0 = this host only).")
    int ttl = 1;

    @Option(names = "--session", description = "MoldUDP64 session name, up to 10 ASCII characters.")
    String session = "MDFSIM0001";

    @Option(names = "--seed", description = "Random seed: the same seed and options give the same session.")
    long seed = 1;

    @Option(names = "--symbols", description = "Number of symbols (stock locates 1..N).")
    int symbols = 100;

    @Option(names = "--messages", description = "Messages in the session, ending with S 'C'; 0 = endless until "
        + "stopped (then only the end-of-session packet is sent).")
    long messages = 0;

    @Option(names = "--rate", description = "Target rate in messages/s; 0 = as fast as possible.")
    long rate = 100_000;

    @Option(names = "--burst-rate", description = "Rate in messages/s during bursts; 0 = no bursts.")
    long burstRate = 0;

    @Option(names = "--burst-duration-ms", description = "Length of each burst.")
    long burstDurationMs = 100;

    @Option(names = "--burst-every-ms", description = "Period of the bursts (start to start).")
    long burstEveryMs = 1_000;

    @Option(names = "--max-packet-bytes", description = "Largest MoldUDP64 packet (UDP payload).")
    int maxPacketBytes = MoldUdp64Packetizer.DEFAULT_MAX_PACKET_BYTES;

    @Option(names = "--heartbeat-interval-ms", description = "Idle time before a MoldUDP64 heartbeat.")
    long heartbeatIntervalMs = 1_000;

    @Option(names = "--start-delay-ms", description = "Wait this long (sending heartbeats) before the first "
        + "message, so subscribers can join first.")
    long startDelayMs = 0;

    @Option(names = "--itch-file", description = "Also write the session to this NASDAQ binary ITCH file "
        + "(gzip when it ends in .gz).")
    Path itchFile;

    @Option(names = "--no-send", description = "Do not send; only write --itch-file, as fast as possible.")
    boolean noSend;

    @Option(names = "--stats-interval-s", description = "Print a one-line stats summary to stderr this often; 0 = off.")
    long statsIntervalS = 5;

    private final PrintStream out = System.out;
    private final PrintStream err = System.err;
    private volatile boolean running = true;

    /**
     * Runs the simulator; for ad-hoc use (the mdfanout CLI registers the command itself).
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new SimulatorCommand()).execute(args));
    }

    /**
     * Runs the command.
     *
     * @return the exit code.
     */
    public Integer call()
    {
        final SessionConfig config = new SessionConfig().symbols(symbols).messageCount(messages);
        try
        {
            config.validate();
            validate();
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("simulator: " + ex.getMessage());
            return EXIT_CONFIG;
        }

        final CountDownLatch stopped = new CountDownLatch(1);
        final Thread hook = new Thread(() ->
        {
            running = false;
            try
            {
                stopped.await(5, TimeUnit.SECONDS);
            }
            catch (final InterruptedException ignore)
            {
                Thread.currentThread().interrupt();
            }
        }, "simulator-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);

        try (SimulatorCounters counters = SimulatorCounters.create())
        {
            return noSend ? writeOnly(config) : send(config, counters);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("simulator: " + ex.getMessage());
            return EXIT_CONFIG;
        }
        catch (final IOException ex)
        {
            err.println("simulator: I/O error: " + ex);
            return EXIT_IO;
        }
        finally
        {
            stopped.countDown();
            try
            {
                Runtime.getRuntime().removeShutdownHook(hook);
            }
            catch (final IllegalStateException ignore)
            {
                // Already shutting down: the hook is running and waits on the latch released above.
            }
        }
    }

    private void validate()
    {
        MoldUdp64Packetizer.validateSession(session);
        if (noSend && null == itchFile)
        {
            throw new IllegalArgumentException("--no-send needs --itch-file");
        }
        if (noSend && 0 == messages)
        {
            throw new IllegalArgumentException("--no-send needs a finite --messages");
        }
        if (startDelayMs < 0 || statsIntervalS < 0 || heartbeatIntervalMs <= 0)
        {
            throw new IllegalArgumentException(
                "--start-delay-ms and --stats-interval-s must be >= 0, --heartbeat-interval-ms > 0");
        }
        // Let the pacer check the rate options now, before anything is opened.
        new RatePacer(rate, burstRate, TimeUnit.MILLISECONDS.toNanos(burstDurationMs),
            TimeUnit.MILLISECONDS.toNanos(burstEveryMs), 0);
    }

    private int writeOnly(final SessionConfig config) throws IOException
    {
        final long startNs = System.nanoTime();
        final SessionGenerator generator = new SessionGenerator(seed, config);
        final ItchEvent event = new ItchEvent();
        try (ItchFileWriter writer = new ItchFileWriter(itchFile))
        {
            while (running && generator.next(event))
            {
                writer.write(event);
            }
        }
        final double elapsedS = (System.nanoTime() - startNs) / 1e9;
        out.printf(Locale.ROOT, "simulator: wrote %d messages to %s in %.3f s (%.0f msg/s)%n",
            generator.emitted(), itchFile, elapsedS, generator.emitted() / Math.max(elapsedS, 1e-9));
        return 0;
    }

    private int send(final SessionConfig config, final SimulatorCounters counters) throws IOException
    {
        final NanoClock clock = SystemNanoClock.INSTANCE;
        final IdleStrategy idle = new BackoffIdleStrategy(
            10, 20, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MICROSECONDS.toNanos(100));
        final SessionGenerator generator = new SessionGenerator(seed, config);

        try (MulticastSender sender = new MulticastSender(group, port, interfaceAddress, ttl, maxPacketBytes, counters);
            ItchFileWriter writer = null == itchFile ? null : new ItchFileWriter(itchFile))
        {
            final MoldUdp64Packetizer packetizer = new MoldUdp64Packetizer(
                session, maxPacketBytes, TimeUnit.MILLISECONDS.toNanos(heartbeatIntervalMs), clock, sender, counters);

            final long delayEndNs = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(startDelayMs);
            while (running && clock.nanoTime() < delayEndNs)
            {
                packetizer.heartbeatIfIdle();
                idle.idle(0);
            }

            final long startNs = clock.nanoTime();
            final RatePacer pacer = new RatePacer(rate, burstRate, TimeUnit.MILLISECONDS.toNanos(burstDurationMs),
                TimeUnit.MILLISECONDS.toNanos(burstEveryMs), startNs);
            final Simulator simulator = new Simulator(generator, packetizer, pacer, clock, writer, counters);
            final long statsIntervalNs = TimeUnit.SECONDS.toNanos(statsIntervalS);
            long nextStatsNs = startNs + statsIntervalNs;
            long lastStatsMessages = 0;

            while (running && !simulator.isDone())
            {
                idle.idle(simulator.doWork());
                if (statsIntervalNs > 0)
                {
                    final long nowNs = clock.nanoTime();
                    if (nowNs >= nextStatsNs)
                    {
                        final long sent = counters.messagesSent().get();
                        printStats(counters, (sent - lastStatsMessages) / (double)statsIntervalS);
                        lastStatsMessages = sent;
                        nextStatsNs = nowNs + statsIntervalNs;
                    }
                }
            }
            simulator.finish();

            final double elapsedS = (clock.nanoTime() - startNs) / 1e9;
            out.printf(Locale.ROOT,
                "simulator: done: messages=%d packets=%d heartbeats=%d bytes=%d sendErrors=%d elapsed=%.3fs "
                    + "rate=%.0f msg/s%n",
                counters.messagesSent().get(), counters.packetsSent().get(), counters.heartbeatsSent().get(),
                counters.bytesSent().get(), counters.sendErrors().get(), elapsedS,
                counters.messagesSent().get() / Math.max(elapsedS, 1e-9));
            if (null != simulator.fileError())
            {
                err.println("simulator: ITCH file output stopped: " + simulator.fileError());
                return EXIT_IO;
            }
            return 0;
        }
    }

    private void printStats(final SimulatorCounters counters, final double rate)
    {
        err.printf(Locale.ROOT, "simulator: messages=%d packets=%d heartbeats=%d bytes=%d sendErrors=%d rate=%.0f msg/s%n",
            counters.messagesSent().get(), counters.packetsSent().get(), counters.heartbeatsSent().get(),
            counters.bytesSent().get(), counters.sendErrors().get(), rate);
    }
}
