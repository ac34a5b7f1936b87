package io.mdfanout.feed.recovery;

/**
 * Spaces retransmission requests at least {@code 1 / maxPerSecond} apart, so no one-second
 * window ever holds more than {@code maxPerSecond} of them: a burst of gaps cannot flood the
 * exchange's re-request server (which may throttle or ban an abusive client).
 */
public final class RequestRateLimiter
{
    private final long intervalNs;
    private long nextAllowedNs;
    private boolean started;

    /**
     * Create a limiter.
     *
     * @param maxPerSecond requests per second at most, positive.
     */
    public RequestRateLimiter(final int maxPerSecond)
    {
        if (maxPerSecond < 1)
        {
            throw new IllegalArgumentException("requests per second must be positive: " + maxPerSecond);
        }
        intervalNs = 1_000_000_000L / maxPerSecond;
    }

    /**
     * Take a permit if one is free at {@code nowNs}.
     *
     * @param nowNs monotonic time in nanoseconds.
     * @return true when a request may be sent now.
     */
    public boolean tryAcquire(final long nowNs)
    {
        if (started && nowNs - nextAllowedNs < 0)
        {
            return false;
        }
        started = true;
        nextAllowedNs = nowNs + intervalNs;
        return true;
    }
}
