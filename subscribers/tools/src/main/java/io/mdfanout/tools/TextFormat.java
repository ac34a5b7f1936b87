package io.mdfanout.tools;

/** Human-readable renderings for the tools (they allocate; never used on the SDK's message path). */
final class TextFormat
{
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private TextFormat()
    {
    }

    /** Nanoseconds since midnight as HH:MM:SS.nnnnnnnnn. */
    static StringBuilder appendTime(final StringBuilder out, final long nanosSinceMidnight)
    {
        final long seconds = nanosSinceMidnight / NANOS_PER_SECOND;
        final long nanos = nanosSinceMidnight % NANOS_PER_SECOND;
        pad(out, seconds / 3600, 2).append(':');
        pad(out, (seconds / 60) % 60, 2).append(':');
        pad(out, seconds % 60, 2).append('.');
        return pad(out, nanos, 9);
    }

    /** A fixed-point price with {@code decimals} implied decimals, e.g. 1234500 with 4 = 123.4500. */
    static StringBuilder appendPrice(final StringBuilder out, final long mantissa, final int decimals)
    {
        long scale = 1;
        for (int i = 0; i < decimals; i++)
        {
            scale *= 10;
        }
        if (mantissa < 0)
        {
            out.append('-');
        }
        final long magnitude = Math.abs(mantissa);
        out.append(magnitude / scale).append('.');
        return pad(out, magnitude % scale, decimals);
    }

    static String price4(final long mantissa)
    {
        return appendPrice(new StringBuilder(), mantissa, 4).toString();
    }

    private static StringBuilder pad(final StringBuilder out, final long value, final int width)
    {
        final String digits = Long.toString(value);
        for (int i = digits.length(); i < width; i++)
        {
            out.append('0');
        }
        return out.append(digits);
    }
}
