package io.mdfanout.fanout.state;

import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sbe.GapReason;
import io.mdfanout.sbe.InstrumentDirectoryDecoder;
import io.mdfanout.sbe.MwcbDeclineLevelDecoder;
import io.mdfanout.sbe.MwcbStatusDecoder;
import io.mdfanout.sbe.OperationalHaltDecoder;
import io.mdfanout.sbe.OrderCancelDecoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import io.mdfanout.sbe.OrderExecutedDecoder;
import io.mdfanout.sbe.OrderExecutedWithPriceDecoder;
import io.mdfanout.sbe.OrderReplaceDecoder;
import io.mdfanout.sbe.Price4Decoder;
import io.mdfanout.sbe.RegShoRestrictionDecoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sbe.TradingStatusDecoder;
import io.mdfanout.wire.MarketSession;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;
import org.agrona.IoUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.mdfanout.fanout.state.StateLayout.*;

/**
 * The state of one partition, kept off-heap in a memory-mapped file so it survives kill -9: per
 * instrument the live orders and the last InstrumentDirectory, TradingStatus, RegShoRestriction
 * and OperationalHalt; for the market the last SystemEvent, MwcbDeclineLevel and MwcbStatus, and the last
 * GapNotice of exchange messages lost for good since the exchange's Start of Messages (the state lacks them, so
 * every snapshot of it says so to the subscribers it recovers); and the "last applied" fields (stream sequence,
 * ring position, exchange sequence and timestamp).
 * <p>
 * Book semantics follow ITCH and the SDK's {@code OrderBooks}: adds add, executions and cancels
 * reduce the open shares (the order leaves at 0), delete removes, replace removes the original and
 * adds the new id on the same side and instrument. An unknown order id is counted and skipped; a
 * duplicate order id, an invalid side, an instrument id of 0 or above 65535, or a state message
 * too long to store is counted as rejected; a full pool rejects the add (counted, reported once).
 * <p>
 * Single writer: the partition's consumer thread calls {@link #apply}; the enumeration methods are
 * for the same thread (the snapshot publisher). Every store goes through the {@link UndoLog}, so a
 * message is applied completely or not at all as far as a restarted process can tell.
 * Allocates nothing per message.
 */
public final class PartitionState implements AutoCloseable, SnapshotSource
{
    /** Market-wide state message kinds, in snapshot order. */
    public static final int SYSTEM_EVENT = 0;
    /** The last MwcbDeclineLevel. */
    public static final int MWCB_DECLINE_LEVEL = 1;
    /** The last MwcbStatus. */
    public static final int MWCB_STATUS = 2;
    /**
     * The last GapNotice of exchange messages lost for good (reason UNRECOVERED) since the exchange's Start of
     * Messages: the state lacks them, and a snapshot carries it so that a subscriber it recovers knows.
     */
    public static final int UNRECOVERED_GAP = 3;
    /** Instrument state message kinds, in snapshot order. */
    public static final int INSTRUMENT_DIRECTORY = 0;
    /** The last TradingStatus. */
    public static final int TRADING_STATUS = 1;
    /** The last RegShoRestriction. */
    public static final int REG_SHO_RESTRICTION = 2;
    /** The last OperationalHalt. */
    public static final int OPERATIONAL_HALT = 3;
    /** Number of market-wide kinds. */
    public static final int MARKET_KINDS = MARKET_SLOT_COUNT;
    /** Number of instrument kinds. */
    public static final int INSTRUMENT_KINDS = INSTRUMENT_SLOT_COUNT;
    /** No order / no instrument. */
    public static final int NONE = -1;

    private static final long NO_ATTRIBUTION = 0x20202020L; // four ASCII spaces
    /** Offset of the event code in a stored SystemEvent (its SBE header included). */
    private static final int SYSTEM_EVENT_CODE_OFFSET =
        WireFormat.HEADER_LENGTH + SystemEventDecoder.eventCodeEncodingOffset();
    /** Offset of a price's mantissa within its composite. */
    private static final int PRICE_MANTISSA = Price4Decoder.mantissaEncodingOffset();

    private final Path file;
    private final int partitionId;
    private final StateLayout layout;
    private final PartitionStateCounters counters;
    private final ErrorHandler errorHandler;
    private static final int PAGE_SIZE = 4096;

    private MappedByteBuffer mapped;
    private UnsafeBuffer buffer;
    private StateMemory memory;
    private UndoLog undo;
    private OrderIndex index;
    private boolean resumed;
    private boolean reportedPoolFull;
    private boolean reportedUndoOverflow;
    /** The pool slot the message being applied has freed (a replace frees one, then takes one), or NONE. */
    private int freedThisMessage = NONE;

    /** The message being applied: its fields read by address, at the generated decoders' offsets. */
    private final MessageFields fields = new MessageFields();
    private final UnsafeBuffer slotScratch = new UnsafeBuffer(new byte[SLOT_DATA_LENGTH]);

    private PartitionState(
        final Path file,
        final int partitionId,
        final StateLayout layout,
        final PartitionStateCounters counters,
        final ErrorHandler errorHandler)
    {
        this.file = file;
        this.partitionId = partitionId;
        this.layout = layout;
        this.counters = counters;
        this.errorHandler = errorHandler;
    }

