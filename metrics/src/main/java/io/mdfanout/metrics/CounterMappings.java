package io.mdfanout.metrics;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static io.mdfanout.metrics.MetricKind.COUNTER;
import static io.mdfanout.metrics.MetricKind.GAUGE;

/**
 * The table mapping every mdfanout Agrona counter to its Prometheus metric. The fanout's counters
 * are told apart by type id (3000..3042, key = partition id, none for the fanout-wide ones); the feed handler's (type id 0) and the
 * SDK's (one type id per counters class) by their label, whose structure their XxxCounters classes
 * fix. The metrics module cannot depend on those modules (they depend on it), so the type ids are
 * repeated here; the scrape tests of each role fail on any counter this table does not map.
 */
public final class CounterMappings
{
    /** Type id of the SDK's SubscriberCounters. */
    public static final int SUBSCRIBER_TYPE_ID = 7001_100;
    /** Type id of the SDK's BookCounters. */
    public static final int BOOK_TYPE_ID = 7001_200;

    private static final String FEED = "[^:]+: ";
    private static final String PARTITION = "fanout partition=(\\d+) ";
    private static final String SUBSCRIBER = "mdfanout-sdk (.+?): ";
    private static final String BOOKS = "mdfanout-sdk books (.+?): ";

    private static final List<CounterRule> RULES;

