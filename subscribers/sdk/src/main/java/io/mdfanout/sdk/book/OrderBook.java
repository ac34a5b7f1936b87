package io.mdfanout.sdk.book;

/**
 * The price-level book of one instrument, maintained by {@link OrderBooks}. Read it on the
 * thread that polls the subscriber.
 */
public final class OrderBook
{
    /** Returned by the best-price accessors when a side is empty. */
    public static final long NULL_PRICE = Long.MIN_VALUE;

    private final long instrumentId;
    private final PriceLevels bids;
    private final PriceLevels asks;
    /** Partition the book's messages arrive on, so that a partition's snapshot clears exactly its books. */
    int partition;
    /** First order slot of this book's intrusive order list in {@link OrderBooks}, or -1. */
    int headSlot = -1;

    /**
     * Create an empty book.
     *
     * @param instrumentId the instrument.
     * @param initialLevels levels per side held before the arrays grow.
     */
    public OrderBook(final long instrumentId, final int initialLevels)
    {
        this.instrumentId = instrumentId;
        this.bids = new PriceLevels(true, initialLevels);
        this.asks = new PriceLevels(false, initialLevels);
    }

    /**
     * The instrument of this book.
     *
     * @return the instrument id.
     */
    public long instrumentId()
    {
        return instrumentId;
    }

    /**
     * Bid levels, best (highest) first.
     *
     * @return the bid side.
     */
    public PriceLevels bids()
    {
        return bids;
    }

    /**
     * Ask levels, best (lowest) first.
     *
     * @return the ask side.
     */
    public PriceLevels asks()
    {
        return asks;
    }

    /**
     * One side of the book.
     *
     * @param bid true for bids.
     * @return that side.
     */
    public PriceLevels side(final boolean bid)
    {
        return bid ? bids : asks;
    }

    /**
     * Best bid price mantissa.
     *
     * @return the price, or {@link #NULL_PRICE} when there are no bids.
     */
    public long bestBidPrice()
    {
        return bids.size() > 0 ? bids.price(0) : NULL_PRICE;
    }

    /**
     * Shares at the best bid.
     *
     * @return the shares, 0 when there are no bids.
     */
    public long bestBidShares()
    {
        return bids.size() > 0 ? bids.shares(0) : 0;
    }

    /**
     * Best ask price mantissa.
     *
     * @return the price, or {@link #NULL_PRICE} when there are no asks.
     */
    public long bestAskPrice()
    {
        return asks.size() > 0 ? asks.price(0) : NULL_PRICE;
    }

    /**
     * Shares at the best ask.
     *
     * @return the shares, 0 when there are no asks.
     */
    public long bestAskShares()
    {
        return asks.size() > 0 ? asks.shares(0) : 0;
    }

    /**
     * The partition this instrument's messages arrive on.
     *
     * @return the partition.
     */
    public int partition()
    {
        return partition;
    }

    /**
     * Whether no order rests on either side.
     *
     * @return true when empty.
     */
    public boolean isEmpty()
    {
        return 0 == bids.size() && 0 == asks.size();
    }
}