    /**
     * The state file of a partition.
     *
     * @param stateDirectory the --state-dir.
     * @param partitionId    the partition.
     * @return {@code <stateDirectory>/partition-<partitionId>.state}.
     */
    public static Path stateFile(final Path stateDirectory, final int partitionId)
    {
        return stateDirectory.resolve("partition-" + partitionId + ".state");
    }

    /**
     * @param maxOrders live orders the pool holds.
     * @return the length of a partition state file for that many orders (all of it resident once pre-touched).
     */
    public static long fileLength(final int maxOrders)
    {
        return new StateLayout(maxOrders).fileLength;
    }

    /**
     * Open a partition's state file, creating it (sparse) if absent, or resuming it: the layout is
     * checked and a message left half applied by a killed process is rolled back.
     *
     * @param stateDirectory directory of the state files; created if missing.
     * @param partitionId    the partition (0..65535).
     * @param maxOrders      live orders the pool holds; must match an existing file.
     * @param counters       where to count; this state is their only writer.
     * @param errorHandler   told once when the pool is full or the undo log overflows.
     * @return the open state.
     * @throws IllegalStateException when the file cannot be created or mapped, or was written with another layout.
     */
    public static PartitionState open(
        final Path stateDirectory,
        final int partitionId,
        final int maxOrders,
        final PartitionStateCounters counters,
        final ErrorHandler errorHandler)
    {
        return open(stateDirectory, partitionId, maxOrders, counters, errorHandler, false);
    }

    /**
     * {@link #open(Path, int, int, PartitionStateCounters, ErrorHandler)}, optionally touching every
     * page of the file once it is mapped.
     * <p>
     * The file is sparse and the order index spreads orders over it by hash, so without this the
     * first store to each page takes a page fault on the message path, for as long as new pages
     * are reached: a stall of microseconds per fault while the feed waits, the cost Aeron avoids
     * by pre-touching its log buffers. Touching makes the whole file resident (what
     * {@code --max-orders} sizes) and costs a few tens of milliseconds per partition at start.
     *
     * @param pretouch write every page once (its own byte back) before the state is used.
     */
    public static PartitionState open(
        final Path stateDirectory,
        final int partitionId,
        final int maxOrders,
        final PartitionStateCounters counters,
        final ErrorHandler errorHandler,
        final boolean pretouch)
    {
        final StateLayout layout = new StateLayout(maxOrders);
        final Path file = stateFile(stateDirectory, partitionId);
        final PartitionState state = new PartitionState(file, partitionId, layout, counters, errorHandler);
        try
        {
            Files.createDirectories(stateDirectory);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot create state directory " + stateDirectory + " (--state-dir): " + ex, ex);
        }
        if (pretouch && !Files.exists(file))
        {
            requireSpace(stateDirectory, layout.fileLength);
        }
        state.map();
        if (pretouch)
        {
            state.pretouch();
        }
        return state;
    }

    /**
     * A tmpfs such as /dev/shm answers a store beyond its size with SIGBUS, which would kill the
     * process while touching: refuse with a clear message instead.
     */
    private static void requireSpace(final Path stateDirectory, final long fileLength)
    {
        final long usable;
        try
        {
            usable = Files.getFileStore(stateDirectory).getUsableSpace();
        }
        catch (final IOException ex)
        {
            return; // nothing to check against: mapping will report what goes wrong
        }
        if (usable < fileLength)
        {
            throw new IllegalStateException("a partition state file needs " + (fileLength >> 20) + " MiB in " +
                stateDirectory + " but only " + (usable >> 20) + " MiB are free: lower --max-orders, give the " +
                "filesystem more room (e.g. a larger /dev/shm, --shm-size) or use --no-state-pretouch");
        }
    }

    /** Write each page's first byte back to it, so every page is resident before the message path runs. */
    private void pretouch()
    {
        final UnsafeBuffer buffer = this.buffer;
        final int length = buffer.capacity();
        for (int offset = 0; offset < length; offset += PAGE_SIZE)
        {
            buffer.putByte(offset, buffer.getByte(offset));
        }
    }

    private void map()
    {
        final File f = file.toFile();
        try
        {
            if (f.exists() && f.length() > 0)
            {
                if (f.length() != layout.fileLength)
                {
                    throw mismatch("is " + f.length() + " bytes long, not the " + layout.fileLength +
                        " bytes --max-orders " + layout.maxOrders + " needs");
                }
                mapped = IoUtil.mapExistingFile(f, "partition state");
                buffer = new UnsafeBuffer(mapped);
                memory = new StateMemory(buffer);
                if (buffer.getLongVolatile(MAGIC_OFFSET) == 0)
                {
                    initialise(); // created but never initialised: the process died at creation
                    return;
                }
                checkHeader();
                undo = new UndoLog(memory, layout.fileLength);
                index = new OrderIndex(memory, undo, layout);
                final int rolledBack = undo.recover(file.toString());
                if (rolledBack > 0)
                {
                    counters.rolledBackStores().getAndAddRelease(rolledBack);
                }
                resumed = true;
                publishGauges();
            }
            else
            {
                mapped = IoUtil.mapNewFile(f, layout.fileLength, false);
                buffer = new UnsafeBuffer(mapped);
                memory = new StateMemory(buffer);
                initialise();
            }
        }
        catch (final UncheckedIOException ex)
        {
            close();
            throw new IllegalStateException("cannot map state file " + file + ": " + ex.getMessage(), ex);
        }
        catch (final RuntimeException ex)
        {
            close();
            throw ex;
        }
    }

