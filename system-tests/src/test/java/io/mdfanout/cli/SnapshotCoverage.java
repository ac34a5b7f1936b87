package io.mdfanout.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a partition's last applied snapshot covered, as {@code record --coverage-out} wrote it: instrument 0 (the
 * market-wide state) through the begin's sequence, each range of instrument ids through its instrument's sequence,
 * the ids above the last instrument through the end's. No snapshot applied: nothing covered (the stream must be
 * whole from its first message).
 */
final class SnapshotCoverage
{
    private static final Pattern LINE = Pattern.compile(
        "^(begin|instrument|end) partition=(\\d+) snapshotId=(\\d+)(?: from=(\\d+))?(?: to=(\\d+))? last=(\\d+)$");

    private final List<long[]> ranges = new ArrayList<>();
    private long snapshotId;

    private SnapshotCoverage()
    {
    }

    static SnapshotCoverage[] read(final Path file, final int partitions) throws IOException
    {
        assertTrue(Files.exists(file), "the subscriber wrote its snapshot coverage (record --coverage-out): " + file);
        final SnapshotCoverage[] applied = new SnapshotCoverage[partitions];
        final SnapshotCoverage[] current = new SnapshotCoverage[partitions];
        for (int p = 0; p < partitions; p++)
        {
            applied[p] = new SnapshotCoverage();
        }
        for (final String line : Files.readAllLines(file))
        {
            if (line.startsWith("newday partition="))
            {
                // A new trading day: its stream starts again from nothing, no snapshot covers any of it yet.
                final int p = Integer.parseInt(line.substring("newday partition=".length()));
                applied[p] = new SnapshotCoverage();
                current[p] = null;
                continue;
            }
            final Matcher matcher = LINE.matcher(line);
            assertTrue(matcher.matches(), "a coverage line: " + line);
            final int p = Integer.parseInt(matcher.group(2));
            final long id = Long.parseLong(matcher.group(3));
            final long last = Long.parseLong(matcher.group(6));
            switch (matcher.group(1))
            {
                case "begin":
                    current[p] = new SnapshotCoverage();
                    current[p].snapshotId = id;
                    current[p].ranges.add(new long[]{ 0, 0, last });
                    break;
                case "instrument":
                    if (null != current[p] && current[p].snapshotId == id)
                    {
                        current[p].ranges.add(new long[]{
                            Long.parseLong(matcher.group(4)), Long.parseLong(matcher.group(5)), last });
                    }
                    break;
                default:
                    if (null != current[p] && current[p].snapshotId == id)
                    {
                        current[p].ranges.add(new long[]{ Long.parseLong(matcher.group(4)), Long.MAX_VALUE, last });
                        applied[p] = current[p];
                    }
                    current[p] = null;
                    break;
            }
        }
        return applied;
    }

    /** The same coverage with each range's sequence mapped (a pair's chain positions to the oracle's numbers). */
    SnapshotCoverage mapped(final java.util.function.LongUnaryOperator mapping)
    {
        final SnapshotCoverage mapped = new SnapshotCoverage();
        mapped.snapshotId = snapshotId;
        for (final long[] range : ranges)
        {
            mapped.ranges.add(new long[]{ range[0], range[1], mapping.applyAsLong(range[2]) });
        }
        return mapped;
    }

    /** @return the stream sequence the instrument's state is covered through (0: not covered). */
    long coveredThrough(final long instrumentId)
    {
        for (final long[] range : ranges)
        {
            if (instrumentId >= range[0] && instrumentId <= range[1])
            {
                return range[2];
            }
        }
        return 0;
    }

    public String toString()
    {
        if (ranges.isEmpty())
        {
            return "no snapshot";
        }
        long lowest = Long.MAX_VALUE;
        long highest = 0;
        for (final long[] range : ranges)
        {
            lowest = Math.min(lowest, range[2]);
            highest = Math.max(highest, range[2]);
        }
        return "snapshot " + snapshotId + " covering through " + lowest + ".." + highest;
    }
}
