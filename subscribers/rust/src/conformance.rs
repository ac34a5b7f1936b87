//! The conformance suite (conformance/README.md): read a case file, play it through [`PacketStreamDecoder`], and
//! render what the subscriber delivered in the canonical text every SDK must produce for the same case.

use std::fmt::Write;

use crate::books::OrderBooks;
use crate::counters::MalformedReason;
use crate::counters::SubscriberCounters;
use crate::decoder::PacketStreamDecoder;
use crate::pair::PairStreamDecoder;
use crate::listener::{MarketDataListener, MessageContext, StaleReason};
use crate::sbe::*;

/// The first 8 bytes of a case file.
pub const MAGIC: &[u8; 8] = b"MDFCONF2";
/// A record of a partition's incremental stream.
pub const KIND_INCREMENTAL: u8 = 1;
/// A record of a partition's snapshot stream.
pub const KIND_SNAPSHOT: u8 = 2;
/// A record that moves the SDK's clock: its 8 bytes are the time in nanoseconds (a pair's waits are measured on it).
pub const KIND_TIME: u8 = 3;
/// The case's flag: the SDK's recovery from the snapshot streams runs.
pub const FLAG_RECOVERY: u32 = 1;
/// The case's flag: the messages come from a pair's two sides (the record's side byte), arbitrated.
pub const FLAG_PAIR: u32 = 2;
const FILE_HEADER_LENGTH: usize = 20;

/// What a case file says of itself and holds.
#[derive(Clone, Debug)]
pub struct Case {
    pub partitions: u16,
    pub flags: u32,
    /// The recovery buffer's capacity, 0 when recovery is off.
    pub recovery_buffer_bytes: u32,
    /// A pair's arbitration wait, 0 for one fanout.
    pub arbitration_wait_ns: u64,
    pub records: Vec<Record>,
}

impl Case {
    pub fn recovery(&self) -> bool {
        0 != self.flags & FLAG_RECOVERY
    }

    pub fn pair(&self) -> bool {
        0 != self.flags & FLAG_PAIR
    }
}

/// One record of a case: a whole Aeron message as it was received.
#[derive(Clone, Debug)]
pub struct Record {
    pub kind: u8,
    /// A pair's side (0: A, 1: B); 0 for one fanout.
    pub side: u8,
    pub partition: u16,
    pub session_id: i32,
    pub bytes: Vec<u8>,
}

/// A case file: its header and records, in the order received.
pub fn read_case(file: &[u8]) -> Result<Case, String> {
    if file.len() < FILE_HEADER_LENGTH || &file[..8] != MAGIC {
        return Err("not a conformance case (no MDFCONF2 magic)".into());
    }
    let u32_at = |at: usize| u32::from_le_bytes(file[at..at + 4].try_into().unwrap());
    let (partitions, flags, recovery_buffer_bytes) = (u32_at(8), u32_at(12), u32_at(16));
    if 0 == partitions || partitions > u16::MAX as u32 + 1 {
        return Err(format!("a case of {partitions} partitions"));
    }
    if 0 != flags & !(FLAG_RECOVERY | FLAG_PAIR) || (FLAG_RECOVERY | FLAG_PAIR) == flags {
        return Err(format!("a case's flags {flags:#x}: recovery (1) or a pair (2), not both, nothing else"));
    }
    if (0 != flags & FLAG_RECOVERY) != (0 != recovery_buffer_bytes) {
        return Err(format!("a case's recovery flag and its recovery buffer ({recovery_buffer_bytes} bytes) disagree"));
    }
    let mut at = FILE_HEADER_LENGTH;
    let mut arbitration_wait_ns = 0;
    if 0 != flags & FLAG_PAIR {
        if file.len() < at + 8 {
            return Err("a pair case without its arbitration wait".into());
        }
        arbitration_wait_ns = u64::from_le_bytes(file[at..at + 8].try_into().unwrap());
        at += 8;
    }
    let mut records = Vec::new();
    while at < file.len() {
        if at + 12 > file.len() {
            return Err(format!("record header truncated at byte {at}"));
        }
        let (kind, side) = (file[at], file[at + 1]);
        if !(KIND_INCREMENTAL..=KIND_TIME).contains(&kind) {
            return Err(format!("record kind {kind} at byte {at} is not one of the suite's"));
        }
        if side > 1 {
            return Err(format!("record side {side} at byte {at}: 0 (A) or 1 (B)"));
        }
        let partition = u16::from_le_bytes([file[at + 2], file[at + 3]]);
        let session_id = i32::from_le_bytes(file[at + 4..at + 8].try_into().unwrap());
        let length = u32::from_le_bytes(file[at + 8..at + 12].try_into().unwrap()) as usize;
        at += 12;
        if at + length > file.len() {
            return Err(format!("record of {length} bytes truncated at byte {at}"));
        }
        if KIND_TIME == kind && 8 != length {
            return Err(format!("a time record of {length} bytes at byte {at}: 8"));
        }
        records.push(Record { kind, side, partition, session_id, bytes: file[at..at + length].to_vec() });
        at += length;
    }
    Ok(Case { partitions: partitions as u16, flags, recovery_buffer_bytes, arbitration_wait_ns, records })
}

