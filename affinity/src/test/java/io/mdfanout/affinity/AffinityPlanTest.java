package io.mdfanout.affinity;

import org.junit.jupiter.api.Test;

import java.io.PrintStream;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The thread-to-CPU plan over given allowed sets: no OS involved. */
final class AffinityPlanTest
{
    private static final PrintStream LOG = System.err;
    /** The online CPUs of the machine the allowed sets below are carved from (a 64-CPU node). */
    private static final CpuSet NODE = CpuSet.parse("0-63");
    private static final List<String> ONE = List.of("feed-receive");
    private static final List<String> FANOUT = List.of("fanout-publisher", "driver-shared");
    private static final List<String> DEDICATED = List.of(
        "fanout-publisher-0", "fanout-publisher-1", "fanout-publisher-2", "fanout-publisher-3",
        "driver-conductor", "driver-sender", "driver-receiver");

    private static AffinityPlan plan(final String cpus, final List<String> threads, final String allowed)
    {
        return AffinityPlan.plan("test", CpuSelection.parse(cpus), threads, CpuSet.parse(allowed), NODE, null, LOG);
    }

    private static String explicitError(final String cpus, final List<String> threads, final String allowed)
    {
        return assertThrows(IllegalArgumentException.class, () -> plan(cpus, threads, allowed)).getMessage();
    }

    @Test
    void autoOnOneCpuPinsTheOneBusyThreadAndBacksOff()
    {
        // A container given one whole CPU for the feed handler's one busy thread: pin it there, the JVM shares it.
        final AffinityPlan plan = plan("auto", ONE, "1");
        assertTrue(plan.isPinned());
        assertFalse(plan.fellBackToShared());
        assertTrue(plan.sharesCpusWithJvm());
        assertTrue(plan.mustBackOff());
        assertEquals(1, plan.cpuOf("feed-receive"));
        assertEquals(CpuSet.empty(), plan.unpinnedCpus());
        assertEquals("test: cpu pinning: feed-receive->1; JVM and OS on the same CPUs (no CPU to spare: the busy " +
            "threads back off when idle) (allowed 1, --cpus auto)", plan.startupLine());
    }

    @Test
    void autoOnTooFewCpusFallsBackWithTheReason()
    {
        final AffinityPlan plan = plan("auto", FANOUT, "0");
        assertFalse(plan.isPinned());
        assertTrue(plan.fellBackToShared());
        assertTrue(plan.mustBackOff());
        assertEquals(-1, plan.cpuOf("fanout-publisher"));
        assertEquals("1 CPU allowed (0) but 2 busy threads (fanout-publisher, driver-shared) need 2 (one each)",
            plan.fallbackReason());
        assertEquals("test: cpu pinning off: " + plan.fallbackReason() +
            "; running shared threads with backoff idle strategies, unpinned (--cpus auto)", plan.startupLine());
    }

    @Test
    void autoOnTwoCpusPinsOneThreadWithASpareAndTwoWithout()
    {
        final AffinityPlan one = plan("auto", ONE, "0-1");
        assertTrue(one.isPinned());
        assertFalse(one.fellBackToShared());
        assertFalse(one.mustBackOff());
        assertEquals(1, one.cpuOf("feed-receive"));
        assertEquals(CpuSet.of(0), one.unpinnedCpus());
        assertEquals("test: cpu pinning: feed-receive->1; JVM and OS on 0 (allowed 0-1, --cpus auto)", one.startupLine());

        final AffinityPlan two = plan("auto", FANOUT, "0-1");
        assertTrue(two.isPinned());
        assertFalse(two.fellBackToShared());
        assertTrue(two.mustBackOff());
        assertEquals(0, two.cpuOf("fanout-publisher"));
        assertEquals(1, two.cpuOf("driver-shared"));
        assertEquals(CpuSet.empty(), two.unpinnedCpus());
    }

    @Test
    void autoOnFourCpusLeavesTheFirstToTheJvm()
    {
        final AffinityPlan plan = plan("auto", FANOUT, "0-3");
        assertEquals(1, plan.cpuOf("fanout-publisher"));
        assertEquals(2, plan.cpuOf("driver-shared"));
        assertEquals(CpuSet.parse("0,3"), plan.unpinnedCpus());
        assertEquals("test: cpu pinning: fanout-publisher->1 driver-shared->2; JVM and OS on 0,3 " +
            "(allowed 0-3, --cpus auto)", plan.startupLine());
        assertTrue(plan("auto", DEDICATED, "0-3").fellBackToShared());
    }

