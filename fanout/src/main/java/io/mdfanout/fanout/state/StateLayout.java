package io.mdfanout.fanout.state;

import io.mdfanout.wire.WireFormat;
import org.agrona.BitUtil;

/**
 * Layout of a partition state file ({@code partition-<n>.state}). Every field is an aligned
 * 8-byte long so that each store the apply makes is one 8-byte write that the undo log can
 * record and restore.
 * <pre>
 *  header          magic, layout version, partition id, capacities; the persisted "last applied" fields;
 *                  order count, instrument count, free list head, pool high-water mark; the undo header
 *  market slots    the last SystemEvent, MwcbDeclineLevel, MwcbStatus (length, then the raw SBE message)
 *  bitmap          one bit per instrument id: set while the instrument has any state
 *  undo log        (offset, old value) pairs of the message being applied
 *  order pool      fixed 64-byte entries: orderId, price, shares, side+attribution, instrument, prev, next
 *  order index     open addressing orderId to pool index + 1, linear probing, backward-shift delete
 *  instruments     one entry per instrument id 0..65535: order list head, tail, count, 4 state message slots
 * </pre>
 * Pool links and index values store {@code poolIndex + 1} so that 0 (a never-touched page of the
 * sparse file) means "none".
 */
public final class StateLayout
{
    /** "MDFOSTAT": identifies a partition state file. */
    public static final long MAGIC = 0x4D44464F53544154L;
    /**
     * Bump when the layout changes; a file of another version is refused. 2: the order index keeps
     * nearby order ids in nearby slots ({@code OrderIdHash}), so version 1 files index differently.
     * 3: the "last applied" fields are saved once per message in the undo header rather than
     * logged store by store, so a version 2 process could not roll back a version 3 file.
     */
    public static final long LAYOUT_VERSION = 3;
    /** Instrument ids are ITCH stock locate codes: 0..65535 (0 is the whole market). */
    public static final int INSTRUMENT_CAPACITY = 65536;
    /** Undo entries available to one message; a replace with a long backward shift needs a few dozen. */
    public static final int UNDO_CAPACITY = 16 * 1024;
    /** Largest --max-orders: keeps the file within one mapping (2 GiB). */
    public static final int MAX_ORDERS_LIMIT = 1 << 24;

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 8;
    static final int PARTITION_OFFSET = 16;
    static final int MAX_ORDERS_OFFSET = 24;
    static final int INDEX_CAPACITY_OFFSET = 32;
    static final int INSTRUMENT_CAPACITY_OFFSET = 40;
    static final int UNDO_CAPACITY_OFFSET = 48;

    /** The commit marker: absolute ring position after the last applied record. */
    static final int RING_POSITION_OFFSET = 128;
    static final int LAST_STREAM_SEQUENCE_OFFSET = 136;
    static final int LAST_EXCHANGE_SEQUENCE_OFFSET = 144;
    static final int LAST_EXCHANGE_TIMESTAMP_OFFSET = 152;
    static final int ORDER_COUNT_OFFSET = 160;
    static final int INSTRUMENT_COUNT_OFFSET = 168;
    static final int FREE_HEAD_OFFSET = 176;
    static final int HIGH_WATER_OFFSET = 184;

    static final int UNDO_COUNT_OFFSET = 256;
    static final int UNDO_RING_POSITION_OFFSET = 264;
    /** The "last applied" fields as they were before the message in progress: see {@code UndoLog}. */
    static final int UNDO_SAVED_LAST_STREAM_SEQUENCE_OFFSET = 272;
    static final int UNDO_SAVED_LAST_EXCHANGE_SEQUENCE_OFFSET = 280;
    static final int UNDO_SAVED_LAST_EXCHANGE_TIMESTAMP_OFFSET = 288;

    /** One stored state message: its length (0 = none) then the message padded to 8 bytes. */
    static final int SLOT_DATA_LENGTH = BitUtil.align(WireFormat.MAX_MESSAGE_LENGTH, 8);
    static final int SLOT_LENGTH = 8 + SLOT_DATA_LENGTH;
    /**
     * The system event, the two MWCB messages and the unrecovered gap. The fourth slot (added in 0.1.0 after
     * layout version 3) fits in the space aligned up to the bitmap, which does not move: a state file of three slots
     * reads the fourth as empty (length 0: nothing lost), so the layout version stays.
     */
    static final int MARKET_SLOT_COUNT = 4;
    static final int MARKET_SLOTS_OFFSET = 384;

    static final int BITMAP_OFFSET = BitUtil.align(MARKET_SLOTS_OFFSET + MARKET_SLOT_COUNT * SLOT_LENGTH, 1024);
    static final int BITMAP_LENGTH = INSTRUMENT_CAPACITY / 8;
    static final int UNDO_LOG_OFFSET = BITMAP_OFFSET + BITMAP_LENGTH;
    static final int UNDO_ENTRY_LENGTH = 16;

    static final int ORDER_ENTRY_LENGTH = 64;
    static final int ORDER_ID = 0;
    static final int ORDER_PRICE = 8;
    static final int ORDER_SHARES = 16;
    static final int ORDER_SIDE_ATTRIBUTION = 24;
    static final int ORDER_INSTRUMENT = 32;
    static final int ORDER_PREV = 40;
    static final int ORDER_NEXT = 48;

    static final int INDEX_ENTRY_LENGTH = 16;

