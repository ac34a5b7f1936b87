//! Price-level order books built from the order messages, as the Java SDK's `OrderBooks`, with the same canonical
//! dump: instruments ascending, only those with a resting order; `I <instrumentId>`, then bids best first
//! `B <price> <shares> <orders>`, then asks best first `S <price> <shares> <orders>`.

use rustc_hash::FxHashMap;
use std::fmt::Write;

use crate::listener::{MarketDataListener, MessageContext};
use crate::sbe::add_order_attributed_codec::AddOrderAttributedDecoder;
use crate::sbe::add_order_codec::AddOrderDecoder;
use crate::sbe::order_cancel_codec::OrderCancelDecoder;
use crate::sbe::order_delete_codec::OrderDeleteDecoder;
use crate::sbe::order_executed_codec::OrderExecutedDecoder;
use crate::sbe::order_executed_with_price_codec::OrderExecutedWithPriceDecoder;
use crate::sbe::order_replace_codec::OrderReplaceDecoder;
use crate::sbe::snapshot_instrument_codec::SnapshotInstrumentDecoder;
use crate::sbe::snapshot_order_codec::SnapshotOrderDecoder;

const BUY: u8 = b'B';
const SELL: u8 = b'S';
/// Price levels a side holds before its storage grows.
pub const DEFAULT_LEVELS_PER_SIDE: usize = 64;
/// Orders the books hold before their index grows.
pub const DEFAULT_ORDERS: usize = 1 << 16;

#[derive(Clone, Copy, Debug)]
struct Order {
    instrument_id: u32,
    is_bid: bool,
    price: i64,
    remaining: u64,
}

/// One side's price levels, sorted by key with the best at the end (activity clusters at the top of the book, so an
/// insert or a removal there moves few levels): a bid's key is its price, an ask's its negated price, so that one
/// binary search serves both, as the Java SDK's `PriceLevels`. Grows only when full.
#[derive(Debug)]
struct PriceLevels {
    bid: bool,
    levels: Vec<(i64, u64, u32)>,
}

impl PriceLevels {
    fn new(bid: bool, capacity: usize) -> Self {
        Self { bid, levels: Vec::with_capacity(capacity) }
    }

    fn key(&self, price: i64) -> i64 {
        if self.bid {
            price
        } else {
            -price
        }
    }

    fn add(&mut self, price: i64, shares: u64) {
        let key = self.key(price);
        match self.levels.binary_search_by_key(&key, |l| l.0) {
            Ok(i) => {
                self.levels[i].1 += shares;
                self.levels[i].2 += 1;
            }
            Err(i) => self.levels.insert(i, (key, shares, 1)),
        }
    }

    fn reduce(&mut self, price: i64, shares: u64, leaves: bool) {
        let key = self.key(price);
        if let Ok(i) = self.levels.binary_search_by_key(&key, |l| l.0) {
            let level = &mut self.levels[i];
            level.1 -= shares.min(level.1);
            if leaves {
                level.2 -= 1;
            }
            if 0 == level.2 {
                self.levels.remove(i);
            }
        }
    }

    /// Best first: (price, shares, orders).
    fn best_first(&self) -> impl Iterator<Item = (i64, u64, u32)> + '_ {
        self.levels.iter().rev().map(move |&(key, shares, orders)| (if self.bid { key } else { -key }, shares, orders))
    }
}

#[derive(Debug)]
struct Book {
    partition: u16,
    bids: PriceLevels,
    asks: PriceLevels,
}

impl Book {
    fn new(partition: u16, levels: usize) -> Self {
        Self { partition, bids: PriceLevels::new(true, levels), asks: PriceLevels::new(false, levels) }
    }

    fn is_empty(&self) -> bool {
        self.bids.levels.is_empty() && self.asks.levels.is_empty()
    }

    fn side(&mut self, is_bid: bool) -> &mut PriceLevels {
        if is_bid {
            &mut self.bids
        } else {
            &mut self.asks
        }
    }
}

/// What the books did with the order messages they were given.
#[derive(Clone, Debug, Default)]
pub struct BookCounters {
    pub applied: u64,
    pub unknown_order_references: u64,
    pub duplicate_order_ids: u64,
    pub invalid_orders: u64,
}