    @Test
    void autoOnSixteenCpusPinsDedicatedThreadsInOrder()
    {
        final AffinityPlan plan = plan("auto", DEDICATED, "0-15");
        assertTrue(plan.isPinned());
        for (int i = 0; i < DEDICATED.size(); i++)
        {
            assertEquals(i + 1, plan.cpuOf(DEDICATED.get(i)));
        }
        assertEquals(CpuSet.parse("0,8-15"), plan.unpinnedCpus());
    }

    @Test
    void autoUsesTheAllowedSetWithItsGaps()
    {
        // What a static CPU manager hands a Guaranteed pod: not necessarily contiguous, not from 0.
        final AffinityPlan plan = plan("auto", FANOUT, "4,6,9-10");
        assertEquals(6, plan.cpuOf("fanout-publisher"));
        assertEquals(9, plan.cpuOf("driver-shared"));
        assertEquals(CpuSet.parse("4,10"), plan.unpinnedCpus());

        final AffinityPlan exact = plan("auto", FANOUT, "3,7,12");
        assertEquals(7, exact.cpuOf("fanout-publisher"));
        assertEquals(12, exact.cpuOf("driver-shared"));
        assertEquals(CpuSet.of(3), exact.unpinnedCpus());

        assertTrue(plan("auto", FANOUT, "40").fellBackToShared());
    }

    @Test
    void autoFallsBackWhereAffinityCannotBeSet()
    {
        final AffinityPlan plan = AffinityPlan.plan(
            "test", CpuSelection.AUTO, ONE, CpuSet.parse("0-15"), NODE, "not on Linux", LOG);
        assertTrue(plan.fellBackToShared());
        assertEquals("not on Linux", plan.fallbackReason());

        final AffinityPlan unknown = AffinityPlan.plan("test", CpuSelection.AUTO, ONE, null, NODE, null, LOG);
        assertTrue(unknown.fellBackToShared());
        assertEquals("the allowed CPU set cannot be read", unknown.fallbackReason());
    }

    @Test
    void autoDoesNotPinOnCpusThatAreEveryOnlineCpu()
    {
        // No static CPU manager (or a laptop): every process sees every CPU and would pick the same ones.
        final CpuSet machine = CpuSet.parse("0-15");
        final AffinityPlan plan = AffinityPlan.plan("test", CpuSelection.AUTO, FANOUT, machine, machine, null, LOG);
        assertFalse(plan.isPinned());
        assertFalse(plan.fellBackToShared(), "runs as configured: there are CPUs enough");
        assertEquals("test: cpu pinning off: the allowed set 0-15 is every online CPU, not CPUs of this process's own " +
            "(static CPU manager, cpuset or taskset), so other processes would pin to the same ones; " +
            "fanout-publisher, driver-shared run unpinned as configured; name CPUs with --cpus to pin anyway " +
            "(--cpus auto)", plan.startupLine());

        final CpuSet twoCpuMachine = CpuSet.parse("0-1");
        assertFalse(AffinityPlan.plan("test", CpuSelection.AUTO, ONE, twoCpuMachine, twoCpuMachine, null, LOG)
            .isPinned(), "this 2-CPU machine: the feed handler is not pinned by auto");
        assertTrue(AffinityPlan.plan("test", CpuSelection.AUTO, FANOUT, twoCpuMachine, twoCpuMachine, null, LOG)
            .fellBackToShared(), "too few CPUs wins: shared backoff threads");
        assertEquals(1, AffinityPlan.plan("test", CpuSelection.parse("1"), ONE, twoCpuMachine, twoCpuMachine, null, LOG)
            .cpuOf("feed-receive"), "an explicit list pins anyway");
        assertEquals(1, AffinityPlan.plan("test", CpuSelection.AUTO, ONE, twoCpuMachine, null, null, LOG)
            .cpuOf("feed-receive"), "online CPUs unknown: the allowed set counts as exclusive");
    }

