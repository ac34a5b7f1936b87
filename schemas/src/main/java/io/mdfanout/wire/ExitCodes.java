package io.mdfanout.wire;

/**
 * The exit codes of every role, one table for all of them (docs/OPERATIONS.md "Exit codes"), so a script or a
 * Kubernetes probe reads a code the same way whichever role gave it.
 */
public final class ExitCodes
{
    /** The role did what it was asked: a session replayed, a check passed, a subscriber saw no loss. */
    public static final int OK = 0;
    /** The role failed while running: an I/O error, a lost peer, an unexpected error (in its error log). */
    public static final int FAILURE = 1;
    /** The command line is wrong: an unknown option, a missing parameter, a value that does not parse. */
    public static final int USAGE = 2;
    /**
     * The configuration cannot work: a value out of range, options that contradict each other or another role's
     * (a partition count or ring layout that differs), a missing file, a resource another process holds (the ring
     * directory), too little room in {@code /dev/shm}.
     */
    public static final int CONFIG = 3;
    /**
     * Data was lost or the feed is not healthy: gaps a subscriber could not recover, a partition still stale at the
     * end, a failed {@code check}.
     */
    public static final int DATA_LOSS = 4;
    /** The run's time limit ({@code --timeout-s}) passed before its end condition. */
    public static final int TIMEOUT = 5;

    /** Help line of {@link #OK}, for picocli's {@code exitCodeList} (an annotation takes constants only). */
    public static final String HELP_OK = "0:ok";
    /** Help line of {@link #FAILURE}. */
    public static final String HELP_FAILURE = "1:failure while running: I/O, lost peer, unexpected error (error log)";
    /** Help line of {@link #USAGE}. */
    public static final String HELP_USAGE = "2:usage: unknown option, missing or unparseable value";
    /** Help line of {@link #CONFIG}. */
    public static final String HELP_CONFIG = "3:configuration: value out of range, options contradicting each other " +
        "or another role's, missing file, resource held by another process, no room in /dev/shm";
    /** Help line of {@link #DATA_LOSS}. */
    public static final String HELP_DATA_LOSS = "4:data loss: unrecovered gaps, partition stale at the end, check failed";
    /** Help line of {@link #TIMEOUT}. */
    public static final String HELP_TIMEOUT = "5:timeout: --timeout-s passed first";

    private ExitCodes()
    {
    }

    /**
     * The exit code of a role that stopped on an exception: {@link #CONFIG} when the exception, or one of its
     * causes, is a {@link ConfigurationException} or an {@link IllegalArgumentException} (an option's value),
     * {@link #FAILURE} otherwise.
     *
     * @param ex what stopped the role.
     * @return the exit code.
     */
    public static int of(final Throwable ex)
    {
        for (Throwable cause = ex; null != cause; cause = cause.getCause() == cause ? null : cause.getCause())
        {
            if (cause instanceof ConfigurationException || cause instanceof IllegalArgumentException)
            {
                return CONFIG;
            }
        }
        return FAILURE;
    }
}