/// Play a case through the SDK; the canonical output.
pub fn run(file: &[u8]) -> Result<String, String> {
    let case = read_case(file)?;
    let slots: Vec<u16> = (0..case.partitions).collect();
    let check = |record: &Record| -> Result<usize, String> {
        let slot = record.partition as usize;
        if slot >= slots.len() {
            return Err(format!("a record of partition {} in a case of {} partitions", record.partition, slots.len()));
        }
        Ok(slot)
    };
    if case.pair() {
        let wait = i64::try_from(case.arbitration_wait_ns).map_err(|_| "an arbitration wait beyond 2^63 ns")?;
        let mut decoder = PairStreamDecoder::new(&slots, wait, CanonicalListener::default());
        // The side reports are counted (the SIDES line): refusals, and readmissions.
        let reports = std::rc::Rc::new(std::cell::RefCell::new([[0u64; 2]; 2]));
        let counted = reports.clone();
        decoder.set_error_handler(move |report| counted.borrow_mut()[report.side][!report.refused as usize] += 1);
        decoder.do_work(0, i64::MAX);
        for record in &case.records {
            let slot = check(record)?;
            match record.kind {
                KIND_TIME => {
                    let now = i64::from_le_bytes(record.bytes[..8].try_into().unwrap());
                    decoder.do_work(now, i64::MAX);
                }
                KIND_INCREMENTAL => decoder.on_message(slot, record.side as usize, &record.bytes),
                _ => return Err("a snapshot-stream record in a pair case (a pair's cases run without recovery)".into()),
            }
        }
        let counters = decoder.counters().clone();
        let reports = *reports.borrow();
        return Ok(finish(decoder.listener(), &counters, &case, reports));
    }
    let listener = CanonicalListener::default();
    let mut decoder = if case.recovery() {
        PacketStreamDecoder::with_recovery(&slots, case.recovery_buffer_bytes as usize, listener)
    } else {
        PacketStreamDecoder::new(&slots, listener)
    };
    for record in &case.records {
        let slot = check(record)?;
        match record.kind {
            KIND_SNAPSHOT => decoder.on_snapshot_message(slot, record.session_id, &record.bytes),
            KIND_INCREMENTAL => decoder.on_message(slot, record.session_id, &record.bytes),
            _ => return Err("a time record in a case of one fanout (only a pair's waits run on time)".into()),
        }
    }
    let counters = decoder.counters().clone();
    Ok(finish(decoder.listener(), &counters, &case, [[0; 2]; 2]))
}

/// The end of a case: the counters every SDK keeps alike, each malformed reason seen, the recovery's or the sides'
/// counters when the case has them, then the books' canonical dump.
/// `reports`: per side, a pair's refusals and readmissions reported.
fn finish(listener: &mut CanonicalListener, counters: &SubscriberCounters, case: &Case, reports: [[u64; 2]; 2]) -> String {
    let out = &mut listener.out;
    let _ = writeln!(
        out,
        "COUNTERS packets={} messages={} heartbeats={} gaps={} missing={} duplicatePackets={} duplicateMessages={} \
         malformed={} oldSession={}",
        counters.packets,
        counters.messages,
        counters.heartbeats,
        counters.gaps,
        counters.missing_messages,
        counters.duplicate_packets,
        counters.duplicate_messages,
        counters.malformed,
        counters.old_session_packets
    );
    for reason in MalformedReason::ALL {
        let count = counters.malformed(reason);
        if 0 != count {
            let _ = writeln!(out, "MALFORMED {}={count}", reason.name());
        }
    }
    if case.recovery() {
        let _ = writeln!(
            out,
            "RECOVERY stale={} recovered={} snapshotPackets={} applied={} ignored={} snapshotGaps={} \
             malformedSnapshots={} abandoned={} filtered={} overflows={}",
            counters.stale_events,
            counters.recoveries,
            counters.snapshot_packets,
            counters.snapshots_applied,
            counters.snapshots_ignored,
            counters.snapshot_gaps,
            counters.malformed_snapshot_packets,
            counters.recovery_attempts_abandoned,
            counters.filtered_messages,
            counters.recovery_buffer_overflows
        );
    }
    if case.pair() {
        let _ = write!(out, "SIDES");
        for (i, (name, side)) in ["a", "b"].iter().zip(counters.sides.iter()).enumerate() {
            let _ = write!(
                out,
                " {name}.messages={} {name}.duplicates={} {name}.refused={} {name}.mismatches={} {name}.refusals={} \
                 {name}.readmissions={}",
                side.messages, side.duplicates, side.refused, side.mismatches, reports[i][0], reports[i][1]
            );
        }
        out.push('\n');
    }
    out.push_str("BOOKS\n");
    listener.books.dump(out);
    std::mem::take(out)
}

