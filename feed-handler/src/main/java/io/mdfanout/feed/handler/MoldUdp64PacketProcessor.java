package io.mdfanout.feed.handler;

import io.mdfanout.feed.moldudp.MoldUdp64Packet;
import io.mdfanout.feed.normalize.ItchNormalizer;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;

/**
 * The single-source packet path: validates a MoldUDP64 packet, sequences it and hands each new
 * message to the {@link ItchNormalizer}, declaring every gap at once (nothing can fill it).
 * Replays and tests drive {@link #onPacket(DirectBuffer, int, int)} directly. The live
 * {@link FeedHandlerAgent} uses the {@link LineArbiter} instead, which holds gaps open for the
 * other line and for retransmission.
 * <p>
 * Every bad input is counted and skipped, keeping the valid messages around it:
 * <ul>
 *   <li>a datagram shorter than the header is a truncated packet;</li>
 *   <li>a packet of another session than the configured one (or, when none is configured, the
 *   first one seen) is skipped;</li>
 *   <li>a block running past the end of its packet drops the rest of that packet; the messages
 *   before it are kept and, since the expected sequence only moves over what was processed, the
 *   loss surfaces as a gap on the next packet;</li>
 *   <li>duplicates and overlaps are skipped message by message;</li>
 *   <li>an end-of-session packet whose sequence is below the next expected one is stale (the session
 *   cannot have ended before messages already processed): counted and ignored;</li>
 *   <li>a gap publishes a GapNotice and processing continues after it.</li>
 * </ul>
 * Never throws: an unexpected exception while processing is counted as a packet error.
 */
public final class MoldUdp64PacketProcessor implements SequenceTracker.GapHandler
{
    private final MoldUdp64Packet packet = new MoldUdp64Packet();
    private final UnsafeBuffer session = new UnsafeBuffer(new byte[MoldUdp64Packet.SESSION_LENGTH]);
    private final ItchNormalizer normalizer;
    private final FeedHandlerCounters counters;
    private final SequenceTracker sequenceTracker;
    private boolean sessionKnown;
    private boolean endOfSessionLogged;
    private boolean staleEndOfSessionLogged;
    private boolean packetErrorLogged;

    /**
     * Create a processor.
     *
     * @param expectedSession session to accept (at most 10 ASCII characters, space-padded here),
     *                        or null to adopt the first session seen.
     * @param normalizer      where new messages go.
     * @param counters        packet and sequencing counters.
     */
    public MoldUdp64PacketProcessor(
        final String expectedSession, final ItchNormalizer normalizer, final FeedHandlerCounters counters)
    {
        this.normalizer = normalizer;
        this.counters = counters;
        this.sequenceTracker = new SequenceTracker(1, this, counters);
        if (null != expectedSession)
        {
            session.putBytes(0, sessionBytes(expectedSession));
            sessionKnown = true;
        }
    }

    /**
     * The 10 bytes of a MoldUDP64 session name: ASCII, left-justified, space-padded.
     *
     * @param name at most 10 printable ASCII characters.
     * @return the 10 bytes.
     * @throws IllegalArgumentException when the name is longer or not printable ASCII.
     */
    public static byte[] sessionBytes(final String name)
    {
        if (name.length() > MoldUdp64Packet.SESSION_LENGTH)
        {
            throw new IllegalArgumentException(
                "session must be at most " + MoldUdp64Packet.SESSION_LENGTH + " characters: '" + name + "'");
        }
        for (int i = 0; i < name.length(); i++)
        {
            final char c = name.charAt(i);
            if (c < 0x20 || c > 0x7E)
            {
                throw new IllegalArgumentException("session must be printable ASCII: '" + name + "'");
            }
        }
        final byte[] bytes = new byte[MoldUdp64Packet.SESSION_LENGTH];
        java.util.Arrays.fill(bytes, (byte)' ');
        final byte[] ascii = name.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(ascii, 0, bytes, 0, ascii.length);
        return bytes;
    }

    /** The sequence tracker (next expected sequence). */
    public SequenceTracker sequenceTracker()
    {
        return sequenceTracker;
    }

