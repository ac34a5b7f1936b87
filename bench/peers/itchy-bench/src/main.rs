//! itchy-bench: decodes a NASDAQ binary ITCH 5.0 file with the `itchy` crate, from memory,
//! several times, and prints one machine-readable result line plus the per-type counts.
//!
//! Usage: itchy-bench FILE [PASSES [SECONDS]]
//! (with SECONDS, no timed pass starts once that much time has been spent in timed passes)
//!
//! FILE is the NASDAQ binary file format (2-byte big-endian length, then the message; a zero
//! length means "take it from the message type"), plain or gzip (detected by its magic bytes).
//!
//! itchy's only public decoding entry point is `MessageStream` over a `Read`; reading from a
//! `&[u8]` keeps the whole run in memory (the stream copies 8 KiB chunks into its own buffer,
//! a memcpy that is negligible next to decoding). itchy parses by message type and ignores the
//! length prefix, and panics on types it does not know, so the file is first framed here and
//! only messages itchy 0.3 can decode (every type except 'h' Operational Halt and 'O' DLCR,
//! and with their specified length) are copied into the decode buffer; the others are counted
//! and reported as skipped, so the Java side can be checked against the same message counts.
//!
//! Output (stdout; errors go to stderr with a non-zero exit):
//!   itchy: messages=N passes=P best_msgs_per_s=.. median_msgs_per_s=.. mean_msgs_per_s=.. ns_per_msg=.. ...
//!   itchy_decoded: A=.. B=.. ...
//!   itchy_skipped: h=.. O=..
//!   file_types: A=.. ...

use std::hint::black_box;
use std::io::{Read, Write};
use std::process::ExitCode;
use std::time::Instant;

use itchy::{Body, MessageStream};

const DEFAULT_PASSES: usize = 10;

/// Specified total length of each ITCH 5.0 message type (0: unknown type).
fn spec_length(message_type: u8) -> usize {
    match message_type {
        b'S' | b'W' => 12,
        b'R' => 39,
        b'H' => 25,
        b'Y' | b'N' => 20,
        b'L' => 26,
        b'V' | b'J' | b'U' => 35,
        b'K' => 28,
        b'h' => 21,
        b'A' | b'C' => 36,
        b'F' | b'Q' => 40,
        b'E' => 31,
        b'X' => 23,
        b'D' | b'B' => 19,
        b'P' => 44,
        b'I' => 50,
        b'O' => 48,
        _ => 0,
    }
}

/// Message types itchy 0.3 decodes; for any other type its parser hits `unreachable!()`.
fn itchy_supports(message_type: u8) -> bool {
    !matches!(message_type, b'h' | b'O') && spec_length(message_type) != 0
}

/// The messages itchy can decode, re-framed with their lengths, plus the counts per type.
struct Framed {
    decode_buffer: Vec<u8>,
    messages: u64,
    file_counts: [u64; 256],
    skipped_counts: [u64; 256],
    rejected_counts: [u64; 256],
}

fn read_file(path: &str) -> Result<Vec<u8>, String> {
    let raw = std::fs::read(path).map_err(|e| format!("cannot read ITCH file {path}: {e}"))?;
    if raw.len() >= 2 && raw[0] == 0x1f && raw[1] == 0x8b {
        let mut plain = Vec::with_capacity(raw.len() * 4);
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut plain)
            .map_err(|e| format!("cannot gunzip ITCH file {path}: {e}"))?;
        Ok(plain)
    } else {
        Ok(raw)
    }
}

fn frame(file: &[u8]) -> Result<Framed, String> {
    let mut framed = Framed {
        decode_buffer: Vec::with_capacity(file.len()),
        messages: 0,
        file_counts: [0; 256],
        skipped_counts: [0; 256],
        rejected_counts: [0; 256],
    };
    let mut offset = 0usize;
    let mut index = 0u64;
    while offset < file.len() {
        if offset + 3 > file.len() {
            return Err(format!("truncated ITCH file: {} trailing bytes at offset {offset}", file.len() - offset));
        }
        let prefix = u16::from_be_bytes([file[offset], file[offset + 1]]) as usize;
        let message_type = file[offset + 2];
        let length = if prefix == 0 { spec_length(message_type) } else { prefix };
        if length == 0 {
            return Err(format!(
                "message {index} at offset {offset}: zero length prefix and unknown type 0x{message_type:02x}"
            ));
        }
        let start = offset + 2;
        if start + length > file.len() {
            return Err(format!("truncated ITCH file: message {index} at offset {offset} needs {length} bytes"));
        }
        framed.file_counts[message_type as usize] += 1;
        if itchy_supports(message_type) && length == spec_length(message_type) {
            framed.decode_buffer.extend_from_slice(&(length as u16).to_be_bytes());
            framed.decode_buffer.extend_from_slice(&file[start..start + length]);
            framed.messages += 1;
        } else {
            framed.skipped_counts[message_type as usize] += 1;
        }
        offset = start + length;
        index += 1;
    }
    Ok(framed)
}