    static
    {
        final List<CounterRule> rules = new ArrayList<>();

        // Feed handler: arbitration per line (A, B, R = retransmission replies).
        line(rules, "packets", "mdfanout_feed_packets_received_total", "MoldUDP64 datagrams received per line, valid or not.");
        line(rules, "messages accepted first", "mdfanout_feed_messages_accepted_total",
            "Messages a line delivered first (gap fills included).");
        line(rules, "duplicate messages", "mdfanout_feed_line_duplicate_messages_total",
            "Messages of a line dropped because they had been delivered already.");
        line(rules, "messages that filled a gap", "mdfanout_feed_gap_fill_messages_total",
            "Messages of a line that filled a missing sequence of an open gap.");
        feed(rules, "retransmission requests sent", "mdfanout_feed_retransmit_requests_total", COUNTER,
            "MoldUDP64 retransmission requests sent (first attempts).");
        feed(rules, "retransmission requests retried", "mdfanout_feed_retransmit_retries_total", COUNTER,
            "Retransmission requests sent again after a timeout.");
        feed(rules, "retransmission requests timed out", "mdfanout_feed_retransmit_timeouts_total", COUNTER,
            "Retransmission requests not completed within the timeout.");
        feed(rules, "retransmission request send errors", "mdfanout_feed_retransmit_send_errors_total", COUNTER,
            "Retransmission requests the socket failed to send.");
        feed(rules, "gaps detected", "mdfanout_feed_gaps_detected_total", COUNTER, "Sequence gaps detected.");
        feed(rules, "gaps filled", "mdfanout_feed_gaps_filled_total", COUNTER,
            "Gaps completely filled by the other line or by retransmission.");
        feed(rules, "gaps declared unrecoverable", "mdfanout_feed_gaps_declared_total", COUNTER,
            "Gaps declared unrecoverable (each published as a GapNotice).");
        feed(rules, "messages missing in declared gaps", "mdfanout_feed_declared_missing_messages_total", COUNTER,
            "Messages lost in gaps declared unrecoverable.");
        feed(rules, "messages held behind a gap \\(gauge\\)", "mdfanout_feed_held_messages", GAUGE,
            "Messages held behind an open gap now.");
        feed(rules, "lines silent \\(gauge\\)", "mdfanout_feed_silent_lines", GAUGE,
            "Lines silent for longer than the silence threshold now.");
        feed(rules, "new sessions adopted after end of session", "mdfanout_feed_sessions_adopted_total", COUNTER,
            "New MoldUDP64 sessions adopted after an end of session.");
        feed(rules, "ring stalls \\(a ring full past the ring-full wait\\)", "mdfanout_feed_ring_stalls_total", COUNTER,
            "Times a partition ring stayed full past the ring-full wait (the fanout not draining): the feed handler " +
            "stopped writing, read on, and requested (or declared) what it could not write once the rings drained.");
        feed(rules, "messages received while a ring stalled \\(requested or declared after\\)", "mdfanout_feed_ring_stall_messages_total", COUNTER,
            "Messages received while a ring stalled: requested from the re-request server (or declared) afterwards.");
        feed(rules, "packets of an ended session ignored", "mdfanout_feed_ended_session_packets_total", COUNTER,
            "Packets of an ended session, ignored.");

        // Feed handler: receive and sequencing.
        feed(rules, "packets received", "mdfanout_feed_datagrams_received_total", COUNTER,
            "Datagrams received on every line together, valid or not.");
        feed(rules, "bytes received", "mdfanout_feed_received_bytes_total", COUNTER, "Bytes of datagrams received.");
        feed(rules, "truncated packets", "mdfanout_feed_truncated_packets_total", COUNTER,
            "Datagrams shorter than the MoldUDP64 header, skipped.");
        feed(rules, "malformed message blocks", "mdfanout_feed_malformed_blocks_total", COUNTER,
            "Message blocks running past the end of their packet; the rest of the packet is dropped.");
        feed(rules, "packets of a wrong session", "mdfanout_feed_wrong_session_packets_total", COUNTER,
            "Packets of another session than the configured or adopted one, skipped.");
        feed(rules, "duplicate packets", "mdfanout_feed_duplicate_packets_total", COUNTER,
            "Packets whose every message had been seen already.");
        feed(rules, "duplicate messages", "mdfanout_feed_duplicate_messages_total", COUNTER,
            "Messages skipped because their sequence had been seen already.");
        feed(rules, "sequence gaps", "mdfanout_feed_sequence_gaps_total", COUNTER,
            "Sequence gaps seen by the sequencer (each ending as filled or declared).");
        feed(rules, "missing messages", "mdfanout_feed_missing_messages_total", COUNTER, "Messages lost in gaps.");
        feed(rules, "end of session packets", "mdfanout_feed_end_of_session_packets_total", COUNTER,
            "MoldUDP64 end-of-session packets received.");
        feed(rules, "stale end of session packets ignored", "mdfanout_feed_stale_end_of_session_packets_total", COUNTER,
            "End-of-session packets whose sequence is below messages already received or announced, ignored.");
        feed(rules, "heartbeats", "mdfanout_feed_heartbeats_total", COUNTER, "MoldUDP64 heartbeat packets received.");
        feed(rules, "socket receive errors", "mdfanout_feed_receive_errors_total", COUNTER,
            "Socket receive calls that failed with an I/O error.");
        feed(rules, "packets failed with an unexpected error", "mdfanout_feed_packet_errors_total", COUNTER,
            "Packets whose processing hit an unexpected error (a bug); the rest of the packet is dropped.");

        // Feed handler: ITCH decode and normalization into the rings.
        rules.add(new CounterRule(0, FEED + "ITCH messages decoded type=(.)",
            "mdfanout_feed_messages_decoded_total", COUNTER, "ITCH 5.0 messages decoded, per message type.",
            new String[]{ "type" }, new LabelValue[]{ LabelValue.ITCH_TYPE }));
        feed(rules, "messages published", "mdfanout_feed_messages_normalized_total", COUNTER,
            "ITCH messages normalized and written to the rings (once per message).");
        feed(rules, "ring records written", "mdfanout_feed_ring_records_written_total", COUNTER,
            "Records committed to the partition rings (a market-wide message once per partition).");
        feed(rules, "gap notices published", "mdfanout_feed_gap_notices_total", COUNTER, "GapNotice messages published.");
        feed(rules, "unknown message types", "mdfanout_feed_unknown_type_messages_total", COUNTER,
            "Messages of a type that is not ITCH 5.0, skipped.");
        feed(rules, "messages shorter than their type", "mdfanout_feed_invalid_length_messages_total", COUNTER,
            "Messages shorter than their type's length, skipped.");
        feed(rules, "messages with an invalid field", "mdfanout_feed_invalid_field_messages_total", COUNTER,
            "Messages with an enumerated field outside the specification, skipped.");
        feed(rules, "ring writes abandoned on interrupt", "mdfanout_feed_ring_writes_abandoned_total", COUNTER,
            "Ring writes given up at shutdown while the ring stayed full.");
        rules.add(new CounterRule(0, FEED + "ring full waits partition=(\\d+)",
            "mdfanout_feed_ring_full_waits_total", COUNTER,
            "Times a ring write found the partition's ring full and waited for the fanout.",
            new String[]{ "partition" }, new LabelValue[]{ LabelValue.AS_IS }));

        // Fanout.
        rules.add(new CounterRule(3000, "fanout duty-cycle errors", "mdfanout_fanout_duty_cycle_errors_total", COUNTER,
            "Exceptions caught by the fanout's agent runners (should stay 0).", new String[0], new LabelValue[0]));
        partition(rules, 3001, "mdfanout_fanout_ring_records_read_total", COUNTER, "Ring records consumed, valid or not.");
        partition(rules, 3002, "mdfanout_fanout_messages_published_total", COUNTER, "Normalized messages published.");
        partition(rules, 3003, "mdfanout_fanout_packets_published_total", COUNTER,
            "Packets (batches, one Aeron message each) published.");
        partition(rules, 3004, "mdfanout_fanout_max_messages_per_packet", GAUGE, "Most messages packed in one packet so far.");
        partition(rules, 3005, "mdfanout_fanout_heartbeats_total", COUNTER, "Heartbeats published on idle streams.");
        partition(rules, 3006, "mdfanout_fanout_back_pressure_events_total", COUNTER,
            "Offers refused by back pressure (packet held for retry).");
        partition(rules, 3007, "mdfanout_fanout_not_connected_dropped_messages_total", COUNTER,
            "Messages dropped because no subscriber was connected.");
        partition(rules, 3008, "mdfanout_fanout_invalid_records_total", COUNTER, "Invalid ring records skipped.");
        partition(rules, 3009, "mdfanout_fanout_publication_errors_total", COUNTER,
            "Publication errors (closed or max position).");
        partition(rules, 3010, "mdfanout_fanout_next_stream_sequence", GAUGE, "Stream sequence of the next message.");
        partition(rules, 3020, "mdfanout_fanout_state_orders", GAUGE, "Orders held in the partition's state.");
        partition(rules, 3021, "mdfanout_fanout_state_instruments", GAUGE, "Instruments with state in the partition.");
        partition(rules, 3022, "mdfanout_fanout_state_orders_rejected_pool_full_total", COUNTER,
            "Orders rejected because the state's order pool was full.");
        partition(rules, 3023, "mdfanout_fanout_state_unknown_order_updates_total", COUNTER,
            "State updates naming an unknown order id.");
        partition(rules, 3024, "mdfanout_fanout_state_rejected_updates_total", COUNTER,
            "State updates rejected (duplicate order id, bad side, instrument id out of range).");
        partition(rules, 3025, "mdfanout_fanout_state_records_skipped_after_restart_total", COUNTER,
            "Ring records skipped after a restart because the state had applied them.");
        partition(rules, 3026, "mdfanout_fanout_state_resets_total", COUNTER, "State resets (a new ring).");
        partition(rules, 3027, "mdfanout_fanout_state_stores_rolled_back_total", COUNTER,
            "State stores rolled back on open (unfinished message).");
        partition(rules, 3030, "mdfanout_fanout_snapshots_started_total", COUNTER, "Snapshots started.");
        partition(rules, 3031, "mdfanout_fanout_snapshots_completed_total", COUNTER, "Snapshots completely published.");
        partition(rules, 3032, "mdfanout_fanout_snapshots_abandoned_total", COUNTER,
            "Snapshots abandoned (not connected or closed).");
        partition(rules, 3033, "mdfanout_fanout_snapshots_skipped_total", COUNTER,
            "Snapshots skipped because no snapshot subscriber was connected.");
        partition(rules, 3034, "mdfanout_fanout_snapshot_messages_sent_total", COUNTER, "Snapshot messages published.");
        partition(rules, 3035, "mdfanout_fanout_snapshot_sent_bytes_total", COUNTER, "Snapshot bytes published.");
        partition(rules, 3036, "mdfanout_fanout_snapshot_back_pressure_events_total", COUNTER,
            "Snapshot offers refused by back pressure.");
        // The fanout's source, the feed handler writing its rings (SourceCounters, fanout-wide).
        rules.add(new CounterRule(3040, "fanout source status", "mdfanout_fanout_source_status", GAUGE,
            "Status of the fanout's source as its heartbeats announce it: 0 unknown, 1 live, 2 lines silent, " +
            "3 loading a snapshot, 4 stopped, 5 feed handler down (no heartbeat for --source-timeout-ms).",
            new String[0], new LabelValue[0]));
        rules.add(new CounterRule(3041, "fanout source heartbeat age \\(ms\\)",
            "mdfanout_fanout_source_heartbeat_age_seconds", GAUGE,
            "Age of the feed handler's last heartbeat in the ring header, as the fanout last read it.",
            new String[0], new LabelValue[0], 0.001));
        rules.add(new CounterRule(3042, "fanout source down events", "mdfanout_fanout_source_down_events_total", COUNTER,
            "Times the fanout saw its source go from live or unknown to down (lines silent, loading, stopped, " +
            "feed handler down).", new String[0], new LabelValue[0]));

        // Subscriber SDK.
        subscriber(rules, "packets received", "mdfanout_subscriber_packets_received_total", "Packets accepted.");
        subscriber(rules, "messages delivered", "mdfanout_subscriber_messages_delivered_total",
            "Normalized messages delivered to the listener.");
        subscriber(rules, "heartbeats received", "mdfanout_subscriber_heartbeats_received_total", "Heartbeats accepted.");
        subscriber(rules, "stream gaps", "mdfanout_subscriber_gaps_total", "Stream sequence gaps detected.");
        subscriber(rules, "missing messages", "mdfanout_subscriber_missing_messages_total", "Messages missing in gaps.");
        subscriber(rules, "duplicate packets", "mdfanout_subscriber_duplicate_packets_total", "Duplicate packets skipped.");
        subscriber(rules, "duplicate messages skipped", "mdfanout_subscriber_duplicate_messages_total",
            "Duplicate messages skipped.");
        subscriber(rules, "malformed packets", "mdfanout_subscriber_malformed_packets_total", "Malformed packets skipped.");
        rules.add(new CounterRule(SUBSCRIBER_TYPE_ID, SUBSCRIBER + "malformed packets: (.+)",
            "mdfanout_subscriber_malformed_packets_by_reason_total", COUNTER, "Malformed packets skipped, per reason.",
            new String[]{ "subscriber", "reason" }, new LabelValue[]{ LabelValue.AS_IS, LabelValue.SNAKE_CASE }));
        subscriber(rules, "listener exceptions", "mdfanout_subscriber_listener_errors_total",
            "Exceptions thrown by the application's listener.");
        subscriber(rules, "stale events", "mdfanout_subscriber_stale_events_total", "Streams that became stale.");
        rules.add(new CounterRule(SUBSCRIBER_TYPE_ID, SUBSCRIBER + "stale events: (.+)",
            "mdfanout_subscriber_stale_total", COUNTER, "Streams that became stale, per reason.",
            new String[]{ "subscriber", "reason" }, new LabelValue[]{ LabelValue.AS_IS, LabelValue.SNAKE_CASE }));
        subscriber(rules, "recoveries completed", "mdfanout_subscriber_recoveries_total",
            "Recoveries from a snapshot completed.");
        subscriber(rules, "recovery attempts abandoned", "mdfanout_subscriber_recovery_attempts_abandoned_total",
            "Recovery attempts abandoned.");
        subscriber(rules, "snapshots applied", "mdfanout_subscriber_snapshots_applied_total", "Snapshots applied.");
        subscriber(rules, "snapshots ignored \\(other session or too old\\)", "mdfanout_subscriber_snapshots_ignored_total",
            "Snapshots ignored (other session or too old).");
        subscriber(rules, "recovery buffer overflows", "mdfanout_subscriber_recovery_buffer_overflows_total",
            "Recovery buffer overflows.");
        subscriber(rules, "messages filtered \\(already in snapshot\\)", "mdfanout_subscriber_filtered_messages_total",
            "Buffered messages filtered because the snapshot already held them.");
        subscriber(rules, "snapshot packets received", "mdfanout_subscriber_snapshot_packets_received_total",
            "Snapshot stream packets received.");
        subscriber(rules, "snapshot stream gaps", "mdfanout_subscriber_snapshot_gaps_total", "Snapshot stream gaps.");
        subscriber(rules, "malformed snapshot packets", "mdfanout_subscriber_malformed_snapshot_packets_total",
            "Malformed snapshot packets skipped.");
        subscriber(rules, "old-session packets ignored", "mdfanout_subscriber_old_session_packets_total",
            "Packets of an earlier publication session ignored.");
        subscriber(rules, "streams gone silent", "mdfanout_subscriber_silent_streams_total", "Streams that went silent.");
        subscriber(rules, "subscription errors", "mdfanout_subscriber_subscription_errors_total",
            "Errors re-creating a subscription.");

        book(rules, "order events applied", "mdfanout_book_order_events_applied_total",
            "Add, execute, cancel, delete and replace events applied to a book.");
        book(rules, "unknown order references ignored", "mdfanout_book_unknown_order_references_total",
            "Order events naming an order not in the books, ignored.");
        book(rules, "duplicate order ids ignored", "mdfanout_book_duplicate_order_ids_total",
            "Adds of an order id already in the books, ignored.");
        book(rules, "invalid orders ignored \\(bad side\\)", "mdfanout_book_invalid_orders_total",
            "Orders with an invalid side, ignored.");

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
     * The rule that maps a counter, the first matching.
     *
     * @param typeId counter type id.
     * @param label  counter label.
     * @return the rule or null when the counter is not mapped.
     */
    public static CounterRule find(final int typeId, final String label)
    {
        for (final CounterRule rule : RULES)
        {
            if (null != rule.match(typeId, label))
            {
                return rule;
            }
        }
        return null;
    }

    private static void line(final List<CounterRule> rules, final String what, final String name, final String help)
    {
        rules.add(new CounterRule(0, FEED + "line ([ABR]) " + what, name, COUNTER, help,
            new String[]{ "line" }, new LabelValue[]{ LabelValue.AS_IS }));
    }

    private static void feed(
        final List<CounterRule> rules, final String what, final String name, final MetricKind kind, final String help)
    {
        // Type id 0: Agrona's default, the feed handler's counters do not set one.
        rules.add(new CounterRule(0, FEED + what, name, kind, help, new String[0], new LabelValue[0]));
    }

    private static void partition(
        final List<CounterRule> rules, final int typeId, final String name, final MetricKind kind, final String help)
    {
        rules.add(new CounterRule(typeId, PARTITION + ".*", name, kind, help,
            new String[]{ "partition" }, new LabelValue[]{ LabelValue.AS_IS }));
    }

    private static void subscriber(final List<CounterRule> rules, final String what, final String name, final String help)
    {
        rules.add(new CounterRule(SUBSCRIBER_TYPE_ID, SUBSCRIBER + what, name, COUNTER, help,
            new String[]{ "subscriber" }, new LabelValue[]{ LabelValue.AS_IS }));
    }

    private static void book(final List<CounterRule> rules, final String what, final String name, final String help)
    {
        rules.add(new CounterRule(BOOK_TYPE_ID, BOOKS + what, name, COUNTER, help,
            new String[]{ "subscriber" }, new LabelValue[]{ LabelValue.AS_IS }));
    }
}
