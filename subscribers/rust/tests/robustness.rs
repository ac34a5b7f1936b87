//! Nothing received makes the decoder panic: random bytes, and valid messages with bytes changed at random (the
//! Java SDK's PacketDecodingFuzzTest, without a fuzzing crate: a fixed-seed xorshift, so a failure reproduces).

use mdfanout::{OrderBooks, PacketStreamDecoder};
use std::fs;
use std::path::PathBuf;

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn no_bytes_make_the_decoder_panic() {
    let cases = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../conformance/cases");
    let mut messages = Vec::new();
    for entry in fs::read_dir(cases).unwrap() {
        let case = mdfanout::conformance::read_case(&fs::read(entry.unwrap().path()).unwrap()).unwrap();
        messages.extend(case.records.into_iter().map(|r| r.bytes));
    }
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut decoder = PacketStreamDecoder::new(&[0, 1], OrderBooks::new());
    // The same bytes through a decoder with recovery, on its incremental and its snapshot streams alike (a small
    // buffer, so that it overflows too).
    let mut recovering = PacketStreamDecoder::with_recovery(&[0, 1], 4096, OrderBooks::new());
    // And through a pair's arbitration, either side, the clock moving on now and then (waits end, gaps are declared).
    let mut pair = mdfanout::PairStreamDecoder::new(&[0, 1], 1_000, OrderBooks::new());
    pair.set_error_handler(|_| {});
    let mut now = 0i64;
    let mut delivered_before = 0;
    for round in 0..200_000u64 {
        let mut bytes = messages[(rng.next() % messages.len() as u64) as usize].clone();
        match round % 4 {
            0 => {
                let n = (rng.next() % 96) as usize; // random bytes, any length
                bytes = (0..n).map(|_| rng.next() as u8).collect();
            }
            1 => {
                for _ in 0..1 + rng.next() % 4 {
                    if !bytes.is_empty() {
                        let i = (rng.next() % bytes.len() as u64) as usize;
                        bytes[i] = rng.next() as u8;
                    }
                }
            }
            2 => {
                let keep = (rng.next() % (bytes.len() as u64 + 1)) as usize;
                bytes.truncate(keep);
            }
            _ => {} // valid, so that streams go on and sequences move
        }
        // Session ids from more than the 8 a stream retires: a new publication now and then, so that sequences move on.
        let (slot, session_id) = ((rng.next() % 2) as usize, (rng.next() % 16) as i32);
        decoder.on_message(slot, session_id, &bytes);
        if 0 == rng.next() % 3 {
            recovering.on_snapshot_message(slot, session_id, &bytes);
        } else {
            recovering.on_message(slot, session_id, &bytes);
        }
        pair.on_message(slot, (session_id & 1) as usize, &bytes);
        if 0 == round % 16 {
            now += (rng.next() % 2_000) as i64;
            pair.do_work(now, 1_000_000);
        }
        if round == 100_000 {
            delivered_before = decoder.counters().messages;
        }
    }
    let counters = decoder.counters();
    assert!(counters.malformed > 50_000, "malformed: {}", counters.malformed);
    let recovery = recovering.counters();
    assert!(recovery.malformed_snapshot_packets > 10_000, "malformed snapshot packets: {}", recovery.malformed_snapshot_packets);
    assert!(recovery.stale_events > 0 && recovery.snapshot_packets > 50_000, "{recovery:?}");
    let sides = pair.counters().sides;
    assert!(sides[0].messages > 0 && sides[1].messages > 0, "both sides delivered: {sides:?}");
    assert!(counters.messages > delivered_before, "messages still delivered late in the run");
}
