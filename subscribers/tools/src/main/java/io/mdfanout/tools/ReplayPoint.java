package io.mdfanout.tools;

import io.mdfanout.sdk.ReplayStart;

import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The points {@code --from} and {@code --to} name: {@code start}, a stream sequence on every partition
 * ({@code seq:N}), one per partition ({@code seq:0=N,1=M}), or an exchange time ({@code HH:MM:SS[.fraction]},
 * the trading day's clock as ITCH stamps it, or {@code ns:N} nanoseconds since midnight).
 */
final class ReplayPoint
{
    private ReplayPoint()
    {
    }

    static ReplayStart parse(final String option, final String text)
    {
        final String value = text.trim();
        try
        {
            if ("start".equals(value))
            {
                return ReplayStart.beginning();
            }
            if (value.startsWith("seq:"))
            {
                final String sequences = value.substring("seq:".length());
                if (!sequences.contains("="))
                {
                    return ReplayStart.streamSequence(Long.parseLong(sequences));
                }
                final Map<Integer, Long> byPartition = new LinkedHashMap<>();
                for (final String pair : sequences.split(","))
                {
                    final String[] parts = pair.split("=", 2);
                    byPartition.put(Integer.parseInt(parts[0].trim()), Long.parseLong(parts[1].trim()));
                }
                return ReplayStart.streamSequences(byPartition);
            }
            if (value.startsWith("ns:"))
            {
                return ReplayStart.exchangeTime(Long.parseLong(value.substring("ns:".length())));
            }
            return ReplayStart.exchangeTime(LocalTime.parse(value).toNanoOfDay());
        }
        catch (final IllegalArgumentException | DateTimeParseException | ArrayIndexOutOfBoundsException ex)
        {
            throw new IllegalArgumentException(option + " must be start, seq:N, seq:P=N,P=N (N from 1), " +
                "HH:MM:SS[.fraction] or ns:N (exchange time): " + text, ex);
        }
    }
}
