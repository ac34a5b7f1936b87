//! The SDK's packet processing without a transport, as the Java SDK's `PacketStreamDecoder`: each whole Aeron
//! message (a packet or a heartbeat, docs/WIRE.md) is validated before any of it is delivered, then sequenced per
//! partition (join, gaps, duplicates, overlaps, a new publication, source liveness, a new trading day) and its
//! messages dispatched to the listener's typed callbacks. With recovery on ([`PacketStreamDecoder::with_recovery`])
//! a late join, a gap or a new publication makes the partition stale, and it recovers from the messages of its
//! snapshot stream handed to [`PacketStreamDecoder::on_snapshot_message`] (the `recovery` module, as Java's
//! `PartitionRecovery`).

use crate::counters::{MalformedReason, SubscriberCounters};
use crate::listener::{MarketDataListener, MessageContext, StaleReason};
use crate::recovery::Recovery;
use crate::sbe;
use crate::sbe::ReadBuf;
use crate::wire;

const RETIRED_SESSIONS: usize = 8;
const GAP_REASON_UNRECOVERED: u8 = 1;
const GAP_REASON_STALE: u8 = 2;
const START_OF_MESSAGES: u8 = b'O';
const END_OF_MESSAGES: u8 = b'C';

/// Instrument ids a snapshot's per-instrument filter covers directly; larger ids use the SnapshotEnd's sequence.
pub(crate) const FILTER_INSTRUMENTS: usize = 65536;

/// Everything the subscriber knows about one partition (Java's `PartitionStream`).
#[derive(Debug, Default)]
pub(crate) struct PartitionStream {
    pub(crate) partition: u16,
    pub(crate) joined: bool,
    pub(crate) session_id: i32,
    /// Signed, with wrapping arithmetic, as Java's long: the same answers on any bytes, and no overflow panic.
    pub(crate) expected_sequence: i64,
    retired: [i32; RETIRED_SESSIONS],
    retired_count: usize,
    retired_next: usize,
    pub(crate) source_down: bool,
    pub(crate) exchange_gap: bool,
    pub(crate) session_ended: bool,
    /// None when recovery is off.
    pub(crate) recovery: Option<Recovery>,
    /// The sequence covering each instrument id in the last snapshot applied; made on the first recovery.
    pub(crate) covering_sequence: Vec<i64>,
    pub(crate) covering_sequence_above: i64,
    /// Incrementals up to this sequence are checked against the covering sequences; 0: the filter is off.
    pub(crate) filter_max_sequence: i64,
    /// Every message up to this sequence is in the state of the last snapshot applied (0: none).
    pub(crate) covered_through: i64,
    /// The snapshot applied while the source was down, reported when the partition is good again; 0 for none.
    pub(crate) recovery_snapshot_id: i64,
    pub(crate) recovery_snapshot_sequence: i64,
}

impl PartitionStream {
    fn retire(&mut self, session_id: i32) {
        self.retired[self.retired_next] = session_id;
        self.retired_next = (self.retired_next + 1) % RETIRED_SESSIONS;
        self.retired_count = (self.retired_count + 1).min(RETIRED_SESSIONS);
    }

    fn is_retired(&self, session_id: i32) -> bool {
        self.retired[..self.retired_count].contains(&session_id)
    }

    /// Messages were or may have been lost, and a snapshot is awaited or being applied.
    pub(crate) fn is_recovering(&self) -> bool {
        self.recovery.as_ref().is_some_and(Recovery::is_recovering)
    }

    /// The first message of a lost span starting at `first_missing` that the last snapshot applied does not hold;
    /// while a recovery runs every loss counts.
    pub(crate) fn first_uncovered(&self, first_missing: i64) -> i64 {
        if self.is_recovering() {
            first_missing
        } else {
            first_missing.max(self.covered_through.wrapping_add(1))
        }
    }

    pub(crate) fn covering(&self, instrument_id: u32) -> i64 {
        match self.covering_sequence.get(instrument_id as usize) {
            Some(&sequence) => sequence,
            None => self.covering_sequence_above,
        }
    }

