package io.mdfanout.tools.dbn;

import io.mdfanout.sbe.BarDecoder;
import io.mdfanout.sbe.BestBidOfferDecoder;
import io.mdfanout.sbe.BookDepthDecoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.TradePrintDecoder;
import io.mdfanout.sdk.book.OrderBook;
import io.mdfanout.sdk.book.OrderBooks;
import io.mdfanout.sdk.book.PriceLevels;
import io.mdfanout.sdk.derive.Derivation;
import io.mdfanout.sdk.derive.DerivedHandler;
import io.mdfanout.wire.FeedStream;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The records of a derived schema (MBP-1, MBP-10, TBBO, trades, OHLCV) for a {@link DbnEncoder}. What a BBO, ten
 * levels, a print or a bar is, and when one is sent, is the SDK's {@link Derivation}'s to say (docs/WIRE.md, "Derived
 * streams"), not the export's: the encoder feeds one derivation per partition (bars follow a partition's clock) the
 * MBO callbacks it receives, and this handler turns each derived message into the schema's DBN record.
 * <p>
 * A derived message lacks what an MBP record also carries about the event that caused it (action, side, price, size),
 * and the capture time. The handler runs inside the MBO callback that caused the message, so those come from that
 * event: the encoder maps it to MBO records as for an MBO export, and the last of them (the one flagged F_LAST, e.g.
 * the cancel that follows a fill) is {@link #capture captured} instead of written; ts_recv is the event's. The depth
 * is the level the event's price has on its side of the derivation's own book. A trade's MBP record carries the book
 * as the derivation last sent it, which a print always precedes the change of.
 * <p>
 * An event's book and trade records are staged and written when the event ends, the last with F_LAST. Bars have no
 * flags and are written as they come. Nothing allocates per message: the decoders and buffers are made once.
 */
final class DerivedRecords implements DerivedHandler
{
    /** Records one event can give: a print and a book change (two more for room). */
    private static final int STAGED_RECORDS = 4;
    private static final int MAX_DEPTH = 0xFF;

    private final DbnEncoder encoder;
    private final DbnSchema schema;
    private final FeedStream[] streams;
    private Derivation[] derivations = new Derivation[4];
    /** The derivation being fed: the partition of the message being handled. */
    private Derivation current;

    private boolean inEvent;
    private boolean captured;
    private byte eventAction;
    private byte eventSide;
    private long eventPrice;
    private long eventSize;
    private int eventFlags;

    private final ByteBuffer staged =
        ByteBuffer.allocate(STAGED_RECORDS * Dbn.MBP10_SIZE).order(ByteOrder.LITTLE_ENDIAN);
    private int lastStagedFlags = -1;

    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final BestBidOfferDecoder bbo = new BestBidOfferDecoder();
    private final BookDepthDecoder depth = new BookDepthDecoder();
    private final TradePrintDecoder trade = new TradePrintDecoder();
    private final BarDecoder bar = new BarDecoder();
    private final UnsafeBuffer lastBuffer = new UnsafeBuffer(new byte[WireFormat.MAX_STREAM_MESSAGE_LENGTH]);
    private final MessageHeaderDecoder lastHeader = new MessageHeaderDecoder();
    private final BestBidOfferDecoder lastBbo = new BestBidOfferDecoder();
    private final BookDepthDecoder lastDepth = new BookDepthDecoder();

    DerivedRecords(final DbnEncoder encoder, final DbnSchema schema)
    {
        if (!schema.isDerived())
        {
            throw new IllegalArgumentException("not a derived schema: " + schema);
        }
        this.encoder = encoder;
        this.schema = schema;
        this.streams = schema.streams();
    }

    /**
     * The derivation of a partition, made when the partition is first seen; the records that follow are its.
     *
     * @param partition the partition of the message about to be fed.
     * @return its derivation.
     */
    Derivation partition(final int partition)
    {
        if (partition >= derivations.length)
        {
            derivations = Arrays.copyOf(derivations, Math.max(partition + 1, derivations.length << 1));
        }
        Derivation derivation = derivations[partition];
        if (null == derivation)
        {
            derivation = new Derivation(new OrderBooks(), this, streams);
            derivations[partition] = derivation;
        }
        current = derivation;
        return derivation;
    }

    /** An MBO message begins: its records are staged until {@link #endEvent()}; nothing is captured yet. */
    void beginEvent()
    {
        endEvent();
        inEvent = true;
        captured = false;
    }

    /**
     * A callback outside any message (a snapshot's end, a new day): its records are written at once, each the last of
     * its own, with action R (the levels replace the book).
     */
    void outsideEvent()
    {
        endEvent();
        captured = false;
    }

    /** One MBO record the event maps to; the last captured describes the event in MBP records. */
    void capture(final byte action, final byte side, final long price, final long size, final int flags)
    {
        captured = true;
        eventAction = action;
        eventSide = side;
        eventPrice = price;
        eventSize = size;
        eventFlags = flags & ~Dbn.F_LAST;
    }

    /** The MBO message was handled: its staged records go out, the last flagged F_LAST. */
    void endEvent()
    {
        if (staged.position() > 0)
        {
            staged.put(lastStagedFlags, (byte)(staged.get(lastStagedFlags) | Dbn.F_LAST));
            encoder.append(staged);
        }
        staged.clear();
        lastStagedFlags = -1;
        inEvent = false;
    }

    /** {@inheritDoc} */
    public void onDerived(final FeedStream stream, final DirectBuffer buffer, final int offset, final int length)
    {
        header.wrap(buffer, offset);
        final int block = offset + WireFormat.HEADER_LENGTH;
        switch (stream)
        {
            case BBO:
                if (DbnSchema.MBP_1 == schema)
                {
                    bbo.wrap(buffer, block, header.blockLength(), header.version());
                    bookRecord(bbo.instrumentId(), bbo.exchangeSequence(), bbo.exchangeTimestamp(), bbo, null);
                }
                break;
            case DEPTH:
                if (DbnSchema.MBP_10 == schema)
                {
                    depth.wrap(buffer, block, header.blockLength(), header.version());
                    bookRecord(depth.instrumentId(), depth.exchangeSequence(), depth.exchangeTimestamp(), null, depth);
                }
                break;
            case TRADES:
                trade.wrap(buffer, block, header.blockLength(), header.version());
                tradeRecord();
                break;
            case BARS:
                bar.wrap(buffer, block, header.blockLength(), header.version());
                if (bar.intervalSeconds() == schema.barSeconds())
                {
                    barRecord();
                }
                break;
            default:
                break;
        }
    }

    // ----- records -----

    /** MBP-1 (from a BBO) or MBP-10 (from ten levels): the event that changed the book, and the book after it. */
    private void bookRecord(
        final long instrumentId,
        final long sequence,
        final long exchangeTimestamp,
        final BestBidOfferDecoder top,
        final BookDepthDecoder levels)
    {
        final long tsEvent = encoder.toEpochNanos(exchangeTimestamp);
        if (!encoder.inRange(tsEvent))
        {
            return;
        }
        final byte action = captured ? eventAction : Dbn.ACTION_CLEAR;
        final byte side = captured ? eventSide : Dbn.SIDE_NONE;
        final long price = captured ? eventPrice : Dbn.UNDEF_PRICE;
        final int size = schema.recordSize();
        final ByteBuffer b = target(size);
        final int p = b.position();
        encoder.header(b, p, size, schema.rtype(), instrumentId, tsEvent);
        mbpFields(b, p, price, captured ? eventSize : 0, action, side,
            captured ? eventFlags : encoder.baseFlags(), depthOf(instrumentId, side, price), sequence);
        if (null != top)
        {
            topLevel(b, p + Dbn.MBP_LEVELS_OFFSET, top);
        }
        else
        {
            tenLevels(b, p + Dbn.MBP_LEVELS_OFFSET, levels);
        }
        written(b, p, size, action);
    }

    /** A print: TradeMsg, or an MBP record of action T with the book it traded against. */
    private void tradeRecord()
    {
        final long tsEvent = encoder.toEpochNanos(trade.exchangeTimestamp());
        if (!encoder.inRange(tsEvent))
        {
            return;
        }
        final long instrumentId = trade.instrumentId();
        final long price = DbnEncoder.toDbnPrice(trade.price().mantissa());
        final byte aggressor = trade.aggressorSideRaw();
        final byte side = 'B' == aggressor ? Dbn.SIDE_BID : 'S' == aggressor ? Dbn.SIDE_ASK : Dbn.SIDE_NONE;
        // The level traded at is on the resting side, opposite the aggressor's
        final byte restingSide = Dbn.SIDE_BID == side ? Dbn.SIDE_ASK : Dbn.SIDE_ASK == side ? Dbn.SIDE_BID :
            Dbn.SIDE_NONE;
        final int size = schema.recordSize();
        final ByteBuffer b = target(size);
        final int p = b.position();
        encoder.header(b, p, size, schema.rtype(), instrumentId, tsEvent);
        mbpFields(b, p, price, DbnEncoder.saturateU32(trade.shares()), Dbn.ACTION_TRADE, side, encoder.baseFlags(),
            depthOf(instrumentId, restingSide, price), trade.exchangeSequence());
        if (Dbn.MBP1_SIZE == size)
        {
            final int length = current.lastMessages(FeedStream.BBO).copy(instrumentId, 0, lastBuffer, 0);
            if (0 == length)
            {
                emptyLevels(b, p + Dbn.MBP_LEVELS_OFFSET, 1);
            }
            else
            {
                lastHeader.wrap(lastBuffer, 0);
                lastBbo.wrap(lastBuffer, WireFormat.HEADER_LENGTH, lastHeader.blockLength(), lastHeader.version());
                topLevel(b, p + Dbn.MBP_LEVELS_OFFSET, lastBbo);
            }
        }
        else if (Dbn.MBP10_SIZE == size)
        {
            final int length = current.lastMessages(FeedStream.DEPTH).copy(instrumentId, 0, lastBuffer, 0);
            if (0 == length)
            {
                emptyLevels(b, p + Dbn.MBP_LEVELS_OFFSET, Derivation.DEPTH_LEVELS);
            }
            else
            {
                lastHeader.wrap(lastBuffer, 0);
                lastDepth.wrap(lastBuffer, WireFormat.HEADER_LENGTH, lastHeader.blockLength(), lastHeader.version());
                tenLevels(b, p + Dbn.MBP_LEVELS_OFFSET, lastDepth);
            }
        }
        written(b, p, size, Dbn.ACTION_TRADE);
    }

    /** OhlcvMsg: ts_event is the interval's start, as Databento's bars. */
    private void barRecord()
    {
        final long tsEvent = encoder.toEpochNanos(bar.barStart());
        if (!encoder.inRange(tsEvent))
        {
            return;
        }
        final ByteBuffer b = encoder.reserve(Dbn.OHLCV_SIZE);
        final int p = b.position();
        encoder.header(b, p, Dbn.OHLCV_SIZE, schema.rtype(), bar.instrumentId(), tsEvent);
        b.putLong(p + 16, DbnEncoder.toDbnPrice(bar.openPrice().mantissa()));
        b.putLong(p + 24, DbnEncoder.toDbnPrice(bar.highPrice().mantissa()));
        b.putLong(p + 32, DbnEncoder.toDbnPrice(bar.lowPrice().mantissa()));
        b.putLong(p + 40, DbnEncoder.toDbnPrice(bar.closePrice().mantissa()));
        b.putLong(p + 48, bar.volume());
        b.position(p + Dbn.OHLCV_SIZE);
        encoder.stats().derived((byte)0);
    }

    /** Where a record goes: staged inside an event (its last gets F_LAST at the end), else straight to the file. */
    private ByteBuffer target(final int size)
    {
        if (!inEvent)
        {
            return encoder.reserve(size);
        }
        if (staged.remaining() < size)
        {
            // More records than an event gives: the staged ones go out without F_LAST (the event goes on)
            encoder.append(staged);
            staged.clear();
        }
        return staged;
    }

    private void written(final ByteBuffer b, final int p, final int size, final byte action)
    {
        if (inEvent)
        {
            lastStagedFlags = p + 30;
        }
        else
        {
            b.put(p + 30, (byte)(b.get(p + 30) | Dbn.F_LAST));
        }
        b.position(p + size);
        encoder.stats().derived(action);
    }

    /** The fields every MBP record (and TradeMsg) has after the header. */
    private void mbpFields(
        final ByteBuffer b,
        final int p,
        final long price,
        final long size,
        final byte action,
        final byte side,
        final int flags,
        final int depth,
        final long sequence)
    {
        b.putLong(p + 16, price);
        b.putInt(p + 24, (int)size);
        b.put(p + 28, action);
        b.put(p + 29, side);
        b.put(p + 30, (byte)flags);
        b.put(p + 31, (byte)depth);
        b.putLong(p + 32, encoder.tsRecv());
        b.putInt(p + 40, 0);                        // ts_in_delta: ITCH has one timestamp only
        b.putInt(p + 44, (int)sequence);            // the low 32 bits, as MBO records
    }

    private static void topLevel(final ByteBuffer b, final int q, final BestBidOfferDecoder top)
    {
        level(b, q, DbnEncoder.toDbnPrice(top.bidPrice().mantissa()), DbnEncoder.toDbnPrice(top.askPrice().mantissa()),
            top.bidShares(), top.askShares(), top.bidOrders(), top.askOrders());
    }

    private static void tenLevels(final ByteBuffer b, final int q, final BookDepthDecoder levels)
    {
        for (int i = 0; i < Derivation.DEPTH_LEVELS; i++)
        {
            level(b, q + i * Dbn.BID_ASK_PAIR_SIZE, DbnEncoder.toDbnPrice(levels.bidPrices(i)),
                DbnEncoder.toDbnPrice(levels.askPrices(i)), levels.bidShares(i), levels.askShares(i),
                levels.bidOrders(i), levels.askOrders(i));
        }
    }

    private static void emptyLevels(final ByteBuffer b, final int q, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            level(b, q + i * Dbn.BID_ASK_PAIR_SIZE, Dbn.UNDEF_PRICE, Dbn.UNDEF_PRICE, 0, 0, 0, 0);
        }
    }

    /** One BidAskPair; an empty side has UNDEF_PRICE and no size or orders, as Databento's. */
    private static void level(
        final ByteBuffer b,
        final int q,
        final long bidPrice,
        final long askPrice,
        final long bidSize,
        final long askSize,
        final long bidCount,
        final long askCount)
    {
        b.putLong(q, bidPrice);
        b.putLong(q + 8, askPrice);
        b.putInt(q + 16, (int)bidSize);
        b.putInt(q + 20, (int)askSize);
        b.putInt(q + 24, (int)bidCount);
        b.putInt(q + 28, (int)askCount);
    }

    /**
     * The level a price has on a side of the derivation's book: how many levels of that side are better. For an
     * event that removed its level, the place the level had; for one without a side or price, 0.
     */
    private int depthOf(final long instrumentId, final byte side, final long price)
    {
        if (Dbn.UNDEF_PRICE == price || (Dbn.SIDE_BID != side && Dbn.SIDE_ASK != side))
        {
            return 0;
        }
        final OrderBook book = current.books().book(instrumentId);
        if (null == book)
        {
            return 0;
        }
        final boolean bid = Dbn.SIDE_BID == side;
        final PriceLevels levels = bid ? book.bids() : book.asks();
        final long mantissa = price / DbnEncoder.PRICE4_TO_DBN;
        int depth = 0;
        while (depth < levels.size() && depth < MAX_DEPTH &&
            (bid ? levels.price(depth) > mantissa : levels.price(depth) < mantissa))
        {
            depth++;
        }
        return depth;
    }
}
