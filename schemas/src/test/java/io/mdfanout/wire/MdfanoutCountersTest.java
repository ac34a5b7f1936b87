package io.mdfanout.wire;

import io.aeron.AeronCounters;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The guard of the type id registry, as Aeron's own test of {@link AeronCounters}: every id unique, inside its
 * role's range, and none of Aeron's.
 */
class MdfanoutCountersTest
{
    private static final Object[][] RANGES =
    {
        { "FANOUT_", MdfanoutCounters.FANOUT_RANGE_START, MdfanoutCounters.FANOUT_RANGE_END },
        { "FEED_", MdfanoutCounters.FEED_HANDLER_RANGE_START, MdfanoutCounters.FEED_HANDLER_RANGE_END },
        { "REPLAY_", MdfanoutCounters.REPLAY_RANGE_START, MdfanoutCounters.REPLAY_RANGE_END },
        { "CAPTURE_", MdfanoutCounters.REPLAY_RANGE_START, MdfanoutCounters.REPLAY_RANGE_END },
        { "ARCHIVE_", MdfanoutCounters.ARCHIVE_RANGE_START, MdfanoutCounters.ARCHIVE_RANGE_END },
        { "SIMULATOR_", MdfanoutCounters.SIMULATOR_RANGE_START, MdfanoutCounters.SIMULATOR_RANGE_END },
        { "SUBSCRIBER_", MdfanoutCounters.SUBSCRIBER_RANGE_START, MdfanoutCounters.SUBSCRIBER_RANGE_END },
        { "BOOK_", MdfanoutCounters.BOOK_RANGE_START, MdfanoutCounters.BOOK_RANGE_END },
    };

    /** The type ids: every public static final int field ending in _TYPE_ID. */
    private static Map<String, Integer> typeIds(final Class<?> type) throws IllegalAccessException
    {
        final Map<String, Integer> ids = new HashMap<>();
        for (final Field field : type.getFields())
        {
            final int modifiers = field.getModifiers();
            if (Modifier.isStatic(modifiers) && Modifier.isFinal(modifiers) && int.class == field.getType() &&
                field.getName().endsWith("_TYPE_ID"))
            {
                ids.put(field.getName(), field.getInt(null));
            }
        }
        return ids;
    }

    @Test
    void everyTypeIdIsUnique() throws IllegalAccessException
    {
        final Map<Integer, String> byId = new HashMap<>();
        for (final Map.Entry<String, Integer> entry : typeIds(MdfanoutCounters.class).entrySet())
        {
            final String other = byId.put(entry.getValue(), entry.getKey());
            assertNull(other, entry.getKey() + " and " + other + " share type id " + entry.getValue());
        }
        assertFalse(byId.isEmpty());
    }

    @Test
    void everyTypeIdIsInsideItsRolesRange() throws IllegalAccessException
    {
        for (final Map.Entry<String, Integer> entry : typeIds(MdfanoutCounters.class).entrySet())
        {
            boolean found = false;
            for (final Object[] range : RANGES)
            {
                if (entry.getKey().startsWith((String)range[0]))
                {
                    found = true;
                    final int id = entry.getValue();
                    assertTrue((int)range[1] <= id && id <= (int)range[2],
                        entry.getKey() + "=" + id + " outside " + range[1] + ".." + range[2]);
                }
            }
            if (!found)
            {
                fail(entry.getKey() + " belongs to no role's range");
            }
        }
    }

    @Test
    void rangesDoNotOverlapAndStayClearOfAerons()
    {
        final Set<Integer> seen = new HashSet<>();
        for (final Object[] range : RANGES)
        {
            final int start = (int)range[1];
            final int end = (int)range[2];
            assertTrue(start <= end, range[0] + " range is empty");
            assertTrue(start >= 1000, range[0] + " range is inside Aeron's reserved 0..999");
            if (seen.add(start))
            {
                for (final Object[] other : RANGES)
                {
                    if (other != range && (int)other[1] != start)
                    {
                        assertTrue(end < (int)other[1] || (int)other[2] < start, range[0] + " overlaps " + other[0]);
                    }
                }
            }
        }
    }

    @Test
    void noTypeIdIsOneOfAerons() throws IllegalAccessException
    {
        final Map<String, Integer> aeron = typeIds(AeronCounters.class);
        assertTrue(aeron.containsKey("DRIVER_SYSTEM_COUNTER_TYPE_ID"));
        assertTrue(aeron.containsKey("ARCHIVE_RECORDING_POSITION_TYPE_ID"));
        assertTrue(aeron.containsKey("CLUSTER_NODE_ROLE_TYPE_ID"));
        final Set<Integer> aeronIds = new HashSet<>(aeron.values());
        for (final Map.Entry<String, Integer> entry : typeIds(MdfanoutCounters.class).entrySet())
        {
            assertFalse(aeronIds.contains(entry.getValue()), entry.getKey() + " is one of Aeron's type ids");
            assertTrue(entry.getValue() >= 1000, entry.getKey() + " is inside Aeron's reserved 0..999");
        }
        for (final int aeronId : aeronIds)
        {
            assertTrue(aeronId < 1000, "Aeron has a type id past 999, check the ranges: " + aeronId);
        }
    }

    @Test
    void releasedIdsDoNotMove()
    {
        // The fanout's ids and the first ids of the SDK and the simulator predate the registry.
        assertEquals(3000, MdfanoutCounters.FANOUT_DUTY_CYCLE_ERRORS_TYPE_ID);
        assertEquals(3042, MdfanoutCounters.FANOUT_SOURCE_DOWN_EVENTS_TYPE_ID);
        assertEquals(7001_100, MdfanoutCounters.SUBSCRIBER_PACKETS_TYPE_ID);
        assertEquals(7001_200, MdfanoutCounters.BOOK_ORDER_EVENTS_APPLIED_TYPE_ID);
        assertEquals(7101, MdfanoutCounters.SIMULATOR_TYPE_ID);
    }
}
