//! Recovery of a partition from its snapshot stream, as the Java SDK's `PartitionRecovery`: one fanout's snapshots, or
//! a pair's (chain-keyed: positions are chain positions, the exchange's identity of a message that both sides share,
//! and a snapshot of either side applies, its state tagged with its exchangeSequence).
//!
//! A late join, a gap or a new publication makes the partition stale: from then on its incremental packets are copied
//! into a bounded [`RecoveryBuffer`] instead of being delivered. The first SnapshotBegin of the followed publication
//! that is recent enough (its lastStreamSequence at least the first buffered sequence less one) is applied: the
//! listener hears `on_snapshot_begin`, the state messages, each instrument and its orders, `on_snapshot_end`. Then the
//! buffer is replayed through the normal delivery, each message filtered by the sequence that covers its instrument
//! in the snapshot (the filter stays on for live packets until the stream passes the snapshot's highest sequence),
//! and the partition is good again (`on_recovered`). Another gap meanwhile drops what was buffered and abandons a
//! snapshot being applied. The buffer and the filter are made on the partition's first recovery; nothing else
//! allocates.

use crate::decoder::{validate_message, PacketStreamDecoder, FILTER_INSTRUMENTS};
use crate::listener::{MarketDataListener, MessageContext, StaleReason};
use crate::sbe;
use crate::wire;

const RECORD_HEADER_LENGTH: usize = 16;

/// Where a partition's recovery stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RecoveryState {
    /// The stream is whole: incrementals are delivered as they come.
    #[default]
    Live,
    /// Stale: waits for a SnapshotBegin of the followed publication recent enough to apply.
    AwaitSnapshot,
    /// A snapshot is being applied, up to its SnapshotEnd; a gap in it or in the incrementals abandons it.
    ApplySnapshot,
}

/// Bounded store of the incremental Aeron messages received while a partition recovers, replayed in arrival order
/// once a snapshot is applied: records back to back, 8-byte aligned, `length (i32), toIndex (i32), fromSequence (i64),
/// bytes`, as Java's `RecoveryBuffer` lays them out (so both overflow at the same message). A pair's records hold the
/// index range of the packet's messages its arbitration chose (`fromSequence` is then the first index).
#[derive(Debug, Default)]
pub struct RecoveryBuffer {
    bytes: Vec<u8>,
    limit: usize,
}

impl RecoveryBuffer {
    fn with_capacity(capacity: usize) -> Self {
        Self { bytes: vec![0; capacity], limit: 0 }
    }

    /// True when the message was stored, false when it does not fit (nothing stored).
    fn append(&mut self, message: &[u8], from_sequence: i64) -> bool {
        self.append_record(message, from_sequence, 0)
    }

    /// A pair's packet, of which messages `[from_index, to_index)` are to be delivered.
    fn append_range(&mut self, message: &[u8], from_index: usize, to_index: usize) -> bool {
        self.append_record(message, from_index as i64, to_index as i32)
    }

    fn append_record(&mut self, message: &[u8], from_sequence: i64, to_index: i32) -> bool {
        let record_length = (RECORD_HEADER_LENGTH + message.len() + 7) & !7;
        if record_length > self.bytes.len() - self.limit {
            return false;
        }
        let at = self.limit;
        self.bytes[at..at + 4].copy_from_slice(&(message.len() as i32).to_le_bytes());
        self.bytes[at + 4..at + 8].copy_from_slice(&to_index.to_le_bytes());
        self.bytes[at + 8..at + 16].copy_from_slice(&from_sequence.to_le_bytes());
        self.bytes[at + RECORD_HEADER_LENGTH..at + RECORD_HEADER_LENGTH + message.len()].copy_from_slice(message);
        self.limit += record_length;
        true
    }

    fn reset(&mut self) {
        self.limit = 0;
    }

