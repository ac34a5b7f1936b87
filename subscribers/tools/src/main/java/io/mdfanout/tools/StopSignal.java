package io.mdfanout.tools;

import io.mdfanout.wire.StopSignals;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Stops a tool's poll loop on SIGINT/SIGTERM ({@link StopSignals}: the flag flips, no JVM shutdown starts, and the
 * tool returns its own exit code, 0 unless it has data loss to report). On any other shutdown of the JVM (SIGHUP),
 * a shutdown hook flips the flag, then waits (up to a few seconds) for the loop to finish its clean-up, so that
 * embedded driver directories are deleted before the JVM exits. Close it when the loop is done; that also removes
 * the hook, so commands run in-process (tests) leave nothing behind. Public for the benchmark peers' tools.
 */
public final class StopSignal implements AutoCloseable
{
    private volatile boolean running = true;
    private final CountDownLatch finished = new CountDownLatch(1);
    private final Thread hook = new Thread(this::onShutdown, "mdfanout-tools-shutdown");
    private final StopSignals.Registration registration;

    /** Listen to the stop signals and install the shutdown hook. */
    public StopSignal()
    {
        registration = StopSignals.onStop(this::stop);
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** @return false once SIGINT/SIGTERM arrived or {@link #stop()} was called. */
    public boolean isRunning()
    {
        return running;
    }

    /** Ask the loop to stop. */
    public void stop()
    {
        running = false;
    }

    private void onShutdown()
    {
        running = false;
        try
        {
            finished.await(5, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** The loop is done: let a waiting shutdown hook go on, and remove the hook. */
    public void close()
    {
        registration.close();
        finished.countDown();
        try
        {
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        catch (final IllegalStateException ignore)
        {
            // Already shutting down: the hook is running and waits for the countDown above.
        }
    }
}
