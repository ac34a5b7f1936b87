//! A feed's two sides (a pair: two independent chains publishing the same partitions on channels of their own),
//! sequenced as the Java SDK's `PairSequencer` does: per partition, each side's packets are validated, then arbitrated
//! by the partition's chain of exchange sequences ([`crate::arbiter`]), so that a message reaches the listener once,
//! from the side that had it first, whatever either side went through (a restart, a re-request on one side only).
//! Every sequence a pair's listener is given is a chain position: the exchange's identity of a message, which both
//! sides share.
//!
//! A side is refused, loudly (the listener's `on_error`, once per change, and a counter per message), while it
//! disagrees: a schema version without the chain (before 4), another partition count, another exchange session than
//! the one the partition follows, or a copy of a delivered message whose bytes differ from it (refused until the next
//! trading day). A side that still sends the day the exchange ended after the other side started the next is behind,
//! not wrong: its packets are dropped as old until it starts the new day too. A partition is stale only when the pair
//! cannot serve it: a span no side had within the arbitration wait (a gap), or every side's source down. One side's
//! silence, loss or new publication is counted per side, never staleness. With recovery on, a late join or a gap of
//! the pair is recovered from a snapshot of either side (chain-keyed: [`crate::recovery`]).

use crate::arbiter::{ArbiterOutput, ChainArbiter, UNKNOWN};
use crate::counters::SubscriberCounters;
use crate::decoder::{validate, PacketStreamDecoder};
use crate::listener::MarketDataListener;
use crate::sbe;
use crate::sbe::ReadBuf;
use crate::wire;

/// The schema version from which packets and heartbeats carry the chain.
pub const CHAIN_SCHEMA_VERSION: u16 = 4;
/// The sides' names, as the Java SDK gives them.
pub const SIDE_NAMES: [&str; 2] = ["A", "B"];
/// How long a message one side lacks waits for the other unless configured (the Java SDK's default).
pub const DEFAULT_ARBITRATION_WAIT_NS: i64 = 20_000_000;
/// Per side and partition, the most packet bytes held while waiting for the other side.
pub const ARBITRATION_HOLD_BYTES: usize = 1024 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Refusal {
    #[default]
    None,
    Schema,
    Partitions,
    Session,
    /// Its copy of a message differed from the delivered one: out until the next trading day.
    Mismatch,
}

/// Where one side of one partition stands.
#[derive(Debug, Default)]
struct Side {
    heard: bool,
    silent: bool,
    last_activity_ns: i64,
    source_down: bool,
    refused: Refusal,
    announced_partitions: u16,
    mismatch_chain: i64,
    /// The trading day of the partition the side is on.
    day: u64,
}

/// What a pair knows of one partition beyond its stream: the trading day the sides are arbitrated on, and its exchange
/// session from the heartbeats.
#[derive(Debug, Default)]
struct PairPartition {
    day: u64,
    session_known: bool,
    session: [u8; 10],
    previous_session: [u8; 10],
    last_activity_ns: i64,
    silent: bool,
}

/// Processes the wire messages of a feed's two sides, handed in by the caller with their side.
pub struct PairStreamDecoder<L: MarketDataListener> {
    decoder: PacketStreamDecoder<L>,
    arbiters: Vec<ChainArbiter>,
    sides: Vec<[Side; 2]>,
    partitions: Vec<PairPartition>,
    side_count: usize,
    /// How many partitions the feed has: as the first side announced it; 0 while unknown.
    feed_partition_count: u16,
    now_ns: i64,
    errors: ErrorHandler,
}

/// A side's change the pair reports: refused (it disagrees), or taken again (it agrees again, or a new trading day ends
/// its mismatch).
#[derive(Clone, Copy, Debug)]
pub struct SideReport<'a> {
    /// 0 for side A, 1 for side B.
    pub side: usize,
    pub partition: u16,
    /// True: refused from now; false: its messages are taken again.
    pub refused: bool,
    /// What happened, for a log.
    pub message: &'a str,
}

