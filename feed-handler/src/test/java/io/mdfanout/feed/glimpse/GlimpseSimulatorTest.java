package io.mdfanout.feed.glimpse;

import io.mdfanout.feed.glimpse.GlimpseException.Reason;
import io.mdfanout.feed.sim.GlimpseServer;
import io.mdfanout.feed.sim.GlimpseSnapshots;
import io.mdfanout.feed.sim.GlimpseState;
import io.mdfanout.feed.sim.ItchBookReplay;
import io.mdfanout.feed.sim.ItchEvent;
import io.mdfanout.feed.sim.MoldUdp64Packetizer;
import io.mdfanout.feed.sim.SessionConfig;
import io.mdfanout.feed.sim.SessionGenerator;
import io.mdfanout.feed.sim.SimulatorCommand;
import io.mdfanout.feed.sim.SimulatorCounters;
import io.mdfanout.wire.ExitCodes;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The GLIMPSE client against the simulator's GLIMPSE server, over TCP on 127.0.0.1, while the session is live: a
 * snapshot, then the session's messages from its End of Snapshot on, must give the book of the whole session
 * (the simulator's {@code ReferenceBook} dump), mid-session and after the end alike.
 */
class GlimpseSimulatorTest
{
    @Test
    void theSimulatorCommandServesExactSnapshotsDuringAndAfterItsSession() throws Exception
    {
        final long seed = 31;
        final int symbols = 20;
        final long messages = 30_000;
        final int port = freePort();
        final String expected = ItchBookReplay.sessionDump(seed, symbols, messages);

        final CompletableFuture<Integer> run = CompletableFuture.supplyAsync(() -> execute(
            "--group", "239.255.48.1", "--port", "48001", "--interface", "127.0.0.1", "--ttl", "0",
            "--session", "GLIMPSE01", "--seed", String.valueOf(seed), "--symbols", String.valueOf(symbols),
            "--messages", String.valueOf(messages), "--rate", "30000", "--stats-interval-s", "0",
            "--glimpse-port", String.valueOf(port), "--glimpse-username", "mdf", "--glimpse-password", "secret",
            "--linger-ms", "2500"));

        // A bad login is refused, clearly; retried until the server listens.
        final GlimpseClient intruder =
            new GlimpseClient(new GlimpseClientConfig().username("mdf").password("guess").timeoutMs(5_000));
        GlimpseException refused = null;
        final long upDeadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (null == refused && System.nanoTime() < upDeadlineNs)
        {
            try
            {
                intruder.load("127.0.0.1:" + port, (buffer, offset, length) -> { });
            }
            catch (final GlimpseException ex)
            {
                if (Reason.CONNECT_FAILED == ex.reason())
                {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
                    continue;
                }
                refused = ex;
            }
        }
        assertTrue(null != refused, "the server came up");
        assertEquals(Reason.LOGIN_REJECTED, refused.reason(), refused.getMessage());
        assertTrue(refused.getMessage().contains("127.0.0.1:" + port), refused.getMessage());

        final GlimpseClient client =
            new GlimpseClient(new GlimpseClientConfig().username("mdf").password("secret").timeoutMs(10_000));

        // Mid-session: the snapshot, then the feed from End of Snapshot, is the whole session's book.
        final ItchBookReplay midSession = new ItchBookReplay();
        final GlimpseResult mid = client.load("127.0.0.1:" + port, midSession::apply);
        assertEquals("GLIMPSE01", mid.session());
        assertTrue(mid.nextSequence() > 1 && mid.nextSequence() <= messages, "mid-session: " + mid);
        assertEquals(mid.messages(), midSession.messages());
        midSession.applySession(seed, symbols, messages, mid.nextSequence());
        assertEquals(expected, midSession.book().dump(), "snapshot at " + mid.nextSequence() + " then the feed");

        // Snapshots every 50 ms until one after the end, while the simulator lingers; each exact at its own cut, and
        // the last, of every message, the whole session's book by itself.
        GlimpseResult last;
        ItchBookReplay afterEnd;
        do
        {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            afterEnd = new ItchBookReplay();
            last = client.load("127.0.0.1:" + port, afterEnd::apply);
            assertTrue(last.nextSequence() >= mid.nextSequence(), "the sequence never goes back");
            afterEnd.applySession(seed, symbols, messages, last.nextSequence());
            assertEquals(expected, afterEnd.book().dump(), "snapshot at " + last.nextSequence() + " then the feed");
        }
        while (last.nextSequence() <= messages);
        assertEquals(messages + 1, last.nextSequence(), "after the end: every message is in the snapshot");

        assertEquals(0, run.get(20, TimeUnit.SECONDS).intValue());
    }

    /**
     * The server with a sender thread of the test's own: several clients at once are served one after another, each
     * snapshot exact for its End of Snapshot; bad logins and clients that hang up are counted and the server goes
     * on; after the session's end the server spins the final state itself.
     */
    @Test
    void theServerServesClientsInTurnAndSurvivesBadOnes() throws Exception
    {
        final long seed = 5;
        final int symbols = 12;
        final long messages = 20_000;
        final String expected = ItchBookReplay.sessionDump(seed, symbols, messages);
        final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
        final PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);

        try (SimulatorCounters counters = SimulatorCounters.create())
        {
            final GlimpseState state = new GlimpseState(64, counters.glimpseInconsistentMessages());
            final GlimpseSnapshots snapshots = new GlimpseSnapshots(state);
            final Thread sender = new Thread(() ->
            {
                final MoldUdp64Packetizer packetizer = new MoldUdp64Packetizer(
                    "TURNS", 1400, 1_000_000_000L, SystemNanoClock.INSTANCE, state, counters);
                final SessionGenerator generator =
                    new SessionGenerator(seed, new SessionConfig().symbols(symbols).messageCount(messages));
                final ItchEvent event = new ItchEvent();
                boolean more = true;
                while (more)
                {
                    for (int i = 0; i < 20 && more; i++)
                    {
                        more = generator.next(event);
                        if (more)
                        {
                            packetizer.append(event);
                        }
                    }
                    packetizer.flush();
                    snapshots.poll();
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(500)); // ~20 s of messages per 0.5 s
                }
                packetizer.endOfSession();
                snapshots.sessionEnded();
            }, "test-sender");

            try (GlimpseServer server = new GlimpseServer(
                "127.0.0.1", 0, "TURNS", "mdf", null, snapshots, counters, log).start())
            {
                sender.start();
                final String address = "127.0.0.1:" + server.port();

                // A client that connects and hangs up, and one with the wrong username: counted, logged, survived.
                try (SocketChannel hangUp = SocketChannel.open(new InetSocketAddress("127.0.0.1", server.port())))
                {
                    assertTrue(hangUp.isConnected());
                }
                final GlimpseException rejected = assertThrows(GlimpseException.class, () -> new GlimpseClient(
                    new GlimpseClientConfig().username("who")).load(address, (buffer, offset, length) -> { }));
                assertEquals(Reason.LOGIN_REJECTED, rejected.reason());

                // Three clients at once, mid-session.
                final List<CompletableFuture<String>> loads = new ArrayList<>();
                for (int i = 0; i < 3; i++)
                {
                    loads.add(CompletableFuture.supplyAsync(() -> loadAndCheck(address, seed, symbols, messages)));
                }
                for (final CompletableFuture<String> load : loads)
                {
                    assertEquals(expected, load.get(20, TimeUnit.SECONDS));
                }

                sender.join(30_000);
                assertTrue(snapshots.isSessionEnded());
                final ItchBookReplay afterEnd = new ItchBookReplay();
                final GlimpseResult last = new GlimpseClient(new GlimpseClientConfig().username("mdf"))
                    .load(address, afterEnd::apply);
                assertEquals(messages + 1, last.nextSequence());
                assertEquals(expected, afterEnd.book().dump());

                // The server counts a session once it has ended, which is after the client has its End of Snapshot.
                final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (counters.glimpseSessionsServed().get() < 4 && System.nanoTime() < deadlineNs)
                {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                }
                assertEquals(4, counters.glimpseSessionsServed().get());
                assertEquals(1, counters.glimpseLoginsRejected().get());
                assertEquals(1, counters.glimpseSessionsFailed().get(), "the client that hung up");
                assertEquals(0, counters.glimpseInconsistentMessages().get());
            }
            final String lines = logBytes.toString(StandardCharsets.UTF_8);
            assertTrue(lines.contains("login from /127.0.0.1:") && lines.contains(" rejected: not authorized: " +
                "username 'who'"), lines);
            assertTrue(lines.contains("failed: java.io.IOException: client closed the connection before logging in"),
                lines);
            assertTrue(lines.contains("simulator: GLIMPSE served /127.0.0.1:"), lines);
        }
    }

    /** A session sent from an ITCH file has no generator events, only packets: the state is kept from those. */
    @Test
    void aSessionSentFromAnItchFileIsServedToo(@TempDir final Path dir) throws Exception
    {
        final long seed = 8;
        final int symbols = 6;
        final long messages = 4_000;
        final Path file = dir.resolve("session.itch");
        assertEquals(0, execute("--no-send", "--itch-file", file.toString(), "--messages", String.valueOf(messages),
            "--symbols", String.valueOf(symbols), "--seed", String.valueOf(seed)));
        final int port = freePort();
        final CompletableFuture<Integer> run = CompletableFuture.supplyAsync(() -> execute(
            "--group", "239.255.48.3", "--port", "48003", "--interface", "127.0.0.1", "--ttl", "0",
            "--session", "FROMFILE", "--from-itch-file", file.toString(), "--rate", "0", "--stats-interval-s", "0",
            "--glimpse-port", String.valueOf(port), "--linger-ms", "1500"));

        final GlimpseClient client = new GlimpseClient(new GlimpseClientConfig().timeoutMs(5_000));
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        GlimpseResult result = null;
        ItchBookReplay replay = null;
        while (null == result || result.nextSequence() <= messages)
        {
            assertTrue(System.nanoTime() < deadlineNs, "a snapshot after the end within 10 s: " + result);
            replay = new ItchBookReplay();
            try
            {
                result = client.load("127.0.0.1:" + port, replay::apply);
            }
            catch (final GlimpseException ex)
            {
                assertEquals(Reason.CONNECT_FAILED, ex.reason(), ex.getMessage()); // not up yet
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
        }
        assertEquals(messages + 1, result.nextSequence());
        assertEquals("FROMFILE", result.session());
        assertEquals(ItchBookReplay.sessionDump(seed, symbols, messages), replay.book().dump());
        assertEquals(0, run.get(20, TimeUnit.SECONDS).intValue());
    }

    @Test
    void badGlimpseOptionsAreRefusedByName()
    {
        assertRefused("simulator: --glimpse-port must be 0..65535: 70000", "--glimpse-port", "70000");
        assertRefused("simulator: --glimpse-username must be at most 6 characters: 'toolong'",
            "--glimpse-port", "26410", "--glimpse-username", "toolong");
        assertRefused("simulator: --glimpse-interface, --glimpse-username and --glimpse-password need --glimpse-port",
            "--glimpse-password", "secret");
        assertRefused("simulator: --glimpse-port serves the state of a live session; with --no-send nothing is live",
            "--no-send", "--itch-file", "x.itch", "--messages", "1000", "--glimpse-port", "26410");
    }

    private static void assertRefused(final String message, final String... args)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream saved = System.err;
        final int exit;
        System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try
        {
            exit = execute(args); // the command takes System.err when it is created
        }
        finally
        {
            System.setErr(saved);
        }
        assertEquals(ExitCodes.CONFIG, exit);
        assertEquals(message, bytes.toString(StandardCharsets.UTF_8).trim());
    }

    private static int execute(final String... args)
    {
        return new CommandLine(new SimulatorCommand()).execute(args);
    }

    private static String loadAndCheck(final String address, final long seed, final int symbols, final long messages)
    {
        try
        {
            final ItchBookReplay replay = new ItchBookReplay();
            final GlimpseResult result =
                new GlimpseClient(new GlimpseClientConfig().username("mdf")).load(address, replay::apply);
            replay.applySession(seed, symbols, messages, result.nextSequence());
            return replay.book().dump();
        }
        catch (final GlimpseException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1")))
        {
            return socket.getLocalPort();
        }
    }
}
