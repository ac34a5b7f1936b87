package io.mdfanout.feed.sim;

import com.paritytrading.nassau.soupbintcp.SoupBinTCP;
import com.paritytrading.nassau.soupbintcp.SoupBinTCPServer;
import com.paritytrading.nassau.soupbintcp.SoupBinTCPServerStatusListener;
import org.agrona.CloseHelper;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The simulator's NASDAQ GLIMPSE 5.0 server: SoupBinTCP 3.0 over TCP, one client at a time, on a thread of its own.
 * <p>
 * A session: the client logs in (nassau's {@link SoupBinTCPServer} reads the Login Request); the login is refused
 * with Login Rejected 'A' (not authorized) when a username or password is configured and the client's differ, or
 * 'S' (session not available) when the client asks for another session or for a sequence number other than 1 (blank
 * and 0 are taken as 1: GLIMPSE is always spun from the start). Accepted, it gets Login Accepted with the
 * simulator's MoldUDP64 session name and sequence number 1, then the spin of the live session's state at this
 * moment ({@link GlimpseSnapshots}, {@link GlimpseState}) as Sequenced Data packets, End of Snapshot last, then End
 * of Session; the server then waits briefly for the client to close before closing itself, so that no byte of the
 * spin is lost to a reset.
 * <p>
 * Every session is counted (served, login rejected, failed) and logged in one line. Nothing a client does stops the
 * server: a client that does not log in within {@link #LOGIN_TIMEOUT_MS}, stops reading for
 * {@link #WRITE_TIMEOUT_MS} or sends garbage is logged, counted as failed and disconnected, and the next is served.
 * Clients that connect meanwhile wait in the listen backlog.
 */
public final class GlimpseServer implements AutoCloseable
{
    /** How long a client has to log in after connecting. */
    public static final long LOGIN_TIMEOUT_MS = 5_000;
    /** How long the server waits for the sender thread to hand a snapshot over. */
    public static final long SNAPSHOT_TIMEOUT_MS = 10_000;
    /** How long a client may leave the spin unread before it is disconnected. */
    public static final long WRITE_TIMEOUT_MS = 30_000;
    /** After End of Session, how long the server waits for the client to close first. */
    public static final long CLOSE_WAIT_MS = 2_000;
    /** Longest SoupBinTCP username. */
    public static final int MAX_USERNAME_LENGTH = 6;
    /** Longest SoupBinTCP password. */
    public static final int MAX_PASSWORD_LENGTH = 10;

    private static final byte[] END_OF_SESSION_PACKET = { 0, 1, 'Z' };

    private final ServerSocketChannel serverChannel;
    private final int port;
    private final String session;
    private final String username;
    private final String password;
    private final GlimpseSnapshots snapshots;
    private final SimulatorCounters counters;
    private final PrintStream log;
    private final Thread thread;
    private final ByteBuffer drainBuffer = ByteBuffer.allocateDirect(4096);
    private volatile boolean running = true;
    private volatile SocketChannel client;

    /**
     * Opens the listening socket; {@link #start()} starts serving.
     *
     * @param bindAddress the local IP address to listen on.
     * @param port        the TCP port, 1..65535, or 0 for an ephemeral one (see {@link #port()}).
     * @param session     the session name sent in Login Accepted (the simulator's MoldUDP64 session).
     * @param username    the username a client must give, or null/blank to accept any.
     * @param password    the password a client must give, or null/blank to accept any.
     * @param snapshots   where the snapshots come from.
     * @param counters    sessions are counted here.
     * @param log         where each session's line goes.
     * @throws IllegalArgumentException for a bad address, port, session, username or password.
     * @throws IOException              when the socket cannot be bound.
     */
    public GlimpseServer(
        final String bindAddress,
        final int port,
        final String session,
        final String username,
        final String password,
        final GlimpseSnapshots snapshots,
        final SimulatorCounters counters,
        final PrintStream log) throws IOException
    {
        MoldUdp64Packetizer.validateSession(session);
        validateCredential("--glimpse-username", username, MAX_USERNAME_LENGTH);
        validateCredential("--glimpse-password", password, MAX_PASSWORD_LENGTH);
        if (port < 0 || port > 65_535)
        {
            throw new IllegalArgumentException("--glimpse-port must be 0..65535: " + port);
        }
        final InetAddress address;
        try
        {
            address = InetAddress.getByName(bindAddress);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("--glimpse-interface is not an address: " + bindAddress, ex);
        }
        this.session = session;
        this.username = null == username ? "" : username.trim();
        this.password = null == password ? "" : password.trim();
        this.snapshots = snapshots;
        this.counters = counters;
        this.log = log;
        serverChannel = ServerSocketChannel.open();
        try
        {
            serverChannel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            serverChannel.bind(new InetSocketAddress(address, port), 16);
        }
        catch (final IOException ex)
        {
            CloseHelper.quietClose(serverChannel);
            throw new IOException("GLIMPSE server cannot listen on " + bindAddress + ":" + port + ": " + ex, ex);
        }
        this.port = ((InetSocketAddress)serverChannel.getLocalAddress()).getPort();
        thread = new Thread(this::run, "simulator-glimpse");
        thread.setDaemon(true);
    }

    /**
     * Checks a username or password option: printable ASCII, at most {@code maxLength} characters once trimmed.
     *
     * @param option    the option's name, for the message.
     * @param value     the value, or null.
     * @param maxLength the SoupBinTCP field's length.
     * @throws IllegalArgumentException naming the option when the value does not fit.
     */
    public static void validateCredential(final String option, final String value, final int maxLength)
    {
        if (null == value)
        {
            return;
        }
        final String trimmed = value.trim();
        if (trimmed.length() > maxLength)
        {
            throw new IllegalArgumentException(option + " must be at most " + maxLength + " characters: '" + value + "'");
        }
        for (int i = 0; i < trimmed.length(); i++)
        {
            final char c = trimmed.charAt(i);
            if (c < 0x21 || c > 0x7E)
            {
                throw new IllegalArgumentException(option + " must be printable ASCII without spaces: '" + value + "'");
            }
        }
    }

    /**
     * Starts the server's thread.
     *
     * @return this.
     */
    public GlimpseServer start()
    {
        thread.start();
        return this;
    }

    /**
     * The port listened on (the ephemeral one when 0 was asked for).
     *
     * @return the port.
     */
    public int port()
    {
        return port;
    }

    /**
     * Stops serving: closes the listening socket and the client being served, and waits briefly for the thread.
     */
    public void close()
    {
        running = false;
        CloseHelper.quietClose(serverChannel);
        CloseHelper.quietClose(client);
        try
        {
            thread.join(TimeUnit.SECONDS.toMillis(2));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void run()
    {
        while (running)
        {
            final SocketChannel channel;
            try
            {
                channel = serverChannel.accept();
            }
            catch (final ClosedChannelException ex)
            {
                return; // closed
            }
            catch (final IOException ex)
            {
                if (running)
                {
                    log.println("simulator: GLIMPSE accept failed: " + ex);
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // e.g. out of descriptors: no spin
                }
                continue;
            }
            client = channel;
            final String peer = peer(channel);
            try (Selector selector = Selector.open())
            {
                serve(channel, selector, peer);
            }
            catch (final IOException | RuntimeException ex)
            {
                counters.glimpseSessionsFailed().incrementRelease();
                if (running)
                {
                    log.println("simulator: GLIMPSE session with " + peer + " failed: " + ex);
                }
            }
            finally
            {
                client = null;
                CloseHelper.quietClose(channel);
            }
        }
    }

    private void serve(final SocketChannel channel, final Selector selector, final String peer) throws IOException
    {
        channel.configureBlocking(false);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        final SelectionKey key = channel.register(selector, SelectionKey.OP_READ);
        final LoginListener login = new LoginListener();
        final SoupBinTCPServer soup = new SoupBinTCPServer(channel, 64, buffer -> { }, login);

        final long loginDeadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LOGIN_TIMEOUT_MS);
        while (null == login.request)
        {
            if (login.loggedOut)
            {
                throw new IOException("client logged out before logging in");
            }
            final long leftNs = loginDeadlineNs - System.nanoTime();
            if (leftNs <= 0)
            {
                throw new IOException("no Login Request within " + LOGIN_TIMEOUT_MS + " ms");
            }
            selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(leftNs)));
            selector.selectedKeys().clear();
            final int read;
            try
            {
                read = soup.receive();
            }
            catch (final RuntimeException ex)
            {
                // nassau reads the login fields without checking them: a short or garbled packet lands here
                throw new IOException("malformed SoupBinTCP packet before login: " + ex, ex);
            }
            if (read < 0)
            {
                throw new IOException("client closed the connection before logging in");
            }
        }

        final String notAuthorized = notAuthorized(login.request);
        final String refusal = null != notAuthorized ? notAuthorized : sessionNotAvailable(login.request);
        if (null != refusal)
        {
            final SoupBinTCP.LoginRejected rejected = new SoupBinTCP.LoginRejected();
            rejected.setRejectReasonCode(null != notAuthorized ?
                SoupBinTCP.LOGIN_REJECT_CODE_NOT_AUTHORIZED : SoupBinTCP.LOGIN_REJECT_CODE_SESSION_NOT_AVAILABLE);
            soup.reject(rejected);
            counters.glimpseLoginsRejected().incrementRelease();
            log.println("simulator: GLIMPSE login from " + peer + " rejected: " + refusal);
            closeGracefully(channel, selector, key);
            return;
        }

        final SoupBinTCP.LoginAccepted accepted = new SoupBinTCP.LoginAccepted();
        accepted.setSession(session);
        accepted.setSequenceNumber(1);
        soup.accept(accepted);

        final long startNs = System.nanoTime();
        final GlimpseSnapshots.Snapshot snapshot =
            snapshots.take(TimeUnit.MILLISECONDS.toNanos(SNAPSHOT_TIMEOUT_MS));
        if (null == snapshot)
        {
            throw new IOException("the sender did not hand a snapshot over within " + SNAPSHOT_TIMEOUT_MS + " ms");
        }
        final long takenNs = System.nanoTime();
        final ByteBuffer packets = snapshot.packets();
        final long bytes = packets.remaining();
        write(channel, selector, key, packets);
        write(channel, selector, key, ByteBuffer.wrap(END_OF_SESSION_PACKET));
        final long writtenNs = System.nanoTime();

        counters.glimpseSessionsServed().incrementRelease();
        counters.glimpseMessagesSent().getAndAddRelease(snapshot.messages());
        log.printf(Locale.ROOT, "simulator: GLIMPSE served %s: %d messages (%d bytes), End of Snapshot %d, " +
            "state taken in %.3f ms, written in %.3f ms%n", peer, snapshot.messages(), bytes, snapshot.nextSequence(),
            (takenNs - startNs) / 1e6, (writtenNs - takenNs) / 1e6);
        closeGracefully(channel, selector, key);
    }

    /** Why the credentials are refused (Login Rejected 'A'), or null. */
    private String notAuthorized(final SoupBinTCP.LoginRequest request)
    {
        final String user = request.getUsername().trim();
        final String pass = request.getPassword().trim();
        if ((!username.isEmpty() && !username.equals(user)) || (!password.isEmpty() && !password.equals(pass)))
        {
            return "not authorized: username '" + user + "' or its password does not match --glimpse-username/" +
                "--glimpse-password";
        }
        return null;
    }

    /** Why the session or sequence asked for is refused (Login Rejected 'S'), or null. */
    private String sessionNotAvailable(final SoupBinTCP.LoginRequest request)
    {
        final String requestedSession = request.getRequestedSession().trim();
        if (!requestedSession.isEmpty() && !requestedSession.equals(session.trim()))
        {
            return "session not available: requested '" + requestedSession + "', this is '" + session.trim() + "'";
        }
        final String sequence = requestedSequence(request);
        if (!sequence.isEmpty() && !"0".equals(sequence) && !"1".equals(sequence))
        {
            return "session not available: requested sequence number '" + sequence + "'; GLIMPSE is spun from 1";
        }
        return null;
    }

    /** The raw requested sequence number field: nassau's parse fails on a blank field. */
    private static String requestedSequence(final SoupBinTCP.LoginRequest request)
    {
        try
        {
            return Long.toString(request.getRequestedSequenceNumber());
        }
        catch (final RuntimeException blank)
        {
            return "";
        }
    }

    private void write(
        final SocketChannel channel, final Selector selector, final SelectionKey key, final ByteBuffer bytes)
        throws IOException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WRITE_TIMEOUT_MS);
        while (bytes.hasRemaining())
        {
            if (channel.write(bytes) > 0)
            {
                continue;
            }
            final long leftNs = deadlineNs - System.nanoTime();
            if (leftNs <= 0)
            {
                throw new IOException("client read nothing for " + WRITE_TIMEOUT_MS + " ms; " + bytes.remaining() +
                    " bytes of the spin unsent");
            }
            key.interestOps(SelectionKey.OP_WRITE);
            selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(leftNs)));
            selector.selectedKeys().clear();
            key.interestOps(SelectionKey.OP_READ);
        }
    }

    /**
     * Ends our side (FIN after every byte written), then reads until the client closes or {@link #CLOSE_WAIT_MS}:
     * closing with unread bytes from the client (a heartbeat, its logout) would reset the connection and could
     * discard the end of the spin before the client read it.
     */
    private void closeGracefully(final SocketChannel channel, final Selector selector, final SelectionKey key)
    {
        try
        {
            channel.shutdownOutput();
            final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MS);
            key.interestOps(SelectionKey.OP_READ);
            while (running)
            {
                drainBuffer.clear();
                final int read = channel.read(drainBuffer);
                if (read < 0)
                {
                    return;
                }
                final long leftNs = deadlineNs - System.nanoTime();
                if (leftNs <= 0)
                {
                    return;
                }
                if (0 == read)
                {
                    selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(leftNs)));
                    selector.selectedKeys().clear();
                }
            }
        }
        catch (final IOException ex)
        {
            // the client is gone already: nothing left to protect
        }
    }

    private static String peer(final SocketChannel channel)
    {
        try
        {
            final SocketAddress address = channel.getRemoteAddress();
            return null == address ? "?" : address.toString();
        }
        catch (final IOException ex)
        {
            return "?";
        }
    }

    /** Holds the client's Login Request and whether it logged out. */
    private static final class LoginListener implements SoupBinTCPServerStatusListener
    {
        SoupBinTCP.LoginRequest request;
        boolean loggedOut;

        public void heartbeatTimeout(final SoupBinTCPServer server)
        {
            // the login deadline is shorter than nassau's heartbeat timeout
        }

        public void loginRequest(final SoupBinTCPServer server, final SoupBinTCP.LoginRequest payload)
        {
            request = payload;
        }

        public void logoutRequest(final SoupBinTCPServer server)
        {
            loggedOut = true;
        }
    }
}
