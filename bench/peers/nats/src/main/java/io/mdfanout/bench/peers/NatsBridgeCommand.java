package io.mdfanout.bench.peers;

import io.mdfanout.tools.StopSignal;
import io.mdfanout.wire.PartitionRings;
import io.mdfanout.wire.PreciseEpochNanoClock;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code nats-bridge}: the NATS equivalent of our fanout, for the benchmarks. It is the single consumer of the
 * partition rings the feed handler writes (mapped exactly as the fanout maps them), packs their records into
 * packets of our wire format with {@link RingPacketizer} (the fanout's batching: whatever the ring holds, up to
 * a packet, never waiting to fill one) and publishes each packet as one NATS message on
 * {@code <subject-prefix>.<partition>}. The bytes are those our Aeron stream carries, so a subscriber decodes
 * them with the same SDK code; only the transport differs.
 * <p>
 * What the peer costs per packet, and we accept as NATS's cost: one {@code byte[]} copy of the packet (jnats
 * keeps a reference to the body until its writer thread has copied it into its own socket buffer, so a reused
 * array would be overwritten in flight) and jnats' own message object in its outgoing queue. Subjects are built
 * once. No explicit flush: jnats' writer thread writes whatever is queued as soon as it is queued, coalescing
 * what accumulates meanwhile; {@code Connection.flush} is a PING/PONG round trip and would only add latency.
 * No heartbeats: the benchmark's subscriber does not need them.
 */
@Command(name = "nats-bridge", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = "Benchmark peer: drain the partition rings and publish each packet (our wire format) "
        + "as one NATS message on <subject-prefix>.<partition>.")
public final class NatsBridgeCommand implements Callable<Integer>
{
    /** Aeron's max payload for the benchmark channel's mtu=8192, so packets are the same size as the chain's. */
    static final int DEFAULT_MAX_PACKET_LENGTH = 8160;

    @Option(names = "--ring-dir", required = true, description = "Directory of the partition ring files "
        + "(the feed handler's --ring-dir).")
    Path ringDir;

    @Option(names = "--partitions", defaultValue = "4", description = "Number of partitions (rings 0..N-1).")
    int partitions;

    @Option(names = "--url", defaultValue = "nats://127.0.0.1:4222", description = "NATS server URL.")
    String url;

    @Option(names = "--subject-prefix", defaultValue = "mdfanout", description = "Subject prefix; partition p "
        + "is published on <prefix>.<p>.")
    String subjectPrefix;

    @Option(names = "--idle-strategy", defaultValue = "backoff", description = "What the drain loop does when the "
        + "rings are empty: backoff (spin, yield, park), park (the same without yields) or busy-spin (pinned, "
        + "dedicated cores: the bench bundle's plan), as the fanout's.")
    String idleStrategy;

    @Option(names = "--ring-read-limit", defaultValue = "1024", description = "Most ring records consumed per "
        + "partition per duty cycle (the fanout's default).")
    int ringReadLimit;

    @Option(names = "--max-packet-length", defaultValue = "" + DEFAULT_MAX_PACKET_LENGTH,
        description = "Largest packet in bytes (the chain's Aeron max payload at mtu 8192).")
    int maxPacketLength;

    @Option(names = "--ring-wait-timeout-s", defaultValue = "30", description = "How long to wait for the feed "
        + "handler to create the ring files.")
    long ringWaitTimeoutS;

    @Option(names = "--stats-interval-s", defaultValue = "0", description = "Print a one-line stats summary to "
        + "stderr every N seconds (0 = off).")
    long statsIntervalS;

