package io.mdfanout.feed.itch;

import org.agrona.MutableDirectBuffer;

/**
 * Flyweight over an ITCH 5.0 'J' message (LULD Auction Collar), fields at the specification's offsets.
 */
public final class LuldAuctionCollarMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.LULD_AUCTION_COLLAR;
    /** Length in the specification. */
    public static final int LENGTH = 35;
    /** Offset of stock. */
    public static final int STOCK_OFFSET = 11;
    /** Length of stock. */
    public static final int STOCK_LENGTH = 8;
    /** Offset of auctionCollarReferencePrice. */
    public static final int AUCTION_COLLAR_REFERENCE_PRICE_OFFSET = 19;
    /** Offset of upperAuctionCollarPrice. */
    public static final int UPPER_AUCTION_COLLAR_PRICE_OFFSET = 23;
    /** Offset of lowerAuctionCollarPrice. */
    public static final int LOWER_AUCTION_COLLAR_PRICE_OFFSET = 27;
    /** Offset of auctionCollarExtension. */
    public static final int AUCTION_COLLAR_EXTENSION_OFFSET = 31;

    /**
     * Stock symbol, 8 ASCII bytes, space-padded.
     *
     * @param index 0 to 7.
     * @return the ASCII byte at that index.
     */
    public byte stock(final int index)
    {
        return alpha(STOCK_OFFSET, STOCK_LENGTH, index);
    }

    /** Copy the 8 raw bytes of stock into {@code dst} at {@code dstOffset}. */
    public void getStock(final MutableDirectBuffer dst, final int dstOffset)
    {
        copy(STOCK_OFFSET, STOCK_LENGTH, dst, dstOffset);
    }

    /** Auction collar reference price, Price(4). Unsigned 32-bit. */
    public long auctionCollarReferencePrice()
    {
        return u32(AUCTION_COLLAR_REFERENCE_PRICE_OFFSET);
    }

    /** Upper auction collar price, Price(4). Unsigned 32-bit. */
    public long upperAuctionCollarPrice()
    {
        return u32(UPPER_AUCTION_COLLAR_PRICE_OFFSET);
    }

    /** Lower auction collar price, Price(4). Unsigned 32-bit. */
    public long lowerAuctionCollarPrice()
    {
        return u32(LOWER_AUCTION_COLLAR_PRICE_OFFSET);
    }

    /** Number of auction collar extensions. Unsigned 32-bit. */
    public long auctionCollarExtension()
    {
        return u32(AUCTION_COLLAR_EXTENSION_OFFSET);
    }
}
