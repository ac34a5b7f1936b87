package io.mdfanout.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;

/**
 * What Linux says of this process's CPUs: its affinity ({@code Cpus_allowed_list} in /proc/self/status) and their
 * steal and total time ({@code /proc/stat}). Elsewhere, or unreadable: "unknown" and zeros.
 */
final class CpuStat
{
    private static final String UNKNOWN = "unknown";
    /** The steal field's index in a /proc/stat cpu line (after the name): user nice system idle iowait irq softirq steal. */
    private static final int STEAL_FIELD = 8;

    private CpuStat()
    {
    }

    /** @return this process's CPUs as the kernel lists them, e.g. {@code 2-5,8}, or "unknown". */
    static String allowedCpus()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
            {
                if (line.startsWith("Cpus_allowed_list:"))
                {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        }
        catch (final IOException | RuntimeException ignore)
        {
            // not Linux, or no procfs: unknown
        }
        return UNKNOWN;
    }

    /**
     * @param cpus a CPU list as {@link #allowedCpus()} gives it; "unknown" for the whole machine.
     * @return {steal, total} clock ticks of those CPUs since boot; zeros when unreadable.
     */
    static long[] stealAndTotal(final String cpus)
    {
        final BitSet wanted = UNKNOWN.equals(cpus) ? null : parse(cpus);
        final long[] result = new long[2];
        try
        {
            final List<String> lines = Files.readAllLines(Path.of("/proc/stat"));
            for (final String line : lines)
            {
                if (!line.startsWith("cpu") || line.startsWith("cpu "))
                {
                    continue;
                }
                final String[] fields = line.trim().split("\\s+");
                final int cpu = Integer.parseInt(fields[0].substring(3));
                if (null != wanted && !wanted.get(cpu))
                {
                    continue;
                }
                for (int i = 1; i < fields.length; i++)
                {
                    final long ticks = Long.parseLong(fields[i]);
                    if (i <= STEAL_FIELD)
                    {
                        result[1] += ticks; // guest time is already in user time
                    }
                    if (STEAL_FIELD == i)
                    {
                        result[0] += ticks;
                    }
                }
            }
        }
        catch (final IOException | RuntimeException ignore)
        {
            return new long[2];
        }
        return result;
    }

    /** {@code 2-5,8} as a set. */
    static BitSet parse(final String cpus)
    {
        final BitSet set = new BitSet();
        for (final String part : cpus.split(","))
        {
            final String range = part.trim();
            if (range.isEmpty())
            {
                continue;
            }
            final int dash = range.indexOf('-');
            final int from = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
            final int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1));
            set.set(from, to + 1);
        }
        return set;
    }
}