    /// The record at `at`: (message offset, message length, from sequence, to index, next record's offset).
    fn record(&self, at: usize) -> (usize, usize, i64, usize, usize) {
        let length = i32::from_le_bytes(self.bytes[at..at + 4].try_into().unwrap()) as usize;
        let to_index = i32::from_le_bytes(self.bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        let from = i64::from_le_bytes(self.bytes[at + 8..at + 16].try_into().unwrap());
        (at + RECORD_HEADER_LENGTH, length, from, to_index, at + ((RECORD_HEADER_LENGTH + length + 7) & !7))
    }
}

/// One partition's recovery: its state, what it holds back, and the snapshot stream it follows.
#[derive(Debug, Default)]
pub(crate) struct Recovery {
    state: RecoveryState,
    buffer_bytes: usize,
    /// Made on the partition's first recovery.
    buffer: Option<RecoveryBuffer>,
    /// First stream sequence the buffer holds (or will): a snapshot must have lastStreamSequence >= this - 1.
    required_sequence: i64,
    /// A pair's: positions are chain positions, a snapshot of either side applies.
    chain_keyed: bool,

    /// The snapshot stream of each side (one for a fanout, two for a pair).
    sources: [SnapshotSource; 2],
    /// The side whose snapshot is being applied (the other's are passed over meanwhile).
    applying_source: usize,

    // The snapshot being applied.
    snapshot_id: i64,
    snapshot_begin_sequence: i64,
    current_covering_sequence: i64,
    max_covering_sequence: i64,
    next_covered_from: i64,
    orders_remaining: i64,
    instrument_order_count: i64,
    snapshot_instrument_count: i64,
    snapshot_order_count: i64,
    snapshot_message_count: i64,
    lacks_nothing: bool,
}

/// Where one side's snapshot stream stands while the partition recovers.
#[derive(Debug, Default, Clone, Copy)]
struct SnapshotSource {
    joined: bool,
    session_id: i32,
    expected_sequence: i64,
}

impl Recovery {
    pub(crate) fn new(buffer_bytes: usize) -> Self {
        Self { buffer_bytes, ..Default::default() }
    }

    /// A pair's recovery: chain positions, either side's snapshots.
    pub(crate) fn chain_keyed(buffer_bytes: usize) -> Self {
        Self { buffer_bytes, chain_keyed: true, ..Default::default() }
    }

    pub(crate) fn is_recovering(&self) -> bool {
        RecoveryState::Live != self.state
    }

    pub(crate) fn state(&self) -> RecoveryState {
        self.state
    }

    fn buffer(&mut self) -> &mut RecoveryBuffer {
        self.buffer.as_mut().expect("made when the partition went stale")
    }

    /// Leave a snapshot being applied: true when one was.
    fn abandon(&mut self) -> bool {
        if RecoveryState::ApplySnapshot == self.state {
            self.state = RecoveryState::AwaitSnapshot;
            return true;
        }
        false
    }

    /// The snapshot streams are no longer followed (the partition is live again).
    fn close_source(&mut self) {
        for source in &mut self.sources {
            source.joined = false;
        }
    }
}

impl<L: MarketDataListener> PacketStreamDecoder<L> {
    /// Where the recovery of the partition in the slot stands; None when recovery is off.
    pub fn recovery_state(&self, slot: usize) -> Option<RecoveryState> {
        self.streams[slot].recovery.as_ref().map(Recovery::state)
    }

    /// Mark the partition stale (again): buffering starts at `sequence`, the listener is told.
    pub(crate) fn go_stale(&mut self, slot: usize, reason: StaleReason, sequence: i64) {
        let stream = &mut self.streams[slot];
        if stream.covering_sequence.is_empty() {
            stream.covering_sequence = vec![0; FILTER_INSTRUMENTS];
        }
        let recovery = stream.recovery.as_mut().expect("recovery on");
        if recovery.buffer.is_none() {
            recovery.buffer = Some(RecoveryBuffer::with_capacity(recovery.buffer_bytes));
        }
        if RecoveryState::Live == recovery.state {
            stream.recovery_snapshot_id = 0;
            recovery.state = RecoveryState::AwaitSnapshot;
        }
        self.restart_buffering(slot, sequence);
        self.counters.stale_events += 1;
        let partition = self.streams[slot].partition;
        self.listener.on_stale(partition, reason, sequence as u64);
    }