/// The canonical rendering: a line per callback with every field, each message also applied to the books.
#[derive(Debug, Default)]
pub struct CanonicalListener {
    pub out: String,
    pub books: OrderBooks,
}

impl CanonicalListener {
    fn common(&mut self, c: &MessageContext, name: &str, xs: u64, ts: u64, inst: u32) -> &mut String {
        let _ = write!(
            self.out,
            "{name} p={} ss={} sent={} xs={xs} ts={ts} inst={inst}",
            c.partition, c.stream_sequence, c.sending_time
        );
        &mut self.out
    }
}

/// The end of a message's line: ` snapshot=1` when it came from a snapshot.
fn end_line(out: &mut String, c: &MessageContext) {
    out.push_str(if c.snapshot { " snapshot=1\n" } else { "\n" });
}

/// A fixed-length character field, quoted, every byte outside printable ASCII (and `"` and `\`) as `\xNN`.
fn ascii(out: &mut String, label: &str, bytes: &[u8]) {
    out.push_str(label);
    out.push('"');
    for &b in bytes {
        if !(0x20..=0x7e).contains(&b) || b == b'"' || b == b'\\' {
            let _ = write!(out, "\\x{b:02x}");
        } else {
            out.push(b as char);
        }
    }
    out.push('"');
}

impl MarketDataListener for CanonicalListener {
    fn on_stream_joined(&mut self, partition: u16, stream_sequence: u64) {
        let _ = writeln!(self.out, "JOINED p={partition} seq={stream_sequence}");
    }

    fn on_new_day(&mut self, partition: u16) {
        let _ = writeln!(self.out, "NEW_DAY p={partition}");
        self.books.on_new_day(partition);
    }

    fn on_stream_gap(&mut self, partition: u16, first_missing: u64, last_missing: u64) {
        let _ = writeln!(self.out, "GAP p={partition} first={first_missing} last={last_missing}");
    }

    fn on_heartbeat(&mut self, partition: u16, next_stream_sequence: u64, sending_time: u64) {
        // Signed, as Java prints its long (a pair's partition not joined yet says -1).
        let next = next_stream_sequence as i64;
        let _ = writeln!(self.out, "HEARTBEAT p={partition} next={next} sent={sending_time}");
    }

    fn on_stale(&mut self, partition: u16, reason: StaleReason, stream_sequence: u64) {
        let _ = writeln!(self.out, "STALE p={partition} reason={} seq={stream_sequence}", reason.name());
    }

    fn on_recovered(&mut self, partition: u16, snapshot_id: u64, last_stream_sequence: u64) {
        let _ = writeln!(self.out, "RECOVERED p={partition} snapshot={snapshot_id} last={last_stream_sequence}");
    }

    // A live client's alone (no case has a clock): the Python SDK's events.
    fn on_stream_silent(&mut self, partition: u16, silent_for_nanos: u64) {
        let _ = writeln!(self.out, "SILENT p={partition} ns={silent_for_nanos}");
    }

    fn on_stream_active(&mut self, partition: u16) {
        let _ = writeln!(self.out, "ACTIVE p={partition}");
    }

    fn on_snapshot_begin(&mut self, partition: u16, snapshot_id: u64, last_stream_sequence: u64) {
        let _ = writeln!(self.out, "SNAPSHOT_BEGIN p={partition} id={snapshot_id} last={last_stream_sequence}");
        self.books.clear_partition(partition);
    }

