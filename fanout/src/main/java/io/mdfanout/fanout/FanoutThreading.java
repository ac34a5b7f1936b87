package io.mdfanout.fanout;

/** How the partition publishers are mapped onto threads. */
public enum FanoutThreading
{
    /** All publishers in one composite agent on one thread: what a small machine needs. */
    SHARED,
    /** One thread per partition: for machines with an exclusive core per partition. */
    DEDICATED;

    /**
     * Parse a command-line name (case-insensitive, '-' for '_').
     *
     * @param name such as "shared" or "dedicated".
     * @return the value.
     * @throws IllegalArgumentException naming the accepted values.
     */
    public static FanoutThreading fromName(final String name)
    {
        return EnumNames.parse(FanoutThreading.class, name);
    }

    /** @return the command-line name. */
    public String cliName()
    {
        return EnumNames.cliName(this);
    }
}
