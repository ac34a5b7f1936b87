package io.mdfanout.feed.sim;

import io.mdfanout.wire.Defaults;
import io.mdfanout.wire.ExitCodes;
import io.mdfanout.wire.IdleStrategyType;
import io.mdfanout.wire.PortCheck;
import io.mdfanout.wire.PreciseEpochNanoClock;
import io.mdfanout.wire.RoleErrorLog;
import io.mdfanout.wire.StopSignals;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code simulator}: an exchange that sends a generated NASDAQ TotalView-ITCH 5.0 session as MoldUDP64 over UDP
 * multicast, paced to a rate with optional bursts, and/or writes it to a NASDAQ binary ITCH file. With
 * {@code --from-itch-file} it sends the messages of an ITCH file instead (a session it wrote before, or a real
 * trading day), with everything else the same.
 * <p>
 * Like a real exchange it can send on two lines (A and B, every packet on both), each losing data packets by its own
 * deterministic {@link LossModel} (random, bursts, outages); serve MoldUDP64 retransmission requests from a bounded
 * history (and keep serving for {@code --linger-ms} after the end); serve NASDAQ GLIMPSE 5.0 snapshots of the live
 * session over SoupBinTCP ({@code --glimpse-port}, {@link GlimpseServer}); and record the session as generated, before
 * any loss, to a pcap capture.
 * <p>
 * Exit codes: 0 done, 1 I/O failure, 2 bad configuration. Stops cleanly on SIGINT/SIGTERM: the packet in progress
 * is flushed, the end-of-session packet is sent and everything is closed.
 */
@Command(
    name = "simulator",
    mixinStandardHelpOptions = true,
    showDefaultValues = true,
    description = "Exchange simulator: sends a generated ITCH 5.0 session (or the messages of an ITCH file) as "
        + "MoldUDP64 over UDP multicast on one or two lines with optional loss injection, serves retransmission "
        + "requests and GLIMPSE 5.0 snapshots, and/or writes the session to a NASDAQ binary ITCH file or a pcap "
        + "capture.")
public final class SimulatorCommand implements Callable<Integer>
{
    /** How often the end-of-session packet is repeated while the retransmission server lingers. */
    static final long END_OF_SESSION_REPEAT_NS = TimeUnit.MILLISECONDS.toNanos(100);

    /** Largest retransmission history: its slots (2 + 50 bytes a message) must fit one 2 GiB array. */
    public static final int MAX_HISTORY_MESSAGES = 40_000_000;
    /** Largest --coalesce-us: a tenth of a second, past which it is an outage rather than packing. */
    static final long MAX_COALESCE_US = 100_000;
    /** Default --glimpse-port: no GLIMPSE server. */
    public static final int DEFAULT_GLIMPSE_PORT = 0;

    @Option(names = "--group", description = "IPv4 multicast group to send to.")
    String group = Defaults.FEED_GROUP;

    @Option(names = "--port", description = "UDP port.")
    int port = Defaults.FEED_PORT;

    @Option(names = "--interface", description = "IP address of the interface to send through.")
    String interfaceAddress = Defaults.FEED_INTERFACE;

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

    @Option(names = "--warmup-messages", description = "Send the session's first messages at --warmup-rate, then "
        + "the rest at --rate: a benchmark's warm-up, while every process compiles its hot paths. The done line's "
        + "measuredRate covers the messages after it. 0 = no warm-up.")
    long warmupMessages = 0;

    @Option(names = "--warmup-rate", description = "Rate in messages/s of the --warmup-messages; 0 = as fast as possible.")
    long warmupRate = 200_000;

    @Option(names = "--max-lag-ms", description = "The pacer's credit cap: a sender that fell behind catches up at "
        + "most this much of the schedule, and forgets the rest (with --latency-timestamps, the stall's cost beyond it "
        + "is not measured either). 0 = no cap: every message owed is sent, stamped with its scheduled time "
        + "(coordinated omission corrected without a limit, as a benchmark's outside view needs).")
    long maxLagMs = RatePacer.DEFAULT_MAX_CREDIT_WINDOW_NS / 1_000_000;

    @Option(names = "--burst-rate", description = "Rate in messages/s during bursts; 0 = no bursts.")
    long burstRate = 0;

    @Option(names = "--burst-duration-ms", description = "Length of each burst.")
    long burstDurationMs = 100;

    @Option(names = "--burst-every-ms", description = "Period of the bursts (start to start).")
    long burstEveryMs = 1_000;

    @Option(names = "--max-packet-bytes", description = "Largest MoldUDP64 packet (UDP payload).")
    int maxPacketBytes = MoldUdp64Packetizer.DEFAULT_MAX_PACKET_BYTES;

