package io.mdfanout.metrics;

import io.mdfanout.wire.MarketSession;
import org.agrona.collections.Int2ObjectHashMap;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static io.mdfanout.metrics.MetricKind.COUNTER;
import static io.mdfanout.metrics.MetricKind.GAUGE;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_DISK_FREE_BYTES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_DISK_TOTAL_BYTES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_DUTY_CYCLE_ERRORS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_HOLES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_HOLE_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_LAG_BYTES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_RECORDED_BYTES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_RECORDED_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_RECORDING_ACTIVE_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_RECORDING_ERRORS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_SESSIONS_DELETED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_SESSIONS_ROLLED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.ARCHIVE_SESSIONS_RETAINED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.BOOK_DUPLICATE_ORDER_IDS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.BOOK_INVALID_ORDERS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.BOOK_ORDER_EVENTS_APPLIED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.BOOK_UNKNOWN_ORDER_REFERENCES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_BACK_PRESSURE_EVENTS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_CHAIN_POSITION_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_DUTY_CYCLE_ERRORS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_HEARTBEATS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_INVALID_RECORDS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_MARKET_SESSION_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_MAX_MESSAGES_PER_PACKET_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_DERIVED_BACK_PRESSURE_DROPPED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_DERIVED_BYTES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_DERIVED_HEARTBEATS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_DERIVED_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_DERIVED_NEXT_STREAM_SEQUENCE_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_DERIVED_NOT_CONNECTED_DROPPED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_DERIVED_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_DERIVED_PUBLICATION_ERRORS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_MESSAGES_PUBLISHED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_NEXT_STREAM_SEQUENCE_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_NOT_CONNECTED_DROPPED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_PACKETS_PUBLISHED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_PUBLICATION_ERRORS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_RECORDS_READ_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SNAPSHOTS_ABANDONED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SNAPSHOTS_COMPLETED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SNAPSHOTS_SKIPPED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SNAPSHOTS_STARTED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SNAPSHOT_BACK_PRESSURE_EVENTS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SNAPSHOT_BYTES_SENT_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SNAPSHOT_MESSAGES_SENT_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SOURCE_DOWN_EVENTS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SOURCE_HEARTBEAT_AGE_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_SOURCE_STATUS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_STATE_INSTRUMENTS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_STATE_ORDERS_REJECTED_POOL_FULL_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_STATE_ORDERS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_STATE_RECORDS_SKIPPED_AFTER_RESTART_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_STATE_REJECTED_UPDATES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_STATE_RESETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_STATE_ROLLED_BACK_STORES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FANOUT_STATE_UNKNOWN_ORDER_UPDATES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_BEHIND_RINGS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_BYTES_RECEIVED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_DECLARED_MISSING_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_DUPLICATE_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_DUPLICATE_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_ENDED_SESSION_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_END_OF_SESSION_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_GAPS_DECLARED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_GAPS_DETECTED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_GAPS_FILLED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_GAP_NOTICES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_HEARTBEATS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_INVALID_FIELD_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_INVALID_LENGTH_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_INVALID_SEQUENCE_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_LINES_SILENT_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_LINE_DUPLICATE_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_LINE_GAP_FILL_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_LINE_MESSAGES_ACCEPTED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_LINE_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_MALFORMED_BLOCKS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_MESSAGES_DECODED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_MESSAGES_HELD_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_MESSAGES_NORMALIZED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_MISSING_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_PACKETS_RECEIVED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_PACKET_ERRORS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RECEIVE_ERRORS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RETRANSMIT_REQUESTS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RETRANSMIT_FOLLOW_UPS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RETRANSMIT_RETRIES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RETRANSMIT_SERVER_ANSWERS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RETRANSMIT_SEND_ERRORS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RETRANSMIT_TIMEOUTS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RING_FULL_WAITS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RING_RECORDS_WRITTEN_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_GLIMPSE_REBUILDS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_GLIMPSE_REBUILD_FAILURES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RING_STALLS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RING_STALL_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_RING_WRITES_ABANDONED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_SEQUENCE_GAPS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_SESSIONS_ADOPTED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_STALE_END_OF_SESSION_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_TRUNCATED_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_UNKNOWN_TYPE_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.FEED_WRONG_SESSION_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_DUPLICATE_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_DUPLICATE_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_FILTERED_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_GAPS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_HEARTBEATS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_LISTENER_ERRORS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_MALFORMED_BY_REASON_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_MALFORMED_SNAPSHOT_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_MALFORMED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_MISSING_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_OLD_SESSION_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_RECEIVED_BYTES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_NEW_DAYS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SIDE_BEHIND_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SIDE_DUPLICATES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SIDE_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SIDE_MISMATCHES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SIDE_REFUSED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SIDE_SILENT_PARTITIONS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_RECOVERIES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_RECOVERY_ATTEMPTS_ABANDONED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_EXCHANGE_GAP_PARTITIONS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_RECOVERING_PARTITIONS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_RECOVERY_BUFFER_OVERFLOWS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SILENT_STREAMS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SNAPSHOTS_APPLIED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SNAPSHOTS_IGNORED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SNAPSHOT_GAPS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SNAPSHOT_PACKETS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_STALE_BY_REASON_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_STALE_EVENTS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_STALE_PARTITIONS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_REPLAYED_MESSAGES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_REPLAY_SWITCHES_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.SUBSCRIBER_SUBSCRIPTION_ERRORS_TYPE_ID;

