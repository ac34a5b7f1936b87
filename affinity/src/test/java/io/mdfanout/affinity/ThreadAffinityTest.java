package io.mdfanout.affinity;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pins real threads and reads their affinity back from the kernel through
 * {@code /proc/self/task/<tid>/status}, not through the code under test. Each test pins a thread of
 * its own, never the test runner's.
 */
final class ThreadAffinityTest
{
    private static CpuSet allowed;

    @BeforeAll
    static void processMayRunOnSeveralCpus()
    {
        assertTrue(ThreadAffinity.isAvailable(), ThreadAffinity.unavailableReason());
        allowed = ThreadAffinity.procAllowedCpus(Path.of("/proc/self/status"));
        assertNotNull(allowed, "Cpus_allowed_list in /proc/self/status");
    }

    /** What the kernel says the thread may run on. */
    private static CpuSet kernelView(final long tid)
    {
        final CpuSet cpus = ThreadAffinity.procAllowedCpus(Path.of("/proc/self/task/" + tid + "/status"));
        assertNotNull(cpus, "status of thread " + tid);
        return cpus;
    }

    /** Run the body on a fresh thread and return what it returned (or rethrow what it threw). */
    private static <T> T onNewThread(final java.util.concurrent.Callable<T> body) throws Exception
    {
        final CompletableFuture<T> result = new CompletableFuture<>();
        final Thread thread = new Thread(() ->
        {
            try
            {
                result.complete(body.call());
            }
            catch (final Throwable ex)
            {
                result.completeExceptionally(ex);
            }
        }, "affinity-test");
        thread.start();
        try
        {
            return result.get(10, TimeUnit.SECONDS);
        }
        catch (final java.util.concurrent.ExecutionException ex)
        {
            throw ex.getCause() instanceof Exception ? (Exception)ex.getCause() : ex;
        }
        finally
        {
            thread.join(10_000);
        }
    }

    @Test
    void readsTheProcessAllowedSetAsTheKernelReportsIt()
    {
        assertEquals(allowed, ThreadAffinity.processAllowedCpus());
        assertEquals(Runtime.getRuntime().availableProcessors(), allowed.size(), "the JVM sees the same CPUs");
        final CpuSet online = ThreadAffinity.onlineCpus();
        assertNotNull(online, "/sys/devices/system/cpu/online");
        assertTrue(online.containsAll(allowed), online + " holds " + allowed);
    }

    @Test
    void threadIdIsTheKernelsTaskId() throws Exception
    {
        final long tid = onNewThread(() ->
        {
            final long id = ThreadAffinity.currentThreadId();
            // The task directory of the thread exists and names it: Java set the native name at start.
            assertEquals("affinity-test", Files.readString(Path.of("/proc/self/task/" + id + "/comm")).trim());
            return id;
        });
        assertTrue(tid > 0);
        assertTrue(tid != ProcessHandle.current().pid(), "not the main thread's id");
    }

    @Test
    void pinsAThreadToEachOfTwoCpusAndTheKernelAgrees() throws Exception
    {
        // On this 2-CPU machine: CPU 1, then CPU 0; on a bigger one the last and the first allowed CPU.
        final int last = allowed.cpu(allowed.size() - 1);
        final int first = allowed.cpu(0);
        final List<CpuSet> seen = onNewThread(() ->
        {
            final long tid = ThreadAffinity.currentThreadId();
            final CpuSet before = kernelView(tid);
            ThreadAffinity.pinCurrentThread(last);
            final CpuSet pinnedLast = kernelView(tid);
            final CpuSet viaSyscall = ThreadAffinity.currentThreadCpus();
            ThreadAffinity.pinCurrentThread(first);
            return List.of(before, pinnedLast, viaSyscall, kernelView(tid));
        });
        assertEquals(allowed, seen.get(0), "a new thread inherits the process set");
        assertEquals(CpuSet.of(last), seen.get(1));
        assertEquals(CpuSet.of(last), seen.get(2));
        assertEquals(CpuSet.of(first), seen.get(3));
        assertEquals(allowed, kernelView(ThreadAffinity.currentThreadId()), "the test thread itself is untouched");
    }

    @Test
    void refusesACpuOutsideTheAllowedSetAndLeavesTheThreadAsItWas() throws Exception
    {
        final int outside = CpuSet.MAX_CPU; // no test machine has 1024 CPUs
        final List<Object> outcome = onNewThread(() ->
        {
            final IllegalStateException ex = assertThrows(IllegalStateException.class,
                () -> ThreadAffinity.pinCurrentThread(outside));
            return List.of(ex.getMessage(), kernelView(ThreadAffinity.currentThreadId()));
        });
        assertTrue(((String)outcome.get(0)).contains("errno 22"), (String)outcome.get(0)); // EINVAL
        assertEquals(allowed, outcome.get(1));
    }

    @Test
    void pinningThreadFactoryPinsBeforeTheTaskRunsAndReportsIt() throws Exception
    {
        final int cpu = allowed.cpu(allowed.size() - 1);
        final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
        final PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);
        final AtomicReference<CpuSet> seenByTask = new AtomicReference<>();
        final AtomicReference<Long> tid = new AtomicReference<>();
        final Thread thread = new PinningThreadFactory("test", "busy-thread", cpu, log).newThread(() ->
        {
            tid.set(ThreadAffinity.currentThreadId());
            seenByTask.set(kernelView(tid.get()));
        });
        thread.start();
        thread.join(10_000);
        assertEquals(CpuSet.of(cpu), seenByTask.get());
        assertEquals("test: pinned busy-thread (tid " + tid.get() + ") to CPU " + cpu + System.lineSeparator(),
            logBytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aRefusedPinIsReportedAndTheTaskStillRuns() throws Exception
    {
        final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
        final PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);
        final AtomicReference<CpuSet> seenByTask = new AtomicReference<>();
        final Thread thread = new PinningThreadFactory("test", "busy-thread", CpuSet.MAX_CPU, log).newThread(() ->
            seenByTask.set(kernelView(ThreadAffinity.currentThreadId())));
        thread.start();
        thread.join(10_000);
        assertEquals(allowed, seenByTask.get());
        final String line = logBytes.toString(StandardCharsets.UTF_8);
        assertTrue(line.startsWith("test: could not pin busy-thread (tid ") && line.contains("; it runs unpinned"), line);
    }

    @Test
    void planForThisProcessPinsWhatItPlanned() throws Exception
    {
        final AffinityPlan plan = AffinityPlan.forThisProcess(
            "test", CpuSelection.explicit(CpuSet.of(allowed.cpu(0))), List.of("busy"), System.err);
        final AtomicReference<CpuSet> seen = new AtomicReference<>();
        final Thread thread = plan.threadFactory("busy").newThread(() ->
            seen.set(kernelView(ThreadAffinity.currentThreadId())));
        thread.start();
        thread.join(10_000);
        assertEquals(CpuSet.of(allowed.cpu(0)), seen.get());
        assertEquals(allowed, plan.allowedCpus());
    }
}
