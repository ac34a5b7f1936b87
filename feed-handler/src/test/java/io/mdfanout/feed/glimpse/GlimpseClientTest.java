package io.mdfanout.feed.glimpse;

import io.mdfanout.feed.glimpse.GlimpseException.Reason;
import io.mdfanout.feed.sim.ItchEncoder;
import io.mdfanout.feed.sim.ItchEvent;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The GLIMPSE client against scripted SoupBinTCP servers on 127.0.0.1: what it passes on, where it stops, and that
 * every failure is a {@link GlimpseException} naming the server and what happened, within the timeouts.
 */
class GlimpseClientTest
{
    private final List<byte[]> received = new ArrayList<>();
    private final GlimpseListener collect = (buffer, offset, length) ->
    {
        final byte[] message = new byte[length];
        buffer.getBytes(offset, message);
        received.add(message);
    };
    private FakeServer server;

    @AfterEach
    void tearDown()
    {
        CloseHelper.quietClose(server);
    }

    @Test
    void passesEveryMessageInOrderAndReturnsEndOfSnapshotsSequence() throws Exception
    {
        final byte[][] messages = { itch('S'), itch('R'), itch('A'), itch('F') };
        server = new FakeServer(out ->
        {
            loginAccepted(out, "FAKE1");
            for (final byte[] message : messages)
            {
                data(out, message);
            }
            data(out, ascii("G00000000000000004242")); // zero-padded: lenient
            packet(out, 'Z');
        });

        final GlimpseResult result = client(10_000).load("127.0.0.1:" + server.port(), collect);

        assertEquals(4242, result.nextSequence());
        assertEquals(4, result.messages(), "End of Snapshot is not a snapshot message");
        assertEquals(12 + 39 + 36 + 40, result.bytes());
        assertEquals("FAKE1", result.session());
        assertEquals("127.0.0.1:" + server.port(), result.server());
        assertEquals(4, received.size());
        for (int i = 0; i < messages.length; i++)
        {
            assertArrayEquals(messages[i], received.get(i), "message " + i);
        }
        final String login = server.login();
        assertEquals("L", login.substring(0, 1), "a Login Request");
        assertEquals("mdf   ", login.substring(1, 7), "username, space-padded");
        assertEquals("                   1", login.substring(27, 47), "requested sequence number 1");
    }

    @Test
    void endOfSnapshotsSequenceNumberParsesLeniently()
    {
        assertEquals(12_345, parse("G               12345"));
        assertEquals(12_345, parse("G00000000000000012345"));
        assertEquals(12_345, parse("G12345               "), "left-justified");
        assertEquals(7, parse("G\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0" + "7"));
        assertEquals(99, parse("GHEADER0001                   99"), "an ITCH header before the field");
        assertEquals(-1, parse("G123"), "too short");
        assertEquals(-1, parse("G                    "), "blank");
        assertEquals(-1, parse("G          12 45     "), "a space inside");
        assertEquals(-1, parse("G              -12345"), "not digits");
        assertEquals(-1, parse("G1234567890123456789 "), "19 digits do not fit");
    }