/// Every instrument's book. Once an instrument's book exists and the orders fit the capacity, applying a message
/// allocates nothing (a new instrument, or more levels or orders than ever before, grows the storage).
#[derive(Debug)]
pub struct OrderBooks {
    books: FxHashMap<u32, Book>,
    orders: FxHashMap<u64, Order>,
    levels_per_side: usize,
    pub counters: BookCounters,
}

impl Default for OrderBooks {
    fn default() -> Self {
        Self::with_capacity(DEFAULT_ORDERS, DEFAULT_LEVELS_PER_SIDE)
    }
}

impl OrderBooks {
    pub fn new() -> Self {
        Self::default()
    }

    /// Books that hold `orders` resting orders, and `levels_per_side` price levels on each side of a book, before
    /// their storage grows.
    pub fn with_capacity(orders: usize, levels_per_side: usize) -> Self {
        Self {
            books: FxHashMap::default(),
            orders: FxHashMap::with_capacity_and_hasher(orders, Default::default()),
            levels_per_side,
            counters: BookCounters::default(),
        }
    }

    /// An AddOrder (attributed or not): side is the wire's side byte (`B` or `S`).
    pub fn add_order(&mut self, partition: u16, instrument_id: u32, order_id: u64, side: u8, price: i64, shares: u64) {
        let is_bid = match side {
            BUY => true,
            SELL => false,
            _ => {
                self.counters.invalid_orders += 1;
                return;
            }
        };
        if self.orders.contains_key(&order_id) {
            self.counters.duplicate_order_ids += 1;
            return;
        }
        let levels = self.levels_per_side;
        let book = self.books.entry(instrument_id).or_insert_with(|| Book::new(partition, levels));
        book.side(is_bid).add(price, shares);
        self.orders.insert(order_id, Order { instrument_id, is_bid, price, remaining: shares });
        self.counters.applied += 1;
    }

    /// An execution or cancel of `shares` of the order; `u64::MAX` for a delete.
    pub fn reduce_order(&mut self, order_id: u64, shares: u64) {
        if !self.orders.contains_key(&order_id) {
            self.counters.unknown_order_references += 1;
            return;
        }
        self.remove(order_id, shares);
        self.counters.applied += 1;
    }

    /// An OrderReplace: the original order leaves, the new one rests on its side and book at the new price and size.
    pub fn replace_order(&mut self, original_order_id: u64, new_order_id: u64, price: i64, shares: u64) {
        let Some(original) = self.orders.get(&original_order_id).copied() else {
            self.counters.unknown_order_references += 1;
            return;
        };
        if new_order_id != original_order_id && self.orders.contains_key(&new_order_id) {
            self.counters.duplicate_order_ids += 1;
            return;
        }
        self.remove(original_order_id, original.remaining);
        if let Some(book) = self.books.get_mut(&original.instrument_id) {
            book.side(original.is_bid).add(price, shares);
        }
        self.orders.insert(
            new_order_id,
            Order { instrument_id: original.instrument_id, is_bid: original.is_bid, price, remaining: shares },
        );
        self.counters.applied += 1;
    }

    /// A new trading day on the partition: its books start empty.
    pub fn on_new_day(&mut self, partition: u16) {
        self.clear_partition(partition);
    }

    /// Empty every book of the partition (a new day, or a snapshot that rebuilds them).
    pub fn clear_partition(&mut self, partition: u16) {
        let books = &self.books;
        self.orders.retain(|_, o| books.get(&o.instrument_id).is_none_or(|b| b.partition != partition));
        for book in self.books.values_mut().filter(|b| b.partition == partition) {
            book.bids.levels.clear();
            book.asks.levels.clear();
        }
    }

    /// A snapshot restores the instrument on the partition: its book empties (the snapshot's orders follow) and is
    /// the partition's from now on. After the snapshot's begin emptied the partition only a book that still holds
    /// orders (it was another partition's) costs a pass over the orders.
    pub fn clear_instrument(&mut self, partition: u16, instrument_id: u32) {
        let Some(book) = self.books.get_mut(&instrument_id) else {
            return;
        };
        book.partition = partition;
        if !book.is_empty() {
            book.bids.levels.clear();
            book.asks.levels.clear();
            self.orders.retain(|_, o| o.instrument_id != instrument_id);
        }
    }