    /// Drop what was buffered; buffering starts again at `sequence`; a snapshot being applied is abandoned.
    pub(crate) fn restart_buffering(&mut self, slot: usize, sequence: i64) {
        let recovery = self.streams[slot].recovery.as_mut().expect("recovery on");
        recovery.buffer().reset();
        recovery.required_sequence = sequence;
        if recovery.abandon() {
            self.counters.recovery_attempts_abandoned += 1;
        }
    }

    /// The stream started again at its first message after the exchange ended the day: what was buffered belongs to
    /// the ended day, no snapshot is needed, and the partition follows the new stream.
    pub(crate) fn end_with_new_stream(&mut self, slot: usize) {
        let stream = &mut self.streams[slot];
        let recovery = stream.recovery.as_mut().expect("recovery on");
        if recovery.abandon() {
            self.counters.recovery_attempts_abandoned += 1;
        }
        recovery.state = RecoveryState::Live;
        if let Some(buffer) = recovery.buffer.as_mut() {
            buffer.reset();
        }
        recovery.close_source();
        stream.recovery_snapshot_id = 0;
    }

    /// Hold back a validated incremental packet, from `from_sequence` on, until a snapshot was applied. A packet
    /// larger than the whole buffer is a loss like any other: buffering starts again after it, so that only a snapshot
    /// that holds it recovers the partition (the stream's expected sequence is already past it).
    pub(crate) fn buffer_packet(&mut self, slot: usize, message: &[u8], from_sequence: i64) {
        let recovery = self.streams[slot].recovery.as_mut().expect("recovering");
        if !recovery.buffer().append(message, from_sequence) {
            self.counters.recovery_buffer_overflows += 1;
            self.go_stale(slot, StaleReason::RecoveryBufferOverflow, from_sequence);
            let recovery = self.streams[slot].recovery.as_mut().expect("recovering");
            if !recovery.buffer().append(message, from_sequence) {
                let next = self.streams[slot].expected_sequence;
                self.restart_buffering(slot, next);
            }
        }
    }

    /// Hold back messages `[from_index, to_index)` of a validated incremental packet a pair's arbitration chose, until
    /// a snapshot was applied; `next_key` is the chain position before them plus one.
    pub(crate) fn buffer_range(&mut self, slot: usize, message: &[u8], from_index: usize, to_index: usize, next_key: i64) {
        let recovery = self.streams[slot].recovery.as_mut().expect("recovering");
        if !recovery.buffer().append_range(message, from_index, to_index) {
            self.counters.recovery_buffer_overflows += 1;
            self.go_stale(slot, StaleReason::RecoveryBufferOverflow, next_key);
            let recovery = self.streams[slot].recovery.as_mut().expect("recovering");
            if !recovery.buffer().append_range(message, from_index, to_index) {
                let next = self.streams[slot].expected_sequence;
                self.restart_buffering(slot, next);
            }
        }
    }

    /// One complete Aeron message received on the snapshot stream of the partition in `slot`, from the snapshot
    /// publication with Aeron session id `session_id`. Ignored unless the partition recovers; a decoder without
    /// recovery ignores it too (and counts nothing).
    pub fn on_snapshot_message(&mut self, slot: usize, session_id: i32, buffer: &[u8]) {
        self.on_side_snapshot_message(slot, 0, session_id, buffer);
    }