    @Option(names = "--coalesce-us", description = "Send due messages at most every this many microseconds, so that "
        + "they share packets as an exchange's packetizer under load fills them (a message waits at most this long; "
        + "its latency timestamp stays the time it was due). 0 = every duty cycle sends what is due at once, which "
        + "at high rates gives packets of a few messages. At most 100000.")
    long coalesceUs = 0;

    @Option(names = "--idle-strategy", description = "What the send loop does between messages: backoff (the " +
        "default), park (backoff without yields, for cores shared with busy threads), yield or busy-spin.")
    String idleStrategy = Defaults.IDLE_STRATEGY;

    @Option(names = "--heartbeat-interval-ms", description = "Idle time before a MoldUDP64 heartbeat.")
    long heartbeatIntervalMs = 1_000;

    @Option(names = "--start-delay-ms", description = "Wait this long (sending heartbeats) before the first "
        + "message, so subscribers can join first.")
    long startDelayMs = 0;

    @Option(names = "--itch-file", description = "Also write the session to this NASDAQ binary ITCH file "
        + "(gzip when it ends in .gz).")
    Path itchFile;

    @Option(names = "--from-itch-file", description = "Send the messages of this NASDAQ binary ITCH 5.0 file "
        + "(2-byte length + message; gzip detected) instead of a generated session: one this simulator wrote with "
        + "--itch-file, or a real trading day. --messages then sends only its first N (0: all); --rate, the "
        + "warm-up, --latency-timestamps (which replace the file's timestamps), lines, loss and retransmission "
        + "work as for a generated session. Not with --symbols or --itch-file.")
    Path fromItchFile;

    @Option(names = "--pre-encode", description = "Pack the whole session into MoldUDP64 packets before sending the "
        + "first, then send whole packets at the rate: nothing is encoded or packed per message while sending, so "
        + "the sender outruns what it feeds (a throughput benchmark's exchange). The session is held in memory "
        + "(about its ITCH size); packets are full (--max-packet-bytes). Not with --latency-timestamps or "
        + "--coalesce-us.")
    boolean preEncode;

    @Option(names = "--no-send", description = "Do not send; only write --itch-file and/or --pcap-file, as fast as "
        + "possible.")
    boolean noSend;

    @Option(names = "--stats-interval-s", description = "Print a one-line stats summary to stderr this often; 0 = off.")
    long statsIntervalS = 5;

    @Option(names = "--group-b", description = "Also send every packet on line B to this IPv4 multicast group "
        + "(absent: line A only).")
    String groupB;

    @Option(names = "--port-b", description = "UDP port of line B (default: --port).")
    Integer portB;

    @Option(names = "--interface-b", description = "IP address of the interface line B sends through "
        + "(default: --interface).")
    String interfaceB;

    @Option(names = "--loss-a", description = "Independent random loss on line A: fraction of data packets, 0..1.")
    double lossA = 0.0;

    @Option(names = "--loss-b", description = "Independent random loss on line B: fraction of data packets, 0..1.")
    double lossB = 0.0;

    @Option(names = "--burst-length-a", description = "Data packets lost by each loss burst on line A.")
    int burstLengthA = 0;

    @Option(names = "--burst-length-b", description = "Data packets lost by each loss burst on line B.")
    int burstLengthB = 0;

    @Option(names = "--burst-probability-a", description = "Probability, at each data packet, that a loss burst "
        + "of --burst-length-a packets starts on line A; 0..1.")
    double burstProbabilityA = 0.0;

    @Option(names = "--burst-probability-b", description = "Probability, at each data packet, that a loss burst "
        + "of --burst-length-b packets starts on line B; 0..1.")
    double burstProbabilityB = 0.0;

    @Option(names = "--drop-a", paramLabel = "FROM:COUNT", description = "Outage on line A: lose data packets "
        + "FROM..FROM+COUNT-1 (numbered from 1). Repeatable.")
    List<String> dropA = new ArrayList<>();

    @Option(names = "--drop-b", paramLabel = "FROM:COUNT", description = "Outage on line B: lose data packets "
        + "FROM..FROM+COUNT-1 (numbered from 1). Repeatable.")
    List<String> dropB = new ArrayList<>();

    @Option(names = "--loss-seed", description = "Seed of the loss models (default: --seed); the loss pattern is "
        + "a function of it.")
    Long lossSeed;

    @Option(names = "--retransmit-port", description = "Serve MoldUDP64 retransmission requests on this UDP port, "
        + "bound to --interface; 0 = no server.")
    int retransmitPort = 0;

    @Option(names = "--retransmit-history-messages", description = "Messages kept for retransmission "
        + "(the most recent ones).")
    int retransmitHistoryMessages = 2_000_000;

    @Option(names = "--retransmit-answer", description = "How the re-request server answers a request: "
        + "one-packet (as MoldUDP64 specifies: as many of the messages as fit one packet; the client asks again for "
        + "the rest) or all (every packet the request needs). Default: ${DEFAULT-VALUE}.")
    String retransmitAnswer = "one-packet";

