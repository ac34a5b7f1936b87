package io.mdfanout.feed.replay;

/** How fast a file is replayed. */
public enum ReplayPace
{
    /** As fast as the rings accept. */
    MAX("max"),
    /** At the pace of the ITCH timestamps, relative to the first message. */
    ORIGINAL("original");

    private final String cliName;

    ReplayPace(final String cliName)
    {
        this.cliName = cliName;
    }

    /**
     * Parse a command-line name.
     *
     * @param name max or original.
     * @return the pace.
     * @throws IllegalArgumentException for any other name.
     */
    public static ReplayPace parse(final String name)
    {
        for (final ReplayPace pace : values())
        {
            if (pace.cliName.equals(name))
            {
                return pace;
            }
        }
        throw new IllegalArgumentException("unknown pace '" + name + "' (max or original)");
    }

    public String toString()
    {
        return cliName;
    }
}
