package io.mdfanout.metrics;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One row of the mapping from an Agrona counter (type id and label) to a Prometheus metric:
 * name, kind, help and label names, whose values come from the label pattern's groups, and a scale
 * for counters kept in another unit than the metric's (milliseconds exported as {@code _seconds}).
 */
public final class CounterRule
{
    /** Type id wildcard: the rule matches on the label alone. */
    public static final int ANY_TYPE_ID = -1;

    private final int typeId;
    private final Pattern label;
    private final String name;
    private final MetricKind kind;
    private final String help;
    private final String[] labelNames;
    private final LabelValue[] labelValues;
    private final double scale;

    CounterRule(
        final int typeId,
        final String labelRegex,
        final String name,
        final MetricKind kind,
        final String help,
        final String[] labelNames,
        final LabelValue[] labelValues)
    {
        this(typeId, labelRegex, name, kind, help, labelNames, labelValues, 1.0);
    }

    CounterRule(
        final int typeId,
        final String labelRegex,
        final String name,
        final MetricKind kind,
        final String help,
        final String[] labelNames,
        final LabelValue[] labelValues,
        final double scale)
    {
        if (MetricKind.COUNTER == kind && !name.endsWith("_total"))
        {
            throw new IllegalArgumentException("a counter's name ends in _total: " + name);
        }
        this.typeId = typeId;
        this.label = Pattern.compile(labelRegex);
        this.name = name;
        this.kind = kind;
        this.help = help;
        this.labelNames = labelNames;
        this.labelValues = labelValues;
        this.scale = scale;
    }

    /** @return what the counter's value is multiplied by to give the metric's (1 unless the units differ). */
    public double scale()
    {
        return scale;
    }

    /** @return the exposed name ({@code _total} included for counters). */
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

    /** @return the Prometheus label names. */
    public String[] labelNames()
    {
        return labelNames.clone();
    }

    /**
     * @param counterTypeId the counter's type id.
     * @param counterLabel  the counter's label.
     * @return the label values when this rule maps the counter, else null.
     */
    String[] match(final int counterTypeId, final String counterLabel)
    {
        if (ANY_TYPE_ID != typeId && typeId != counterTypeId)
        {
            return null;
        }
        final Matcher matcher = label.matcher(counterLabel);
        if (!matcher.matches())
        {
            return null;
        }
        final String[] values = new String[labelNames.length];
        for (int i = 0; i < values.length; i++)
        {
            values[i] = labelValues[i].apply(matcher.group(i + 1));
        }
        return values;
    }
}