    /// Orders resting in all books.
    pub fn order_count(&self) -> usize {
        self.orders.len()
    }

    /// The canonical dump (see the module's documentation).
    pub fn dump(&self, out: &mut String) {
        let mut instruments: Vec<&u32> = self.books.keys().collect();
        instruments.sort_unstable();
        for instrument_id in instruments {
            let book = &self.books[instrument_id];
            if book.is_empty() {
                continue;
            }
            let _ = writeln!(out, "I {instrument_id}");
            for (price, shares, orders) in book.bids.best_first() {
                let _ = writeln!(out, "B {price} {shares} {orders}");
            }
            for (price, shares, orders) in book.asks.best_first() {
                let _ = writeln!(out, "S {price} {shares} {orders}");
            }
        }
    }

    fn remove(&mut self, order_id: u64, shares: u64) {
        let order = self.orders.get_mut(&order_id).expect("checked by the caller");
        let removed = shares.min(order.remaining);
        let leaves = removed == order.remaining;
        order.remaining -= removed;
        let (instrument_id, is_bid, price) = (order.instrument_id, order.is_bid, order.price);
        if leaves {
            self.orders.remove(&order_id);
        }
        if let Some(book) = self.books.get_mut(&instrument_id) {
            book.side(is_bid).reduce(price, removed, leaves);
        }
    }
}

/// The books as a listener of their own: each order message applied, each new day's partition emptied, a snapshot's
/// begin empties the partition, its instruments and orders rebuild it.
impl MarketDataListener for OrderBooks {
    fn on_new_day(&mut self, partition: u16) {
        OrderBooks::on_new_day(self, partition);
    }

    fn on_snapshot_begin(&mut self, partition: u16, _snapshot_id: u64, _last_stream_sequence: u64) {
        self.clear_partition(partition);
    }

    fn on_snapshot_instrument(&mut self, context: &MessageContext, m: SnapshotInstrumentDecoder<'_>) {
        self.clear_instrument(context.partition, m.instrument_id());
    }

    fn on_snapshot_order(&mut self, context: &MessageContext, m: SnapshotOrderDecoder<'_>) {
        let (instrument_id, order_id, side, shares) = (m.instrument_id(), m.order_id(), m.side() as u8, m.shares());
        let price = m.price_decoder().mantissa();
        self.add_order(context.partition, instrument_id, order_id, side, price, shares as u64);
    }

    fn on_add_order(&mut self, context: &MessageContext, m: AddOrderDecoder<'_>) {
        let (instrument_id, order_id, side, shares) = (m.instrument_id(), m.order_id(), m.side() as u8, m.shares());
        let price = m.price_decoder().mantissa();
        self.add_order(context.partition, instrument_id, order_id, side, price, shares as u64);
    }

    fn on_add_order_attributed(&mut self, context: &MessageContext, m: AddOrderAttributedDecoder<'_>) {
        let (instrument_id, order_id, side, shares) = (m.instrument_id(), m.order_id(), m.side() as u8, m.shares());
        let price = m.price_decoder().mantissa();
        self.add_order(context.partition, instrument_id, order_id, side, price, shares as u64);
    }

    fn on_order_executed(&mut self, _context: &MessageContext, m: OrderExecutedDecoder<'_>) {
        self.reduce_order(m.order_id(), m.executed_shares() as u64);
    }

    fn on_order_executed_with_price(&mut self, _context: &MessageContext, m: OrderExecutedWithPriceDecoder<'_>) {
        self.reduce_order(m.order_id(), m.executed_shares() as u64);
    }

    fn on_order_cancel(&mut self, _context: &MessageContext, m: OrderCancelDecoder<'_>) {
        self.reduce_order(m.order_id(), m.cancelled_shares() as u64);
    }

    fn on_order_delete(&mut self, _context: &MessageContext, m: OrderDeleteDecoder<'_>) {
        self.reduce_order(m.order_id(), u64::MAX);
    }

    fn on_order_replace(&mut self, _context: &MessageContext, m: OrderReplaceDecoder<'_>) {
        let (original, new_id, shares) = (m.original_order_id(), m.new_order_id(), m.shares());
        let price = m.price_decoder().mantissa();
        self.replace_order(original, new_id, price, shares as u64);
    }
}
