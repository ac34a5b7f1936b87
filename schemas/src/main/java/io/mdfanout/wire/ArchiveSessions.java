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
    /** Between the session and the side in the alias of side B's recordings. */
    private static final String SIDE_SUFFIX = "~side-";

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
     * The alias of one side of a pair's recordings: side A's is the session's own ({@link #alias(String)}), so a
     * single fanout's archive and side A of a pair's are one; side B's adds {@value #SIDE_SUFFIX}B, which a reader
     * from before pairs takes for another session (it never mixes side B's stream into side A's).
     *
     * @param session the trading session's name.
     * @param side    0 for side A, 1 for side B.
     * @return the alias the side's recording channels carry.
     */
    public static String alias(final String session, final int side)
    {
        return 0 == side ? alias(session) : ALIAS_PREFIX + session + SIDE_SUFFIX + (char)('A' + side);
    }

    /**
     * @param originalChannel a recording's original channel, as Aeron Archive's catalog gives it.
     * @return the trading session it belongs to (either side's), or null when it is no session's.
     */
    public static String sessionOf(final String originalChannel)
    {
        final String alias = aliasOf(originalChannel);
        if (null == alias)
        {
            return null;
        }
        final int side = alias.lastIndexOf(SIDE_SUFFIX);
        return side < 0 ? alias : alias.substring(0, side);
    }

    /**
     * @param originalChannel a recording's original channel, as Aeron Archive's catalog gives it.
     * @return the side of a pair it records: 0 for side A (and a single fanout), 1 for side B; -1 when it is no
     * session's.
     */
    public static int sideOf(final String originalChannel)
    {
        final String alias = aliasOf(originalChannel);
        if (null == alias)
        {
            return -1;
        }
        final int side = alias.lastIndexOf(SIDE_SUFFIX);
        if (side < 0)
        {
            return 0;
        }
        final String name = alias.substring(side + SIDE_SUFFIX.length());
        return 1 == name.length() && name.charAt(0) >= 'B' && name.charAt(0) <= 'Z' ? name.charAt(0) - 'A' : -1;
    }

    private static String aliasOf(final String originalChannel)
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
