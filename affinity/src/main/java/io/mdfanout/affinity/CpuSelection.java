package io.mdfanout.affinity;

/**
 * What a role's {@code --cpus} option asks for: {@code auto} (pin when the allowed set has a CPU for
 * every busy thread plus one to spare, otherwise run shared, backing-off threads unpinned),
 * {@code none} (never pin; threads run as configured), or an explicit CPU list such as
 * {@code 2,3,5-7} (pin the busy threads to these CPUs in ascending order; it is an error when they
 * are too few or not all allowed).
 */
public final class CpuSelection
{
    /** Pin when there are enough CPUs, otherwise fall back to shared, backing-off threads. The default. */
    public static final CpuSelection AUTO = new CpuSelection("auto", null);
    /** Never pin. */
    public static final CpuSelection NONE = new CpuSelection("none", null);

    private final String name;
    private final CpuSet cpus;

    private CpuSelection(final String name, final CpuSet cpus)
    {
        this.name = name;
        this.cpus = cpus;
    }

    /**
     * @param cpus the CPUs to pin the busy threads to, in ascending order.
     * @return an explicit selection.
     * @throws IllegalArgumentException when the set is empty.
     */
    public static CpuSelection explicit(final CpuSet cpus)
    {
        if (cpus.isEmpty())
        {
            throw new IllegalArgumentException("--cpus needs at least one CPU");
        }
        return new CpuSelection(cpus.toString(), cpus);
    }

    /**
     * Parse a {@code --cpus} value.
     *
     * @param value {@code auto}, {@code none} or a CPU list like {@code 2,3,5-7} (case-insensitive, trimmed).
     * @return the selection.
     * @throws IllegalArgumentException with a one-line explanation of what is accepted.
     */
    public static CpuSelection parse(final String value)
    {
        final String trimmed = null == value ? "" : value.trim();
        if ("auto".equalsIgnoreCase(trimmed))
        {
            return AUTO;
        }
        if ("none".equalsIgnoreCase(trimmed))
        {
            return NONE;
        }
        try
        {
            return explicit(CpuSet.parse(trimmed));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("invalid --cpus '" + value + "': expected auto, none or a CPU list " +
                "like 2,3,5-7 (" + ex.getMessage() + ")", ex);
        }
    }

    /** @return true for {@code auto}. */
    public boolean isAuto()
    {
        return this == AUTO;
    }

    /** @return true for {@code none}. */
    public boolean isNone()
    {
        return this == NONE;
    }

    /** @return the explicit CPU list, or null for auto and none. */
    public CpuSet explicitCpus()
    {
        return cpus;
    }

    /** @return {@code auto}, {@code none} or the CPU list, as accepted by {@link #parse(String)}. */
    public String toString()
    {
        return name;
    }
}