/// A value derived from every message so the optimiser cannot drop any decoding work.
#[inline(always)]
fn touch(body: &Body) -> u64 {
    match body {
        Body::AddOrder(add) => add.reference ^ add.price.raw() as u64,
        Body::DeleteOrder { reference } => *reference,
        Body::OrderExecuted { executed, .. } => *executed as u64,
        Body::ReplaceOrder(replace) => replace.new_reference,
        Body::OrderCancelled { cancelled, .. } => *cancelled as u64,
        _ => 1,
    }
}

/// One untimed pass that checks itchy decodes every message and counts what it decoded per type.
/// A panic inside itchy (it unwraps non-UTF-8 stock symbols) counts as a failure too.
fn verify(buffer: &[u8], expected: u64) -> Result<[u64; 256], String> {
    let outcome = std::panic::catch_unwind(|| {
        let mut counts = [0u64; 256];
        let mut decoded = 0u64;
        for result in MessageStream::from_reader(buffer) {
            let message = result.map_err(|e| format!("itchy failed on message {decoded}: {e}"))?;
            counts[message.tag as usize] += 1;
            decoded += 1;
        }
        if decoded != expected {
            return Err(format!("itchy decoded {decoded} of {expected} messages"));
        }
        Ok(counts)
    });
    outcome.unwrap_or_else(|_| Err("itchy panicked".to_string()))
}

/// Whether itchy decodes this one message (length prefix + message) on its own.
fn itchy_accepts(framed_message: &[u8]) -> bool {
    std::panic::catch_unwind(|| matches!(MessageStream::from_reader(framed_message).next(), Some(Ok(_))))
        .unwrap_or(false)
}

/// itchy stops at the first message it rejects (it knows fewer field values than the
/// specification, e.g. no imbalance direction 'P'), so the slow path probes every message
/// on its own and leaves out, and counts, the ones it rejects.
fn drop_rejected(framed: &mut Framed) {
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut kept = Vec::with_capacity(framed.decode_buffer.len());
    let mut messages = 0u64;
    let buffer = &framed.decode_buffer;
    let mut offset = 0usize;
    while offset < buffer.len() {
        let length = u16::from_be_bytes([buffer[offset], buffer[offset + 1]]) as usize;
        let framed_message = &buffer[offset..offset + 2 + length];
        if itchy_accepts(framed_message) {
            kept.extend_from_slice(framed_message);
            messages += 1;
        } else {
            framed.rejected_counts[framed_message[2] as usize] += 1;
        }
        offset += 2 + length;
    }
    std::panic::set_hook(previous_hook);
    framed.decode_buffer = kept;
    framed.messages = messages;
}

/// One timed pass: decode everything, return (messages, nanoseconds, checksum).
fn timed_pass(buffer: &[u8]) -> Result<(u64, u128, u64), String> {
    let start = Instant::now();
    let mut decoded = 0u64;
    let mut checksum = 0u64;
    for result in MessageStream::from_reader(black_box(buffer)) {
        match result {
            Ok(message) => {
                checksum = checksum.wrapping_add(message.timestamp ^ touch(&message.body));
                black_box(&message);
                decoded += 1;
            }
            Err(e) => return Err(format!("itchy failed on message {decoded}: {e}")),
        }
    }
    Ok((decoded, start.elapsed().as_nanos(), checksum))
}

fn type_counts(counts: &[u64; 256]) -> String {
    let mut line = String::new();
    for (message_type, &count) in counts.iter().enumerate() {
        if count > 0 {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&format!("{}={count}", message_type as u8 as char));
        }
    }
    line
}

