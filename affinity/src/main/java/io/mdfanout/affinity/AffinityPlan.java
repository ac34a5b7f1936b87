package io.mdfanout.affinity;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.ThreadFactory;

/**
 * Which CPU each busy thread of a role runs on, decided once at start from the {@code --cpus}
 * selection, the role's busy threads and the CPUs the process may use (for a Guaranteed pod under
 * the kubelet's static CPU manager, its exclusive CPUs).
 * <ul>
 *     <li>{@code auto}: with at least busy threads + 1 allowed CPUs, the lowest allowed CPU is left
 *     to the JVM, the OS and the non-busy threads (metrics, stats, the Aeron client conductor) and
 *     the busy threads get the next ones in ascending order. With exactly one allowed CPU per busy
 *     thread, each busy thread still gets its own and the rest of the JVM shares them, so the busy
 *     threads back off when idle ({@link #mustBackOff()}). With fewer, or where affinity cannot
 *     be set, nothing is pinned and {@link #fellBackToShared()} tells the role to run shared threads
 *     with backing-off idle strategies, since spinning unpinned threads on too few CPUs would starve
 *     each other. When the allowed set is every online CPU of the machine, the CPUs are not the
 *     process's own (no static CPU manager, cpuset or taskset gave them): every role and every other
 *     pod would pick the same CPUs, so nothing is pinned and the role runs as configured.</li>
 *     <li>{@code none}: nothing is pinned; the role runs as configured.</li>
 *     <li>an explicit list: the busy threads get its CPUs in ascending order; every CPU must be in
 *     the allowed set and there must be one per busy thread, otherwise planning fails.</li>
 * </ul>
 * Each busy thread pins itself when it starts, through {@link #threadFactory(String)}.
 */
public final class AffinityPlan
{
    private static final ThreadFactory UNPINNED = Thread::new;

    private final String role;
    private final CpuSelection selection;
    private final List<String> threads;
    private final CpuSet allowedCpus;
    private final int[] threadCpus;
    private final String fallbackReason;
    private final String notExclusiveReason;
    private final PrintStream log;

    private AffinityPlan(
        final String role,
        final CpuSelection selection,
        final List<String> threads,
        final CpuSet allowedCpus,
        final int[] threadCpus,
        final String fallbackReason,
        final String notExclusiveReason,
        final PrintStream log)
    {
        this.role = role;
        this.selection = selection;
        this.threads = threads;
        this.allowedCpus = allowedCpus;
        this.threadCpus = threadCpus;
        this.fallbackReason = fallbackReason;
        this.notExclusiveReason = notExclusiveReason;
        this.log = log;
    }

    /**
     * Plan for this process: its allowed set from {@link ThreadAffinity#processAllowedCpus()}.
     *
     * @param role        name the start-up and pinning lines begin with, e.g. {@code fanout}.
     * @param selection   the {@code --cpus} value.
     * @param busyThreads names of the role's busy threads, distinct, in the order CPUs are handed out.
     * @param log         where the pinning threads report (one line each, at their start).
     * @return the plan.
     * @throws IllegalArgumentException when an explicit selection cannot be honoured, with a one-line reason.
     */
    public static AffinityPlan forThisProcess(
        final String role, final CpuSelection selection, final List<String> busyThreads, final PrintStream log)
    {
        return plan(role, selection, busyThreads, ThreadAffinity.processAllowedCpus(), ThreadAffinity.onlineCpus(),
            ThreadAffinity.unavailableReason(), log);
    }

