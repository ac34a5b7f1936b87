//! Nothing on the poll path allocates once warm: validation, sequencing, dispatch and the books, measured with a
//! counting global allocator over a steady stream (adds at new and existing price levels, executions, deletes,
//! heartbeats, a gap now and then) after a warm-up that built every instrument's book; and with recovery on, gap after
//! gap recovered from a snapshot once the first recovery made its buffer and filter. Only the measuring thread's
//! allocations are counted.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use mdfanout::{MessageRecorder, OrderBooks, PacketStreamDecoder, Tee};

struct Counting;

thread_local! {
    static MEASURING: Cell<bool> = const { Cell::new(false) };
    /// This thread's allocations while measuring: tests run on threads of their own, side by side.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if MEASURING.with(|m| m.get()) {
            ALLOCATIONS.with(|a| a.set(a.get() + 1));
        }
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if MEASURING.with(|m| m.get()) {
            ALLOCATIONS.with(|a| a.set(a.get() + 1));
        }
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn measured<F: FnOnce()>(f: F) -> u64 {
    let before = ALLOCATIONS.with(|a| a.get());
    MEASURING.with(|m| m.set(true));
    f();
    MEASURING.with(|m| m.set(false));
    ALLOCATIONS.with(|a| a.get()) - before
}

/// Writes packets of the wire format by hand (docs/WIRE.md): the SBE header, then the fields at the schema's offsets.
struct Writer {
    buf: Vec<u8>,
    count: u16,
}

const INSTRUMENTS: u32 = 8;

impl Writer {
    fn header(&mut self, block: u16, template: u16) {
        self.buf.extend_from_slice(&block.to_le_bytes());
        self.buf.extend_from_slice(&template.to_le_bytes());
        self.buf.extend_from_slice(&mdfanout::wire::SCHEMA_ID.to_le_bytes());
        self.buf.extend_from_slice(&mdfanout::sbe::SBE_SCHEMA_VERSION.to_le_bytes());
    }

    fn begin(&mut self, sequence: u64) {
        self.buf.clear();
        self.count = 0;
        self.header(mdfanout::sbe::packet_header_codec::SBE_BLOCK_LENGTH, 1);
        self.buf.extend_from_slice(&sequence.to_le_bytes());
        self.buf.extend_from_slice(&1_000u64.to_le_bytes()); // sendingTime
        self.buf.extend_from_slice(&0u16.to_le_bytes()); // partitionId
        self.buf.extend_from_slice(&0u16.to_le_bytes()); // messageCount, set by finish
        self.buf.extend_from_slice(&u64::MAX.to_le_bytes()); // previousExchangeSequence: null
    }

    fn common(&mut self, block: u16, template: u16, instrument: u32) {
        self.header(block, template);
        self.buf.extend_from_slice(&7u64.to_le_bytes()); // exchangeSequence
        self.buf.extend_from_slice(&9u64.to_le_bytes()); // exchangeTimestamp
        self.buf.extend_from_slice(&instrument.to_le_bytes());
        self.count += 1;
    }

    fn add(&mut self, instrument: u32, order_id: u64, price: i64, shares: u32, side: u8) {
        self.common(mdfanout::sbe::add_order_codec::SBE_BLOCK_LENGTH, 20, instrument);
        self.buf.extend_from_slice(&order_id.to_le_bytes());
        self.buf.extend_from_slice(&price.to_le_bytes());
        self.buf.extend_from_slice(&shares.to_le_bytes());
        self.buf.push(side);
    }

    fn executed(&mut self, instrument: u32, order_id: u64, shares: u32) {
        self.common(mdfanout::sbe::order_executed_codec::SBE_BLOCK_LENGTH, 22, instrument);
        self.buf.extend_from_slice(&order_id.to_le_bytes());
        self.buf.extend_from_slice(&42u64.to_le_bytes()); // matchNumber
        self.buf.extend_from_slice(&shares.to_le_bytes());
    }

    fn delete(&mut self, instrument: u32, order_id: u64) {
        self.common(mdfanout::sbe::order_delete_codec::SBE_BLOCK_LENGTH, 25, instrument);
        self.buf.extend_from_slice(&order_id.to_le_bytes());
    }

    fn finish(&mut self) -> &[u8] {
        let count = self.count.to_le_bytes();
        self.buf[8 + 18..8 + 20].copy_from_slice(&count);
        &self.buf
    }