    fn on_snapshot_end(&mut self, partition: u16, snapshot_id: u64, covered_from: u64, last_stream_sequence: u64) {
        let _ = writeln!(
            self.out,
            "SNAPSHOT_END p={partition} id={snapshot_id} coveredFrom={covered_from} last={last_stream_sequence}"
        );
    }

    fn on_snapshot_instrument(&mut self, c: &MessageContext, m: snapshot_instrument_codec::SnapshotInstrumentDecoder<'_>) {
        let inst = m.instrument_id();
        let out = self.common(c, "SnapshotInstrument", m.exchange_sequence(), m.exchange_timestamp(), inst);
        let _ = write!(
            out,
            " snapshotId={} lastStreamSequence={} coveredFromInstrumentId={} orderCount={}",
            m.snapshot_id(),
            m.last_stream_sequence(),
            m.covered_from_instrument_id(),
            m.order_count()
        );
        end_line(out, c);
        self.books.clear_instrument(c.partition, inst);
    }

    fn on_snapshot_order(&mut self, c: &MessageContext, m: snapshot_order_codec::SnapshotOrderDecoder<'_>) {
        let (xs, ts, inst, order_id, shares, side, attribution) = (
            m.exchange_sequence(),
            m.exchange_timestamp(),
            m.instrument_id(),
            m.order_id(),
            m.shares(),
            m.side() as u8,
            m.attribution(),
        );
        let price = m.price_decoder().mantissa();
        let out = self.common(c, "SnapshotOrder", xs, ts, inst);
        let _ = write!(out, " orderId={order_id} price={price} shares={shares} side={side}");
        ascii(out, " attribution=", &attribution);
        end_line(out, c);
        self.books.add_order(c.partition, inst, order_id, side, price, shares as u64);
    }

    fn on_gap_notice(&mut self, c: &MessageContext, m: gap_notice_codec::GapNoticeDecoder<'_>) {
        let out = self.common(c, "GapNotice", m.exchange_sequence(), m.exchange_timestamp(), m.instrument_id());
        let _ = write!(out, " lastMissingSequence={} reason={}", m.last_missing_sequence(), m.reason() as u8);
        end_line(out, c);
    }

    fn on_system_event(&mut self, c: &MessageContext, m: system_event_codec::SystemEventDecoder<'_>) {
        let out = self.common(c, "SystemEvent", m.exchange_sequence(), m.exchange_timestamp(), m.instrument_id());
        let _ = write!(out, " eventCode={}", m.event_code() as u8);
        end_line(out, c);
    }

    fn on_instrument_directory(
        &mut self,
        c: &MessageContext,
        m: instrument_directory_codec::InstrumentDirectoryDecoder<'_>,
    ) {
        let out =
            self.common(c, "InstrumentDirectory", m.exchange_sequence(), m.exchange_timestamp(), m.instrument_id());
        ascii(out, " symbol=", &m.symbol());
        let _ = write!(
            out,
            " roundLotSize={} etpLeverageFactor={} marketCategory={} financialStatusIndicator={} roundLotsOnly={} \
             issueClassification={}",
            m.round_lot_size(),
            m.etp_leverage_factor(),
            m.market_category(),
            m.financial_status_indicator(),
            m.round_lots_only(),
            m.issue_classification()
        );
        ascii(out, " issueSubType=", &m.issue_sub_type());
        let _ = write!(
            out,
            " authenticity={} shortSaleThresholdIndicator={} ipoFlag={} luldReferencePriceTier={} etpFlag={} \
             inverseIndicator={}",
            m.authenticity(),
            m.short_sale_threshold_indicator(),
            m.ipo_flag(),
            m.luld_reference_price_tier(),
            m.etp_flag(),
            m.inverse_indicator()
        );
        end_line(out, c);
    }

    fn on_trading_status(&mut self, c: &MessageContext, m: trading_status_codec::TradingStatusDecoder<'_>) {
        let out = self.common(c, "TradingStatus", m.exchange_sequence(), m.exchange_timestamp(), m.instrument_id());
        let _ = write!(out, " tradingState={}", m.trading_state() as u8);
        ascii(out, " reason=", &m.reason());
        end_line(out, c);
    }

    fn on_reg_sho_restriction(
        &mut self,
        c: &MessageContext,
        m: reg_sho_restriction_codec::RegShoRestrictionDecoder<'_>,
    ) {
        let out = self.common(c, "RegShoRestriction", m.exchange_sequence(), m.exchange_timestamp(), m.instrument_id());
        let _ = write!(out, " regShoAction={}", m.reg_sho_action());
        end_line(out, c);
    }