    /**
     * Plan over a given allowed set.
     *
     * @param role              name the start-up and pinning lines begin with.
     * @param selection         the {@code --cpus} value.
     * @param busyThreads       names of the role's busy threads, distinct, in the order CPUs are handed out.
     * @param allowedCpus       CPUs the process may use; null when unknown.
     * @param onlineCpus        CPUs the machine has online; null when unknown (then the allowed set counts as
     *                          exclusive).
     * @param unavailableReason why threads cannot be pinned here, or null when they can.
     * @param log               where the pinning threads report.
     * @return the plan.
     * @throws IllegalArgumentException when an explicit selection cannot be honoured, with a one-line reason.
     */
    public static AffinityPlan plan(
        final String role,
        final CpuSelection selection,
        final List<String> busyThreads,
        final CpuSet allowedCpus,
        final CpuSet onlineCpus,
        final String unavailableReason,
        final PrintStream log)
    {
        final List<String> threads = List.copyOf(busyThreads);
        if (threads.isEmpty() || threads.stream().distinct().count() != threads.size())
        {
            throw new IllegalArgumentException("busy thread names must be distinct and at least one: " + threads);
        }
        final int threadCount = threads.size();

        if (selection.isNone())
        {
            return new AffinityPlan(role, selection, threads, allowedCpus, null, null, null, log);
        }

        final String cannotPin = null != unavailableReason ? unavailableReason :
            null == allowedCpus ? "the allowed CPU set cannot be read" : null;
        if (selection.isAuto())
        {
            if (null != cannotPin)
            {
                return new AffinityPlan(role, selection, threads, allowedCpus, null, cannotPin, null, log);
            }
            // CPUs of the process's own (static CPU manager, cpuset, taskset) can each take a busy thread even
            // when none is left over for the JVM; on CPUs every process shares, one must be left over.
            final boolean ownCpus = !allowedCpus.equals(onlineCpus);
            final int needed = ownCpus ? threadCount : threadCount + 1;
            if (allowedCpus.size() < needed)
            {
                return new AffinityPlan(role, selection, threads, allowedCpus, null,
                    plural(allowedCpus.size(), "CPU") + " allowed (" + allowedCpus + ") but " +
                    plural(threadCount, "busy thread") + " (" + String.join(", ", threads) + ") " +
                    (threadCount == 1 ? "needs " : "need ") + needed +
                    (ownCpus ? " (one each)" : " (one each and one for the JVM and OS)"), null, log);
            }
            if (!ownCpus)
            {
                return new AffinityPlan(role, selection, threads, allowedCpus, null, null,
                    "the allowed set " + allowedCpus + " is every online CPU, not CPUs of this process's own " +
                    "(static CPU manager, cpuset or taskset), so other processes would pin to the same ones", log);
            }
            // The lowest allowed CPU stays with the JVM and OS; with exactly one CPU per busy thread (a container
            // given whole CPUs for its busy threads alone) each still gets its own, and the rest share them.
            final int spare = allowedCpus.size() > threadCount ? 1 : 0;
            final int[] cpus = new int[threadCount];
            for (int i = 0; i < threadCount; i++)
            {
                cpus[i] = allowedCpus.cpu(i + spare);
            }
            return new AffinityPlan(role, selection, threads, allowedCpus, cpus, null, null, log);
        }

        final CpuSet wanted = selection.explicitCpus();
        if (null != cannotPin)
        {
            throw new IllegalArgumentException("--cpus " + wanted + ": cannot pin threads here: " + cannotPin);
        }
        if (!allowedCpus.containsAll(wanted))
        {
            final CpuSet notAllowed = wanted.minus(allowedCpus);
            throw new IllegalArgumentException("--cpus " + wanted + ": " + (notAllowed.size() == 1 ?
                "CPU " + notAllowed + " is" : "CPUs " + notAllowed + " are") + " not in this process's allowed set " +
                allowedCpus + " (its cpuset or taskset)");
        }
        if (wanted.size() < threadCount)
        {
            throw new IllegalArgumentException("--cpus " + wanted + ": " + plural(wanted.size(), "CPU") + " for " +
                plural(threadCount, "busy thread") + " (" + String.join(", ", threads) + "): name at least " +
                threadCount + ", or use auto or none");
        }
        final int[] cpus = new int[threadCount];
        for (int i = 0; i < threadCount; i++)
        {
            cpus[i] = wanted.cpu(i);
        }
        return new AffinityPlan(role, selection, threads, allowedCpus, cpus, null, null, log);
    }

    private static String plural(final int count, final String noun)
    {
        return count + " " + noun + (count == 1 ? "" : "s");
    }

    /** @return true when every busy thread gets a CPU of its own. */
    public boolean isPinned()
    {
        return null != threadCpus;
    }

    /**
     * @return true when every allowed CPU has a busy thread pinned to it, so the JVM's other threads, the OS and
     * the busy threads share them: the busy threads must back off when idle rather than spin.
     */
    public boolean sharesCpusWithJvm()
    {
        return isPinned() && unpinnedCpus().isEmpty();
    }