    @Option(names = "--retransmit-rate", description = "Most messages the re-request server sends a second "
        + "(answers queue, at most " + RetransmissionServer.MAX_QUEUED_ANSWERS + "; 0 = no limit).")
    long retransmitRate = 0;

    @Option(names = "--retransmit-drop-percent", description = "Answer packets the re-request server loses on "
        + "purpose, 0..100 (a function of --loss-seed).")
    double retransmitDropPercent = 0;

    @Option(names = "--retransmit-silent-after", description = "Messages the re-request server serves before it "
        + "falls silent for good (0 = never): an exchange that stops answering.")
    long retransmitSilentAfter = 0;

    @Option(names = "--linger-ms", description = "With a retransmission or GLIMPSE server: keep serving requests after "
        + "the end of the session until none has come for this long and no answer waits.")
    long lingerMs = 2_000;

    @Option(names = "--glimpse-port", description = "Serve NASDAQ GLIMPSE 5.0 snapshots of the live session "
        + "(SoupBinTCP over TCP) on this port: the state after the messages sent so far, then End of Snapshot with "
        + "the MoldUDP64 sequence number of the next message; 0 = no server.")
    int glimpsePort = DEFAULT_GLIMPSE_PORT;

    @Option(names = "--glimpse-interface", description = "IP address the GLIMPSE server listens on "
        + "(default: --interface; 0.0.0.0 for every interface).")
    String glimpseInterface;

    @Option(names = "--glimpse-username", description = "Username a GLIMPSE client must log in with, up to 6 "
        + "characters (default: any).")
    String glimpseUsername;

    @Option(names = "--glimpse-password", description = "Password a GLIMPSE client must log in with, up to 10 "
        + "characters (default: any).")
    String glimpsePassword;

    @Option(names = "--pcap-file", description = "Write every packet of the session as generated (before any loss), "
        + "with heartbeats and end of session, to this classic pcap file (Ethernet/IPv4/UDP to line A).")
    Path pcapFile;

    @Option(names = "--latency-timestamps", hidden = true, // benchmark-only: docs/BENCHMARKS.md
        description = "Latency measurement: stamp every message's ITCH "
        + "timestamp with the wall-clock time (ns since midnight UTC) at which the rate pacer scheduled it to be "
        + "sent (intended, not actual: corrects for coordinated omission); off = the session's own timestamps.")
    boolean latencyTimestamps;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

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
            if (null == fromItchFile)
            {
                config.validate(); // a file's messages are what they are: --messages only limits them
            }
            validate();
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("simulator: " + ex.getMessage());
            return ExitCodes.CONFIG;
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
        // SIGTERM/SIGINT stop the session without a JVM shutdown: the simulator returns its own exit code (0).
        final StopSignals.Registration stopRegistration = StopSignals.onStop(() -> running = false);

