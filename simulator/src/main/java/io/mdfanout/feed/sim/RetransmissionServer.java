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
import java.util.ArrayDeque;
import java.util.SplittableRandom;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * The MoldUDP64 re-request server: answers each request (session, first sequence, count) with ordinary downstream
 * MoldUDP64 packets carrying the requested messages from the {@link RetransmissionHistory}, by UDP unicast to the
 * address and port the request came from. As the MoldUDP64 specification says, by default an answer is one packet
 * (as many of the requested messages as fit; the client asks again for the rest); {@link Answering} makes it stream
 * every packet a request needs, limit its rate, lose some answers, or fall silent, as a loaded exchange does.
 * <p>
 * Answers wait in a bounded queue, oldest first, and are sent as the rate allows; a request that finds the queue
 * full is ignored and counted, as a loaded server drops what it cannot serve.
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
    /** Answers waiting to be sent at most. */
    public static final int MAX_QUEUED_ANSWERS = 256;

    /**
     * How the server answers.
     *
     * @param streams             every packet a request needs (true), or one packet a request as specified (false).
     * @param messagesPerSecond   most messages retransmitted a second, 0 for no limit.
     * @param dropPercent         answer packets lost on purpose, 0..100 (a deterministic function of the seed).
     * @param seed                seed of the losses.
     * @param silentAfterMessages messages served before the server stops answering for good, 0 for never.
     */
    public record Answering(
        boolean streams, long messagesPerSecond, double dropPercent, long seed, long silentAfterMessages)
    {
        /** As the specification says: one packet a request, no limit, no loss. */
        public static final Answering SPECIFIED = new Answering(false, 0, 0, 0, 0);

        /** Checks the values. */
        public Answering
        {
            if (messagesPerSecond < 0)
            {
                throw new IllegalArgumentException("retransmit rate must be 0 (no limit) or positive: " +
                    messagesPerSecond);
            }
            if (!(dropPercent >= 0 && dropPercent <= 100))
            {
                throw new IllegalArgumentException("retransmit drop percent must be 0..100: " + dropPercent);
            }
            if (silentAfterMessages < 0)
            {
                throw new IllegalArgumentException("retransmit silent-after must be 0 (never) or positive: " +
                    silentAfterMessages);
            }
        }
    }

    /** An answer being sent: the next sequence and the last one, to whom. */
    private static final class Answer
    {
        long next;
        long last;
        SocketAddress requester;
    }

    private final DatagramChannel channel;
    private final RetransmissionHistory history;
    private final SimulatorCounters counters;
    private final int maxPacketBytes;
    private final ByteBuffer receiveBuffer = ByteBuffer.allocateDirect(MoldUdp64Packetizer.MAX_UDP_PAYLOAD);
    private final UnsafeBuffer request = new UnsafeBuffer(receiveBuffer);
    private final ByteBuffer sendBuffer;
    private final UnsafeBuffer packet;
    private final byte[] sessionBytes = new byte[MoldUdp64Packetizer.SESSION_LENGTH];
    private final Answering answering;
    private final SplittableRandom losses;
    private final ArrayDeque<Answer> queue = new ArrayDeque<>(MAX_QUEUED_ANSWERS);
    private final ArrayDeque<Answer> free = new ArrayDeque<>(MAX_QUEUED_ANSWERS);
    private double tokens;
    private long tokensAtNs;
    private long served;
    private boolean silenceLogged;

    /**
     * Opens the server socket.
     *
     * @param bindAddress    the local IP address to listen on (the simulator's --interface).
     * @param port           the UDP port, 1..65535 (or 0 for an ephemeral port, for tests).
     * @param session        the MoldUDP64 session served.
     * @param maxPacketBytes the largest reply packet.
     * @param history        the messages that can be retransmitted.
     * @param counters       requests and retransmissions are counted here.
     * @param answering      how requests are answered.
     * @throws IllegalArgumentException for a bad address, port, session or packet size.
     * @throws IOException              when the socket cannot be opened or bound.
     */
    public RetransmissionServer(
        final String bindAddress,
        final int port,
        final String session,
        final int maxPacketBytes,
        final RetransmissionHistory history,
        final SimulatorCounters counters,
        final Answering answering) throws IOException
    {
        this.answering = answering;
        losses = new SplittableRandom(answering.seed());
        for (int i = 0; i < MAX_QUEUED_ANSWERS; i++)
        {
            free.add(new Answer());
        }
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
     * Takes the requests waiting on the socket, up to {@link #MAX_REQUESTS_PER_POLL}, and sends what the answers
     * queued and the rate allow.
     *
     * @return the number of requests handled and packets sent.
     */
    public int poll()
    {
        return receive() + sendQueued(System.nanoTime());
    }

    /** @return answers waiting to be sent. */
    public int queuedAnswers()
    {
        return queue.size();
    }

    private int receive()
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
        if (isSilent() || free.isEmpty())
        {
            counters.retransmitRequestsIgnored().incrementRelease();
            return;
        }
        final Answer answer = free.poll();
        answer.next = first;
        answer.last = last;
        answer.requester = requester;
        queue.add(answer);
    }

    private boolean isSilent()
    {
        if (answering.silentAfterMessages() > 0 && served >= answering.silentAfterMessages())
        {
            if (!silenceLogged)
            {
                silenceLogged = true;
                System.err.println("simulator: the re-request server falls silent after " + served +
                    " messages (--retransmit-silent-after)");
            }
            return true;
        }
        return false;
    }

    private int sendQueued(final long nowNs)
    {
        if (queue.isEmpty())
        {
            return 0;
        }
        final long rate = answering.messagesPerSecond();
        if (rate > 0)
        {
            // A bucket of at most 10 ms of messages (and at least a full packet's worth).
            final double cap = Math.max(rate / 100.0, 100);
            tokens = Math.min(cap, tokens + (nowNs - tokensAtNs) * (rate / 1e9));
            tokensAtNs = nowNs;
        }
        int sent = 0;
        while (!queue.isEmpty() && (0 == rate || tokens >= 1) && sent < MAX_REQUESTS_PER_POLL * 4)
        {
            if (isSilent())
            {
                while (!queue.isEmpty())
                {
                    counters.retransmitRequestsIgnored().incrementRelease();
                    free.add(queue.poll());
                }
                break;
            }
            final Answer answer = queue.peek();
            if (answer.next < history.oldestSequence())
            {
                // The history moved on while the answer waited: what is left of it is all it can have.
                answer.next = history.oldestSequence();
                if (answer.next > answer.last)
                {
                    answer.requester = null;
                    free.add(queue.poll());
                    continue;
                }
            }
            final int count = sendPacket(answer);
            answer.next += count;
            served += count;
            tokens -= count;
            sent++;
            if (!answering.streams() || answer.next > answer.last)
            {
                answer.requester = null;
                free.add(queue.poll());
            }
        }
        return sent;
    }

    /** One packet from {@code answer.next}: as many messages as fit, up to the answer's last. */
    private int sendPacket(final Answer answer)
    {
        int position = MoldUdp64Packetizer.HEADER_LENGTH;
        long sequence = answer.next;
        while (sequence <= answer.last && sequence - answer.next < 0xFFFF &&
            position + history.blockLength(sequence) <= maxPacketBytes)
        {
            position += history.copyBlock(sequence, packet, position);
            sequence++;
        }
        final int count = (int)(sequence - answer.next);
        if (answering.dropPercent() > 0 && losses.nextDouble() * 100 < answering.dropPercent())
        {
            counters.retransmitPacketsDropped().incrementRelease();
        }
        else
        {
            send(answer.next, count, position, answer.requester);
        }
        return count;
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
