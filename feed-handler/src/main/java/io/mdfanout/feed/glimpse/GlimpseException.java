package io.mdfanout.feed.glimpse;

import java.io.IOException;

/**
 * A GLIMPSE snapshot could not be loaded. The message names the server (host:port) and what happened; the
 * {@link #reason()} lets a caller decide whether to try again.
 */
public final class GlimpseException extends IOException
{
    private static final long serialVersionUID = 1L;

    /** What went wrong. */
    public enum Reason
    {
        /** The address could not be resolved, or the connection was refused or not made in time. */
        CONNECT_FAILED,
        /** The server answered the login with Login Rejected. */
        LOGIN_REJECTED,
        /** No End of Snapshot within the overall timeout, or the server fell silent (heartbeat timeout). */
        TIMED_OUT,
        /** The server closed the connection or ended the session before End of Snapshot. */
        ENDED_EARLY,
        /** A packet or message the client cannot read (unknown packet type, empty message, bad sequence number). */
        MALFORMED,
        /** Any other I/O failure on the connection. */
        IO_ERROR
    }

    private final Reason reason;

    /**
     * Creates the exception.
     *
     * @param reason  what went wrong.
     * @param message the whole message, server and details included.
     * @param cause   the underlying failure, or null.
     */
    public GlimpseException(final Reason reason, final String message, final Throwable cause)
    {
        super(message, cause);
        this.reason = reason;
    }

    /**
     * What went wrong.
     *
     * @return the reason.
     */
    public Reason reason()
    {
        return reason;
    }
}