    pub(crate) fn cover(&mut self, from_instrument_id: i64, to_instrument_id_inclusive: i64, sequence: i64) {
        let limit = FILTER_INSTRUMENTS as i64;
        let from = from_instrument_id.clamp(0, limit) as usize;
        let to = to_instrument_id_inclusive.wrapping_add(1).clamp(0, limit) as usize;
        if from < to {
            self.covering_sequence[from..to].fill(sequence);
        }
    }
}

/// Processes the wire messages of a set of partitions, handed in by the caller.
pub struct PacketStreamDecoder<L: MarketDataListener> {
    pub(crate) streams: Vec<PartitionStream>,
    pub(crate) listener: L,
    pub(crate) counters: SubscriberCounters,
}

impl<L: MarketDataListener> PacketStreamDecoder<L> {
    /// A decoder of the given partitions, recovery off (a gap is reported, never repaired); a message is handed in
    /// with its partition's slot in `partitions`.
    pub fn new(partitions: &[u16], listener: L) -> Self {
        assert!(!partitions.is_empty(), "at least one partition");
        let streams = partitions.iter().map(|&partition| PartitionStream { partition, ..Default::default() }).collect();
        Self { streams, listener, counters: SubscriberCounters::default() }
    }

    /// A decoder of the given partitions with recovery on: a late join, a gap or a new publication makes a partition
    /// stale, its incrementals are held back (in a buffer of `recovery_buffer_bytes`, made on its first recovery)
    /// until a snapshot handed in with [`Self::on_snapshot_message`] was applied, as the Java SDK's
    /// `FeedSubscriber` does.
    pub fn with_recovery(partitions: &[u16], recovery_buffer_bytes: usize, listener: L) -> Self {
        assert!(recovery_buffer_bytes > 0, "a recovery buffer of at least one byte");
        let mut decoder = Self::new(partitions, listener);
        for stream in &mut decoder.streams {
            stream.recovery = Some(Recovery::new(recovery_buffer_bytes));
        }
        decoder
    }

    /// Whether the partition in the slot recovers: its snapshot stream is wanted (a live client subscribes to it
    /// only meanwhile).
    pub fn is_recovering(&self, slot: usize) -> bool {
        self.streams[slot].is_recovering()
    }

    /// Whether the partition in the slot is good: neither recovering nor its source down.
    pub fn is_good(&self, slot: usize) -> bool {
        let stream = &self.streams[slot];
        stream.joined && !stream.is_recovering() && !stream.source_down
    }

    /// The partition in the slot.
    pub fn partition(&self, slot: usize) -> u16 {
        self.streams[slot].partition
    }

    /// Whether the partition's stream was joined.
    pub fn is_joined(&self, slot: usize) -> bool {
        self.streams[slot].joined
    }

    /// Join the partition's stream at `sequence` of the publication `session_id` before any message of it (a replay
    /// of the session from its start: a first message later than that is then a gap). Nothing when already joined.
    pub fn join_at(&mut self, slot: usize, session_id: i32, sequence: u64) {
        if !self.streams[slot].joined {
            self.join(slot, session_id, sequence as i64);
        }
    }

    /// Mark the partition stale from outside the stream (silence, a lost image) when recovery is on and it is joined:
    /// a partition already recovering buffers again from the next sequence, else it goes stale for `reason`.
    pub fn mark_stale(&mut self, slot: usize, reason: StaleReason) {
        let stream = &self.streams[slot];
        if stream.recovery.is_none() || !stream.joined {
            return;
        }
        let expected = stream.expected_sequence;
        if stream.is_recovering() {
            self.restart_buffering(slot, expected);
        } else {
            self.go_stale(slot, reason, expected);
        }
    }

    pub(crate) fn counters_mut(&mut self) -> &mut SubscriberCounters {
        &mut self.counters
    }

    /// Whether an exchange gap was declared on the partition's current session (stale `EXCHANGE_GAP`).
    pub fn has_exchange_gap(&self, slot: usize) -> bool {
        self.streams[slot].exchange_gap
    }

    pub fn listener(&mut self) -> &mut L {
        &mut self.listener
    }