    @Test
    void aRefusedConnectionNamesTheServer() throws Exception
    {
        final int port;
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            port = closed.getLocalPort();
        }
        final GlimpseException ex = assertThrows(GlimpseException.class,
            () -> client(10_000).load(new InetSocketAddress("127.0.0.1", port), collect));
        assertEquals(Reason.CONNECT_FAILED, ex.reason());
        assertTrue(ex.getMessage().startsWith("GLIMPSE 127.0.0.1:" + port + ": connect failed"), ex.getMessage());
    }

    @Test
    void aRejectedLoginSaysWhy() throws Exception
    {
        server = new FakeServer(out -> out.write(new byte[] { 0, 2, 'J', 'A' }));
        final GlimpseException ex = assertThrows(GlimpseException.class,
            () -> client(10_000).load("127.0.0.1:" + server.port(), collect));
        assertEquals(Reason.LOGIN_REJECTED, ex.reason());
        assertEquals("GLIMPSE 127.0.0.1:" + server.port() + ": login rejected, 'A', not authorized: check the " +
            "username and password", ex.getMessage());
    }

    @Test
    void theServerClosingBeforeEndOfSnapshotIsAnError() throws Exception
    {
        server = new FakeServer(out ->
        {
            loginAccepted(out, "FAKE2");
            data(out, itch('R'));
            data(out, itch('A'));
        });
        final GlimpseException ex = assertThrows(GlimpseException.class,
            () -> client(10_000).load("127.0.0.1:" + server.port(), collect));
        assertEquals(Reason.ENDED_EARLY, ex.reason());
        assertEquals("GLIMPSE 127.0.0.1:" + server.port() + ": the server closed the connection before End of " +
            "Snapshot (logged in to session 'FAKE2', 2 messages received)", ex.getMessage());
        assertEquals(2, received.size());
    }

    @Test
    void endOfSessionBeforeEndOfSnapshotIsAnError() throws Exception
    {
        server = new FakeServer(out ->
        {
            loginAccepted(out, "FAKE3");
            data(out, itch('R'));
            packet(out, 'Z');
        }, true);
        final GlimpseException ex = assertThrows(GlimpseException.class,
            () -> client(10_000).load("127.0.0.1:" + server.port(), collect));
        assertEquals(Reason.ENDED_EARLY, ex.reason());
        assertTrue(ex.getMessage().contains("ended the session (End of Session) before End of Snapshot"),
            ex.getMessage());
    }

    @Test
    void noEndOfSnapshotWithinTheTimeoutIsAnErrorNotAHang() throws Exception
    {
        server = new FakeServer(out ->
        {
            loginAccepted(out, "FAKE4");
            data(out, itch('S'));
        }, true); // then silence, the connection held open
        final long startNs = System.nanoTime();
        final GlimpseException ex = assertThrows(GlimpseException.class,
            () -> client(400).load("127.0.0.1:" + server.port(), collect));
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        assertEquals(Reason.TIMED_OUT, ex.reason());
        assertEquals("GLIMPSE 127.0.0.1:" + server.port() + ": no End of Snapshot within 400 ms (logged in to " +
            "session 'FAKE4', 1 messages received)", ex.getMessage());
        assertTrue(elapsedMs >= 390 && elapsedMs < 3_000, "timed out after " + elapsedMs + " ms");
    }

    @Test
    void anUnreadableEndOfSnapshotOrPacketIsMalformed() throws Exception
    {
        server = new FakeServer(out ->
        {
            loginAccepted(out, "FAKE5");
            data(out, ascii("G          12x45     "));
        });
        final GlimpseException badSequence = assertThrows(GlimpseException.class,
            () -> client(10_000).load("127.0.0.1:" + server.port(), collect));
        assertEquals(Reason.MALFORMED, badSequence.reason());
        assertTrue(badSequence.getMessage().contains("End of Snapshot without a sequence number >= 1: " +
            "'G          12x45     '"), badSequence.getMessage());
        server.close();

        server = new FakeServer(out ->
        {
            loginAccepted(out, "FAKE6");
            packet(out, '?');
        }, true);
        final GlimpseException badPacket = assertThrows(GlimpseException.class,
            () -> client(10_000).load("127.0.0.1:" + server.port(), collect));
        assertEquals(Reason.MALFORMED, badPacket.reason());
        assertTrue(badPacket.getMessage().contains("unreadable SoupBinTCP packet: Unexpected packet type: ?"),
            badPacket.getMessage());
    }

    @Test
    void parsesHostPortWithClearErrors()
    {
        final InetSocketAddress v4 = GlimpseClient.parseAddress(" 127.0.0.1:26401 ");
        assertEquals("127.0.0.1", v4.getHostString());
        assertEquals(26_401, v4.getPort());
        assertTrue(v4.isUnresolved(), "resolved at connect");
        assertEquals("::1", GlimpseClient.parseAddress("[::1]:5").getHostString());
        assertEquals("glimpse.example", GlimpseClient.parseAddress("glimpse.example:443").getHostString());

        assertBadAddress("GLIMPSE server must be HOST:PORT: 'host'", "host");
        assertBadAddress("GLIMPSE server must be HOST:PORT: 'host:'", "host:");
        assertBadAddress("GLIMPSE server must be HOST:PORT: ':5'", ":5");
        assertBadAddress("GLIMPSE server must be HOST:PORT, got nothing", " ");
        assertBadAddress("GLIMPSE server port is not a number: 'host:http'", "host:http");
        assertBadAddress("GLIMPSE server port must be 1 to 65535: 'host:0'", "host:0");
        assertBadAddress("GLIMPSE server port must be 1 to 65535: 'host:65536'", "host:65536");
        assertBadAddress("GLIMPSE server: an IPv6 address needs brackets, [ADDRESS]:PORT: '::1:5'", "::1:5");
    }

    @Test
    void badSettingsAreNamed()
    {
        assertBadConfig("GLIMPSE username must be at most 6 characters: 'toolong'",
            new GlimpseClientConfig().username("toolong"));
        assertBadConfig("GLIMPSE password must be printable ASCII without spaces: 'a b'",
            new GlimpseClientConfig().password("a b"));
        assertBadConfig("GLIMPSE timeout must be > 0 ms: 0", new GlimpseClientConfig().timeoutMs(0));
        assertBadConfig("GLIMPSE connect timeout must be > 0 ms: -1", new GlimpseClientConfig().connectTimeoutMs(-1));
        assertTrue(new GlimpseClientConfig().password("secret").toString().contains("password=***"));
    }

    private static void assertBadAddress(final String message, final String text)
    {
        assertEquals(message,
            assertThrows(IllegalArgumentException.class, () -> GlimpseClient.parseAddress(text)).getMessage());
    }

    private static void assertBadConfig(final String message, final GlimpseClientConfig config)
    {
        assertEquals(message,
            assertThrows(IllegalArgumentException.class, () -> new GlimpseClient(config)).getMessage());
    }

    private static GlimpseClient client(final long timeoutMs)
    {
        return new GlimpseClient(new GlimpseClientConfig().username("mdf").password("pw").timeoutMs(timeoutMs));
    }

    private static long parse(final String message)
    {
        final byte[] bytes = ascii(message);
        return GlimpseClient.parseEndOfSnapshot(new UnsafeBuffer(bytes), 0, bytes.length);
    }

    private static byte[] ascii(final String text)
    {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A real ITCH message of the given type, from the simulator's encoder. */
    private static byte[] itch(final char type)
    {
        final ItchEvent event = new ItchEvent().reset().stock("TEST");
        event.type = type;
        event.stockLocate = 7;
        event.timestamp = 123_456_789L;
        event.orderReferenceNumber = 42;
        event.side = 'B';
        event.shares = 100;
        event.price = 1_234_500;
        event.eventCode = 'Q';
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        final int length = ItchEncoder.encode(event, buffer, 0);
        final byte[] bytes = new byte[length];
        buffer.getBytes(0, bytes);
        return bytes;
    }

    private static void loginAccepted(final DataOutputStream out, final String session) throws IOException
    {
        out.writeShort(31);
        out.writeByte('A');
        out.write(ascii(String.format("%-10s%20d", session, 1)));
    }

    private static void data(final DataOutputStream out, final byte[] message) throws IOException
    {
        out.writeShort(message.length + 1);
        out.writeByte('S');
        out.write(message);
    }

    private static void packet(final DataOutputStream out, final char type) throws IOException
    {
        out.writeShort(1);
        out.writeByte(type);
    }

    @FunctionalInterface
    interface Script
    {
        void play(DataOutputStream out) throws IOException;
    }

    /** One connection: read the Login Request, play the script, then close (or hold the connection open). */
    static final class FakeServer implements AutoCloseable
    {
        private final ServerSocket serverSocket;
        private final CompletableFuture<String> login = new CompletableFuture<>();
        private volatile Socket socket;

        FakeServer(final Script script) throws IOException
        {
            this(script, false);
        }

        FakeServer(final Script script, final boolean holdOpen) throws IOException
        {
            serverSocket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
            final Thread thread = new Thread(() ->
            {
                try
                {
                    socket = serverSocket.accept();
                    final DataInputStream in = new DataInputStream(socket.getInputStream());
                    final byte[] request = new byte[in.readUnsignedShort()];
                    in.readFully(request);
                    login.complete(new String(request, StandardCharsets.ISO_8859_1));
                    final DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                    script.play(out);
                    out.flush();
                    if (!holdOpen)
                    {
                        socket.shutdownOutput();
                        while (in.read() >= 0)
                        {
                            // until the client closes: no reset while it reads
                        }
                        socket.close();
                    }
                }
                catch (final IOException ex)
                {
                    login.completeExceptionally(ex);
                }
            }, "fake-glimpse");
            thread.setDaemon(true);
            thread.start();
        }

        int port()
        {
            return serverSocket.getLocalPort();
        }

        String login() throws Exception
        {
            return login.get(5, TimeUnit.SECONDS);
        }

        public void close()
        {
            CloseHelper.quietClose(serverSocket);
            CloseHelper.quietClose(socket);
        }
    }
}
