package io.mdfanout.affinity;

import java.util.Arrays;
import java.util.BitSet;

/**
 * An immutable set of CPU ids, kept sorted, written in the Linux list format the kernel uses in
 * {@code /proc/<pid>/status} (Cpus_allowed_list), in cgroup {@code cpuset.cpus} and in
 * {@code taskset -c}: {@code 0-3,8,10-11}.
 */
public final class CpuSet
{
    /** Highest CPU id accepted: the size of glibc's {@code cpu_set_t} (1024 CPUs). */
    public static final int MAX_CPU = 1023;

    private static final CpuSet EMPTY = new CpuSet(new int[0]);

    private final int[] cpus;

    private CpuSet(final int[] sortedDistinctCpus)
    {
        this.cpus = sortedDistinctCpus;
    }

    /** @return the empty set. */
    public static CpuSet empty()
    {
        return EMPTY;
    }

    /**
     * @param cpus CPU ids in any order, duplicates ignored.
     * @return the set of them.
     * @throws IllegalArgumentException for an id outside 0..{@link #MAX_CPU}.
     */
    public static CpuSet of(final int... cpus)
    {
        final BitSet bits = new BitSet();
        for (final int cpu : cpus)
        {
            bits.set(checkCpu(cpu));
        }
        return fromBits(bits);
    }

    /**
     * @param bits bit n set for CPU n.
     * @return the set of the bits set.
     * @throws IllegalArgumentException for a bit beyond {@link #MAX_CPU}.
     */
    public static CpuSet fromBits(final BitSet bits)
    {
        if (bits.length() > MAX_CPU + 1)
        {
            throw new IllegalArgumentException("CPU " + (bits.length() - 1) + " is beyond the supported " + MAX_CPU);
        }
        return bits.isEmpty() ? EMPTY : new CpuSet(bits.stream().toArray());
    }

    /**
     * Parse the Linux list format: comma-separated CPU ids and inclusive ranges, e.g. {@code 2,3,5-7}.
     * Blanks around the items are ignored; duplicates and overlaps merge.
     *
     * @param list such as {@code 0-3,8}.
     * @return the set.
     * @throws IllegalArgumentException naming the bad item when the list does not parse or is empty.
     */
    public static CpuSet parse(final String list)
    {
        if (null == list || list.isBlank())
        {
            throw new IllegalArgumentException("empty CPU list: expected ids and ranges like 2,3,5-7");
        }
        final BitSet bits = new BitSet();
        for (final String rawItem : list.split(",", -1))
        {
            final String item = rawItem.trim();
            final int dash = item.indexOf('-');
            final int first = parseCpu(dash < 0 ? item : item.substring(0, dash), list);
            final int last = dash < 0 ? first : parseCpu(item.substring(dash + 1), list);
            if (last < first)
            {
                throw new IllegalArgumentException("bad CPU range '" + item + "' in '" + list + "': end below start");
            }
            bits.set(first, last + 1);
        }
        return fromBits(bits);
    }

    private static int parseCpu(final String text, final String list)
    {
        final String trimmed = text.trim();
        if (trimmed.isEmpty() || trimmed.length() > 5 || !trimmed.chars().allMatch(Character::isDigit))
        {
            throw new IllegalArgumentException(
                "bad CPU list '" + list + "': '" + trimmed + "' is not a CPU id (expected ids and ranges like 2,3,5-7)");
        }
        final int cpu = Integer.parseInt(trimmed);
        if (cpu > MAX_CPU)
        {
            throw new IllegalArgumentException("bad CPU list '" + list + "': CPU " + cpu + " is beyond " + MAX_CPU);
        }
        return cpu;
    }

    private static int checkCpu(final int cpu)
    {
        if (cpu < 0 || cpu > MAX_CPU)
        {
            throw new IllegalArgumentException("CPU id must be 0.." + MAX_CPU + ", not " + cpu);
        }
        return cpu;
    }

    /** @return number of CPUs in the set. */
    public int size()
    {
        return cpus.length;
    }

    /** @return true when the set has no CPU. */
    public boolean isEmpty()
    {
        return cpus.length == 0;
    }

    /**
     * @param index 0..size()-1, in ascending CPU order.
     * @return the CPU id at that position.
     */
    public int cpu(final int index)
    {
        return cpus[index];
    }

    /**
     * @param cpu CPU id.
     * @return true when the set holds it.
     */
    public boolean contains(final int cpu)
    {
        return Arrays.binarySearch(cpus, cpu) >= 0;
    }

    /**
     * @param other another set.
     * @return true when every CPU of other is in this set.
     */
    public boolean containsAll(final CpuSet other)
    {
        for (final int cpu : other.cpus)
        {
            if (!contains(cpu))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @param other CPUs to take away.
     * @return this set without them.
     */
    public CpuSet minus(final CpuSet other)
    {
        final BitSet bits = toBits();
        for (final int cpu : other.cpus)
        {
            bits.clear(cpu);
        }
        return fromBits(bits);
    }

    /** @return bit n set for CPU n. */
    public BitSet toBits()
    {
        final BitSet bits = new BitSet();
        for (final int cpu : cpus)
        {
            bits.set(cpu);
        }
        return bits;
    }

    /** @return a copy of the CPU ids in ascending order. */
    public int[] toArray()
    {
        return cpus.clone();
    }

    /** {@inheritDoc} */
    public boolean equals(final Object other)
    {
        return other instanceof CpuSet && Arrays.equals(cpus, ((CpuSet)other).cpus);
    }

    /** {@inheritDoc} */
    public int hashCode()
    {
        return Arrays.hashCode(cpus);
    }

    /** @return the set in the Linux list format with ranges, e.g. {@code 0-3,8}; empty for the empty set. */
    public String toString()
    {
        final StringBuilder text = new StringBuilder();
        int i = 0;
        while (i < cpus.length)
        {
            int j = i;
            while (j + 1 < cpus.length && cpus[j + 1] == cpus[j] + 1)
            {
                j++;
            }
            text.append(text.length() == 0 ? "" : ",").append(cpus[i]);
            if (j > i)
            {
                text.append('-').append(cpus[j]);
            }
            i = j + 1;
        }
        return text.toString();
    }
}
