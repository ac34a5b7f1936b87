package io.mdfanout.archive;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ChainCoverageTest
{
    private final List<String> holes = new ArrayList<>();
    private final ChainCoverage.HoleHandler handler = (after, through) -> holes.add(after + ".." + through);

    @Test
    void oneSideDeadWhileTheOtherRecordsIsNoHoleOfThePair()
    {
        final ChainCoverage coverage = new ChainCoverage(2);
        coverage.onPacket(0, 0, 10);
        coverage.onPacket(1, 0, 10);
        coverage.onPacket(1, 10, 20); // side A is down from here
        coverage.onPacket(1, 20, 30);
        coverage.onPacket(0, 25, 40); // side A back, its new publication from chain 25
        coverage.onPacket(1, 30, 40);

        assertEquals(0, coverage.confirm(handler));
        assertEquals(List.of(), holes);
        assertEquals(0, coverage.finish(handler));
    }

    @Test
    void bothSidesLackingTheSameSpanIsOneHoleReportedOnce()
    {
        final ChainCoverage coverage = new ChainCoverage(2);
        coverage.onPacket(0, 0, 10);
        coverage.onPacket(1, 0, 10);
        coverage.onPacket(0, 15, 20); // A lacks (10, 15]
        coverage.onPacket(1, 12, 20); // B lacks (10, 12]: the pair lacks (10, 12]

        assertEquals(1, coverage.confirm(handler));
        assertEquals(0, coverage.confirm(handler));
        coverage.onPacket(0, 20, 30);
        coverage.onPacket(1, 20, 30);
        assertEquals(0, coverage.confirm(handler));
        assertEquals(List.of("10..12"), holes);
    }

    @Test
    void aHoleIsConfirmedOnlyOnceEverySideRecordedPastIt()
    {
        final ChainCoverage coverage = new ChainCoverage(2);
        coverage.onPacket(0, 0, 10);
        coverage.onPacket(1, 0, 10);
        coverage.onPacket(0, 50, 60); // A lacks (10, 50]; B has not got there yet

        assertEquals(0, coverage.confirm(handler));
        coverage.onPacket(1, 10, 30);
        coverage.onPacket(1, 40, 60); // B lacks (30, 40]

        assertEquals(1, coverage.confirm(handler));
        assertEquals(List.of("30..40"), holes);
    }

    @Test
    void aSideThatRecordsASpanLateFillsItsHole()
    {
        final ChainCoverage coverage = new ChainCoverage(2);
        coverage.onPacket(0, 0, 10);
        coverage.onPacket(1, 0, 10);
        coverage.onPacket(0, 30, 40); // A lacks (10, 30]
        coverage.onPacket(0, 10, 20); // ... then records (10, 20] late: it lacks (20, 30]
        coverage.onPacket(1, 25, 40); // B lacks (10, 25]

        assertEquals(1, coverage.confirm(handler));
        assertEquals(List.of("20..25"), holes);
    }

    @Test
    void aSideThatNeverComesBackLacksEverythingAfterItsEndWhenTheSessionFinishes()
    {
        final ChainCoverage coverage = new ChainCoverage(2);
        coverage.onPacket(0, 0, 10);
        coverage.onPacket(1, 0, 10);
        coverage.onPacket(1, 10, 20); // A gone for good
        coverage.onPacket(1, 30, 40); // B lacks (20, 30]

        assertEquals(0, coverage.confirm(handler));
        assertEquals(1, coverage.finish(handler));
        assertEquals(List.of("20..30"), holes);
        assertEquals(0, coverage.finish(handler));
    }

    @Test
    void anArchiveThatStartedLateLacksTheSessionsStartOnEverySide()
    {
        final ChainCoverage coverage = new ChainCoverage(2);
        coverage.onPacket(0, 100, 110);
        coverage.onPacket(1, 105, 110);

        assertEquals(1, coverage.confirm(handler));
        assertEquals(List.of("0..100"), holes);
    }

    @Test
    void packetsThatSayNothingOfTheChainCoverNothing()
    {
        final ChainCoverage coverage = new ChainCoverage(1);
        coverage.onPacket(0, 0, 10);
        coverage.onPacket(0, -1, 20); // the publication cannot say where it stands
        coverage.onPacket(0, 10, 10); // only exchange-snapshot state (sequence 0)
        assertEquals(10, coverage.end(0));
        coverage.onPacket(0, 12, 20);

        assertEquals(1, coverage.confirm(handler));
        assertEquals(List.of("10..12"), holes);
    }
}
