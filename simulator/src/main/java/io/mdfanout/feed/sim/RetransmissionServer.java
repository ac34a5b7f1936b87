package io.mdfanout.feed.sim;

import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * The MoldUDP64 re-request server: answers each request (session, first sequence, count) with ordinary downstream
 * MoldUDP64 packets carrying the requested messages from the {@link RetransmissionHistory}, split at the max packet
 * size, by UDP unicast to the address and port the request came from.
 * <p>
 * A request of the wrong size, of another session, for zero messages or sequence 0, or wholly outside the history
 * is counted as rejected and gets no reply; one partly outside the history is answered with the part that is held
 * and counted as partly served. Polled from the simulator's own loop (non-blocking socket), so the history has a
 * single writer and reader. Never throws from {@link #poll()}: a failed send is counted in
 * {@link SimulatorCounters#sendErrors()}.
 */
public final class RetransmissionServer implements AutoCloseable
{
    /** Length of a MoldUDP64 request: session (10), sequence (8), count (2). */
    public static final int REQUEST_LENGTH = 20;
    /** Most requests handled per {@link #poll()}, so one poll cannot starve the sending of live packets for long. */
    public static final int MAX_REQUESTS_PER_POLL = 16;

    private static final int MAX_SEND_ATTEMPTS = 1_000_000;

    private final DatagramChannel channel;
    private final RetransmissionHistory history;
    private final SimulatorCounters counters;
    private final int maxPacketBytes;
    private final ByteBuffer receiveBuffer = ByteBuffer.allocateDirect(MoldUdp64Packetizer.MAX_UDP_PAYLOAD);
    private final UnsafeBuffer request = new UnsafeBuffer(receiveBuffer);
    private final ByteBuffer sendBuffer;
    private final UnsafeBuffer packet;
    private final byte[] sessionBytes = new byte[MoldUdp64Packetizer.SESSION_LENGTH];

    /**
     * Opens the server socket.
     *
     * @param bindAddress    the local IP address to listen on (the simulator's --interface).
     * @param port           the UDP port, 1..65535 (or 0 for an ephemeral port, for tests).
     * @param session        the MoldUDP64 session served.
     * @param maxPacketBytes the largest reply packet.
     * @param history        the messages that can be retransmitted.
     * @param counters       requests and retransmissions are counted here.
     * @throws IllegalArgumentException for a bad address, port, session or packet size.
     * @throws IOException              when the socket cannot be opened or bound.
     */
    public RetransmissionServer(
        final String bindAddress,
        final int port,
        final String session,
        final int maxPacketBytes,
        final RetransmissionHistory history,
        final SimulatorCounters counters) throws IOException
    {
        MoldUdp64Packetizer.validateSession(session);
        if (port < 0 || port > 65_535)
        {
            throw new IllegalArgumentException("retransmit port must be 0..65535: " + port);
        }
        if (maxPacketBytes < MoldUdp64Packetizer.HEADER_LENGTH + 2 + ItchEncoder.MAX_MESSAGE_LENGTH ||
            maxPacketBytes > MoldUdp64Packetizer.MAX_UDP_PAYLOAD)
        {
            throw new IllegalArgumentException("bad max packet bytes: " + maxPacketBytes);
        }
        final InetAddress address;
        try
        {
            address = InetAddress.getByName(bindAddress);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("bad retransmit server address: " + bindAddress);
        }

        this.history = history;
        this.counters = counters;
        this.maxPacketBytes = maxPacketBytes;
        sendBuffer = ByteBuffer.allocateDirect(maxPacketBytes);
        packet = new UnsafeBuffer(sendBuffer);
        for (int i = 0; i < MoldUdp64Packetizer.SESSION_LENGTH; i++)
        {
            sessionBytes[i] = (byte)(i < session.length() ? session.charAt(i) : ' ');
            packet.putByte(i, sessionBytes[i]);
        }

        channel = DatagramChannel.open(StandardProtocolFamily.INET);
        try
        {
            channel.setOption(StandardSocketOptions.SO_SNDBUF, MulticastSender.SEND_BUFFER_BYTES);
            channel.bind(new InetSocketAddress(address, port));
            channel.configureBlocking(false);
        }
        catch (final IOException | RuntimeException ex)
        {
            CloseHelper.quietClose(channel);
            throw ex;
        }
    }

    /**
     * The port the server listens on (useful when opened with port 0).
     *
     * @return the local port, or -1 when it cannot be read.
     */
    public int localPort()
    {
        try
        {
            return ((InetSocketAddress)channel.getLocalAddress()).getPort();
        }
        catch (final IOException ex)
        {
            return -1;
        }
    }

    /**
     * Answers the requests waiting on the socket, up to {@link #MAX_REQUESTS_PER_POLL}.
     *
     * @return the number of requests handled.
     */
    public int poll()
    {
        int handled = 0;
        while (handled < MAX_REQUESTS_PER_POLL)
        {
            final SocketAddress requester;
            receiveBuffer.clear();
            try
            {
                requester = channel.receive(receiveBuffer);
            }
            catch (final IOException ex)
            {
                break;
            }
            if (null == requester)
            {
                break;
            }
            handled++;
            counters.retransmitRequestsReceived().incrementRelease();
            onRequest(receiveBuffer.position(), requester);
        }
        return handled;
    }

    /**
     * Closes the socket.
     */
    public void close()
    {
        CloseHelper.quietClose(channel);
    }

    private void onRequest(final int length, final SocketAddress requester)
    {
        if (REQUEST_LENGTH != length || !isOurSession())
        {
            counters.retransmitRequestsRejected().incrementRelease();
            return;
        }
        final long firstRequested = request.getLong(MoldUdp64Packetizer.SEQUENCE_OFFSET, BIG_ENDIAN);
        final int countRequested = request.getShort(MoldUdp64Packetizer.COUNT_OFFSET, BIG_ENDIAN) & 0xFFFF;
        if (firstRequested < 1 || 0 == countRequested)
        {
            counters.retransmitRequestsRejected().incrementRelease();
            return;
        }

        final long lastRequested = firstRequested + countRequested - 1;
        final long first = Math.max(firstRequested, history.oldestSequence());
        final long last = Math.min(lastRequested, history.nextSequence() - 1);
        if (first > last)
        {
            counters.retransmitRequestsRejected().incrementRelease();
            return;
        }
        if (first != firstRequested || last != lastRequested)
        {
            counters.retransmitRequestsPartlyServed().incrementRelease();
        }
        answer(first, last, requester);
    }

    private void answer(final long first, final long last, final SocketAddress requester)
    {
        long packetFirst = first;
        int position = MoldUdp64Packetizer.HEADER_LENGTH;
        for (long sequence = first; sequence <= last; sequence++)
        {
            if (position + history.blockLength(sequence) > maxPacketBytes)
            {
                send(packetFirst, (int)(sequence - packetFirst), position, requester);
                packetFirst = sequence;
                position = MoldUdp64Packetizer.HEADER_LENGTH;
            }
            position += history.copyBlock(sequence, packet, position);
        }
        send(packetFirst, (int)(last + 1 - packetFirst), position, requester);
    }

    private void send(final long firstSequence, final int count, final int length, final SocketAddress requester)
    {
        packet.putLong(MoldUdp64Packetizer.SEQUENCE_OFFSET, firstSequence, BIG_ENDIAN);
        packet.putShort(MoldUdp64Packetizer.COUNT_OFFSET, (short)count, BIG_ENDIAN);
        sendBuffer.clear().limit(length);
        try
        {
            int attempts = 0;
            int written;
            while (0 == (written = channel.send(sendBuffer, requester)) && ++attempts < MAX_SEND_ATTEMPTS)
            {
                Thread.onSpinWait();
            }
            if (written == length)
            {
                counters.retransmitPacketsSent().incrementRelease();
                counters.retransmitMessagesSent().getAndAddRelease(count);
            }
            else
            {
                counters.sendErrors().incrementRelease();
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            counters.sendErrors().incrementRelease();
        }
    }

    private boolean isOurSession()
    {
        for (int i = 0; i < MoldUdp64Packetizer.SESSION_LENGTH; i++)
        {
            if (request.getByte(i) != sessionBytes[i])
            {
                return false;
            }
        }
        return true;
    }
}
