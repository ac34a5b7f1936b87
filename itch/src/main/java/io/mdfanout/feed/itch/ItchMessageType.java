package io.mdfanout.feed.itch;

/**
 * ITCH 5.0 message type codes and the length the specification gives each type.
 * <p>
 * Lengths are looked up in a 256-entry table indexed by the type byte so the hot path does a
 * single array read; -1 marks a byte that is not an ITCH 5.0 message type.
 */
public final class ItchMessageType
{
    public static final byte SYSTEM_EVENT = 'S';
    public static final byte STOCK_DIRECTORY = 'R';
    public static final byte STOCK_TRADING_ACTION = 'H';
    public static final byte REG_SHO_RESTRICTION = 'Y';
    public static final byte MARKET_PARTICIPANT_POSITION = 'L';
    public static final byte MWCB_DECLINE_LEVEL = 'V';
    public static final byte MWCB_STATUS = 'W';
    public static final byte IPO_QUOTING_PERIOD_UPDATE = 'K';
    public static final byte LULD_AUCTION_COLLAR = 'J';
    public static final byte OPERATIONAL_HALT = 'h';
    public static final byte ADD_ORDER = 'A';
    public static final byte ADD_ORDER_MPID = 'F';
    public static final byte ORDER_EXECUTED = 'E';
    public static final byte ORDER_EXECUTED_WITH_PRICE = 'C';
    public static final byte ORDER_CANCEL = 'X';
    public static final byte ORDER_DELETE = 'D';
    public static final byte ORDER_REPLACE = 'U';
    public static final byte TRADE = 'P';
    public static final byte CROSS_TRADE = 'Q';
    public static final byte BROKEN_TRADE = 'B';
    public static final byte NOII = 'I';
    public static final byte RETAIL_PRICE_IMPROVEMENT = 'N';
    public static final byte DIRECT_LISTING_PRICE_DISCOVERY = 'O';

    /** Every ITCH 5.0 message type, in specification order. */
    public static final byte[] ALL_TYPES = {
        SYSTEM_EVENT, STOCK_DIRECTORY, STOCK_TRADING_ACTION, REG_SHO_RESTRICTION, MARKET_PARTICIPANT_POSITION,
        MWCB_DECLINE_LEVEL, MWCB_STATUS, IPO_QUOTING_PERIOD_UPDATE, LULD_AUCTION_COLLAR, OPERATIONAL_HALT,
        ADD_ORDER, ADD_ORDER_MPID, ORDER_EXECUTED, ORDER_EXECUTED_WITH_PRICE, ORDER_CANCEL, ORDER_DELETE,
        ORDER_REPLACE, TRADE, CROSS_TRADE, BROKEN_TRADE, NOII, RETAIL_PRICE_IMPROVEMENT,
        DIRECT_LISTING_PRICE_DISCOVERY };

    /** Length of the header every ITCH message starts with: type, stock locate, tracking number, timestamp. */
    public static final int COMMON_HEADER_LENGTH = 11;

    /** Largest length any ITCH 5.0 type has (NOII). */
    public static final int MAX_SPEC_LENGTH = 50;

    private static final int[] LENGTHS = new int[256];

    static
    {
        java.util.Arrays.fill(LENGTHS, -1);
        LENGTHS[SYSTEM_EVENT] = 12;
        LENGTHS[STOCK_DIRECTORY] = 39;
        LENGTHS[STOCK_TRADING_ACTION] = 25;
        LENGTHS[REG_SHO_RESTRICTION] = 20;
        LENGTHS[MARKET_PARTICIPANT_POSITION] = 26;
        LENGTHS[MWCB_DECLINE_LEVEL] = 35;
        LENGTHS[MWCB_STATUS] = 12;
        LENGTHS[IPO_QUOTING_PERIOD_UPDATE] = 28;
        LENGTHS[LULD_AUCTION_COLLAR] = 35;
        LENGTHS[OPERATIONAL_HALT] = 21;
        LENGTHS[ADD_ORDER] = 36;
        LENGTHS[ADD_ORDER_MPID] = 40;
        LENGTHS[ORDER_EXECUTED] = 31;
        LENGTHS[ORDER_EXECUTED_WITH_PRICE] = 36;
        LENGTHS[ORDER_CANCEL] = 23;
        LENGTHS[ORDER_DELETE] = 19;
        LENGTHS[ORDER_REPLACE] = 35;
        LENGTHS[TRADE] = 44;
        LENGTHS[CROSS_TRADE] = 40;
        LENGTHS[BROKEN_TRADE] = 19;
        LENGTHS[NOII] = 50;
        LENGTHS[RETAIL_PRICE_IMPROVEMENT] = 20;
        LENGTHS[DIRECT_LISTING_PRICE_DISCOVERY] = 48;
    }

    private ItchMessageType()
    {
    }

    /**
     * Length the specification gives a message type.
     *
     * @param type the message type byte.
     * @return the length in bytes, or -1 when the byte is not an ITCH 5.0 message type.
     */
    public static int specLength(final byte type)
    {
        return LENGTHS[type & 0xFF];
    }

    /** True when the byte is an ITCH 5.0 message type. */
    public static boolean isKnown(final byte type)
    {
        return LENGTHS[type & 0xFF] > 0;
    }
}
