package io.mdfanout.feed.sim;

/**
 * Symbols for the simulated session: a built-in list of real US tickers, then synthetic ones
 * ("ZZ" followed by four letters) that cannot collide with the list.
 */
public final class Tickers
{
    /** Real tickers, roughly by trading activity, so the busiest simulated symbols look familiar. */
    private static final String[] REAL = {
        "AAPL", "MSFT", "NVDA", "AMZN", "GOOGL", "META", "TSLA", "AVGO", "GOOG", "COST",
        "NFLX", "AMD", "PEP", "ADBE", "CSCO", "TMUS", "INTC", "QCOM", "TXN", "INTU",
        "AMAT", "CMCSA", "AMGN", "HON", "ISRG", "BKNG", "SBUX", "VRTX", "MDLZ", "GILD",
        "ADP", "REGN", "ADI", "LRCX", "PANW", "MU", "KLAC", "SNPS", "CDNS", "MELI",
        "PYPL", "ASML", "CSX", "MAR", "ORLY", "CTAS", "ABNB", "MRVL", "FTNT", "NXPI",
        "PDD", "CRWD", "WDAY", "ADSK", "CHTR", "MNST", "PCAR", "ROP", "KDP", "CPRT",
        "PAYX", "AEP", "DXCM", "ODFL", "ROST", "FAST", "KHC", "IDXX", "EA", "CTSH",
        "VRSK", "EXC", "GEHC", "BKR", "LULU", "XEL", "CSGP", "CCEP", "DDOG", "TTWO",
        "ANSS", "ON", "ZS", "TEAM", "CDW", "FANG", "BIIB", "WBD", "GFS", "MDB",
        "ILMN", "DLTR", "SIRI", "QQQ", "SPY", "IWM", "TQQQ", "SQQQ", "SOXL", "ARKK"
    };

    private Tickers()
    {
    }

    /**
     * Number of real tickers built in.
     *
     * @return the count.
     */
    public static int realCount()
    {
        return REAL.length;
    }

    /**
     * Writes the symbol of the given index (0-based) as 8 ASCII bytes, space-padded.
     *
     * @param index  0-based symbol index (stock locate - 1).
     * @param dst    destination array.
     * @param offset where the first byte goes.
     */
    public static void symbol(final int index, final byte[] dst, final int offset)
    {
        for (int i = 0; i < ItchEvent.STOCK_LENGTH; i++)
        {
            dst[offset + i] = ' ';
        }

        if (index < REAL.length)
        {
            final String ticker = REAL[index];
            for (int i = 0; i < ticker.length(); i++)
            {
                dst[offset + i] = (byte)ticker.charAt(i);
            }
        }
        else
        {
            int n = index - REAL.length;
            dst[offset] = 'Z';
            dst[offset + 1] = 'Z';
            for (int i = 5; i >= 2; i--)
            {
                dst[offset + i] = (byte)('A' + n % 26);
                n /= 26;
            }
        }
    }

    /**
     * Whether the symbol at the index is an exchange-traded product (used for the R message flags).
     *
     * @param index 0-based symbol index.
     * @return true for the ETFs of the built-in list.
     */
    public static boolean isEtp(final int index)
    {
        return index >= 93 && index < REAL.length;
    }
}
