package io.mdfanout.feed.handler;

/**
 * A daemon thread that runs a print action every interval until it is interrupted: the stats and
 * progress lines of the long-running roles. The action reads counters only, so printing never
 * touches the message path.
 */
public final class PeriodicPrinter
{
    private PeriodicPrinter()
    {
    }

    /**
     * Start printing.
     *
     * @param threadName  name of the thread, as seen in a thread dump.
     * @param intervalMs  time between two prints.
     * @param print       what to print each time.
     * @param printOnStop print once more when interrupted (a final state rather than a stale one).
     * @return the started thread; interrupt it to stop.
     */
    public static Thread start(
        final String threadName, final long intervalMs, final Runnable print, final boolean printOnStop)
    {
        final Thread thread = new Thread(
            () ->
            {
                try
                {
                    while (!Thread.currentThread().isInterrupted())
                    {
                        Thread.sleep(intervalMs);
                        print.run();
                    }
                }
                catch (final InterruptedException ignore)
                {
                    // stopped
                }
                if (printOnStop)
                {
                    print.run();
                }
            },
            threadName);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
