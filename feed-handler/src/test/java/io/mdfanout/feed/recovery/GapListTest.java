package io.mdfanout.feed.recovery;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Gaps shrink, split and close as missing messages arrive; requests follow the parts they cover. */
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

        gaps.requestSent(0, 19, 100, false);
        assertEquals(1, gaps.outstanding());
        assertEquals(GapList.SHRUNK, gaps.fill(0, 10));
        assertEquals(GapList.SHRUNK, gaps.fill(0, 19));
        assertEquals(18, gaps.requestLast(0));
        assertEquals(GapList.SPLIT, gaps.fill(0, 14));
        assertEquals(3, gaps.count());
        assertEquals(11, gaps.first(0));
        assertEquals(13, gaps.last(0));
        assertEquals(15, gaps.first(1));
        assertEquals(18, gaps.last(1));
        assertEquals(5, gaps.detectedNs(1), "a part keeps the detection time");
        assertEquals(2, gaps.outstanding(), "both parts wait for the same request");
        assertEquals(30, gaps.first(2));

        for (long s = 15; s < 18; s++)
        {
            assertEquals(GapList.SHRUNK, gaps.fill(1, s));
        }
        assertEquals(GapList.PART_CLOSED, gaps.fill(1, 18), "the part of 11..13 is still open");
        assertEquals(GapList.SHRUNK, gaps.fill(0, 11));
        assertEquals(GapList.SHRUNK, gaps.fill(0, 12));
        assertEquals(GapList.CLOSED, gaps.fill(0, 13));
        assertEquals(0, gaps.outstanding());
        assertEquals(1, gaps.count());
        assertEquals(GapList.CLOSED, gaps.fill(0, 30));
        assertEquals(0, gaps.count());
    }

    @Test
    void answeredChunkOfALongGapFreesTheRequestForTheNextChunk()
    {
        gaps.add(4, 100_003, 0);
        gaps.requestSent(0, 4 + RetransmitRequestEncoder.MAX_COUNT - 1, 10, false);
        for (long s = 4; s < 4 + RetransmitRequestEncoder.MAX_COUNT - 1; s++)
        {
            gaps.fill(0, s);
        }
        assertTrue(gaps.isRequested(0));
        gaps.fill(0, 4 + RetransmitRequestEncoder.MAX_COUNT - 1);
        assertFalse(gaps.isRequested(0));
        assertEquals(0, gaps.outstanding());
        assertEquals(4 + RetransmitRequestEncoder.MAX_COUNT, gaps.first(0));
    }

    @Test
    void declaredGapIsNoLongerOutstanding()
    {
        gaps.add(1, 2, 0);
        gaps.requestSent(0, 2, 0, false);
        gaps.requestSent(0, 2, 50, true);
        assertEquals(1, gaps.retries(0));
        gaps.declare(0);
        assertTrue(gaps.isDeclared(0));
        assertEquals(0, gaps.outstanding());
        gaps.add(5, 5, 1);
        gaps.add(7, 7, 1);
        gaps.add(9, 9, 1);
        assertTrue(gaps.isFull());
    }
}
