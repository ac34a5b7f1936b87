package io.mdfanout.wire;

import org.agrona.MutableDirectBuffer;

/**
 * The one registry of the Agrona counter type ids mdfanout allocates, as Aeron's {@code AeronCounters} is for
 * Aeron's: one type id per quantity, so that a reader (the metrics module, a counters dump) knows what a counter
 * is from its type id and its key alone, never from its label text.
 * <p>
 * Ranges, one per role; an id never moves once released (dashboards and tools read them from the counters files):
 * <table>
 *   <caption>Reserved type id ranges</caption>
 *   <tr><th>ids</th><th>owner</th></tr>
 *   <tr><td>0 .. 999</td><td>Aeron: driver 0-99, archive 100-199, cluster 200-299, other Aeron 300-999</td></tr>
 *   <tr><td>{@value #FANOUT_RANGE_START} .. {@value #FANOUT_RANGE_END}</td><td>fanout</td></tr>
 *   <tr><td>{@value #FEED_HANDLER_RANGE_START} .. {@value #FEED_HANDLER_RANGE_END}</td>
 *       <td>feed handler: receive, arbitration, normalization</td></tr>
 *   <tr><td>{@value #REPLAY_RANGE_START} .. {@value #REPLAY_RANGE_END}</td><td>replay of ITCH files and
 *       captures</td></tr>
 *   <tr><td>{@value #ARCHIVE_RANGE_START} .. {@value #ARCHIVE_RANGE_END}</td><td>archive (recording)</td></tr>
 *   <tr><td>{@value #SIMULATOR_RANGE_START} .. {@value #SIMULATOR_RANGE_END}</td><td>exchange simulator</td></tr>
 *   <tr><td>{@value #SUBSCRIBER_RANGE_START} .. {@value #SUBSCRIBER_RANGE_END}</td><td>SDK subscriber</td></tr>
 *   <tr><td>{@value #BOOK_RANGE_START} .. {@value #BOOK_RANGE_END}</td><td>SDK order books</td></tr>
 * </table>
 * Keys, by kind of counter (the metrics module derives its labels from them):
 * <ul>
 *   <li>fanout partition counters: the partition id, an int at offset 0; fanout-wide ones: no key;</li>
 *   <li>feed handler per-line counters: the line index (0 = A, 1 = B, 2 = R), an int at offset 0;</li>
 *   <li>feed handler ITCH decode counters: the ITCH message type character, an int at offset 0;</li>
 *   <li>feed handler ring-full counters: the partition id, an int at offset 0;</li>
 *   <li>SDK counters: the subscriber's name, an ASCII string ({@code putStringAscii}) at offset 0, followed for the
 *       per-reason counters by the reason's label, another ASCII string.</li>
 * </ul>
 * The counters classes of each role allocate with these ids; {@code MdfanoutCountersTest} checks every id is unique,
 * inside its role's range and none of Aeron's.
 */
public final class MdfanoutCounters
{
    /** First type id of the fanout. */
    public static final int FANOUT_RANGE_START = 3000;
    /** Last type id of the fanout. */
    public static final int FANOUT_RANGE_END = 3099;
    /** First type id of the feed handler. */
    public static final int FEED_HANDLER_RANGE_START = 3100;
    /** Last type id of the feed handler. */
    public static final int FEED_HANDLER_RANGE_END = 3149;
    /** First type id of the replay. */
    public static final int REPLAY_RANGE_START = 3150;
    /** Last type id of the replay. */
    public static final int REPLAY_RANGE_END = 3199;
    /** First type id of the archive role. */
    public static final int ARCHIVE_RANGE_START = 3200;
    /** Last type id of the archive role. */
    public static final int ARCHIVE_RANGE_END = 3249;
    /** First type id of the simulator. */
    public static final int SIMULATOR_RANGE_START = 7100;
    /** Last type id of the simulator. */
    public static final int SIMULATOR_RANGE_END = 7199;
    /** First type id of the SDK's subscriber. */
    public static final int SUBSCRIBER_RANGE_START = 7001_100;
    /** Last type id of the SDK's subscriber. */
    public static final int SUBSCRIBER_RANGE_END = 7001_199;
    /** First type id of the SDK's order books. */
    public static final int BOOK_RANGE_START = 7001_200;
    /** Last type id of the SDK's order books. */
    public static final int BOOK_RANGE_END = 7001_299;

