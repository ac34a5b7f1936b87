//! The SDK's packet processing without a transport, as the Java SDK's `PacketStreamDecoder` (recovery off): each
//! whole Aeron message (a packet or a heartbeat, docs/WIRE.md) is validated before any of it is delivered, then
//! sequenced per partition (join, gaps, duplicates, overlaps, a new publication, source liveness, a new trading day)
//! and its messages dispatched to the listener's typed callbacks.

use crate::counters::{MalformedReason, SubscriberCounters};
use crate::listener::{MarketDataListener, MessageContext, StaleReason};
use crate::sbe;
use crate::sbe::ReadBuf;
use crate::wire;

const RETIRED_SESSIONS: usize = 8;
const GAP_REASON_UNRECOVERED: u8 = 1;
const GAP_REASON_STALE: u8 = 2;
const START_OF_MESSAGES: u8 = b'O';
const END_OF_MESSAGES: u8 = b'C';

#[derive(Debug, Default)]
struct PartitionStream {
    partition: u16,
    joined: bool,
    session_id: i32,
    /// Signed, with wrapping arithmetic, as Java's long: the same answers on any bytes, and no overflow panic.
    expected_sequence: i64,
    retired: [i32; RETIRED_SESSIONS],
    retired_count: usize,
    retired_next: usize,
    source_down: bool,
    exchange_gap: bool,
    session_ended: bool,
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
}

/// Processes the wire messages of a set of partitions, handed in by the caller.
pub struct PacketStreamDecoder<L: MarketDataListener> {
    streams: Vec<PartitionStream>,
    listener: L,
    counters: SubscriberCounters,
}

impl<L: MarketDataListener> PacketStreamDecoder<L> {
    /// A decoder of the given partitions; a message is handed in with its partition's slot in `partitions`.
    pub fn new(partitions: &[u16], listener: L) -> Self {
        assert!(!partitions.is_empty(), "at least one partition");
        let streams = partitions.iter().map(|&partition| PartitionStream { partition, ..Default::default() }).collect();
        Self { streams, listener, counters: SubscriberCounters::default() }
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
            self.on_packet(slot, session_id, buffer, block_length, version);
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

    fn on_packet(&mut self, slot: usize, session_id: i32, buffer: &[u8], block_length: usize, version: u16) {
        self.counters.packets += 1;
        let header = sbe::packet_header_codec::PacketHeaderDecoder::default().wrap(
            ReadBuf::new(buffer),
            wire::HEADER_LENGTH,
            block_length as u16,
            version,
        );
        let first_sequence = header.stream_sequence() as i64;
        let message_count = header.message_count() as i64;
        let sending_time = header.sending_time();
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
        self.deliver(slot, buffer, wire::HEADER_LENGTH + block_length, first_sequence, message_count, from_sequence,
            sending_time);
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
        let partition = stream.partition;
        if next_day {
            stream.session_ended = false;
            stream.exchange_gap = false;
            self.counters.new_days += 1;
            self.listener.on_new_day(partition);
        }
        self.listener.on_stream_joined(partition, sequence as u64);
        true
    }

    fn on_gap(&mut self, slot: usize, next_sequence: i64) {
        let stream = &mut self.streams[slot];
        // Java's firstUncovered: no snapshot applied without recovery, so nothing below 1 is covered.
        let first_missing = stream.expected_sequence.max(1);
        let last_missing = next_sequence.wrapping_sub(1);
        stream.expected_sequence = next_sequence;
        if first_missing > last_missing {
            return;
        }
        self.counters.gaps += 1;
        self.counters.missing_messages =
            self.counters.missing_messages.wrapping_add(next_sequence.wrapping_sub(first_missing) as u64);
        let partition = stream.partition;
        self.listener.on_stream_gap(partition, first_missing as u64, last_missing as u64);
    }

    fn source_down(&mut self, slot: usize) {
        let stream = &mut self.streams[slot];
        if stream.source_down || !stream.joined {
            return;
        }
        stream.source_down = true;
        self.counters.stale_events += 1;
        let (partition, expected) = (stream.partition, stream.expected_sequence);
        self.listener.on_stale(partition, StaleReason::SourceDown, expected as u64);
    }

    fn source_live(&mut self, slot: usize) {
        let stream = &mut self.streams[slot];
        if !stream.source_down {
            return;
        }
        stream.source_down = false;
        self.counters.recoveries += 1;
        let (partition, last) = (stream.partition, stream.expected_sequence.wrapping_sub(1));
        self.listener.on_recovered(partition, 0, last as u64);
    }

    #[allow(clippy::too_many_arguments)]
    fn deliver(
        &mut self,
        slot: usize,
        buffer: &[u8],
        first_message: usize,
        first_sequence: i64,
        message_count: i64,
        from_sequence: i64,
        sending_time: u64,
    ) {
        let partition = self.streams[slot].partition;
        let mut position = first_message;
        for i in 0..message_count {
            let sequence = first_sequence.wrapping_add(i);
            let (block_length, template_id, _, version) = wire::header(buffer, position);
            if sequence >= from_sequence {
                let context =
                    MessageContext { partition, stream_sequence: sequence as u64, sending_time, template_id };
                self.counters.messages += 1;
                self.dispatch(slot, &context, buffer, position + wire::HEADER_LENGTH, block_length, version);
            }
            position += wire::HEADER_LENGTH + block_length;
        }
    }

    fn dispatch(
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
        // As Java's: the whole message (header and block) first, then its typed callback.
        listener.on_raw_message(context, &buffer[offset - wire::HEADER_LENGTH..offset + block_length]);
        match context.template_id {
            gap_notice_codec::SBE_TEMPLATE_ID => {
                let m = gap_notice_codec::GapNoticeDecoder::default().wrap(buf, offset, block, version);
                let reason = m.reason() as u8;
                listener.on_gap_notice(context, m);
                if GAP_REASON_UNRECOVERED == reason {
                    self.on_exchange_gap(slot, context.stream_sequence);
                } else if GAP_REASON_STALE == reason {
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
                if stream.exchange_gap && START_OF_MESSAGES == code {
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

    fn on_exchange_gap(&mut self, slot: usize, sequence: u64) {
        let stream = &mut self.streams[slot];
        if !stream.exchange_gap {
            stream.exchange_gap = true;
            self.counters.stale_events += 1;
            let partition = stream.partition;
            self.listener.on_stale(partition, StaleReason::ExchangeGap, sequence);
        }
    }
}

/// Check every SBE header of a whole Aeron message against the wire contract (Java's `PacketValidator`, for an
/// incremental stream).
pub fn validate(partition: u16, buffer: &[u8]) -> Result<(), MalformedReason> {
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
    let header = sbe::packet_header_codec::PacketHeaderDecoder::default().wrap(
        ReadBuf::new(buffer),
        wire::HEADER_LENGTH,
        block_length as u16,
        version,
    );
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
        let Some(schema_block_length) = wire::normalized_block_length(message_template_id) else {
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