        try (SimulatorCounters counters = SimulatorCounters.create())
        {
            return noSend ? writeOnly(config, counters) : send(config, counters);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("simulator: " + ex.getMessage());
            return ExitCodes.CONFIG;
        }
        catch (final IOException ex)
        {
            RoleErrorLog.open(RoleErrorLog.tempDirectory(), "simulator", null, err).record(ex);
            err.println("simulator: I/O error: " + ex);
            return ex instanceof NoSuchFileException ? ExitCodes.CONFIG : ExitCodes.FAILURE;
        }
        finally
        {
            stopRegistration.close();
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
        IdleStrategyType.parse(idleStrategy);
        if (noSend && null == itchFile && null == pcapFile)
        {
            throw new IllegalArgumentException("--no-send needs --itch-file or --pcap-file");
        }
        if (null != fromItchFile && null != itchFile)
        {
            throw new IllegalArgumentException("--itch-file writes a generated session; with --from-itch-file the " +
                "session is a file already (use --pcap-file to capture it as MoldUDP64 packets)");
        }
        if (null != fromItchFile && given("--symbols"))
        {
            throw new IllegalArgumentException("--symbols shapes a generated session; --from-itch-file sends the " +
                "file's own instruments");
        }
        if (messages < 0)
        {
            throw new IllegalArgumentException("--messages must be >= 0: " + messages);
        }
        if (noSend && 0 == messages && null == fromItchFile)
        {
            throw new IllegalArgumentException("--no-send needs a finite --messages");
        }
        if (warmupMessages < 0 || (messages > 0 && warmupMessages >= messages))
        {
            throw new IllegalArgumentException("--warmup-messages must be >= 0 and less than --messages: " + warmupMessages);
        }
        if (warmupMessages > 0 && 0 == rate && 0 == burstRate && 0 == warmupRate)
        {
            throw new IllegalArgumentException("--warmup-messages at an unlimited --warmup-rate and --rate is no warm-up");
        }
        RatePacer.steady(warmupRate, 0); // checks --warmup-rate
        if (coalesceUs < 0 || coalesceUs > MAX_COALESCE_US)
        {
            throw new IllegalArgumentException("--coalesce-us must be 0.." + MAX_COALESCE_US + ": " + coalesceUs);
        }
        if (preEncode && (noSend || latencyTimestamps || coalesceUs > 0))
        {
            throw new IllegalArgumentException("--pre-encode sends packets packed before the first: not with " +
                "--no-send, --latency-timestamps (stamped as each message is due) or --coalesce-us (packets are full)");
        }
        if (preEncode && 0 == messages && null == fromItchFile)
        {
            throw new IllegalArgumentException("--pre-encode holds the whole session in memory: it needs --messages " +
                "(or --from-itch-file), not an endless session");
        }
        if (noSend && coalesceUs > 0)
        {
            throw new IllegalArgumentException("--coalesce-us paces sending; with --no-send the session is written " +
                "as fast as possible, in full packets");
        }
        if (startDelayMs < 0 || statsIntervalS < 0 || heartbeatIntervalMs <= 0)
        {
            throw new IllegalArgumentException(
                "--start-delay-ms and --stats-interval-s must be >= 0, --heartbeat-interval-ms > 0");
        }
        if (null == groupB && (null != portB || null != interfaceB || 0.0 != lossB || 0 != burstLengthB ||
            0.0 != burstProbabilityB || !dropB.isEmpty()))
        {
            throw new IllegalArgumentException("line B options need --group-b");
        }
        if (null != groupB && groupB.equals(group) && portB() == port)
        {
            throw new IllegalArgumentException("line B must differ from line A (group or port)");
        }
        if (retransmitPort < 0 || retransmitPort > 65_535)
        {
            throw new IllegalArgumentException("--retransmit-port must be 0..65535: " + retransmitPort);
        }
        if (glimpsePort < 0 || glimpsePort > 65_535)
        {
            throw new IllegalArgumentException("--glimpse-port must be 0..65535: " + glimpsePort);
        }
        if (noSend && glimpsePort > 0)
        {
            throw new IllegalArgumentException("--glimpse-port serves the state of a live session; with --no-send " +
                "nothing is live");
        }
        if (0 == glimpsePort && (null != glimpseInterface || null != glimpseUsername || null != glimpsePassword))
        {
            throw new IllegalArgumentException("--glimpse-interface, --glimpse-username and --glimpse-password need " +
                "--glimpse-port");
        }
        // Before anything is opened: a port another process holds is one line and exit code 3, not a BindException.
        PortCheck.udp("--retransmit-port", interfaceAddress, retransmitPort);
        PortCheck.tcp("--glimpse-port", null == glimpseInterface ? interfaceAddress : glimpseInterface, glimpsePort);
        GlimpseServer.validateCredential("--glimpse-username", glimpseUsername, GlimpseServer.MAX_USERNAME_LENGTH);
        GlimpseServer.validateCredential("--glimpse-password", glimpsePassword, GlimpseServer.MAX_PASSWORD_LENGTH);
        if (retransmitHistoryMessages < 1 || retransmitHistoryMessages > MAX_HISTORY_MESSAGES || lingerMs < 0)
        {
            throw new IllegalArgumentException("--retransmit-history-messages must be 1.." + MAX_HISTORY_MESSAGES
                + ", --linger-ms >= 0");
        }
        answering();
        if (0 == retransmitPort && (!"one-packet".equals(retransmitAnswer) || retransmitRate != 0 ||
            retransmitDropPercent != 0 || retransmitSilentAfter != 0))
        {
            throw new IllegalArgumentException("--retransmit-answer, --retransmit-rate, --retransmit-drop-percent " +
                "and --retransmit-silent-after need --retransmit-port");
        }
        lossModelA();
        lossModelB();
        // Let the pacer check the rate options now, before anything is opened.
        if (maxLagMs < 0)
        {
            throw new IllegalArgumentException("--max-lag-ms must be >= 0: " + maxLagMs);
        }
        new RatePacer(rate, burstRate, TimeUnit.MILLISECONDS.toNanos(burstDurationMs),
            TimeUnit.MILLISECONDS.toNanos(burstEveryMs), 0, TimeUnit.MILLISECONDS.toNanos(maxLagMs));
    }

    /** Whether the command line named an option (not just its default); false when run without picocli. */
    private boolean given(final String option)
    {
        return null != spec && spec.commandLine().getParseResult().hasMatchedOption(option);
    }

    private int portB()
    {
        return null == portB ? port : portB;
    }

    private RetransmissionServer.Answering answering()
    {
        if (!"one-packet".equals(retransmitAnswer) && !"all".equals(retransmitAnswer))
        {
            throw new IllegalArgumentException("--retransmit-answer must be one-packet or all: " + retransmitAnswer);
        }
        return new RetransmissionServer.Answering("all".equals(retransmitAnswer), retransmitRate,
            retransmitDropPercent, lossSeed() ^ 0x5252_5252_5252_5252L, retransmitSilentAfter);
    }