    /// A snapshot stream packet (the same header as an incremental one), its messages added with the snapshot_* below.
    fn begin_snapshot(&mut self, sequence: u64) {
        self.begin(sequence);
    }

    fn snapshot_begin(&mut self, snapshot_id: u64, last: u64, incremental_session_id: i32) {
        use mdfanout::sbe::snapshot_begin_codec::*;
        self.common(SBE_BLOCK_LENGTH, SBE_TEMPLATE_ID, 0);
        self.buf.extend_from_slice(&snapshot_id.to_le_bytes());
        self.buf.extend_from_slice(&last.to_le_bytes());
        self.buf.extend_from_slice(&incremental_session_id.to_le_bytes());
        self.buf.extend_from_slice(&0u16.to_le_bytes()); // partitionId
        self.buf.extend_from_slice(&0u64.to_le_bytes()); // unrecoveredFromSequence: the state lacks nothing
        self.buf.extend_from_slice(&0u64.to_le_bytes());
    }

    fn snapshot_instrument(&mut self, instrument: u32, snapshot_id: u64, last: u64, covered_from: u32, orders: u32) {
        use mdfanout::sbe::snapshot_instrument_codec::*;
        self.common(SBE_BLOCK_LENGTH, SBE_TEMPLATE_ID, instrument);
        self.buf.extend_from_slice(&snapshot_id.to_le_bytes());
        self.buf.extend_from_slice(&last.to_le_bytes());
        self.buf.extend_from_slice(&covered_from.to_le_bytes());
        self.buf.extend_from_slice(&orders.to_le_bytes());
    }

    fn snapshot_order(&mut self, instrument: u32, order_id: u64, price: i64, side: u8) {
        use mdfanout::sbe::snapshot_order_codec::*;
        self.common(SBE_BLOCK_LENGTH, SBE_TEMPLATE_ID, instrument);
        self.buf.extend_from_slice(&order_id.to_le_bytes());
        self.buf.extend_from_slice(&price.to_le_bytes());
        self.buf.extend_from_slice(&100u32.to_le_bytes());
        self.buf.push(side);
        self.buf.extend_from_slice(b"    ");
    }

    fn snapshot_end(&mut self, snapshot_id: u64, last: u64, covered_from: u32, instruments: u32, orders: u32) {
        use mdfanout::sbe::snapshot_end_codec::*;
        self.common(SBE_BLOCK_LENGTH, SBE_TEMPLATE_ID, 0);
        self.buf.extend_from_slice(&snapshot_id.to_le_bytes());
        self.buf.extend_from_slice(&last.to_le_bytes());
        self.buf.extend_from_slice(&covered_from.to_le_bytes());
        self.buf.extend_from_slice(&instruments.to_le_bytes());
        self.buf.extend_from_slice(&orders.to_le_bytes());
        self.buf.extend_from_slice(&(instruments + orders).to_le_bytes()); // messageCount
    }

    fn heartbeat(&mut self, next: u64) -> &[u8] {
        self.buf.clear();
        self.header(mdfanout::sbe::heartbeat_codec::SBE_BLOCK_LENGTH, 2);
        self.buf.extend_from_slice(&next.to_le_bytes());
        self.buf.extend_from_slice(&1_000u64.to_le_bytes());
        self.buf.extend_from_slice(&0u16.to_le_bytes());
        self.buf.resize(8 + mdfanout::sbe::heartbeat_codec::SBE_BLOCK_LENGTH as usize, 0);
        self.buf[8 + 30] = 1; // sourceStatus LIVE
        &self.buf
    }
}