    // Fanout: fanout-wide (no key).

    /** Exceptions caught by the fanout's agent runners. */
    public static final int FANOUT_DUTY_CYCLE_ERRORS_TYPE_ID = 3000;

    // Fanout: per partition (key: partition id).

    /** Ring records consumed, valid or not. */
    public static final int FANOUT_RECORDS_READ_TYPE_ID = 3001;
    /** Normalized messages published. */
    public static final int FANOUT_MESSAGES_PUBLISHED_TYPE_ID = 3002;
    /** Packets published. */
    public static final int FANOUT_PACKETS_PUBLISHED_TYPE_ID = 3003;
    /** Gauge: most messages packed in one packet so far. */
    public static final int FANOUT_MAX_MESSAGES_PER_PACKET_TYPE_ID = 3004;
    /** Heartbeats published on idle streams. */
    public static final int FANOUT_HEARTBEATS_TYPE_ID = 3005;
    /** Offers refused by back pressure. */
    public static final int FANOUT_BACK_PRESSURE_EVENTS_TYPE_ID = 3006;
    /** Messages dropped because no subscriber was connected. */
    public static final int FANOUT_NOT_CONNECTED_DROPPED_TYPE_ID = 3007;
    /** Invalid ring records skipped. */
    public static final int FANOUT_INVALID_RECORDS_TYPE_ID = 3008;
    /** Publication errors (closed or max position). */
    public static final int FANOUT_PUBLICATION_ERRORS_TYPE_ID = 3009;
    /** Gauge: stream sequence of the next message. */
    public static final int FANOUT_NEXT_STREAM_SEQUENCE_TYPE_ID = 3010;
    /** Gauge: the partition's chain as sent (the exchange sequence of its last message sent; 0 before any is known). */
    public static final int FANOUT_CHAIN_POSITION_TYPE_ID = 3011;

    /** Gauge: orders held in the partition's state. */
    public static final int FANOUT_STATE_ORDERS_TYPE_ID = 3020;
    /** Gauge: instruments with state in the partition. */
    public static final int FANOUT_STATE_INSTRUMENTS_TYPE_ID = 3021;
    /** Orders rejected because the state's order pool was full. */
    public static final int FANOUT_STATE_ORDERS_REJECTED_POOL_FULL_TYPE_ID = 3022;
    /** State updates naming an unknown order id. */
    public static final int FANOUT_STATE_UNKNOWN_ORDER_UPDATES_TYPE_ID = 3023;
    /** State updates rejected. */
    public static final int FANOUT_STATE_REJECTED_UPDATES_TYPE_ID = 3024;
    /** Ring records skipped after a restart because the state had applied them. */
    public static final int FANOUT_STATE_RECORDS_SKIPPED_AFTER_RESTART_TYPE_ID = 3025;
    /** State resets (a new ring). */
    public static final int FANOUT_STATE_RESETS_TYPE_ID = 3026;
    /** State stores rolled back on open. */
    public static final int FANOUT_STATE_ROLLED_BACK_STORES_TYPE_ID = 3027;
    /** Gauge: the partition's market session, a {@link MarketSession#value()} (after its last SystemEvent). */
    public static final int FANOUT_MARKET_SESSION_TYPE_ID = 3028;

    /** Snapshots started. */
    public static final int FANOUT_SNAPSHOTS_STARTED_TYPE_ID = 3030;
    /** Snapshots completely published. */
    public static final int FANOUT_SNAPSHOTS_COMPLETED_TYPE_ID = 3031;
    /** Snapshots abandoned. */
    public static final int FANOUT_SNAPSHOTS_ABANDONED_TYPE_ID = 3032;
    /** Snapshots skipped, no snapshot subscriber connected. */
    public static final int FANOUT_SNAPSHOTS_SKIPPED_TYPE_ID = 3033;
    /** Snapshot messages published. */
    public static final int FANOUT_SNAPSHOT_MESSAGES_SENT_TYPE_ID = 3034;
    /** Snapshot bytes published. */
    public static final int FANOUT_SNAPSHOT_BYTES_SENT_TYPE_ID = 3035;
    /** Snapshot offers refused by back pressure. */
    public static final int FANOUT_SNAPSHOT_BACK_PRESSURE_EVENTS_TYPE_ID = 3036;

    // Fanout: its source, fanout-wide (no key).

