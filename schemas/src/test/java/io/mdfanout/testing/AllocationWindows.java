package io.mdfanout.testing;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Steady-state allocation checks shared by the modules' tests: a window of work, run on the calling
 * thread after the test's own warm-up, repeated up to a few times, must allocate nothing at least
 * once.
 * <p>
 * Why not a single window: the JIT can allocate on the thread it compiles for, once, at a moment
 * that depends on how loaded the machine is. Before a C2 compile HotSpot resolves every String
 * constant of the method's class on the thread whose call made the method hot
 * ({@code CompileBroker::compile_method} then {@code resolve_string_constants}). JFR caught 4
 * interned Strings, 288 B, inside {@code AddOrderAttributedDecoder.wrap} on CI. A deoptimization
 * also allocates the objects that escape analysis had removed. Each of these happens once, so it
 * cannot recur in the next window. Code that allocates per message, per packet or per round does
 * the same work again in every window, so it allocates in every window and still fails.
 */
public final class AllocationWindows
{
    /** Windows a test gets unless it says otherwise. */
    public static final int WINDOWS = 3;

    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();

    /** One window of work, done the same way each time it is called. */
    @FunctionalInterface
    public interface Window
    {
        void run() throws Exception;
    }

    /** A window that measures itself, for work with an unmeasured set-up of its own. */
    @FunctionalInterface
    public interface MeasuredWindow
    {
        /** Run the window and return the bytes its measured part allocated on the calling thread. */
        long allocatedBytes() throws Exception;
    }

    private AllocationWindows()
    {
    }

    /** Bytes allocated so far by the calling thread. */
    public static long allocatedBytes()
    {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    /** Bytes the calling thread allocates running the window once. */
    public static long allocatedBy(final Window window) throws Exception
    {
        allocatedBytes(); // the first call can allocate (class initialisation); keep it out of the figure
        final long before = allocatedBytes();
        window.run();
        return allocatedBytes() - before;
    }

    /**
     * Run the window up to {@code windows} times, stop at the first that allocates nothing, and fail
     * with every window's figure when none does.
     *
     * @param what    what the window does, for the failure message.
     * @param windows the most windows to run (at least 1).
     * @param window  the work; it must do the same kind of work each time.
     * @return the windows that were run.
     */
    public static int assertOneWindowAllocatesNothing(final String what, final int windows, final Window window)
        throws Exception
    {
        return assertOneMeasuredWindowAllocatesNothing(what, windows, () -> allocatedBy(window));
    }

    /**
     * As {@link #assertOneWindowAllocatesNothing}, for windows that measure themselves.
     *
     * @return the windows that were run.
     */
    public static int assertOneMeasuredWindowAllocatesNothing(
        final String what, final int windows, final MeasuredWindow window) throws Exception
    {
        final long[] allocated = new long[windows];
        for (int i = 0; i < windows; i++)
        {
            allocated[i] = window.allocatedBytes();
            if (allocated[i] == 0)
            {
                return i + 1;
            }
        }
        final StringBuilder figures = new StringBuilder();
        for (int i = 0; i < windows; i++)
        {
            figures.append(i == 0 ? "" : ", ").append(allocated[i]).append(" B");
        }
        fail("bytes allocated " + what + ", in each of " + windows + " windows: " + figures);
        return windows;
    }
}