    private void initialise()
    {
        memory.putLong(VERSION_OFFSET, LAYOUT_VERSION);
        memory.putLong(PARTITION_OFFSET, partitionId);
        memory.putLong(MAX_ORDERS_OFFSET, layout.maxOrders);
        memory.putLong(INDEX_CAPACITY_OFFSET, layout.indexCapacity);
        memory.putLong(INSTRUMENT_CAPACITY_OFFSET, INSTRUMENT_CAPACITY);
        memory.putLong(UNDO_CAPACITY_OFFSET, UNDO_CAPACITY);
        buffer.putLongRelease(MAGIC_OFFSET, MAGIC); // last: a file with magic 0 was never initialised
        undo = new UndoLog(memory, layout.fileLength);
        index = new OrderIndex(memory, undo, layout);
        resumed = false;
        publishGauges();
    }

    private void checkHeader()
    {
        if (memory.getLong(MAGIC_OFFSET) != MAGIC)
        {
            throw mismatch("is not a fanout partition state file (bad magic)");
        }
        if (memory.getLong(VERSION_OFFSET) != LAYOUT_VERSION)
        {
            throw mismatch("has layout version " + memory.getLong(VERSION_OFFSET) + ", this build reads " + LAYOUT_VERSION);
        }
        if (memory.getLong(PARTITION_OFFSET) != partitionId)
        {
            throw mismatch("belongs to partition " + memory.getLong(PARTITION_OFFSET) + ", not " + partitionId);
        }
        if (memory.getLong(MAX_ORDERS_OFFSET) != layout.maxOrders ||
            memory.getLong(INDEX_CAPACITY_OFFSET) != layout.indexCapacity ||
            memory.getLong(INSTRUMENT_CAPACITY_OFFSET) != INSTRUMENT_CAPACITY ||
            memory.getLong(UNDO_CAPACITY_OFFSET) != UNDO_CAPACITY)
        {
            throw mismatch("was written with --max-orders " + memory.getLong(MAX_ORDERS_OFFSET) + ", not " + layout.maxOrders);
        }
    }

    private IllegalStateException mismatch(final String what)
    {
        return new IllegalStateException("state file " + file + " " + what +
            ": use the same --max-orders, or another --state-dir, or delete the file to start with empty state");
    }

    /**
     * Throw the state away: used when the ring is new (the feed handler restarted with fresh rings),
     * so the persisted ring position means nothing. The file is recreated empty.
     *
     * @param reason for the error handler's message.
     */
    public void reset(final String reason)
    {
        unmap();
        try
        {
            Files.deleteIfExists(file);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot delete state file " + file + ": " + ex, ex);
        }
        map();
        counters.stateResets().incrementRelease();
        errorHandler.onError(new IllegalStateException(
            "fanout partition " + partitionId + ": state reset (" + reason + "); starting from empty state in " + file));
    }

    /** @return the state file. */
    public Path file()
    {
        return file;
    }

    /** @return the counters this state writes. */
    public PartitionStateCounters counters()
    {
        return counters;
    }

    /** @return the partition. */
    public int partitionId()
    {
        return partitionId;
    }

    /** @return live orders the pool holds. */
    public int maxOrders()
    {
        return layout.maxOrders;
    }

    /** @return true when the file existed and was resumed, false when it was created (or reset) empty. */
    public boolean wasResumed()
    {
        return resumed;
    }

    /** @return stream sequence of the last applied message (0 when none). */
    public long lastAppliedStreamSequence()
    {
        return memory.getLong(LAST_STREAM_SEQUENCE_OFFSET);
    }

    /** @return absolute ring position just after the last applied record (0 when none). */
    public long ringPosition()
    {
        return memory.getLong(RING_POSITION_OFFSET);
    }

    /**
     * Where the partition's chain of exchange sequences stands: the state holds every message of the partition up to
     * this exchange sequence, or the feed handler declared it lost (a gap notice moves it to the gap's end); messages
     * of exchange sequence 0 (an exchange snapshot the feed handler loaded) leave it. 0 when the state has none.
     *
     * @return the exchange sequence.
     */
    public long lastExchangeSequence()
    {
        return memory.getLong(LAST_EXCHANGE_SEQUENCE_OFFSET);
    }

    /** @return exchange timestamp of the last applied message. */
    public long lastExchangeTimestamp()
    {
        return memory.getLong(LAST_EXCHANGE_TIMESTAMP_OFFSET);
    }

    /** @return live orders. */
    public int orderCount()
    {
        return (int)memory.getLong(ORDER_COUNT_OFFSET);
    }

    /** @return instruments with any state (an order or a state message). */
    public int instrumentCount()
    {
        return (int)memory.getLong(INSTRUMENT_COUNT_OFFSET);
    }