#[test]
fn the_poll_path_allocates_nothing_once_warm() {
    // The books and a recorder (its staging buffer made once, written out whole when full) as one listener.
    let listener = Tee(OrderBooks::with_capacity(4096, 64), MessageRecorder::new(std::io::sink()));
    let mut decoder = PacketStreamDecoder::new(&[0], listener);
    let mut w = Writer { buf: Vec::with_capacity(4096), count: 0 };
    let mut sequence = 1u64;
    let mut next_order = 1u64;

    // Warm-up: every instrument's book, 10 levels a side, resting orders.
    let warm_up = measured(|| {
        for instrument in 1..=INSTRUMENTS {
            w.begin(sequence);
            for level in 0..10 {
                w.add(instrument, next_order, 1_000_000 - level * 100, 100, b'B');
                w.add(instrument, next_order + 1, 1_000_100 + level * 100, 100, b'S');
                next_order += 2;
            }
            sequence += 20;
            decoder.on_message(0, 7, w.finish());
        }
    });
    assert!(warm_up > 0, "the counter counts: the warm-up built books and allocated");
    let resting = decoder.listener().0.order_count();

    // Steady state: 20,000 packets of adds (at existing and at new levels), executions and deletes, a heartbeat every
    // 100 packets, a lost packet every 1,000.
    let mut delivered = 0u64;
    let steady = measured(|| {
        for p in 0..20_000u64 {
            let instrument = 1 + (p % INSTRUMENTS as u64) as u32;
            let new_level = (p % 7) as i64 * 100 + 100_000; // 100k above the book: a level of its own
            w.begin(sequence);
            w.add(instrument, next_order, 1_000_000, 10, b'B');
            w.add(instrument, next_order + 1, 1_000_100 + new_level, 10, b'S');
            w.executed(instrument, next_order, 4);
            w.delete(instrument, next_order);
            w.delete(instrument, next_order + 1);
            next_order += 2;
            let lost = p % 1_000 == 999;
            sequence += 5;
            if !lost {
                decoder.on_message(0, 7, w.finish());
                delivered += 5;
            }
            if p % 100 == 99 {
                decoder.on_message(0, 7, w.heartbeat(sequence));
            }
        }
    });
    assert_eq!(0, steady, "allocations in the steady state");
    assert_eq!(resting, decoder.listener().0.order_count(), "every steady-state order left again");
    assert_eq!(20 * INSTRUMENTS as u64 + delivered, decoder.counters().messages);
    assert_eq!(20, decoder.counters().gaps);
    let messages = decoder.counters().messages;
    assert_eq!(messages, decoder.listener().1.records(), "every message recorded");
}

#[test]
fn recovery_allocates_nothing_once_its_buffer_and_filter_are_made() {
    let mut decoder = PacketStreamDecoder::with_recovery(&[0], 64 * 1024, OrderBooks::with_capacity(4096, 64));
    let mut w = Writer { buf: Vec::with_capacity(4096), count: 0 };
    let (mut sequence, mut snapshot_sequence, mut next_order) = (1u64, 1u64, 1_000_000u64);

    // One cycle: packets, a lost one (stale: buffering), packets held back, then a snapshot of the stream just before
    // them (every instrument, two orders each) and the held-back packets replayed through its filter.
    let mut cycle = |decoder: &mut PacketStreamDecoder<OrderBooks>, snapshot_id: u64| {
        for lost in [false, false, true, false, false, false] {
            let instrument = 1 + (sequence % INSTRUMENTS as u64) as u32;
            w.begin(sequence);
            w.add(instrument, next_order, 1_000_000, 10, b'B');
            w.delete(instrument, next_order);
            next_order += 1;
            sequence += 2;
            if !lost {
                decoder.on_message(0, 7, w.finish());
            }
        }
        let last = sequence - 7; // the first held-back packet's sequence less one: recent enough
        w.begin_snapshot(snapshot_sequence);
        w.snapshot_begin(snapshot_id, last, 7);
        for instrument in 1..=INSTRUMENTS {
            w.snapshot_instrument(instrument, snapshot_id, last, instrument, 2);
            w.snapshot_order(instrument, next_order, 900_000, b'B');
            w.snapshot_order(instrument, next_order + 1, 1_100_000, b'S');
            next_order += 2;
        }
        w.snapshot_end(snapshot_id, last, INSTRUMENTS + 1, INSTRUMENTS, 2 * INSTRUMENTS);
        snapshot_sequence += w.count as u64;
        decoder.on_snapshot_message(0, 99, w.finish());
    };

    let first = measured(|| cycle(&mut decoder, 1));
    assert!(first > 0, "the first recovery made its buffer and filter");
    assert_eq!(1, decoder.counters().snapshots_applied, "{:?}", decoder.counters());
    let steady = measured(|| {
        for snapshot_id in 2..=200 {
            cycle(&mut decoder, snapshot_id);
        }
    });
    assert_eq!(0, steady, "allocations in recoveries after the first");
    let counters = decoder.counters();
    assert_eq!((200, 200, 200), (counters.stale_events, counters.snapshots_applied, counters.recoveries), "{counters:?}");
    assert_eq!(2 * INSTRUMENTS as usize, decoder.listener().order_count(), "the books are the last snapshot's");
    assert!(decoder.is_good(0));
}