    private long lossSeed()
    {
        return null == lossSeed ? seed : lossSeed;
    }

    private LossModel lossModelA()
    {
        // Each line draws from its own stream (the seed mixed with the line's letter), so equal options on A and B
        // still lose different packets.
        return lossModel(lossSeed() ^ 0x4141_4141_4141_4141L, lossA, burstLengthA, burstProbabilityA, dropA, "-a");
    }

    private LossModel lossModelB()
    {
        return lossModel(lossSeed() ^ 0x4242_4242_4242_4242L, lossB, burstLengthB, burstProbabilityB, dropB, "-b");
    }

    private static LossModel lossModel(
        final long seed,
        final double loss,
        final int burstLength,
        final double burstProbability,
        final List<String> drops,
        final String line)
    {
        if (!(loss >= 0.0 && loss <= 1.0) || !(burstProbability >= 0.0 && burstProbability <= 1.0))
        {
            throw new IllegalArgumentException("--loss" + line + " and --burst-probability" + line + " must be 0..1");
        }
        if (burstLength < 0 || (burstProbability > 0.0 && burstLength < 1))
        {
            throw new IllegalArgumentException("--burst-probability" + line + " needs --burst-length" + line + " >= 1");
        }
        final long[] from = new long[drops.size()];
        final long[] count = new long[drops.size()];
        for (int i = 0; i < from.length; i++)
        {
            final long[] outage = LossModel.parseOutage(drops.get(i));
            from[i] = outage[0];
            count[i] = outage[1];
        }
        return new LossModel(seed, loss, burstLength, burstProbability, from, count);
    }

    private int writeOnly(final SessionConfig config, final SimulatorCounters counters) throws IOException
    {
        if (null != fromItchFile)
        {
            return captureFile(counters);
        }
        final long startNs = System.nanoTime();
        final SessionGenerator generator = new SessionGenerator(seed, config);
        final ItchEvent event = new ItchEvent();
        try (ItchFileWriter writer = null == itchFile ? null : new ItchFileWriter(itchFile);
            PcapWriter pcap = null == pcapFile ? null :
                new PcapWriter(pcapFile, interfaceAddress, group, port, ttl, counters))
        {
            final MoldUdp64Packetizer packetizer =
                null == pcap ? null : packetizer(SystemNanoClock.INSTANCE, pcap, counters);
            while (running && generator.next(event))
            {
                if (null != writer)
                {
                    writer.write(event);
                }
                if (null != packetizer)
                {
                    packetizer.append(event);
                }
            }
            if (null != packetizer && !endCapture(packetizer, pcap))
            {
                return ExitCodes.FAILURE;
            }
        }
        final double elapsedS = (System.nanoTime() - startNs) / 1e9;
        out.printf(Locale.ROOT, "simulator: wrote %d messages to %s in %.3f s (%.0f msg/s)%n",
            generator.emitted(), null == itchFile ? pcapFile : itchFile, elapsedS,
            generator.emitted() / Math.max(elapsedS, 1e-9));
        return 0;
    }

    /** End the session's capture: the end-of-session packet, then the file flushed; false (reported) on failure. */
    private boolean endCapture(final MoldUdp64Packetizer packetizer, final PcapWriter pcap)
    {
        packetizer.endOfSession();
        if (!pcap.flush())
        {
            err.println("simulator: pcap output failed: " + pcap.error());
            return false;
        }
        return true;
    }

    /** --no-send --from-itch-file: the file's messages packed into MoldUDP64 packets in a pcap capture. */
    private int captureFile(final SimulatorCounters counters) throws IOException
    {
        final long startNs = System.nanoTime();
        try (ItchFileSource source = ItchFileSource.open(fromItchFile, messages);
            PcapWriter pcap = new PcapWriter(pcapFile, interfaceAddress, group, port, ttl, counters))
        {
            final MoldUdp64Packetizer packetizer = packetizer(SystemNanoClock.INSTANCE, pcap, counters);
            while (running && source.appendNext(packetizer, ItchFileSource.KEEP_TIMESTAMP))
            {
                // each message is packed as it is read
            }
            if (!endCapture(packetizer, pcap))
            {
                return ExitCodes.FAILURE;
            }
            final double elapsedS = (System.nanoTime() - startNs) / 1e9;
            out.printf(Locale.ROOT, "simulator: wrote %d messages of %s to %s in %.3f s (%.0f msg/s)%n",
                source.emitted(), fromItchFile, pcapFile, elapsedS, source.emitted() / Math.max(elapsedS, 1e-9));
            return inputError(source);
        }
    }