    /// The number of partitions, the slots 0 to it less one.
    pub fn partition_count(&self) -> usize {
        self.streams.len()
    }

    pub fn counters(&self) -> &SubscriberCounters {
        &self.counters
    }

    /// The next stream sequence expected in the slot, None before the stream was joined.
    pub fn expected_sequence(&self, slot: usize) -> Option<u64> {
        let stream = &self.streams[slot];
        stream.joined.then_some(stream.expected_sequence as u64)
    }

    /// One complete Aeron message received on the incremental stream of the partition in `slot`, from the
    /// publication with Aeron session id `session_id`.
    pub fn on_message(&mut self, slot: usize, session_id: i32, buffer: &[u8]) {
        let partition = self.streams[slot].partition;
        if let Err(reason) = validate(partition, buffer) {
            self.counters.on_malformed(reason);
            return;
        }
        let stream = &self.streams[slot];
        if stream.joined && session_id != stream.session_id && stream.is_retired(session_id) {
            self.counters.old_session_packets += 1;
            return;
        }
        let (block_length, template_id, _, version) = wire::header(buffer, 0);
        if sbe::heartbeat_codec::SBE_TEMPLATE_ID == template_id {
            let heartbeat = sbe::heartbeat_codec::HeartbeatDecoder::default().wrap(
                ReadBuf::new(buffer),
                wire::HEADER_LENGTH,
                block_length as u16,
                version,
            );
            self.on_heartbeat(slot, session_id, &heartbeat);
        } else {
            self.on_packet(slot, session_id, buffer);
        }
    }

    fn on_heartbeat(
        &mut self,
        slot: usize,
        session_id: i32,
        heartbeat: &sbe::heartbeat_codec::HeartbeatDecoder<'_>,
    ) {
        self.counters.heartbeats += 1;
        let next = heartbeat.next_stream_sequence() as i64;
        let sending_time = heartbeat.sending_time();
        if !self.join(slot, session_id, next) && next > self.streams[slot].expected_sequence {
            self.on_gap(slot, next);
        }
        use sbe::source_status::SourceStatus;
        match heartbeat.source_status() {
            SourceStatus::LIVE => self.source_live(slot),
            SourceStatus::LINES_SILENT | SourceStatus::LOADING | SourceStatus::STOPPED | SourceStatus::FEED_HANDLER_DOWN => {
                self.source_down(slot)
            }
            _ => {}
        }
        let partition = self.streams[slot].partition;
        self.listener.on_heartbeat(partition, next as u64, sending_time);
    }

    fn on_packet(&mut self, slot: usize, session_id: i32, buffer: &[u8]) {
        self.counters.packets += 1;
        let header = wire::packet_header(buffer);
        let first_sequence = header.stream_sequence() as i64;
        let message_count = header.message_count() as i64;
        let end_sequence = first_sequence.wrapping_add(message_count);

        self.join(slot, session_id, first_sequence);
        let expected = self.streams[slot].expected_sequence;
        if end_sequence <= expected {
            self.counters.duplicate_packets += 1;
            self.counters.duplicate_messages += message_count as u64;
            return;
        }
        if first_sequence > expected {
            self.on_gap(slot, first_sequence);
        } else if first_sequence < expected {
            self.counters.duplicate_messages = self.counters.duplicate_messages.wrapping_add(expected.wrapping_sub(first_sequence) as u64);
        }
        let from_sequence = first_sequence.max(expected);
        if self.streams[slot].source_down {
            self.source_live(slot);
        }
        self.streams[slot].expected_sequence = end_sequence;
        if self.streams[slot].is_recovering() {
            self.buffer_packet(slot, buffer, from_sequence);
        } else {
            self.deliver(slot, buffer, from_sequence);
        }
    }

