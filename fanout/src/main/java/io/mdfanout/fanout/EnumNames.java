package io.mdfanout.fanout;

import java.util.Locale;

/** Command-line spelling of enum values: lower case with '-' for '_' ("busy-spin", "shared-network"). */
final class EnumNames
{
    private EnumNames()
    {
    }

    static <E extends Enum<E>> E parse(final Class<E> type, final String name)
    {
        final String normalized = name == null ? "" : name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (final E value : type.getEnumConstants())
        {
            if (value.name().equals(normalized))
            {
                return value;
            }
        }
        throw new IllegalArgumentException("'" + name + "' is not one of " + names(type));
    }

    static <E extends Enum<E>> String names(final Class<E> type)
    {
        final StringBuilder builder = new StringBuilder();
        for (final E value : type.getEnumConstants())
        {
            builder.append(builder.length() == 0 ? "" : ", ").append(cliName(value));
        }
        return builder.toString();
    }

    static String cliName(final Enum<?> value)
    {
        return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
