//! Print what a subscriber delivers for a conformance case, in the canonical rendering:
//! `cargo run --example print_case -- ../../conformance/cases/normal-flow.mdfc`
//!
//! And a listener of one's own: count the adds and print the books at the end.

use mdfanout::sbe::add_order_codec::AddOrderDecoder;
use mdfanout::{MarketDataListener, MessageContext, PacketStreamDecoder};

#[derive(Default)]
struct Adds {
    count: u64,
}

impl MarketDataListener for Adds {
    fn on_add_order(&mut self, _context: &MessageContext, _message: AddOrderDecoder<'_>) {
        self.count += 1;
    }
}

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        eprintln!("usage: print_case CASE.mdfc");
        std::process::exit(3);
    });
    let file = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("print_case: {path}: {e}");
        std::process::exit(3);
    });
    match mdfanout::conformance::run(&file) {
        Ok(output) => print!("{output}"),
        Err(e) => {
            eprintln!("print_case: {path}: {e}");
            std::process::exit(3);
        }
    }

    let case = mdfanout::conformance::read_case(&file).unwrap();
    let slots: Vec<u16> = (0..case.partitions).collect();
    let mut decoder = PacketStreamDecoder::new(&slots, Adds::default());
    for record in case.records.iter().filter(|r| mdfanout::conformance::KIND_INCREMENTAL == r.kind) {
        decoder.on_message(record.partition as usize, record.session_id, &record.bytes);
    }
    let gaps = decoder.counters().gaps;
    println!("# {} AddOrder messages, {gaps} gaps", decoder.listener().count);
}
