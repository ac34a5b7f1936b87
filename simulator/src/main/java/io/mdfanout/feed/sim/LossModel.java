package io.mdfanout.feed.sim;

/**
 * Decides, packet by packet, which data packets one simulated line loses: independent random loss, bursts and
 * explicit outages, deterministic from a seed.
 * <p>
 * For each data packet (numbered from 1 in the order {@link #dropNext()} is called):
 * <ul>
 *     <li>if a burst is running, the packet is lost and the burst shortens by one;</li>
 *     <li>else with probability {@code burstProbability} a burst of {@code burstLength} packets starts with it;</li>
 *     <li>else it is lost with probability {@code lossFraction};</li>
 *     <li>and whatever the above says, it is lost when its number falls in an outage (FROM..FROM+COUNT-1).</li>
 * </ul>
 * Two random draws are made for every packet, whether used or not, so the pattern of one mechanism does not shift
 * when another is switched on or off. The generator is SplitMix64: small, fast, good enough for loss patterns, and
 * the same on every JVM. Single-threaded, allocation-free.
 */
public final class LossModel
{
    private static final double DOUBLE_UNIT = 0x1.0p-53;

    private final double lossFraction;
    private final int burstLength;
    private final double burstProbability;
    private final long[] outageFrom;
    private final long[] outageCount;
    private final boolean lossless;

    private long state;
    private long packets;
    private long dropped;
    private long burstsStarted;
    private int burstRemaining;

    /**
     * Creates a loss model.
     *
     * @param seed             the seed of the random draws.
     * @param lossFraction     independent loss probability per packet, 0..1.
     * @param burstLength      packets lost by one burst, &gt;= 1 when bursts are on.
     * @param burstProbability probability that a burst starts at a packet, 0..1 (0 = no bursts).
     * @param outageFrom       first packet number of each outage (from 1); may be empty.
     * @param outageCount      packets in each outage (&gt;= 1), same length as {@code outageFrom}.
     * @throws IllegalArgumentException for values out of range.
     */
    public LossModel(
        final long seed,
        final double lossFraction,
        final int burstLength,
        final double burstProbability,
        final long[] outageFrom,
        final long[] outageCount)
    {
        if (!(lossFraction >= 0.0 && lossFraction <= 1.0))
        {
            throw new IllegalArgumentException("loss fraction must be 0..1: " + lossFraction);
        }
        if (!(burstProbability >= 0.0 && burstProbability <= 1.0))
        {
            throw new IllegalArgumentException("burst probability must be 0..1: " + burstProbability);
        }
        if (burstLength < 0 || (burstProbability > 0.0 && burstLength < 1))
        {
            throw new IllegalArgumentException("a burst probability needs a burst length >= 1: " + burstLength);
        }
        if (outageFrom.length != outageCount.length)
        {
            throw new IllegalArgumentException("outage starts and counts differ in number");
        }
        for (int i = 0; i < outageFrom.length; i++)
        {
            if (outageFrom[i] < 1 || outageCount[i] < 1)
            {
                throw new IllegalArgumentException(
                    "an outage needs FROM >= 1 and COUNT >= 1: " + outageFrom[i] + ":" + outageCount[i]);
            }
        }

        this.lossFraction = lossFraction;
        this.burstLength = burstLength;
        this.burstProbability = burstProbability;
        this.outageFrom = outageFrom.clone();
        this.outageCount = outageCount.clone();
        this.state = seed;
        lossless = 0.0 == lossFraction && 0.0 == burstProbability && 0 == outageFrom.length;
    }

    /**
     * A model that loses nothing.
     *
     * @return the model.
     */
    public static LossModel none()
    {
        return new LossModel(0, 0.0, 0, 0.0, new long[0], new long[0]);
    }

    /**
     * Parses an outage {@code FROM:COUNT}.
     *
     * @param spec the text, e.g. "100:20".
     * @return {from, count}.
     * @throws IllegalArgumentException when it is not two positive integers separated by a colon.
     */
    public static long[] parseOutage(final String spec)
    {
        final int colon = null == spec ? -1 : spec.indexOf(':');
        if (colon < 1 || colon == spec.length() - 1)
        {
            throw new IllegalArgumentException("an outage is FROM:COUNT (packet numbers from 1): '" + spec + "'");
        }
        try
        {
            final long from = Long.parseLong(spec.substring(0, colon).trim());
            final long count = Long.parseLong(spec.substring(colon + 1).trim());
            if (from < 1 || count < 1)
            {
                throw new IllegalArgumentException("an outage needs FROM >= 1 and COUNT >= 1: '" + spec + "'");
            }
            return new long[]{ from, count };
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("an outage is FROM:COUNT (packet numbers from 1): '" + spec + "'");
        }
    }

    /**
     * Decides the fate of the next data packet.
     *
     * @return true when the line loses it.
     */
    public boolean dropNext()
    {
        final long packet = ++packets;
        if (lossless)
        {
            return false;
        }

        final double burstDraw = nextDouble();
        final double lossDraw = nextDouble();
        boolean drop;
        if (burstRemaining > 0)
        {
            burstRemaining--;
            drop = true;
        }
        else if (burstDraw < burstProbability)
        {
            burstsStarted++;
            burstRemaining = burstLength - 1;
            drop = true;
        }
        else
        {
            drop = lossDraw < lossFraction;
        }

        if (!drop)
        {
            drop = inOutage(packet);
        }
        if (drop)
        {
            dropped++;
        }
        return drop;
    }

    /**
     * Data packets decided so far.
     *
     * @return the count.
     */
    public long packets()
    {
        return packets;
    }

    /**
     * Data packets lost so far.
     *
     * @return the count.
     */
    public long dropped()
    {
        return dropped;
    }

    /**
     * Bursts started so far.
     *
     * @return the count.
     */
    public long burstsStarted()
    {
        return burstsStarted;
    }

    /**
     * Whether this model never loses a packet.
     *
     * @return true when lossless.
     */
    public boolean isLossless()
    {
        return lossless;
    }

    private boolean inOutage(final long packet)
    {
        for (int i = 0; i < outageFrom.length; i++)
        {
            if (packet >= outageFrom[i] && packet - outageFrom[i] < outageCount[i])
            {
                return true;
            }
        }
        return false;
    }

    private double nextDouble()
    {
        state += 0x9E3779B97F4A7C15L;
        long z = state;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z = z ^ (z >>> 31);
        return (z >>> 11) * DOUBLE_UNIT;
    }
}
