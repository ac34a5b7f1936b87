package io.mdfanout.wire;

/**
 * The defaults every role repeats, in one place: where the feed handler writes its rings and the fanout reads them,
 * the Aeron channel and stream ids the fanout publishes on and the subscribers read, the partition count both sides
 * of the rings and of the channel must agree on, and the exchange's multicast feed the simulator sends and the feed
 * handler joins. A role's own configuration class and its command-line options point here, so that two roles
 * started with no options meet.
 * <p>
 * Each numeric default has a {@code _STRING} twin because picocli's {@code defaultValue} takes a compile-time
 * constant String.
 */
public final class Defaults
{
    /** Directory of the partition rings (shared memory): the feed handler and replay write it, the fanout reads it. */
    public static final String RING_DIR = "/dev/shm/mdfanout/feed-1";

    /** Partitions of the rings and of the fanout's streams. */
    public static final int PARTITION_COUNT = 4;
    /** {@link #PARTITION_COUNT} as a picocli {@code defaultValue}. */
    public static final String PARTITION_COUNT_STRING = "" + PARTITION_COUNT;

    /** Aeron channel the fanout publishes on and the subscribers read. */
    public static final String CHANNEL = "aeron:udp?endpoint=224.0.1.1:40456|interface=127.0.0.1|mtu=8192";

    /** Aeron stream id of partition 0's incremental stream (partition p uses base + p). */
    public static final int STREAM_ID_BASE = 1000;
    /** {@link #STREAM_ID_BASE} as a picocli {@code defaultValue}. */
    public static final String STREAM_ID_BASE_STRING = "" + STREAM_ID_BASE;

    /**
     * Default distance between the incremental and snapshot stream id bases: partition p's snapshots go on stream
     * {@code streamIdBase + SNAPSHOT_STREAM_ID_OFFSET + p} unless a snapshot stream id base is configured.
     */
    public static final int SNAPSHOT_STREAM_ID_OFFSET = 10_000;

    /** IPv4 multicast group of the exchange's MoldUDP64 feed: the simulator sends to it, the feed handler joins it. */
    public static final String FEED_GROUP = "239.1.1.1";
    /** UDP port of the exchange's MoldUDP64 feed. */
    public static final int FEED_PORT = 26400;
    /** {@link #FEED_PORT} as a picocli {@code defaultValue}. */
    public static final String FEED_PORT_STRING = "" + FEED_PORT;
    /** Local interface address the feed is sent from and received on. */
    public static final String FEED_INTERFACE = "127.0.0.1";

    /**
     * The exchange's time zone (NASDAQ's): its date names a trading day (the archive's default session, export's
     * dates), since ITCH timestamps count from the exchange's midnight and UTC midnight falls in US after-hours.
     */
    public static final String EXCHANGE_ZONE = "America/New_York";

    /** Default idle strategy of every busy thread ({@link IdleStrategyType#parse(String)} reads it). */
    public static final String IDLE_STRATEGY = IdleStrategyType.DEFAULT_NAME;
    /** Default {@code --idle-max-park-us}, as a picocli {@code defaultValue}. */
    public static final String IDLE_MAX_PARK_US_STRING = IdleStrategyType.DEFAULT_MAX_PARK_US_STRING;

    private Defaults()
    {
    }
}
