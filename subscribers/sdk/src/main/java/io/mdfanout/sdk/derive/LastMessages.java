package io.mdfanout.sdk.derive;

import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Int2IntHashMap;

import java.util.Arrays;

/**
 * The last derived messages of each instrument, byte for byte: a derived stream's state, which its snapshots re-send.
 * A fixed number of entries per instrument (one for top of book or depth, one per bar interval), each up to a fixed
 * length; instruments are kept in increasing id, the order a snapshot lists them in. Grows when an instrument is first
 * seen; nothing allocates after. Single-threaded.
 */
public final class LastMessages
{
    private static final int MISSING = -1;

    private final int entries;
    private final int entryLength;
    private final int slotLength;
    private final Int2IntHashMap slotByInstrument;
    private final ExpandableArrayBuffer store;
    private int[] lengths;
    private long[] sortedIds;
    private int instrumentCount;

    /**
     * @param entries             messages kept per instrument.
     * @param entryLength         the longest message (header included).
     * @param expectedInstruments instruments held before anything grows.
     */
    public LastMessages(final int entries, final int entryLength, final int expectedInstruments)
    {
        this.entries = entries;
        this.entryLength = entryLength;
        this.slotLength = entries * entryLength;
        final int capacity = Math.max(16, expectedInstruments);
        slotByInstrument = new Int2IntHashMap(capacity * 2, 0.65f, MISSING);
        store = new ExpandableArrayBuffer(capacity * slotLength);
        lengths = new int[capacity * entries];
        sortedIds = new long[capacity];
    }

    /** @return instruments with at least one message kept. */
    public int instrumentCount()
    {
        return instrumentCount;
    }

    /**
     * @param index 0 .. {@link #instrumentCount()} - 1.
     * @return the instrument at that place, in increasing id.
     */
    public long instrumentAt(final int index)
    {
        return sortedIds[index];
    }

    /**
     * @param fromInstrumentId an instrument id.
     * @return the smallest instrument id at or after it with a message kept, or -1.
     */
    public long nextInstrumentAtOrAfter(final long fromInstrumentId)
    {
        int place = Arrays.binarySearch(sortedIds, 0, instrumentCount, fromInstrumentId);
        if (place < 0)
        {
            place = -place - 1;
        }
        return place < instrumentCount ? sortedIds[place] : -1;
    }

    /** @return messages kept per instrument. */
    public int entries()
    {
        return entries;
    }

    /**
     * @param instrumentId the instrument.
     * @param entry        which of its messages (0 .. {@link #entries()} - 1).
     * @return the length of the instrument's message in the entry; 0 when none is kept.
     */
    public int length(final long instrumentId, final int entry)
    {
        final int slot = slotByInstrument.get((int)instrumentId);
        return MISSING == slot ? 0 : lengths[slot * entries + entry];
    }

    /**
     * Copy the instrument's message of the entry.
     *
     * @param instrumentId the instrument.
     * @param entry        which of its messages.
     * @param dst          where to copy it.
     * @param dstOffset    at which offset.
     * @return its length; 0 when none is kept (nothing copied).
     */
    public int copy(final long instrumentId, final int entry, final MutableDirectBuffer dst, final int dstOffset)
    {
        final int slot = slotByInstrument.get((int)instrumentId);
        if (MISSING == slot)
        {
            return 0;
        }
        final int length = lengths[slot * entries + entry];
        dst.putBytes(dstOffset, store, slot * slotLength + entry * entryLength, length);
        return length;
    }

    /**
     * @param instrumentId the instrument.
     * @param entry        which of its messages.
     * @param buffer       holding the message to compare.
     * @param offset       of that message.
     * @param length       of that message.
     * @param from         where, relative to the messages' start, the comparison begins.
     * @return true when the instrument's kept message of the entry has the same length and the same bytes from
     *         {@code from} (relative to the message's start) to its end as the one given.
     */
    public boolean sameFrom(
        final long instrumentId, final int entry, final DirectBuffer buffer, final int offset, final int length,
        final int from)
    {
        final int slot = slotByInstrument.get((int)instrumentId);
        if (MISSING == slot || lengths[slot * entries + entry] != length)
        {
            return false;
        }
        final int base = slot * slotLength + entry * entryLength;
        int i = from;
        for (; i + Long.BYTES <= length; i += Long.BYTES) // eight bytes a compare: a depth message is 350 bytes
        {
            if (store.getLong(base + i) != buffer.getLong(offset + i))
            {
                return false;
            }
        }
        for (; i < length; i++)
        {
            if (store.getByte(base + i) != buffer.getByte(offset + i))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Keep a message as the instrument's last of the entry.
     *
     * @param instrumentId the instrument.
     * @param entry        which of its messages.
     * @param buffer       holding the message.
     * @param offset       of the message.
     * @param length       of the message, at most the entry length.
     */
    public void put(
        final long instrumentId, final int entry, final DirectBuffer buffer, final int offset, final int length)
    {
        if (length > entryLength)
        {
            throw new IllegalArgumentException("message of " + length + " bytes, entries hold " + entryLength);
        }
        int slot = slotByInstrument.get((int)instrumentId);
        if (MISSING == slot)
        {
            slot = add(instrumentId);
        }
        store.putBytes(slot * slotLength + entry * entryLength, buffer, offset, length);
        lengths[slot * entries + entry] = length;
    }

    /** Forget everything (a new trading day). */
    public void clear()
    {
        slotByInstrument.clear();
        instrumentCount = 0;
    }

    private int add(final long instrumentId)
    {
        final int slot = instrumentCount;
        if (slot == sortedIds.length)
        {
            sortedIds = Arrays.copyOf(sortedIds, slot << 1);
        }
        if ((slot + 1) * entries > lengths.length)
        {
            lengths = Arrays.copyOf(lengths, Math.max(lengths.length << 1, (slot + 1) * entries));
        }
        Arrays.fill(lengths, slot * entries, (slot + 1) * entries, 0);
        int place = Arrays.binarySearch(sortedIds, 0, instrumentCount, instrumentId);
        place = -place - 1;
        System.arraycopy(sortedIds, place, sortedIds, place + 1, instrumentCount - place);
        sortedIds[place] = instrumentId;
        instrumentCount++;
        slotByInstrument.put((int)instrumentId, slot);
        return slot;
    }
}
