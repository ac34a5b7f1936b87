package io.mdfanout.tools;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Records latencies in nanoseconds into a pre-sized HdrHistogram (3 significant digits, up to one hour) for the
 * {@code latency} and {@code raw-aeron-sub} tools, and reports them in microseconds: one summary line, an
 * {@code .hgrm} percentile distribution and a JSON object, all in the same format for every system measured so
 * the benchmark report can compare them.
 * <p>
 * {@link #record(long)} allocates nothing: the histogram never resizes. The first {@code warmupCount} values are
 * only counted (JIT compilation, page faults, joins). A negative value (the sender's clock ahead of ours) is
 * counted and recorded as 0; a value above the range is counted and recorded as the range's top. Single-threaded.
 */
public final class LatencyRecorder
{
    /** Nanoseconds in a day: latency timestamps are nanoseconds since midnight UTC. */
    public static final long NANOS_PER_DAY = 86_400_000_000_000L;
    /** Highest latency the histogram tracks: one hour. */
    public static final long HIGHEST_TRACKABLE_NS = 3_600_000_000_000L;
    /** Percentiles the summary and the JSON report. */
    static final double[] PERCENTILES = {50.0, 90.0, 99.0, 99.9, 99.99};
    static final String[] PERCENTILE_NAMES = {"p50", "p90", "p99", "p99_9", "p99_99"};

    private final Histogram histogram = new Histogram(1, HIGHEST_TRACKABLE_NS, 3);
    private final long warmupCount;
    private long seen;
    private long negative;
    private long clamped;

    /**
     * Creates a recorder.
     *
     * @param warmupCount how many first values to leave out of the histogram.
     * @throws IllegalArgumentException when negative.
     */
    public LatencyRecorder(final long warmupCount)
    {
        if (warmupCount < 0)
        {
            throw new IllegalArgumentException("--warmup-messages must not be negative: " + warmupCount);
        }
        this.warmupCount = warmupCount;
    }

    /**
     * The latency from a time of day (nanoseconds since midnight UTC) to now, across midnight when the two lie
     * either side of it.
     *
     * @param nowEpochNs   now, nanoseconds since the epoch.
     * @param timeOfDayNs  the earlier time, nanoseconds since midnight UTC.
     * @return now minus the earlier time, in nanoseconds, in -12 h..12 h.
     */
    public static long sinceTimeOfDay(final long nowEpochNs, final long timeOfDayNs)
    {
        long latency = Math.floorMod(nowEpochNs, NANOS_PER_DAY) - timeOfDayNs;
        if (latency > NANOS_PER_DAY / 2)
        {
            latency -= NANOS_PER_DAY;
        }
        else if (latency < -NANOS_PER_DAY / 2)
        {
            latency += NANOS_PER_DAY;
        }
        return latency;
    }

    /**
     * Records one latency (after the warm-up).
     *
     * @param latencyNs the latency in nanoseconds.
     */
    public void record(final long latencyNs)
    {
        if (++seen <= warmupCount)
        {
            return;
        }
        long value = latencyNs;
        if (value < 0)
        {
            negative++;
            value = 0;
        }
        else if (value > HIGHEST_TRACKABLE_NS)
        {
            clamped++;
            value = HIGHEST_TRACKABLE_NS;
        }
        histogram.recordValue(value);
    }

    /** @return values seen, warm-up included. */
    public long seen()
    {
        return seen;
    }

    /** @return values in the histogram (after the warm-up). */
    public long count()
    {
        return histogram.getTotalCount();
    }

    /** @return values that were negative (recorded as 0). */
    public long negative()
    {
        return negative;
    }

    /** @return values above an hour (recorded as an hour). */
    public long clamped()
    {
        return clamped;
    }

    /**
     * The latency at a percentile.
     *
     * @param percentile 0..100.
     * @return microseconds; 0 when nothing was recorded.
     */
    public double percentileMicros(final double percentile)
    {
        return histogram.getValueAtPercentile(percentile) / 1_000.0;
    }

    /** @return the largest latency in microseconds. */
    public double maxMicros()
    {
        return histogram.getMaxValue() / 1_000.0;
    }

    /** @return the mean latency in microseconds. */
    public double meanMicros()
    {
        return 0 == histogram.getTotalCount() ? 0.0 : histogram.getMean() / 1_000.0;
    }

    /**
     * One line: count and the percentiles in microseconds.
     *
     * @param role the tool's name, first on the line.
     * @return {@code role: latency count=.. p50=..us p90=.. p99=.. p99.9=.. p99.99=.. max=.. (warmup=.. negative=..)}
     */
    public String summary(final String role)
    {
        return String.format(Locale.ROOT,
            "%s: latency count=%d p50=%.1fus p90=%.1fus p99=%.1fus p99.9=%.1fus p99.99=%.1fus max=%.1fus " +
                "mean=%.1fus (warmup=%d negative=%d clamped=%d)",
            role, count(), percentileMicros(50), percentileMicros(90), percentileMicros(99), percentileMicros(99.9),
            percentileMicros(99.99), maxMicros(), meanMicros(), Math.min(seen, warmupCount), negative, clamped);
    }

    /**
     * The report as a JSON object: the percentiles, max and mean in microseconds, the counts, and the caller's
     * extra fields (already JSON-encoded values).
     *
     * @param system what was measured (e.g. "chain", "raw-aeron").
     * @param extra  further "name", value pairs; values are written as given (numbers, or quoted strings).
     * @return the JSON text.
     */
    public String toJson(final String system, final String... extra)
    {
        final StringBuilder json = new StringBuilder(512);
        json.append("{\"system\":\"").append(system).append('"');
        json.append(",\"count\":").append(count());
        json.append(",\"warmup\":").append(Math.min(seen, warmupCount));
        json.append(",\"negative\":").append(negative);
        json.append(",\"clamped\":").append(clamped);
        appendPercentiles(json);
        for (int i = 0; i + 1 < extra.length; i += 2)
        {
            json.append(",\"").append(extra[i]).append("\":").append(extra[i + 1]);
        }
        return json.append("}\n").toString();
    }

    /**
     * The percentiles, max and mean in microseconds as one JSON object, for nesting in another recorder's
     * {@link #toJson(String, String...)} as an extra field.
     *
     * @return e.g. {@code {"count":..,"p50_us":..,..,"max_us":..,"mean_us":..}}.
     */
    public String toJsonPercentiles()
    {
        final StringBuilder json = new StringBuilder(256);
        json.append("{\"count\":").append(count());
        appendPercentiles(json);
        return json.append('}').toString();
    }

    private void appendPercentiles(final StringBuilder json)
    {
        for (int i = 0; i < PERCENTILES.length; i++)
        {
            json.append(",\"").append(PERCENTILE_NAMES[i]).append("_us\":")
                .append(String.format(Locale.ROOT, "%.3f", percentileMicros(PERCENTILES[i])));
        }
        json.append(",\"max_us\":").append(String.format(Locale.ROOT, "%.3f", maxMicros()));
        json.append(",\"mean_us\":").append(String.format(Locale.ROOT, "%.3f", meanMicros()));
    }

    /**
     * Writes HdrHistogram's percentile distribution ({@code .hgrm}, values in microseconds).
     *
     * @param file the file (replaced).
     * @throws IOException when it cannot be written.
     */
    public void writeHgrm(final Path file) throws IOException
    {
        try (PrintStream out = new PrintStream(Files.newOutputStream(file), false, StandardCharsets.UTF_8))
        {
            histogram.outputPercentileDistribution(out, 5, 1_000.0);
        }
    }

    /**
     * Writes {@link #toJson(String, String...)} to a file.
     *
     * @param file   the file (replaced).
     * @param system what was measured.
     * @param extra  further "name", value pairs.
     * @throws IOException when it cannot be written.
     */
    public void writeJson(final Path file, final String system, final String... extra) throws IOException
    {
        Files.writeString(file, toJson(system, extra), StandardCharsets.UTF_8);
    }
}
