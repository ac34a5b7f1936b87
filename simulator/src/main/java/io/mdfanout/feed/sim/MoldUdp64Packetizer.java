package io.mdfanout.feed.sim;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * Packs ITCH messages into MoldUDP64 downstream packets: a 10-byte session, the sequence number of the first
 * message (the first message of the session is 1), a message count, then blocks of (u16 length, message).
 * <p>
 * A packet is handed to the {@link PacketSink} when the next message would not fit in {@code maxPacketBytes},
 * or on {@link #flush()}. {@link #heartbeatIfIdle()} sends a heartbeat (count 0, sequence = next) when nothing
 * was sent for the heartbeat interval; {@link #endOfSession()} sends the end-of-session packet (count 0xFFFF).
 * Single-threaded, allocation-free after construction; the packet buffer is a direct buffer.
 */
public final class MoldUdp64Packetizer
{
    /** Length of the MoldUDP64 session field. */
    public static final int SESSION_LENGTH = 10;
    /** Offset of the sequence number. */
    public static final int SEQUENCE_OFFSET = 10;
    /** Offset of the message count. */
    public static final int COUNT_OFFSET = 18;
    /** Length of the MoldUDP64 downstream header. */
    public static final int HEADER_LENGTH = 20;
    /** Message count of a heartbeat. */
    public static final int HEARTBEAT_COUNT = 0;
    /** Message count of the end-of-session packet. */
    public static final int END_OF_SESSION_COUNT = 0xFFFF;
    /** Default largest packet, sized to stay below a 1500-byte Ethernet MTU with IP and UDP headers. */
    public static final int DEFAULT_MAX_PACKET_BYTES = 1400;
    /** Largest UDP payload over IPv4. */
    public static final int MAX_UDP_PAYLOAD = 65_507;
    /** Default idle time before a heartbeat: about a second, as NASDAQ does. */
    public static final long DEFAULT_HEARTBEAT_INTERVAL_NS = TimeUnit.SECONDS.toNanos(1);

    private static final int MAX_DATA_COUNT = 0xFFFE;

    private final UnsafeBuffer packet;
    private final int maxPacketBytes;
    private final PacketSink sink;
    private final NanoClock clock;
    private final long heartbeatIntervalNs;
    private final SimulatorCounters counters;

    private long nextSequence = 1;
    private int position = HEADER_LENGTH;
    private int count;
    private long lastSendNs;
    private boolean ended;

    /**
     * Creates a packetizer.
     *
     * @param session             the MoldUDP64 session, 1 to 10 printable ASCII characters (space-padded).
     * @param maxPacketBytes      the largest packet, {@link #HEADER_LENGTH} + 2 + {@link ItchEncoder#MAX_MESSAGE_LENGTH}
     *                            to {@link #MAX_UDP_PAYLOAD}.
     * @param heartbeatIntervalNs idle time before a heartbeat.
     * @param clock               the clock for idle detection.
     * @param sink                where finished packets go.
     * @param counters            messages, packets and heartbeats are counted here.
     * @throws IllegalArgumentException for a bad session or packet size.
     */
    public MoldUdp64Packetizer(
        final String session,
        final int maxPacketBytes,
        final long heartbeatIntervalNs,
        final NanoClock clock,
        final PacketSink sink,
        final SimulatorCounters counters)
    {
        validateSession(session);
        final int minimum = HEADER_LENGTH + 2 + ItchEncoder.MAX_MESSAGE_LENGTH;
        if (maxPacketBytes < minimum || maxPacketBytes > MAX_UDP_PAYLOAD)
        {
            throw new IllegalArgumentException(
                "max packet bytes must be " + minimum + ".." + MAX_UDP_PAYLOAD + ": " + maxPacketBytes);
        }
        if (heartbeatIntervalNs <= 0)
        {
            throw new IllegalArgumentException("heartbeat interval must be > 0: " + heartbeatIntervalNs);
        }

        this.maxPacketBytes = maxPacketBytes;
        this.heartbeatIntervalNs = heartbeatIntervalNs;
        this.clock = clock;
        this.sink = sink;
        this.counters = counters;
        packet = new UnsafeBuffer(ByteBuffer.allocateDirect(maxPacketBytes));
        for (int i = 0; i < SESSION_LENGTH; i++)
        {
            packet.putByte(i, (byte)(i < session.length() ? session.charAt(i) : ' '));
        }
        lastSendNs = clock.nanoTime();
    }

    /**
     * Checks a MoldUDP64 session name.
     *
     * @param session the name.
     * @throws IllegalArgumentException when it is empty, longer than 10 or not printable ASCII.
     */
    public static void validateSession(final String session)
    {
        if (null == session || session.isEmpty() || session.length() > SESSION_LENGTH)
        {
            throw new IllegalArgumentException("session must be 1.." + SESSION_LENGTH + " characters: '" + session + "'");
        }
        for (int i = 0; i < session.length(); i++)
        {
            final char c = session.charAt(i);
            if (c < 0x20 || c > 0x7E)
            {
                throw new IllegalArgumentException("session must be printable ASCII: '" + session + "'");
            }
        }
    }

    /**
     * Encodes an ITCH message into the current packet, first sending the packet if the message would not fit.
     *
     * @param event the message.
     */
    public void append(final ItchEvent event)
    {
        final int length = ItchEncoder.messageLength(event.type);
        reserve(length);
        ItchEncoder.encode(event, packet, position + 2);
        commit(length);
    }

    /**
     * Copies an already encoded ITCH message into the current packet, first sending the packet if it would not fit.
     *
     * @param buffer holding the message.
     * @param offset where it starts.
     * @param length its length; at most maxPacketBytes - 22.
     */
    public void append(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < 1 || length > maxPacketBytes - HEADER_LENGTH - 2)
        {
            throw new IllegalArgumentException("message length does not fit a packet: " + length);
        }
        reserve(length);
        packet.putBytes(position + 2, buffer, offset, length);
        commit(length);
    }

    /**
     * Sends the current packet if it holds any message.
     *
     * @return the number of messages sent.
     */
    public int flush()
    {
        final int sent = count;
        if (sent > 0)
        {
            packet.putLong(SEQUENCE_OFFSET, nextSequence, BIG_ENDIAN);
            packet.putShort(COUNT_OFFSET, (short)sent, BIG_ENDIAN);
            send(position);
            nextSequence += sent;
            counters.messagesSent().getAndAddRelease(sent);
            position = HEADER_LENGTH;
            count = 0;
        }
        return sent;
    }

    /**
     * Accounts for a data packet of {@code messageCount} messages that was packed before (a pre-encoded session's,
     * {@link PreEncodedSender}) and has just been sent: the sequence moves on, the counters count it, and the next
     * heartbeat or end of session carries the sequence after it.
     *
     * @param messageCount the messages the packet held.
     * @throws IllegalStateException when this packetizer holds messages of its own, which would then be numbered
     *                               twice.
     */
    public void sent(final int messageCount)
    {
        if (count > 0)
        {
            throw new IllegalStateException("a packet was sent past " + count + " messages this packetizer holds");
        }
        nextSequence += messageCount;
        lastSendNs = clock.nanoTime();
        counters.messagesSent().getAndAddRelease(messageCount);
        counters.packetsSent().incrementRelease();
    }

    /**
     * Sends a heartbeat (count 0, sequence = the next message's) if nothing has been sent for the heartbeat interval.
     * Buffered messages are flushed first, so the heartbeat never runs ahead of them.
     *
     * @return true if a heartbeat was sent.
     */
    public boolean heartbeatIfIdle()
    {
        if (ended || clock.nanoTime() - lastSendNs < heartbeatIntervalNs)
        {
            return false;
        }
        flush();
        sendEmpty(HEARTBEAT_COUNT);
        counters.heartbeatsSent().incrementRelease();
        return true;
    }

    /**
     * After the end of the session, sends the end-of-session packet again when nothing was sent for
     * {@code intervalNs}. MoldUDP64 servers send it "for a short while in place of Heartbeats" while they still
     * answer re-requests: a receiver that lost the last packets and the first end-of-session packet (a socket
     * buffer that overflowed at the end of a burst) learns from a repeat where the session ends, and asks for the
     * tail, instead of waiting for data that never comes.
     *
     * @param intervalNs the idle time between repeats.
     * @return true when a packet was sent.
     */
    public boolean endOfSessionIfIdle(final long intervalNs)
    {
        if (!ended || clock.nanoTime() - lastSendNs < intervalNs)
        {
            return false;
        }
        sendEmpty(END_OF_SESSION_COUNT);
        return true;
    }

    /**
     * Flushes, then sends the end-of-session packet (count 0xFFFF, sequence = the next message's). Idempotent.
     */
    public void endOfSession()
    {
        if (!ended)
        {
            flush();
            sendEmpty(END_OF_SESSION_COUNT);
            ended = true;
        }
    }

    /**
     * The sequence number the next message sent will have.
     *
     * @return the sequence number.
     */
    public long nextSequence()
    {
        return nextSequence;
    }

    /**
     * Number of messages waiting in the current packet.
     *
     * @return the count.
     */
    public int pendingMessages()
    {
        return count;
    }

    /**
     * Whether the end-of-session packet has been sent.
     *
     * @return true once ended.
     */
    public boolean isEnded()
    {
        return ended;
    }

    private void reserve(final int length)
    {
        if (position + 2 + length > maxPacketBytes || count == MAX_DATA_COUNT)
        {
            flush();
        }
    }

    private void commit(final int length)
    {
        packet.putShort(position, (short)length, BIG_ENDIAN);
        position += 2 + length;
        count++;
    }

    private void sendEmpty(final int messageCount)
    {
        packet.putLong(SEQUENCE_OFFSET, nextSequence, BIG_ENDIAN);
        packet.putShort(COUNT_OFFSET, (short)messageCount, BIG_ENDIAN);
        send(HEADER_LENGTH);
    }

    private void send(final int length)
    {
        sink.onPacket(packet, 0, length);
        lastSendNs = clock.nanoTime();
        counters.packetsSent().incrementRelease();
    }
}
