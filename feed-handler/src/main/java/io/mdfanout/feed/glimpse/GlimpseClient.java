package io.mdfanout.feed.glimpse;

import com.paritytrading.nassau.MessageListener;
import com.paritytrading.nassau.soupbintcp.SoupBinTCP;
import com.paritytrading.nassau.soupbintcp.SoupBinTCPClient;
import com.paritytrading.nassau.soupbintcp.SoupBinTCPClientStatusListener;
import com.paritytrading.nassau.soupbintcp.SoupBinTCPException;
import io.mdfanout.feed.glimpse.GlimpseException.Reason;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * Loads a NASDAQ GLIMPSE 5.0 snapshot: connects to the server over TCP, logs in to SoupBinTCP 3.0 (nassau's
 * {@link SoupBinTCPClient}, asking for sequence number 1 as GLIMPSE requires), passes the ITCH 5.0 message of every
 * Sequenced Data packet to a {@link GlimpseListener} in order until the End of Snapshot message ('G' and a 20
 * character ASCII sequence number), then logs out and returns that sequence number: the MoldUDP64 sequence number of
 * the next real-time message, where to continue the feed from.
 * <p>
 * It never hangs: the connect has {@link GlimpseClientConfig#connectTimeoutMs()} and the whole load
 * {@link GlimpseClientConfig#timeoutMs()}, over a non-blocking socket and a selector. Every failure is a
 * {@link GlimpseException} naming the server (host:port), what happened and how far the load got: connection refused
 * or not made in time, login rejected (and why), no End of Snapshot in time, the server closing or ending the session
 * before End of Snapshot, an unreadable packet or sequence number. The listener has then seen only part of a
 * snapshot, which the caller must discard. An exception thrown by the listener ends the load (the connection is
 * closed) and is passed on as it is.
 * <p>
 * A startup path: a load allocates a few objects and buffers; the messages themselves are passed without copying
 * or allocating. Not thread-safe: one load at a time per client (each load opens its own connection).
 */
public final class GlimpseClient
{
    /** Largest SoupBinTCP payload: the packet length field is 16 bits and counts the type byte too. */
    private static final int MAX_PAYLOAD_LENGTH = 65_534;
    /** How often the loop wakes to send a client heartbeat, at most. */
    private static final long HEARTBEAT_CHECK_MS = 1_000;

    private final GlimpseClientConfig config;

    /**
     * Creates a client.
     *
     * @param config the timeouts and credentials, validated here.
     * @throws IllegalArgumentException naming the setting at fault.
     */
    public GlimpseClient(final GlimpseClientConfig config)
    {
        this.config = config.validate();
    }

    /**
     * Loads a snapshot from a server given as {@code host:port} (see {@link #parseAddress(String)}).
     *
     * @param server   {@code host:port}.
     * @param listener receives every snapshot message.
     * @return the End of Snapshot's sequence number and the load's counts.
     * @throws IllegalArgumentException when {@code server} is not {@code host:port}.
     * @throws GlimpseException         when the snapshot could not be loaded.
     */
    public GlimpseResult load(final String server, final GlimpseListener listener) throws GlimpseException
    {
        return load(parseAddress(server), listener);
    }

    /**
     * Loads a snapshot.
     *
     * @param server   the server's address; an unresolved one is resolved here.
     * @param listener receives every snapshot message, in order, End of Snapshot excluded.
     * @return the End of Snapshot's sequence number and the load's counts.
     * @throws GlimpseException when the snapshot could not be loaded (see the class comment).
     */
    public GlimpseResult load(final InetSocketAddress server, final GlimpseListener listener) throws GlimpseException
    {
        final String name = server.getHostString() + ":" + server.getPort();
        final long startNs = System.nanoTime();
        final long deadlineNs = startNs + TimeUnit.MILLISECONDS.toNanos(config.timeoutMs());
        final InetSocketAddress target = server.isUnresolved() ?
            new InetSocketAddress(server.getHostString(), server.getPort()) : server;
        if (target.isUnresolved())
        {
            throw new GlimpseException(Reason.CONNECT_FAILED,
                "GLIMPSE " + name + ": cannot resolve host '" + server.getHostString() + "'", null);
        }

        final Session session = new Session(name, listener);
        try (SocketChannel channel = SocketChannel.open(); Selector selector = Selector.open())
        {
            channel.configureBlocking(false);
            final SelectionKey key = connect(channel, selector, target, name, startNs, deadlineNs);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            key.interestOps(SelectionKey.OP_READ);

            final SoupBinTCPClient soup = new SoupBinTCPClient(channel, MAX_PAYLOAD_LENGTH, session, session);
            final SoupBinTCP.LoginRequest login = new SoupBinTCP.LoginRequest();
            login.setUsername(config.username().trim());
            login.setPassword(config.password().trim());
            login.setRequestedSession(config.requestedSession().trim());
            login.setRequestedSequenceNumber(1);
            soup.login(login);

            while (!session.complete)
            {
                final long leftNs = deadlineNs - System.nanoTime();
                if (leftNs <= 0)
                {
                    throw session.failure(Reason.TIMED_OUT,
                        "no End of Snapshot within " + config.timeoutMs() + " ms", null);
                }
                selector.select(Math.max(1, Math.min(HEARTBEAT_CHECK_MS, TimeUnit.NANOSECONDS.toMillis(leftNs))));
                selector.selectedKeys().clear();
                final int read = soup.receive();
                if (read < 0 && !session.complete)
                {
                    throw session.failure(Reason.ENDED_EARLY,
                        "the server closed the connection before End of Snapshot", null);
                }
                if (!session.complete)
                {
                    soup.keepAlive();
                }
            }

            try
            {
                soup.logout();
            }
            catch (final IOException ex)
            {
                // the server may have closed first, as it may after End of Session: the snapshot is whole anyway
            }
            return new GlimpseResult(name, session.session, session.nextSequence, session.messages, session.bytes,
                System.nanoTime() - startNs);
        }
        catch (final GlimpseException ex)
        {
            throw ex;
        }
        catch (final SoupBinTCPException ex)
        {
            throw session.failure(Reason.MALFORMED, "unreadable SoupBinTCP packet: " + ex.getMessage(), ex);
        }
        catch (final BufferUnderflowException ex)
        {
            // nassau reads a Login Accepted or Rejected shorter than its fields past the packet's end
            throw session.failure(Reason.MALFORMED, "a SoupBinTCP packet shorter than its type's fields", ex);
        }
        catch (final IOException ex)
        {
            throw session.failure(Reason.IO_ERROR, "connection failed: " + ex, ex);
        }
    }

    /**
     * Parses {@code host:port}: a host name, an IPv4 address or a bracketed IPv6 address ({@code [::1]:26401}), a
     * port 1..65535. The host is not resolved here.
     *
     * @param hostPort the text.
     * @return an unresolved address.
     * @throws IllegalArgumentException saying what is wrong with the text.
     */
    public static InetSocketAddress parseAddress(final String hostPort)
    {
        if (null == hostPort || hostPort.trim().isEmpty())
        {
            throw new IllegalArgumentException("GLIMPSE server must be HOST:PORT, got nothing");
        }
        final String text = hostPort.trim();
        final int colon = text.lastIndexOf(':');
        if (colon < 1 || colon == text.length() - 1)
        {
            throw new IllegalArgumentException("GLIMPSE server must be HOST:PORT: '" + hostPort + "'");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]") && host.length() > 2)
        {
            host = host.substring(1, host.length() - 1);
        }
        else if (host.indexOf(':') >= 0)
        {
            throw new IllegalArgumentException("GLIMPSE server: an IPv6 address needs brackets, [ADDRESS]:PORT: '" +
                hostPort + "'");
        }
        final int port;
        try
        {
            port = Integer.parseInt(text.substring(colon + 1));
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("GLIMPSE server port is not a number: '" + hostPort + "'");
        }
        if (port < 1 || port > 65_535)
        {
            throw new IllegalArgumentException("GLIMPSE server port must be 1 to 65535: '" + hostPort + "'");
        }
        return InetSocketAddress.createUnresolved(host, port);
    }

    /**
     * Reads an End of Snapshot message's sequence number, leniently: the message is 'G' then the number in its last
     * 20 bytes (so a message that carries the ITCH header before it reads too), ASCII digits, right-justified,
     * space- or zero-padded; spaces around the digits are ignored.
     *
     * @param buffer holding the message.
     * @param offset of its type byte.
     * @param length of the message.
     * @return the sequence number, or -1 when the field is not a number of at most 18 digits.
     */
    public static long parseEndOfSnapshot(final DirectBuffer buffer, final int offset, final int length)
    {
        final int fieldLength = 20;
        if (length < 1 + fieldLength)
        {
            return -1;
        }
        int start = offset + length - fieldLength;
        int end = offset + length;
        while (start < end && isBlank(buffer.getByte(start)))
        {
            start++;
        }
        while (end > start && isBlank(buffer.getByte(end - 1)))
        {
            end--;
        }
        if (start == end)
        {
            return -1;
        }
        long value = 0;
        int digits = 0;
        for (int i = start; i < end; i++)
        {
            final byte b = buffer.getByte(i);
            if (b < '0' || b > '9')
            {
                return -1;
            }
            if (value > 0 || b != '0')
            {
                digits++;
            }
            if (digits > 18)
            {
                return -1;
            }
            value = value * 10 + (b - '0');
        }
        return value;
    }

    private static boolean isBlank(final byte b)
    {
        return ' ' == b || 0 == b;
    }

    private SelectionKey connect(
        final SocketChannel channel,
        final Selector selector,
        final InetSocketAddress target,
        final String name,
        final long startNs,
        final long deadlineNs) throws IOException
    {
        final long connectDeadlineNs =
            Math.min(deadlineNs, startNs + TimeUnit.MILLISECONDS.toNanos(config.connectTimeoutMs()));
        try
        {
            if (channel.connect(target))
            {
                return channel.register(selector, SelectionKey.OP_READ);
            }
            final SelectionKey key = channel.register(selector, SelectionKey.OP_CONNECT);
            while (true)
            {
                final long leftNs = connectDeadlineNs - System.nanoTime();
                if (leftNs <= 0)
                {
                    throw new GlimpseException(Reason.CONNECT_FAILED, "GLIMPSE " + name + ": not connected within " +
                        TimeUnit.NANOSECONDS.toMillis(connectDeadlineNs - startNs) + " ms", null);
                }
                selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(leftNs)));
                selector.selectedKeys().clear();
                if (channel.finishConnect())
                {
                    return key;
                }
            }
        }
        catch (final GlimpseException ex)
        {
            throw ex;
        }
        catch (final IOException ex)
        {
            throw new GlimpseException(Reason.CONNECT_FAILED, "GLIMPSE " + name + ": connect failed: " + ex, ex);
        }
    }

    /** One load's progress, fed by nassau's callbacks. */
    private static final class Session implements MessageListener, SoupBinTCPClientStatusListener
    {
        private final String name;
        private final GlimpseListener listener;
        private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
        String session;
        boolean loggedIn;
        boolean complete;
        long nextSequence;
        long messages;
        long bytes;

        Session(final String name, final GlimpseListener listener)
        {
            this.name = name;
            this.listener = listener;
        }

        public void message(final ByteBuffer payload) throws IOException
        {
            if (complete)
            {
                return; // after End of Snapshot: not part of the snapshot
            }
            if (!loggedIn)
            {
                throw failure(Reason.MALFORMED, "Sequenced Data before Login Accepted", null);
            }
            final int length = payload.remaining();
            if (length < 1)
            {
                throw failure(Reason.MALFORMED, "empty Sequenced Data packet", null);
            }
            view.wrap(payload, payload.position(), length);
            if ('G' == view.getByte(0))
            {
                final long sequence = parseEndOfSnapshot(view, 0, length);
                if (sequence < 1)
                {
                    throw failure(Reason.MALFORMED, "End of Snapshot without a sequence number >= 1: '" +
                        view.getStringWithoutLengthAscii(0, length) + "'", null);
                }
                nextSequence = sequence;
                complete = true;
                return;
            }
            messages++;
            bytes += length;
            listener.onMessage(view, 0, length);
        }

        public void heartbeatTimeout(final SoupBinTCPClient client) throws IOException
        {
            throw failure(Reason.TIMED_OUT, "the server sent nothing for 15 s (SoupBinTCP heartbeat timeout)", null);
        }

        public void loginAccepted(final SoupBinTCPClient client, final SoupBinTCP.LoginAccepted payload)
        {
            loggedIn = true;
            session = payload.getSession().trim();
        }

        public void loginRejected(final SoupBinTCPClient client, final SoupBinTCP.LoginRejected payload)
            throws IOException
        {
            final byte code = payload.getRejectReasonCode();
            final String why = SoupBinTCP.LOGIN_REJECT_CODE_NOT_AUTHORIZED == code ?
                "'A', not authorized: check the username and password" :
                SoupBinTCP.LOGIN_REJECT_CODE_SESSION_NOT_AVAILABLE == code ?
                "'S', session not available: check the requested session" :
                "code " + (code >= 0x20 && code < 0x7F ? "'" + (char)code + "'" : String.valueOf(code & 0xFF));
            throw new GlimpseException(Reason.LOGIN_REJECTED, "GLIMPSE " + name + ": login rejected, " + why, null);
        }

        public void endOfSession(final SoupBinTCPClient client) throws IOException
        {
            if (!complete)
            {
                throw failure(Reason.ENDED_EARLY, "the server ended the session (End of Session) before End of " +
                    "Snapshot", null);
            }
        }

        GlimpseException failure(final Reason reason, final String what, final Throwable cause)
        {
            return new GlimpseException(reason, "GLIMPSE " + name + ": " + what + " (" + progress() + ")", cause);
        }

        private String progress()
        {
            return loggedIn ? "logged in to session '" + session + "', " + messages + " messages received" :
                "not logged in";
        }
    }
}
