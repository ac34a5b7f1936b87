package io.mdfanout.bench;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The measured thread's own CPU time, beside JMH's wall-clock score: on a machine shared with other work, the time a
 * thread spends preempted counts in the wall clock but is no cost of the code measured. A benchmark adds
 * {@link #cpuNanos} (read around its work, at most a microsecond per read: for operations of milliseconds) and the
 * units of work it did ({@link #units}, e.g. messages or sessions); JMH reports both per iteration, and the report
 * divides one by the other. Events: totals per iteration, not rates.
 */
@AuxCounters(AuxCounters.Type.EVENTS)
@State(Scope.Thread)
public class ThreadCpu
{
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** CPU time of the measured thread in the benchmark's work, nanoseconds. */
    public long cpuNanos;
    /** Units of work done in that time. */
    public long units;

    /** Reset at each iteration. */
    @Setup(Level.Iteration)
    public void reset()
    {
        if (!THREADS.isCurrentThreadCpuTimeSupported())
        {
            throw new IllegalStateException("this JVM cannot measure a thread's CPU time");
        }
        cpuNanos = 0;
        units = 0;
    }

    /** @return the calling thread's CPU time so far, nanoseconds. */
    static long now()
    {
        return THREADS.getCurrentThreadCpuTime();
    }
}
