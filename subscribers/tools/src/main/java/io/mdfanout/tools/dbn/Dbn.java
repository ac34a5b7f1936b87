package io.mdfanout.tools.dbn;

/**
 * Constants of Databento Binary Encoding (DBN) version 3, as defined by Databento's {@code dbn} crate
 * ({@code rust/dbn/src/record.rs}, {@code enums.rs}, {@code flags.rs}, {@code lib.rs}) and checked against the
 * record layouts of the {@code databento-dbn} Python package (0.72.0). All integers are little-endian; records are
 * {@code repr(C)} structs whose length is a multiple of 8 bytes.
 */
public final class Dbn
{
    /** DBN version written. Version 3 is the current one: MBO, status and imbalance records are the same as in 2. */
    public static final int VERSION = 3;
    /** Length of a symbol C string in version 2 and 3 (70 characters and the terminating NUL). */
    public static final int SYMBOL_CSTR_LEN = 71;
    /** Length of the dataset C string in the metadata. */
    public static final int DATASET_CSTR_LEN = 16;
    /** Fixed part of the metadata after the 8-byte prefix ("DBN", version, length). */
    public static final int METADATA_FIXED_LEN = 100;
    /** Reserved bytes of the metadata's fixed part in version 2 and 3. */
    public static final int METADATA_RESERVED_LEN = 53;

    /** One unit of a DBN price is 1e-9. */
    public static final long FIXED_PRICE_SCALE = 1_000_000_000L;
    /** A price that is not given. */
    public static final long UNDEF_PRICE = Long.MAX_VALUE;
    /** A timestamp that is not given (u64::MAX). */
    public static final long UNDEF_TIMESTAMP = -1L;
    /** An order size that is not given (u32::MAX). */
    public static final int UNDEF_ORDER_SIZE = -1;
    /** A schema that is not given: the file holds records of more than one schema. */
    public static final int NULL_SCHEMA = 0xFFFF;

    /** Schema: market by order. */
    public static final int SCHEMA_MBO = 0;
    /** Schema: market by price, the best level (BBO) and trades. */
    public static final int SCHEMA_MBP_1 = 1;
    /** Schema: market by price, ten levels and trades. */
    public static final int SCHEMA_MBP_10 = 2;
    /** Schema: trades, each with the BBO just before it. */
    public static final int SCHEMA_TBBO = 3;
    /** Schema: trades. */
    public static final int SCHEMA_TRADES = 4;
    /** Schema: OHLCV bars of one second. */
    public static final int SCHEMA_OHLCV_1S = 5;
    /** Schema: OHLCV bars of one minute. */
    public static final int SCHEMA_OHLCV_1M = 6;
    /** Symbology type: the numeric instrument id. */
    public static final int STYPE_INSTRUMENT_ID = 0;
    /** Symbology type: the symbol as the venue sends it. */
    public static final int STYPE_RAW_SYMBOL = 1;

    /** Databento's publisher id of XNAS.ITCH (Nasdaq TotalView-ITCH, venue XNAS). */
    public static final int PUBLISHER_XNAS_ITCH = 2;

    /** Record type of {@code TradeMsg} (MBP-0), the trades schema's. */
    public static final int RTYPE_MBP_0 = 0x00;
    /** Record type of {@code Mbp1Msg}, the mbp-1 and (before DBN version 4) tbbo schemas'. */
    public static final int RTYPE_MBP_1 = 0x01;
    /** Record type of {@code Mbp10Msg}. */
    public static final int RTYPE_MBP_10 = 0x0A;
    /** Record type of {@code OhlcvMsg} of one-second bars. */
    public static final int RTYPE_OHLCV_1S = 0x20;
    /** Record type of {@code OhlcvMsg} of one-minute bars. */
    public static final int RTYPE_OHLCV_1M = 0x21;
    /** Record type of {@code StatusMsg}. */
    public static final int RTYPE_STATUS = 0x12;
    /** Record type of {@code InstrumentDefMsg}. */
    public static final int RTYPE_INSTRUMENT_DEF = 0x13;
    /** Record type of {@code ImbalanceMsg}. */
    public static final int RTYPE_IMBALANCE = 0x14;
    /** Record type of {@code MboMsg}. */
    public static final int RTYPE_MBO = 0xA0;

