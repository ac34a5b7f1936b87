package io.mdfanout.metrics;

/**
 * Whether a role is ready to serve, as a Kubernetes readiness probe asks it: {@code GET /ready} on the metrics port
 * answers 200 when {@link #notReadyReason()} is null, else 503 with the reason (one line). Evaluated on the HTTP
 * server's thread at each request, from what the role's threads publish with ordered stores: the message path is not
 * involved.
 */
@FunctionalInterface
public interface Readiness
{
    /** Always ready: a role with nothing to catch up with (a tool, a media driver). */
    Readiness ALWAYS = () -> null;

    /**
     * @return null when ready, else why not, in one line (e.g. {@code recovering a gap: 1200 messages held}).
     */
    String notReadyReason();
}