    /// A message of side `source`'s snapshot stream (a pair's: 0 for A, 1 for B).
    pub(crate) fn on_side_snapshot_message(&mut self, slot: usize, source: usize, session_id: i32, buffer: &[u8]) {
        if self.streams[slot].recovery.is_none() {
            return;
        }
        self.counters.snapshot_packets += 1;
        let partition = self.streams[slot].partition;
        let recovery = self.recovery(slot);
        let applying = RecoveryState::ApplySnapshot == recovery.state && source == recovery.applying_source;
        let applying_other = RecoveryState::ApplySnapshot == recovery.state && !applying;
        if validate_message(partition, buffer, true).is_err() {
            self.counters.malformed_snapshot_packets += 1;
            if !applying_other {
                self.abandon_snapshot(slot);
            }
            return;
        }
        if !self.streams[slot].is_recovering() {
            return;
        }
        let (block_length, template_id, _, _) = wire::header(buffer, 0);
        if sbe::heartbeat_codec::SBE_TEMPLATE_ID == template_id {
            return;
        }
        let header = wire::packet_header(buffer);
        let first_sequence = header.stream_sequence() as i64;
        let message_count = header.message_count() as i64;
        let sending_time = header.sending_time();
        let recovery = self.recovery(slot);
        let state = &mut recovery.sources[source];
        let mut abandon = false;
        if !state.joined || session_id != state.session_id {
            abandon = applying;
            state.joined = true;
            state.session_id = session_id;
            state.expected_sequence = first_sequence;
        }
        if first_sequence.wrapping_add(message_count) <= state.expected_sequence {
            if abandon {
                self.abandon_snapshot(slot);
            }
            return;
        }
        let snapshot_gap = first_sequence != state.expected_sequence;
        state.expected_sequence = first_sequence.wrapping_add(message_count);
        if snapshot_gap {
            // Snapshot content was lost (or overlaps): this attempt cannot be trusted, wait for the next Begin.
            self.counters.snapshot_gaps += 1;
            abandon |= applying;
        }
        if abandon {
            self.abandon_snapshot(slot);
        }
        let recovery = self.recovery(slot);
        if RecoveryState::ApplySnapshot == recovery.state && source != recovery.applying_source {
            return; // another side's snapshot is being applied
        }

        let mut position = wire::HEADER_LENGTH + block_length;
        for _ in 0..message_count {
            if !self.streams[slot].is_recovering() {
                break;
            }
            let (block_length, template_id, _, version) = wire::header(buffer, position);
            self.on_snapshot_stream_message(slot, source, buffer, position, template_id, block_length, version, sending_time);
            position += wire::HEADER_LENGTH + block_length;
        }
    }

    fn recovery(&mut self, slot: usize) -> &mut Recovery {
        self.streams[slot].recovery.as_mut().expect("recovery on")
    }

    fn abandon_snapshot(&mut self, slot: usize) {
        if self.recovery(slot).abandon() {
            self.counters.recovery_attempts_abandoned += 1;
        }
    }

    fn inconsistent_snapshot(&mut self, slot: usize) {
        self.counters.malformed_snapshot_packets += 1;
        self.abandon_snapshot(slot);
    }

