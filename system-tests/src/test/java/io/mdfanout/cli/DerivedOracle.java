package io.mdfanout.cli;

import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.CrossTradeDecoder;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.OrderCancelDecoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import io.mdfanout.sbe.OrderExecutedDecoder;
import io.mdfanout.sbe.OrderExecutedWithPriceDecoder;
import io.mdfanout.sbe.OrderReplaceDecoder;
import io.mdfanout.sbe.PacketHeaderEncoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sbe.TradeDecoder;
import io.mdfanout.sdk.LocalCounters;
import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.PacketStreamDecoder;
import io.mdfanout.sdk.SubscriberCounters;
import io.mdfanout.sdk.book.OrderBook;
import io.mdfanout.sdk.book.OrderBooks;
import io.mdfanout.sdk.book.PriceLevels;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the derived streams must say, computed in the test from the expected MBO streams ({@link ExpectedStreams}, the
 * simulator's session) with the Java SDK's {@link OrderBooks} and the documented rules (docs/WIRE.md, "Derived
 * streams"), written here again and independently of the fanout's derivation: after every message, an instrument's
 * best bid and offer (and its first ten levels) as OrderBooks holds them, each time they differ from the last; every
 * print; and 1 s / 1 min bars as the prints bucketed by exchange time. Each derived message as a canonical line
 * ({@link DerivedLines}), per partition in stream order.
 */
final class DerivedOracle implements MarketDataListener
{
    private final int partitions;
    private final OrderBooks books = new OrderBooks();
    final List<List<String>> bbo = new ArrayList<>();
    final List<List<String>> depth = new ArrayList<>();
    final List<List<String>> trades = new ArrayList<>();
    /** "instrument/interval/start" -> the bar's values. */
    final Map<String, String> bars = new TreeMap<>();
    /** Per instrument, its top of book's values from each exchange sequence on. */
    final Map<Long, TreeMap<Long, String>> bboHistory = new HashMap<>();
    /** Per instrument, its last top of book's values. */
    final Map<Long, String> finalBbo = new HashMap<>();
    /** Exchange sequences of the End of System Hours and End of Messages events: bars may close there. */
    final Set<Long> dayEndSequences = new HashSet<>();
    private final Map<Long, String> lastDepth = new HashMap<>();
    private final Map<String, long[]> barValues = new TreeMap<>();
    private long sequence;
    private long timestamp;
    private int partition;

    private DerivedOracle(final int partitions)
    {
        this.partitions = partitions;
        for (int p = 0; p < partitions; p++)
        {
            bbo.add(new ArrayList<>());
            depth.add(new ArrayList<>());
            trades.add(new ArrayList<>());
        }
    }

    /** The oracle of a whole session: every expected message of every partition through the SDK's decoder. */
    static DerivedOracle compute(final ExpectedStreams expected)
    {
        final int partitions = expected.partitions();
        final DerivedOracle oracle = new DerivedOracle(partitions);
        final int[] slots = new int[partitions];
        for (int p = 0; p < partitions; p++)
        {
            slots[p] = p;
        }
        final PacketStreamDecoder decoder = new PacketStreamDecoder(slots, oracle,
            new SubscriberCounters(LocalCounters.create(SubscriberCounters.COUNTER_COUNT), "oracle"),
            (throwable) ->
            {
                throw new AssertionError("the oracle's listener failed", throwable);
            });
        final UnsafeBuffer packet = new UnsafeBuffer(new byte[4096]);
        final PacketHeaderEncoder header = new PacketHeaderEncoder();
        final int headerLength = MessageHeaderEncoder.ENCODED_LENGTH + PacketHeaderEncoder.BLOCK_LENGTH;
        for (int p = 0; p < partitions; p++)
        {
            final int partition = p;
            final long[] next = {1};
            expected.forEachMessage(p, (buffer, offset, length) ->
            {
                header.wrapAndApplyHeader(packet, 0, new MessageHeaderEncoder())
                    .streamSequence(next[0]++)
                    .sendingTime(0)
                    .partitionId(partition)
                    .messageCount(1)
                    .previousExchangeSequence(PacketHeaderEncoder.previousExchangeSequenceNullValue());
                packet.putBytes(headerLength, buffer, offset, length);
                decoder.onMessage(partition, 1, packet, 0, headerLength + length);
            });
        }
        for (final Map.Entry<String, long[]> bar : oracle.barValues.entrySet())
        {
            final long[] v = bar.getValue();
            oracle.bars.put(bar.getKey(), DerivedLines.barValues(v[0], v[1], v[2], v[3], v[4], v[5], 0));
        }
        return oracle;
    }

    /** @return the top of book values of the instrument as of the exchange sequence, or null before its first. */
    String bboAsOf(final long instrumentId, final long exchangeSequence)
    {
        final TreeMap<Long, String> history = bboHistory.get(instrumentId);
        final Map.Entry<Long, String> entry = null == history ? null : history.floorEntry(exchangeSequence);
        return null == entry ? null : entry.getValue();
    }

    public void onRawMessage(final MessageContext context, final DirectBuffer buffer, final int offset, final int length)
    {
        sequence = WireFormat.exchangeSequence(buffer, offset);
        timestamp = WireFormat.exchangeTimestamp(buffer, offset);
        partition = context.partition();
    }

    public void onSystemEvent(final MessageContext context, final SystemEventDecoder message)
    {
        final SystemEventCode code = message.eventCode();
        if (SystemEventCode.END_OF_SYSTEM_HOURS == code || SystemEventCode.END_OF_MESSAGES == code)
        {
            dayEndSequences.add(sequence);
        }
    }

    public void onAddOrder(final MessageContext context, final AddOrderDecoder message)
    {
        books.onAddOrder(context, message);
        changed(message.instrumentId());
    }

    public void onAddOrderAttributed(final MessageContext context, final AddOrderAttributedDecoder message)
    {
        books.onAddOrderAttributed(context, message);
        changed(message.instrumentId());
    }

    public void onOrderExecuted(final MessageContext context, final OrderExecutedDecoder message)
    {
        final long price = books.orderPrice(message.orderId());
        final byte side = books.orderSide(message.orderId());
        if (0 != side)
        {
            print(message.instrumentId(), price, message.executedShares(), Side.BUY.value() == side ? 'S' : 'B',
                message.matchNumber(), message.orderId(), 'E');
        }
        books.onOrderExecuted(context, message);
        changed(message.instrumentId());
    }

    public void onOrderExecutedWithPrice(final MessageContext context, final OrderExecutedWithPriceDecoder message)
    {
        final byte side = books.orderSide(message.orderId());
        if ('Y' == message.printable() && 0 != side)
        {
            print(message.instrumentId(), message.executionPrice().mantissa(), message.executedShares(),
                Side.BUY.value() == side ? 'S' : 'B', message.matchNumber(), message.orderId(), 'C');
        }
        books.onOrderExecutedWithPrice(context, message);
        changed(message.instrumentId());
    }

    public void onOrderCancel(final MessageContext context, final OrderCancelDecoder message)
    {
        books.onOrderCancel(context, message);
        changed(message.instrumentId());
    }

    public void onOrderDelete(final MessageContext context, final OrderDeleteDecoder message)
    {
        books.onOrderDelete(context, message);
        changed(message.instrumentId());
    }

    public void onOrderReplace(final MessageContext context, final OrderReplaceDecoder message)
    {
        books.onOrderReplace(context, message);
        changed(message.instrumentId());
    }

    public void onTrade(final MessageContext context, final TradeDecoder message)
    {
        print(message.instrumentId(), message.price().mantissa(), message.shares(), 'N', message.matchNumber(),
            message.orderId(), 'P');
    }

    public void onCrossTrade(final MessageContext context, final CrossTradeDecoder message)
    {
        if (message.shares() > 0)
        {
            print(message.instrumentId(), message.crossPrice().mantissa(), message.shares(), 'N',
                message.matchNumber(), 0, 'Q');
        }
    }

    private void print(
        final long instrumentId, final long price, final long shares, final char aggressor, final long matchNumber,
        final long orderId, final char source)
    {
        trades.get(partition).add(DerivedLines.prefix(sequence, timestamp) +
            DerivedLines.trade(instrumentId, price, shares, aggressor, matchNumber, orderId, source));
        for (final int seconds : new int[] {1, 60})
        {
            final long length = seconds * 1_000_000_000L;
            final String key = DerivedLines.barKey(instrumentId, seconds, timestamp - timestamp % length);
            final long[] v = barValues.get(key);
            if (null == v)
            {
                barValues.put(key, new long[] {price, price, price, price, shares, 1});
            }
            else
            {
                v[1] = Math.max(v[1], price);
                v[2] = Math.min(v[2], price);
                v[3] = price;
                v[4] += shares;
                v[5]++;
            }
        }
    }

    private void changed(final long instrumentId)
    {
        final OrderBook book = books.book(instrumentId);
        if (null == book)
        {
            return;
        }
        final PriceLevels bids = book.bids();
        final PriceLevels asks = book.asks();
        final String top = DerivedLines.bbo(instrumentId,
            bids.size() > 0 ? bids.price(0) : OrderBook.NULL_PRICE, bids.size() > 0 ? bids.shares(0) : 0,
            bids.size() > 0 ? bids.orderCount(0) : 0,
            asks.size() > 0 ? asks.price(0) : OrderBook.NULL_PRICE, asks.size() > 0 ? asks.shares(0) : 0,
            asks.size() > 0 ? asks.orderCount(0) : 0);
        if (!top.equals(finalBbo.get(instrumentId)))
        {
            finalBbo.put(instrumentId, top);
            bboHistory.computeIfAbsent(instrumentId, (id) -> new TreeMap<>()).put(sequence, top);
            bbo.get(partition).add(DerivedLines.prefix(sequence, timestamp) + top);
        }
        final StringBuilder levels = new StringBuilder().append("inst=").append(instrumentId);
        DerivedLines.levels(levels, 'b', bids);
        DerivedLines.levels(levels, 'a', asks);
        final String tenLevels = levels.toString();
        if (!tenLevels.equals(lastDepth.get(instrumentId)))
        {
            lastDepth.put(instrumentId, tenLevels);
            depth.get(partition).add(DerivedLines.prefix(sequence, timestamp) + tenLevels);
        }
    }

    int partitions()
    {
        return partitions;
    }
}
