package io.mdfanout.wire;

import java.util.Locale;

/**
 * The streams a feed publishes per partition (docs/WIRE.md#derived-streams): the order-by-order stream (MBO), the
 * streams the fanout derives from it, and the symbol directory. Each is an incremental stream with its own stream id,
 * sequence, heartbeats and snapshot stream: partition p of a stream goes on {@code streamIdBase + offset + p}, its
 * snapshots on the snapshot base + the same offset + p. The offsets are multiples of {@link #MAX_PARTITIONS}, so no
 * two streams of a feed meet.
 */
public enum FeedStream
{
    /** Every order event (the normalized feed): the source of every other stream. */
    MBO("mbo", 0),
    /** The best bid and offer of each instrument, on every change (MBP-1). */
    BBO("bbo", 1000),
    /** Ten price levels a side, on every change within them (MBP-10). */
    DEPTH("mbp-10", 2000),
    /** Every print: executions, non-cross trades, crosses. */
    TRADES("trades", 3000),
    /** OHLCV bars of 1 second and 1 minute of exchange time. */
    BARS("ohlcv", 4000),
    /**
     * The symbol directory: each partition's InstrumentDirectory messages (and the market's session events), kept and
     * re-sent in its snapshots, so that a subscriber learns which partition carries a symbol without the partitions'
     * order flow. Every fanout publishes it.
     */
    DIRECTORY("directory", 5000);

    /** Partitions a feed with derived streams may have: the distance between two streams' id bases. */
    public static final int MAX_PARTITIONS = 1000;

    private static final FeedStream[] VALUES = values();

    private final String streamName;
    private final int streamIdOffset;

    FeedStream(final String streamName, final int streamIdOffset)
    {
        this.streamName = streamName;
        this.streamIdOffset = streamIdOffset;
    }

    /** @return the name users give it (command-line options, chart values, metric labels). */
    public String streamName()
    {
        return streamName;
    }

    /** @return what is added to the feed's stream id base (and to its snapshot stream id base) for this stream. */
    public int streamIdOffset()
    {
        return streamIdOffset;
    }

    /**
     * @param streamIdBase the feed's (MBO) stream id base or snapshot stream id base.
     * @return this stream's base.
     */
    public int base(final int streamIdBase)
    {
        return streamIdBase + streamIdOffset;
    }

    /** @return true for the streams a fanout derives when asked to (--derived-streams): not MBO, not the directory. */
    public boolean isDerived()
    {
        return this != MBO && this != DIRECTORY;
    }

    /**
     * @param name a stream's name ({@link #streamName()}), or its enum name, any case.
     * @return the stream.
     * @throws IllegalArgumentException naming the streams there are, for any other name.
     */
    public static FeedStream fromName(final String name)
    {
        final String wanted = name.trim().toLowerCase(Locale.ROOT);
        for (final FeedStream stream : VALUES)
        {
            if (stream.streamName.equals(wanted) || stream.name().toLowerCase(Locale.ROOT).equals(wanted))
            {
                return stream;
            }
        }
        throw new IllegalArgumentException("unknown stream '" + name + "': one of " + names());
    }

    /** @return the names of every stream, comma separated. */
    public static String names()
    {
        final StringBuilder names = new StringBuilder();
        for (final FeedStream stream : VALUES)
        {
            names.append(names.length() > 0 ? ", " : "").append(stream.streamName);
        }
        return names.toString();
    }
}