    fn on_mwcb_decline_level(
        &mut self,
        c: &MessageContext,
        m: mwcb_decline_level_codec::MwcbDeclineLevelDecoder<'_>,
    ) {
        let (xs, ts, inst) = (m.exchange_sequence(), m.exchange_timestamp(), m.instrument_id());
        let mut l1 = m.level_1_decoder();
        let level1 = l1.mantissa();
        let m = l1.parent().unwrap();
        let mut l2 = m.level_2_decoder();
        let level2 = l2.mantissa();
        let m = l2.parent().unwrap();
        let l3 = m.level_3_decoder();
        let level3 = l3.mantissa();
        let out = self.common(c, "MwcbDeclineLevel", xs, ts, inst);
        let _ = write!(out, " level1={level1} level2={level2} level3={level3}");
        end_line(out, c);
    }

    fn on_mwcb_status(&mut self, c: &MessageContext, m: mwcb_status_codec::MwcbStatusDecoder<'_>) {
        let out = self.common(c, "MwcbStatus", m.exchange_sequence(), m.exchange_timestamp(), m.instrument_id());
        let _ = write!(out, " breachedLevel={}", m.breached_level());
        end_line(out, c);
    }

    fn on_operational_halt(
        &mut self,
        c: &MessageContext,
        m: operational_halt_codec::OperationalHaltDecoder<'_>,
    ) {
        let out = self.common(c, "OperationalHalt", m.exchange_sequence(), m.exchange_timestamp(), m.instrument_id());
        let _ = write!(out, " marketCode={} haltAction={}", m.market_code(), m.halt_action());
        end_line(out, c);
    }

    fn on_add_order(&mut self, c: &MessageContext, m: add_order_codec::AddOrderDecoder<'_>) {
        let (xs, ts, inst, order_id, shares, side) =
            (m.exchange_sequence(), m.exchange_timestamp(), m.instrument_id(), m.order_id(), m.shares(), m.side() as u8);
        let price = m.price_decoder().mantissa();
        let out = self.common(c, "AddOrder", xs, ts, inst);
        let _ = write!(out, " orderId={order_id} price={price} shares={shares} side={side}");
        end_line(out, c);
        self.books.add_order(c.partition, inst, order_id, side, price, shares as u64);
    }

    fn on_add_order_attributed(
        &mut self,
        c: &MessageContext,
        m: add_order_attributed_codec::AddOrderAttributedDecoder<'_>,
    ) {
        let (xs, ts, inst, order_id, shares, side, attribution) = (
            m.exchange_sequence(),
            m.exchange_timestamp(),
            m.instrument_id(),
            m.order_id(),
            m.shares(),
            m.side() as u8,
            m.attribution(),
        );
        let price = m.price_decoder().mantissa();
        let out = self.common(c, "AddOrderAttributed", xs, ts, inst);
        let _ = write!(out, " orderId={order_id} price={price} shares={shares} side={side}");
        ascii(out, " attribution=", &attribution);
        end_line(out, c);
        self.books.add_order(c.partition, inst, order_id, side, price, shares as u64);
    }

    fn on_order_executed(&mut self, c: &MessageContext, m: order_executed_codec::OrderExecutedDecoder<'_>) {
        let out = self.common(c, "OrderExecuted", m.exchange_sequence(), m.exchange_timestamp(), m.instrument_id());
        let _ = write!(
            out,
            " orderId={} matchNumber={} executedShares={}",
            m.order_id(),
            m.match_number(),
            m.executed_shares()
        );
        end_line(out, c);
        self.books.reduce_order(m.order_id(), m.executed_shares() as u64);
    }

    fn on_order_executed_with_price(
        &mut self,
        c: &MessageContext,
        m: order_executed_with_price_codec::OrderExecutedWithPriceDecoder<'_>,
    ) {
        let (xs, ts, inst, order_id, match_number, shares, printable) = (
            m.exchange_sequence(),
            m.exchange_timestamp(),
            m.instrument_id(),
            m.order_id(),
            m.match_number(),
            m.executed_shares(),
            m.printable(),
        );
        let price = m.execution_price_decoder().mantissa();
        let out = self.common(c, "OrderExecutedWithPrice", xs, ts, inst);
        let _ = write!(
            out,
            " orderId={order_id} matchNumber={match_number} executionPrice={price} executedShares={shares} \
             printable={printable}"
        );
        end_line(out, c);
        self.books.reduce_order(order_id, shares as u64);
    }

