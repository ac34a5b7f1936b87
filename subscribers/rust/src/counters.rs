//! What a subscriber counts, as the Java SDK's `SubscriberCounters` (the counters the conformance suite compares).

/// Why a whole Aeron message was dropped before any of it was delivered (Java's `MalformedReason`, same order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MalformedReason {
    BadSchemaId,
    UnknownTemplate,
    ShortBlockLength,
    Truncated,
    BadMessageCount,
    NotAPacket,
    WrongPartition,
}

impl MalformedReason {
    /// Every reason, in Java's order.
    pub const ALL: [MalformedReason; 7] = [
        MalformedReason::BadSchemaId,
        MalformedReason::UnknownTemplate,
        MalformedReason::ShortBlockLength,
        MalformedReason::Truncated,
        MalformedReason::BadMessageCount,
        MalformedReason::NotAPacket,
        MalformedReason::WrongPartition,
    ];

    /// The name the Java SDK gives it.
    pub fn name(self) -> &'static str {
        match self {
            MalformedReason::BadSchemaId => "BAD_SCHEMA_ID",
            MalformedReason::UnknownTemplate => "UNKNOWN_TEMPLATE",
            MalformedReason::ShortBlockLength => "SHORT_BLOCK_LENGTH",
            MalformedReason::Truncated => "TRUNCATED",
            MalformedReason::BadMessageCount => "BAD_MESSAGE_COUNT",
            MalformedReason::NotAPacket => "NOT_A_PACKET",
            MalformedReason::WrongPartition => "WRONG_PARTITION",
        }
    }
}

/// What one side of a pair did, over all partitions.
#[derive(Clone, Copy, Debug, Default)]
pub struct SideCounters {
    /// Messages of this side that were delivered (it had them first).
    pub messages: u64,
    /// Messages of this side the other side had delivered already.
    pub duplicates: u64,
    /// Messages dropped because the side was refused (it disagreed).
    pub refused: u64,
    /// Copies of a delivered message whose bytes differed (the side refused until the next trading day).
    pub mismatches: u64,
}

/// A subscriber's counters.
#[derive(Clone, Debug, Default)]
pub struct SubscriberCounters {
    pub packets: u64,
    pub messages: u64,
    pub heartbeats: u64,
    pub gaps: u64,
    pub missing_messages: u64,
    pub duplicate_packets: u64,
    pub duplicate_messages: u64,
    pub malformed: u64,
    pub malformed_by_reason: [u64; 7],
    pub old_session_packets: u64,
    pub filtered_messages: u64,
    pub stale_events: u64,
    pub recoveries: u64,
    pub new_days: u64,
    /// Recovery from the snapshot streams (all 0 with recovery off).
    pub snapshot_packets: u64,
    pub snapshots_applied: u64,
    pub snapshots_ignored: u64,
    pub snapshot_gaps: u64,
    pub malformed_snapshot_packets: u64,
    pub recovery_attempts_abandoned: u64,
    pub recovery_buffer_overflows: u64,
    /// Streams (a pair: partitions no side served) that went silent.
    pub silent_streams: u64,
    /// The driver refused a subscription (a snapshot stream's): tried again.
    pub subscription_errors: u64,
    /// A pair's sides, A then B (all 0 for one fanout).
    pub sides: [SideCounters; 2],
}

impl SubscriberCounters {
    pub(crate) fn on_malformed(&mut self, reason: MalformedReason) {
        self.malformed += 1;
        self.malformed_by_reason[reason as usize] += 1;
    }

    /// Messages lost on the stream that the last snapshot applied already holds: counted as filtered, as Java does.
    pub(crate) fn on_covered_loss(&mut self, messages: i64) {
        if messages > 0 {
            self.filtered_messages = self.filtered_messages.wrapping_add(messages as u64);
        }
    }

    /// Messages dropped for a reason.
    pub fn malformed(&self, reason: MalformedReason) -> u64 {
        self.malformed_by_reason[reason as usize]
    }
}