    /**
     * Record that a message was consumed without changing the book (it was skipped as a duplicate
     * after restart); nothing is stored.
     */
    public void onSkippedAfterRestart()
    {
        counters.recordsSkippedAfterRestart().incrementRelease();
    }

    /**
     * Apply one normalized message, then persist the "last applied" fields and commit.
     *
     * @param streamSequence stream sequence the message carries.
     * @param ringPosition   absolute ring position just after the record.
     * @param templateId     the message's template id (already validated as a normalized message).
     * @param src            buffer holding the message (header included).
     * @param offset         where the message starts.
     * @param length         message length, header included.
     */
    public void apply(
        final long streamSequence,
        final long ringPosition,
        final int templateId,
        final DirectBuffer src,
        final int offset,
        final int length)
    {
        final UndoLog undo = this.undo;
        undo.begin(ringPosition);
        freedThisMessage = NONE;
        final MessageFields fields = this.fields;
        // The caller validated the record (WireFormat.isPublishableRecord): this only keeps a record
        // that breaks that contract from being read outside itself.
        final int blockLength = fields.wrap(src, offset, length) ? fields.blockLength() : -1;
        switch (templateId)
        {
            case AddOrderDecoder.TEMPLATE_ID:
                if (hasBlock(blockLength, AddOrderDecoder.BLOCK_LENGTH))
                {
                    addOrder(fields.u32(AddOrderDecoder.instrumentIdEncodingOffset()),
                        fields.i64(AddOrderDecoder.orderIdEncodingOffset()),
                        fields.i8(AddOrderDecoder.sideEncodingOffset()),
                        fields.i64(AddOrderDecoder.priceEncodingOffset() + PRICE_MANTISSA),
                        fields.u32(AddOrderDecoder.sharesEncodingOffset()), NO_ATTRIBUTION);
                }
                break;

            case AddOrderAttributedDecoder.TEMPLATE_ID:
                if (hasBlock(blockLength, AddOrderAttributedDecoder.BLOCK_LENGTH))
                {
                    addOrder(fields.u32(AddOrderAttributedDecoder.instrumentIdEncodingOffset()),
                        fields.i64(AddOrderAttributedDecoder.orderIdEncodingOffset()),
                        fields.i8(AddOrderAttributedDecoder.sideEncodingOffset()),
                        fields.i64(AddOrderAttributedDecoder.priceEncodingOffset() + PRICE_MANTISSA),
                        fields.u32(AddOrderAttributedDecoder.sharesEncodingOffset()),
                        fields.u32(AddOrderAttributedDecoder.attributionEncodingOffset()));
                }
                break;

            case OrderExecutedDecoder.TEMPLATE_ID:
                if (hasBlock(blockLength, OrderExecutedDecoder.BLOCK_LENGTH))
                {
                    reduceOrder(fields.i64(OrderExecutedDecoder.orderIdEncodingOffset()),
                        fields.u32(OrderExecutedDecoder.executedSharesEncodingOffset()));
                }
                break;

            case OrderExecutedWithPriceDecoder.TEMPLATE_ID:
                if (hasBlock(blockLength, OrderExecutedWithPriceDecoder.BLOCK_LENGTH))
                {
                    reduceOrder(fields.i64(OrderExecutedWithPriceDecoder.orderIdEncodingOffset()),
                        fields.u32(OrderExecutedWithPriceDecoder.executedSharesEncodingOffset()));
                }
                break;

            case OrderCancelDecoder.TEMPLATE_ID:
                if (hasBlock(blockLength, OrderCancelDecoder.BLOCK_LENGTH))
                {
                    reduceOrder(fields.i64(OrderCancelDecoder.orderIdEncodingOffset()),
                        fields.u32(OrderCancelDecoder.cancelledSharesEncodingOffset()));
                }
                break;

            case OrderDeleteDecoder.TEMPLATE_ID:
                if (hasBlock(blockLength, OrderDeleteDecoder.BLOCK_LENGTH))
                {
                    reduceOrder(fields.i64(OrderDeleteDecoder.orderIdEncodingOffset()), Long.MAX_VALUE);
                }
                break;

            case OrderReplaceDecoder.TEMPLATE_ID:
                if (hasBlock(blockLength, OrderReplaceDecoder.BLOCK_LENGTH))
                {
                    replaceOrder(fields.i64(OrderReplaceDecoder.originalOrderIdEncodingOffset()),
                        fields.i64(OrderReplaceDecoder.newOrderIdEncodingOffset()),
                        fields.i64(OrderReplaceDecoder.priceEncodingOffset() + PRICE_MANTISSA),
                        fields.u32(OrderReplaceDecoder.sharesEncodingOffset()));
                }
                break;

            case SystemEventDecoder.TEMPLATE_ID:
                storeMessage(StateLayout.marketSlotOffset(SYSTEM_EVENT), src, offset, length);
                if (blockLength > SystemEventDecoder.eventCodeEncodingOffset() &&
                    SystemEventCode.START_OF_MESSAGES.value() ==
                    fields.i8(SystemEventDecoder.eventCodeEncodingOffset()))
                {
                    undo.store(StateLayout.marketSlotOffset(UNRECOVERED_GAP), 0); // a new session: nothing lost
                }
                break;

            case GapNoticeDecoder.TEMPLATE_ID:
                if (hasBlock(blockLength, GapNoticeDecoder.BLOCK_LENGTH) &&
                    GapReason.UNRECOVERED.value() == fields.i8(GapNoticeDecoder.reasonEncodingOffset()))
                {
                    storeMessage(StateLayout.marketSlotOffset(UNRECOVERED_GAP), src, offset, length);
                }
                break;

            case MwcbDeclineLevelDecoder.TEMPLATE_ID:
                storeMessage(StateLayout.marketSlotOffset(MWCB_DECLINE_LEVEL), src, offset, length);
                break;

            case MwcbStatusDecoder.TEMPLATE_ID:
                storeMessage(StateLayout.marketSlotOffset(MWCB_STATUS), src, offset, length);
                break;

            case InstrumentDirectoryDecoder.TEMPLATE_ID:
                storeInstrumentMessage(INSTRUMENT_DIRECTORY, src, offset, length);
                break;

            case TradingStatusDecoder.TEMPLATE_ID:
                storeInstrumentMessage(TRADING_STATUS, src, offset, length);
                break;

            case RegShoRestrictionDecoder.TEMPLATE_ID:
                storeInstrumentMessage(REG_SHO_RESTRICTION, src, offset, length);
                break;

            case OperationalHaltDecoder.TEMPLATE_ID:
                storeInstrumentMessage(OPERATIONAL_HALT, src, offset, length);
                break;

            default:
                break; // trades, broken trades, imbalances: events, not state
        }

        undo.storeLastApplied(LAST_STREAM_SEQUENCE_OFFSET, streamSequence);
        // The partition's chain (lastExchangeSequence): every message of the partition up to it is in the state or
        // declared lost. A gap notice moves it to its last missing sequence; a message of exchange sequence 0 (the
        // exchange's snapshot, loaded by the feed handler) has no place in it and leaves it.
        final int chainOffset = WireFormat.chainPositionOffset(templateId);
        final long chainPosition = blockLength >= chainOffset + Long.BYTES ? fields.i64(chainOffset) : 0;
        if (chainPosition > memory.getLong(LAST_EXCHANGE_SEQUENCE_OFFSET))
        {
            undo.storeLastApplied(LAST_EXCHANGE_SEQUENCE_OFFSET, chainPosition);
        }
        if (GapNoticeDecoder.TEMPLATE_ID != templateId && blockLength >= WireFormat.COMMON_PREFIX_LENGTH)
        {
            undo.storeLastApplied(LAST_EXCHANGE_TIMESTAMP_OFFSET, fields.i64(WireFormat.EXCHANGE_TIMESTAMP_OFFSET));
        }
        if (undo.commit(ringPosition) && !reportedUndoOverflow)
        {
            reportedUndoOverflow = true;
            errorHandler.onError(new IllegalStateException("fanout partition " + partitionId +
                ": undo log overflow at stream sequence " + streamSequence + "; that message is not crash safe"));
        }
    }