/// Decode `passes` times, or fewer once `seconds` of timed passes have run (at least one pass).
fn run(path: &str, passes: usize, seconds: Option<f64>) -> Result<(), String> {
    let file = read_file(path)?;
    let mut framed = frame(&file)?;
    drop(file);
    let decoded_counts = match verify(&framed.decode_buffer, framed.messages) {
        Ok(counts) => counts,
        Err(_) => {
            drop_rejected(&mut framed);
            verify(&framed.decode_buffer, framed.messages)?
        }
    };
    if framed.messages == 0 {
        return Err(format!("no message itchy can decode in {path}"));
    }
    let buffer = &framed.decode_buffer[..];

    let mut nanos = Vec::with_capacity(passes.min(1 << 20));
    let mut checksum = 0u64;
    let budget = seconds.map(|s| (s * 1e9) as u128);
    let mut spent = 0u128;
    for _ in 0..passes {
        if matches!(budget, Some(limit) if spent >= limit) {
            break;
        }
        let (decoded, elapsed, sum) = timed_pass(buffer)?;
        if decoded != framed.messages {
            return Err(format!("pass decoded {decoded} of {} messages", framed.messages));
        }
        nanos.push(elapsed.max(1));
        spent += elapsed;
        checksum = sum;
    }
    let passes = nanos.len();
    // Messages over the time of every pass: the same statistic as JMH's score (the mean of its
    // iterations' rates, each over a second of passes), where best and median of 7 ms passes skip
    // the stalls that a second-long iteration takes in.
    let total = nanos.iter().sum::<u128>() as f64;
    nanos.sort_unstable();
    let best = nanos[0] as f64;
    let median = if passes % 2 == 1 {
        nanos[passes / 2] as f64
    } else {
        (nanos[passes / 2 - 1] + nanos[passes / 2]) as f64 / 2.0
    };
    let messages = framed.messages as f64;
    let mut report = format!(
        "itchy: messages={} passes={passes} best_msgs_per_s={:.0} median_msgs_per_s={:.0} mean_msgs_per_s={:.0} \
         ns_per_msg={:.2} median_ns_per_msg={:.2} mean_ns_per_msg={:.2} bytes={} skipped={} rejected={} \
         checksum={checksum:016x}",
        framed.messages,
        messages * 1e9 / best,
        messages * 1e9 / median,
        messages * passes as f64 * 1e9 / total,
        best / messages,
        median / messages,
        total / (messages * passes as f64),
        buffer.len(),
        framed.skipped_counts.iter().sum::<u64>(),
        framed.rejected_counts.iter().sum::<u64>(),
    );
    report.push_str(&format!("\nitchy_decoded: {}", type_counts(&decoded_counts)));
    report.push_str(&format!("\nitchy_skipped: {}", type_counts(&framed.skipped_counts)));
    report.push_str(&format!("\nitchy_rejected: {}", type_counts(&framed.rejected_counts)));
    report.push_str(&format!("\nfile_types: {}\n", type_counts(&framed.file_counts)));
    // One write; a closed pipe (e.g. `| head -1`) is not an error of the benchmark.
    let _ = std::io::stdout().write_all(report.as_bytes());
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 2 || args.len() > 4 || args[1] == "-h" || args[1] == "--help" {
        eprintln!(
            "usage: itchy-bench FILE [PASSES [SECONDS]]  (NASDAQ binary ITCH 5.0, plain or gzip; default \
             {DEFAULT_PASSES} passes; with SECONDS, no pass starts once that much decoding has run)"
        );
        return ExitCode::from(2);
    }
    let passes = match args.get(2).map(|p| p.parse::<usize>()) {
        None => DEFAULT_PASSES,
        Some(Ok(p)) if p > 0 => p,
        _ => {
            eprintln!("itchy-bench: PASSES must be a positive integer, got '{}'", args[2]);
            return ExitCode::from(2);
        }
    };
    let seconds = match args.get(3).map(|s| s.parse::<f64>()) {
        None => None,
        Some(Ok(s)) if s > 0.0 && s.is_finite() => Some(s),
        _ => {
            eprintln!("itchy-bench: SECONDS must be a positive number, got '{}'", args[3]);
            return ExitCode::from(2);
        }
    };
    match run(&args[1], passes, seconds) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("itchy-bench: {message}");
            ExitCode::FAILURE
        }
    }
}
