package io.mdfanout.tools;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Stops a tool's poll loop on SIGINT/SIGTERM: a shutdown hook flips the flag, then waits (up to a
 * few seconds) for the loop to finish its clean-up, so that embedded driver directories are
 * deleted before the JVM exits. Close it when the loop is done; that also removes the hook, so
 * commands run in-process (tests) leave nothing behind. Public for the benchmark peers' tools.
 */
public final class StopSignal implements AutoCloseable
{
    private volatile boolean running = true;
    private final CountDownLatch finished = new CountDownLatch(1);
    private final Thread hook = new Thread(this::onShutdown, "mdfanout-tools-shutdown");

    /** Install the shutdown hook. */
    public StopSignal()
    {
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
