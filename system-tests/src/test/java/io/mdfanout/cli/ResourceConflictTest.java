package io.mdfanout.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.nio.channels.NetworkChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 36: a resource another process holds, or a channel this host cannot use, stops a role before it creates
 * anything, with exit code 3 (configuration) and one line naming the resource. Real sockets: the test binds the
 * port first, then starts the role as users do.
 */
class ResourceConflictTest
{
    private static final String LOOPBACK = "127.0.0.1";

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void simulatorReRequestPortInUse(@TempDir final Path dir) throws Exception
    {
        try (DatagramChannel held = udp(LOOPBACK))
        {
            final int port = port(held);
            assertRefused(dir, "simulator", "--retransmit-port: UDP port " + port,
                "simulator", "--interface", LOOPBACK, "--retransmit-port", Integer.toString(port), "--messages", "1000");
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void simulatorGlimpsePortInUse(@TempDir final Path dir) throws Exception
    {
        try (ServerSocketChannel held = tcp(LOOPBACK))
        {
            final int port = port(held);
            assertRefused(dir, "simulator", "--glimpse-port: TCP port " + port,
                "simulator", "--interface", LOOPBACK, "--glimpse-port", Integer.toString(port), "--messages", "1000");
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void feedHandlerMetricsPortInUseCreatesNoRings(@TempDir final Path dir) throws Exception
    {
        final Path ringDir = Path.of("/dev/shm", "mdfanout-conflict-" + ProcessHandle.current().pid());
        try (ServerSocketChannel held = tcp("0.0.0.0"))
        {
            assertRefused(dir, "feed-handler", "--metrics-port",
                "feed-handler", "--ring-dir", ringDir.toString(), "--interface", LOOPBACK,
                "--metrics-port", Integer.toString(port(held)));
            assertFalse(Files.exists(ringDir), "no rings (nor their directory) were created: " + ringDir);
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void fanoutMetricsPortInUse(@TempDir final Path dir) throws Exception
    {
        final Path aeronDir = Path.of("/dev/shm", "mdfanout-conflict-aeron-" + ProcessHandle.current().pid());
        try (ServerSocketChannel held = tcp("0.0.0.0"))
        {
            assertRefused(dir, "fanout", "--metrics-port",
                "fanout", "--ring-dir", dir.resolve("rings").toString(), "--aeron-dir", aeronDir.toString(),
                "--metrics-port", Integer.toString(port(held)));
            assertFalse(Files.exists(aeronDir), "no media driver directory was created: " + aeronDir);
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void archiveControlPortInUse(@TempDir final Path dir) throws Exception
    {
        final Path archiveDir = dir.resolve("archive");
        try (DatagramChannel held = udp("0.0.0.0"))
        {
            final int port = port(held);
            assertRefused(dir, "archive", "port " + port,
                "archive", "--archive-dir", archiveDir.toString(), "--aeron-dir", aeronDir("archive").toString(),
                "--control-channel", "aeron:udp?endpoint=0.0.0.0:" + port);
            assertFalse(Files.exists(archiveDir), "nothing was created: " + archiveDir);
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void archiveChannelOnAnInterfaceThisHostLacks(@TempDir final Path dir) throws Exception
    {
        // docs/ARCHIVE.md's example channel; 192.0.2.0/24 is TEST-NET-1, on no host's interface.
        final Path archiveDir = dir.resolve("archive");
        final String channel = "aeron:udp?endpoint=224.0.1.1:40456|interface=192.0.2.5|mtu=8192";
        assertRefused(dir, "archive", "interface=192.0.2.5",
            "archive", "--archive-dir", archiveDir.toString(), "--aeron-dir", aeronDir("archive-if").toString(),
            "--channel", channel, "--control-channel", "aeron:udp?endpoint=127.0.0.1:0");
        assertFalse(Files.exists(archiveDir), "nothing was created: " + archiveDir);
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void statsMetricsPortInUse(@TempDir final Path dir) throws Exception
    {
        try (ServerSocketChannel held = tcp("0.0.0.0"))
        {
            assertRefused(dir, "stats", "--metrics-port",
                "stats", "--metrics-port", Integer.toString(port(held)), "--aeron-dir", aeronDir("stats").toString());
        }
    }

    /** The role exits 3 within seconds, its output is one line that names the resource. */
    private static void assertRefused(final Path dir, final String role, final String named, final String... args)
        throws IOException, InterruptedException
    {
        try (ChainProcess process = ChainProcess.start(role, dir, args))
        {
            final int exitCode = process.waitFor(60, TimeUnit.SECONDS);
            final List<String> lines = Files.readAllLines(dir.resolve(role + ".log")).stream()
                .filter((line) -> !line.isBlank() && !line.contains("cpu pinning")).toList();
            assertEquals(3, exitCode, process.logTail());
            assertEquals(1, lines.size(), "one line: " + lines);
            assertTrue(lines.get(0).contains(named), "names " + named + ": " + lines.get(0));
        }
    }

    private static Path aeronDir(final String name)
    {
        return Path.of("/dev/shm", "mdfanout-conflict-" + name + "-" + ProcessHandle.current().pid());
    }

    private static DatagramChannel udp(final String host) throws IOException
    {
        final DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET);
        channel.bind(new InetSocketAddress(InetAddress.getByName(host), 0));
        return channel;
    }

    private static ServerSocketChannel tcp(final String host) throws IOException
    {
        final ServerSocketChannel channel = ServerSocketChannel.open();
        channel.bind(new InetSocketAddress(InetAddress.getByName(host), 0));
        return channel;
    }

    private static int port(final NetworkChannel channel) throws IOException
    {
        return ((InetSocketAddress)channel.getLocalAddress()).getPort();
    }
}