    /** Gauge: status of the fanout's source. */
    public static final int FANOUT_SOURCE_STATUS_TYPE_ID = 3040;
    /** Gauge: age of the source's last heartbeat, in milliseconds. */
    public static final int FANOUT_SOURCE_HEARTBEAT_AGE_TYPE_ID = 3041;
    /** Times the source went down. */
    public static final int FANOUT_SOURCE_DOWN_EVENTS_TYPE_ID = 3042;

    // Fanout: derived streams (key: partition id, an int at offset 0, then the FeedStream's ordinal, an int at 4).

    /** Derived messages published (or dropped with no subscriber or under back pressure: they took a sequence). */
    public static final int FANOUT_DERIVED_MESSAGES_TYPE_ID = 3050;
    /** Derived packets published. */
    public static final int FANOUT_DERIVED_PACKETS_TYPE_ID = 3051;
    /** Derived bytes published (packets, headers included). */
    public static final int FANOUT_DERIVED_BYTES_TYPE_ID = 3052;
    /** Derived heartbeats sent. */
    public static final int FANOUT_DERIVED_HEARTBEATS_TYPE_ID = 3053;
    /** Derived messages dropped because no subscriber was connected. */
    public static final int FANOUT_DERIVED_NOT_CONNECTED_DROPPED_TYPE_ID = 3054;
    /** Derived messages dropped under back pressure (their subscribers see a gap and recover from a snapshot). */
    public static final int FANOUT_DERIVED_BACK_PRESSURE_DROPPED_TYPE_ID = 3055;
    /** Derived publication errors (closed or max position): the stream stopped. */
    public static final int FANOUT_DERIVED_PUBLICATION_ERRORS_TYPE_ID = 3056;
    /** Gauge: the derived stream's next stream sequence. */
    public static final int FANOUT_DERIVED_NEXT_STREAM_SEQUENCE_TYPE_ID = 3057;

    // Feed handler: arbitration per line (key: line index).

    /** Datagrams received on a line. */
    public static final int FEED_LINE_PACKETS_TYPE_ID = 3100;
    /** Messages a line delivered first. */
    public static final int FEED_LINE_MESSAGES_ACCEPTED_TYPE_ID = 3101;
    /** Messages of a line dropped as delivered already. */
    public static final int FEED_LINE_DUPLICATE_MESSAGES_TYPE_ID = 3102;
    /** Messages of a line that filled a gap. */
    public static final int FEED_LINE_GAP_FILL_MESSAGES_TYPE_ID = 3103;

    // Feed handler: arbitration and recovery (no key).

    /** Retransmission requests sent. */
    public static final int FEED_RETRANSMIT_REQUESTS_TYPE_ID = 3104;
    /** Retransmission requests retried. */
    public static final int FEED_RETRANSMIT_RETRIES_TYPE_ID = 3105;
    /** Retransmission requests timed out. */
    public static final int FEED_RETRANSMIT_TIMEOUTS_TYPE_ID = 3106;
    /** Retransmission requests the socket failed to send. */
    public static final int FEED_RETRANSMIT_SEND_ERRORS_TYPE_ID = 3107;
    /** Gaps detected. */
    public static final int FEED_GAPS_DETECTED_TYPE_ID = 3108;
    /** Gaps filled. */
    public static final int FEED_GAPS_FILLED_TYPE_ID = 3109;
    /** Gaps declared unrecoverable. */
    public static final int FEED_GAPS_DECLARED_TYPE_ID = 3110;
    /** Messages missing in declared gaps. */
    public static final int FEED_DECLARED_MISSING_MESSAGES_TYPE_ID = 3111;
    /** Gauge: messages held behind a gap. */
    public static final int FEED_MESSAGES_HELD_TYPE_ID = 3112;
    /** Gauge: lines silent. */
    public static final int FEED_LINES_SILENT_TYPE_ID = 3113;
    /** New sessions adopted after an end of session. */
    public static final int FEED_SESSIONS_ADOPTED_TYPE_ID = 3114;
    /** Packets of an ended session ignored. */
    public static final int FEED_ENDED_SESSION_PACKETS_TYPE_ID = 3115;
    /** Ring stalls. */
    public static final int FEED_RING_STALLS_TYPE_ID = 3116;
    /** Messages received while a ring stalled. */
    public static final int FEED_RING_STALL_MESSAGES_TYPE_ID = 3117;
    /** Partial answers of a one-packet re-request server followed at once by a request for the rest. */
    public static final int FEED_RETRANSMIT_FOLLOW_UPS_TYPE_ID = 3142;
    /** Gauge: how the re-request server answers, as learned (0 unknown, 1 one packet a request, 2 streams). */
    public static final int FEED_RETRANSMIT_SERVER_ANSWERS_TYPE_ID = 3143;
    /**
     * Gauge: 1 while every packet of the session has been below what the rings hold for the line silence: the
     * exchange restarted the session under the same name, or a recording of it is being replayed.
     */
    public static final int FEED_BEHIND_RINGS_TYPE_ID = 3144;
    /** Rebuilds of the rings from the exchange's snapshot (GLIMPSE) after a declared gap. */
    public static final int FEED_GLIMPSE_REBUILDS_TYPE_ID = 3145;
    /** Rebuilds not done: the exchange's snapshot did not load, or it was behind the feed (tried again later). */
    public static final int FEED_GLIMPSE_REBUILD_FAILURES_TYPE_ID = 3146;