    /** A packetizer with this command's session, packet size and heartbeat interval. */
    private MoldUdp64Packetizer packetizer(final NanoClock clock, final PacketSink sink, final SimulatorCounters counters)
    {
        return new MoldUdp64Packetizer(
            session, maxPacketBytes, TimeUnit.MILLISECONDS.toNanos(heartbeatIntervalMs), clock, sink, counters);
    }

    /** After a session read from a file: 0, or ExitCodes.FAILURE with the reason when a bad record ended it early. */
    private int inputError(final ItchFileSource source)
    {
        if (null == source || null == source.error())
        {
            return 0;
        }
        err.println("simulator: input ended early after " + source.emitted() + " messages (they were sent, then " +
            "the end of session): " + source.error());
        return ExitCodes.FAILURE;
    }

    private int send(final SessionConfig config, final SimulatorCounters counters) throws IOException
    {
        final NanoClock clock = SystemNanoClock.INSTANCE;
        final IdleStrategy idle = IdleStrategyType.parse(idleStrategy).newIdleStrategy();
        final SessionGenerator generator = null == fromItchFile ? new SessionGenerator(seed, config) : null;

        try (ItchFileSource fileSource = null == fromItchFile ? null : ItchFileSource.open(fromItchFile, messages);
            MulticastSender senderA = new MulticastSender(group, port, interfaceAddress, ttl, maxPacketBytes, counters);
            MulticastSender senderB = null == groupB ? null : new MulticastSender(groupB, portB(),
                null == interfaceB ? interfaceAddress : interfaceB, ttl, maxPacketBytes, counters);
            PcapWriter pcap = null == pcapFile ? null :
                new PcapWriter(pcapFile, interfaceAddress, group, port, ttl, counters);
            ItchFileWriter writer = null == itchFile ? null : new ItchFileWriter(itchFile))
        {
            final RetransmissionHistory history = 0 == retransmitPort ? null :
                new RetransmissionHistory(retransmitHistoryMessages, ItchEncoder.MAX_MESSAGE_LENGTH);
            final GlimpseState glimpseState = 0 == glimpsePort ? null :
                new GlimpseState(GlimpseState.DEFAULT_INITIAL_ORDERS, counters.glimpseInconsistentMessages());
            final GlimpseSnapshots snapshots = null == glimpseState ? null : new GlimpseSnapshots(glimpseState);
            try (RetransmissionServer server = null == history ? null : new RetransmissionServer(
                interfaceAddress, retransmitPort, session, maxPacketBytes, history, counters, answering());
                GlimpseServer glimpseServer = null == snapshots ? null : new GlimpseServer(
                    null == glimpseInterface ? interfaceAddress : glimpseInterface, glimpsePort, session,
                    glimpseUsername, glimpsePassword, snapshots, counters, err).start())
            {
                if (null != glimpseServer)
                {
                    err.println("simulator: GLIMPSE 5.0 (SoupBinTCP) on " +
                        (null == glimpseInterface ? interfaceAddress : glimpseInterface) + ":" + glimpseServer.port());
                }
                final SimulatedLine lineA = new SimulatedLine(
                    senderA, lossModelA(), counters.lineAPacketsSent(), counters.lineADataPacketsDropped());
                final PacketSink generated = asGenerated(history, glimpseState);
                final PacketDistributor distributor = null == senderB ?
                    new PacketDistributor(pcap, generated, lineA) :
                    new PacketDistributor(pcap, generated, lineA, new SimulatedLine(
                        senderB, lossModelB(), counters.lineBPacketsSent(), counters.lineBDataPacketsDropped()));
                if (!preEncode)
                {
                    final int exit = run(generator, fileSource, null, distributor, server, snapshots, pcap, writer,
                        clock, idle, counters);
                    return 0 != exit ? exit : inputError(fileSource);
                }
                try (PreEncodedSession preEncoded = preEncode(generator, fileSource, writer))
                {
                    final int exit = run(null, null, preEncoded, distributor, server, snapshots, pcap, null,
                        clock, idle, counters);
                    return 0 != exit ? exit : inputError(fileSource);
                }
            }
        }
    }

    /**
     * --pre-encode: the whole session packed into MoldUDP64 data packets before the first is sent (and written to
     * --itch-file meanwhile), with a packet ending at the warm-up's last message.
     */
    private PreEncodedSession preEncode(
        final SessionGenerator generator, final ItchFileSource fileSource, final ItchFileWriter writer)
        throws IOException
    {
        final long startNs = System.nanoTime();
        final PreEncodedSession preEncoded = new PreEncodedSession();
        try (SimulatorCounters scratch = SimulatorCounters.create())
        {
            final MoldUdp64Packetizer packer = packetizer(SystemNanoClock.INSTANCE, preEncoded, scratch);
            final ItchEvent event = new ItchEvent();
            long packed = 0;
            while (running)
            {
                if (null != fileSource)
                {
                    if (!fileSource.appendNext(packer, ItchFileSource.KEEP_TIMESTAMP))
                    {
                        break;
                    }
                }
                else
                {
                    if (!generator.next(event))
                    {
                        break;
                    }
                    if (null != writer)
                    {
                        writer.write(event);
                    }
                    packer.append(event);
                }
                if (++packed == warmupMessages)
                {
                    packer.flush();
                }
            }
            packer.flush();
        }
        catch (final RuntimeException | IOException ex)
        {
            preEncoded.close();
            throw ex;
        }
        final double elapsedS = (System.nanoTime() - startNs) / 1e9;
        err.printf(Locale.ROOT, "simulator: pre-encoded %d messages in %d packets (%d bytes) in %.3f s%n",
            preEncoded.messages(), preEncoded.packets(), preEncoded.bytes(), elapsedS);
        return preEncoded;
    }