    static final int INSTRUMENT_HEAD = 0;
    static final int INSTRUMENT_TAIL = 8;
    static final int INSTRUMENT_ORDER_COUNT = 16;
    static final int INSTRUMENT_SLOTS = 24;
    static final int INSTRUMENT_SLOT_COUNT = 4;
    static final int INSTRUMENT_ENTRY_LENGTH = INSTRUMENT_SLOTS + INSTRUMENT_SLOT_COUNT * SLOT_LENGTH;

    final int maxOrders;
    final int indexCapacity;
    final int poolOffset;
    final int indexOffset;
    final int instrumentsOffset;
    final long fileLength;

    /**
     * @param maxOrders live orders the pool holds (1..{@link #MAX_ORDERS_LIMIT}).
     */
    StateLayout(final int maxOrders)
    {
        if (maxOrders < 1 || maxOrders > MAX_ORDERS_LIMIT)
        {
            throw new IllegalArgumentException("max orders must be 1.." + MAX_ORDERS_LIMIT + ", not " + maxOrders);
        }
        this.maxOrders = maxOrders;
        this.indexCapacity = BitUtil.findNextPositivePowerOfTwo(2 * maxOrders);
        this.poolOffset = BitUtil.align(UNDO_LOG_OFFSET + UNDO_CAPACITY * UNDO_ENTRY_LENGTH, 4096);
        this.indexOffset = BitUtil.align(poolOffset + maxOrders * ORDER_ENTRY_LENGTH, 4096);
        this.instrumentsOffset = BitUtil.align(indexOffset + indexCapacity * INDEX_ENTRY_LENGTH, 4096);
        this.fileLength = BitUtil.align((long)instrumentsOffset + (long)INSTRUMENT_CAPACITY * INSTRUMENT_ENTRY_LENGTH, 4096);
    }

    // The offsets below are where numbers read from the file (pool indices in the index and in the
    // order links, instrument ids in the order records) become places in it: each is checked here,
    // once, so that every access through StateMemory lies inside the file and a corrupt file throws
    // IndexOutOfBoundsException instead of reaching memory beyond the mapping. Every other offset is
    // a constant, or an index table slot masked to the table's capacity, or an undo log entry below
    // UNDO_CAPACITY.

    /**
     * @param poolIndex an order's index in the pool.
     * @return the offset of its record.
     * @throws IndexOutOfBoundsException unless 0 &lt;= poolIndex &lt; maxOrders (a corrupt state file).
     */
    int orderOffset(final int poolIndex)
    {
        if (Integer.compareUnsigned(poolIndex, maxOrders) >= 0)
        {
            throw outside("pool index", poolIndex, maxOrders);
        }
        return poolOffset + poolIndex * ORDER_ENTRY_LENGTH;
    }

    /**
     * @param slot a slot of the order index.
     * @return the offset of its entry.
     * @throws IndexOutOfBoundsException unless 0 &lt;= slot &lt; indexCapacity.
     */
    int indexSlotOffset(final int slot)
    {
        if (Integer.compareUnsigned(slot, indexCapacity) >= 0)
        {
            throw outside("index slot", slot, indexCapacity);
        }
        return indexOffset + slot * INDEX_ENTRY_LENGTH;
    }

    /**
     * @param instrumentId an instrument id.
     * @return the offset of its entry.
     * @throws IndexOutOfBoundsException unless 0 &lt;= instrumentId &lt; INSTRUMENT_CAPACITY.
     */
    int instrumentOffset(final int instrumentId)
    {
        if (Integer.compareUnsigned(instrumentId, INSTRUMENT_CAPACITY) >= 0)
        {
            throw outside("instrument id", instrumentId, INSTRUMENT_CAPACITY);
        }
        return instrumentsOffset + instrumentId * INSTRUMENT_ENTRY_LENGTH;
    }

    /**
     * @param kind which market-wide message.
     * @return the offset of its slot.
     * @throws IndexOutOfBoundsException unless 0 &lt;= kind &lt; MARKET_SLOT_COUNT.
     */
    static int marketSlotOffset(final int kind)
    {
        if (Integer.compareUnsigned(kind, MARKET_SLOT_COUNT) >= 0)
        {
            throw outside("market slot", kind, MARKET_SLOT_COUNT);
        }
        return MARKET_SLOTS_OFFSET + kind * SLOT_LENGTH;
    }

    /**
     * @param instrumentId an instrument id.
     * @param kind         which of its messages.
     * @return the offset of its slot.
     * @throws IndexOutOfBoundsException unless both are in range.
     */
    int instrumentSlotOffset(final int instrumentId, final int kind)
    {
        if (Integer.compareUnsigned(kind, INSTRUMENT_SLOT_COUNT) >= 0)
        {
            throw outside("instrument slot", kind, INSTRUMENT_SLOT_COUNT);
        }
        return instrumentOffset(instrumentId) + INSTRUMENT_SLOTS + kind * SLOT_LENGTH;
    }

    /** Built apart from the checks above, so that they stay small enough to inline. */
    private static IndexOutOfBoundsException outside(final String what, final int value, final int limit)
    {
        return new IndexOutOfBoundsException(
            "state file is corrupt: " + what + " " + value + " outside 0.." + (limit - 1) +
            "; delete it (or choose another --state-dir) to start with empty state");
    }
}
