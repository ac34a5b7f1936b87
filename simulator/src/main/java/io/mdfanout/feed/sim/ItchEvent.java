package io.mdfanout.feed.sim;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One NASDAQ TotalView-ITCH 5.0 message as a mutable struct, reused for every message so that
 * generating and encoding allocate nothing.
 * <p>
 * Only the fields of the current {@link #type} are meaningful; the others keep whatever an
 * earlier message left in them (call {@link #reset()} when that matters, e.g. in tests).
 * Unsigned 32-bit fields are held in {@code long} so that every value of the spec fits.
 * Alpha fields are byte arrays of exactly the spec length, ASCII, left-justified, space-padded.
 * <p>
 * Fields used by each type (besides {@link #type}, {@link #stockLocate}, {@link #trackingNumber},
 * {@link #timestamp}, used by all):
 * <ul>
 * <li>S: {@link #eventCode}</li>
 * <li>R: {@link #stock}, {@link #marketCategory}, {@link #financialStatusIndicator}, {@link #roundLotSize},
 * {@link #roundLotsOnly}, {@link #issueClassification}, {@link #issueSubType}, {@link #authenticity},
 * {@link #shortSaleThresholdIndicator}, {@link #ipoFlag}, {@link #luldReferencePriceTier}, {@link #etpFlag},
 * {@link #etpLeverageFactor}, {@link #inverseIndicator}</li>
 * <li>H: {@link #stock}, {@link #tradingState}, {@link #reserved}, {@link #reason}</li>
 * <li>Y: {@link #stock}, {@link #regShoAction}</li>
 * <li>L: {@link #mpid}, {@link #stock}, {@link #primaryMarketMaker}, {@link #marketMakerMode},
 * {@link #marketParticipantState}</li>
 * <li>V: {@link #level1Price}, {@link #level2Price}, {@link #level3Price} (Price(8))</li>
 * <li>W: {@link #breachedLevel}</li>
 * <li>K: {@link #stock}, {@link #ipoQuotationReleaseTime}, {@link #ipoQuotationReleaseQualifier}, {@link #ipoPrice}</li>
 * <li>J: {@link #stock}, {@link #auctionCollarReferencePrice}, {@link #upperAuctionCollarPrice},
 * {@link #lowerAuctionCollarPrice}, {@link #auctionCollarExtension}</li>
 * <li>h: {@link #stock}, {@link #marketCode}, {@link #operationalHaltAction}</li>
 * <li>A: {@link #orderReferenceNumber}, {@link #side}, {@link #shares}, {@link #stock}, {@link #price}</li>
 * <li>F: as A, plus {@link #attribution}</li>
 * <li>E: {@link #orderReferenceNumber}, {@link #shares} (executed shares), {@link #matchNumber}</li>
 * <li>C: {@link #orderReferenceNumber}, {@link #shares} (executed shares), {@link #matchNumber},
 * {@link #printable}, {@link #price} (execution price)</li>
 * <li>X: {@link #orderReferenceNumber}, {@link #shares} (cancelled shares)</li>
 * <li>D: {@link #orderReferenceNumber}</li>
 * <li>U: {@link #orderReferenceNumber} (original), {@link #newOrderReferenceNumber}, {@link #shares}, {@link #price}</li>
 * <li>P: {@link #orderReferenceNumber}, {@link #side}, {@link #shares}, {@link #stock}, {@link #price}, {@link #matchNumber}</li>
 * <li>Q: {@link #longShares}, {@link #stock}, {@link #price} (cross price), {@link #matchNumber}, {@link #crossType}</li>
 * <li>B: {@link #matchNumber}</li>
 * <li>I: {@link #pairedShares}, {@link #imbalanceShares}, {@link #imbalanceDirection}, {@link #stock},
 * {@link #farPrice}, {@link #nearPrice}, {@link #currentReferencePrice}, {@link #crossType},
 * {@link #priceVariationIndicator}</li>
 * <li>N: {@link #stock}, {@link #interestFlag}</li>
 * <li>O: {@link #stock}, {@link #openEligibilityStatus}, {@link #minimumAllowablePrice}, {@link #maximumAllowablePrice},
 * {@link #nearExecutionPrice}, {@link #nearExecutionTime}, {@link #lowerPriceRangeCollar},
 * {@link #upperPriceRangeCollar}</li>
 * </ul>
 * For E, C, X, D and U the {@link SessionGenerator} also fills, as a convenience for tests, fields ITCH does not
 * carry in those messages (so the encoder ignores them): {@link #side} and {@link #stock} of the referenced order;
 * for E and D its resting {@link #price}; for D its remaining {@link #shares}.
 */
public final class ItchEvent
{
    /** Length of the Stock field. */
    public static final int STOCK_LENGTH = 8;

    // ---- common header (every type) ----
    /** Message type, one ASCII letter (e.g. 'A', 'h'). */
    public char type;
    /** Stock locate code (u16); 0 for market-wide messages (S, V, W). */
    public int stockLocate;
    /** Tracking number (u16). */
    public int trackingNumber;
    /** Nanoseconds since midnight (6 bytes on the wire). */
    public long timestamp;

    // ---- S ----
    /** S: system event code (O, S, Q, M, E, C). */
    public char eventCode;

    // ---- shared instrument field ----
    /** Stock symbol: 8 ASCII bytes, space-padded (R H Y L K J h A F P Q I N O). */
    public final byte[] stock = new byte[STOCK_LENGTH];

    // ---- R ----
    /** R: market category. */
    public char marketCategory;
    /** R: financial status indicator. */
    public char financialStatusIndicator;
    /** R: round lot size (u32). */
    public long roundLotSize;
    /** R: round lots only (Y/N). */
    public char roundLotsOnly;
    /** R: issue classification. */
    public char issueClassification;
    /** R: issue sub-type, 2 ASCII bytes. */
    public final byte[] issueSubType = new byte[2];
    /** R: authenticity (P live, T test). */
    public char authenticity;
    /** R: short sale threshold indicator (Y, N, space). */
    public char shortSaleThresholdIndicator;
    /** R: IPO flag (Y, N, space). */
    public char ipoFlag;
    /** R: LULD reference price tier (1, 2, space). */
    public char luldReferencePriceTier;
    /** R: ETP flag (Y, N, space). */
    public char etpFlag;
    /** R: ETP leverage factor (u32). */
    public long etpLeverageFactor;
    /** R: inverse indicator (Y/N). */
    public char inverseIndicator;

    // ---- H ----
    /** H: trading state (H halted, P paused, Q quotation only, T trading). */
    public char tradingState;
    /** H: reserved byte. */
    public char reserved;
    /** H: reason, 4 ASCII bytes. */
    public final byte[] reason = new byte[4];

    // ---- Y ----
    /** Y: Reg SHO action ('0', '1', '2'). */
    public char regShoAction;

    // ---- L ----
    /** L: market participant id, 4 ASCII bytes. */
    public final byte[] mpid = new byte[4];
    /** L: primary market maker (Y/N). */
    public char primaryMarketMaker;
    /** L: market maker mode (N, P, S, R, L). */
    public char marketMakerMode;
    /** L: market participant state (A, E, W, S, D). */
    public char marketParticipantState;

    // ---- V (Price(8)) ----
    /** V: MWCB level 1, Price(8) raw. */
    public long level1Price;
    /** V: MWCB level 2, Price(8) raw. */
    public long level2Price;
    /** V: MWCB level 3, Price(8) raw. */
    public long level3Price;

    // ---- W ----
    /** W: breached level ('1', '2', '3'). */
    public char breachedLevel;

    // ---- K ----
    /** K: IPO quotation release time, seconds since midnight (u32). */
    public long ipoQuotationReleaseTime;
    /** K: IPO quotation release qualifier (A anticipated, C cancelled/postponed). */
    public char ipoQuotationReleaseQualifier;
    /** K: IPO price, Price(4) raw. */
    public long ipoPrice;

    // ---- J ----
    /** J: auction collar reference price, Price(4) raw. */
    public long auctionCollarReferencePrice;
    /** J: upper auction collar price, Price(4) raw. */
    public long upperAuctionCollarPrice;
    /** J: lower auction collar price, Price(4) raw. */
    public long lowerAuctionCollarPrice;
    /** J: auction collar extension (u32). */
    public long auctionCollarExtension;

    // ---- h ----
    /** h: market code (Q, B, X). */
    public char marketCode;
    /** h: operational halt action (H halted, T resumed). */
    public char operationalHaltAction;

    // ---- orders and trades ----
    /** A F E C X D P: order reference number; U: original order reference number (u64). */
    public long orderReferenceNumber;
    /** U: new order reference number (u64). */
    public long newOrderReferenceNumber;
    /** A F P: Buy/Sell indicator ('B' or 'S'). */
    public char side;
    /** A F U P: shares; E C: executed shares; X: cancelled shares (u32). */
    public long shares;
    /** A F U P: price; C: execution price; Q: cross price (Price(4) raw, u32). */
    public long price;
    /** F: attribution (MPID), 4 ASCII bytes. */
    public final byte[] attribution = new byte[4];
    /** E C P Q B: match number (u64). */
    public long matchNumber;
    /** C: printable (Y/N). */
    public char printable;

    // ---- Q ----
    /** Q: shares, the 8-byte field of ITCH 5.0. */
    public long longShares;
    /** Q: cross type (O, C, H, I); I: cross type (O, C, H, A). */
    public char crossType;

    // ---- I ----
    /** I: paired shares (8 bytes). */
    public long pairedShares;
    /** I: imbalance shares (8 bytes). */
    public long imbalanceShares;
    /** I: imbalance direction (B, S, N, O, P). */
    public char imbalanceDirection;
    /** I: far price, Price(4) raw. */
    public long farPrice;
    /** I: near price, Price(4) raw. */
    public long nearPrice;
    /** I: current reference price, Price(4) raw. */
    public long currentReferencePrice;
    /** I: price variation indicator (L, 1..9, A, B, C, space). */
    public char priceVariationIndicator;

    // ---- N ----
    /** N: interest flag (B, S, A, N). */
    public char interestFlag;

    // ---- O ----
    /** O: open eligibility status (N, Y). */
    public char openEligibilityStatus;
    /** O: minimum allowable price, Price(4) raw. */
    public long minimumAllowablePrice;
    /** O: maximum allowable price, Price(4) raw. */
    public long maximumAllowablePrice;
    /** O: near execution price, Price(4) raw. */
    public long nearExecutionPrice;
    /** O: near execution time (8 bytes). */
    public long nearExecutionTime;
    /** O: lower price range collar, Price(4) raw. */
    public long lowerPriceRangeCollar;
    /** O: upper price range collar, Price(4) raw. */
    public long upperPriceRangeCollar;

    /**
     * Sets {@link #stock} from a String (not for the message path: it may allocate).
     *
     * @param symbol up to 8 ASCII characters; padded with spaces.
     * @return this for chaining.
     */
    public ItchEvent stock(final String symbol)
    {
        setAlpha(stock, symbol);
        return this;
    }

    /**
     * The stock symbol without trailing spaces (not for the message path: allocates).
     *
     * @return the symbol.
     */
    public String stockAsString()
    {
        return alphaToString(stock);
    }

    /**
     * Fills an alpha field from a String: ASCII, left-justified, space-padded, truncated to the field length.
     *
     * @param field the field to fill.
     * @param value the text.
     */
    public static void setAlpha(final byte[] field, final String value)
    {
        Arrays.fill(field, (byte)' ');
        final int length = Math.min(field.length, value.length());
        for (int i = 0; i < length; i++)
        {
            field[i] = (byte)value.charAt(i);
        }
    }

    /**
     * Reads an alpha field as a String without its trailing space padding.
     *
     * @param field the field.
     * @return the text.
     */
    public static String alphaToString(final byte[] field)
    {
        int length = field.length;
        while (length > 0 && field[length - 1] == ' ')
        {
            length--;
        }
        return new String(field, 0, length, StandardCharsets.US_ASCII);
    }

    /**
     * Clears every field: numbers to 0, codes to space, alpha fields to spaces.
     *
     * @return this for chaining.
     */
    public ItchEvent reset()
    {
        type = ' ';
        stockLocate = 0;
        trackingNumber = 0;
        timestamp = 0;
        eventCode = ' ';
        Arrays.fill(stock, (byte)' ');
        marketCategory = ' ';
        financialStatusIndicator = ' ';
        roundLotSize = 0;
        roundLotsOnly = ' ';
        issueClassification = ' ';
        Arrays.fill(issueSubType, (byte)' ');
        authenticity = ' ';
        shortSaleThresholdIndicator = ' ';
        ipoFlag = ' ';
        luldReferencePriceTier = ' ';
        etpFlag = ' ';
        etpLeverageFactor = 0;
        inverseIndicator = ' ';
        tradingState = ' ';
        reserved = ' ';
        Arrays.fill(reason, (byte)' ');
        regShoAction = ' ';
        Arrays.fill(mpid, (byte)' ');
        primaryMarketMaker = ' ';
        marketMakerMode = ' ';
        marketParticipantState = ' ';
        level1Price = 0;
        level2Price = 0;
        level3Price = 0;
        breachedLevel = ' ';
        ipoQuotationReleaseTime = 0;
        ipoQuotationReleaseQualifier = ' ';
        ipoPrice = 0;
        auctionCollarReferencePrice = 0;
        upperAuctionCollarPrice = 0;
        lowerAuctionCollarPrice = 0;
        auctionCollarExtension = 0;
        marketCode = ' ';
        operationalHaltAction = ' ';
        orderReferenceNumber = 0;
        newOrderReferenceNumber = 0;
        side = ' ';
        shares = 0;
        price = 0;
        Arrays.fill(attribution, (byte)' ');
        matchNumber = 0;
        printable = ' ';
        longShares = 0;
        crossType = ' ';
        pairedShares = 0;
        imbalanceShares = 0;
        imbalanceDirection = ' ';
        farPrice = 0;
        nearPrice = 0;
        currentReferencePrice = 0;
        priceVariationIndicator = ' ';
        interestFlag = ' ';
        openEligibilityStatus = ' ';
        minimumAllowablePrice = 0;
        maximumAllowablePrice = 0;
        nearExecutionPrice = 0;
        nearExecutionTime = 0;
        lowerPriceRangeCollar = 0;
        upperPriceRangeCollar = 0;
        return this;
    }
}
