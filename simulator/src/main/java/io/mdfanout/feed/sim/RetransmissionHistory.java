package io.mdfanout.feed.sim;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * The last N messages the exchange sent, by MoldUDP64 sequence number, for the retransmission server.
 * <p>
 * Fed with every data packet as generated (before any line loses it), it stores each message as its MoldUDP64
 * message block (u16 big-endian length, then the message) in a fixed slot: slot = sequence mod capacity, so a
 * lookup is one multiplication and an answer is a copy of blocks, and the memory is allocated once
 * (capacity x (2 + max message length) bytes). A message longer than a slot (never produced by the simulator)
 * cannot be kept: the history then restarts after it rather than hold a hole. Single writer: the simulator thread
 * both records and answers, so no synchronisation is needed. Allocation-free after construction.
 */
public final class RetransmissionHistory implements PacketSink
{
    private final UnsafeBuffer slots;
    private final int capacity;
    private final int slotLength;
    private final int maxMessageLength;

    private long oldestSequence = 1;
    private long nextSequence = 1;

    /**
     * Creates an empty history.
     *
     * @param capacity         messages kept, &gt;= 1.
     * @param maxMessageLength the longest message it can keep, &gt;= 1.
     * @throws IllegalArgumentException when the values are out of range or the slots would exceed 2 GiB.
     */
    public RetransmissionHistory(final int capacity, final int maxMessageLength)
    {
        if (capacity < 1 || maxMessageLength < 1 || maxMessageLength > 0xFFFF)
        {
            throw new IllegalArgumentException(
                "history needs capacity >= 1 and 1 <= max message length <= 65535: " + capacity + ", " +
                maxMessageLength);
        }
        final long bytes = (long)capacity * (2 + maxMessageLength);
        if (bytes > Integer.MAX_VALUE - 8)
        {
            throw new IllegalArgumentException("history too large: " + capacity + " messages");
        }
        this.capacity = capacity;
        this.maxMessageLength = maxMessageLength;
        slotLength = 2 + maxMessageLength;
        slots = new UnsafeBuffer(new byte[(int)bytes]);
    }

    /**
     * Records the messages of a data packet; ignores heartbeats, end of session and malformed packets.
     *
     * @param buffer holding the MoldUDP64 packet.
     * @param offset where it starts.
     * @param length its length.
     */
    public void onPacket(final DirectBuffer buffer, final int offset, final int length)
    {
        if (!SimulatedLine.isDataPacket(buffer, offset, length))
        {
            return;
        }
        final long firstSequence = buffer.getLong(offset + MoldUdp64Packetizer.SEQUENCE_OFFSET, BIG_ENDIAN);
        final int count = buffer.getShort(offset + MoldUdp64Packetizer.COUNT_OFFSET, BIG_ENDIAN) & 0xFFFF;
        if (firstSequence != nextSequence)
        {
            // Not contiguous with what we hold (a restarted packetizer): what we hold no longer answers requests.
            oldestSequence = firstSequence;
            nextSequence = firstSequence;
        }

        final int end = offset + length;
        int position = offset + MoldUdp64Packetizer.HEADER_LENGTH;
        for (int i = 0; i < count && position + 2 <= end; i++)
        {
            final int messageLength = buffer.getShort(position, BIG_ENDIAN) & 0xFFFF;
            if (position + 2 + messageLength > end)
            {
                break;
            }
            append(buffer, position, messageLength);
            position += 2 + messageLength;
        }
    }

    /**
     * The oldest sequence number still held.
     *
     * @return the sequence; equals {@link #nextSequence()} when empty.
     */
    public long oldestSequence()
    {
        return oldestSequence;
    }

    /**
     * The sequence number the next recorded message will have; the newest held is this minus 1.
     *
     * @return the sequence.
     */
    public long nextSequence()
    {
        return nextSequence;
    }

    /**
     * Whether a message is held.
     *
     * @param sequence its sequence number.
     * @return true when it can be retransmitted.
     */
    public boolean contains(final long sequence)
    {
        return sequence >= oldestSequence && sequence < nextSequence;
    }

    /**
     * Length of the message block (2 + message length) of a held message.
     *
     * @param sequence a sequence number for which {@link #contains(long)} is true.
     * @return the block length in bytes.
     */
    public int blockLength(final long sequence)
    {
        return 2 + (slots.getShort(slotOffset(sequence), BIG_ENDIAN) & 0xFFFF);
    }

    /**
     * Copies the message block (u16 length + message) of a held message.
     *
     * @param sequence    a sequence number for which {@link #contains(long)} is true.
     * @param destination where to copy it.
     * @param offset      where in the destination.
     * @return the bytes copied.
     */
    public int copyBlock(final long sequence, final MutableDirectBuffer destination, final int offset)
    {
        final int slotOffset = slotOffset(sequence);
        final int blockLength = 2 + (slots.getShort(slotOffset, BIG_ENDIAN) & 0xFFFF);
        destination.putBytes(offset, slots, slotOffset, blockLength);
        return blockLength;
    }

    private void append(final DirectBuffer buffer, final int blockOffset, final int messageLength)
    {
        final long sequence = nextSequence++;
        if (messageLength > maxMessageLength)
        {
            oldestSequence = nextSequence;
            return;
        }
        slots.putBytes(slotOffset(sequence), buffer, blockOffset, 2 + messageLength);
        if (nextSequence - oldestSequence > capacity)
        {
            oldestSequence = nextSequence - capacity;
        }
    }

    private int slotOffset(final long sequence)
    {
        return (int)(sequence % capacity) * slotLength;
    }
}