    // Feed handler: receive and sequencing (no key).

    /** Datagrams received, every line together. */
    public static final int FEED_PACKETS_RECEIVED_TYPE_ID = 3118;
    /** Bytes of datagrams received. */
    public static final int FEED_BYTES_RECEIVED_TYPE_ID = 3119;
    /** Datagrams shorter than the MoldUDP64 header. */
    public static final int FEED_TRUNCATED_PACKETS_TYPE_ID = 3120;
    /** Datagrams whose sequence number no session reaches (at or above 2^63), skipped. */
    public static final int FEED_INVALID_SEQUENCE_PACKETS_TYPE_ID = 3141;
    /** Message blocks running past the end of their packet. */
    public static final int FEED_MALFORMED_BLOCKS_TYPE_ID = 3121;
    /** Packets of a wrong session. */
    public static final int FEED_WRONG_SESSION_PACKETS_TYPE_ID = 3122;
    /** Duplicate packets. */
    public static final int FEED_DUPLICATE_PACKETS_TYPE_ID = 3123;
    /** Duplicate messages, every line together. */
    public static final int FEED_DUPLICATE_MESSAGES_TYPE_ID = 3124;
    /** Sequence gaps. */
    public static final int FEED_SEQUENCE_GAPS_TYPE_ID = 3125;
    /** Messages lost in gaps. */
    public static final int FEED_MISSING_MESSAGES_TYPE_ID = 3126;
    /** End-of-session packets. */
    public static final int FEED_END_OF_SESSION_PACKETS_TYPE_ID = 3127;
    /** Stale end-of-session packets ignored. */
    public static final int FEED_STALE_END_OF_SESSION_PACKETS_TYPE_ID = 3128;
    /** Heartbeat packets. */
    public static final int FEED_HEARTBEATS_TYPE_ID = 3129;
    /** Socket receive errors. */
    public static final int FEED_RECEIVE_ERRORS_TYPE_ID = 3130;
    /** Packets failed with an unexpected error. */
    public static final int FEED_PACKET_ERRORS_TYPE_ID = 3131;

    // Feed handler: ITCH decode and normalization.

    /** ITCH messages decoded (key: the message type character). */
    public static final int FEED_MESSAGES_DECODED_TYPE_ID = 3132;
    /** Messages normalized and written to the rings. */
    public static final int FEED_MESSAGES_NORMALIZED_TYPE_ID = 3133;
    /** Ring records written. */
    public static final int FEED_RING_RECORDS_WRITTEN_TYPE_ID = 3134;
    /** GapNotice messages published. */
    public static final int FEED_GAP_NOTICES_TYPE_ID = 3135;
    /** Messages of an unknown type. */
    public static final int FEED_UNKNOWN_TYPE_MESSAGES_TYPE_ID = 3136;
    /** Messages shorter than their type. */
    public static final int FEED_INVALID_LENGTH_MESSAGES_TYPE_ID = 3137;
    /** Messages with an invalid field. */
    public static final int FEED_INVALID_FIELD_MESSAGES_TYPE_ID = 3138;
    /** Ring writes abandoned on interrupt. */
    public static final int FEED_RING_WRITES_ABANDONED_TYPE_ID = 3139;
    /** Ring-full waits (key: partition id). */
    public static final int FEED_RING_FULL_WAITS_TYPE_ID = 3140;