    /**
     * The sinks that see the session as generated, before any loss, besides the capture: the retransmission history
     * and the GLIMPSE state, either absent.
     */
    private static PacketSink asGenerated(final PacketSink history, final PacketSink glimpseState)
    {
        if (null == glimpseState)
        {
            return history;
        }
        if (null == history)
        {
            return glimpseState;
        }
        return (buffer, offset, length) ->
        {
            history.onPacket(buffer, offset, length);
            glimpseState.onPacket(buffer, offset, length);
        };
    }

    private int run(
        final SessionGenerator generator,
        final ItchFileSource fileSource,
        final PreEncodedSession preEncoded,
        final PacketDistributor distributor,
        final RetransmissionServer server,
        final GlimpseSnapshots snapshots,
        final PcapWriter pcap,
        final ItchFileWriter writer,
        final NanoClock clock,
        final IdleStrategy idle,
        final SimulatorCounters counters)
    {
        final MoldUdp64Packetizer packetizer = packetizer(clock, distributor, counters);

        final long delayEndNs = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(startDelayMs);
        while (running && clock.nanoTime() < delayEndNs)
        {
            packetizer.heartbeatIfIdle();
            idle.idle(poll(server) + poll(snapshots));
        }

        final long startNs = clock.nanoTime();
        final RatePacer pacer = new RatePacer(rate, burstRate, TimeUnit.MILLISECONDS.toNanos(burstDurationMs),
            TimeUnit.MILLISECONDS.toNanos(burstEveryMs), startNs, TimeUnit.MILLISECONDS.toNanos(maxLagMs));
        final SessionSender simulator;
        final Simulator encoding;
        if (null != preEncoded)
        {
            final PreEncodedSender sender = new PreEncodedSender(preEncoded, packetizer, distributor, pacer, clock);
            if (warmupMessages > 0)
            {
                sender.warmup(warmupMessages, RatePacer.steady(warmupRate, startNs));
            }
            simulator = sender;
            encoding = null;
        }
        else
        {
            final PreciseEpochNanoClock latencyClock = latencyTimestamps ? new PreciseEpochNanoClock() : null;
            encoding = null == fileSource ?
                new Simulator(generator, packetizer, pacer, clock, writer, counters, latencyClock) :
                new Simulator(fileSource, packetizer, pacer, clock, counters, latencyClock);
            encoding.coalesce(TimeUnit.MICROSECONDS.toNanos(coalesceUs));
            if (warmupMessages > 0)
            {
                encoding.warmup(warmupMessages, RatePacer.steady(warmupRate, startNs));
            }
            simulator = encoding;
        }
        final long statsIntervalNs = TimeUnit.SECONDS.toNanos(statsIntervalS);
        long nextStatsNs = startNs + statsIntervalNs;
        long lastStatsMessages = 0;

        while (running && !simulator.isDone())
        {
            // Between duty cycles every generated message has been sent and applied: a GLIMPSE snapshot is exact here.
            idle.idle(simulator.doWork() + poll(server) + poll(snapshots));
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
        if (null != snapshots)
        {
            snapshots.sessionEnded(); // the state is final: the GLIMPSE server spins it itself from now on
        }
        final long endNs = clock.nanoTime();
        final double elapsedS = (endNs - startNs) / 1e9;
        final boolean pcapOk = null == pcap || pcap.flush();

        if (null != server || null != snapshots)
        {
            // Late requests (a feed handler recovering the tail of the session, or joining it late through GLIMPSE,
            // which its own thread serves) are still served for a while, and the end of the session is repeated
            // meanwhile, so that a receiver that lost it learns of the tail.
            // The linger restarts with every request and lasts while answers wait: a recovery in progress (a long
            // outage asked for one packet a request) is never cut off by it.
            final long lingerNs = TimeUnit.MILLISECONDS.toNanos(lingerMs);
            long lingerEndNs = clock.nanoTime() + lingerNs;
            long requestsSeen = counters.retransmitRequestsReceived().get();
            while (running && (clock.nanoTime() < lingerEndNs || (null != server && server.queuedAnswers() > 0)))
            {
                idle.idle(poll(server) + (packetizer.endOfSessionIfIdle(END_OF_SESSION_REPEAT_NS) ? 1 : 0));
                final long requests = counters.retransmitRequestsReceived().get();
                if (requests != requestsSeen)
                {
                    requestsSeen = requests;
                    lingerEndNs = clock.nanoTime() + lingerNs;
                }
            }
        }

        out.printf(Locale.ROOT,
            "simulator: done: messages=%d packets=%d heartbeats=%d bytes=%d sendErrors=%d elapsed=%.3fs "
                + "rate=%.0f msg/s lineA(sent=%d lost=%d)%s retransmit(requests=%d rejected=%d partial=%d "
                + "messages=%d packets=%d dropped=%d ignored=%d)%s%s%n",
            counters.messagesSent().get(), counters.packetsSent().get(), counters.heartbeatsSent().get(),
            counters.bytesSent().get(), counters.sendErrors().get(), elapsedS,
            counters.messagesSent().get() / Math.max(elapsedS, 1e-9),
            counters.lineAPacketsSent().get(), counters.lineADataPacketsDropped().get(), lineB(counters),
            counters.retransmitRequestsReceived().get(), counters.retransmitRequestsRejected().get(),
            counters.retransmitRequestsPartlyServed().get(), counters.retransmitMessagesSent().get(),
            counters.retransmitPacketsSent().get(), counters.retransmitPacketsDropped().get(),
            counters.retransmitRequestsIgnored().get(), measured(simulator, counters, startNs, endNs),
            glimpse(snapshots, counters));
        if (null != encoding && null != encoding.fileError())
        {
            err.println("simulator: ITCH file output stopped: " + encoding.fileError());
            return ExitCodes.FAILURE;
        }
        if (!pcapOk)
        {
            err.println("simulator: pcap output stopped: " + pcap.error());
            return ExitCodes.FAILURE;
        }
        return 0;
    }

    /** The warm-up and the rate after it, for the done line; empty without a warm-up. */
    private String measured(
        final SessionSender simulator, final SimulatorCounters counters, final long startNs, final long endNs)
    {
        if (0 == warmupMessages)
        {
            return "";
        }
        final long measuredStartNs = simulator.measuredStartNs();
        if (measuredStartNs < 0)
        {
            return " warmup(messages=" + Math.min(warmupMessages, counters.messagesSent().get()) + " unfinished)";
        }
        final long measuredMessages = counters.messagesSent().get() - warmupMessages;
        final double measuredS = (endNs - measuredStartNs) / 1e9;
        return String.format(Locale.ROOT, " warmup(messages=%d elapsed=%.3fs) measuredMessages=%d " +
            "measuredElapsed=%.3fs measuredRate=%.0f", warmupMessages, (measuredStartNs - startNs) / 1e9,
            measuredMessages, measuredS, measuredMessages / Math.max(measuredS, 1e-9));
    }

    private static int poll(final RetransmissionServer server)
    {
        return null == server ? 0 : server.poll();
    }

    private static int poll(final GlimpseSnapshots snapshots)
    {
        return null == snapshots ? 0 : snapshots.poll();
    }

    /** The GLIMPSE sessions, for the done line; empty without a GLIMPSE server. */
    private static String glimpse(final GlimpseSnapshots snapshots, final SimulatorCounters counters)
    {
        return null == snapshots ? "" : String.format(Locale.ROOT,
            " glimpse(sessions=%d rejected=%d failed=%d messages=%d inconsistent=%d)",
            counters.glimpseSessionsServed().get(), counters.glimpseLoginsRejected().get(),
            counters.glimpseSessionsFailed().get(), counters.glimpseMessagesSent().get(),
            counters.glimpseInconsistentMessages().get());
    }

    private String lineB(final SimulatorCounters counters)
    {
        return null == groupB ? "" : String.format(Locale.ROOT, " lineB(sent=%d lost=%d)",
            counters.lineBPacketsSent().get(), counters.lineBDataPacketsDropped().get());
    }

    private void printStats(final SimulatorCounters counters, final double rate)
    {
        err.printf(Locale.ROOT, "simulator: messages=%d packets=%d heartbeats=%d bytes=%d sendErrors=%d "
                + "rate=%.0f msg/s lineA(sent=%d lost=%d)%s retransmit(requests=%d rejected=%d messages=%d)%n",
            counters.messagesSent().get(), counters.packetsSent().get(), counters.heartbeatsSent().get(),
            counters.bytesSent().get(), counters.sendErrors().get(), rate,
            counters.lineAPacketsSent().get(), counters.lineADataPacketsDropped().get(), lineB(counters),
            counters.retransmitRequestsReceived().get(), counters.retransmitRequestsRejected().get(),
            counters.retransmitMessagesSent().get());
    }
}