/**
 * The table mapping every mdfanout counter type id ({@link io.mdfanout.wire.MdfanoutCounters}) to its Prometheus
 * metric family and the way its labels come from the counter's key. One family per quantity: a breakdown is a
 * label of the family (line, partition, type, reason), and a total kept beside its breakdown is folded (not
 * exported: sum() over the breakdown gives it). The scrape tests of each role fail on any counter this table
 * does not know.
 */
public final class CounterMappings
{
    private static final List<CounterRule> RULES;
    private static final Int2ObjectHashMap<CounterRule> BY_TYPE_ID = new Int2ObjectHashMap<>();

    static
    {
        final List<CounterRule> rules = new ArrayList<>();

        // Feed handler: arbitration per line (A, B, R = retransmission replies).
        add(rules, FEED_LINE_PACKETS_TYPE_ID, "mdfanout_feed_packets_received_total", COUNTER, CounterKey.LINE,
            "MoldUDP64 datagrams received per line, valid or not.");
        add(rules, FEED_LINE_MESSAGES_ACCEPTED_TYPE_ID, "mdfanout_feed_messages_accepted_total", COUNTER,
            CounterKey.LINE, "Messages a line delivered first (gap fills included).");
        add(rules, FEED_LINE_DUPLICATE_MESSAGES_TYPE_ID, "mdfanout_feed_duplicate_messages_total", COUNTER,
            CounterKey.LINE, "Messages of a line skipped because their sequence had been delivered already.");
        add(rules, FEED_LINE_GAP_FILL_MESSAGES_TYPE_ID, "mdfanout_feed_gap_fill_messages_total", COUNTER,
            CounterKey.LINE, "Messages of a line that filled a missing sequence of an open gap.");
        plain(rules, FEED_RETRANSMIT_REQUESTS_TYPE_ID, "mdfanout_feed_retransmit_requests_total", COUNTER,
            "MoldUDP64 retransmission requests sent (first attempts).");
        plain(rules, FEED_RETRANSMIT_RETRIES_TYPE_ID, "mdfanout_feed_retransmit_retries_total", COUNTER,
            "Retransmission requests sent again after a silence of the timeout.");
        plain(rules, FEED_RETRANSMIT_TIMEOUTS_TYPE_ID, "mdfanout_feed_retransmit_timeouts_total", COUNTER,
            "Retransmission requests sent again after the request and the server were silent for the timeout.");
        plain(rules, FEED_RETRANSMIT_FOLLOW_UPS_TYPE_ID, "mdfanout_feed_retransmit_follow_ups_total", COUNTER,
            "Partial answers of a one-packet re-request server followed at once by a request for the rest.");
        plain(rules, FEED_BEHIND_RINGS_TYPE_ID, "mdfanout_feed_behind_rings", GAUGE,
            "1 while every packet of the session has been below the sequence the rings hold, for the line silence: " +
            "the exchange restarted the session under the same name (or a recording of it plays); nothing is written.");
        plain(rules, FEED_RETRANSMIT_SERVER_ANSWERS_TYPE_ID, "mdfanout_feed_retransmit_server_answers", GAUGE,
            "How the re-request server answers a request, as learned: 0 not known yet, 1 one packet a request " +
            "(MoldUDP64's specification), 2 as many packets as the request needs.");
        plain(rules, FEED_RETRANSMIT_SEND_ERRORS_TYPE_ID, "mdfanout_feed_retransmit_send_errors_total", COUNTER,
            "Retransmission requests the socket failed to send.");
        plain(rules, FEED_GAPS_DETECTED_TYPE_ID, "mdfanout_feed_gaps_detected_total", COUNTER,
            "Sequence gaps detected.");
        plain(rules, FEED_GAPS_FILLED_TYPE_ID, "mdfanout_feed_gaps_filled_total", COUNTER,
            "Gaps completely filled by the other line or by retransmission.");
        plain(rules, FEED_GAPS_DECLARED_TYPE_ID, "mdfanout_feed_gaps_declared_total", COUNTER,
            "Gaps declared unrecoverable (each published as a GapNotice).");
        plain(rules, FEED_MESSAGES_HELD_TYPE_ID, "mdfanout_feed_held_messages", GAUGE,
            "Messages held behind an open gap now.");
        plain(rules, FEED_LINES_SILENT_TYPE_ID, "mdfanout_feed_silent_lines", GAUGE,
            "Lines silent for longer than the silence threshold now.");
        plain(rules, FEED_SESSIONS_ADOPTED_TYPE_ID, "mdfanout_feed_sessions_adopted_total", COUNTER,
            "New MoldUDP64 sessions adopted after an end of session.");
        plain(rules, FEED_RING_STALLS_TYPE_ID, "mdfanout_feed_ring_stalls_total", COUNTER,
            "Times a partition ring stayed full past the ring-full wait (the fanout not draining): the feed handler " +
            "stopped writing, read on, and requested (or declared) what it could not write once the rings drained.");
        plain(rules, FEED_RING_STALL_MESSAGES_TYPE_ID, "mdfanout_feed_ring_stall_messages_total", COUNTER,
            "Messages received while a ring stalled: requested from the re-request server (or declared) afterwards.");
        plain(rules, FEED_GLIMPSE_REBUILDS_TYPE_ID, "mdfanout_feed_glimpse_rebuilds_total", COUNTER,
            "Rings rebuilt from the exchange's snapshot (GLIMPSE) after a declared gap: a new generation the fanout " +
            "follows, whose snapshots recover subscribers to exact books.");
        plain(rules, FEED_GLIMPSE_REBUILD_FAILURES_TYPE_ID, "mdfanout_feed_glimpse_rebuild_failures_total", COUNTER,
            "Rebuilds from the exchange's snapshot not done: it did not load, or it was behind the feed (tried again " +
            "every 5 s; the declared gap stays meanwhile).");
        plain(rules, FEED_ENDED_SESSION_PACKETS_TYPE_ID, "mdfanout_feed_ended_session_packets_total", COUNTER,
            "Packets of an ended session, ignored.");

        // Feed handler: receive and sequencing.
        plain(rules, FEED_BYTES_RECEIVED_TYPE_ID, "mdfanout_feed_received_bytes_total", COUNTER,
            "Bytes of datagrams received.");
        plain(rules, FEED_TRUNCATED_PACKETS_TYPE_ID, "mdfanout_feed_truncated_packets_total", COUNTER,
            "Datagrams shorter than the MoldUDP64 header, skipped.");
        plain(rules, FEED_INVALID_SEQUENCE_PACKETS_TYPE_ID, "mdfanout_feed_invalid_sequence_packets_total", COUNTER,
            "Datagrams whose sequence number no session reaches (2^63 or more, a corrupted header), skipped.");
        plain(rules, FEED_MALFORMED_BLOCKS_TYPE_ID, "mdfanout_feed_malformed_blocks_total", COUNTER,
            "Message blocks running past the end of their packet; the rest of the packet is dropped.");
        plain(rules, FEED_WRONG_SESSION_PACKETS_TYPE_ID, "mdfanout_feed_wrong_session_packets_total", COUNTER,
            "Packets of another session than the configured or adopted one, skipped.");
        plain(rules, FEED_DUPLICATE_PACKETS_TYPE_ID, "mdfanout_feed_duplicate_packets_total", COUNTER,
            "Packets whose every message had been seen already.");
        plain(rules, FEED_MISSING_MESSAGES_TYPE_ID, "mdfanout_feed_missing_messages_total", COUNTER,
            "Messages lost in gaps declared unrecoverable.");
        plain(rules, FEED_END_OF_SESSION_PACKETS_TYPE_ID, "mdfanout_feed_end_of_session_packets_total", COUNTER,
            "MoldUDP64 end-of-session packets received.");
        plain(rules, FEED_STALE_END_OF_SESSION_PACKETS_TYPE_ID, "mdfanout_feed_stale_end_of_session_packets_total",
            COUNTER, "End-of-session packets whose sequence is below messages already received or announced, ignored.");
        plain(rules, FEED_HEARTBEATS_TYPE_ID, "mdfanout_feed_heartbeats_total", COUNTER,
            "MoldUDP64 heartbeat packets received.");
        plain(rules, FEED_RECEIVE_ERRORS_TYPE_ID, "mdfanout_feed_receive_errors_total", COUNTER,
            "Socket receive calls that failed with an I/O error.");
        plain(rules, FEED_PACKET_ERRORS_TYPE_ID, "mdfanout_feed_packet_errors_total", COUNTER,
            "Packets whose processing hit an unexpected error (a bug); the rest of the packet is dropped.");
        // Second counters of quantities exported above (the sequencer's, kept for replay and the stats line).
        rules.add(CounterRule.folded(FEED_PACKETS_RECEIVED_TYPE_ID, "mdfanout_feed_packets_received_total"));
        rules.add(CounterRule.folded(FEED_DUPLICATE_MESSAGES_TYPE_ID, "mdfanout_feed_duplicate_messages_total"));
        rules.add(CounterRule.folded(FEED_SEQUENCE_GAPS_TYPE_ID, "mdfanout_feed_gaps_declared_total"));
        rules.add(CounterRule.folded(FEED_DECLARED_MISSING_MESSAGES_TYPE_ID, "mdfanout_feed_missing_messages_total"));

        // Feed handler: ITCH decode and normalization into the rings.
        add(rules, FEED_MESSAGES_DECODED_TYPE_ID, "mdfanout_feed_messages_decoded_total", COUNTER,
            CounterKey.ITCH_TYPE, "ITCH 5.0 messages decoded, per message type.");
        plain(rules, FEED_MESSAGES_NORMALIZED_TYPE_ID, "mdfanout_feed_messages_normalized_total", COUNTER,
            "ITCH messages normalized and written to the rings (once per message).");
        plain(rules, FEED_RING_RECORDS_WRITTEN_TYPE_ID, "mdfanout_feed_ring_records_written_total", COUNTER,
            "Records committed to the partition rings (a market-wide message once per partition).");
        plain(rules, FEED_GAP_NOTICES_TYPE_ID, "mdfanout_feed_gap_notices_total", COUNTER,
            "GapNotice messages published.");
        plain(rules, FEED_UNKNOWN_TYPE_MESSAGES_TYPE_ID, "mdfanout_feed_unknown_type_messages_total", COUNTER,
            "Messages of a type that is not ITCH 5.0, skipped.");
        plain(rules, FEED_INVALID_LENGTH_MESSAGES_TYPE_ID, "mdfanout_feed_invalid_length_messages_total", COUNTER,
            "Messages shorter than their type's length, skipped.");
        plain(rules, FEED_INVALID_FIELD_MESSAGES_TYPE_ID, "mdfanout_feed_invalid_field_messages_total", COUNTER,
            "Messages with an enumerated field outside the specification, skipped.");
        plain(rules, FEED_RING_WRITES_ABANDONED_TYPE_ID, "mdfanout_feed_ring_writes_abandoned_total", COUNTER,
            "Ring writes given up at shutdown while the ring stayed full.");
        add(rules, FEED_RING_FULL_WAITS_TYPE_ID, "mdfanout_feed_ring_full_waits_total", COUNTER, CounterKey.PARTITION,
            "Times a ring write found the partition's ring full and waited for the fanout.");

        // Archive (partition -1: the archive as a whole; side: which side of a pair a recording is of, A for one fanout;
        // holes are the archive's, of the pair: what no side recorded).
        side(rules, ARCHIVE_RECORDED_BYTES_TYPE_ID, "mdfanout_archive_recorded_bytes_total", COUNTER,
            "Bytes of the partition's stream recorded.");
        side(rules, ARCHIVE_RECORDED_MESSAGES_TYPE_ID, "mdfanout_archive_recorded_messages_total", COUNTER,
            "Normalized messages of the partition found in its recordings.");
        side(rules, ARCHIVE_LAG_BYTES_TYPE_ID, "mdfanout_archive_lag_bytes", GAUGE,
            "Bytes of the partition's stream received by the archive but not yet written: it falls behind.");
        side(rules, ARCHIVE_RECORDING_ACTIVE_TYPE_ID, "mdfanout_archive_recording_active", GAUGE,
            "1 while a recording of the partition runs, 0 when none does.");
        partition(rules, ARCHIVE_HOLES_TYPE_ID, "mdfanout_archive_holes_total", COUNTER,
            "Stretches of the partition's stream the archive did not record (a restart, a stopped recording).");
        partition(rules, ARCHIVE_HOLE_MESSAGES_TYPE_ID, "mdfanout_archive_hole_messages_total", COUNTER,
            "Messages in the stretches the archive did not record.");
        add(rules, ARCHIVE_RECORDING_ERRORS_TYPE_ID, "mdfanout_archive_recording_errors_total", COUNTER,
            CounterKey.PARTITION_SIDE_REASON, "Recordings stopped by an error, per side and reason (disk_full, io_error).");
        plain(rules, ARCHIVE_DISK_FREE_BYTES_TYPE_ID, "mdfanout_archive_disk_free_bytes", GAUGE,
            "Free bytes of the archive directory's file system.");
        plain(rules, ARCHIVE_DISK_TOTAL_BYTES_TYPE_ID, "mdfanout_archive_disk_total_bytes", GAUGE,
            "Size of the archive directory's file system.");
        plain(rules, ARCHIVE_SESSIONS_RETAINED_TYPE_ID, "mdfanout_archive_sessions_retained", GAUGE,
            "Trading sessions whose recordings the archive keeps.");
        plain(rules, ARCHIVE_SESSIONS_DELETED_TYPE_ID, "mdfanout_archive_sessions_deleted_total", COUNTER,
            "Trading sessions whose recordings retention deleted.");
        plain(rules, ARCHIVE_SESSIONS_ROLLED_TYPE_ID, "mdfanout_archive_sessions_rolled_total", COUNTER,
            "Trading sessions the exchange ended (End of Messages) after which the archive records the next one.");
        plain(rules, ARCHIVE_DUTY_CYCLE_ERRORS_TYPE_ID, "mdfanout_archive_duty_cycle_errors_total", COUNTER,
            "Exceptions caught by the archive's duty cycle (should stay 0).");

        // Fanout.
        plain(rules, FANOUT_DUTY_CYCLE_ERRORS_TYPE_ID, "mdfanout_fanout_duty_cycle_errors_total", COUNTER,
            "Exceptions caught by the fanout's agent runners (should stay 0).");
        partition(rules, FANOUT_RECORDS_READ_TYPE_ID, "mdfanout_fanout_ring_records_read_total", COUNTER,
            "Ring records consumed, valid or not.");
        partition(rules, FANOUT_MESSAGES_PUBLISHED_TYPE_ID, "mdfanout_fanout_messages_published_total", COUNTER,
            "Normalized messages published.");
        partition(rules, FANOUT_PACKETS_PUBLISHED_TYPE_ID, "mdfanout_fanout_packets_published_total", COUNTER,
            "Packets (batches, one Aeron message each) published.");
        partition(rules, FANOUT_MAX_MESSAGES_PER_PACKET_TYPE_ID, "mdfanout_fanout_max_messages_per_packet", GAUGE,
            "Most messages packed in one packet so far.");
        partition(rules, FANOUT_HEARTBEATS_TYPE_ID, "mdfanout_fanout_heartbeats_total", COUNTER,
            "Heartbeats published on idle streams.");
        partition(rules, FANOUT_BACK_PRESSURE_EVENTS_TYPE_ID, "mdfanout_fanout_back_pressure_events_total", COUNTER,
            "Offers refused by back pressure (packet held for retry).");
        partition(rules, FANOUT_NOT_CONNECTED_DROPPED_TYPE_ID, "mdfanout_fanout_not_connected_dropped_messages_total",
            COUNTER, "Messages dropped because no subscriber was connected.");
        partition(rules, FANOUT_INVALID_RECORDS_TYPE_ID, "mdfanout_fanout_invalid_records_total", COUNTER,
            "Invalid ring records skipped.");
        partition(rules, FANOUT_PUBLICATION_ERRORS_TYPE_ID, "mdfanout_fanout_publication_errors_total", COUNTER,
            "Publication errors (closed or max position).");
        partition(rules, FANOUT_NEXT_STREAM_SEQUENCE_TYPE_ID, "mdfanout_fanout_next_stream_sequence", GAUGE,
            "Stream sequence of the next message.");
        partition(rules, FANOUT_CHAIN_POSITION_TYPE_ID, "mdfanout_fanout_chain_position", GAUGE,
            "The partition's chain as sent: the exchange sequence of its last message (the identity a pair's sides " +
            "share: the difference between two sides' is the lag between them).");
        partitionStream(rules, FANOUT_DERIVED_MESSAGES_TYPE_ID, "mdfanout_fanout_derived_messages_total", COUNTER,
            "Derived messages given a stream sequence (published, or dropped and counted below), per derived stream.");
        partitionStream(rules, FANOUT_DERIVED_PACKETS_TYPE_ID, "mdfanout_fanout_derived_packets_published_total",
            COUNTER, "Derived packets published.");
        partitionStream(rules, FANOUT_DERIVED_BYTES_TYPE_ID, "mdfanout_fanout_derived_sent_bytes_total", COUNTER,
            "Derived packet bytes published, headers included: what a derived stream costs the network.");
        partitionStream(rules, FANOUT_DERIVED_HEARTBEATS_TYPE_ID, "mdfanout_fanout_derived_heartbeats_total", COUNTER,
            "Heartbeats published on idle derived streams.");
        partitionStream(rules, FANOUT_DERIVED_NOT_CONNECTED_DROPPED_TYPE_ID,
            "mdfanout_fanout_derived_not_connected_dropped_messages_total", COUNTER,
            "Derived messages dropped because no subscriber was connected.");
        partitionStream(rules, FANOUT_DERIVED_BACK_PRESSURE_DROPPED_TYPE_ID,
            "mdfanout_fanout_derived_back_pressure_dropped_messages_total", COUNTER,
            "Derived messages dropped because the stream's backlog was full (its subscribers saw a gap and recover " +
            "from a snapshot; the MBO stream never waits for a derived one).");
        partitionStream(rules, FANOUT_DERIVED_PUBLICATION_ERRORS_TYPE_ID,
            "mdfanout_fanout_derived_publication_errors_total", COUNTER,
            "Derived publication errors (closed or max position): the stream stopped.");
        partitionStream(rules, FANOUT_DERIVED_NEXT_STREAM_SEQUENCE_TYPE_ID,
            "mdfanout_fanout_derived_next_stream_sequence", GAUGE, "Stream sequence of the derived stream's next message.");
        partition(rules, FANOUT_STATE_ORDERS_TYPE_ID, "mdfanout_fanout_state_orders", GAUGE,
            "Orders held in the partition's state.");
        partition(rules, FANOUT_STATE_INSTRUMENTS_TYPE_ID, "mdfanout_fanout_state_instruments", GAUGE,
            "Instruments with state in the partition.");
        partition(rules, FANOUT_STATE_ORDERS_REJECTED_POOL_FULL_TYPE_ID,
            "mdfanout_fanout_state_orders_rejected_pool_full_total", COUNTER,
            "Orders rejected because the state's order pool was full.");
        partition(rules, FANOUT_STATE_UNKNOWN_ORDER_UPDATES_TYPE_ID,
            "mdfanout_fanout_state_unknown_order_updates_total", COUNTER, "State updates naming an unknown order id.");
        partition(rules, FANOUT_STATE_REJECTED_UPDATES_TYPE_ID, "mdfanout_fanout_state_rejected_updates_total", COUNTER,
            "State updates rejected (duplicate order id, bad side, instrument id out of range).");
        partition(rules, FANOUT_STATE_RECORDS_SKIPPED_AFTER_RESTART_TYPE_ID,
            "mdfanout_fanout_state_records_skipped_after_restart_total", COUNTER,
            "Ring records skipped after a restart because the state had applied them.");
        partition(rules, FANOUT_STATE_RESETS_TYPE_ID, "mdfanout_fanout_state_resets_total", COUNTER,
            "State resets (a new ring).");
        partition(rules, FANOUT_STATE_ROLLED_BACK_STORES_TYPE_ID, "mdfanout_fanout_state_stores_rolled_back_total",
            COUNTER, "State stores rolled back on open (unfinished message).");
        partitionStream(rules, FANOUT_SNAPSHOTS_STARTED_TYPE_ID, "mdfanout_fanout_snapshots_started_total", COUNTER,
            "Snapshots started.");
        partitionStream(rules, FANOUT_SNAPSHOTS_COMPLETED_TYPE_ID, "mdfanout_fanout_snapshots_completed_total", COUNTER,
            "Snapshots completely published.");
        partitionStream(rules, FANOUT_SNAPSHOTS_ABANDONED_TYPE_ID, "mdfanout_fanout_snapshots_abandoned_total", COUNTER,
            "Snapshots abandoned (not connected or closed).");
        partitionStream(rules, FANOUT_SNAPSHOTS_SKIPPED_TYPE_ID, "mdfanout_fanout_snapshots_skipped_total", COUNTER,
            "Snapshots skipped because no snapshot subscriber was connected.");
        partitionStream(rules, FANOUT_SNAPSHOT_MESSAGES_SENT_TYPE_ID, "mdfanout_fanout_snapshot_messages_sent_total",
            COUNTER, "Snapshot messages published.");
        partitionStream(rules, FANOUT_SNAPSHOT_BYTES_SENT_TYPE_ID, "mdfanout_fanout_snapshot_sent_bytes_total", COUNTER,
            "Snapshot bytes published.");
        partitionStream(rules, FANOUT_SNAPSHOT_BACK_PRESSURE_EVENTS_TYPE_ID,
            "mdfanout_fanout_snapshot_back_pressure_events_total", COUNTER,
            "Snapshot offers refused by back pressure.");
        rules.add(CounterRule.stateSet(FANOUT_MARKET_SESSION_TYPE_ID, "mdfanout_market_session_state",
            "The partition's market session after the exchange's last System Event (O pre_session, S pre_market, " +
            "Q open, M post_market, E closed, C ended; unknown before any): 1 for the current state, 0 for the others.",
            CounterKey.PARTITION, marketSessionLabels()));
        // The fanout's source, the feed handler writing its rings (fanout-wide).
        plain(rules, FANOUT_SOURCE_STATUS_TYPE_ID, "mdfanout_fanout_source_status", GAUGE,
            "Status of the fanout's source as its heartbeats announce it: 0 unknown, 1 live, 2 lines silent, " +
            "3 loading a snapshot, 4 stopped, 5 feed handler down (no heartbeat for --source-timeout-ms).");
        rules.add(CounterRule.exported(FANOUT_SOURCE_HEARTBEAT_AGE_TYPE_ID,
            "mdfanout_fanout_source_heartbeat_age_seconds", GAUGE,
            "Age of the feed handler's last heartbeat in the ring header, as the fanout last read it.",
            CounterKey.NONE, 0.001));
        plain(rules, FANOUT_SOURCE_DOWN_EVENTS_TYPE_ID, "mdfanout_fanout_source_down_events_total", COUNTER,
            "Times the fanout saw its source go from live or unknown to down (lines silent, loading, stopped, " +
            "feed handler down).");

        // Subscriber SDK.
        subscriber(rules, SUBSCRIBER_RECEIVED_BYTES_TYPE_ID, "mdfanout_subscriber_received_bytes_total",
            "Bytes of the Aeron messages received on every stream subscribed (incremental and snapshot): what the " +
            "subscriber's choice of streams and partitions costs it.");
        subscriber(rules, SUBSCRIBER_PACKETS_TYPE_ID, "mdfanout_subscriber_packets_received_total",
            "Packets accepted.");
        subscriber(rules, SUBSCRIBER_MESSAGES_TYPE_ID, "mdfanout_subscriber_messages_delivered_total",
            "Normalized messages delivered to the listener.");
        subscriber(rules, SUBSCRIBER_HEARTBEATS_TYPE_ID, "mdfanout_subscriber_heartbeats_received_total",
            "Heartbeats accepted.");
        subscriber(rules, SUBSCRIBER_GAPS_TYPE_ID, "mdfanout_subscriber_gaps_total", "Stream sequence gaps detected.");
        subscriber(rules, SUBSCRIBER_MISSING_MESSAGES_TYPE_ID, "mdfanout_subscriber_missing_messages_total",
            "Messages missing in gaps.");
        subscriber(rules, SUBSCRIBER_DUPLICATE_PACKETS_TYPE_ID, "mdfanout_subscriber_duplicate_packets_total",
            "Duplicate packets skipped.");
        subscriber(rules, SUBSCRIBER_DUPLICATE_MESSAGES_TYPE_ID, "mdfanout_subscriber_duplicate_messages_total",
            "Duplicate messages skipped.");
        add(rules, SUBSCRIBER_MALFORMED_BY_REASON_TYPE_ID, "mdfanout_subscriber_malformed_packets_total", COUNTER,
            CounterKey.SUBSCRIBER_REASON, "Malformed packets skipped, per reason.");
        rules.add(CounterRule.folded(SUBSCRIBER_MALFORMED_TYPE_ID, "mdfanout_subscriber_malformed_packets_total"));
        subscriber(rules, SUBSCRIBER_LISTENER_ERRORS_TYPE_ID, "mdfanout_subscriber_listener_errors_total",
            "Exceptions thrown by the application's listener.");
        add(rules, SUBSCRIBER_STALE_BY_REASON_TYPE_ID, "mdfanout_subscriber_stale_events_total", COUNTER,
            CounterKey.SUBSCRIBER_REASON, "Times a stream became stale, per reason.");
        rules.add(CounterRule.folded(SUBSCRIBER_STALE_EVENTS_TYPE_ID, "mdfanout_subscriber_stale_events_total"));
        subscriber(rules, SUBSCRIBER_RECOVERIES_TYPE_ID, "mdfanout_subscriber_recoveries_total",
            "Recoveries from a snapshot completed.");
        subscriber(rules, SUBSCRIBER_NEW_DAYS_TYPE_ID, "mdfanout_subscriber_new_days_total",
            "Partition streams that started again at their first message after the exchange ended the day.");
        add(rules, SUBSCRIBER_SIDE_MESSAGES_TYPE_ID, "mdfanout_subscriber_side_messages_total", COUNTER,
            CounterKey.SUBSCRIBER_SIDE, "A pair's side: messages it delivered first (the side that won).");
        add(rules, SUBSCRIBER_SIDE_DUPLICATES_TYPE_ID, "mdfanout_subscriber_side_duplicates_total", COUNTER,
            CounterKey.SUBSCRIBER_SIDE, "A pair's side: messages the other side had delivered already, dropped.");
        add(rules, SUBSCRIBER_SIDE_REFUSED_TYPE_ID, "mdfanout_subscriber_side_refused_packets_total", COUNTER,
            CounterKey.SUBSCRIBER_SIDE, "A pair's side: packets refused because the side disagrees with the other " +
            "(schema version, partitioning, exchange session); the reason goes to the error handler.");
        add(rules, SUBSCRIBER_SIDE_SILENT_PARTITIONS_TYPE_ID, "mdfanout_subscriber_side_silent_partitions", GAUGE,
            CounterKey.SUBSCRIBER_SIDE, "A pair's side: partitions on which the side is silent now.");
        add(rules, SUBSCRIBER_SIDE_BEHIND_TYPE_ID, "mdfanout_subscriber_side_behind_exchange_sequences", GAUGE,
            CounterKey.SUBSCRIBER_SIDE, "A pair's side: exchange sequences it is behind what was delivered, the most " +
            "over its partitions (the lag between sides).");
        add(rules, SUBSCRIBER_SIDE_MISMATCHES_TYPE_ID, "mdfanout_subscriber_side_mismatched_copies_total", COUNTER,
            CounterKey.SUBSCRIBER_SIDE, "A pair's side: its copies of delivered messages whose bytes differed from them " +
            "(the sides disagree on what the exchange sent); each refuses the side until the next trading day.");
        subscriber(rules, SUBSCRIBER_RECOVERY_ATTEMPTS_ABANDONED_TYPE_ID,
            "mdfanout_subscriber_recovery_attempts_abandoned_total", "Recovery attempts abandoned.");
        subscriber(rules, SUBSCRIBER_SNAPSHOTS_APPLIED_TYPE_ID, "mdfanout_subscriber_snapshots_applied_total",
            "Snapshots applied.");
        subscriber(rules, SUBSCRIBER_SNAPSHOTS_IGNORED_TYPE_ID, "mdfanout_subscriber_snapshots_ignored_total",
            "Snapshots ignored (other session or too old).");
        subscriber(rules, SUBSCRIBER_RECOVERY_BUFFER_OVERFLOWS_TYPE_ID,
            "mdfanout_subscriber_recovery_buffer_overflows_total", "Recovery buffer overflows.");
        subscriber(rules, SUBSCRIBER_FILTERED_MESSAGES_TYPE_ID, "mdfanout_subscriber_filtered_messages_total",
            "Buffered messages filtered because the snapshot already held them.");
        subscriber(rules, SUBSCRIBER_SNAPSHOT_PACKETS_TYPE_ID, "mdfanout_subscriber_snapshot_packets_received_total",
            "Snapshot stream packets received.");
        subscriber(rules, SUBSCRIBER_SNAPSHOT_GAPS_TYPE_ID, "mdfanout_subscriber_snapshot_gaps_total",
            "Snapshot stream gaps.");
        subscriber(rules, SUBSCRIBER_MALFORMED_SNAPSHOT_PACKETS_TYPE_ID,
            "mdfanout_subscriber_malformed_snapshot_packets_total", "Malformed snapshot packets skipped.");
        subscriber(rules, SUBSCRIBER_OLD_SESSION_PACKETS_TYPE_ID, "mdfanout_subscriber_old_session_packets_total",
            "Packets of an earlier publication session ignored.");
        subscriber(rules, SUBSCRIBER_SILENT_STREAMS_TYPE_ID, "mdfanout_subscriber_silent_streams_total",
            "Streams that went silent.");
        subscriber(rules, SUBSCRIBER_SUBSCRIPTION_ERRORS_TYPE_ID, "mdfanout_subscriber_subscription_errors_total",
            "Errors re-creating a subscription.");
        subscriber(rules, SUBSCRIBER_REPLAY_SWITCHES_TYPE_ID, "mdfanout_subscriber_replay_switches_total",
            "Partitions switched from an archive replay to the live stream.");
        subscriber(rules, SUBSCRIBER_REPLAYED_MESSAGES_TYPE_ID, "mdfanout_subscriber_replayed_messages_total",
            "Messages delivered from an archive replay, the state before the start point included.");

        add(rules, SUBSCRIBER_STALE_PARTITIONS_TYPE_ID, "mdfanout_subscriber_stale_partitions", GAUGE,
            CounterKey.SUBSCRIBER, "Partitions stale now: recovering, or their source down (FeedSubscriber.isStale).");
        add(rules, SUBSCRIBER_RECOVERING_PARTITIONS_TYPE_ID, "mdfanout_subscriber_recovering_partitions", GAUGE,
            CounterKey.SUBSCRIBER, "Partitions recovering now: messages lost or possibly lost, waiting for a " +
            "snapshot (FeedSubscriber.isRecovering); stale minus recovering is stale only because the source is down.");
        add(rules, SUBSCRIBER_EXCHANGE_GAP_PARTITIONS_TYPE_ID, "mdfanout_subscriber_exchange_gap_partitions", GAUGE,
            CounterKey.SUBSCRIBER, "Partitions whose session lost exchange messages for good (a GapNotice: stale " +
            "EXCHANGE_GAP, FeedSubscriber.hasExchangeGap): their books, and the fanout's snapshots, lack them until " +
            "the next session.");

        subscriber(rules, BOOK_ORDER_EVENTS_APPLIED_TYPE_ID, "mdfanout_book_order_events_applied_total",
            "Add, execute, cancel, delete and replace events applied to a book.");
        subscriber(rules, BOOK_UNKNOWN_ORDER_REFERENCES_TYPE_ID, "mdfanout_book_unknown_order_references_total",
            "Order events naming an order not in the books, ignored.");
        subscriber(rules, BOOK_DUPLICATE_ORDER_IDS_TYPE_ID, "mdfanout_book_duplicate_order_ids_total",
            "Adds of an order id already in the books, ignored.");
        subscriber(rules, BOOK_INVALID_ORDERS_TYPE_ID, "mdfanout_book_invalid_orders_total",
            "Orders with an invalid side, ignored.");

        for (final CounterRule rule : rules)
        {
            if (null != BY_TYPE_ID.put(rule.typeId(), rule))
            {
                throw new IllegalStateException("two rules for type id " + rule.typeId());
            }
        }
        RULES = Collections.unmodifiableList(rules);
    }

