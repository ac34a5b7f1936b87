package io.mdfanout.wire;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * SIGTERM and SIGINT stop a role, which then exits with its own code (0 after a plain stop, docs/OPERATIONS.md
 * "Exit codes"), not the JVM's 128 + signal number.
 * <p>
 * The JVM's own handler of these signals starts the JVM's shutdown at once, and a JVM that shuts down on a signal
 * exits 143 (SIGTERM) or 130 (SIGINT) whatever its shutdown hooks do (Agrona's {@code ShutdownSignalBarrier} is one
 * such hook). Once installed ({@link #install()}, the entry point does it first), a signal only runs the actions
 * of the roles that listen ({@link #onStop(Runnable)}): the role's main thread stops, cleans up and returns its exit
 * code. A signal that comes before the role listens (the JVM still starting) is kept, and stops the role as soon as
 * it listens. A second signal ends the JVM as the JVM's own handler would (128 + signal), so a role stuck in its
 * start or clean-up can still be stopped. A signal the process was started to ignore (SIGINT of a background job)
 * stays ignored.
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
        if (signalled)
        {
            action.run(); // the signal came while the role was starting
        }
        return () -> ACTIONS.remove(action);
    }

    /**
     * @return whether a stop signal came.
     */
    public static boolean isSignalled()
    {
        return signalled;
    }

    /**
     * Handle SIGTERM and SIGINT from now on (idempotent): the entry point calls it first, so that a signal that
     * comes while the JVM and the role start is kept for the role rather than ending the JVM with 143.
     */
    public static synchronized void install()
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
        if (signalled)
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
