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
use crate::sbe::system_event_codec::SystemEventDecoder;
use crate::sbe::trade_codec::TradeDecoder;
use crate::sbe::trading_status_codec::TradingStatusDecoder;

/// Why a partition is not good (Java's `StaleReason`; the ones a subscriber without recovery can report).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StaleReason {
    /// The source (feed handler, lines) does not deliver, as the fanout's heartbeat says.
    SourceDown,
    /// Exchange messages were lost for good upstream (a GapNotice UNRECOVERED).
    ExchangeGap,
}

impl StaleReason {
    /// The name the Java SDK gives it.
    pub fn name(self) -> &'static str {
        match self {
            StaleReason::SourceDown => "SOURCE_DOWN",
            StaleReason::ExchangeGap => "EXCHANGE_GAP",
        }
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
}


#[allow(unused_variables)]
pub trait MarketDataListener {
    fn on_stream_joined(&mut self, partition: u16, stream_sequence: u64) {}
    fn on_new_day(&mut self, partition: u16) {}
    fn on_stream_gap(&mut self, partition: u16, first_missing: u64, last_missing: u64) {}
    fn on_heartbeat(&mut self, partition: u16, next_stream_sequence: u64, sending_time: u64) {}
    fn on_stale(&mut self, partition: u16, reason: StaleReason, stream_sequence: u64) {}
    fn on_recovered(&mut self, partition: u16, snapshot_id: u64, last_stream_sequence: u64) {}
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