    /** Whether the message holds the template's whole block; counted as rejected when it does not. */
    private boolean hasBlock(final int blockLength, final int templateBlockLength)
    {
        if (blockLength >= templateBlockLength)
        {
            return true;
        }
        counters.rejectedUpdates().incrementRelease();
        return false;
    }

    /**
     * Publish the orders and instruments held to their gauges. The applying thread calls it after a
     * batch of {@link #apply} calls (once per ring drain), not per message: a gauge is read once a
     * second or so, and two release stores per message were a few percent of the upkeep.
     */
    public void publishGauges()
    {
        counters.ordersInState().setRelease(memory.getLong(ORDER_COUNT_OFFSET));
        counters.instrumentsWithState().setRelease(memory.getLong(INSTRUMENT_COUNT_OFFSET));
        counters.marketSession().setRelease(marketSession().value());
    }

    /**
     * The partition's market session: the state its last SystemEvent entered ({@link MarketSession}), so the
     * same after a restart on the state file, and the same as a subscriber's after a snapshot of this state.
     *
     * @return the session, {@link MarketSession#UNKNOWN} before any SystemEvent.
     */
    public MarketSession marketSession()
    {
        final int slot = StateLayout.marketSlotOffset(SYSTEM_EVENT);
        final long length = memory.getLong(slot);
        return length > SYSTEM_EVENT_CODE_OFFSET ?
            MarketSession.afterLastEvent(buffer.getByte(slot + 8 + SYSTEM_EVENT_CODE_OFFSET)) : MarketSession.UNKNOWN;
    }

    private void addOrder(
        final long instrumentId, final long orderId, final byte side, final long price, final long shares,
        final long attribution)
    {
        if (!isOrderInstrument(instrumentId) || (Side.BUY.value() != side && Side.SELL.value() != side))
        {
            counters.rejectedUpdates().incrementRelease();
            return;
        }
        // One probe finds the id if present (a duplicate: rejected) or the empty slot where it goes.
        final int indexSlot = index.probe(orderId);
        if (!index.isEmpty(indexSlot))
        {
            counters.rejectedUpdates().incrementRelease();
            return;
        }
        insertOrder((int)instrumentId, orderId, side, price, shares, attribution, indexSlot);
    }

