package io.mdfanout.feed.fuzz;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.mdfanout.feed.glimpse.GlimpseClient;
import io.mdfanout.feed.glimpse.GlimpseClientConfig;
import io.mdfanout.feed.glimpse.GlimpseException;
import io.mdfanout.feed.glimpse.GlimpseException.Reason;
import io.mdfanout.feed.glimpse.GlimpseResult;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.EnumSet;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The GLIMPSE client from arbitrary bytes: a server on 127.0.0.1 answers its login with the input (SoupBinTCP packets
 * carrying ITCH messages, or anything else) and closes its side; the messages go to the normalizer, into rings, as
 * the feed handler loads a snapshot. Properties: the load ends with a result or a {@link GlimpseException} naming the
 * server, never another exception, and never waits for its timeout (the server closed: the client must see the end);
 * the ring records are valid. Regression mode (every test run) replays the committed inputs in
 * {@code src/test/resources/io/mdfanout/feed/fuzz/GlimpseClientFuzzTestInputs}; {@code make fuzz} fuzzes.
 */
class GlimpseClientFuzzTest
{
    /** A load of a server that closed has no reason to take long; past this the client waited for nothing. */
    private static final long TIMEOUT_MS = 5_000;
    private static final EnumSet<Reason> ENDINGS = EnumSet.of(Reason.MALFORMED, Reason.ENDED_EARLY,
        Reason.LOGIN_REJECTED, Reason.IO_ERROR);

    private static ServerSocket serverSocket;
    private static volatile byte[] reply = new byte[0];

    @BeforeAll
    static void startServer() throws IOException
    {
        serverSocket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
        final Thread thread = new Thread(GlimpseClientFuzzTest::serve, "fuzz-glimpse");
        thread.setDaemon(true);
        thread.start();
    }

    @AfterAll
    static void stopServer()
    {
        CloseHelper.quietClose(serverSocket);
    }

    @FuzzTest
    void anyServerBytesEndInAResultOrAGlimpseException(final byte[] input)
    {
        reply = input;
        final String server = "127.0.0.1:" + serverSocket.getLocalPort();
        final FuzzChain chain = new FuzzChain();
        final GlimpseClient client = new GlimpseClient(new GlimpseClientConfig()
            .username("mdf").password("fuzz").connectTimeoutMs(TIMEOUT_MS).timeoutMs(TIMEOUT_MS));
        // On a watched thread: a client that does not come back at all fails the input instead of hanging the build.
        assertTimeoutPreemptively(Duration.ofMillis(6 * TIMEOUT_MS), () ->
        {
            // Jazzer's request-forgery detector: the one connection this test makes is to its own server.
            try (SilentCloseable allowed = BugDetectors.allowNetworkConnections(
                (host, port) -> port == serverSocket.getLocalPort()))
            {
                final GlimpseResult result = client.load(server,
                    (buffer, offset, length) -> chain.normalizer.onMessage(buffer, offset, length, 0));
                assertTrue(result.nextSequence() >= 1, "End of Snapshot's sequence: " + result.nextSequence());
            }
            catch (final GlimpseException ex)
            {
                assertTrue(ENDINGS.contains(ex.reason()), "the server closed: " + ex.getMessage());
                assertTrue(ex.getMessage().startsWith("GLIMPSE " + server + ": "), ex.getMessage());
            }
        });
        chain.normalizer.flush();
        chain.drainAndCheck();
    }

    /** One connection per load: read the Login Request, send the input, close this side, wait for the client's. */
    private static void serve()
    {
        while (!serverSocket.isClosed())
        {
            try (Socket socket = serverSocket.accept())
            {
                final DataInputStream in = new DataInputStream(socket.getInputStream());
                in.readFully(new byte[in.readUnsignedShort()]);
                final OutputStream out = socket.getOutputStream();
                out.write(reply);
                out.flush();
                socket.shutdownOutput();
                drain(in);
            }
            catch (final IOException ex)
            {
                // the client went first (a load that failed early closes), or the server was stopped
            }
        }
    }

    private static void drain(final InputStream in) throws IOException
    {
        final byte[] scratch = new byte[4096];
        while (in.read(scratch) >= 0)
        {
            // until the client closes: no reset while it reads
        }
    }
}
