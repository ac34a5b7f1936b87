package io.mdfanout.bench.peers;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Stops a peer's loop on SIGINT/SIGTERM: a shutdown hook clears the flag, then waits (a few seconds at most) for
 * the loop to finish its clean-up and write its results. Close it when the loop is done.
 */
final class ShutdownFlag implements AutoCloseable
{
    private volatile boolean running = true;
    private final CountDownLatch finished = new CountDownLatch(1);
    private final Thread hook = new Thread(this::onShutdown, "nats-peer-shutdown");

    ShutdownFlag()
    {
        Runtime.getRuntime().addShutdownHook(hook);
    }

    boolean isRunning()
    {
        return running;
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

    public void close()
    {
        finished.countDown();
        try
        {
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        catch (final IllegalStateException ignore)
        {
            // Already shutting down: the hook runs and waits for the countDown above.
        }
    }
}
