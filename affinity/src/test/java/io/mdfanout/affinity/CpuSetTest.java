package io.mdfanout.affinity;

import org.junit.jupiter.api.Test;

import java.util.BitSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Linux CPU list format, both ways, and the set operations the planner uses. */
final class CpuSetTest
{
    @Test
    void parsesIdsAndRangesInAnyOrderMergingOverlaps()
    {
        assertArrayEquals(new int[] {2, 3, 5, 6, 7}, CpuSet.parse("2,3,5-7").toArray());
        assertArrayEquals(new int[] {0, 1, 2, 3, 8}, CpuSet.parse(" 8, 0-2 ,1-3").toArray());
        assertArrayEquals(new int[] {5}, CpuSet.parse("5-5").toArray());
        assertEquals(CpuSet.of(1023), CpuSet.parse("1023"));
    }

    @Test
    void printsTheKernelListFormatWithRanges()
    {
        assertEquals("0-3,8,10-11", CpuSet.of(11, 0, 1, 2, 3, 8, 10).toString());
        assertEquals("1", CpuSet.of(1).toString());
        assertEquals("1,3,5", CpuSet.of(5, 3, 1).toString());
        assertEquals("", CpuSet.empty().toString());
        assertEquals("0-15", CpuSet.parse("0-15").toString());
    }

    @Test
    void rejectsWhatIsNotACpuListWithTheItemNamed()
    {
        for (final String bad : new String[] {"", " ", "a", "1,", ",1", "1-", "-1", "3-1", "1;2", "1024", "0x1",
            "99999999999", "1--2"})
        {
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> CpuSet.parse(bad),
                bad);
            assertFalse(ex.getMessage().contains("\n"), ex.getMessage());
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CpuSet.parse("3-1")).getMessage()
            .contains("'3-1'"));
        assertThrows(IllegalArgumentException.class, () -> CpuSet.of(-1));
        assertThrows(IllegalArgumentException.class, () -> CpuSet.of(CpuSet.MAX_CPU + 1));
    }

    @Test
    void setOperations()
    {
        final CpuSet set = CpuSet.parse("0-3,8");
        assertTrue(set.contains(8));
        assertFalse(set.contains(4));
        assertTrue(set.containsAll(CpuSet.parse("1,8")));
        assertFalse(set.containsAll(CpuSet.parse("1,9")));
        assertEquals(CpuSet.parse("0,3,8"), set.minus(CpuSet.parse("1-2,9")));
        assertEquals(5, set.size());
        assertEquals(8, set.cpu(4));

        final BitSet bits = new BitSet();
        bits.set(64);
        bits.set(2);
        assertEquals("2,64", CpuSet.fromBits(bits).toString());
        assertEquals(bits, CpuSet.fromBits(bits).toBits());
    }
}