    /// Join on the first packet or heartbeat, and again when a new publication appears: true when (re-)joined.
    fn join(&mut self, slot: usize, session_id: i32, sequence: i64) -> bool {
        let stream = &mut self.streams[slot];
        let first_join = !stream.joined;
        if !first_join && session_id == stream.session_id {
            return false;
        }
        if !first_join {
            let old = stream.session_id;
            stream.retire(old);
        }
        // The exchange ended the day on this stream and a new one starts at its first message.
        let next_day = !first_join && 1 == sequence && stream.session_ended;
        stream.joined = true;
        stream.session_id = session_id;
        stream.expected_sequence = sequence;
        stream.covered_through = 0; // another stream's sequences (or the next day's): no snapshot of them yet
        let partition = stream.partition;
        if next_day {
            stream.session_ended = false;
            stream.filter_max_sequence = 0;
            stream.exchange_gap = false;
            self.counters.new_days += 1;
            self.listener.on_new_day(partition);
        }
        self.listener.on_stream_joined(partition, sequence as u64);
        if self.streams[slot].recovery.is_none() {
            return true;
        }
        if next_day {
            // Everything of the ended day is void and nothing of the new one is missing: no snapshot is needed.
            if self.streams[slot].is_recovering() {
                self.end_with_new_stream(slot);
                if !self.streams[slot].source_down {
                    self.recovered(slot);
                }
            }
        } else if !first_join {
            // A restarted fanout's state may differ from what was built, whatever its first sequence.
            self.go_stale(slot, StaleReason::NewPublication, sequence);
        } else if 1 != sequence {
            self.go_stale(slot, StaleReason::LateJoin, sequence);
        }
        true
    }

    fn on_gap(&mut self, slot: usize, next_sequence: i64) {
        let stream = &mut self.streams[slot];
        let first_missing = stream.first_uncovered(stream.expected_sequence);
        let last_missing = next_sequence.wrapping_sub(1);
        let expected = stream.expected_sequence;
        stream.expected_sequence = next_sequence;
        if first_missing > last_missing {
            // The last snapshot applied holds all of it: nothing is missing from the books (counted as filtered).
            self.counters.on_covered_loss(next_sequence.wrapping_sub(expected));
            return;
        }
        self.counters.on_covered_loss(first_missing.wrapping_sub(expected));
        self.counters.gaps += 1;
        self.counters.missing_messages =
            self.counters.missing_messages.wrapping_add(next_sequence.wrapping_sub(first_missing) as u64);
        let partition = stream.partition;
        self.listener.on_stream_gap(partition, first_missing as u64, last_missing as u64);
        if self.streams[slot].is_recovering() {
            self.restart_buffering(slot, next_sequence);
        } else if self.streams[slot].recovery.is_some() {
            self.go_stale(slot, StaleReason::Gap, next_sequence);
        }
    }

    pub(crate) fn source_down(&mut self, slot: usize) {
        let stream = &mut self.streams[slot];
        if stream.source_down || !stream.joined {
            return;
        }
        if !stream.is_recovering() {
            stream.recovery_snapshot_id = 0;
        }
        stream.source_down = true;
        self.counters.stale_events += 1;
        let (partition, expected) = (stream.partition, stream.expected_sequence);
        self.listener.on_stale(partition, StaleReason::SourceDown, expected as u64);
    }

    pub(crate) fn source_live(&mut self, slot: usize) {
        let stream = &mut self.streams[slot];
        if !stream.source_down {
            return;
        }
        stream.source_down = false;
        if !stream.is_recovering() {
            self.recovered(slot);
        }
    }

    /// The partition is good again: count, and tell the listener which snapshot made it so (0 for none: its source
    /// was down, its stream intact).
    pub(crate) fn recovered(&mut self, slot: usize) {
        let stream = &mut self.streams[slot];
        let snapshot_id = stream.recovery_snapshot_id;
        let last = if 0 != snapshot_id {
            stream.recovery_snapshot_sequence
        } else {
            stream.expected_sequence.wrapping_sub(1)
        };
        stream.recovery_snapshot_id = 0;
        self.counters.recoveries += 1;
        let partition = stream.partition;
        self.listener.on_recovered(partition, snapshot_id as u64, last as u64);
    }

