package io.mdfanout.feed.itch;

import org.agrona.MutableDirectBuffer;

/**
 * Flyweight over an ITCH 5.0 'R' message (Stock Directory), fields at the specification's offsets.
 */
public final class StockDirectoryMessage extends ItchMessage
{
    /** Message type byte. */
    public static final byte MESSAGE_TYPE = ItchMessageType.STOCK_DIRECTORY;
    /** Length in the specification. */
    public static final int LENGTH = 39;
    /** Offset of stock. */
    public static final int STOCK_OFFSET = 11;
    /** Length of stock. */
    public static final int STOCK_LENGTH = 8;
    /** Offset of marketCategory. */
    public static final int MARKET_CATEGORY_OFFSET = 19;
    /** Offset of financialStatusIndicator. */
    public static final int FINANCIAL_STATUS_INDICATOR_OFFSET = 20;
    /** Offset of roundLotSize. */
    public static final int ROUND_LOT_SIZE_OFFSET = 21;
    /** Offset of roundLotsOnly. */
    public static final int ROUND_LOTS_ONLY_OFFSET = 25;
    /** Offset of issueClassification. */
    public static final int ISSUE_CLASSIFICATION_OFFSET = 26;
    /** Offset of issueSubType. */
    public static final int ISSUE_SUB_TYPE_OFFSET = 27;
    /** Length of issueSubType. */
    public static final int ISSUE_SUB_TYPE_LENGTH = 2;
    /** Offset of authenticity. */
    public static final int AUTHENTICITY_OFFSET = 29;
    /** Offset of shortSaleThresholdIndicator. */
    public static final int SHORT_SALE_THRESHOLD_INDICATOR_OFFSET = 30;
    /** Offset of ipoFlag. */
    public static final int IPO_FLAG_OFFSET = 31;
    /** Offset of luldReferencePriceTier. */
    public static final int LULD_REFERENCE_PRICE_TIER_OFFSET = 32;
    /** Offset of etpFlag. */
    public static final int ETP_FLAG_OFFSET = 33;
    /** Offset of etpLeverageFactor. */
    public static final int ETP_LEVERAGE_FACTOR_OFFSET = 34;
    /** Offset of inverseIndicator. */
    public static final int INVERSE_INDICATOR_OFFSET = 38;

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

    /** Market category. */
    public byte marketCategory()
    {
        return u8(MARKET_CATEGORY_OFFSET);
    }

    /** Financial status indicator. */
    public byte financialStatusIndicator()
    {
        return u8(FINANCIAL_STATUS_INDICATOR_OFFSET);
    }

    /** Round lot size in shares. Unsigned 32-bit. */
    public long roundLotSize()
    {
        return u32(ROUND_LOT_SIZE_OFFSET);
    }

    /** Round lots only (Y, N). */
    public byte roundLotsOnly()
    {
        return u8(ROUND_LOTS_ONLY_OFFSET);
    }

    /** Issue classification. */
    public byte issueClassification()
    {
        return u8(ISSUE_CLASSIFICATION_OFFSET);
    }

    /**
     * Issue sub-type, 2 ASCII bytes.
     *
     * @param index 0 to 1.
     * @return the ASCII byte at that index.
     */
    public byte issueSubType(final int index)
    {
        return alpha(ISSUE_SUB_TYPE_OFFSET, ISSUE_SUB_TYPE_LENGTH, index);
    }

    /** Copy the 2 raw bytes of issueSubType into {@code dst} at {@code dstOffset}. */
    public void getIssueSubType(final MutableDirectBuffer dst, final int dstOffset)
    {
        copy(ISSUE_SUB_TYPE_OFFSET, ISSUE_SUB_TYPE_LENGTH, dst, dstOffset);
    }

    /** Authenticity (P live, T test). */
    public byte authenticity()
    {
        return u8(AUTHENTICITY_OFFSET);
    }

    /** Short sale threshold indicator. */
    public byte shortSaleThresholdIndicator()
    {
        return u8(SHORT_SALE_THRESHOLD_INDICATOR_OFFSET);
    }

    /** IPO flag. */
    public byte ipoFlag()
    {
        return u8(IPO_FLAG_OFFSET);
    }

    /** LULD reference price tier. */
    public byte luldReferencePriceTier()
    {
        return u8(LULD_REFERENCE_PRICE_TIER_OFFSET);
    }

    /** ETP flag. */
    public byte etpFlag()
    {
        return u8(ETP_FLAG_OFFSET);
    }

    /** ETP leverage factor. Unsigned 32-bit. */
    public long etpLeverageFactor()
    {
        return u32(ETP_LEVERAGE_FACTOR_OFFSET);
    }

    /** Inverse indicator. */
    public byte inverseIndicator()
    {
        return u8(INVERSE_INDICATOR_OFFSET);
    }
}