    /**
     * @param indexSlot the empty index slot for orderId, from {@link OrderIndex#probe(long)} with no index store since.
     */
    private void insertOrder(
        final int instrumentId, final long orderId, final byte side, final long price, final long shares,
        final long attribution, final int indexSlot)
    {
        final StateMemory memory = this.memory;
        final UndoLog undo = this.undo;
        final int poolIndex;
        final long freeHead = memory.getLong(FREE_HEAD_OFFSET);
        final boolean fromFreeList = 0 != freeHead;
        if (fromFreeList)
        {
            poolIndex = (int)(freeHead - 1);
            undo.store(FREE_HEAD_OFFSET, memory.getLong(layout.orderOffset(poolIndex) + ORDER_NEXT));
        }
        else
        {
            final long highWater = memory.getLong(HIGH_WATER_OFFSET);
            if (highWater >= layout.maxOrders)
            {
                counters.ordersRejectedPoolFull().incrementRelease();
                if (!reportedPoolFull)
                {
                    reportedPoolFull = true;
                    errorHandler.onError(new IllegalStateException("fanout partition " + partitionId +
                        ": order pool full (" + layout.maxOrders + " orders); adds are rejected and snapshots " +
                        "miss them: raise --max-orders"));
                }
                return;
            }
            poolIndex = (int)highWater;
            undo.store(HIGH_WATER_OFFSET, highWater + 1);
        }

        final int order = layout.orderOffset(poolIndex);
        final int instrument = layout.instrumentOffset(instrumentId);
        final long tail = memory.getLong(instrument + INSTRUMENT_TAIL);
        // A slot free before this message is reached by nothing but its free-list link until the stores below (the
        // instrument's list, the index): rolled back, the message leaves these fields behind in a slot nothing reads,
        // so they need no undo entries (half the log's work for an add). Only the link is logged, when the slot came
        // off the free list, since rolling back puts it back there. A slot this message freed (a replace's original
        // order) held a live order at its start: everything is logged.
        final boolean logged = poolIndex == freedThisMessage;
        storeOrderField(logged, order + ORDER_ID, orderId);
        storeOrderField(logged, order + ORDER_PRICE, price);
        storeOrderField(logged, order + ORDER_SHARES, shares);
        storeOrderField(logged, order + ORDER_SIDE_ATTRIBUTION, (side & 0xFFL) | (attribution << 8));
        storeOrderField(logged, order + ORDER_INSTRUMENT, instrumentId);
        storeOrderField(logged, order + ORDER_PREV, tail);
        storeOrderField(logged || fromFreeList, order + ORDER_NEXT, 0);
        if (0 == tail)
        {
            undo.store(instrument + INSTRUMENT_HEAD, poolIndex + 1L);
        }
        else
        {
            undo.store(layout.orderOffset((int)(tail - 1)) + ORDER_NEXT, poolIndex + 1L);
        }
        undo.store(instrument + INSTRUMENT_TAIL, poolIndex + 1L);
        undo.store(instrument + INSTRUMENT_ORDER_COUNT, memory.getLong(instrument + INSTRUMENT_ORDER_COUNT) + 1);
        undo.store(ORDER_COUNT_OFFSET, memory.getLong(ORDER_COUNT_OFFSET) + 1);
        index.putAt(indexSlot, orderId, poolIndex);
        markHasState(instrumentId);
    }

    private void storeOrderField(final boolean logged, final int offset, final long value)
    {
        if (logged)
        {
            undo.store(offset, value);
        }
        else
        {
            memory.putLong(offset, value);
        }
    }

    private void reduceOrder(final long orderId, final long shares)
    {
        final int indexSlot = index.find(orderId);
        if (OrderIndex.MISSING == indexSlot)
        {
            counters.unknownOrderUpdates().incrementRelease();
            return;
        }
        final int poolIndex = index.poolIndexAt(indexSlot);
        final int order = layout.orderOffset(poolIndex);
        final long remaining = memory.getLong(order + ORDER_SHARES);
        if (shares >= remaining)
        {
            removeOrder(poolIndex, indexSlot);
        }
        else
        {
            undo.store(order + ORDER_SHARES, remaining - shares);
        }
    }

    private void replaceOrder(final long originalOrderId, final long newOrderId, final long price, final long shares)
    {
        final int indexSlot = index.find(originalOrderId);
        if (OrderIndex.MISSING == indexSlot)
        {
            counters.unknownOrderUpdates().incrementRelease();
            return;
        }
        final int poolIndex = index.poolIndexAt(indexSlot);
        if (newOrderId != originalOrderId && !index.isEmpty(index.probe(newOrderId)))
        {
            counters.rejectedUpdates().incrementRelease();
            return;
        }
        final int order = layout.orderOffset(poolIndex);
        final int instrumentId = (int)memory.getLong(order + ORDER_INSTRUMENT);
        final byte side = (byte)memory.getLong(order + ORDER_SIDE_ATTRIBUTION);
        removeOrder(poolIndex, indexSlot);
        // Probed after the removal, which may have shifted the index's entries.
        insertOrder(instrumentId, newOrderId, side, price, shares, NO_ATTRIBUTION, index.probe(newOrderId));
    }

