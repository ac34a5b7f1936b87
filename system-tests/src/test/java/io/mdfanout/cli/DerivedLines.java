package io.mdfanout.cli;

import io.mdfanout.sbe.BarDecoder;
import io.mdfanout.sbe.BestBidOfferDecoder;
import io.mdfanout.sbe.BookDepthDecoder;
import io.mdfanout.sbe.TradePrintDecoder;
import io.mdfanout.sdk.book.OrderBook;
import io.mdfanout.sdk.book.PriceLevels;

/**
 * Derived messages as canonical text lines, the same whether a test read them off a derived stream (from the SBE
 * decoders) or computed them ({@link DerivedOracle}): "seq=S ts=T " then the values.
 */
final class DerivedLines
{
    static final int LEVELS = 10;

    private DerivedLines()
    {
    }

    static String prefix(final long sequence, final long timestamp)
    {
        return "seq=" + sequence + " ts=" + timestamp + " ";
    }

    static String price(final long mantissa)
    {
        return OrderBook.NULL_PRICE == mantissa ? "-" : Long.toString(mantissa);
    }

    static String bbo(
        final long instrumentId, final long bidPrice, final long bidShares, final long bidOrders,
        final long askPrice, final long askShares, final long askOrders)
    {
        return "inst=" + instrumentId + " bid=" + price(bidPrice) + "/" + bidShares + "/" + bidOrders +
            " ask=" + price(askPrice) + "/" + askShares + "/" + askOrders;
    }

    static String bbo(final BestBidOfferDecoder m)
    {
        return bbo(m.instrumentId(), m.bidPrice().mantissa(), m.bidShares(), m.bidOrders(),
            m.askPrice().mantissa(), m.askShares(), m.askOrders());
    }

    /** One side's first ten levels, as OrderBooks holds them. */
    static void levels(final StringBuilder out, final char side, final PriceLevels levels)
    {
        out.append(' ').append(side).append('=');
        for (int level = 0; level < Math.min(LEVELS, levels.size()); level++)
        {
            out.append(level > 0 ? "," : "").append(price(levels.price(level))).append('/')
                .append(levels.shares(level)).append('/').append(levels.orderCount(level));
        }
    }

    static String depth(final BookDepthDecoder m)
    {
        final StringBuilder out = new StringBuilder().append("inst=").append(m.instrumentId());
        out.append(" b=");
        for (int level = 0; level < m.bidLevels(); level++)
        {
            out.append(level > 0 ? "," : "").append(price(m.bidPrices(level))).append('/')
                .append(m.bidShares(level)).append('/').append(m.bidOrders(level));
        }
        out.append(" a=");
        for (int level = 0; level < m.askLevels(); level++)
        {
            out.append(level > 0 ? "," : "").append(price(m.askPrices(level))).append('/')
                .append(m.askShares(level)).append('/').append(m.askOrders(level));
        }
        for (int level = m.bidLevels(); level < LEVELS; level++)
        {
            if (OrderBook.NULL_PRICE != m.bidPrices(level) || 0 != m.bidShares(level) || 0 != m.bidOrders(level))
            {
                out.append(" (bid level ").append(level).append(" past bidLevels is not empty)");
            }
        }
        for (int level = m.askLevels(); level < LEVELS; level++)
        {
            if (OrderBook.NULL_PRICE != m.askPrices(level) || 0 != m.askShares(level) || 0 != m.askOrders(level))
            {
                out.append(" (ask level ").append(level).append(" past askLevels is not empty)");
            }
        }
        return out.toString();
    }

    static String trade(
        final long instrumentId, final long price, final long shares, final char aggressor, final long matchNumber,
        final long orderId, final char source)
    {
        return "inst=" + instrumentId + " " + price(price) + "x" + shares + " aggressor=" + aggressor +
            " match=" + matchNumber + " order=" + orderId + " source=" + source;
    }

    static String trade(final TradePrintDecoder m)
    {
        return trade(m.instrumentId(), m.price().mantissa(), m.shares(), (char)m.aggressorSideRaw(), m.matchNumber(),
            m.orderId(), (char)m.source());
    }

    static String barKey(final long instrumentId, final long intervalSeconds, final long barStart)
    {
        return instrumentId + "/" + intervalSeconds + "/" + barStart;
    }

    static String barKey(final BarDecoder m)
    {
        return barKey(m.instrumentId(), m.intervalSeconds(), m.barStart());
    }

    static String barValues(
        final long open, final long high, final long low, final long close, final long volume, final long count,
        final int partial)
    {
        return "o=" + open + " h=" + high + " l=" + low + " c=" + close + " v=" + volume + " n=" + count +
            " partial=" + partial;
    }

    static String barValues(final BarDecoder m)
    {
        return barValues(m.openPrice().mantissa(), m.highPrice().mantissa(), m.lowPrice().mantissa(),
            m.closePrice().mantissa(), m.volume(), m.printCount(), m.partial());
    }
}