    // Replay of ITCH files (no key).

    /** Records read. */
    public static final int REPLAY_RECORDS_READ_TYPE_ID = 3150;
    /** Message bytes read. */
    public static final int REPLAY_BYTES_READ_TYPE_ID = 3151;
    /** Records truncated by the end of the file. */
    public static final int REPLAY_TRUNCATED_RECORDS_TYPE_ID = 3152;
    /** Zero-length records of unknown type. */
    public static final int REPLAY_UNFRAMEABLE_RECORDS_TYPE_ID = 3153;
    /** Bytes of the file read. */
    public static final int REPLAY_FILE_BYTES_READ_TYPE_ID = 3154;

    // Replay of packet captures (no key).

    /** Packet records read. */
    public static final int CAPTURE_RECORDS_TYPE_ID = 3160;
    /** Records captured shorter than on the wire. */
    public static final int CAPTURE_SNAPPED_RECORDS_TYPE_ID = 3161;
    /** Malformed records or frames. */
    public static final int CAPTURE_MALFORMED_RECORDS_TYPE_ID = 3162;
    /** Records of an unsupported link type. */
    public static final int CAPTURE_UNKNOWN_LINK_TYPE_TYPE_ID = 3163;
    /** Frames not IPv4. */
    public static final int CAPTURE_NON_IPV4_TYPE_ID = 3164;
    /** IPv4 datagrams not UDP. */
    public static final int CAPTURE_NON_UDP_TYPE_ID = 3165;
    /** IPv4 fragments after the first. */
    public static final int CAPTURE_FRAGMENTS_SKIPPED_TYPE_ID = 3166;
    /** First IPv4 fragments. */
    public static final int CAPTURE_FIRST_FRAGMENTS_TYPE_ID = 3167;
    /** UDP datagrams not matching the filter. */
    public static final int CAPTURE_FILTERED_OUT_TYPE_ID = 3168;
    /** UDP datagrams processed as MoldUDP64. */
    public static final int CAPTURE_DATAGRAMS_TYPE_ID = 3169;
    /** pcapng blocks of other types. */
    public static final int CAPTURE_OTHER_BLOCKS_TYPE_ID = 3170;
    /** Records or blocks cut short by the end of the file. */
    public static final int CAPTURE_TRUNCATED_AT_END_TYPE_ID = 3171;

    // Archive (key: the partition id, an int at offset 0; per-reason counters: then the reason, an ASCII string;
    // the archive-wide ones: partition -1).

    /** Bytes of a partition's stream recorded (the recording's position past its start). */
    public static final int ARCHIVE_RECORDED_BYTES_TYPE_ID = 3200;
    /** Normalized messages of a partition found in its recording. */
    public static final int ARCHIVE_RECORDED_MESSAGES_TYPE_ID = 3201;
    /** Bytes the archive received for a partition but has not written yet. */
    public static final int ARCHIVE_LAG_BYTES_TYPE_ID = 3202;
    /** 1 while a recording of the partition runs, 0 when none does. */
    public static final int ARCHIVE_RECORDING_ACTIVE_TYPE_ID = 3203;
    /** Stretches of a partition's stream the archive did not record. */
    public static final int ARCHIVE_HOLES_TYPE_ID = 3204;
    /** Messages in those stretches. */
    public static final int ARCHIVE_HOLE_MESSAGES_TYPE_ID = 3205;
    /** Recordings stopped by an error, per reason (disk full, I/O error). */
    public static final int ARCHIVE_RECORDING_ERRORS_TYPE_ID = 3206;
    /** Free bytes of the archive directory's file system (partition -1). */
    public static final int ARCHIVE_DISK_FREE_BYTES_TYPE_ID = 3207;
    /** Size of the archive directory's file system (partition -1). */
    public static final int ARCHIVE_DISK_TOTAL_BYTES_TYPE_ID = 3208;
    /** Sessions whose recordings are kept (partition -1). */
    public static final int ARCHIVE_SESSIONS_RETAINED_TYPE_ID = 3209;
    /** Sessions deleted by retention (partition -1). */
    public static final int ARCHIVE_SESSIONS_DELETED_TYPE_ID = 3210;
    /** Exceptions caught by the archive's duty cycle (partition -1). */
    public static final int ARCHIVE_DUTY_CYCLE_ERRORS_TYPE_ID = 3211;
    /** Sessions the exchange ended and the archive rolled on from, into the next day's (partition -1). */
    public static final int ARCHIVE_SESSIONS_ROLLED_TYPE_ID = 3212;