    /**
     * @param indexSlot the order's slot in the index, from {@link OrderIndex#find(long)} with no index store since:
     *                  its removal needs no second probe.
     */
    private void removeOrder(final int poolIndex, final int indexSlot)
    {
        final StateMemory memory = this.memory;
        final UndoLog undo = this.undo;
        final int order = layout.orderOffset(poolIndex);
        final int instrumentId = (int)memory.getLong(order + ORDER_INSTRUMENT);
        final int instrument = layout.instrumentOffset(instrumentId);
        final long prev = memory.getLong(order + ORDER_PREV);
        final long next = memory.getLong(order + ORDER_NEXT);
        if (0 == prev)
        {
            undo.store(instrument + INSTRUMENT_HEAD, next);
        }
        else
        {
            undo.store(layout.orderOffset((int)(prev - 1)) + ORDER_NEXT, next);
        }
        if (0 == next)
        {
            undo.store(instrument + INSTRUMENT_TAIL, prev);
        }
        else
        {
            undo.store(layout.orderOffset((int)(next - 1)) + ORDER_PREV, prev);
        }
        undo.store(instrument + INSTRUMENT_ORDER_COUNT, memory.getLong(instrument + INSTRUMENT_ORDER_COUNT) - 1);
        undo.store(ORDER_COUNT_OFFSET, memory.getLong(ORDER_COUNT_OFFSET) - 1);
        // A free slot's fields other than its free-list link are never read (an add writes them all): no store.
        undo.store(order + ORDER_NEXT, memory.getLong(FREE_HEAD_OFFSET));
        undo.store(FREE_HEAD_OFFSET, poolIndex + 1L);
        freedThisMessage = poolIndex;
        index.removeAt(indexSlot);
        updateHasState(instrumentId);
    }

    private void storeInstrumentMessage(final int kind, final DirectBuffer src, final int offset, final int length)
    {
        final long instrumentId = WireFormat.instrumentId(src, offset);
        if (!isOrderInstrument(instrumentId))
        {
            counters.rejectedUpdates().incrementRelease();
            return;
        }
        if (storeMessage(layout.instrumentSlotOffset((int)instrumentId, kind), src, offset, length))
        {
            markHasState((int)instrumentId);
        }
    }

    private boolean storeMessage(final int slotOffset, final DirectBuffer src, final int offset, final int length)
    {
        if (length > SLOT_DATA_LENGTH)
        {
            counters.rejectedUpdates().incrementRelease();
            return false;
        }
        final UnsafeBuffer scratch = slotScratch;
        scratch.setMemory(0, SLOT_DATA_LENGTH, (byte)0);
        scratch.putBytes(0, src, offset, length);
        for (int i = 0; i < SLOT_DATA_LENGTH; i += 8)
        {
            undo.store(slotOffset + 8 + i, scratch.getLong(i));
        }
        undo.store(slotOffset, length);
        return true;
    }

    private static boolean isOrderInstrument(final long instrumentId)
    {
        return instrumentId > 0 && instrumentId < INSTRUMENT_CAPACITY;
    }

    private void markHasState(final int instrumentId)
    {
        final int word = BITMAP_OFFSET + (instrumentId >>> 6) * 8;
        final long bits = memory.getLong(word);
        final long bit = 1L << (instrumentId & 63);
        if (0 == (bits & bit))
        {
            undo.store(word, bits | bit);
            undo.store(INSTRUMENT_COUNT_OFFSET, memory.getLong(INSTRUMENT_COUNT_OFFSET) + 1);
        }
    }

    private void updateHasState(final int instrumentId)
    {
        final int instrument = layout.instrumentOffset(instrumentId);
        if (0 != memory.getLong(instrument + INSTRUMENT_ORDER_COUNT))
        {
            return;
        }
        for (int kind = 0; kind < INSTRUMENT_SLOT_COUNT; kind++)
        {
            if (0 != memory.getLong(layout.instrumentSlotOffset(instrumentId, kind)))
            {
                return;
            }
        }
        final int word = BITMAP_OFFSET + (instrumentId >>> 6) * 8;
        final long bits = memory.getLong(word);
        final long bit = 1L << (instrumentId & 63);
        if (0 != (bits & bit))
        {
            undo.store(word, bits & ~bit);
            undo.store(INSTRUMENT_COUNT_OFFSET, memory.getLong(INSTRUMENT_COUNT_OFFSET) - 1);
        }
    }

    // ---------- enumeration, for snapshots (same thread as apply) ----------

    /**
     * @param fromInstrumentId first id to consider.
     * @return the smallest instrument id >= fromInstrumentId that has state, or {@link #NONE}.
     */
    public int nextInstrumentWithState(final int fromInstrumentId)
    {
        if (fromInstrumentId >= INSTRUMENT_CAPACITY)
        {
            return NONE;
        }
        int wordIndex = fromInstrumentId >>> 6;
        long bits = memory.getLong(BITMAP_OFFSET + wordIndex * 8) & (-1L << (fromInstrumentId & 63));
        while (true)
        {
            if (0 != bits)
            {
                return (wordIndex << 6) + Long.numberOfTrailingZeros(bits);
            }
            if (++wordIndex == INSTRUMENT_CAPACITY / 64)
            {
                return NONE;
            }
            bits = memory.getLong(BITMAP_OFFSET + wordIndex * 8);
        }
    }