    /// Deliver the messages of a validated incremental packet from `from_sequence` on, skipping those the last
    /// snapshot applied to the partition already covers (its per-instrument filter).
    pub(crate) fn deliver(&mut self, slot: usize, buffer: &[u8], from_sequence: i64) {
        let block_length = wire::header(buffer, 0).0;
        let header = wire::packet_header(buffer);
        let first_sequence = header.stream_sequence() as i64;
        let message_count = header.message_count() as i64;
        let sending_time = header.sending_time();
        let stream = &self.streams[slot];
        let (partition, filter_max_sequence) = (stream.partition, stream.filter_max_sequence);
        let mut position = wire::HEADER_LENGTH + block_length;
        for i in 0..message_count {
            let sequence = first_sequence.wrapping_add(i);
            let (block_length, template_id, _, version) = wire::header(buffer, position);
            if sequence >= from_sequence {
                let context =
                    MessageContext { partition, stream_sequence: sequence as u64, sending_time, template_id, snapshot: false };
                self.deliver_message(slot, &context, buffer, position, block_length, version, filter_max_sequence);
            }
            position += wire::HEADER_LENGTH + block_length;
        }
    }

    /// Deliver messages `[from_index, to_index)` of a validated incremental packet that a pair's arbitration chose, each
    /// keyed by its chain position (docs/WIRE.md) instead of a stream sequence: the identity both sides share. Messages
    /// the last snapshot applied already covers are skipped, as in [`Self::deliver`].
    pub(crate) fn deliver_range(&mut self, slot: usize, buffer: &[u8], from_index: usize, to_index: usize) {
        let block_length = wire::header(buffer, 0).0;
        let sending_time = wire::packet_header(buffer).sending_time();
        let stream = &self.streams[slot];
        let (partition, filter_max_sequence) = (stream.partition, stream.filter_max_sequence);
        let mut position = wire::HEADER_LENGTH + block_length;
        for i in 0..to_index {
            let (block_length, template_id, _, version) = wire::header(buffer, position);
            if i >= from_index {
                let chain_position = crate::arbiter::chain_position(buffer, position, template_id) as u64;
                let context =
                    MessageContext { partition, stream_sequence: chain_position, sending_time, template_id, snapshot: false };
                self.deliver_message(slot, &context, buffer, position, block_length, version, filter_max_sequence);
            }
            position += wire::HEADER_LENGTH + block_length;
        }
    }

    /// One incremental message (its header at `position`) at its sequence (the context's): skipped when the last
    /// snapshot applied already covers it (its per-instrument filter; 0: no filter), else dispatched.
    #[allow(clippy::too_many_arguments)]
    fn deliver_message(
        &mut self,
        slot: usize,
        context: &MessageContext,
        buffer: &[u8],
        position: usize,
        block_length: usize,
        version: u16,
        filter_max_sequence: i64,
    ) {
        let sequence = context.stream_sequence as i64;
        if 0 != filter_max_sequence
            && sequence <= filter_max_sequence
            && sequence <= self.streams[slot].covering(wire::instrument_id(buffer, position))
        {
            self.counters.filtered_messages += 1;
        } else {
            self.dispatch(slot, context, buffer, position + wire::HEADER_LENGTH, block_length, version);
        }
    }