    /**
     * @return true when busy threads must back off when idle: pinning fell back ({@link #fellBackToShared()}) or
     * {@code auto} pinned them with no CPU to spare for the JVM ({@link #sharesCpusWithJvm()}). An explicit list
     * runs as configured: whoever named the CPUs chose.
     */
    public boolean mustBackOff()
    {
        return fellBackToShared() || (selection.isAuto() && sharesCpusWithJvm());
    }

    /**
     * @return true when {@code auto} found too few CPUs (or no way to pin): the role must run its busy work
     * on shared threads with backing-off idle strategies, whatever threading and idle strategy were configured.
     */
    public boolean fellBackToShared()
    {
        return null != fallbackReason;
    }

    /** @return why {@code auto} did not pin, or null when it pinned or was not asked to. */
    public String fallbackReason()
    {
        return fallbackReason;
    }

    /** @return the busy threads, in plan order. */
    public List<String> threads()
    {
        return threads;
    }

    /** @return the CPUs the process may use, or null when unknown. */
    public CpuSet allowedCpus()
    {
        return allowedCpus;
    }

    /**
     * @param thread one of {@link #threads()}.
     * @return its CPU, or -1 when it is not pinned.
     * @throws IllegalArgumentException for a thread not in the plan.
     */
    public int cpuOf(final String thread)
    {
        final int index = indexOf(thread);
        return isPinned() ? threadCpus[index] : -1;
    }

    /** @return the allowed CPUs no busy thread is pinned to (left to the JVM, the OS and the other threads). */
    public CpuSet unpinnedCpus()
    {
        if (null == allowedCpus)
        {
            return CpuSet.empty();
        }
        return isPinned() ? allowedCpus.minus(CpuSet.of(threadCpus)) : allowedCpus;
    }

    /**
     * The thread factory a busy thread is created with: its thread pins itself to the planned CPU before it
     * runs anything and reports it in one line; when the plan does not pin, a plain factory.
     *
     * @param thread one of {@link #threads()}.
     * @return the factory.
     * @throws IllegalArgumentException for a thread not in the plan.
     */
    public ThreadFactory threadFactory(final String thread)
    {
        final int cpu = cpuOf(thread);
        return cpu < 0 ? UNPINNED : new PinningThreadFactory(role, thread, cpu, log);
    }

    private int indexOf(final String thread)
    {
        final int index = threads.indexOf(thread);
        if (index < 0)
        {
            throw new IllegalArgumentException("'" + thread + "' is not a busy thread of " + role + ": " + threads);
        }
        return index;
    }

    /**
     * The line a role prints at start, e.g.
     * {@code fanout: cpu pinning: fanout-publisher->1 driver-shared->2; JVM and OS on 0,3 (allowed 0-3, --cpus auto)} or
     * {@code fanout: cpu pinning off: 2 CPUs allowed (0-1) but 2 busy threads (...) need 3 (...); running shared
     * threads with backoff idle strategies, unpinned (--cpus auto)}.
     *
     * @return the line, without a line separator.
     */
    public String startupLine()
    {
        final String allowed = null == allowedCpus ? "unknown" : allowedCpus.toString();
        if (isPinned())
        {
            final StringBuilder line = new StringBuilder(role).append(": cpu pinning:");
            for (int i = 0; i < threads.size(); i++)
            {
                line.append(' ').append(threads.get(i)).append("->").append(threadCpus[i]);
            }
            final CpuSet rest = unpinnedCpus();
            return line.append("; JVM and OS on ").append(rest.isEmpty() ?
                (mustBackOff() ? "the same CPUs (no CPU to spare: the busy threads back off when idle)" :
                "the same CPUs (no CPU to spare)") : rest.toString())
                .append(" (allowed ").append(allowed).append(", --cpus ").append(selection).append(')').toString();
        }
        if (null != notExclusiveReason)
        {
            return role + ": cpu pinning off: " + notExclusiveReason + "; " + String.join(", ", threads) +
                " run unpinned as configured; name CPUs with --cpus to pin anyway (--cpus " + selection + ")";
        }
        if (fellBackToShared())
        {
            return role + ": cpu pinning off: " + fallbackReason + "; running shared threads with backoff idle " +
                "strategies, unpinned (--cpus " + selection + ")";
        }
        return role + ": cpu pinning off (--cpus " + selection + "): " + String.join(", ", threads) +
            " run unpinned as configured on the allowed CPUs " + allowed;
    }

    /** {@inheritDoc} */
    public String toString()
    {
        return startupLine();
    }
}