    /** {@inheritDoc} */
    public int marketKinds()
    {
        return MARKET_KINDS;
    }

    /** {@inheritDoc} */
    public int instrumentKinds()
    {
        return INSTRUMENT_KINDS;
    }

    /** @return live orders of the instrument. */
    public int instrumentOrderCount(final int instrumentId)
    {
        return (int)memory.getLong(layout.instrumentOffset(instrumentId) + INSTRUMENT_ORDER_COUNT);
    }

    /** @return pool index of the instrument's oldest live order, or {@link #NONE}. */
    public int firstOrder(final int instrumentId)
    {
        return (int)memory.getLong(layout.instrumentOffset(instrumentId) + INSTRUMENT_HEAD) - 1;
    }

    /** @return pool index of the next order of the same instrument, or {@link #NONE}. */
    public int nextOrder(final int poolIndex)
    {
        return (int)memory.getLong(layout.orderOffset(poolIndex) + ORDER_NEXT) - 1;
    }

    /** @return the order's id. */
    public long orderId(final int poolIndex)
    {
        return memory.getLong(layout.orderOffset(poolIndex) + ORDER_ID);
    }

    /** @return the order's price mantissa (4 implied decimals). */
    public long orderPrice(final int poolIndex)
    {
        return memory.getLong(layout.orderOffset(poolIndex) + ORDER_PRICE);
    }

    /** @return the order's open shares. */
    public long orderShares(final int poolIndex)
    {
        return memory.getLong(layout.orderOffset(poolIndex) + ORDER_SHARES);
    }

    /** @return the order's side, 'B' or 'S'. */
    public byte orderSide(final int poolIndex)
    {
        return (byte)memory.getLong(layout.orderOffset(poolIndex) + ORDER_SIDE_ATTRIBUTION);
    }

    /** @return the order's attribution: its 4 ASCII bytes in little-endian order ("    " when none). */
    public int orderAttribution(final int poolIndex)
    {
        return (int)(memory.getLong(layout.orderOffset(poolIndex) + ORDER_SIDE_ATTRIBUTION) >>> 8);
    }

    /**
     * @return the first exchange sequence of the last run the state lost for good since the exchange's Start of
     * Messages (its GapNotice, {@link #UNRECOVERED_GAP}), 0 when it lacks nothing.
     */
    public long unrecoveredFromSequence()
    {
        return unrecoveredGapField(WireFormat.EXCHANGE_SEQUENCE_OFFSET);
    }

    /** @return the last exchange sequence of that run (inclusive), 0 when the state lacks nothing. */
    public long unrecoveredToSequence()
    {
        return unrecoveredGapField(GapNoticeDecoder.lastMissingSequenceEncodingOffset());
    }

    private long unrecoveredGapField(final int fieldOffset)
    {
        final int slot = StateLayout.marketSlotOffset(UNRECOVERED_GAP);
        return memory.getLong(slot) > 0 ?
            buffer.getLong(slot + 8 + WireFormat.HEADER_LENGTH + fieldOffset, java.nio.ByteOrder.LITTLE_ENDIAN) : 0;
    }

    /** @return length of the stored market-wide message of that kind, 0 when none was received. */
    public int marketMessageLength(final int kind)
    {
        return (int)memory.getLong(StateLayout.marketSlotOffset(kind));
    }

    /** Copy the stored market-wide message of that kind (length {@link #marketMessageLength(int)}). */
    public void copyMarketMessage(final int kind, final MutableDirectBuffer dst, final int dstOffset)
    {
        final int slot = StateLayout.marketSlotOffset(kind);
        dst.putBytes(dstOffset, buffer, slot + 8, (int)memory.getLong(slot));
    }

    /** @return length of the instrument's stored message of that kind, 0 when none was received. */
    public int instrumentMessageLength(final int instrumentId, final int kind)
    {
        return (int)memory.getLong(layout.instrumentSlotOffset(instrumentId, kind));
    }

    /** Copy the instrument's stored message of that kind (length {@link #instrumentMessageLength(int, int)}). */
    public void copyInstrumentMessage(
        final int instrumentId, final int kind, final MutableDirectBuffer dst, final int dstOffset)
    {
        final int slot = layout.instrumentSlotOffset(instrumentId, kind);
        dst.putBytes(dstOffset, buffer, slot + 8, (int)memory.getLong(slot));
    }

    /** Test hook: the apply stops (throws) at the given store step, as kill -9 would; 0 disables. */
    void crashAtStep(final int step)
    {
        undo.crashCountdown = step;
    }

    /** Drop the mapping without any further store (the file keeps whatever was stored). */
    public void close()
    {
        unmap();
    }

    private void unmap()
    {
        if (null != mapped)
        {
            IoUtil.unmap(mapped);
            mapped = null;
            buffer = null;
            memory = null;
            undo = null;
            index = null;
        }
    }
}