    fn on_order_cancel(&mut self, c: &MessageContext, m: order_cancel_codec::OrderCancelDecoder<'_>) {
        let out = self.common(c, "OrderCancel", m.exchange_sequence(), m.exchange_timestamp(), m.instrument_id());
        let _ = write!(out, " orderId={} cancelledShares={}", m.order_id(), m.cancelled_shares());
        end_line(out, c);
        self.books.reduce_order(m.order_id(), m.cancelled_shares() as u64);
    }

    fn on_order_delete(&mut self, c: &MessageContext, m: order_delete_codec::OrderDeleteDecoder<'_>) {
        let out = self.common(c, "OrderDelete", m.exchange_sequence(), m.exchange_timestamp(), m.instrument_id());
        let _ = write!(out, " orderId={}", m.order_id());
        end_line(out, c);
        self.books.reduce_order(m.order_id(), u64::MAX);
    }

    fn on_order_replace(&mut self, c: &MessageContext, m: order_replace_codec::OrderReplaceDecoder<'_>) {
        let (xs, ts, inst, original, new_id, shares) = (
            m.exchange_sequence(),
            m.exchange_timestamp(),
            m.instrument_id(),
            m.original_order_id(),
            m.new_order_id(),
            m.shares(),
        );
        let price = m.price_decoder().mantissa();
        let out = self.common(c, "OrderReplace", xs, ts, inst);
        let _ = write!(out, " originalOrderId={original} newOrderId={new_id} price={price} shares={shares}");
        end_line(out, c);
        self.books.replace_order(original, new_id, price, shares as u64);
    }

    fn on_trade(&mut self, c: &MessageContext, m: trade_codec::TradeDecoder<'_>) {
        let (xs, ts, inst, order_id, match_number, shares, side) = (
            m.exchange_sequence(),
            m.exchange_timestamp(),
            m.instrument_id(),
            m.order_id(),
            m.match_number(),
            m.shares(),
            m.side() as u8,
        );
        let price = m.price_decoder().mantissa();
        let out = self.common(c, "Trade", xs, ts, inst);
        let _ =
            write!(out, " orderId={order_id} matchNumber={match_number} price={price} shares={shares} side={side}");
        end_line(out, c);
    }

    fn on_cross_trade(&mut self, c: &MessageContext, m: cross_trade_codec::CrossTradeDecoder<'_>) {
        let (xs, ts, inst, shares, match_number, cross_type) = (
            m.exchange_sequence(),
            m.exchange_timestamp(),
            m.instrument_id(),
            m.shares(),
            m.match_number(),
            m.cross_type(),
        );
        let price = m.cross_price_decoder().mantissa();
        let out = self.common(c, "CrossTrade", xs, ts, inst);
        let _ = write!(
            out,
            " shares={shares} matchNumber={match_number} crossPrice={price} crossType={cross_type}"
        );
        end_line(out, c);
    }

    fn on_broken_trade(&mut self, c: &MessageContext, m: broken_trade_codec::BrokenTradeDecoder<'_>) {
        let out = self.common(c, "BrokenTrade", m.exchange_sequence(), m.exchange_timestamp(), m.instrument_id());
        let _ = write!(out, " matchNumber={}", m.match_number());
        end_line(out, c);
    }

    fn on_imbalance(&mut self, c: &MessageContext, m: imbalance_codec::ImbalanceDecoder<'_>) {
        let (xs, ts, inst, paired, imbalance, direction, cross_type, variation) = (
            m.exchange_sequence(),
            m.exchange_timestamp(),
            m.instrument_id(),
            m.paired_shares(),
            m.imbalance_shares(),
            m.imbalance_direction(),
            m.cross_type(),
            m.price_variation_indicator(),
        );
        let mut far = m.far_price_decoder();
        let far_price = far.mantissa();
        let m = far.parent().unwrap();
        let mut near = m.near_price_decoder();
        let near_price = near.mantissa();
        let m = near.parent().unwrap();
        let reference = m.current_reference_price_decoder().mantissa();
        let out = self.common(c, "Imbalance", xs, ts, inst);
        let _ = write!(
            out,
            " pairedShares={paired} imbalanceShares={imbalance} farPrice={far_price} nearPrice={near_price} \
             currentReferencePrice={reference} imbalanceDirection={direction} crossType={cross_type} \
             priceVariationIndicator={variation}"
        );
        end_line(out, c);
    }
}
