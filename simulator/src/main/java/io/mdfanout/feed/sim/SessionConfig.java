package io.mdfanout.feed.sim;

/**
 * What the {@link SessionGenerator} produces: the number of symbols, the total message count and
 * the mix of message types in the main body of the session (relative weights).
 */
public final class SessionConfig
{
    /** Message types of the main body, most frequent first (the order the generator scans them). */
    static final char[] BODY_TYPES = {
        'A', 'D', 'U', 'E', 'X', 'F', 'I', 'P', 'C', 'N', 'Q', 'H', 'B', 'Y', 'L', 'h', 'K', 'J', 'O', 'W'
    };

    /** Default weights, per million body messages, in the order of {@link #BODY_TYPES}. */
    private static final int[] DEFAULT_WEIGHTS = {
        350_000, 240_000, 120_000, 90_000, 60_000, 30_000, 20_000, 15_000, 10_000, 3_000, 200, 200, 100, 100, 100,
        60, 50, 50, 30, 20
    };

    /** Largest number of symbols: stock locates are u16 and 0 means market-wide. */
    public static final int MAX_SYMBOLS = 65_535;

    private int symbols = 100;
    private long messageCount = 0;
    private final int[] weights = DEFAULT_WEIGHTS.clone();

    /**
     * Number of symbols (stock locates 1..symbols).
     *
     * @param symbols 1..65535.
     * @return this.
     */
    public SessionConfig symbols(final int symbols)
    {
        this.symbols = symbols;
        return this;
    }

    /**
     * Number of symbols.
     *
     * @return the number of symbols.
     */
    public int symbols()
    {
        return symbols;
    }

    /**
     * Total number of messages of the session, ending with S 'C' as the last one; 0 = endless.
     *
     * @param messageCount 0, or at least {@link #minimumMessageCount(int)}.
     * @return this.
     */
    public SessionConfig messageCount(final long messageCount)
    {
        this.messageCount = messageCount;
        return this;
    }

    /**
     * Total number of messages, 0 = endless.
     *
     * @return the count.
     */
    public long messageCount()
    {
        return messageCount;
    }

    /**
     * Sets the relative weight of a body message type (default weights are per million).
     *
     * @param type   one of A D U E X F I P C N Q H B Y L h K J O W.
     * @param weight 0 or more; 0 removes the type from the body.
     * @return this.
     * @throws IllegalArgumentException for a type that is not a body type or a negative weight.
     */
    public SessionConfig weight(final char type, final int weight)
    {
        if (weight < 0)
        {
            throw new IllegalArgumentException("weight must be >= 0: " + weight);
        }
        weights[bodyIndex(type)] = weight;
        return this;
    }

    /**
     * The relative weight of a body message type.
     *
     * @param type a body type.
     * @return its weight.
     */
    public int weight(final char type)
    {
        return weights[bodyIndex(type)];
    }

    int[] weights()
    {
        return weights;
    }

    /**
     * The fewest messages a finite session of this many symbols can have: the opening sequence
     * (S O, S S, V, an R per symbol, some Y and L, an H per symbol, S Q) plus the closing sequence
     * (S M, a closing cross Q per symbol, S E, S C).
     *
     * @param symbols number of symbols.
     * @return the minimum message count.
     */
    public static long minimumMessageCount(final int symbols)
    {
        return SessionGenerator.openingLength(symbols) + SessionGenerator.closingLength(symbols);
    }

    /**
     * Checks the configuration.
     *
     * @return this.
     * @throws IllegalArgumentException with a one-line reason when it is not usable.
     */
    public SessionConfig validate()
    {
        if (symbols < 1 || symbols > MAX_SYMBOLS)
        {
            throw new IllegalArgumentException("symbols must be 1.." + MAX_SYMBOLS + ": " + symbols);
        }
        if (messageCount < 0)
        {
            throw new IllegalArgumentException("message count must be >= 0 (0 = endless): " + messageCount);
        }
        final long minimum = minimumMessageCount(symbols);
        if (messageCount != 0 && messageCount < minimum)
        {
            throw new IllegalArgumentException(
                "message count " + messageCount + " is below the minimum " + minimum + " for " + symbols + " symbols");
        }
        long total = 0;
        for (final int w : weights)
        {
            total += w;
        }
        if (total <= 0 || total > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("the sum of the body weights must be 1.." + Integer.MAX_VALUE);
        }
        return this;
    }

    private static int bodyIndex(final char type)
    {
        for (int i = 0; i < BODY_TYPES.length; i++)
        {
            if (BODY_TYPES[i] == type)
            {
                return i;
            }
        }
        throw new IllegalArgumentException("not a body message type: '" + type + "'");
    }
}