    #[allow(clippy::too_many_arguments)]
    fn on_snapshot_stream_message(
        &mut self,
        slot: usize,
        source: usize,
        buffer: &[u8],
        offset: usize,
        template_id: u16,
        block_length: usize,
        version: u16,
        sending_time: u64,
    ) {
        use sbe::*;
        let block_offset = offset + wire::HEADER_LENGTH;
        let buf = ReadBuf::new(buffer);
        let block = block_length as u16;
        if snapshot_begin_codec::SBE_TEMPLATE_ID == template_id {
            self.abandon_snapshot(slot);
            let begin = snapshot_begin_codec::SnapshotBeginDecoder::default().wrap(buf, block_offset, block, version);
            self.on_snapshot_begin(slot, source, &begin);
            return;
        }
        if RecoveryState::ApplySnapshot != self.recovery(slot).state {
            return;
        }
        let partition = self.streams[slot].partition;
        match template_id {
            snapshot_instrument_codec::SBE_TEMPLATE_ID => {
                let m = snapshot_instrument_codec::SnapshotInstrumentDecoder::default()
                    .wrap(buf, block_offset, block, version);
                let instrument_id = m.instrument_id() as i64;
                let r = self.recovery(slot);
                let last_sequence =
                    if r.chain_keyed { m.exchange_sequence() as i64 } else { m.last_stream_sequence() as i64 };
                if 0 != r.orders_remaining
                    || m.snapshot_id() as i64 != r.snapshot_id
                    || m.covered_from_instrument_id() as i64 != r.next_covered_from
                    || instrument_id < r.next_covered_from
                    || last_sequence < r.snapshot_begin_sequence
                {
                    self.inconsistent_snapshot(slot);
                    return;
                }
                r.snapshot_message_count += 1;
                r.snapshot_instrument_count += 1;
                let from = r.next_covered_from;
                r.max_covering_sequence = r.max_covering_sequence.max(last_sequence);
                r.next_covered_from = instrument_id + 1;
                r.current_covering_sequence = last_sequence;
                r.orders_remaining = m.order_count() as i64;
                r.instrument_order_count = r.orders_remaining;
                self.streams[slot].cover(from, instrument_id, last_sequence);
                let context = snapshot_context(partition, last_sequence, sending_time, template_id);
                self.listener.on_snapshot_instrument(&context, m);
            }
            snapshot_order_codec::SBE_TEMPLATE_ID => {
                let r = self.recovery(slot);
                if 0 == r.orders_remaining {
                    self.inconsistent_snapshot(slot);
                    return;
                }
                r.orders_remaining -= 1;
                r.snapshot_message_count += 1;
                r.snapshot_order_count += 1;
                let context = snapshot_context(partition, r.current_covering_sequence, sending_time, template_id);
                let m = snapshot_order_codec::SnapshotOrderDecoder::default().wrap(buf, block_offset, block, version);
                self.listener.on_snapshot_order(&context, m);
            }
            snapshot_end_codec::SBE_TEMPLATE_ID => {
                let end = snapshot_end_codec::SnapshotEndDecoder::default().wrap(buf, block_offset, block, version);
                self.on_snapshot_end(slot, &end);
            }
            _ => {
                // A state message, re-sent byte for byte: delivered like the incremental it was, before the
                // instrument's orders.
                let r = self.recovery(slot);
                if r.orders_remaining != r.instrument_order_count {
                    self.inconsistent_snapshot(slot);
                    return;
                }
                r.snapshot_message_count += 1;
                let context = snapshot_context(partition, r.current_covering_sequence, sending_time, template_id);
                self.dispatch(slot, &context, buffer, block_offset, block_length, version);
            }
        }
    }

    fn on_snapshot_begin(
        &mut self,
        slot: usize,
        source: usize,
        begin: &sbe::snapshot_begin_codec::SnapshotBeginDecoder<'_>,
    ) {
        let stream = &self.streams[slot];
        let recovery = stream.recovery.as_ref().expect("recovery on");
        let (required, chain_keyed) = (recovery.required_sequence, recovery.chain_keyed);
        // A pair's snapshots of either side are interchangeable: their state is tagged with the chain's position.
        let last_sequence =
            if chain_keyed { begin.exchange_sequence() as i64 } else { begin.last_stream_sequence() as i64 };
        if !stream.joined
            || (!chain_keyed && begin.incremental_session_id() != stream.session_id)
            || last_sequence < required.wrapping_sub(1)
            || (chain_keyed && crate::arbiter::UNKNOWN == last_sequence)
        {
            self.counters.snapshots_ignored += 1;
            return;
        }
        let snapshot_id = begin.snapshot_id() as i64;
        let unrecovered_from = begin.unrecovered_from_sequence(); // its null value from an older fanout
        let r = self.recovery(slot);
        r.state = RecoveryState::ApplySnapshot;
        r.applying_source = source;
        r.snapshot_id = snapshot_id;
        r.snapshot_begin_sequence = last_sequence;
        r.current_covering_sequence = last_sequence;
        r.max_covering_sequence = last_sequence;
        r.next_covered_from = 1;
        r.orders_remaining = 0;
        r.instrument_order_count = 0;
        r.snapshot_instrument_count = 0;
        r.snapshot_order_count = 0;
        r.snapshot_message_count = 0;
        r.lacks_nothing = 0 == unrecovered_from;
        let stream = &mut self.streams[slot];
        stream.covering_sequence[0] = last_sequence;
        let partition = stream.partition;
        self.listener.on_snapshot_begin(partition, snapshot_id as u64, last_sequence as u64);
        if 0 != unrecovered_from && u64::MAX != unrecovered_from {
            // The state this snapshot holds lacks exchange messages its feed handler declared lost: so will the books.
            self.on_exchange_gap(slot, last_sequence as u64);
        }
    }