    // Simulator: every counter shares one type id (it exports no metrics; its counters are printed only).

    /** Every counter of the exchange simulator. */
    public static final int SIMULATOR_TYPE_ID = 7101;

    // SDK subscriber (key: the subscriber's name; per-reason counters: then the reason).

    /** Packets accepted. */
    public static final int SUBSCRIBER_PACKETS_TYPE_ID = 7001_100;
    /** Messages delivered. */
    public static final int SUBSCRIBER_MESSAGES_TYPE_ID = 7001_101;
    /** Heartbeats accepted. */
    public static final int SUBSCRIBER_HEARTBEATS_TYPE_ID = 7001_102;
    /** Stream gaps. */
    public static final int SUBSCRIBER_GAPS_TYPE_ID = 7001_103;
    /** Messages missing in gaps. */
    public static final int SUBSCRIBER_MISSING_MESSAGES_TYPE_ID = 7001_104;
    /** Duplicate packets skipped. */
    public static final int SUBSCRIBER_DUPLICATE_PACKETS_TYPE_ID = 7001_105;
    /** Duplicate messages skipped. */
    public static final int SUBSCRIBER_DUPLICATE_MESSAGES_TYPE_ID = 7001_106;
    /** Malformed packets, every reason together. */
    public static final int SUBSCRIBER_MALFORMED_TYPE_ID = 7001_107;
    /** Listener exceptions. */
    public static final int SUBSCRIBER_LISTENER_ERRORS_TYPE_ID = 7001_108;
    /** Malformed packets of one reason. */
    public static final int SUBSCRIBER_MALFORMED_BY_REASON_TYPE_ID = 7001_109;
    /** Stale events, every reason together. */
    public static final int SUBSCRIBER_STALE_EVENTS_TYPE_ID = 7001_110;
    /** Stale events of one reason. */
    public static final int SUBSCRIBER_STALE_BY_REASON_TYPE_ID = 7001_111;
    /** Recoveries completed. */
    public static final int SUBSCRIBER_RECOVERIES_TYPE_ID = 7001_112;
    /** Recovery attempts abandoned. */
    public static final int SUBSCRIBER_RECOVERY_ATTEMPTS_ABANDONED_TYPE_ID = 7001_113;
    /** Snapshots applied. */
    public static final int SUBSCRIBER_SNAPSHOTS_APPLIED_TYPE_ID = 7001_114;
    /** Snapshots ignored. */
    public static final int SUBSCRIBER_SNAPSHOTS_IGNORED_TYPE_ID = 7001_115;
    /** Recovery buffer overflows. */
    public static final int SUBSCRIBER_RECOVERY_BUFFER_OVERFLOWS_TYPE_ID = 7001_116;
    /** Messages filtered because the snapshot held them. */
    public static final int SUBSCRIBER_FILTERED_MESSAGES_TYPE_ID = 7001_117;
    /** Snapshot packets received. */
    public static final int SUBSCRIBER_SNAPSHOT_PACKETS_TYPE_ID = 7001_118;
    /** Snapshot stream gaps. */
    public static final int SUBSCRIBER_SNAPSHOT_GAPS_TYPE_ID = 7001_119;
    /** Malformed snapshot packets. */
    public static final int SUBSCRIBER_MALFORMED_SNAPSHOT_PACKETS_TYPE_ID = 7001_120;
    /** Packets of an earlier publication session ignored. */
    public static final int SUBSCRIBER_OLD_SESSION_PACKETS_TYPE_ID = 7001_121;
    /** Streams gone silent. */
    public static final int SUBSCRIBER_SILENT_STREAMS_TYPE_ID = 7001_122;
    /** Errors re-creating a subscription. */
    public static final int SUBSCRIBER_SUBSCRIPTION_ERRORS_TYPE_ID = 7001_123;
    /** Partitions switched from an archive replay to the live stream. */
    public static final int SUBSCRIBER_REPLAY_SWITCHES_TYPE_ID = 7001_124;
    /** Messages delivered from an archive replay (priming included). */
    public static final int SUBSCRIBER_REPLAYED_MESSAGES_TYPE_ID = 7001_125;
    /** Gauge: partitions stale now (recovering, or their source down). */
    public static final int SUBSCRIBER_STALE_PARTITIONS_TYPE_ID = 7001_126;
    /** Gauge: partitions recovering now (messages lost or possibly lost; waiting for a snapshot). */
    public static final int SUBSCRIBER_RECOVERING_PARTITIONS_TYPE_ID = 7001_127;
    /** Gauge: partitions whose session lost exchange messages for good (a GapNotice: stale EXCHANGE_GAP). */
    public static final int SUBSCRIBER_EXCHANGE_GAP_PARTITIONS_TYPE_ID = 7001_128;
    /** Streams that started again at their first message after the exchange ended the day (a new trading day). */
    public static final int SUBSCRIBER_NEW_DAYS_TYPE_ID = 7001_129;
    /** A pair's side (key: the subscriber's name, then the side, "A" or "B"): messages it delivered first. */
    public static final int SUBSCRIBER_SIDE_MESSAGES_TYPE_ID = 7001_130;
    /** A pair's side: messages it sent that the other side had delivered already (dropped). */
    public static final int SUBSCRIBER_SIDE_DUPLICATES_TYPE_ID = 7001_131;
    /** A pair's side: packets refused because the side disagrees (schema, partitioning, exchange session). */
    public static final int SUBSCRIBER_SIDE_REFUSED_TYPE_ID = 7001_132;
    /** Gauge, a pair's side: partitions on which the side is silent now. */
    public static final int SUBSCRIBER_SIDE_SILENT_PARTITIONS_TYPE_ID = 7001_133;
    /** Gauge, a pair's side: exchange sequences it is behind what was delivered, the most over its partitions. */
    public static final int SUBSCRIBER_SIDE_BEHIND_TYPE_ID = 7001_134;
    /** A pair's side: its copies of delivered messages whose bytes differed (the side is refused until the next day). */
    public static final int SUBSCRIBER_SIDE_MISMATCHES_TYPE_ID = 7001_135;
    /** Bytes of the Aeron messages a subscriber received (packets and heartbeats, snapshot streams included). */
    public static final int SUBSCRIBER_RECEIVED_BYTES_TYPE_ID = 7001_136;

