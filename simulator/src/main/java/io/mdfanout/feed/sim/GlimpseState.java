package io.mdfanout.feed.sim;

import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.status.AtomicCounter;

import java.util.Arrays;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * The live session's state as NASDAQ GLIMPSE 5.0 spins it, kept by the sending thread from the very MoldUDP64 data
 * packets it sends, so that a snapshot is, by construction, the state after exactly the messages sent so far.
 * <p>
 * Why from packets rather than from the generator's events: the packets are what a feed handler sees, they carry
 * the sequence numbers the End of Snapshot must name, and a session sent from an ITCH file
 * ({@link ItchFileSource}) has packets but no events. Fed before any line loses a packet, as the retransmission
 * history is.
 * <p>
 * What is kept, and spun by {@link #writeSnapshot(MutableDirectBuffer, int)} in this order:
 * <ul>
 * <li>the last System Event (S), MWCB Decline Level (V) and MWCB Status (W), as sent;</li>
 * <li>the last Stock Directory (R) of every stock locate, ascending; then likewise the last Stock Trading Action
 * (H), Reg SHO Restriction (Y), Operational Halt (h) and Retail Price Improvement Indicator (N), as sent;</li>
 * <li>the last Market Participant Position (L) of each (locate, MPID), in order of first appearance;</li>
 * <li>every open order as an Add Order, 'A', or 'F' with its attribution when it was added by an F, in time
 * priority (the order of its add or replace), with its current remaining shares and price: an order replaced by
 * U appears under its new reference number, price and shares, with the replace's timestamp, keeping the
 * original's side, stock and attribution; executions (E, C) and cancels (X) have reduced its shares, and an order
 * reduced to nothing or deleted (D) is gone;</li>
 * <li>then End of Snapshot: 'G' and the MoldUDP64 sequence number of the next message to be sent, 20 ASCII
 * digits right-justified and space-padded.</li>
 * </ul>
 * P, Q, B, I, K, J and O are events rather than state and are not spun. Applying the spin, then the live feed from
 * the End of Snapshot's sequence number on, gives the same book as applying the whole session
 * (the tests' oracle, {@code ReferenceBook#dump()}).
 * <p>
 * Each message goes out framed as a SoupBinTCP Sequenced Data packet (u16 big-endian length, 'S', the message), so
 * that the GLIMPSE server writes the spin as it is, in a few large writes rather than one system call a message.
 * <p>
 * A message that does not fit the book (an unknown order, a reference added twice, more shares executed than
 * remain), or a truncated one, is counted and skipped, never thrown: a real trading day's file must not stop the
 * sender. Single-threaded (the sender's); allocation-free except when a store grows to hold more orders, locates or
 * participants than it has held before.
 */
public final class GlimpseState implements PacketSink
{
    /** SoupBinTCP packet type of Sequenced Data. */
    public static final byte SEQUENCED_DATA_PACKET_TYPE = 'S';
    /** SoupBinTCP packet header: u16 length (of type and payload), then the type. */
    public static final int SOUPBINTCP_HEADER_LENGTH = 3;
    /** ITCH message type of GLIMPSE's End of Snapshot. */
    public static final byte END_OF_SNAPSHOT_TYPE = 'G';
    /** Digits of End of Snapshot's sequence number (ASCII, right-justified, space-padded). */
    public static final int END_OF_SNAPSHOT_SEQUENCE_LENGTH = 20;
    /** Length of the End of Snapshot message: the type, then the sequence number. */
    public static final int END_OF_SNAPSHOT_LENGTH = 1 + END_OF_SNAPSHOT_SEQUENCE_LENGTH;
    /** Open orders held before the order store first grows. */
    public static final int DEFAULT_INITIAL_ORDERS = 1 << 14;

    private static final int NONE = -1;
    private static final int ADD_ORDER_LENGTH = 36;
    private static final int ADD_ORDER_MPID_LENGTH = 40;
    private static final int PARTICIPANT_LENGTH = 26;

    private final AtomicCounter inconsistentMessages;

    private final LastByLocate systemEvent = new LastByLocate(12);
    private final LastByLocate mwcbDeclineLevel = new LastByLocate(35);
    private final LastByLocate mwcbStatus = new LastByLocate(12);
    private final LastByLocate directory = new LastByLocate(39);
    private final LastByLocate tradingAction = new LastByLocate(25);
    private final LastByLocate regSho = new LastByLocate(20);
    private final LastByLocate operationalHalt = new LastByLocate(21);
    private final LastByLocate retailInterest = new LastByLocate(20);
    private final LastByLocate[] stores =
        { systemEvent, mwcbDeclineLevel, mwcbStatus, directory, tradingAction, regSho, operationalHalt, retailInterest };

    /** Market Participant Position: (locate << 32 | MPID) -> slot in {@link #participants}, first come first. */
    private final Long2LongHashMap participantSlots = new Long2LongHashMap(64, 0.65f, NONE);
    private final ExpandableArrayBuffer participants = new ExpandableArrayBuffer(64 * PARTICIPANT_LENGTH);

    /** Open orders: reference number -> slot. */
    private final Long2LongHashMap orderSlots;
    private long[] refs;
    private long[] stocks;
    private long[] timestamps;
    private long[] shares;
    private long[] prices;
    private int[] attributions;
    private char[] locates;
    private char[] trackingNumbers;
    private byte[] sides;
    private boolean[] attributed;
    /** Time priority: a doubly linked list through the slots, oldest first; free slots chain through next. */
    private int[] next;
    private int[] previous;
    private int head = NONE;
    private int tail = NONE;
    private int freeSlots = NONE;
    private int usedSlots;

    private long nextSequence = 1;
    private long applied;
    private int lastSnapshotMessages;

    /**
     * Creates an empty state (no message sent yet: the next sequence is 1).
     *
     * @param initialOrders        open orders held before the store first grows, &gt;= 1.
     * @param inconsistentMessages counts the messages skipped as inconsistent with the book or truncated; may be null.
     */
    public GlimpseState(final int initialOrders, final AtomicCounter inconsistentMessages)
    {
        if (initialOrders < 1)
        {
            throw new IllegalArgumentException("GLIMPSE state needs room for at least one order: " + initialOrders);
        }
        this.inconsistentMessages = inconsistentMessages;
        orderSlots = new Long2LongHashMap(initialOrders * 2, 0.65f, NONE);
        allocateOrders(initialOrders);
    }

    /**
     * Applies the messages of a MoldUDP64 data packet; heartbeats, end of session and packets too short to have a
     * header are ignored. A packet that does not continue the sequence is applied all the same (the sender restarts
     * nothing mid-session): the next sequence becomes its first plus its count.
     *
     * @param buffer holding the packet.
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
        final int end = offset + length;
        int position = offset + MoldUdp64Packetizer.HEADER_LENGTH;
        for (int i = 0; i < count; i++)
        {
            if (position + 2 > end)
            {
                inconsistent();
                break;
            }
            final int messageLength = buffer.getShort(position, BIG_ENDIAN) & 0xFFFF;
            if (position + 2 + messageLength > end)
            {
                inconsistent();
                break;
            }
            apply(buffer, position + 2, messageLength);
            position += 2 + messageLength;
        }
        nextSequence = firstSequence + count;
    }

    /**
     * Applies one ITCH 5.0 message (see the class comment for what is kept).
     *
     * @param buffer holding the message.
     * @param offset of its type byte.
     * @param length its length.
     */
    public void apply(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < 1)
        {
            inconsistent();
            return;
        }
        final char type = (char)buffer.getByte(offset);
        final int specLength = ItchEncoder.messageLength(type);
        if (specLength < 0)
        {
            return; // not ITCH 5.0 (a file may carry other records): no state
        }
        if (length < specLength)
        {
            inconsistent();
            return;
        }
        applied++;
        final int locate = buffer.getShort(offset + 1, BIG_ENDIAN) & 0xFFFF;
        switch (type)
        {
            case 'S': systemEvent.put(locate, buffer, offset); break;
            case 'V': mwcbDeclineLevel.put(locate, buffer, offset); break;
            case 'W': mwcbStatus.put(locate, buffer, offset); break;
            case 'R': directory.put(locate, buffer, offset); break;
            case 'H': tradingAction.put(locate, buffer, offset); break;
            case 'Y': regSho.put(locate, buffer, offset); break;
            case 'h': operationalHalt.put(locate, buffer, offset); break;
            case 'N': retailInterest.put(locate, buffer, offset); break;
            case 'L': participant(locate, buffer, offset); break;
            case 'A':
            case 'F':
                add(buffer.getLong(offset + 11, BIG_ENDIAN), locate, buffer.getShort(offset + 3, BIG_ENDIAN),
                    timestamp(buffer, offset), buffer.getByte(offset + 19), u32(buffer, offset + 20),
                    buffer.getLong(offset + 24), u32(buffer, offset + 32),
                    'F' == type, 'F' == type ? buffer.getInt(offset + 36) : 0);
                break;
            case 'E':
            case 'C':
            case 'X':
                reduce(buffer.getLong(offset + 11, BIG_ENDIAN), u32(buffer, offset + 19));
                break;
            case 'D':
            {
                final int slot = slotOf(buffer.getLong(offset + 11, BIG_ENDIAN));
                if (NONE != slot)
                {
                    remove(slot);
                }
                break;
            }
            case 'U':
                replace(buffer, offset, locate);
                break;
            default:
                break; // P Q B I K J O: events, not state
        }
    }

    /**
     * The MoldUDP64 sequence number of the next message: one past the last message applied.
     *
     * @return the sequence, 1 before the first message.
     */
    public long nextSequence()
    {
        return nextSequence;
    }

    /**
     * Open orders.
     *
     * @return the count.
     */
    public int orderCount()
    {
        return orderSlots.size();
    }

    /**
     * ITCH messages applied (those of known types and full length).
     *
     * @return the count.
     */
    public long applied()
    {
        return applied;
    }

    /**
     * Messages in the last snapshot written, End of Snapshot included.
     *
     * @return the count.
     */
    public int lastSnapshotMessages()
    {
        return lastSnapshotMessages;
    }

    /**
     * Bytes {@link #writeSnapshot(MutableDirectBuffer, int)} will write for the state as it is now.
     *
     * @return the length.
     */
    public long snapshotLength()
    {
        long length = 0;
        for (final LastByLocate store : stores)
        {
            length += (long)store.count() * (SOUPBINTCP_HEADER_LENGTH + store.length);
        }
        length += (long)participantSlots.size() * (SOUPBINTCP_HEADER_LENGTH + PARTICIPANT_LENGTH);
        length += (long)orderSlots.size() * (SOUPBINTCP_HEADER_LENGTH + ADD_ORDER_MPID_LENGTH);
        return length + SOUPBINTCP_HEADER_LENGTH + END_OF_SNAPSHOT_LENGTH;
    }

    /**
     * Writes the spin: every message of the state, then End of Snapshot with {@link #nextSequence()}, each framed
     * as a SoupBinTCP Sequenced Data packet. The destination must hold {@link #snapshotLength()} bytes from
     * {@code offset} (an expandable buffer grows).
     *
     * @param out    the destination.
     * @param offset where the first packet goes.
     * @return the number of bytes written.
     */
    public int writeSnapshot(final MutableDirectBuffer out, final int offset)
    {
        int position = offset;
        int messages = 0;
        for (final LastByLocate store : stores)
        {
            for (int locate = 0; locate <= store.maxLocate; locate++)
            {
                if (store.present[locate])
                {
                    position = frame(out, position, store.length);
                    out.putBytes(position, store.bytes, locate * store.length, store.length);
                    position += store.length;
                    messages++;
                }
            }
        }
        final int participantCount = participantSlots.size();
        for (int slot = 0; slot < participantCount; slot++)
        {
            position = frame(out, position, PARTICIPANT_LENGTH);
            out.putBytes(position, participants, slot * PARTICIPANT_LENGTH, PARTICIPANT_LENGTH);
            position += PARTICIPANT_LENGTH;
            messages++;
        }
        for (int slot = head; NONE != slot; slot = next[slot])
        {
            position = writeAddOrder(out, position, slot);
            messages++;
        }
        position = frame(out, position, END_OF_SNAPSHOT_LENGTH);
        writeEndOfSnapshot(out, position, nextSequence);
        position += END_OF_SNAPSHOT_LENGTH;
        lastSnapshotMessages = messages + 1;
        return position - offset;
    }

    /**
     * Writes an End of Snapshot message: 'G', then the sequence number as 20 ASCII digits, right-justified and
     * space-padded.
     *
     * @param out      the destination.
     * @param offset   where the type byte goes.
     * @param sequence the MoldUDP64 sequence number of the next live message, &gt;= 0.
     */
    public static void writeEndOfSnapshot(final MutableDirectBuffer out, final int offset, final long sequence)
    {
        out.putByte(offset, END_OF_SNAPSHOT_TYPE);
        long value = sequence;
        for (int i = END_OF_SNAPSHOT_SEQUENCE_LENGTH; i >= 1; i--)
        {
            if (0 == value && i < END_OF_SNAPSHOT_SEQUENCE_LENGTH)
            {
                out.putByte(offset + i, (byte)' ');
            }
            else
            {
                out.putByte(offset + i, (byte)('0' + value % 10));
                value /= 10;
            }
        }
    }

    private static int frame(final MutableDirectBuffer out, final int position, final int messageLength)
    {
        out.putShort(position, (short)(messageLength + 1), BIG_ENDIAN);
        out.putByte(position + 2, SEQUENCED_DATA_PACKET_TYPE);
        return position + SOUPBINTCP_HEADER_LENGTH;
    }

    private int writeAddOrder(final MutableDirectBuffer out, final int framePosition, final int slot)
    {
        final boolean withMpid = attributed[slot];
        final int length = withMpid ? ADD_ORDER_MPID_LENGTH : ADD_ORDER_LENGTH;
        final int o = frame(out, framePosition, length);
        out.putByte(o, (byte)(withMpid ? 'F' : 'A'));
        out.putShort(o + 1, (short)locates[slot], BIG_ENDIAN);
        out.putShort(o + 3, (short)trackingNumbers[slot], BIG_ENDIAN);
        ItchEncoder.putTimestamp(out, o + 5, timestamps[slot]);
        out.putLong(o + 11, refs[slot], BIG_ENDIAN);
        out.putByte(o + 19, sides[slot]);
        out.putInt(o + 20, (int)shares[slot], BIG_ENDIAN);
        out.putLong(o + 24, stocks[slot]);
        out.putInt(o + 32, (int)prices[slot], BIG_ENDIAN);
        if (withMpid)
        {
            out.putInt(o + 36, attributions[slot]);
        }
        return o + length;
    }

    private void participant(final int locate, final DirectBuffer buffer, final int offset)
    {
        final long key = (long)locate << 32 | (buffer.getInt(offset + 11, BIG_ENDIAN) & 0xFFFF_FFFFL);
        long slot = participantSlots.get(key);
        if (NONE == slot)
        {
            slot = participantSlots.size();
            participantSlots.put(key, slot);
        }
        participants.putBytes((int)slot * PARTICIPANT_LENGTH, buffer, offset, PARTICIPANT_LENGTH);
    }

    private void add(
        final long ref,
        final int locate,
        final short trackingNumber,
        final long timestamp,
        final byte side,
        final long orderShares,
        final long stock,
        final long price,
        final boolean withMpid,
        final int attribution)
    {
        if (NONE != orderSlots.get(ref) || 0 == orderShares || ('B' != side && 'S' != side))
        {
            inconsistent();
            return;
        }
        final int slot = allocateSlot();
        refs[slot] = ref;
        locates[slot] = (char)locate;
        trackingNumbers[slot] = (char)trackingNumber;
        timestamps[slot] = timestamp;
        sides[slot] = side;
        shares[slot] = orderShares;
        stocks[slot] = stock;
        prices[slot] = price;
        attributed[slot] = withMpid;
        attributions[slot] = attribution;
        previous[slot] = tail;
        next[slot] = NONE;
        if (NONE == tail)
        {
            head = slot;
        }
        else
        {
            next[tail] = slot;
        }
        tail = slot;
        orderSlots.put(ref, slot);
    }

    private void reduce(final long ref, final long reduceBy)
    {
        final int slot = slotOf(ref);
        if (NONE == slot)
        {
            return;
        }
        if (reduceBy > shares[slot] || 0 == reduceBy)
        {
            inconsistent(); // the order is gone either way: more than it had is all it had
        }
        if (reduceBy >= shares[slot])
        {
            remove(slot);
        }
        else
        {
            shares[slot] -= reduceBy;
        }
    }

    private void replace(final DirectBuffer buffer, final int offset, final int locate)
    {
        final int slot = slotOf(buffer.getLong(offset + 11, BIG_ENDIAN));
        if (NONE == slot)
        {
            return;
        }
        final byte side = sides[slot];
        final long stock = stocks[slot];
        final boolean withMpid = attributed[slot];
        final int attribution = attributions[slot];
        final int orderLocate = locates[slot];
        remove(slot);
        if (orderLocate != locate)
        {
            inconsistent(); // the book is the order's: it keeps its instrument
        }
        add(buffer.getLong(offset + 19, BIG_ENDIAN), orderLocate, buffer.getShort(offset + 3, BIG_ENDIAN),
            timestamp(buffer, offset), side, u32(buffer, offset + 27), stock, u32(buffer, offset + 31),
            withMpid, attribution);
    }

    /** The slot of a live order, or NONE (counted) when the reference is not live. */
    private int slotOf(final long ref)
    {
        final long slot = orderSlots.get(ref);
        if (NONE == slot)
        {
            inconsistent();
            return NONE;
        }
        return (int)slot;
    }

    private void remove(final int slot)
    {
        orderSlots.remove(refs[slot]);
        final int before = previous[slot];
        final int after = next[slot];
        if (NONE == before)
        {
            head = after;
        }
        else
        {
            next[before] = after;
        }
        if (NONE == after)
        {
            tail = before;
        }
        else
        {
            previous[after] = before;
        }
        next[slot] = freeSlots;
        freeSlots = slot;
    }

    private int allocateSlot()
    {
        if (NONE != freeSlots)
        {
            final int slot = freeSlots;
            freeSlots = next[slot];
            return slot;
        }
        if (usedSlots == refs.length)
        {
            allocateOrders(refs.length * 2);
        }
        return usedSlots++;
    }

    private void allocateOrders(final int capacity)
    {
        refs = null == refs ? new long[capacity] : Arrays.copyOf(refs, capacity);
        stocks = null == stocks ? new long[capacity] : Arrays.copyOf(stocks, capacity);
        timestamps = null == timestamps ? new long[capacity] : Arrays.copyOf(timestamps, capacity);
        shares = null == shares ? new long[capacity] : Arrays.copyOf(shares, capacity);
        prices = null == prices ? new long[capacity] : Arrays.copyOf(prices, capacity);
        attributions = null == attributions ? new int[capacity] : Arrays.copyOf(attributions, capacity);
        locates = null == locates ? new char[capacity] : Arrays.copyOf(locates, capacity);
        trackingNumbers = null == trackingNumbers ? new char[capacity] : Arrays.copyOf(trackingNumbers, capacity);
        sides = null == sides ? new byte[capacity] : Arrays.copyOf(sides, capacity);
        attributed = null == attributed ? new boolean[capacity] : Arrays.copyOf(attributed, capacity);
        next = null == next ? new int[capacity] : Arrays.copyOf(next, capacity);
        previous = null == previous ? new int[capacity] : Arrays.copyOf(previous, capacity);
    }

    private void inconsistent()
    {
        if (null != inconsistentMessages)
        {
            inconsistentMessages.incrementRelease();
        }
    }

    private static long timestamp(final DirectBuffer buffer, final int offset)
    {
        return (long)(buffer.getShort(offset + 5, BIG_ENDIAN) & 0xFFFF) << 32 | u32(buffer, offset + 7);
    }

    private static long u32(final DirectBuffer buffer, final int index)
    {
        return buffer.getInt(index, BIG_ENDIAN) & 0xFFFF_FFFFL;
    }

    /** The last message of one type per stock locate, as sent, in a slot per locate up to the highest seen. */
    private static final class LastByLocate
    {
        final int length;
        byte[] bytes;
        boolean[] present;
        int maxLocate = -1;
        int count;

        LastByLocate(final int length)
        {
            this.length = length;
            bytes = new byte[16 * length];
            present = new boolean[16];
        }

        void put(final int locate, final DirectBuffer buffer, final int offset)
        {
            if (locate >= present.length)
            {
                final int capacity = Math.max(locate + 1, present.length * 2);
                present = Arrays.copyOf(present, capacity);
                bytes = Arrays.copyOf(bytes, capacity * length);
            }
            if (!present[locate])
            {
                present[locate] = true;
                count++;
                maxLocate = Math.max(maxLocate, locate);
            }
            buffer.getBytes(offset, bytes, locate * length, length);
        }

        int count()
        {
            return count;
        }
    }
}
