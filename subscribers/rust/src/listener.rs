//! The callbacks of a subscriber, as the Java SDK's `MarketDataListener`: every method has a default that does
//! nothing. A message callback gets the message's context and its decoder, wrapped on the received bytes (valid for
//! the call only).

use crate::sbe::add_order_attributed_codec::AddOrderAttributedDecoder;
use crate::sbe::add_order_codec::AddOrderDecoder;
use crate::sbe::broken_trade_codec::BrokenTradeDecoder;
use crate::sbe::cross_trade_codec::CrossTradeDecoder;
use crate::sbe::gap_notice_codec::GapNoticeDecoder;
use crate::sbe::imbalance_codec::ImbalanceDecoder;
use crate::sbe::instrument_directory_codec::InstrumentDirectoryDecoder;
use crate::sbe::mwcb_decline_level_codec::MwcbDeclineLevelDecoder;
use crate::sbe::mwcb_status_codec::MwcbStatusDecoder;
use crate::sbe::operational_halt_codec::OperationalHaltDecoder;
use crate::sbe::order_cancel_codec::OrderCancelDecoder;
use crate::sbe::order_delete_codec::OrderDeleteDecoder;
use crate::sbe::order_executed_codec::OrderExecutedDecoder;
use crate::sbe::order_executed_with_price_codec::OrderExecutedWithPriceDecoder;
use crate::sbe::order_replace_codec::OrderReplaceDecoder;
use crate::sbe::reg_sho_restriction_codec::RegShoRestrictionDecoder;
use crate::sbe::snapshot_instrument_codec::SnapshotInstrumentDecoder;
use crate::sbe::snapshot_order_codec::SnapshotOrderDecoder;
use crate::sbe::system_event_codec::SystemEventDecoder;
use crate::sbe::trade_codec::TradeDecoder;
use crate::sbe::trading_status_codec::TradingStatusDecoder;

/// Why a partition is not good (Java's `StaleReason`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StaleReason {
    /// Joined a stream already under way (its first sequence is not 1): the state before it comes from a snapshot.
    LateJoin,
    /// Messages of the stream were lost: they come from a snapshot.
    Gap,
    /// The fanout restarted (another publication): its state may differ from what was built.
    NewPublication,
    /// Nothing arrived for the silent timeout (live client).
    Silent,
    /// The publication's image went away (live client).
    LostImage,
    /// The incrementals held back while recovering did not fit the recovery buffer: buffering starts again.
    RecoveryBufferOverflow,
    /// The source (feed handler, lines) does not deliver, as the fanout's heartbeat says.
    SourceDown,
    /// Exchange messages were lost for good upstream (a GapNotice UNRECOVERED, or a snapshot whose state lacks them).
    ExchangeGap,
}

impl StaleReason {
    /// The name the Java SDK gives it.
    pub fn name(self) -> &'static str {
        match self {
            StaleReason::LateJoin => "LATE_JOIN",
            StaleReason::Gap => "GAP",
            StaleReason::NewPublication => "NEW_PUBLICATION",
            StaleReason::Silent => "SILENT",
            StaleReason::LostImage => "LOST_IMAGE",
            StaleReason::RecoveryBufferOverflow => "RECOVERY_BUFFER_OVERFLOW",
            StaleReason::SourceDown => "SOURCE_DOWN",
            StaleReason::ExchangeGap => "EXCHANGE_GAP",
        }
    }

    /// Whether the partition's books must be rebuilt from a snapshot (every reason but the source's and the exchange's).
    pub fn needs_snapshot(self) -> bool {
        !matches!(self, StaleReason::SourceDown | StaleReason::ExchangeGap)
    }
}

/// Where a delivered message came from.
#[derive(Clone, Copy, Debug, Default)]
pub struct MessageContext {
    /// The partition.
    pub partition: u16,
    /// The message's stream sequence.
    pub stream_sequence: u64,
    /// The fanout's sending time of the packet, nanoseconds since the epoch.
    pub sending_time: u64,
    /// The message's template id.
    pub template_id: u16,
    /// The message came from a snapshot (its state, an instrument or an order) rather than the incremental stream;
    /// `stream_sequence` is then the sequence its snapshot covers it through.
    pub snapshot: bool,
}