    private CounterMappings()
    {
    }

    /** @return every rule, in export order. */
    public static List<CounterRule> rules()
    {
        return RULES;
    }

    /**
     * The rule that maps a counter type id.
     *
     * @param typeId counter type id.
     * @return the rule or null when the type id is not mapped.
     */
    public static CounterRule find(final int typeId)
    {
        return BY_TYPE_ID.get(typeId);
    }

    private static String[] marketSessionLabels()
    {
        final MarketSession[] states = MarketSession.all();
        final String[] labels = new String[states.length];
        for (final MarketSession state : states)
        {
            labels[state.value()] = state.label();
        }
        return labels;
    }

    private static void add(
        final List<CounterRule> rules,
        final int typeId,
        final String name,
        final MetricKind kind,
        final CounterKey key,
        final String help)
    {
        rules.add(CounterRule.exported(typeId, name, kind, help, key, 1.0));
    }

    private static void plain(
        final List<CounterRule> rules, final int typeId, final String name, final MetricKind kind, final String help)
    {
        add(rules, typeId, name, kind, CounterKey.NONE, help);
    }

    private static void partition(
        final List<CounterRule> rules, final int typeId, final String name, final MetricKind kind, final String help)
    {
        add(rules, typeId, name, kind, CounterKey.PARTITION, help);
    }

    private static void partitionStream(
        final List<CounterRule> rules, final int typeId, final String name, final MetricKind kind, final String help)
    {
        add(rules, typeId, name, kind, CounterKey.PARTITION_STREAM, help);
    }

    private static void side(
        final List<CounterRule> rules, final int typeId, final String name, final MetricKind kind, final String help)
    {
        add(rules, typeId, name, kind, CounterKey.PARTITION_SIDE, help);
    }

    private static void subscriber(
        final List<CounterRule> rules, final int typeId, final String name, final String help)
    {
        add(rules, typeId, name, COUNTER, CounterKey.SUBSCRIBER, help);
    }
}
