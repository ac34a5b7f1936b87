package io.mdfanout.wire;

/**
 * How the archive names a trading session in Aeron Archive's catalog, the contract between the archive role and
 * the subscribers that replay from it: every recording of a session is started on the partition's channel with
 * {@code alias=mdfanout-session-<session>}, which Aeron keeps in the recording's original channel.
 */
public final class ArchiveSessions
{
    /** Aeron Archive's control stream id, the archive's default. */
    public static final int DEFAULT_CONTROL_STREAM_ID = 10;
    private static final String ALIAS_PREFIX = "mdfanout-session-";
    private static final String ALIAS_PARAM = "alias=";

    private ArchiveSessions()
    {
    }

    /**
     * @param session the trading session's name.
     * @return the alias the session's recording channels carry.
     */
    public static String alias(final String session)
    {
        return ALIAS_PREFIX + session;
    }

    /**
     * @param originalChannel a recording's original channel, as Aeron Archive's catalog gives it.
     * @return the trading session it belongs to, or null when it is no session's.
     */
    public static String sessionOf(final String originalChannel)
    {
        final int start = originalChannel.indexOf(ALIAS_PARAM + ALIAS_PREFIX);
        if (start < 0)
        {
            return null;
        }
        final int from = start + ALIAS_PARAM.length() + ALIAS_PREFIX.length();
        final int end = originalChannel.indexOf('|', from);
        return originalChannel.substring(from, end < 0 ? originalChannel.length() : end);
    }
}
