//! Price-level order books built from the order messages, as the Java SDK's `OrderBooks`, with the same canonical
//! dump: instruments ascending, only those with a resting order; `I <instrumentId>`, then bids best first
//! `B <price> <shares> <orders>`, then asks best first `S <price> <shares> <orders>`.

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

const BUY: u8 = b'B';
const SELL: u8 = b'S';

#[derive(Clone, Copy, Debug)]
struct Order {
    instrument_id: u32,
    is_bid: bool,
    price: i64,
    remaining: u64,
}

#[derive(Debug, Default)]
struct Book {
    partition: u16,
    bids: BTreeMap<Reverse<i64>, (u64, u32)>,
    asks: BTreeMap<i64, (u64, u32)>,
}

impl Book {
    fn is_empty(&self) -> bool {
        self.bids.is_empty() && self.asks.is_empty()
    }

    fn add(&mut self, is_bid: bool, price: i64, shares: u64) {
        let level = if is_bid {
            self.bids.entry(Reverse(price)).or_insert((0, 0))
        } else {
            self.asks.entry(price).or_insert((0, 0))
        };
        level.0 += shares;
        level.1 += 1;
    }

    fn reduce(&mut self, is_bid: bool, price: i64, shares: u64, leaves: bool) {
        let level = if is_bid { self.bids.get_mut(&Reverse(price)) } else { self.asks.get_mut(&price) };
        if let Some(level) = level {
            level.0 -= shares.min(level.0);
            if leaves {
                level.1 -= 1;
            }
            if 0 == level.1 {
                if is_bid {
                    self.bids.remove(&Reverse(price));
                } else {
                    self.asks.remove(&price);
                }
            }
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

/// Every instrument's book.
#[derive(Debug, Default)]
pub struct OrderBooks {
    books: BTreeMap<u32, Book>,
    orders: HashMap<u64, Order>,
    pub counters: BookCounters,
}

impl OrderBooks {
    pub fn new() -> Self {
        Self::default()
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
        let book = self.books.entry(instrument_id).or_insert_with(|| Book { partition, ..Book::default() });
        book.add(is_bid, price, shares);
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
            book.add(original.is_bid, price, shares);
        }
        self.orders.insert(
            new_order_id,
            Order { instrument_id: original.instrument_id, is_bid: original.is_bid, price, remaining: shares },
        );
        self.counters.applied += 1;
    }

    /// A new trading day on the partition: its books start empty.
    pub fn on_new_day(&mut self, partition: u16) {
        let cleared: Vec<u32> =
            self.books.iter().filter(|(_, b)| b.partition == partition).map(|(id, _)| *id).collect();
        self.orders.retain(|_, o| !cleared.contains(&o.instrument_id));
        for id in cleared {
            if let Some(book) = self.books.get_mut(&id) {
                book.bids.clear();
                book.asks.clear();
            }
        }
    }

    /// Orders resting in all books.
    pub fn order_count(&self) -> usize {
        self.orders.len()
    }

    /// The canonical dump (see the module's documentation).
    pub fn dump(&self, out: &mut String) {
        for (instrument_id, book) in &self.books {
            if book.is_empty() {
                continue;
            }
            let _ = writeln!(out, "I {instrument_id}");
            for (Reverse(price), (shares, orders)) in &book.bids {
                let _ = writeln!(out, "B {price} {shares} {orders}");
            }
            for (price, (shares, orders)) in &book.asks {
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
            book.reduce(is_bid, price, removed, leaves);
        }
    }
}