    @Test
    void explicitListPinsInAscendingOrderWithoutASpareCpu()
    {
        final AffinityPlan plan = plan("5,3", FANOUT, "0-7");
        assertEquals(3, plan.cpuOf("fanout-publisher"));
        assertEquals(5, plan.cpuOf("driver-shared"));
        assertEquals(CpuSet.parse("0-2,4,6-7"), plan.unpinnedCpus());

        final AffinityPlan one = plan("1", ONE, "0-1");
        assertEquals(1, one.cpuOf("feed-receive"));
        assertEquals("test: cpu pinning: feed-receive->1; JVM and OS on 0 (allowed 0-1, --cpus 1)", one.startupLine());

        final AffinityPlan all = plan("0-1", FANOUT, "0-1");
        assertEquals(0, all.cpuOf("fanout-publisher"));
        assertEquals(1, all.cpuOf("driver-shared"));
        assertTrue(all.startupLine().contains("JVM and OS on the same CPUs (no CPU to spare) "), all.startupLine());
        assertFalse(all.mustBackOff(), "an explicit list runs as configured");

        assertEquals(2, plan("2-9", ONE, "0-15").cpuOf("feed-receive"), "extra CPUs stay unused");
    }

    @Test
    void explicitListThatCannotBeHonouredIsAnError()
    {
        assertEquals("--cpus 1: 1 CPU for 2 busy threads (fanout-publisher, driver-shared): name at least 2, " +
            "or use auto or none", explicitError("1", FANOUT, "0-1"));
        assertEquals("--cpus 1-3: CPUs 2-3 are not in this process's allowed set 0-1 (its cpuset or taskset)",
            explicitError("1-3", ONE, "0-1"));
        assertEquals("--cpus 1,7: CPU 7 is not in this process's allowed set 0-1 (its cpuset or taskset)",
            explicitError("1,7", ONE, "0-1"));
        final IllegalArgumentException unavailable = assertThrows(IllegalArgumentException.class,
            () -> AffinityPlan.plan("test", CpuSelection.parse("1"), ONE, CpuSet.parse("0-1"), NODE, "not on Linux", LOG));
        assertEquals("--cpus 1: cannot pin threads here: not on Linux", unavailable.getMessage());
    }

    @Test
    void noneNeverPinsNorForcesShared()
    {
        final AffinityPlan plan = plan("none", DEDICATED, "0-15");
        assertFalse(plan.isPinned());
        assertFalse(plan.fellBackToShared());
        assertEquals(-1, plan.cpuOf("driver-sender"));
        assertEquals("test: cpu pinning off (--cpus none): " + String.join(", ", DEDICATED) +
            " run unpinned as configured on the allowed CPUs 0-15", plan.startupLine());
        assertFalse(plan("none", ONE, "0").fellBackToShared());
    }

    @Test
    void unpinnedThreadsGetAPlainFactoryAndPinnedOnesAPinningFactory()
    {
        assertFalse(plan("auto", FANOUT, "0").threadFactory("driver-shared") instanceof PinningThreadFactory);
        assertEquals(2, ((PinningThreadFactory)plan("auto", FANOUT, "0-3").threadFactory("driver-shared")).cpu());
        assertThrows(IllegalArgumentException.class, () -> plan("auto", FANOUT, "0-3").threadFactory("other"));
    }

    @Test
    void parsesTheCpusOption()
    {
        assertSame(CpuSelection.AUTO, CpuSelection.parse(" Auto "));
        assertSame(CpuSelection.NONE, CpuSelection.parse("none"));
        assertEquals(CpuSet.parse("2-3,5"), CpuSelection.parse("2,3,5").explicitCpus());
        assertEquals("2-3,5", CpuSelection.parse("2,3,5").toString());
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> CpuSelection.parse("all"));
        assertTrue(ex.getMessage().startsWith("invalid --cpus 'all': expected auto, none or a CPU list"),
            ex.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CpuSelection.parse(""));
        assertThrows(IllegalArgumentException.class, () -> plan("auto", List.of("a", "a"), "0-3"));
        assertThrows(IllegalArgumentException.class, () -> plan("auto", List.of(), "0-3"));
    }
}
