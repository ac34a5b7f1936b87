package io.mdfanout.feed.glimpse;

import java.util.Locale;

/**
 * What a GLIMPSE load returned: where to continue on the real-time feed, and what the spin cost.
 */
public final class GlimpseResult
{
    private final String server;
    private final String session;
    private final long nextSequence;
    private final long messages;
    private final long bytes;
    private final long durationNs;

    /**
     * Creates the result.
     *
     * @param server       host:port loaded from.
     * @param session      the session named by Login Accepted, trimmed.
     * @param nextSequence End of Snapshot's sequence number.
     * @param messages     messages passed to the listener (End of Snapshot not included).
     * @param bytes        bytes of those messages.
     * @param durationNs   from the start of the connect to End of Snapshot.
     */
    public GlimpseResult(
        final String server,
        final String session,
        final long nextSequence,
        final long messages,
        final long bytes,
        final long durationNs)
    {
        this.server = server;
        this.session = session;
        this.nextSequence = nextSequence;
        this.messages = messages;
        this.bytes = bytes;
        this.durationNs = durationNs;
    }

    /**
     * The server loaded from.
     *
     * @return host:port.
     */
    public String server()
    {
        return server;
    }

    /**
     * The SoupBinTCP session the server named in Login Accepted (the simulator names its MoldUDP64 session, so a
     * feed handler can check that the snapshot is of the feed it is about to join).
     *
     * @return the session, trimmed.
     */
    public String session()
    {
        return session;
    }

    /**
     * The End of Snapshot's sequence number: the MoldUDP64 sequence number of the first real-time message not in
     * the snapshot, where to continue the feed from (messages before it are already in the snapshot).
     *
     * @return the sequence, &gt;= 1.
     */
    public long nextSequence()
    {
        return nextSequence;
    }

    /**
     * Messages passed to the listener, End of Snapshot not included.
     *
     * @return the count.
     */
    public long messages()
    {
        return messages;
    }

    /**
     * Bytes of the messages passed to the listener.
     *
     * @return the count.
     */
    public long bytes()
    {
        return bytes;
    }

    /**
     * From the start of the connect to End of Snapshot.
     *
     * @return nanoseconds.
     */
    public long durationNs()
    {
        return durationNs;
    }

    /**
     * One line for a log.
     *
     * @return e.g. {@code GLIMPSE 127.0.0.1:26401 session=MDFSIM0001 nextSequence=12345 messages=6789 ...}.
     */
    public String toString()
    {
        return String.format(Locale.ROOT, "GLIMPSE %s session=%s nextSequence=%d messages=%d bytes=%d duration=%.3fms",
            server, session, nextSequence, messages, bytes, durationNs / 1e6);
    }
}
