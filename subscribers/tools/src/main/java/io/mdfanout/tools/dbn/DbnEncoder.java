package io.mdfanout.tools.dbn;

import com.github.luben.zstd.ZstdOutputStream;
import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.CrossTradeDecoder;
import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sbe.ImbalanceDecoder;
import io.mdfanout.sbe.InstrumentDirectoryDecoder;
import io.mdfanout.sbe.MwcbStatusDecoder;
import io.mdfanout.sbe.OperationalHaltDecoder;
import io.mdfanout.sbe.OrderCancelDecoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import io.mdfanout.sbe.OrderExecutedDecoder;
import io.mdfanout.sbe.OrderExecutedWithPriceDecoder;
import io.mdfanout.sbe.OrderReplaceDecoder;
import io.mdfanout.sbe.Price4Decoder;
import io.mdfanout.sbe.RegShoRestrictionDecoder;
import io.mdfanout.sbe.SnapshotInstrumentDecoder;
import io.mdfanout.sbe.SnapshotOrderDecoder;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sbe.TradeDecoder;
import io.mdfanout.sbe.TradingStatusDecoder;
import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.MessageContext;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.LongHashSet;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes the normalized feed it is given, as a {@link MarketDataListener}, to a Databento DBN (version 3) file:
 * order-book events as MBO records, InstrumentDirectory as instrument definitions, trading state messages as status
 * records and NOII as imbalance records. docs/EXPORT.md has the mapping and what does not map.
 * <p>
 * With a derived schema ({@link DbnOptions#schema}: MBP-1, MBP-10, TBBO, trades, OHLCV) the file holds that schema's
 * records only: the SDK's derivation makes them from the MBO callbacks ({@link DerivedRecords}), and the MBO records
 * each event maps to are not written but describe the event in the MBP records it causes.
 * <p>
 * The DBN metadata comes first in the file but lists every symbol, which is only known at the end: records are
 * spooled to a temporary file and {@link #close()} writes metadata and records to the output, through zstd when
 * asked. The encoder keeps every live order (price, side, open size) because ITCH executions, cancels, deletes
 * and replaces carry only the order id, while DBN records carry price, side and size.
 * <p>
 * Single-threaded, like the listener callbacks. Records are built in one reused buffer; each order costs one
 * tracking object, recycled when the order leaves the book.
 */
public final class DbnEncoder implements MarketDataListener, AutoCloseable
{
    /** Price4 (1e-4) to DBN fixed price (1e-9). */
    static final long PRICE4_TO_DBN = 100_000L;
    private static final int SPOOL_BUFFER_SIZE = 256 * 1024;
    private static final long U32_MAX = 0xFFFF_FFFFL;
    /** OrderExecutedWithPrice's printable flag of an execution that prints. */
    private static final byte PRINTABLE = 'Y';

    private final DbnOptions options;
    private final OutputStream out;
    private final long sessionMidnightEpochNs;
    private final Path spoolFile;
    private final FileChannel spool;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(SPOOL_BUFFER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
    private final byte[] definitionTemplate = definitionTemplate();
    private final Long2ObjectHashMap<String> symbols = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<Order> orders = new Long2ObjectHashMap<>();
    private final ArrayDeque<Order> freeOrders = new ArrayDeque<>();
    private final Int2ObjectHashMap<LongHashSet> pendingClears = new Int2ObjectHashMap<>();
    private final DbnStats stats = new DbnStats();
    /** The derived schema's records; null for MBO. */
    private final DerivedRecords derived;

    private long tsEvent;
    private long tsRecv;
    private int baseFlags;
    private int channel;
    private long sequence;
    private int partition;
    private boolean inRange;
    private long snapshotOrdersLeft;
    private long firstTsEvent = Long.MAX_VALUE;
    private long lastTsEvent = Long.MIN_VALUE;
    private boolean closed;

    /**
     * Creates an encoder writing to {@code out}, which it closes in {@link #close()}.
     *
     * @param options configuration; its session date must be set.
     * @param out     where the DBN file goes (a file stream, buffered by the encoder).
     * @throws IOException when the spool file cannot be created.
     */
    public DbnEncoder(final DbnOptions options, final OutputStream out) throws IOException
    {
        if (options.sessionDate() == null)
        {
            throw new IllegalArgumentException("the session date is required: ITCH timestamps count from its midnight");
        }
        options.validate();
        this.options = options;
        this.out = out;
        this.sessionMidnightEpochNs = options.sessionDate().atStartOfDay(options.zone()).toEpochSecond() * 1_000_000_000L;
        this.spoolFile = options.spoolDirectory() == null ?
            Files.createTempFile("mdfanout-dbn-", ".spool") :
            Files.createTempFile(options.spoolDirectory(), "mdfanout-dbn-", ".spool");
        this.spool = FileChannel.open(spoolFile, StandardOpenOption.READ, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.DELETE_ON_CLOSE);
        stats.schema(options.schema());
        this.derived = options.schema().isDerived() ? new DerivedRecords(this, options.schema()) : null;
    }

    /**
     * Creates an encoder writing the file at {@code path} (replaced if present), spooling next to it unless the
     * options name a spool directory.
     *
     * @param options configuration; its session date must be set.
     * @param path    the DBN file, conventionally {@code .dbn} or {@code .dbn.zst}.
     * @return the encoder; {@link #close()} completes the file.
     * @throws IOException when the file or the spool cannot be created.
     */
    public static DbnEncoder open(final DbnOptions options, final Path path) throws IOException
    {
        if (options.spoolDirectory() == null)
        {
            final Path parent = path.toAbsolutePath().getParent();
            options.spoolDirectory(parent);
        }
        return new DbnEncoder(options, Files.newOutputStream(path));
    }

    /**
     * What was written so far, by record type and action.
     *
     * @return the counts, live.
     */
    public DbnStats stats()
    {
        return stats;
    }

    /**
     * The DBN ts_event of an SBE exchange timestamp.
     *
     * @param exchangeTimestamp nanoseconds since midnight of the session date in the session zone.
     * @return nanoseconds since the epoch.
     */
    public long toEpochNanos(final long exchangeTimestamp)
    {
        return sessionMidnightEpochNs + exchangeTimestamp;
    }

    /**
     * The DBN price of an SBE Price4 mantissa.
     *
     * @param mantissa price in units of 1e-4; SBE's null value for none.
     * @return price in units of 1e-9, {@link Dbn#UNDEF_PRICE} for none.
     */
    public static long toDbnPrice(final long mantissa)
    {
        return mantissa == Price4Decoder.mantissaNullValue() ? Dbn.UNDEF_PRICE : mantissa * PRICE4_TO_DBN;
    }

    /**
     * Writes the metadata and the spooled records to the output, through zstd when asked, and closes it. The
     * schema is a derived schema's, or MBO when only MBO records were written, otherwise none (mixed records), as
     * DBN prescribes.
     *
     * @throws IOException when writing fails; the output is closed regardless.
     */
    public void close() throws IOException
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try (OutputStream target = options.zstd() ?
            new ZstdOutputStream(new BufferedOutputStream(out, 1 << 16), options.zstdLevel()) :
            new BufferedOutputStream(out, 1 << 16);
            FileChannel spooled = spool)
        {
            flushBuffer();
            final TreeMap<String, Long> bySymbol = new TreeMap<>();
            for (final Map.Entry<Long, String> entry : symbols.entrySet())
            {
                bySymbol.put(entry.getValue(), entry.getKey());
            }
            final List<DbnMetadata.Mapping> mappings = new ArrayList<>(bySymbol.size());
            bySymbol.forEach((symbol, id) -> mappings.add(new DbnMetadata.Mapping(symbol, id)));

            final boolean onlyMbo = stats.records() == stats.mboRecords();
            final long start = options.startEpochNs() != 0 ? options.startEpochNs() :
                firstTsEvent == Long.MAX_VALUE ? sessionMidnightEpochNs : firstTsEvent;
            final long end = options.endEpochNs() != Long.MAX_VALUE ? options.endEpochNs() :
                lastTsEvent == Long.MIN_VALUE ? Dbn.UNDEF_TIMESTAMP : lastTsEvent + 1;
            final int schema = options.schema().isDerived() ? options.schema().id() :
                onlyMbo ? Dbn.SCHEMA_MBO : Dbn.NULL_SCHEMA;
            final ByteBuffer metadata = DbnMetadata.encode(
                options.dataset(), schema, start, end, options.sessionDate(), mappings);
            target.write(metadata.array(), 0, metadata.limit());

            spooled.position(0);
            spooled.transferTo(0, spooled.size(), Channels.newChannel(target));
        }
    }

    // ----- the derived schemas' clock and gaps -----

    /** Every message: a derived schema's derivation takes its prefix and time (bars close on it). */
    public void onRawMessage(final MessageContext context, final DirectBuffer buffer, final int offset, final int length)
    {
        if (null != derived)
        {
            derived.partition(context.partition()).onRawMessage(context, buffer, offset, length);
        }
    }

    /** Nothing is written (see docs/EXPORT.md); a derived schema's bars of the interval are marked partial. */
    public void onGapNotice(final MessageContext context, final GapNoticeDecoder message)
    {
        if (null != derived)
        {
            begin(context, message.exchangeSequence(), message.exchangeTimestamp());
            derived.partition(partition).onGapNotice(context, message);
            derived.endEvent();
        }
    }

    // ----- order book events -----

    /** {@inheritDoc} */
    public void onAddOrder(final MessageContext context, final AddOrderDecoder message)
    {
        begin(context, message.exchangeSequence(), message.exchangeTimestamp());
        add(message.instrumentId(), message.orderId(), toDbnPrice(message.price().mantissa()), message.shares(),
            side(message.sideRaw()), Dbn.F_LAST);
        if (null != derived)
        {
            derived.partition(partition).onAddOrder(context, message);
            derived.endEvent();
        }
    }

    /** {@inheritDoc} */
    public void onAddOrderAttributed(final MessageContext context, final AddOrderAttributedDecoder message)
    {
        begin(context, message.exchangeSequence(), message.exchangeTimestamp());
        add(message.instrumentId(), message.orderId(), toDbnPrice(message.price().mantissa()), message.shares(),
            side(message.sideRaw()), Dbn.F_LAST);
        if (null != derived)
        {
            derived.partition(partition).onAddOrderAttributed(context, message);
            derived.endEvent();
        }
    }

    /** {@inheritDoc} */
    public void onOrderExecuted(final MessageContext context, final OrderExecutedDecoder message)
    {
        begin(context, message.exchangeSequence(), message.exchangeTimestamp());
        final Order order = orders.get(message.orderId());
        execute(message.instrumentId(), message.orderId(), order, order == null ? Dbn.UNDEF_PRICE : order.price,
            message.executedShares());
        if (null != derived)
        {
            derived.partition(partition).onOrderExecuted(context, message);
            derived.endEvent();
        }
    }

    /**
     * A printable execution at a price is a fill and its cancel, as E. A non-printable one (printable N: Nasdaq
     * reports its volume elsewhere, e.g. in the cross it belongs to) is no print: only its effect on the book, the
     * cancel of the executed shares, is written, so that a file's fills are exactly its prints (docs/EXPORT.md).
     */
    public void onOrderExecutedWithPrice(final MessageContext context, final OrderExecutedWithPriceDecoder message)
    {
        begin(context, message.exchangeSequence(), message.exchangeTimestamp());
        final Order order = orders.get(message.orderId());
        if (PRINTABLE == message.printable())
        {
            execute(message.instrumentId(), message.orderId(), order, toDbnPrice(message.executionPrice().mantissa()),
                message.executedShares());
        }
        else
        {
            reduce(message.instrumentId(), message.orderId(), order, message.executedShares(), Dbn.F_LAST);
        }
        if (null != derived)
        {
            derived.partition(partition).onOrderExecutedWithPrice(context, message);
            derived.endEvent();
        }
    }

    /** {@inheritDoc} */
    public void onOrderCancel(final MessageContext context, final OrderCancelDecoder message)
    {
        begin(context, message.exchangeSequence(), message.exchangeTimestamp());
        final Order order = orders.get(message.orderId());
        reduce(message.instrumentId(), message.orderId(), order, message.cancelledShares(), Dbn.F_LAST);
        if (null != derived)
        {
            derived.partition(partition).onOrderCancel(context, message);
            derived.endEvent();
        }
    }

    /** {@inheritDoc} */
    public void onOrderDelete(final MessageContext context, final OrderDeleteDecoder message)
    {
        begin(context, message.exchangeSequence(), message.exchangeTimestamp());
        final Order order = orders.get(message.orderId());
        reduce(message.instrumentId(), message.orderId(), order, order == null ? U32_MAX : order.size, Dbn.F_LAST);
        if (null != derived)
        {
            derived.partition(partition).onOrderDelete(context, message);
            derived.endEvent();
        }
    }

    /** {@inheritDoc} */
    public void onOrderReplace(final MessageContext context, final OrderReplaceDecoder message)
    {
        begin(context, message.exchangeSequence(), message.exchangeTimestamp());
        final long instrumentId = message.instrumentId();
        final Order order = orders.get(message.originalOrderId());
        // ITCH U keeps the side; the new order is unknown too when the original was (the book may be bad)
        final byte side = order == null ? Dbn.SIDE_NONE : order.side;
        final int unknown = order == null ? Dbn.F_MAYBE_BAD_BOOK : 0;
        reduce(instrumentId, message.originalOrderId(), order, order == null ? U32_MAX : order.size, 0);
        add(instrumentId, message.newOrderId(), toDbnPrice(message.price().mantissa()), message.shares(), side,
            Dbn.F_LAST | unknown);
        if (null != derived)
        {
            derived.partition(partition).onOrderReplace(context, message);
            derived.endEvent();
        }
    }

    /** {@inheritDoc} */
    public void onTrade(final MessageContext context, final TradeDecoder message)
    {
        begin(context, message.exchangeSequence(), message.exchangeTimestamp());
        // ITCH 5.0 sends 'B' as the Buy/Sell Indicator of every P message since 2014: no side is known
        mbo(message.instrumentId(), message.orderId(), toDbnPrice(message.price().mantissa()), message.shares(),
            Dbn.F_LAST, Dbn.ACTION_TRADE, Dbn.SIDE_NONE);
        if (null != derived)
        {
            derived.partition(partition).onTrade(context, message);
            derived.endEvent();
        }
    }

    /** {@inheritDoc} */
    public void onCrossTrade(final MessageContext context, final CrossTradeDecoder message)
    {
        begin(context, message.exchangeSequence(), message.exchangeTimestamp());
        mbo(message.instrumentId(), 0, toDbnPrice(message.crossPrice().mantissa()), saturateU32(message.shares()),
            Dbn.F_LAST, Dbn.ACTION_TRADE, Dbn.SIDE_NONE);
        if (null != derived)
        {
            derived.partition(partition).onCrossTrade(context, message);
            derived.endEvent();
        }
    }

    // ----- snapshots -----

    /** {@inheritDoc} */
    public void onSnapshotBegin(final int partition, final long snapshotId, final long lastStreamSequence)
    {
        // Every book of the partition is rebuilt: instruments the snapshot names are cleared at their
        // SnapshotInstrument, the others (no orders at the snapshot) once the snapshot is over.
        LongHashSet clears = pendingClears.get(partition);
        for (final Long2ObjectHashMap<Order>.ValueIterator it = orders.values().iterator(); it.hasNext(); )
        {
            final Order order = it.next();
            if (order.partition == partition)
            {
                if (clears == null)
                {
                    clears = new LongHashSet();
                    pendingClears.put(partition, clears);
                }
                clears.add(order.instrumentId);
                it.remove();
                freeOrders.add(order);
            }
        }
        if (null != derived)
        {
            derived.partition(partition).onSnapshotBegin(partition, snapshotId, lastStreamSequence);
        }
    }

    /** {@inheritDoc} */
    public void onSnapshotInstrument(final MessageContext context, final SnapshotInstrumentDecoder message)
    {
        begin(context, message.exchangeSequence(), message.exchangeTimestamp());
        final long instrumentId = message.instrumentId();
        final LongHashSet clears = pendingClears.get(context.partition());
        if (clears != null)
        {
            clears.remove(instrumentId);
        }
        dropOrders(instrumentId);
        snapshotOrdersLeft = message.orderCount();
        mbo(instrumentId, 0, Dbn.UNDEF_PRICE, 0, snapshotOrdersLeft == 0 ? Dbn.F_LAST : 0, Dbn.ACTION_CLEAR,
            Dbn.SIDE_NONE);
        if (null != derived)
        {
            derived.partition(partition).onSnapshotInstrument(context, message);
            derived.endEvent();
        }
    }

    /** {@inheritDoc} */
    public void onSnapshotOrder(final MessageContext context, final SnapshotOrderDecoder message)
    {
        begin(context, message.exchangeSequence(), message.exchangeTimestamp());
        snapshotOrdersLeft--;
        add(message.instrumentId(), message.orderId(), toDbnPrice(message.price().mantissa()), message.shares(),
            side(message.sideRaw()), snapshotOrdersLeft <= 0 ? Dbn.F_LAST : 0);
        if (null != derived)
        {
            derived.partition(partition).onSnapshotOrder(context, message);
            derived.endEvent();
        }
    }

    /**
     * A derived schema's books are restored: a record of each book of the partition, action R (its levels replace
     * the book), flagged as the snapshot's records.
     */
    public void onSnapshotEnd(
        final int partition, final long snapshotId, final long coveredFromInstrumentId, final long lastStreamSequence)
    {
        if (null != derived)
        {
            derived.outsideEvent();
            derived.partition(partition).onSnapshotEnd(partition, snapshotId, coveredFromInstrumentId,
                lastStreamSequence);
        }
    }

    /** A new trading day: a derived schema's books of the partition start empty (a record R of each). */
    public void onNewDay(final int partition)
    {
        if (null != derived)
        {
            derived.outsideEvent();
            derived.partition(partition).onNewDay(partition);
        }
    }

    /** {@inheritDoc} */
    public void onRecovered(final int partition, final long snapshotId, final long lastStreamSequence,
        final long staleForNanos)
    {
        flushPendingClears(partition);
    }

    // ----- reference data and trading state -----

    /** {@inheritDoc} */
    public void onInstrumentDirectory(final MessageContext context, final InstrumentDirectoryDecoder message)
    {
        begin(context, message.exchangeSequence(), message.exchangeTimestamp());
        final long instrumentId = message.instrumentId();
        final String symbol = message.symbol().trim();
        if (!symbol.equals(symbols.get(instrumentId)))
        {
            symbols.put(instrumentId, symbol);
        }
        if (null != derived)
        {
            derived.partition(partition).onInstrumentDirectory(context, message);
            derived.endEvent();
        }
        if (!options.definitions() || !inRange)
        {
            return;
        }
        final ByteBuffer b = reserve(Dbn.INSTRUMENT_DEF_SIZE);
        final int p = b.position();
        b.put(definitionTemplate);
        header(b, p, Dbn.INSTRUMENT_DEF_SIZE, Dbn.RTYPE_INSTRUMENT_DEF, instrumentId);
        b.putLong(p + 16, tsRecv);
        b.putLong(p + 32, Dbn.FIXED_PRICE_SCALE);                  // display_factor: prices are already in units
        b.putLong(p + 112, instrumentId);                          // raw_instrument_id: the stock locate
        b.putInt(p + 168, (int)Math.min(message.roundLotSize(), Integer.MAX_VALUE));   // min_lot_size_round_lot
        b.putShort(p + 218, (short)channel);                       // channel_id
        putAscii(b, p + 224, "USD");                               // currency
        putAscii(b, p + 232, message.issueSubType().trim());       // secsubtype
        putAscii(b, p + 238, symbol);                              // raw_symbol
        putAscii(b, p + 330, "XNAS");                              // exchange
        b.put(p + 487, (byte)'K');                                 // instrument_class: stock
        b.put(p + 488, (byte)'F');                                 // match_algorithm: price-time FIFO
        b.put(p + 493, (byte)'A');                                 // security_update_action: add
        stats.definition();
    }

    /** {@inheritDoc} */
    public void onTradingStatus(final MessageContext context, final TradingStatusDecoder message)
    {
        begin(context, message.exchangeSequence(), message.exchangeTimestamp());
        final int action;
        final byte trading;
        final byte quoting;
        switch (message.tradingStateRaw())
        {
            case 'H':
                action = Dbn.STATUS_ACTION_HALT;
                trading = Dbn.TRI_NO;
                quoting = Dbn.TRI_NO;
                break;
            case 'P':
                action = Dbn.STATUS_ACTION_PAUSE;
                trading = Dbn.TRI_NO;
                quoting = Dbn.TRI_NO;
                break;
            case 'Q':
                action = Dbn.STATUS_ACTION_QUOTING;
                trading = Dbn.TRI_NO;
                quoting = Dbn.TRI_YES;
                break;
            case 'T':
                action = Dbn.STATUS_ACTION_TRADING;
                trading = Dbn.TRI_YES;
                quoting = Dbn.TRI_YES;
                break;
            default:
                return;
        }
        status(message.instrumentId(), action, ItchStatusReasons.reason(message.reason()), trading, quoting,
            Dbn.TRI_NOT_AVAILABLE);
    }

    /** {@inheritDoc} */
    public void onRegShoRestriction(final MessageContext context, final RegShoRestrictionDecoder message)
    {
        begin(context, message.exchangeSequence(), message.exchangeTimestamp());
        final byte action = message.regShoAction();
        if (action < '0' || action > '2')
        {
            return;
        }
        status(message.instrumentId(), Dbn.STATUS_ACTION_SSR_CHANGE, Dbn.STATUS_REASON_NONE, Dbn.TRI_NOT_AVAILABLE,
            Dbn.TRI_NOT_AVAILABLE, action == '0' ? Dbn.TRI_NO : Dbn.TRI_YES);
    }

    /** {@inheritDoc} */
    public void onOperationalHalt(final MessageContext context, final OperationalHaltDecoder message)
    {
        begin(context, message.exchangeSequence(), message.exchangeTimestamp());
        // Only a halt of Nasdaq ('Q') changes trading on XNAS; BX ('B') and PSX ('X') halts concern other venues
        if (message.marketCode() != 'Q')
        {
            return;
        }
        final boolean halted = message.haltAction() == 'H';
        status(message.instrumentId(), halted ? Dbn.STATUS_ACTION_HALT : Dbn.STATUS_ACTION_TRADING,
            Dbn.STATUS_REASON_OPERATIONAL, halted ? Dbn.TRI_NO : Dbn.TRI_YES, halted ? Dbn.TRI_NO : Dbn.TRI_YES,
            Dbn.TRI_NOT_AVAILABLE);
    }

    /** {@inheritDoc} */
    public void onSystemEvent(final MessageContext context, final SystemEventDecoder message)
    {
        begin(context, message.exchangeSequence(), message.exchangeTimestamp());
        if (null != derived)
        {
            // End of System Hours and End of Messages close the bars still open
            derived.partition(partition).onSystemEvent(context, message);
            derived.endEvent();
        }
        final int action;
        switch (message.eventCodeRaw())
        {
            case 'S':
                action = Dbn.STATUS_ACTION_PRE_OPEN;
                break;
            case 'Q':
                action = Dbn.STATUS_ACTION_TRADING;
                break;
            case 'M':
                action = Dbn.STATUS_ACTION_POST_CLOSE;
                break;
            case 'E':
                action = Dbn.STATUS_ACTION_CLOSE;
                break;
            default:
                return;     // start and end of messages say nothing about trading
        }
        status(message.instrumentId(), action, Dbn.STATUS_REASON_SCHEDULED, Dbn.TRI_NOT_AVAILABLE,
            Dbn.TRI_NOT_AVAILABLE, Dbn.TRI_NOT_AVAILABLE);
    }

    /** {@inheritDoc} */
    public void onMwcbStatus(final MessageContext context, final MwcbStatusDecoder message)
    {
        begin(context, message.exchangeSequence(), message.exchangeTimestamp());
        final byte level = message.breachedLevel();
        if (level < '1' || level > '3')
        {
            return;
        }
        status(message.instrumentId(), Dbn.STATUS_ACTION_HALT, Dbn.STATUS_REASON_MWCB_LEVEL_1 + (level - '1'),
            Dbn.TRI_NO, Dbn.TRI_NO, Dbn.TRI_NOT_AVAILABLE);
    }

    /** {@inheritDoc} */
    public void onImbalance(final MessageContext context, final ImbalanceDecoder message)
    {
        begin(context, message.exchangeSequence(), message.exchangeTimestamp());
        if (!options.imbalance() || !inRange)
        {
            return;
        }
        final ByteBuffer b = reserve(Dbn.IMBALANCE_SIZE);
        final int p = b.position();
        header(b, p, Dbn.IMBALANCE_SIZE, Dbn.RTYPE_IMBALANCE, message.instrumentId());
        b.putLong(p + 16, tsRecv);
        b.putLong(p + 24, toDbnPrice(message.currentReferencePrice().mantissa()));     // ref_price
        b.putLong(p + 32, Dbn.UNDEF_TIMESTAMP);                                        // auction_time
        b.putLong(p + 40, toDbnPrice(message.nearPrice().mantissa()));                 // cont_book_clr_price
        b.putLong(p + 48, toDbnPrice(message.farPrice().mantissa()));                  // auct_interest_clr_price
        b.putLong(p + 56, Dbn.UNDEF_PRICE);                                            // ssr_filling_price
        b.putLong(p + 64, Dbn.UNDEF_PRICE);                                            // ind_match_price
        b.putLong(p + 72, Dbn.UNDEF_PRICE);                                            // upper_collar
        b.putLong(p + 80, Dbn.UNDEF_PRICE);                                            // lower_collar
        b.putInt(p + 88, (int)saturateU32(message.pairedShares()));                    // paired_qty
        b.putInt(p + 92, (int)saturateU32(message.imbalanceShares()));                 // total_imbalance_qty
        b.putInt(p + 96, Dbn.UNDEF_ORDER_SIZE);                                        // market_imbalance_qty
        b.putInt(p + 100, Dbn.UNDEF_ORDER_SIZE);                                       // unpaired_qty
        b.put(p + 104, message.crossType());                                           // auction_type
        b.put(p + 105, imbalanceSide(message.imbalanceDirection()));                   // side
        b.put(p + 106, (byte)0);                                                       // auction_status
        b.put(p + 107, (byte)0);                                                       // freeze_status
        b.put(p + 108, (byte)0);                                                       // num_extensions
        b.put(p + 109, Dbn.SIDE_NONE);                                                 // unpaired_side
        b.put(p + 110, message.priceVariationIndicator());                             // significant_imbalance
        b.put(p + 111, (byte)0);
        b.position(p + Dbn.IMBALANCE_SIZE);
        stats.imbalance();
    }

    // ----- internals -----

    private void begin(final MessageContext context, final long exchangeSequence, final long exchangeTimestamp)
    {
        partition = context.partition();
        if (!context.isSnapshot() && !pendingClears.isEmpty())
        {
            flushPendingClears(partition);
        }
        tsEvent = toEpochNanos(exchangeTimestamp);
        tsRecv = context.sendingTime();
        // Snapshot records carry the snapshot's sending time, not when the event was received: as Databento marks
        // its own MBO snapshots, F_SNAPSHOT and F_BAD_TS_RECV.
        baseFlags = context.isSnapshot() ? Dbn.F_SNAPSHOT | Dbn.F_BAD_TS_RECV : 0;
        channel = partition;
        sequence = exchangeSequence;
        inRange = inRange(tsEvent);
        if (null != derived)
        {
            derived.beginEvent();
        }
    }

    // ----- for the derived schemas' records -----

    /** Whether a record of that ts_event is in the time range written. */
    boolean inRange(final long recordTsEvent)
    {
        return recordTsEvent >= options.startEpochNs() && recordTsEvent < options.endEpochNs();
    }

    /** @return ts_recv of the message being handled. */
    long tsRecv()
    {
        return tsRecv;
    }

    /** @return the flags every record of the message being handled has (a snapshot's). */
    int baseFlags()
    {
        return baseFlags;
    }

    /** Writes the records staged (position 0 to the buffer's position) after those written. */
    void append(final ByteBuffer staged)
    {
        final int length = staged.position();
        final ByteBuffer b = reserve(length);
        b.put(staged.array(), staged.arrayOffset(), length);
    }

    private void flushPendingClears(final int partition)
    {
        final LongHashSet clears = pendingClears.remove(partition);
        if (clears == null)
        {
            return;
        }
        final int savedFlags = baseFlags;
        baseFlags = Dbn.F_SNAPSHOT | Dbn.F_BAD_TS_RECV;
        for (final LongHashSet.LongIterator it = clears.iterator(); it.hasNext(); )
        {
            mbo(it.nextValue(), 0, Dbn.UNDEF_PRICE, 0, Dbn.F_LAST, Dbn.ACTION_CLEAR, Dbn.SIDE_NONE);
        }
        baseFlags = savedFlags;
    }

    private void add(
        final long instrumentId, final long orderId, final long price, final long size, final byte side, final int flags)
    {
        Order order = orders.get(orderId);
        if (order == null)
        {
            order = freeOrders.isEmpty() ? new Order() : freeOrders.poll();
            orders.put(orderId, order);
        }
        order.instrumentId = instrumentId;
        order.partition = partition;
        order.price = price;
        order.size = size;
        order.side = side;
        mbo(instrumentId, orderId, price, size, flags, Dbn.ACTION_ADD, side);
    }

    private void execute(
        final long instrumentId, final long orderId, final Order order, final long fillPrice, final long shares)
    {
        // DBN: a fill does not change the book, the cancel that follows does (Databento's MBO convention)
        final int unknown = order == null ? Dbn.F_MAYBE_BAD_BOOK : 0;
        mbo(instrumentId, orderId, fillPrice, shares, unknown, Dbn.ACTION_FILL, order == null ? Dbn.SIDE_NONE : order.side);
        reduce(instrumentId, orderId, order, shares, Dbn.F_LAST);
    }

    private void reduce(final long instrumentId, final long orderId, final Order order, final long shares, final int flags)
    {
        if (order == null)
        {
            mbo(instrumentId, orderId, Dbn.UNDEF_PRICE, shares, flags | Dbn.F_MAYBE_BAD_BOOK, Dbn.ACTION_CANCEL,
                Dbn.SIDE_NONE);
            return;
        }
        mbo(instrumentId, orderId, order.price, shares, flags, Dbn.ACTION_CANCEL, order.side);
        order.size -= shares;
        if (order.size <= 0)
        {
            orders.remove(orderId);
            freeOrders.add(order);
        }
    }

    private void dropOrders(final long instrumentId)
    {
        for (final Long2ObjectHashMap<Order>.ValueIterator it = orders.values().iterator(); it.hasNext(); )
        {
            final Order order = it.next();
            if (order.instrumentId == instrumentId)
            {
                it.remove();
                freeOrders.add(order);
            }
        }
    }

    private void mbo(
        final long instrumentId,
        final long orderId,
        final long price,
        final long size,
        final int flags,
        final byte action,
        final byte side)
    {
        if (null != derived)
        {
            // Not written: the record describes the event to the derived schema's MBP records
            derived.capture(action, side, price, size, flags | baseFlags);
            return;
        }
        if (!inRange)
        {
            return;
        }
        final ByteBuffer b = reserve(Dbn.MBO_SIZE);
        final int p = b.position();
        header(b, p, Dbn.MBO_SIZE, Dbn.RTYPE_MBO, instrumentId);
        b.putLong(p + 16, orderId);
        b.putLong(p + 24, price);
        b.putInt(p + 32, (int)size);
        b.put(p + 36, (byte)(flags | baseFlags));
        b.put(p + 37, (byte)channel);
        b.put(p + 38, action);
        b.put(p + 39, side);
        b.putLong(p + 40, tsRecv);
        b.putInt(p + 48, 0);                        // ts_in_delta: ITCH has one timestamp only
        b.putInt(p + 52, (int)sequence);            // sequence: u32, the low 32 bits as DBN truncates
        b.position(p + Dbn.MBO_SIZE);
        stats.mbo(action);
    }

    private void status(
        final long instrumentId,
        final int action,
        final int reason,
        final byte trading,
        final byte quoting,
        final byte shortSellRestricted)
    {
        if (!options.status() || !inRange)
        {
            return;
        }
        final ByteBuffer b = reserve(Dbn.STATUS_SIZE);
        final int p = b.position();
        header(b, p, Dbn.STATUS_SIZE, Dbn.RTYPE_STATUS, instrumentId);
        b.putLong(p + 16, tsRecv);
        b.putShort(p + 24, (short)action);
        b.putShort(p + 26, (short)reason);
        b.putShort(p + 28, (short)0);               // trading_event: none
        b.put(p + 30, trading);
        b.put(p + 31, quoting);
        b.put(p + 32, shortSellRestricted);
        b.putLong(p + 32, b.getLong(p + 32) & 0xFFL);   // reserved bytes 33..39 zero
        b.position(p + Dbn.STATUS_SIZE);
        stats.status();
    }

    private void header(final ByteBuffer b, final int p, final int size, final int rtype, final long instrumentId)
    {
        header(b, p, size, rtype, instrumentId, tsEvent);
    }

    /** The record header at {@code p}; its ts_event widens the metadata's range when that is open. */
    void header(
        final ByteBuffer b, final int p, final int size, final int rtype, final long instrumentId, final long recordTsEvent)
    {
        b.put(p, (byte)Dbn.lengthWords(size));
        b.put(p + 1, (byte)rtype);
        b.putShort(p + 2, (short)options.publisherId());
        b.putInt(p + 4, (int)instrumentId);
        b.putLong(p + 8, recordTsEvent);
        if (recordTsEvent < firstTsEvent)
        {
            firstTsEvent = recordTsEvent;
        }
        if (recordTsEvent > lastTsEvent)
        {
            lastTsEvent = recordTsEvent;
        }
    }

    /** Room for a record of {@code size} at the buffer's position (the buffer goes to the spool when full). */
    ByteBuffer reserve(final int size)
    {
        if (closed)
        {
            throw new IllegalStateException("the DBN encoder is closed");
        }
        if (buffer.remaining() < size)
        {
            flushBuffer();
        }
        return buffer;
    }

    private void flushBuffer()
    {
        buffer.flip();
        try
        {
            while (buffer.hasRemaining())
            {
                spool.write(buffer);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("writing the DBN spool " + spoolFile, ex);
        }
        buffer.clear();
    }

    private static void putAscii(final ByteBuffer b, final int offset, final String value)
    {
        final byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < bytes.length; i++)
        {
            b.put(offset + i, bytes[i]);
        }
    }

    private static byte side(final byte sbeSide)
    {
        return sbeSide == 'B' ? Dbn.SIDE_BID : sbeSide == 'S' ? Dbn.SIDE_ASK : Dbn.SIDE_NONE;
    }

    private static byte imbalanceSide(final byte direction)
    {
        // NOII direction: 'B' buy imbalance, 'S' sell imbalance, 'N' none, 'O' insufficient orders to calculate
        return direction == 'B' ? Dbn.SIDE_BID : direction == 'S' ? Dbn.SIDE_ASK : Dbn.SIDE_NONE;
    }

    static long saturateU32(final long value)
    {
        // u32::MAX means "undefined size" in DBN: a larger quantity saturates one below it
        return value < 0 || value >= U32_MAX ? U32_MAX - 1 : value;
    }

    private static byte[] definitionTemplate()
    {
        // InstrumentDefMsg with the dbn crate's defaults (impl_default.rs): undefined prices and timestamps, i32::MAX
        // and u32::MAX "null" integers, u8::MAX "null" bytes, zero strings
        final ByteBuffer b = ByteBuffer.allocate(Dbn.INSTRUMENT_DEF_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(16, Dbn.UNDEF_TIMESTAMP);
        for (int offset = 24; offset <= 128; offset += 8)
        {
            b.putLong(offset, Dbn.UNDEF_PRICE);
        }
        b.putLong(40, Dbn.UNDEF_TIMESTAMP);     // expiration
        b.putLong(48, Dbn.UNDEF_TIMESTAMP);     // activation
        b.putLong(112, 0);                      // raw_instrument_id
        for (int offset = 136; offset <= 184; offset += 4)
        {
            b.putInt(offset, offset == 140 ? 0 : Integer.MAX_VALUE);    // underlying_id is 0
        }
        b.putInt(152, -1);                      // market_segment_id: u32::MAX
        b.putInt(156, -1);                      // max_trade_vol
        b.putInt(172, -1);                      // min_trade_vol
        b.putShort(212, Short.MAX_VALUE);       // appl_id
        b.putShort(214, (short)-1);             // maturity_year
        b.putShort(216, (short)-1);             // decay_start_date
        b.putShort(218, (short)-1);             // channel_id
        b.put(488, (byte)' ');                  // match_algorithm: undefined
        b.put(489, (byte)-1);                   // main_fraction
        b.put(490, (byte)-1);                   // price_display_format
        b.put(491, (byte)-1);                   // sub_fraction
        b.put(492, (byte)-1);                   // underlying_product
        b.put(493, (byte)'A');                  // security_update_action
        b.put(494, (byte)-1);                   // maturity_month
        b.put(495, (byte)-1);                   // maturity_day
        b.put(496, (byte)-1);                   // maturity_week
        b.put(497, (byte)'N');                  // user_defined_instrument
        b.put(498, Byte.MAX_VALUE);             // contract_multiplier_unit
        b.put(499, Byte.MAX_VALUE);             // flow_schedule_type
        b.put(500, (byte)-1);                   // tick_rule
        b.put(502, Dbn.SIDE_NONE);              // leg_side
        return b.array();
    }

    /** A live order as the encoder tracks it. */
    private static final class Order
    {
        long instrumentId;
        int partition;
        long price;
        long size;
        byte side;
    }
}