    // SDK order books (key: the subscriber's name).

    /** Order events applied. */
    public static final int BOOK_ORDER_EVENTS_APPLIED_TYPE_ID = 7001_200;
    /** Unknown order references ignored. */
    public static final int BOOK_UNKNOWN_ORDER_REFERENCES_TYPE_ID = 7001_201;
    /** Duplicate order ids ignored. */
    public static final int BOOK_DUPLICATE_ORDER_IDS_TYPE_ID = 7001_202;
    /** Invalid orders ignored. */
    public static final int BOOK_INVALID_ORDERS_TYPE_ID = 7001_203;

    /** Longest subscriber name kept in a key (a counter's key holds at most 112 bytes); longer names are cut. */
    public static final int MAX_SUBSCRIBER_NAME_IN_KEY = 64;
    /** Longest reason label kept in a key. */
    public static final int MAX_REASON_IN_KEY = 40;

    private MdfanoutCounters()
    {
    }

    /**
     * Write the key of an SDK counter: the subscriber's name.
     *
     * @param key  the counter's key buffer.
     * @param name the subscriber's name, cut to {@link #MAX_SUBSCRIBER_NAME_IN_KEY} characters.
     * @return the bytes written.
     */
    public static int putSubscriberKey(final MutableDirectBuffer key, final String name)
    {
        return key.putStringAscii(0, cut(name, MAX_SUBSCRIBER_NAME_IN_KEY));
    }

    /**
     * Write the key of an SDK per-reason counter: the subscriber's name, then the reason's label.
     *
     * @param key    the counter's key buffer.
     * @param name   the subscriber's name, cut to {@link #MAX_SUBSCRIBER_NAME_IN_KEY} characters.
     * @param reason the reason's label, e.g. "late join", cut to {@link #MAX_REASON_IN_KEY} characters.
     * @return the bytes written.
     */
    public static int putSubscriberReasonKey(final MutableDirectBuffer key, final String name, final String reason)
    {
        final int length = putSubscriberKey(key, name);
        return length + key.putStringAscii(length, cut(reason, MAX_REASON_IN_KEY));
    }

    private static String cut(final String text, final int maxLength)
    {
        return text.length() > maxLength ? text.substring(0, maxLength) : text;
    }
}
