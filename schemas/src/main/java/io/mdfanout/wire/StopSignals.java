package io.mdfanout.wire;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * SIGTERM and SIGINT stop a role, which then exits with its own code (0 after a plain stop, docs/OPERATIONS.md
 * "Exit codes"), not the JVM's 128 + signal number.
 * <p>
 * The JVM's own handler of these signals starts the JVM's shutdown at once, and a JVM that shuts down on a signal
 * exits 143 (SIGTERM) or 130 (SIGINT) whatever its shutdown hooks do (Agrona's {@code ShutdownSignalBarrier} is one
 * such hook). While a role listens ({@link #onStop(Runnable)}), a signal only runs its action: the role's main
 * thread stops, cleans up and returns its exit code. A second signal, or one that comes while no role listens, ends
 * the JVM as the JVM's own handler would (128 + signal), so a role stuck in its clean-up can still be stopped.
 * A signal the process was started to ignore (SIGINT of a background job) stays ignored.
 */
// sun.misc.Signal (module jdk.unsupported, named in full rather than imported) is the JDK's one way to handle a signal.
public final class StopSignals
{
    private static final String[] SIGNALS = { "TERM", "INT" };
    private static final List<Runnable> ACTIONS = new CopyOnWriteArrayList<>();
    private static boolean installed;
    private static volatile boolean signalled;

    private StopSignals()
    {
    }

    /**
     * A role's interest in the stop signals; closing it takes the action back.
     */
    public interface Registration extends AutoCloseable
    {
        /** Take the action back: a later signal no longer runs it. */
        void close();
    }

    /**
     * Run {@code action} on the first SIGTERM or SIGINT instead of ending the JVM.
     *
     * @param action what stops the role (flips its running flag, signals its barrier); runs on the signal's thread.
     * @return the registration; close it once the role stopped.
     */
    public static Registration onStop(final Runnable action)
    {
        install();
        ACTIONS.add(action);
        return () -> ACTIONS.remove(action);
    }

    /**
     * @return whether a stop signal came while a role listened.
     */
    public static boolean isSignalled()
    {
        return signalled;
    }

    private static synchronized void install()
    {
        if (installed)
        {
            return;
        }
        installed = true;
        for (final String name : SIGNALS)
        {
            try
            {
                sun.misc.Signal.handle(new sun.misc.Signal(name), StopSignals::onSignal);
            }
            catch (final IllegalArgumentException ignore)
            {
                // -Xrs, or a platform without the signal: the JVM's own handling stays.
            }
        }
    }

    private static void onSignal(final sun.misc.Signal signal)
    {
        if (ACTIONS.isEmpty() || signalled)
        {
            System.exit(128 + signal.getNumber());
        }
        signalled = true;
        for (final Runnable action : ACTIONS)
        {
            action.run();
        }
    }
}
