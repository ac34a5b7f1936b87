package io.mdfanout.feed.recovery;

import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Messages received ahead of an open gap, held until the gap is filled or declared, in memory
 * allocated once: a power-of-two array of fixed {@link #SLOT_LENGTH}-byte slots indexed by
 * {@code sequence & mask}.
 * <p>
 * The owner keeps every held sequence within {@link #capacity()} of the next expected one, so
 * two held sequences never share a slot. A slot stores a 4-byte header (0 = empty, else the
 * stored length + 1) and up to {@link #MAX_STORED_LENGTH} bytes of the message. Every ITCH 5.0
 * message is at most 50 bytes and the normalizer reads only the bytes its type defines, so
 * cutting a longer message (a later spec version's appended fields) to the slot loses nothing
 * the normalizer uses.
 */
public final class HoldBuffer
{
    /** Bytes per slot: a 4-byte header and the message. */
    public static final int SLOT_LENGTH = 64;
    /** Message bytes a slot keeps. */
    public static final int MAX_STORED_LENGTH = SLOT_LENGTH - 4;
    /** Largest capacity accepted: 16 Mi messages, 1 GiB of slots (an int offset). */
    public static final int MAX_CAPACITY = 1 << 24;

    private final UnsafeBuffer slots;
    private final int capacity;
    private final long mask;
    private int size;

    /**
     * Allocate room for at least {@code maxMessages} messages.
     *
     * @param maxMessages bound of held messages, 1 to {@link #MAX_CAPACITY}; rounded up to a power of two.
     */
    public HoldBuffer(final int maxMessages)
    {
        if (maxMessages < 1 || maxMessages > MAX_CAPACITY)
        {
            throw new IllegalArgumentException("held messages must be 1 to " + MAX_CAPACITY + ": " + maxMessages);
        }
        capacity = BitUtil.findNextPositivePowerOfTwo(maxMessages);
        mask = capacity - 1;
        slots = new UnsafeBuffer(ByteBuffer.allocateDirect(capacity * SLOT_LENGTH));
    }

    /** Slots: the span of sequences after the next expected one that can be held. */
    public int capacity()
    {
        return capacity;
    }

    /** Messages held now. */
    public int size()
    {
        return size;
    }

    /** True when a message of {@code sequence} is held. */
    public boolean isHeld(final long sequence)
    {
        return slots.getInt(slotOffset(sequence)) != 0;
    }

    /**
     * Hold a message; the slot must be empty.
     *
     * @param sequence of the message.
     * @param buffer   holding it.
     * @param offset   of its first byte.
     * @param length   of the message; bytes beyond {@link #MAX_STORED_LENGTH} are not kept.
     */
    public void put(final long sequence, final DirectBuffer buffer, final int offset, final int length)
    {
        final int slot = slotOffset(sequence);
        final int stored = Math.min(length, MAX_STORED_LENGTH);
        slots.putBytes(slot + 4, buffer, offset, stored);
        slots.putInt(slot, stored + 1);
        size++;
    }

    /** The buffer the slots live in, for reading a held message at {@link #messageOffset(long)}. */
    public DirectBuffer buffer()
    {
        return slots;
    }

    /** Offset in {@link #buffer()} of the held message of {@code sequence}. */
    public int messageOffset(final long sequence)
    {
        return slotOffset(sequence) + 4;
    }

    /** Stored length of the held message of {@code sequence}. */
    public int messageLength(final long sequence)
    {
        return slots.getInt(slotOffset(sequence)) - 1;
    }

    /** Free the slot of {@code sequence}, which must be held. */
    public void remove(final long sequence)
    {
        slots.putInt(slotOffset(sequence), 0);
        size--;
    }

    /**
     * Free every slot of the sequences {@code from} (inclusive) to {@code to} (exclusive).
     *
     * @param from first sequence.
     * @param to   sequence after the last.
     */
    public void clear(final long from, final long to)
    {
        for (long s = from; s < to && size > 0; s++)
        {
            if (isHeld(s))
            {
                remove(s);
            }
        }
    }

    private int slotOffset(final long sequence)
    {
        return (int)(sequence & mask) * SLOT_LENGTH;
    }
}
