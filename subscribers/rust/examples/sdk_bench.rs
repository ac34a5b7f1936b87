//! The Rust SDK's receive path without a transport, on the very packets the Java SDK's `SdkBookBenchmark` decodes
//! (written as a conformance case by the bench module's `WriteSdkCase`): validation, stream sequencing, SBE decode and
//! dispatch, into the order books (`books`) or into a listener that does nothing (`decode`). Passes over the session,
//! one after another for `SECONDS` after `WARMUP_S` of the same; before each (untimed) the books of every partition are
//! emptied and the packets' stream sequences moved on by one pass, so each pass is a gap-free continuation, as the
//! Java benchmark does. Prints the median and mean pass rate in normalized messages per second; fails when a pass was
//! not delivered cleanly (a gap, a malformed packet, a message short).
//!
//!   cargo run --release --example sdk_bench -- CASE books|decode [SECONDS] [WARMUP_S]

use std::time::{Duration, Instant};

use mdfanout::sbe::packet_header_codec::PacketHeaderDecoder;
use mdfanout::sbe::ReadBuf;
use mdfanout::{conformance, wire, MarketDataListener, OrderBooks, PacketStreamDecoder};

/// A listener that does nothing: what every subscriber pays before its application does any work.
struct Nothing;

impl MarketDataListener for Nothing {}

/// The packets of a case, with what moving their stream sequences on needs.
struct Packets {
    records: Vec<conformance::Record>,
    first_sequences: Vec<u64>,
    per_partition: Vec<u64>,
    messages_per_pass: u64,
}

fn header(bytes: &[u8]) -> (u64, u64) {
    let (block_length, _, _, version) = wire::header(bytes, 0);
    let decoder =
        PacketHeaderDecoder::default().wrap(ReadBuf::new(bytes), wire::HEADER_LENGTH, block_length as u16, version);
    (decoder.stream_sequence(), decoder.message_count() as u64)
}

fn load(path: &str) -> (u16, Packets) {
    let file = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let case = conformance::read_case(&file).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (partitions, records) = (case.partitions, case.records);
    let mut per_partition = vec![0u64; partitions as usize];
    let mut first_sequences = Vec::with_capacity(records.len());
    for record in &records {
        let (first, count) = header(&record.bytes);
        first_sequences.push(first);
        per_partition[record.partition as usize] += count;
    }
    let messages_per_pass = per_partition.iter().sum();
    (partitions, Packets { records, first_sequences, per_partition, messages_per_pass })
}

/// Run passes for the warm-up, then for the measurement: each measured pass's rate.
fn run<L: MarketDataListener>(
    packets: &mut Packets,
    decoder: &mut PacketStreamDecoder<L>,
    mut between_passes: impl FnMut(&mut PacketStreamDecoder<L>),
    warmup: Duration,
    measure: Duration,
) -> Vec<f64> {
    let mut passes = 0u64;
    let mut rates = Vec::new();
    let started = Instant::now();
    while started.elapsed() < warmup + measure {
        between_passes(decoder);
        for (record, &first) in packets.records.iter_mut().zip(&packets.first_sequences) {
            let moved = first + passes * packets.per_partition[record.partition as usize];
            // The stream sequence is the first field of the PacketHeader block, right after the message header.
            record.bytes[wire::HEADER_LENGTH..wire::HEADER_LENGTH + 8].copy_from_slice(&moved.to_le_bytes());
        }
        let pass = Instant::now();
        for record in &packets.records {
            decoder.on_message(record.partition as usize, 1, &record.bytes);
        }
        let seconds = pass.elapsed().as_secs_f64();
        passes += 1;
        if started.elapsed() > warmup {
            rates.push(packets.messages_per_pass as f64 / seconds);
        }
    }
    let c = decoder.counters();
    assert!(
        0 == c.gaps && 0 == c.malformed && 0 == c.duplicate_packets && c.messages == passes * packets.messages_per_pass,
        "the packet stream was not delivered cleanly over {passes} passes: {c:?}"
    );
    rates
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 || !["books", "decode"].contains(&args[2].as_str()) {
        eprintln!("usage: sdk_bench CASE books|decode [SECONDS] [WARMUP_S]");
        std::process::exit(2);
    }
    let seconds: f64 = args.get(3).map(|s| s.parse().expect("SECONDS")).unwrap_or(5.0);
    let warmup: f64 = args.get(4).map(|s| s.parse().expect("WARMUP_S")).unwrap_or(3.0);
    let (partitions, mut packets) = load(&args[1]);
    let slots: Vec<u16> = (0..partitions).collect();
    let (warmup, measure) = (Duration::from_secs_f64(warmup), Duration::from_secs_f64(seconds));
    let mut rates = if args[2] == "books" {
        let mut decoder = PacketStreamDecoder::new(&slots, OrderBooks::new());
        let empty = |d: &mut PacketStreamDecoder<OrderBooks>| (0..partitions).for_each(|p| d.listener().on_new_day(p));
        run(&mut packets, &mut decoder, empty, warmup, measure)
    } else {
        let mut decoder = PacketStreamDecoder::new(&slots, Nothing);
        run(&mut packets, &mut decoder, |_| {}, warmup, measure)
    };
    assert!(!rates.is_empty(), "no pass was measured: raise SECONDS");
    rates.sort_by(|a, b| a.total_cmp(b));
    let median = rates[rates.len() / 2];
    let mean = rates.iter().sum::<f64>() / rates.len() as f64;
    println!(
        "rust-sdk: mode={} passes={} messages_per_pass={} median_msgs_per_s={:.0} mean_msgs_per_s={:.0}",
        args[2],
        rates.len(),
        packets.messages_per_pass,
        median,
        mean
    );
}
