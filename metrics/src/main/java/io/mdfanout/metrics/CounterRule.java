package io.mdfanout.metrics;

import org.agrona.DirectBuffer;

/**
 * One row of the mapping from an Agrona counter type id to a Prometheus metric family: name, kind, help, how the
 * labels come from the counter's key, and a scale for counters kept in another unit than the metric's
 * (milliseconds exported as {@code _seconds}). A row may instead mark its type id as folded into another family
 * (a total whose breakdown is exported, or a second counter of a quantity another exports): known, not exported.
 */
public final class CounterRule
{
    private final int typeId;
    private final String name;
    private final MetricKind kind;
    private final String help;
    private final CounterKey key;
    private final double scale;
    private final boolean exported;
    private final String[] states;

    private CounterRule(
        final int typeId,
        final String name,
        final MetricKind kind,
        final String help,
        final CounterKey key,
        final double scale,
        final boolean exported,
        final String[] states)
    {
        if (exported && MetricKind.COUNTER == kind && !name.endsWith("_total"))
        {
            throw new IllegalArgumentException("a counter's name ends in _total: " + name);
        }
        this.typeId = typeId;
        this.name = name;
        this.kind = kind;
        this.help = help;
        this.key = key;
        this.scale = scale;
        this.exported = exported;
        this.states = states;
    }

    static CounterRule exported(
        final int typeId,
        final String name,
        final MetricKind kind,
        final String help,
        final CounterKey key,
        final double scale)
    {
        return new CounterRule(typeId, name, kind, help, key, scale, true, null);
    }

    static CounterRule stateSet(
        final int typeId, final String name, final String help, final CounterKey key, final String... states)
    {
        return new CounterRule(typeId, name, MetricKind.STATE_SET, help, key, 1.0, true, states.clone());
    }

    static CounterRule folded(final int typeId, final String into)
    {
        return new CounterRule(
            typeId, into, MetricKind.COUNTER, "folded into " + into, CounterKey.NONE, 1.0, false, null);
    }

    /** @return the counter type id this row maps. */
    public int typeId()
    {
        return typeId;
    }

    /** @return false when the counter is folded into another family and not exported itself. */
    public boolean exported()
    {
        return exported;
    }

    /** @return what the counter's value is multiplied by to give the metric's (1 unless the units differ). */
    public double scale()
    {
        return scale;
    }

    /** @return the exposed name ({@code _total} included for counters); for a folded row, the family it is in. */
    public String name()
    {
        return name;
    }

    /** @return counter or gauge. */
    public MetricKind kind()
    {
        return kind;
    }

    /** @return the help text. */
    public String help()
    {
        return help;
    }

    /**
     * @return for a {@link MetricKind#STATE_SET}, the label value of each state, indexed by the counter value that
     * stands for it (a copy); null for any other kind.
     */
    public String[] states()
    {
        return null == states ? null : states.clone();
    }

    /** The number of states of a {@link MetricKind#STATE_SET}, 0 for any other kind. */
    int stateCount()
    {
        return null == states ? 0 : states.length;
    }

    /** The label value of a state of a {@link MetricKind#STATE_SET}. */
    String state(final int index)
    {
        return states[index];
    }

    /** @return the Prometheus label names. */
    public String[] labelNames()
    {
        return key.labelNames();
    }

    /**
     * @param keyBuffer the counter's key.
     * @return the label values, in the order of {@link #labelNames()}.
     */
    String[] labelValues(final DirectBuffer keyBuffer)
    {
        return key.values(keyBuffer);
    }
}
