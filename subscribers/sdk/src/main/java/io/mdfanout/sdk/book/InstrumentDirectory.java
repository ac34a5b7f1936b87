package io.mdfanout.sdk.book;

import io.mdfanout.sbe.InstrumentDirectoryDecoder;
import org.agrona.collections.Long2LongHashMap;

/**
 * instrumentId &lt;-&gt; symbol, learned from InstrumentDirectory messages. Symbols are kept
 * packed as their 8 ASCII bytes in a long, so learning one allocates nothing; only the
 * {@code String} accessors meant for tools and UIs allocate.
 */
public final class InstrumentDirectory
{
    /** Returned by {@link #instrumentId(CharSequence)} for an unknown symbol. */
    public static final long UNKNOWN = -1;

    private static final int SYMBOL_LENGTH = InstrumentDirectoryDecoder.symbolLength();

    private final Long2LongHashMap symbolByInstrument = new Long2LongHashMap(UNKNOWN);
    private final Long2LongHashMap instrumentBySymbol = new Long2LongHashMap(UNKNOWN);

    /**
     * Learn the symbol of an InstrumentDirectory message; a later message for the same instrument replaces it.
     *
     * @param message the decoder wrapped at the message.
     */
    public void onInstrumentDirectory(final InstrumentDirectoryDecoder message)
    {
        long packed = 0;
        for (int i = 0; i < SYMBOL_LENGTH; i++)
        {
            final int c = message.symbol(i) & 0xFF;
            packed = (packed << 8) | (0 == c ? ' ' : c);
        }
        put(message.instrumentId(), packed);
    }

    /**
     * Register a symbol by hand (tests, configuration).
     *
     * @param instrumentId the instrument.
     * @param symbol the symbol, at most 8 ASCII characters.
     */
    public void put(final long instrumentId, final CharSequence symbol)
    {
        put(instrumentId, pack(symbol));
    }

    /**
     * Number of known instruments.
     *
     * @return the count.
     */
    public int size()
    {
        return symbolByInstrument.size();
    }

    /**
     * Instrument id of a symbol.
     *
     * @param symbol the symbol, with or without its space padding.
     * @return the instrument id, or {@link #UNKNOWN}.
     */
    public long instrumentId(final CharSequence symbol)
    {
        return symbol.length() > SYMBOL_LENGTH ? UNKNOWN : instrumentBySymbol.get(pack(symbol));
    }

    /**
     * Symbol of an instrument, padding removed. Allocates: for tools and display.
     *
     * @param instrumentId the instrument.
     * @return the symbol, or null when unknown.
     */
    public String symbol(final long instrumentId)
    {
        final long packed = symbolByInstrument.get(instrumentId);
        if (UNKNOWN == packed)
        {
            return null;
        }
        final StringBuilder builder = new StringBuilder(SYMBOL_LENGTH);
        for (int i = SYMBOL_LENGTH - 1; i >= 0; i--)
        {
            final char c = (char)((packed >>> (i * 8)) & 0xFF);
            if (c != ' ' && c != 0)
            {
                builder.append(c);
            }
            else
            {
                break;
            }
        }
        return builder.toString();
    }

    private void put(final long instrumentId, final long packed)
    {
        if (UNKNOWN == instrumentId || UNKNOWN == packed)
        {
            return; // the maps' missing value: SBE's null instrument id, or a symbol of eight 0xFF bytes (not ASCII)
        }
        final long previous = symbolByInstrument.put(instrumentId, packed);
        if (UNKNOWN != previous && previous != packed)
        {
            instrumentBySymbol.remove(previous);
        }
        instrumentBySymbol.put(packed, instrumentId);
    }

    /** Pack a symbol as 8 bytes, space padded, so that "AAPL" and "AAPL    " are the same key. */
    private static long pack(final CharSequence symbol)
    {
        if (symbol.length() > SYMBOL_LENGTH)
        {
            throw new IllegalArgumentException("symbol longer than " + SYMBOL_LENGTH + " characters: " + symbol);
        }
        long packed = 0;
        for (int i = 0; i < SYMBOL_LENGTH; i++)
        {
            final char c = i < symbol.length() ? symbol.charAt(i) : ' ';
            packed = (packed << 8) | (c == 0 ? ' ' : (c & 0xFF));
        }
        return packed;
    }
}