#[allow(unused_variables)]
pub trait MarketDataListener {
    /// Every delivered message, whole (its SBE header and block), before its typed callback: what a recorder keeps.
    fn on_raw_message(&mut self, context: &MessageContext, message: &[u8]) {}
    fn on_stream_joined(&mut self, partition: u16, stream_sequence: u64) {}
    fn on_new_day(&mut self, partition: u16) {}
    fn on_stream_gap(&mut self, partition: u16, first_missing: u64, last_missing: u64) {}
    fn on_heartbeat(&mut self, partition: u16, next_stream_sequence: u64, sending_time: u64) {}
    fn on_stale(&mut self, partition: u16, reason: StaleReason, stream_sequence: u64) {}
    fn on_recovered(&mut self, partition: u16, snapshot_id: u64, last_stream_sequence: u64) {}
    /// Nothing, not even a heartbeat, arrived on a joined stream for the silent timeout (the live client; a pair: from
    /// no side it may take). Reported once per silence.
    fn on_stream_silent(&mut self, partition: u16, silent_for_nanos: u64) {}
    /// Data arrived again on a stream reported silent.
    fn on_stream_active(&mut self, partition: u16) {}
    /// A replay from the archive delivered all the partition's recordings hold (replay only): `next_stream_sequence`
    /// is the sequence after the last it delivered.
    fn on_replay_end(&mut self, partition: u16, next_stream_sequence: u64) {}
    /// A usable snapshot starts: clear every book and state of the partition, the snapshot rebuilds them.
    fn on_snapshot_begin(&mut self, partition: u16, snapshot_id: u64, last_stream_sequence: u64) {}
    /// A snapshot is complete and applied: the held-back incrementals it does not cover follow, then `on_recovered`.
    fn on_snapshot_end(&mut self, partition: u16, snapshot_id: u64, covered_from_instrument_id: u64, last_stream_sequence: u64) {}
    /// One instrument of a snapshot: clear its book; its state messages and `order_count` orders follow.
    fn on_snapshot_instrument(&mut self, context: &MessageContext, message: SnapshotInstrumentDecoder<'_>) {}
    /// One resting order of the instrument named by the preceding `on_snapshot_instrument`.
    fn on_snapshot_order(&mut self, context: &MessageContext, message: SnapshotOrderDecoder<'_>) {}
    fn on_gap_notice(&mut self, context: &MessageContext, message: GapNoticeDecoder<'_>) {}
    fn on_system_event(&mut self, context: &MessageContext, message: SystemEventDecoder<'_>) {}
    fn on_instrument_directory(&mut self, context: &MessageContext, message: InstrumentDirectoryDecoder<'_>) {}
    fn on_trading_status(&mut self, context: &MessageContext, message: TradingStatusDecoder<'_>) {}
    fn on_reg_sho_restriction(&mut self, context: &MessageContext, message: RegShoRestrictionDecoder<'_>) {}
    fn on_mwcb_decline_level(&mut self, context: &MessageContext, message: MwcbDeclineLevelDecoder<'_>) {}
    fn on_mwcb_status(&mut self, context: &MessageContext, message: MwcbStatusDecoder<'_>) {}
    fn on_operational_halt(&mut self, context: &MessageContext, message: OperationalHaltDecoder<'_>) {}
    fn on_add_order(&mut self, context: &MessageContext, message: AddOrderDecoder<'_>) {}
    fn on_add_order_attributed(&mut self, context: &MessageContext, message: AddOrderAttributedDecoder<'_>) {}
    fn on_order_executed(&mut self, context: &MessageContext, message: OrderExecutedDecoder<'_>) {}
    fn on_order_executed_with_price(
        &mut self,
        context: &MessageContext,
        message: OrderExecutedWithPriceDecoder<'_>,
    ) {
    }
    fn on_order_cancel(&mut self, context: &MessageContext, message: OrderCancelDecoder<'_>) {}
    fn on_order_delete(&mut self, context: &MessageContext, message: OrderDeleteDecoder<'_>) {}
    fn on_order_replace(&mut self, context: &MessageContext, message: OrderReplaceDecoder<'_>) {}
    fn on_trade(&mut self, context: &MessageContext, message: TradeDecoder<'_>) {}
    fn on_cross_trade(&mut self, context: &MessageContext, message: CrossTradeDecoder<'_>) {}
    fn on_broken_trade(&mut self, context: &MessageContext, message: BrokenTradeDecoder<'_>) {}
    fn on_imbalance(&mut self, context: &MessageContext, message: ImbalanceDecoder<'_>) {}
}

/// Two listeners as one: every callback goes to the first, then to the second (books and an application, or a
/// recorder beside them).
#[derive(Debug, Default)]
pub struct Tee<A, B>(pub A, pub B);

impl<A: MarketDataListener, B: MarketDataListener> MarketDataListener for Tee<A, B> {
    fn on_raw_message(&mut self, context: &MessageContext, message: &[u8]) {
        self.0.on_raw_message(context, message);
        self.1.on_raw_message(context, message);
    }

    fn on_stream_joined(&mut self, partition: u16, stream_sequence: u64) {
        self.0.on_stream_joined(partition, stream_sequence);
        self.1.on_stream_joined(partition, stream_sequence);
    }

    fn on_new_day(&mut self, partition: u16) {
        self.0.on_new_day(partition);
        self.1.on_new_day(partition);
    }

    fn on_stream_gap(&mut self, partition: u16, first_missing: u64, last_missing: u64) {
        self.0.on_stream_gap(partition, first_missing, last_missing);
        self.1.on_stream_gap(partition, first_missing, last_missing);
    }

    fn on_heartbeat(&mut self, partition: u16, next_stream_sequence: u64, sending_time: u64) {
        self.0.on_heartbeat(partition, next_stream_sequence, sending_time);
        self.1.on_heartbeat(partition, next_stream_sequence, sending_time);
    }

    fn on_stale(&mut self, partition: u16, reason: StaleReason, stream_sequence: u64) {
        self.0.on_stale(partition, reason, stream_sequence);
        self.1.on_stale(partition, reason, stream_sequence);
    }

    fn on_recovered(&mut self, partition: u16, snapshot_id: u64, last_stream_sequence: u64) {
        self.0.on_recovered(partition, snapshot_id, last_stream_sequence);
        self.1.on_recovered(partition, snapshot_id, last_stream_sequence);
    }

    fn on_stream_silent(&mut self, partition: u16, silent_for_nanos: u64) {
        self.0.on_stream_silent(partition, silent_for_nanos);
        self.1.on_stream_silent(partition, silent_for_nanos);
    }

    fn on_stream_active(&mut self, partition: u16) {
        self.0.on_stream_active(partition);
        self.1.on_stream_active(partition);
    }

    fn on_replay_end(&mut self, partition: u16, next_stream_sequence: u64) {
        self.0.on_replay_end(partition, next_stream_sequence);
        self.1.on_replay_end(partition, next_stream_sequence);
    }

    fn on_snapshot_begin(&mut self, partition: u16, snapshot_id: u64, last_stream_sequence: u64) {
        self.0.on_snapshot_begin(partition, snapshot_id, last_stream_sequence);
        self.1.on_snapshot_begin(partition, snapshot_id, last_stream_sequence);
    }

    fn on_snapshot_end(&mut self, partition: u16, snapshot_id: u64, covered_from_instrument_id: u64, last_stream_sequence: u64) {
        self.0.on_snapshot_end(partition, snapshot_id, covered_from_instrument_id, last_stream_sequence);
        self.1.on_snapshot_end(partition, snapshot_id, covered_from_instrument_id, last_stream_sequence);
    }

    fn on_snapshot_instrument(&mut self, context: &MessageContext, message: SnapshotInstrumentDecoder<'_>) {
        self.0.on_snapshot_instrument(context, message);
        self.1.on_snapshot_instrument(context, message);
    }

    fn on_snapshot_order(&mut self, context: &MessageContext, message: SnapshotOrderDecoder<'_>) {
        self.0.on_snapshot_order(context, message);
        self.1.on_snapshot_order(context, message);
    }

    fn on_gap_notice(&mut self, context: &MessageContext, message: GapNoticeDecoder<'_>) {
        self.0.on_gap_notice(context, message);
        self.1.on_gap_notice(context, message);
    }

    fn on_system_event(&mut self, context: &MessageContext, message: SystemEventDecoder<'_>) {
        self.0.on_system_event(context, message);
        self.1.on_system_event(context, message);
    }

    fn on_instrument_directory(&mut self, context: &MessageContext, message: InstrumentDirectoryDecoder<'_>) {
        self.0.on_instrument_directory(context, message);
        self.1.on_instrument_directory(context, message);
    }

    fn on_trading_status(&mut self, context: &MessageContext, message: TradingStatusDecoder<'_>) {
        self.0.on_trading_status(context, message);
        self.1.on_trading_status(context, message);
    }

    fn on_reg_sho_restriction(&mut self, context: &MessageContext, message: RegShoRestrictionDecoder<'_>) {
        self.0.on_reg_sho_restriction(context, message);
        self.1.on_reg_sho_restriction(context, message);
    }

    fn on_mwcb_decline_level(&mut self, context: &MessageContext, message: MwcbDeclineLevelDecoder<'_>) {
        self.0.on_mwcb_decline_level(context, message);
        self.1.on_mwcb_decline_level(context, message);
    }

    fn on_mwcb_status(&mut self, context: &MessageContext, message: MwcbStatusDecoder<'_>) {
        self.0.on_mwcb_status(context, message);
        self.1.on_mwcb_status(context, message);
    }

    fn on_operational_halt(&mut self, context: &MessageContext, message: OperationalHaltDecoder<'_>) {
        self.0.on_operational_halt(context, message);
        self.1.on_operational_halt(context, message);
    }

    fn on_add_order(&mut self, context: &MessageContext, message: AddOrderDecoder<'_>) {
        self.0.on_add_order(context, message);
        self.1.on_add_order(context, message);
    }

    fn on_add_order_attributed(&mut self, context: &MessageContext, message: AddOrderAttributedDecoder<'_>) {
        self.0.on_add_order_attributed(context, message);
        self.1.on_add_order_attributed(context, message);
    }

    fn on_order_executed(&mut self, context: &MessageContext, message: OrderExecutedDecoder<'_>) {
        self.0.on_order_executed(context, message);
        self.1.on_order_executed(context, message);
    }

    fn on_order_executed_with_price(&mut self, context: &MessageContext, message: OrderExecutedWithPriceDecoder<'_>) {
        self.0.on_order_executed_with_price(context, message);
        self.1.on_order_executed_with_price(context, message);
    }

    fn on_order_cancel(&mut self, context: &MessageContext, message: OrderCancelDecoder<'_>) {
        self.0.on_order_cancel(context, message);
        self.1.on_order_cancel(context, message);
    }

    fn on_order_delete(&mut self, context: &MessageContext, message: OrderDeleteDecoder<'_>) {
        self.0.on_order_delete(context, message);
        self.1.on_order_delete(context, message);
    }

    fn on_order_replace(&mut self, context: &MessageContext, message: OrderReplaceDecoder<'_>) {
        self.0.on_order_replace(context, message);
        self.1.on_order_replace(context, message);
    }

    fn on_trade(&mut self, context: &MessageContext, message: TradeDecoder<'_>) {
        self.0.on_trade(context, message);
        self.1.on_trade(context, message);
    }

    fn on_cross_trade(&mut self, context: &MessageContext, message: CrossTradeDecoder<'_>) {
        self.0.on_cross_trade(context, message);
        self.1.on_cross_trade(context, message);
    }

    fn on_broken_trade(&mut self, context: &MessageContext, message: BrokenTradeDecoder<'_>) {
        self.0.on_broken_trade(context, message);
        self.1.on_broken_trade(context, message);
    }

    fn on_imbalance(&mut self, context: &MessageContext, message: ImbalanceDecoder<'_>) {
        self.0.on_imbalance(context, message);
        self.1.on_imbalance(context, message);
    }
}

/// An optional listener: none does nothing.
impl<L: MarketDataListener> MarketDataListener for Option<L> {
    fn on_raw_message(&mut self, context: &MessageContext, message: &[u8]) {
        if let Some(listener) = self {
            listener.on_raw_message(context, message);
        }
    }

    fn on_stream_joined(&mut self, partition: u16, stream_sequence: u64) {
        if let Some(listener) = self {
            listener.on_stream_joined(partition, stream_sequence);
        }
    }

    fn on_new_day(&mut self, partition: u16) {
        if let Some(listener) = self {
            listener.on_new_day(partition);
        }
    }

    fn on_stream_gap(&mut self, partition: u16, first_missing: u64, last_missing: u64) {
        if let Some(listener) = self {
            listener.on_stream_gap(partition, first_missing, last_missing);
        }
    }

    fn on_heartbeat(&mut self, partition: u16, next_stream_sequence: u64, sending_time: u64) {
        if let Some(listener) = self {
            listener.on_heartbeat(partition, next_stream_sequence, sending_time);
        }
    }

    fn on_stale(&mut self, partition: u16, reason: StaleReason, stream_sequence: u64) {
        if let Some(listener) = self {
            listener.on_stale(partition, reason, stream_sequence);
        }
    }

    fn on_recovered(&mut self, partition: u16, snapshot_id: u64, last_stream_sequence: u64) {
        if let Some(listener) = self {
            listener.on_recovered(partition, snapshot_id, last_stream_sequence);
        }
    }

    fn on_stream_silent(&mut self, partition: u16, silent_for_nanos: u64) {
        if let Some(listener) = self {
            listener.on_stream_silent(partition, silent_for_nanos);
        }
    }

    fn on_stream_active(&mut self, partition: u16) {
        if let Some(listener) = self {
            listener.on_stream_active(partition);
        }
    }

    fn on_replay_end(&mut self, partition: u16, next_stream_sequence: u64) {
        if let Some(listener) = self {
            listener.on_replay_end(partition, next_stream_sequence);
        }
    }

    fn on_snapshot_begin(&mut self, partition: u16, snapshot_id: u64, last_stream_sequence: u64) {
        if let Some(listener) = self {
            listener.on_snapshot_begin(partition, snapshot_id, last_stream_sequence);
        }
    }

    fn on_snapshot_end(&mut self, partition: u16, snapshot_id: u64, covered_from_instrument_id: u64, last_stream_sequence: u64) {
        if let Some(listener) = self {
            listener.on_snapshot_end(partition, snapshot_id, covered_from_instrument_id, last_stream_sequence);
        }
    }

    fn on_snapshot_instrument(&mut self, context: &MessageContext, message: SnapshotInstrumentDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_snapshot_instrument(context, message);
        }
    }

    fn on_snapshot_order(&mut self, context: &MessageContext, message: SnapshotOrderDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_snapshot_order(context, message);
        }
    }

    fn on_gap_notice(&mut self, context: &MessageContext, message: GapNoticeDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_gap_notice(context, message);
        }
    }

    fn on_system_event(&mut self, context: &MessageContext, message: SystemEventDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_system_event(context, message);
        }
    }

    fn on_instrument_directory(&mut self, context: &MessageContext, message: InstrumentDirectoryDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_instrument_directory(context, message);
        }
    }

    fn on_trading_status(&mut self, context: &MessageContext, message: TradingStatusDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_trading_status(context, message);
        }
    }

    fn on_reg_sho_restriction(&mut self, context: &MessageContext, message: RegShoRestrictionDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_reg_sho_restriction(context, message);
        }
    }

    fn on_mwcb_decline_level(&mut self, context: &MessageContext, message: MwcbDeclineLevelDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_mwcb_decline_level(context, message);
        }
    }

    fn on_mwcb_status(&mut self, context: &MessageContext, message: MwcbStatusDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_mwcb_status(context, message);
        }
    }

    fn on_operational_halt(&mut self, context: &MessageContext, message: OperationalHaltDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_operational_halt(context, message);
        }
    }

    fn on_add_order(&mut self, context: &MessageContext, message: AddOrderDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_add_order(context, message);
        }
    }

    fn on_add_order_attributed(&mut self, context: &MessageContext, message: AddOrderAttributedDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_add_order_attributed(context, message);
        }
    }

    fn on_order_executed(&mut self, context: &MessageContext, message: OrderExecutedDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_order_executed(context, message);
        }
    }

    fn on_order_executed_with_price(&mut self, context: &MessageContext, message: OrderExecutedWithPriceDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_order_executed_with_price(context, message);
        }
    }

    fn on_order_cancel(&mut self, context: &MessageContext, message: OrderCancelDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_order_cancel(context, message);
        }
    }

    fn on_order_delete(&mut self, context: &MessageContext, message: OrderDeleteDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_order_delete(context, message);
        }
    }

    fn on_order_replace(&mut self, context: &MessageContext, message: OrderReplaceDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_order_replace(context, message);
        }
    }

    fn on_trade(&mut self, context: &MessageContext, message: TradeDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_trade(context, message);
        }
    }

    fn on_cross_trade(&mut self, context: &MessageContext, message: CrossTradeDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_cross_trade(context, message);
        }
    }

    fn on_broken_trade(&mut self, context: &MessageContext, message: BrokenTradeDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_broken_trade(context, message);
        }
    }

    fn on_imbalance(&mut self, context: &MessageContext, message: ImbalanceDecoder<'_>) {
        if let Some(listener) = self {
            listener.on_imbalance(context, message);
        }
    }
}