    /** Size of {@code MboMsg}. */
    public static final int MBO_SIZE = 56;
    /** Size of {@code TradeMsg}: the MBP fields without a level. */
    public static final int TRADE_SIZE = 48;
    /** Offset of the first level ({@code BidAskPair}) of an MBP record. */
    public static final int MBP_LEVELS_OFFSET = TRADE_SIZE;
    /** Size of one {@code BidAskPair}. */
    public static final int BID_ASK_PAIR_SIZE = 32;
    /** Size of {@code Mbp1Msg}. */
    public static final int MBP1_SIZE = TRADE_SIZE + BID_ASK_PAIR_SIZE;
    /** Size of {@code Mbp10Msg}. */
    public static final int MBP10_SIZE = TRADE_SIZE + 10 * BID_ASK_PAIR_SIZE;
    /** Size of {@code OhlcvMsg}. */
    public static final int OHLCV_SIZE = 56;
    /** Size of {@code StatusMsg}. */
    public static final int STATUS_SIZE = 40;
    /** Size of {@code InstrumentDefMsg} (version 3). */
    public static final int INSTRUMENT_DEF_SIZE = 520;
    /** Size of {@code ImbalanceMsg}. */
    public static final int IMBALANCE_SIZE = 112;
    /** Largest record written. */
    public static final int MAX_RECORD_SIZE = INSTRUMENT_DEF_SIZE;

    /** Flag: the last record of an event for an instrument; the book may be read after it. */
    public static final int F_LAST = 1 << 7;
    /** Flag: top-of-book message, not an individual order. */
    public static final int F_TOB = 1 << 6;
    /** Flag: the record comes from a replay or snapshot, not the live stream. */
    public static final int F_SNAPSHOT = 1 << 5;
    /** Flag: an aggregated price level, not an individual order. */
    public static final int F_MBP = 1 << 4;
    /** Flag: {@code ts_recv} is inaccurate. */
    public static final int F_BAD_TS_RECV = 1 << 3;
    /** Flag: a gap or an unknown order makes the book possibly wrong. */
    public static final int F_MAYBE_BAD_BOOK = 1 << 2;

    /** Action: add an order. */
    public static final byte ACTION_ADD = 'A';
    /** Action: cancel an order, fully or partly. */
    public static final byte ACTION_CANCEL = 'C';
    /** Action: a resting order was filled (does not change the book: a cancel follows). */
    public static final byte ACTION_FILL = 'F';
    /** Action: a trade that does not change the book. */
    public static final byte ACTION_TRADE = 'T';
    /** Action: clear the instrument's book (MBP: the levels that follow replace the book). */
    public static final byte ACTION_CLEAR = 'R';

    /** Side: sell order (or sell aggressor). */
    public static final byte SIDE_ASK = 'A';
    /** Side: buy order (or buy aggressor). */
    public static final byte SIDE_BID = 'B';
    /** Side: not given. */
    public static final byte SIDE_NONE = 'N';

    /** Tri-state: not available. */
    public static final byte TRI_NOT_AVAILABLE = '~';
    /** Tri-state: no. */
    public static final byte TRI_NO = 'N';
    /** Tri-state: yes. */
    public static final byte TRI_YES = 'Y';

    /** StatusAction: quoting but not trading. */
    public static final int STATUS_ACTION_QUOTING = 3;
    /** StatusAction: trading. */
    public static final int STATUS_ACTION_TRADING = 7;
    /** StatusAction: halted. */
    public static final int STATUS_ACTION_HALT = 8;
    /** StatusAction: paused. */
    public static final int STATUS_ACTION_PAUSE = 9;
    /** StatusAction: pre-open period. */
    public static final int STATUS_ACTION_PRE_OPEN = 1;
    /** StatusAction: trading closed. */
    public static final int STATUS_ACTION_CLOSE = 12;
    /** StatusAction: post-close period. */
    public static final int STATUS_ACTION_POST_CLOSE = 13;
    /** StatusAction: short-sell restriction changed. */
    public static final int STATUS_ACTION_SSR_CHANGE = 14;

    /** StatusReason: none given. */
    public static final int STATUS_REASON_NONE = 0;
    /** StatusReason: scheduled. */
    public static final int STATUS_REASON_SCHEDULED = 1;
    /** StatusReason: an operational issue at the venue. */
    public static final int STATUS_REASON_OPERATIONAL = 60;
    /** StatusReason: market-wide circuit breaker level 1 (levels 2 and 3 follow). */
    public static final int STATUS_REASON_MWCB_LEVEL_1 = 120;

    private Dbn()
    {
    }

    /**
     * Record length as the record header carries it: in 4-byte words.
     *
     * @param recordSize size of the record in bytes.
     * @return the length field's value.
     */
    public static int lengthWords(final int recordSize)
    {
        return recordSize / 4;
    }
}
