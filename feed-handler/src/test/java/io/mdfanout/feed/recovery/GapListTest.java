package io.mdfanout.feed.recovery;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Gaps shrink, split and close as missing messages arrive; the requests' reach and the progress follow the parts. */
class GapListTest
{
    private final GapList gaps = new GapList(4);

    @Test
    void shrinkSplitAndClose()
    {
        gaps.add(10, 19, 5);
        gaps.add(30, 30, 6);
        assertEquals(0, gaps.indexOf(15));
        assertEquals(1, gaps.indexOf(30));
        assertEquals(-1, gaps.indexOf(20));
        assertEquals(-1, gaps.indexOf(9));
        assertEquals(9, gaps.requestedThrough(0), "nothing requested: below the first sequence");

        gaps.requestedThrough(0, 16, 100);
        assertTrue(gaps.isRequested(0));
        assertEquals(100, gaps.progressNs(0), "the first request starts the silence clock");
        assertEquals(GapList.SHRUNK, gaps.fill(0, 10, 110));
        assertEquals(GapList.SHRUNK, gaps.fill(0, 19, 120));
        assertEquals(120, gaps.progressNs(0));
        assertEquals(GapList.SPLIT, gaps.fill(0, 14, 130));
        assertEquals(3, gaps.count());
        assertEquals(11, gaps.first(0));
        assertEquals(13, gaps.last(0));
        assertEquals(15, gaps.first(1));
        assertEquals(18, gaps.last(1));
        assertEquals(5, gaps.detectedNs(1), "a part keeps the detection time");
        assertEquals(130, gaps.progressNs(1));
        assertTrue(gaps.isRequested(1));
        assertEquals(16, gaps.requestedThrough(1), "the part keeps the requests' reach");
        assertEquals(30, gaps.first(2));

        for (long s = 15; s < 18; s++)
        {
            assertEquals(GapList.SHRUNK, gaps.fill(1, s, 140));
        }
        assertEquals(GapList.PART_CLOSED, gaps.fill(1, 18, 150), "the part of 11..13 is still open");
        assertEquals(GapList.SHRUNK, gaps.fill(0, 11, 160));
        assertEquals(GapList.SHRUNK, gaps.fill(0, 12, 160));
        assertEquals(GapList.CLOSED, gaps.fill(0, 13, 160));
        assertEquals(1, gaps.count());
        assertEquals(GapList.CLOSED, gaps.fill(0, 30, 170));
        assertEquals(0, gaps.count());
    }

    @Test
    void rerequestStartsAgainAtTheFirstMissingSequence()
    {
        gaps.add(4, 100_003, 0);
        gaps.requestedThrough(0, 4 + RetransmitRequestEncoder.MAX_COUNT - 1, 10);
        for (long s = 4; s < 40; s++)
        {
            gaps.fill(0, s, 20);
        }
        gaps.rerequest(0);
        assertEquals(39, gaps.requestedThrough(0));
        assertTrue(gaps.isRequested(0), "still requested once: the silence clock runs on");
        assertEquals(20, gaps.progressNs(0));
    }

    @Test
    void declaredGapsAreSkippedWhenLookingForWhatIsMissing()
    {
        gaps.add(1, 2, 0);
        gaps.add(5, 5, 1);
        gaps.add(7, 8, 1);
        gaps.declare(0);
        assertTrue(gaps.isDeclared(0));
        assertEquals(1, gaps.indexOfUndeclaredFrom(1));
        assertEquals(2, gaps.indexOfUndeclaredFrom(6));
        assertEquals(2, gaps.indexOfUndeclaredFrom(8));
        assertEquals(-1, gaps.indexOfUndeclaredFrom(9));
        gaps.add(9, 9, 1);
        assertTrue(gaps.isFull());
        assertFalse(gaps.isDeclared(3));
    }
}
