package io.mdfanout.affinity;

import java.io.PrintStream;
import java.util.concurrent.ThreadFactory;

/**
 * Creates threads that pin themselves to one CPU as the first thing they do, before running their
 * task, so everything the task allocates and touches is local to that CPU from the start. Each
 * thread reports the outcome in one line: {@code fanout: pinned driver-shared (tid 4242) to CPU 2}.
 * A refused pin (the CPU left the cpuset, ...) is reported and the thread runs unpinned: a wrong
 * CPU never stops the role.
 * <p>
 * Agrona's {@code AgentRunner.startOnThread(runner, factory)} and the media driver's
 * {@code *ThreadFactory} settings take this factory; they name the thread after the agent.
 */
public final class PinningThreadFactory implements ThreadFactory
{
    private final String role;
    private final String threadName;
    private final int cpu;
    private final PrintStream log;

    /**
     * @param role       name the report line begins with, e.g. {@code fanout}.
     * @param threadName the busy thread's name in the plan, e.g. {@code driver-shared}.
     * @param cpu        CPU to pin to.
     * @param log        where the one report line goes (stderr in the roles).
     */
    public PinningThreadFactory(final String role, final String threadName, final int cpu, final PrintStream log)
    {
        this.role = role;
        this.threadName = threadName;
        this.cpu = cpu;
        this.log = log;
    }

    /** @return the CPU the threads pin themselves to. */
    public int cpu()
    {
        return cpu;
    }

    /** {@inheritDoc} */
    public Thread newThread(final Runnable task)
    {
        return new Thread(() ->
        {
            pinCurrentThread();
            task.run();
        }, threadName);
    }

    private void pinCurrentThread()
    {
        final long tid = ThreadAffinity.currentThreadId();
        try
        {
            ThreadAffinity.pinCurrentThread(cpu);
            log.println(role + ": pinned " + threadName + " (tid " + tid + ") to CPU " + cpu);
        }
        catch (final RuntimeException ex)
        {
            log.println(role + ": could not pin " + threadName + " (tid " + tid + ") to CPU " + cpu + ": " +
                ex.getMessage() + "; it runs unpinned");
        }
    }
}