    fn on_snapshot_end(&mut self, slot: usize, end: &sbe::snapshot_end_codec::SnapshotEndDecoder<'_>) {
        let r = self.recovery(slot);
        let last_sequence =
            if r.chain_keyed { end.exchange_sequence() as i64 } else { end.last_stream_sequence() as i64 };
        if 0 != r.orders_remaining
            || end.snapshot_id() as i64 != r.snapshot_id
            || end.covered_from_instrument_id() as i64 != r.next_covered_from
            || end.instrument_count() as i64 != r.snapshot_instrument_count
            || end.order_count() as i64 != r.snapshot_order_count
            || end.message_count() as i64 != r.snapshot_message_count
            || last_sequence < r.snapshot_begin_sequence
        {
            self.inconsistent_snapshot(slot);
            return;
        }
        r.max_covering_sequence = r.max_covering_sequence.max(last_sequence);
        let (snapshot_id, begin_sequence, covered_from, max_covering, lacks_nothing) = (
            r.snapshot_id,
            r.snapshot_begin_sequence,
            r.next_covered_from,
            r.max_covering_sequence,
            r.lacks_nothing,
        );
        let stream = &mut self.streams[slot];
        stream.cover(covered_from, FILTER_INSTRUMENTS as i64, last_sequence);
        stream.covering_sequence_above = last_sequence;
        stream.filter_max_sequence = max_covering;
        if lacks_nothing {
            // The books are now a state that lacks nothing: what the exchange lost before is no longer missing.
            stream.exchange_gap = false;
        }
        let partition = stream.partition;
        self.counters.snapshots_applied += 1;
        self.listener.on_snapshot_end(partition, snapshot_id as u64, covered_from as u64, last_sequence as u64);

        self.replay(slot);

        let stream = &mut self.streams[slot];
        let recovery = stream.recovery.as_mut().expect("recovery on");
        recovery.state = RecoveryState::Live;
        recovery.buffer().reset();
        recovery.close_source();
        stream.recovery_snapshot_id = snapshot_id;
        stream.recovery_snapshot_sequence = begin_sequence;
        stream.covered_through = stream.covered_through.max(begin_sequence);
        if !stream.source_down {
            self.recovered(slot);
        }
        // else: the books are consistent again, but not good until the source is live
    }

    /// Deliver what was held back, through the snapshot's filter. The buffer is taken out for the replay (delivery
    /// needs the decoder) and put back: no copy, no allocation.
    fn replay(&mut self, slot: usize) {
        let chain_keyed = self.recovery(slot).chain_keyed;
        let buffer = self.recovery(slot).buffer.take().expect("made when the partition went stale");
        let mut at = 0;
        while at < buffer.limit {
            let (offset, length, from, to_index, next) = buffer.record(at);
            let packet = &buffer.bytes[offset..offset + length];
            if chain_keyed {
                self.deliver_range(slot, packet, from as usize, to_index);
            } else {
                self.deliver(slot, packet, from);
            }
            at = next;
        }
        self.recovery(slot).buffer = Some(buffer);
    }
}

fn snapshot_context(partition: u16, sequence: i64, sending_time: u64, template_id: u16) -> MessageContext {
    MessageContext { partition, stream_sequence: sequence as u64, sending_time, template_id, snapshot: true }
}