/// Where a pair reports what it must not keep quiet about that is no message.
pub type ErrorHandler = Box<dyn FnMut(&SideReport<'_>)>;

impl<L: MarketDataListener> PairStreamDecoder<L> {
    /// A decoder of a pair's partitions: per partition the first copy of each message is delivered, the other side's
    /// is a duplicate (counted per side, dropped), and what one side lacks is taken from the other within
    /// `arbitration_wait_ns`, measured on the time given to [`Self::do_work`] (a span both sides lack is a gap once a
    /// call of it finds the wait over).
    pub fn new(partitions: &[u16], arbitration_wait_ns: i64, listener: L) -> Self {
        assert!(arbitration_wait_ns >= 0, "the arbitration wait must not be negative: {arbitration_wait_ns}");
        let decoder = PacketStreamDecoder::new(partitions, listener);
        let side_count = 2;
        Self {
            decoder,
            arbiters: partitions
                .iter()
                .map(|_| ChainArbiter::new(side_count, arbitration_wait_ns, ARBITRATION_HOLD_BYTES))
                .collect(),
            sides: partitions.iter().map(|_| Default::default()).collect(),
            partitions: partitions.iter().map(|_| Default::default()).collect(),
            side_count,
            feed_partition_count: 0,
            now_ns: 0,
            errors: Box::new(|report| eprintln!("mdfanout: {}", report.message)),
        }
        .with_streams_not_joined()
    }

    /// A pair's decoder that recovers each partition from its sides' snapshot streams (handed in with
    /// [`Self::on_snapshot_message`]): a late join or a span no side had makes it stale, its arbitrated messages are
    /// held back until a snapshot of either side was applied, as the Java SDK's pair subscriber does.
    pub fn with_recovery(partitions: &[u16], arbitration_wait_ns: i64, recovery_buffer_bytes: usize, listener: L) -> Self {
        assert!(recovery_buffer_bytes > 0, "a recovery buffer of at least one byte");
        let mut decoder = Self::new(partitions, arbitration_wait_ns, listener);
        for stream in &mut decoder.decoder.streams {
            stream.recovery = Some(crate::recovery::Recovery::chain_keyed(recovery_buffer_bytes));
        }
        decoder
    }

    /// One complete Aeron message of side `side`'s snapshot stream of the partition in `slot`, from the snapshot
    /// publication `session_id`: while the partition recovers, the first snapshot of either side recent enough is
    /// applied. Ignored without recovery.
    pub fn on_snapshot_message(&mut self, slot: usize, side: usize, session_id: i32, buffer: &[u8]) {
        self.decoder.on_side_snapshot_message(slot, side, session_id, buffer);
    }

    /// Whether the partition in the slot recovers (its sides' snapshot streams are wanted).
    pub fn is_recovering(&self, slot: usize) -> bool {
        self.decoder.is_recovering(slot)
    }

    /// Before a partition joins, its next sequence is unknown (-1, as the Java SDK's): what a heartbeat then reports.
    fn with_streams_not_joined(mut self) -> Self {
        for stream in &mut self.decoder.streams {
            stream.expected_sequence = -1;
        }
        self
    }

    /// Where a side's refusal (and its end) is reported, loudly: standard error unless set (as the Java SDK's default
    /// error handler); the counters count each refused message too.
    pub fn set_error_handler(&mut self, handler: impl FnMut(&SideReport<'_>) + 'static) {
        self.errors = Box::new(handler);
    }

    pub fn listener(&mut self) -> &mut L {
        self.decoder.listener()
    }

    pub fn counters(&self) -> &SubscriberCounters {
        self.decoder.counters()
    }

    pub(crate) fn counters_mut(&mut self) -> &mut SubscriberCounters {
        self.decoder.counters_mut()
    }

    /// The number of partitions, the slots 0 to it less one.
    pub fn partition_count(&self) -> usize {
        self.decoder.partition_count()
    }

    /// The chain position delivered on the partition in the slot; None before it joined.
    pub fn chain(&self, slot: usize) -> Option<u64> {
        let chain = self.arbiters[slot].chain();
        (UNKNOWN != chain).then_some(chain as u64)
    }

    /// How far a side's chain is behind what the partition delivered (0 when level or unknown).
    pub fn side_behind(&self, slot: usize, side: usize) -> u64 {
        let (chain, side_chain) = (self.arbiters[slot].chain(), self.arbiters[slot].side_chain(side));
        if UNKNOWN == chain || UNKNOWN == side_chain {
            0
        } else {
            chain.wrapping_sub(side_chain).max(0) as u64
        }
    }

    /// Whether a side of the partition is refused now (it disagrees).
    pub fn is_side_refused(&self, slot: usize, side: usize) -> bool {
        Refusal::None != self.sides[slot][side].refused
    }

    /// Whether a side of the partition is silent now.
    pub fn is_side_silent(&self, slot: usize, side: usize) -> bool {
        self.sides[slot][side].silent
    }

    /// Whether a side's packets or a missed span of the partition wait for the other side.
    pub fn is_waiting(&self, slot: usize) -> bool {
        self.arbiters[slot].is_waiting()
    }

    /// Whether the partition is good: joined, and its source live on some side.
    pub fn is_good(&self, slot: usize) -> bool {
        self.decoder.is_good(slot)
    }

    /// Whether an exchange gap was declared on the partition's current session.
    pub fn has_exchange_gap(&self, slot: usize) -> bool {
        self.decoder.has_exchange_gap(slot)
    }

    /// Take the time as now and end the arbitration waits it finds over, on every partition; sides and partitions from
    /// which nothing arrived for `silent_timeout_ns` are silent (`i64::MAX`: never). Returns per slot a bit per side
    /// that went silent now, or'ed over the slots (a live client re-subscribes them).
    pub fn do_work(&mut self, now_ns: i64, silent_timeout_ns: i64) -> u32 {
        self.now_ns = now_ns;
        let mut went_silent = 0;
        for slot in 0..self.arbiters.len() {
            went_silent |= self.do_work_slot(slot, silent_timeout_ns);
        }
        went_silent
    }

    fn do_work_slot(&mut self, slot: usize, silent_timeout_ns: i64) -> u32 {
        let now_ns = self.now_ns;
        self.with_output(slot, |arbiter, out| {
            arbiter.poll(now_ns, out);
        });
        let mut went_silent = 0;
        let (mut any_heard, mut any_serving) = (false, false);
        for side in 0..self.side_count {
            let s = &mut self.sides[slot][side];
            if s.heard {
                any_heard = true;
                if !s.silent && now_ns.saturating_sub(s.last_activity_ns) >= silent_timeout_ns {
                    s.silent = true;
                    went_silent |= 1 << side;
                }
                any_serving |= !s.silent && Refusal::None == s.refused;
            }
        }
        if 0 != went_silent {
            self.update_source(slot);
        }
        let partition = &mut self.partitions[slot];
        if any_heard
            && !any_serving
            && self.decoder.is_joined(slot)
            && !partition.silent
            && now_ns.saturating_sub(partition.last_activity_ns) >= silent_timeout_ns
        {
            // No side the pair may take delivers: it cannot serve the partition.
            partition.silent = true;
            let silent_for = now_ns.saturating_sub(partition.last_activity_ns) as u64;
            self.decoder.counters.silent_streams += 1;
            let p = self.decoder.streams[slot].partition;
            self.decoder.listener.on_stream_silent(p, silent_for);
            self.decoder.mark_stale(slot, crate::listener::StaleReason::Silent);
        }
        went_silent
    }

    /// One complete Aeron message (a packet or a heartbeat) of a partition stream from side `side` (0: A, 1: B).
    pub fn on_message(&mut self, slot: usize, side: usize, buffer: &[u8]) {
        assert!(side < self.side_count, "side {side} of a pair");
        let partition = self.decoder.streams[slot].partition;
        if let Err(reason) = validate(partition, buffer) {
            self.decoder.counters.on_malformed(reason);
            return;
        }
        let (block_length, template_id, _, version) = wire::header(buffer, 0);
        if version < CHAIN_SCHEMA_VERSION {
            self.refuse(slot, side, Refusal::Schema);
            return;
        }
        self.on_activity(slot, side);
        if sbe::heartbeat_codec::SBE_TEMPLATE_ID == template_id {
            self.on_heartbeat(slot, side, buffer, block_length, version);
        } else {
            self.on_packet(slot, side, buffer);
        }
    }

    fn on_activity(&mut self, slot: usize, side: usize) {
        let now_ns = self.now_ns;
        let s = &mut self.sides[slot][side];
        s.heard = true;
        s.last_activity_ns = now_ns;
        let was_silent = std::mem::replace(&mut s.silent, false);
        let refused = Refusal::None != s.refused;
        if was_silent {
            self.update_source(slot);
        }
        if !refused {
            // A refused side's packets serve nothing: they do not keep the partition alive.
            let partition = &mut self.partitions[slot];
            partition.last_activity_ns = now_ns;
            if std::mem::replace(&mut partition.silent, false) {
                let p = self.decoder.streams[slot].partition;
                self.decoder.listener.on_stream_active(p);
            }
        }
    }

    fn on_heartbeat(&mut self, slot: usize, side: usize, buffer: &[u8], block_length: usize, version: u16) {
        self.decoder.counters.heartbeats += 1;
        let heartbeat = sbe::heartbeat_codec::HeartbeatDecoder::default().wrap(
            ReadBuf::new(buffer),
            wire::HEADER_LENGTH,
            block_length as u16,
            version,
        );
        let partition_count = heartbeat.partition_count();
        if 0 != partition_count && u16::MAX != partition_count {
            if 0 == self.feed_partition_count {
                self.feed_partition_count = partition_count;
            }
            if partition_count != self.feed_partition_count {
                self.sides[slot][side].announced_partitions = partition_count;
                self.refuse(slot, side, Refusal::Partitions);
                return;
            }
        }
        let session = heartbeat.exchange_session();
        if !is_blank(&session) && !self.on_exchange_session(slot, side, &session) {
            return;
        }
        self.accept(slot, side);

        use sbe::source_status::SourceStatus;
        let s = &mut self.sides[slot][side];
        s.source_down = matches!(
            heartbeat.source_status(),
            SourceStatus::LINES_SILENT | SourceStatus::LOADING | SourceStatus::STOPPED | SourceStatus::FEED_HANDLER_DOWN
        );
        let same_day = s.day == self.partitions[slot].day;
        let (last_exchange_sequence, sending_time) = (heartbeat.last_exchange_sequence() as i64, heartbeat.sending_time());
        if same_day {
            let now_ns = self.now_ns;
            self.with_output(slot, |arbiter, out| arbiter.on_heartbeat(side, last_exchange_sequence, now_ns, out));
        }
        self.update_source(slot);
        let stream = &self.decoder.streams[slot];
        let (partition, expected) = (stream.partition, stream.expected_sequence);
        self.decoder.listener.on_heartbeat(partition, expected as u64, sending_time);
    }

    /// A side's heartbeat names the exchange session it carries: the partition's (or the first known), the next one
    /// after the day ended (the new day starts), or the one the partition just left (the side is behind); any other is
    /// a disagreement. Returns whether the side's messages are to be taken.
    fn on_exchange_session(&mut self, slot: usize, side: usize, session: &[u8; 10]) -> bool {
        let pair = &mut self.partitions[slot];
        if pair.session_known && *session == pair.session {
            self.sides[slot][side].day = pair.day;
            return true;
        }
        if 0 != pair.day && *session == pair.previous_session {
            self.sides[slot][side].day = pair.day - 1; // the day the partition left: behind, not wrong
            return true;
        }
        if !pair.session_known {
            // The first session a heartbeat names: the subscriber's first, or the new day's after a side's packet
            // started it (before any heartbeat said which session it is).
            pair.session_known = true;
            pair.session = *session;
            self.sides[slot][side].day = pair.day;
            return true;
        }
        if self.decoder.streams[slot].session_ended {
            self.new_day(slot);
            let pair = &mut self.partitions[slot];
            pair.session_known = true;
            pair.session = *session;
            self.sides[slot][side].day = pair.day;
            return true;
        }
        self.refuse(slot, side, Refusal::Session);
        false
    }

    fn on_packet(&mut self, slot: usize, side: usize, buffer: &[u8]) {
        self.decoder.counters.packets += 1;
        let refused = self.sides[slot][side].refused;
        if Refusal::None != refused && Refusal::Schema != refused {
            self.decoder.counters.sides[side].refused += 1; // refused until its heartbeat agrees again
            return;
        }
        self.accept(slot, side);
        let previous = wire::packet_header(buffer).previous_exchange_sequence() as i64;
        let day = self.partitions[slot].day;
        if self.sides[slot][side].day != day {
            if 0 != previous {
                self.decoder.counters.old_session_packets += 1; // the day the partition left
                return;
            }
            self.sides[slot][side].day = day; // the side starts the new day too
        } else if 0 == previous && self.decoder.streams[slot].session_ended {
            self.new_day(slot);
            self.sides[slot][side].day = self.partitions[slot].day;
        }
        if self.sides[slot][side].source_down {
            self.sides[slot][side].source_down = false; // data flows: the side's feed handler writes again
            self.update_source(slot);
        }
        let now_ns = self.now_ns;
        self.with_output(slot, |arbiter, out| arbiter.on_packet(side, buffer, now_ns, out));
    }

    /// The exchange ended the day and a side starts the next session's chain from 0: everything of the old day is
    /// void, nothing of the new one is missing; the other side follows when it starts the new day too.
    fn new_day(&mut self, slot: usize) {
        self.arbiters[slot].reset();
        let partition = self.decoder.streams[slot].partition;
        for side in 0..self.side_count {
            if Refusal::Mismatch == self.sides[slot][side].refused {
                self.sides[slot][side].refused = Refusal::None;
                let message = format!(
                    "side {} of partition {partition}: a new trading day, its messages are taken again",
                    SIDE_NAMES[side]
                );
                (self.errors)(&SideReport { side, partition, refused: false, message: &message });
            }
        }
        let pair = &mut self.partitions[slot];
        pair.day += 1;
        pair.previous_session = pair.session;
        // The new day's session is the next a heartbeat names (a side's packet may start the day before any does).
        pair.session_known = false;
        let stream = &mut self.decoder.streams[slot];
        stream.expected_sequence = -1;
        stream.session_ended = false;
        stream.filter_max_sequence = 0;
        stream.covered_through = 0;
        stream.exchange_gap = false;
        stream.joined = false;
        self.decoder.counters.new_days += 1;
        self.decoder.listener.on_new_day(partition);
        if self.decoder.is_recovering(slot) {
            self.decoder.end_with_new_stream(slot);
            if !self.decoder.streams[slot].source_down {
                self.decoder.recovered(slot);
            }
        }
    }

    fn refuse(&mut self, slot: usize, side: usize, why: Refusal) {
        self.decoder.counters.sides[side].refused += 1;
        let s = &mut self.sides[slot][side];
        if why != s.refused && Refusal::Mismatch != s.refused {
            // a mismatch holds until the next trading day
            s.refused = why;
            let reason = match why {
                Refusal::Schema => format!(
                    "it publishes a schema version before {CHAIN_SCHEMA_VERSION}, without the chain of exchange \
                     sequences a pair is arbitrated by (docs/UPGRADING.md)"
                ),
                Refusal::Partitions => format!(
                    "it announces {} partitions, the feed has {}",
                    s.announced_partitions, self.feed_partition_count
                ),
                Refusal::Mismatch => format!(
                    "its copy of the message at chain position {} differs from the one the other side delivered, byte \
                     for byte: the sides disagree on what the exchange sent, and which is right is unknown; out until \
                     the next trading day",
                    s.mismatch_chain
                ),
                _ => "it carries another exchange session than the partition follows".to_string(),
            };
            let partition = self.decoder.streams[slot].partition;
            let message = format!(
                "side {} of partition {partition} refused: {reason}; its messages are dropped while it disagrees \
                 (docs/SDK.md, pairs)",
                SIDE_NAMES[side]
            );
            (self.errors)(&SideReport { side, partition, refused: true, message: &message });
        }
    }

    fn accept(&mut self, slot: usize, side: usize) {
        let s = &mut self.sides[slot][side];
        if Refusal::None != s.refused && Refusal::Mismatch != s.refused {
            s.refused = Refusal::None;
            let partition = self.decoder.streams[slot].partition;
            let message = format!("side {} of partition {partition} agrees again: its messages are taken", SIDE_NAMES[side]);
            (self.errors)(&SideReport { side, partition, refused: false, message: &message });
        }
    }

    /// The partition's source is down when no side can deliver: every side heard from is silent, refused or says its
    /// feed handler does not deliver.
    fn update_source(&mut self, slot: usize) {
        update_source(&mut self.decoder, &self.sides[slot], slot);
    }

    /// Run an arbiter call with this partition's output: its decisions applied to the stream as they are made.
    fn with_output(&mut self, slot: usize, f: impl FnOnce(&mut ChainArbiter, &mut Output<'_, L>)) {
        let mut out = Output { decoder: &mut self.decoder, sides: &mut self.sides[slot], errors: &mut self.errors, slot };
        f(&mut self.arbiters[slot], &mut out);
    }
}

fn is_blank(session: &[u8; 10]) -> bool {
    session.iter().all(|&b| 0 == b) || session.iter().all(|&b| b' ' == b)
}

fn update_source<L: MarketDataListener>(decoder: &mut PacketStreamDecoder<L>, sides: &[Side; 2], slot: usize) {
    let (mut any_up, mut any_audible) = (false, false);
    for s in sides.iter().filter(|s| s.heard && !s.silent) {
        any_audible = true;
        if Refusal::None == s.refused && !s.source_down {
            any_up = true;
        }
    }
    if any_up {
        decoder.source_live(slot);
    } else if any_audible {
        decoder.source_down(slot);
    }
}

/// What the arbitration of one partition decides, applied to the partition.
struct Output<'a, L: MarketDataListener> {
    decoder: &'a mut PacketStreamDecoder<L>,
    sides: &'a mut [Side; 2],
    errors: &'a mut ErrorHandler,
    slot: usize,
}

impl<L: MarketDataListener> ArbiterOutput for Output<'_, L> {
    fn on_join(&mut self, _side: usize, chain: i64, session_start: bool) {
        let stream = &mut self.decoder.streams[self.slot];
        stream.joined = true;
        stream.expected_sequence = chain.wrapping_add(1);
        let (partition, recovery) = (stream.partition, stream.recovery.is_some());
        self.decoder.listener.on_stream_joined(partition, chain.wrapping_add(1) as u64);
        if !session_start && recovery {
            self.decoder.go_stale(self.slot, crate::listener::StaleReason::LateJoin, chain.wrapping_add(1));
        }
    }

    fn on_messages(&mut self, side: usize, packet: &[u8], from_index: usize, to_index: usize, chain_after: i64) {
        self.decoder.counters.sides[side].messages += (to_index - from_index) as u64; // at most a packet's count
        if self.decoder.is_recovering(self.slot) {
            let next_key = self.decoder.streams[self.slot].expected_sequence;
            self.decoder.buffer_range(self.slot, packet, from_index, to_index, next_key);
        } else {
            self.decoder.deliver_range(self.slot, packet, from_index, to_index);
        }
        self.decoder.streams[self.slot].expected_sequence = chain_after.wrapping_add(1);
    }

    fn on_gap(&mut self, after_chain: i64, through_chain: i64) {
        let stream = &mut self.decoder.streams[self.slot];
        let first_missing = stream.first_uncovered(after_chain.wrapping_add(1));
        stream.expected_sequence = through_chain.wrapping_add(1);
        let partition = stream.partition;
        let counters = &mut self.decoder.counters;
        if first_missing > through_chain {
            counters.on_covered_loss(through_chain.wrapping_sub(after_chain));
            return;
        }
        counters.on_covered_loss(first_missing.wrapping_sub(after_chain).wrapping_sub(1));
        counters.gaps += 1;
        counters.missing_messages =
            counters.missing_messages.wrapping_add(through_chain.wrapping_sub(first_missing).wrapping_add(1) as u64);
        self.decoder.listener.on_stream_gap(partition, first_missing as u64, through_chain as u64);
        if self.decoder.is_recovering(self.slot) {
            self.decoder.restart_buffering(self.slot, through_chain.wrapping_add(1));
        } else if self.decoder.streams[self.slot].recovery.is_some() {
            self.decoder.go_stale(self.slot, crate::listener::StaleReason::Gap, through_chain.wrapping_add(1));
        }
    }

    fn on_mismatch(&mut self, side: usize, chain: i64) {
        self.decoder.counters.sides[side].mismatches += 1;
        self.sides[side].mismatch_chain = chain;
        // refuse, as the decoder does (the side's state is here, the decoder's listener there)
        self.decoder.counters.sides[side].refused += 1;
        let s = &mut self.sides[side];
        if Refusal::Mismatch != s.refused {
            s.refused = Refusal::Mismatch;
            let partition = self.decoder.streams[self.slot].partition;
            let message = format!(
                "side {} of partition {partition} refused: its copy of the message at chain position {chain} differs \
                 from the one the other side delivered, byte for byte: the sides disagree on what the exchange sent, \
                 and which is right is unknown; out until the next trading day; its messages are dropped while it \
                 disagrees (docs/SDK.md, pairs)",
                SIDE_NAMES[side]
            );
            (self.errors)(&SideReport { side, partition, refused: true, message: &message });
        }
        update_source(self.decoder, self.sides, self.slot);
    }

    fn on_duplicates(&mut self, side: usize, count: usize) {
        self.decoder.counters.sides[side].duplicates += count as u64;
    }
}