    /** True once a session is configured or adopted. */
    public boolean isSessionKnown()
    {
        return sessionKnown;
    }

    /**
     * Process one datagram.
     *
     * @param buffer holding the datagram.
     * @param offset of its first byte.
     * @param length of the datagram.
     */
    public void onPacket(final DirectBuffer buffer, final int offset, final int length)
    {
        counters.packetsReceived().incrementRelease();
        counters.bytesReceived().getAndAddRelease(length);
        try
        {
            processPacket(buffer, offset, length);
        }
        catch (final RuntimeException ex)
        {
            // Not expected: every bad input has its own check. Count it and keep the feed alive.
            counters.packetErrors().incrementRelease();
            if (!packetErrorLogged)
            {
                packetErrorLogged = true;
                System.err.println("feed-handler: packet processing failed (logged once, then counted): " + ex);
            }
        }
        finally
        {
            normalizer.flush(); // once per datagram, not per message
        }
    }

    /** {@inheritDoc} */
    public void onGap(final long firstMissing, final long lastMissing)
    {
        normalizer.onGap(firstMissing, lastMissing);
    }

    private void processPacket(final DirectBuffer buffer, final int offset, final int length)
    {
        final MoldUdp64Packet packet = this.packet.wrap(buffer, offset, length);
        if (packet.isTruncated())
        {
            counters.truncatedPackets().incrementRelease();
            return;
        }

        if (!sessionKnown)
        {
            buffer.getBytes(offset + MoldUdp64Packet.SESSION_OFFSET, session, 0, MoldUdp64Packet.SESSION_LENGTH);
            sessionKnown = true;
        }
        else if (!packet.sessionEquals(session, 0))
        {
            counters.wrongSession().incrementRelease();
            return;
        }

        final long sequence = packet.sequenceNumber();
        final int messageCount = packet.messageCount();
        if (MoldUdp64Packet.HEARTBEAT_COUNT == messageCount)
        {
            counters.heartbeats().incrementRelease();
            sequenceTracker.onNextSequenceAnnounced(sequence);
            return;
        }
        if (MoldUdp64Packet.END_OF_SESSION_COUNT == messageCount)
        {
            if (sequence < sequenceTracker.nextExpected())
            {
                // The session cannot have ended before messages already processed: a stray packet.
                counters.staleEndOfSession().incrementRelease();
                if (!staleEndOfSessionLogged)
                {
                    staleEndOfSessionLogged = true;
                    System.err.println("feed-handler: stale end-of-session packet ignored (logged once, then " +
                        "counted): next sequence " + sequence + " but " + sequenceTracker.nextExpected() +
                        " is expected");
                }
                return;
            }
            counters.endOfSession().incrementRelease();
            sequenceTracker.onNextSequenceAnnounced(sequence);
            if (!endOfSessionLogged)
            {
                endOfSessionLogged = true;
                System.err.println("feed-handler: end of session, next sequence " + sequence);
            }
            return;
        }

        final int firstNew = sequenceTracker.onDataPacket(sequence, messageCount);
        if (SequenceTracker.ALL_SEEN == firstNew)
        {
            return;
        }

        final int limit = packet.limit();
        int blockOffset = packet.firstBlockOffset();
        for (int i = 0; i < messageCount; i++)
        {
            if (blockOffset + MoldUdp64Packet.BLOCK_LENGTH_FIELD_LENGTH > limit)
            {
                counters.malformedBlocks().incrementRelease();
                return;
            }
            final int messageLength = packet.blockLength(blockOffset);
            final int messageOffset = blockOffset + MoldUdp64Packet.BLOCK_LENGTH_FIELD_LENGTH;
            if (messageOffset + messageLength > limit)
            {
                counters.malformedBlocks().incrementRelease();
                return;
            }

            if (i >= firstNew)
            {
                final long messageSequence = sequence + i;
                normalizer.onMessage(buffer, messageOffset, messageLength, messageSequence);
                sequenceTracker.onMessageProcessed(messageSequence);
            }
            blockOffset = messageOffset + messageLength;
        }
    }
}
