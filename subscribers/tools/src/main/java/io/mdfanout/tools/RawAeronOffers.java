package io.mdfanout.tools;

import io.aeron.ExclusivePublication;
import io.aeron.Publication;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.TimeUnit;

/**
 * The raw-Aeron baseline's offer loop, shared by {@code raw-aeron-pub} and {@code raw-aeron-relay}: an offer is
 * retried until it is taken (back pressure is waited out and counted, never dropped: the baseline cannot lose), a
 * subscriber gone for the connect timeout ends the run with an exception instead of hanging the benchmark, and a
 * stop signal ends the wait. Also the wait for a subscriber before the first offer and the linger after the last.
 */
final class RawAeronOffers
{
    private static final long LINGER_NS = TimeUnit.MILLISECONDS.toNanos(500);

    private final ExclusivePublication publication;
    private final IdleStrategy idle;
    private final StopSignal stopSignal;
    private final long notConnectedTimeoutNs;
    private long notConnectedSinceNs;
    private long offers;
    private long backPressured;

    RawAeronOffers(
        final ExclusivePublication publication, final IdleStrategy idle, final StopSignal stopSignal,
        final long notConnectedTimeoutS)
    {
        this.publication = publication;
        this.idle = idle;
        this.stopSignal = stopSignal;
        this.notConnectedTimeoutNs = TimeUnit.SECONDS.toNanos(notConnectedTimeoutS);
    }

    /**
     * Offer {@code length} bytes from offset 0 until the publication takes them or the stop signal ends the wait.
     *
     * @param buffer holding the message(s).
     * @param length of the offer.
     * @throws IllegalStateException when the publication is closed or exhausted, or its subscriber has been gone for
     *                               the connect timeout.
     */
    void offer(final DirectBuffer buffer, final int length)
    {
        long result;
        while ((result = publication.offer(buffer, 0, length)) < 0)
        {
            if (Publication.CLOSED == result || Publication.MAX_POSITION_EXCEEDED == result)
            {
                throw new IllegalStateException("publication closed or exhausted: " + result);
            }
            if (Publication.NOT_CONNECTED == result)
            {
                // The subscriber went away (it exited, or took another run's end marker on a shared
                // channel): waiting for it forever would hang the benchmark.
                if (0 == notConnectedSinceNs)
                {
                    notConnectedSinceNs = System.nanoTime();
                }
                else if (System.nanoTime() - notConnectedSinceNs > notConnectedTimeoutNs)
                {
                    throw new IllegalStateException("subscriber gone: not connected for " +
                        TimeUnit.NANOSECONDS.toSeconds(notConnectedTimeoutNs) + " s");
                }
            }
            if (!stopSignal.isRunning())
            {
                return;
            }
            backPressured++;
            idle.idle(0);
        }
        idle.reset();
        notConnectedSinceNs = 0;
        offers++;
    }

    /**
     * Wait until the publication has a subscriber.
     *
     * @param publication to wait on.
     * @param idle        between checks.
     * @param stopSignal  ends the wait.
     * @param timeoutS    the longest wait.
     * @return false when the stop signal or the timeout came first.
     */
    static boolean awaitConnected(
        final ExclusivePublication publication, final IdleStrategy idle, final StopSignal stopSignal, final long timeoutS)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
        while (!publication.isConnected())
        {
            if (!stopSignal.isRunning() || System.nanoTime() > deadline)
            {
                return false;
            }
            idle.idle(0);
        }
        return true;
    }

    /** Let the driver deliver (and repair) the tail, the end marker's included, before it shuts down with the process. */
    void linger()
    {
        final long lingerEnd = System.nanoTime() + LINGER_NS;
        while (System.nanoTime() < lingerEnd)
        {
            idle.idle(0);
        }
    }

    /** @return offers taken. */
    long offers()
    {
        return offers;
    }

    /** @return failed attempts waited out (back pressure, or no subscriber yet). */
    long backPressured()
    {
        return backPressured;
    }
}
