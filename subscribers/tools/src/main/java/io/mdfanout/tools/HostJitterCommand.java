package io.mdfanout.tools;

import io.mdfanout.wire.ExitCodes;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code host-jitter}: how much of the time the CPUs a benchmark will use are taken from a thread that wants them,
 * as sysjitter and jHiccup measure it: one thread per CPU of the process's affinity spins reading the clock for a
 * while, and every gap between two reads longer than {@link #GAP_THRESHOLD_NS} (an interrupt, a preemption, a
 * hypervisor's steal, an SMI) is recorded. The report gives each thread's largest gaps and, per threshold, the share
 * of the time spent in gaps at least that long, with the steal time the kernel counted on those CPUs meanwhile.
 * <p>
 * Why it matters: a message that arrives during a gap of the receiving CPU waits for the gap's end, so the share of
 * time in gaps of at least T is about the share of messages delayed by about T or more, whatever system is measured.
 * A latency percentile is the system's only where that share at the percentile's latency is well under its tail
 * (the benchmark reports calls it qualified); otherwise both systems' tails are the host's, and their ratio says
 * little. Run it under taskset with the benchmark's CPUs, before the benchmark.
 */
@Command(name = "host-jitter", hidden = true, mixinStandardHelpOptions = true, showDefaultValues = true,
    description = "Benchmark host qualification: spin a thread per CPU of this process's affinity and measure the " +
        "gaps the host takes from it (interrupts, preemption, steal).")
public final class HostJitterCommand implements Callable<Integer>
{
    /** Gaps between two clock reads shorter than this are the loop itself, not the host. */
    static final long GAP_THRESHOLD_NS = 1_000;
    /** The thresholds, in microseconds, of the time shares reported. */
    static final long[] SHARE_THRESHOLDS_US = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000};

    @Option(names = "--seconds", defaultValue = "2", description = "How long each thread spins.")
    double seconds;

    @Option(names = "--threads", defaultValue = "0",
        description = "Spinning threads; 0 = one per CPU of this process's affinity.")
    int threads;

    @Option(names = "--json-out", description = "Write the measurements as one JSON object to this file.")
    Path jsonOut;

    PrintStream stdout = System.out;
    PrintStream stderr = System.err;

    /** {@inheritDoc} */
    public Integer call() throws InterruptedException
    {
        if (!(seconds > 0 && seconds <= 600) || threads < 0)
        {
            stderr.println("host-jitter: need 0 < --seconds <= 600 and --threads >= 0");
            return ExitCodes.CONFIG;
        }
        final int count = 0 == threads ? Runtime.getRuntime().availableProcessors() : threads;
        final String cpus = CpuStat.allowedCpus();
        final long[] stealBefore = CpuStat.stealAndTotal(cpus);
        final long spinNs = (long)(seconds * 1e9);
        final List<Spinner> spinners = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            final Spinner spinner = new Spinner(spinNs);
            spinners.add(spinner);
            final Thread thread = new Thread(spinner, "host-jitter-" + i);
            thread.setDaemon(true);
            spinner.thread = thread;
        }
        for (final Spinner spinner : spinners)
        {
            spinner.thread.start();
        }
        for (final Spinner spinner : spinners)
        {
            spinner.thread.join(TimeUnit.SECONDS.toMillis((long)seconds + 30));
        }
        final long[] stealAfter = CpuStat.stealAndTotal(cpus);
        final long totalTicks = stealAfter[1] - stealBefore[1];
        final double stealShare = totalTicks > 0 ? (stealAfter[0] - stealBefore[0]) / (double)totalTicks : 0;

        final StringBuilder json = new StringBuilder(512).append('{')
            .append("\"seconds\":").append(seconds).append(",\"threads\":").append(count)
            .append(",\"cpus\":\"").append(cpus).append("\",\"gap_threshold_ns\":").append(GAP_THRESHOLD_NS)
            .append(String.format(Locale.ROOT, ",\"steal_share\":%.6f", stealShare)).append(",\"per_thread\":[");
        final double[] worstShare = new double[SHARE_THRESHOLDS_US.length];
        long worstMaxNs = 0;
        for (int t = 0; t < spinners.size(); t++)
        {
            final Spinner spinner = spinners.get(t);
            final double[] shares = spinner.shares();
            worstMaxNs = Math.max(worstMaxNs, spinner.gaps.getMaxValue());
            json.append(t > 0 ? "," : "").append("{\"max_gap_us\":")
                .append(String.format(Locale.ROOT, "%.1f", spinner.gaps.getMaxValue() / 1e3))
                .append(",\"gaps\":").append(spinner.gaps.getTotalCount())
                .append(",\"spun_ns\":").append(spinner.spunNs).append(",\"time_share_over_us\":{");
            for (int i = 0; i < shares.length; i++)
            {
                worstShare[i] = Math.max(worstShare[i], shares[i]);
                json.append(i > 0 ? "," : "").append('"').append(SHARE_THRESHOLDS_US[i]).append("\":")
                    .append(String.format(Locale.ROOT, "%.8f", shares[i]));
            }
            json.append("}}");
        }
        json.append("],\"worst\":{\"max_gap_us\":").append(String.format(Locale.ROOT, "%.1f", worstMaxNs / 1e3))
            .append(",\"time_share_over_us\":{");
        for (int i = 0; i < worstShare.length; i++)
        {
            json.append(i > 0 ? "," : "").append('"').append(SHARE_THRESHOLDS_US[i]).append("\":")
                .append(String.format(Locale.ROOT, "%.8f", worstShare[i]));
        }
        json.append("}}}");

        stdout.printf(Locale.ROOT, "host-jitter: %d threads on CPUs %s for %.1f s: largest gap %.1f us; time in gaps " +
            ">= 10 us %.4f%%, >= 100 us %.4f%% (worst thread); steal %.4f%%%n", count, cpus, seconds, worstMaxNs / 1e3,
            100 * worstShare[3], 100 * worstShare[6], 100 * stealShare);
        if (null != jsonOut)
        {
            try
            {
                Files.writeString(jsonOut, json.append('\n').toString());
            }
            catch (final IOException ex)
            {
                stderr.println("host-jitter: cannot write " + jsonOut + ": " + ex);
                return ExitCodes.FAILURE;
            }
        }
        return ExitCodes.OK;
    }

    /** One spinning thread: the gaps between its clock reads. */
    static final class Spinner implements Runnable
    {
        final Histogram gaps = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        private final long spinNs;
        Thread thread;
        long spunNs;

        Spinner(final long spinNs)
        {
            this.spinNs = spinNs;
        }

        public void run()
        {
            final long startNs = System.nanoTime();
            final long endNs = startNs + spinNs;
            long previousNs = startNs;
            long nowNs;
            while ((nowNs = System.nanoTime()) < endNs)
            {
                final long gapNs = nowNs - previousNs;
                if (gapNs > GAP_THRESHOLD_NS)
                {
                    gaps.recordValue(Math.min(gapNs, gaps.getHighestTrackableValue()));
                }
                previousNs = nowNs;
            }
            spunNs = nowNs - startNs;
        }

        /** Per threshold of {@link #SHARE_THRESHOLDS_US}: the share of the spun time in gaps at least that long. */
        double[] shares()
        {
            final double[] shares = new double[SHARE_THRESHOLDS_US.length];
            for (final HistogramIterationValue value : gaps.recordedValues())
            {
                final long gapNs = value.getValueIteratedTo();
                for (int i = 0; i < SHARE_THRESHOLDS_US.length; i++)
                {
                    if (gapNs >= SHARE_THRESHOLDS_US[i] * 1_000)
                    {
                        shares[i] += gapNs * (double)value.getCountAtValueIteratedTo();
                    }
                }
            }
            for (int i = 0; i < shares.length; i++)
            {
                shares[i] /= Math.max(1, spunNs);
            }
            return shares;
        }
    }

    /**
     * Run from the command line (ad-hoc; the mdfanout CLI registers this command).
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new HostJitterCommand()).execute(args));
    }
}