    /// Dispatch one message at `offset` (its block; its header before it): counted, the whole message to
    /// `on_raw_message`, then its typed callback. The partition's trading day follows its System Events, live or a
    /// snapshot's; the exchange's gaps and the day's end declared by GapNotices are the incremental stream's only.
    pub(crate) fn dispatch(
        &mut self,
        slot: usize,
        context: &MessageContext,
        buffer: &[u8],
        offset: usize,
        block_length: usize,
        version: u16,
    ) {
        use sbe::*;
        let buf = ReadBuf::new(buffer);
        let block = block_length as u16;
        let listener = &mut self.listener;
        self.counters.messages += 1;
        // As Java's: the whole message (header and block) first, then its typed callback.
        listener.on_raw_message(context, &buffer[offset - wire::HEADER_LENGTH..offset + block_length]);
        match context.template_id {
            gap_notice_codec::SBE_TEMPLATE_ID => {
                let m = gap_notice_codec::GapNoticeDecoder::default().wrap(buf, offset, block, version);
                let reason = m.reason() as u8;
                listener.on_gap_notice(context, m);
                if !context.snapshot && GAP_REASON_UNRECOVERED == reason {
                    self.on_exchange_gap(slot, context.stream_sequence);
                } else if !context.snapshot && GAP_REASON_STALE == reason {
                    self.streams[slot].session_ended = true;
                }
            }
            system_event_codec::SBE_TEMPLATE_ID => {
                let m = system_event_codec::SystemEventDecoder::default().wrap(buf, offset, block, version);
                let code = m.event_code() as u8;
                listener.on_system_event(context, m);
                let stream = &mut self.streams[slot];
                match code {
                    END_OF_MESSAGES => stream.session_ended = true,
                    b'O' | b'S' | b'Q' | b'M' | b'E' => stream.session_ended = false,
                    _ => {}
                }
                if !context.snapshot && stream.exchange_gap && START_OF_MESSAGES == code {
                    stream.exchange_gap = false;
                }
            }
            instrument_directory_codec::SBE_TEMPLATE_ID => listener
                .on_instrument_directory(context, instrument_directory_codec::InstrumentDirectoryDecoder::default().wrap(
                    buf, offset, block, version)),
            trading_status_codec::SBE_TEMPLATE_ID => listener.on_trading_status(
                context, trading_status_codec::TradingStatusDecoder::default().wrap(buf, offset, block, version)),
            reg_sho_restriction_codec::SBE_TEMPLATE_ID => listener.on_reg_sho_restriction(
                context,
                reg_sho_restriction_codec::RegShoRestrictionDecoder::default().wrap(buf, offset, block, version),
            ),
            mwcb_decline_level_codec::SBE_TEMPLATE_ID => listener.on_mwcb_decline_level(
                context,
                mwcb_decline_level_codec::MwcbDeclineLevelDecoder::default().wrap(buf, offset, block, version),
            ),
            mwcb_status_codec::SBE_TEMPLATE_ID => listener
                .on_mwcb_status(context, mwcb_status_codec::MwcbStatusDecoder::default().wrap(buf, offset, block, version)),
            operational_halt_codec::SBE_TEMPLATE_ID => listener.on_operational_halt(
                context,
                operational_halt_codec::OperationalHaltDecoder::default().wrap(buf, offset, block, version),
            ),
            add_order_codec::SBE_TEMPLATE_ID => listener
                .on_add_order(context, add_order_codec::AddOrderDecoder::default().wrap(buf, offset, block, version)),
            add_order_attributed_codec::SBE_TEMPLATE_ID => listener.on_add_order_attributed(
                context,
                add_order_attributed_codec::AddOrderAttributedDecoder::default().wrap(buf, offset, block, version),
            ),
            order_executed_codec::SBE_TEMPLATE_ID => listener.on_order_executed(
                context, order_executed_codec::OrderExecutedDecoder::default().wrap(buf, offset, block, version)),
            order_executed_with_price_codec::SBE_TEMPLATE_ID => listener.on_order_executed_with_price(
                context,
                order_executed_with_price_codec::OrderExecutedWithPriceDecoder::default()
                    .wrap(buf, offset, block, version),
            ),
            order_cancel_codec::SBE_TEMPLATE_ID => listener
                .on_order_cancel(context, order_cancel_codec::OrderCancelDecoder::default().wrap(buf, offset, block, version)),
            order_delete_codec::SBE_TEMPLATE_ID => listener
                .on_order_delete(context, order_delete_codec::OrderDeleteDecoder::default().wrap(buf, offset, block, version)),
            order_replace_codec::SBE_TEMPLATE_ID => listener.on_order_replace(
                context, order_replace_codec::OrderReplaceDecoder::default().wrap(buf, offset, block, version)),
            trade_codec::SBE_TEMPLATE_ID => {
                listener.on_trade(context, trade_codec::TradeDecoder::default().wrap(buf, offset, block, version))
            }
            cross_trade_codec::SBE_TEMPLATE_ID => listener
                .on_cross_trade(context, cross_trade_codec::CrossTradeDecoder::default().wrap(buf, offset, block, version)),
            broken_trade_codec::SBE_TEMPLATE_ID => listener
                .on_broken_trade(context, broken_trade_codec::BrokenTradeDecoder::default().wrap(buf, offset, block, version)),
            imbalance_codec::SBE_TEMPLATE_ID => listener
                .on_imbalance(context, imbalance_codec::ImbalanceDecoder::default().wrap(buf, offset, block, version)),
            _ => {}
        }
    }

