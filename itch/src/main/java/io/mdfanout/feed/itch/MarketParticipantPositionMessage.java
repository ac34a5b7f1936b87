package io.mdfanout.feed.itch;

import org.agrona.MutableDirectBuffer;

/**
 * Flyweight over an ITCH 5.0 'L' message (Market Participant Position), fields at the specification's offsets.
 */
public final class MarketParticipantPositionMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.MARKET_PARTICIPANT_POSITION;
    /** Length in the specification. */
    public static final int LENGTH = 26;
    /** Offset of mpid. */
    public static final int MPID_OFFSET = 11;
    /** Length of mpid. */
    public static final int MPID_LENGTH = 4;
    /** Offset of stock. */
    public static final int STOCK_OFFSET = 15;
    /** Length of stock. */
    public static final int STOCK_LENGTH = 8;
    /** Offset of primaryMarketMaker. */
    public static final int PRIMARY_MARKET_MAKER_OFFSET = 23;
    /** Offset of marketMakerMode. */
    public static final int MARKET_MAKER_MODE_OFFSET = 24;
    /** Offset of marketParticipantState. */
    public static final int MARKET_PARTICIPANT_STATE_OFFSET = 25;

    /**
     * Market participant id, 4 ASCII bytes.
     *
     * @param index 0 to 3.
     * @return the ASCII byte at that index.
     */
    public byte mpid(final int index)
    {
        return alpha(MPID_OFFSET, MPID_LENGTH, index);
    }

    /** Copy the 4 raw bytes of mpid into {@code dst} at {@code dstOffset}. */
    public void getMpid(final MutableDirectBuffer dst, final int dstOffset)
    {
        copy(MPID_OFFSET, MPID_LENGTH, dst, dstOffset);
    }

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

    /** Primary market maker (Y, N). */
    public byte primaryMarketMaker()
    {
        return u8(PRIMARY_MARKET_MAKER_OFFSET);
    }

    /** Market maker mode. */
    public byte marketMakerMode()
    {
        return u8(MARKET_MAKER_MODE_OFFSET);
    }

    /** Market participant state. */
    public byte marketParticipantState()
    {
        return u8(MARKET_PARTICIPANT_STATE_OFFSET);
    }
}