    /** {@inheritDoc} */
    public Integer call()
    {
        if (partitions < 1 || partitions > 0xFFFF || ringReadLimit < 1 || ringWaitTimeoutS < 0 || statsIntervalS < 0)
        {
            System.err.println("nats-bridge: --partitions must be 1..65535, --ring-read-limit positive, " +
                "--ring-wait-timeout-s and --stats-interval-s not negative");
            return 1;
        }
        if (!"backoff".equals(idleStrategy) && !"park".equals(idleStrategy) && !"busy-spin".equals(idleStrategy))
        {
            System.err.println("nats-bridge: unknown --idle-strategy '" + idleStrategy + "' (backoff, park or busy-spin)");
            return 1;
        }
        final PartitionRings.MappedRing[] rings = new PartitionRings.MappedRing[partitions];
        final Options options = new Options.Builder()
            .server(url)
            .connectionTimeout(Duration.ofSeconds(5))
            .noReconnect()
            .noEcho()
            .bufferSize(256 * 1024)
            .maxMessagesInOutgoingQueue(1 << 20)
            .build();
        try (StopSignal shutdown = new StopSignal(); Connection connection = Nats.connect(options))
        {
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(ringWaitTimeoutS);
            final RingPacketizer[] packetizers = new RingPacketizer[partitions];
            final String[] subjects = new String[partitions];
            final PreciseEpochNanoClock clock = new PreciseEpochNanoClock();
            for (int p = 0; p < partitions; p++)
            {
                rings[p] = awaitRing(ringDir, p, deadlineNs, shutdown);
                packetizers[p] = new RingPacketizer(p, rings[p].ring(), maxPacketLength, clock);
                subjects[p] = subjectPrefix + "." + p;
            }
            final RingPacketizer.PacketSink sink = (partitionId, buffer, offset, length, messageCount) ->
                publish(connection, subjects[partitionId], buffer, offset, length);
            System.err.println("nats-bridge: " + partitions + " rings in " + ringDir + " -> " + url + " " +
                subjectPrefix + ".<partition>");

            final IdleStrategy idle = "busy-spin".equals(idleStrategy) ? new BusySpinIdleStrategy() :
                new BackoffIdleStrategy(100, "park".equals(idleStrategy) ? 0 : 10, TimeUnit.MICROSECONDS.toNanos(1),
                TimeUnit.MICROSECONDS.toNanos(100));
            final long statsIntervalNs = TimeUnit.SECONDS.toNanos(statsIntervalS);
            long nextStatsNs = System.nanoTime() + statsIntervalNs;
            while (shutdown.isRunning())
            {
                int work = 0;
                for (final RingPacketizer packetizer : packetizers)
                {
                    work += packetizer.drain(ringReadLimit, sink);
                }
                idle.idle(work);
                if (statsIntervalNs > 0 && System.nanoTime() - nextStatsNs >= 0)
                {
                    nextStatsNs += statsIntervalNs;
                    System.err.println("nats-bridge: " + stats(packetizers, connection));
                }
            }
            connection.flush(Duration.ofSeconds(5)); // what is queued reaches the server before we go
            System.err.println("nats-bridge: final " + stats(packetizers, connection));
            shutdown.close();
            return 0;
        }
        catch (final IllegalStateException | IllegalArgumentException ex)
        {
            System.err.println("nats-bridge: " + ex.getMessage());
            return 1;
        }
        catch (final Exception ex)
        {
            System.err.println("nats-bridge: cannot use the NATS server at " + url + ": " + ex);
            return 1;
        }
        finally
        {
            for (final PartitionRings.MappedRing ring : rings)
            {
                if (null != ring)
                {
                    ring.close();
                }
            }
        }
    }

    private static void publish(
        final Connection connection, final String subject, final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] body = new byte[length]; // jnats holds the body until its writer thread copies it
        buffer.getBytes(offset, body);
        connection.publish(subject, body);
    }

    private static String stats(final RingPacketizer[] packetizers, final Connection connection)
    {
        long packets = 0, messages = 0, invalid = 0;
        for (final RingPacketizer packetizer : packetizers)
        {
            packets += packetizer.packets();
            messages += packetizer.messages();
            invalid += packetizer.invalidRecords();
        }
        return "packets=" + packets + " published=" + messages + " invalid=" + invalid +
            " outMsgs=" + connection.getStatistics().getOutMsgs() +
            " outBytes=" + connection.getStatistics().getOutBytes();
    }

    /** The feed handler creates the rings: wait until each exists with a valid length, then map it. */
    private static PartitionRings.MappedRing awaitRing(
        final Path directory, final int partition, final long deadlineNs, final StopSignal shutdown)
    {
        final File file = PartitionRings.ringFile(directory, partition).toFile();
        while (true)
        {
            if (file.isFile() && PartitionRings.capacityOf(file.length()) > 0)
            {
                return PartitionRings.map(directory, partition);
            }
            if (System.nanoTime() - deadlineNs >= 0 || !shutdown.isRunning())
            {
                throw new IllegalStateException("ring file " + file + " not ready: is the feed handler running " +
                    "with --ring-dir " + directory + "?");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    /**
     * Run from the command line.
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new NatsBridgeCommand()).execute(args));
    }
}