    pub(crate) fn on_exchange_gap(&mut self, slot: usize, sequence: u64) {
        let stream = &mut self.streams[slot];
        if !stream.exchange_gap {
            stream.exchange_gap = true;
            self.counters.stale_events += 1;
            let partition = stream.partition;
            self.listener.on_stale(partition, StaleReason::ExchangeGap, sequence);
        }
    }
}

/// Check every SBE header of a whole Aeron message of an incremental stream against the wire contract (Java's
/// `PacketValidator`).
pub fn validate(partition: u16, buffer: &[u8]) -> Result<(), MalformedReason> {
    validate_message(partition, buffer, false)
}

/// Check every SBE header of a whole Aeron message of a partition's incremental stream or, with `snapshot`, of its
/// snapshot stream (whose packets carry snapshot and state messages) against the wire contract.
pub fn validate_message(partition: u16, buffer: &[u8], snapshot: bool) -> Result<(), MalformedReason> {
    use MalformedReason::*;
    let end = buffer.len();
    if end < wire::HEADER_LENGTH {
        return Err(Truncated);
    }
    let (block_length, template_id, schema_id, version) = wire::header(buffer, 0);
    if wire::SCHEMA_ID != schema_id {
        return Err(BadSchemaId);
    }
    let packet = sbe::packet_header_codec::SBE_TEMPLATE_ID;
    let heartbeat = sbe::heartbeat_codec::SBE_TEMPLATE_ID;
    if packet != template_id && heartbeat != template_id {
        return Err(if wire::known_block_length(template_id).is_some() { NotAPacket } else { UnknownTemplate });
    }
    if block_length < wire::minimum_block_length(template_id, version).unwrap_or(usize::MAX) {
        return Err(ShortBlockLength);
    }
    let mut position = wire::HEADER_LENGTH + block_length;
    if position > end {
        return Err(Truncated);
    }
    let partition_at = |offset: usize| u16::from_le_bytes([buffer[offset], buffer[offset + 1]]);
    if heartbeat == template_id {
        // partitionId follows nextStreamSequence and sendingTime
        if partition_at(wire::HEADER_LENGTH + 16) != partition {
            return Err(WrongPartition);
        }
        return if position == end { Ok(()) } else { Err(BadMessageCount) };
    }
    let header = wire::packet_header(buffer);
    if header.partition_id() != partition {
        return Err(WrongPartition);
    }
    let message_count = header.message_count();
    if 0 == message_count {
        return Err(BadMessageCount);
    }
    for _ in 0..message_count {
        let remaining = end - position;
        if 0 == remaining {
            return Err(BadMessageCount);
        }
        if remaining < wire::HEADER_LENGTH {
            return Err(Truncated);
        }
        let (message_block_length, message_template_id, message_schema_id, message_version) =
            wire::header(buffer, position);
        if wire::SCHEMA_ID != message_schema_id {
            return Err(BadSchemaId);
        }
        let schema_block_length = if snapshot {
            wire::snapshot_stream_block_length(message_template_id)
        } else {
            wire::normalized_block_length(message_template_id)
        };
        let Some(schema_block_length) = schema_block_length else {
            return Err(UnknownTemplate);
        };
        if message_block_length < schema_block_length
            && message_block_length
                < wire::minimum_block_length(message_template_id, message_version).unwrap_or(usize::MAX)
        {
            return Err(ShortBlockLength);
        }
        if wire::HEADER_LENGTH + message_block_length > remaining {
            return Err(Truncated);
        }
        position += wire::HEADER_LENGTH + message_block_length;
    }
    if position == end {
        Ok(())
    } else {
        Err(BadMessageCount)
    }
}
