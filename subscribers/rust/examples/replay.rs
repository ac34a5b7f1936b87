//! Replay a trading session from the archive, from a point, as Java's `mdfanout record --from ... --replay-only`:
//! every partition's recordings of the session (the newest unless `--session`), the messages before `--from`
//! delivered as the state at it (applied to the books, not recorded), the rest recorded to `--out` in the
//! `record --out` format (each partition's records compare byte for byte with Java's), the books dumped to
//! `--books-out` in the canonical format. Prints `replay: session=.. recordings=.. state=.. messages=.. gaps=..`.
//! Exit codes: 0 done, 1 a bad option or the replay failed (the archive unreachable, no such session, a partition
//! without recordings), 2 a gap (a hole in the recordings).
//!
//!   cargo run --release --features archive --example replay -- --archive-control-channel aeron:udp?endpoint=HOST:8010
//!     [--aeron-dir DIR] [--partitions 4 | --partition P ...] [--stream-id-base 1000] [--session NAME]
//!     [--from start|seq:N|seq:P=N,P=N|ns:N|HH:MM:SS[.fraction]] [--out FILE] [--books-out FILE]
//!     [--replay-channel aeron:udp?endpoint=localhost:0] [--replay-stream-id 20000]
//!     [--archive-response-channel aeron:udp?endpoint=localhost:0] [--control-stream-id 10] [--timeout-s 10]

#[cfg(not(feature = "archive"))]
fn main() {
    eprintln!("replay: needs the archive client: cargo build --release --features archive --example replay");
    std::process::exit(1);
}

#[cfg(feature = "archive")]
fn main() {
    if let Err(e) = run() {
        eprintln!("replay: {e}");
        std::process::exit(1);
    }
}

#[cfg(feature = "archive")]
fn run() -> Result<(), String> {
    use mdfanout::replay::{ArchiveReplay, ReplayConfig};
    use mdfanout::{MarketDataListener, MessageRecorder, OrderBooks, Tee};
    use std::time::{Duration, Instant};

    /// Counts the stream gaps (holes in the recordings) and prints each.
    #[derive(Default)]
    struct Gaps(u64);
    impl MarketDataListener for Gaps {
        fn on_stream_gap(&mut self, partition: u16, first_missing: u64, last_missing: u64) {
            eprintln!("GAP p={partition} missing={first_missing}..{last_missing}");
            self.0 += 1;
        }
    }

    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut control = None;
    let mut config = ReplayConfig::new("", Vec::new());
    let (mut partition_count, mut partitions) = (4u16, Vec::new());
    let (mut out, mut books_out) = (None, None);
    let mut i = 0;
    while i < args.len() {
        let (name, inline) = match args[i].split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (args[i].clone(), None),
        };
        let mut value = || -> Result<String, String> {
            if let Some(v) = inline.clone() {
                return Ok(v);
            }
            i += 1;
            args.get(i).cloned().ok_or_else(|| format!("{name} needs a value"))
        };
        let number = |v: String, name: &str| -> Result<i64, String> {
            v.parse().map_err(|_| format!("{name}: not a number: {v}"))
        };
        match name.as_str() {
            "--archive-control-channel" => control = Some(value()?),
            "--aeron-dir" => config.aeron_dir = Some(value()?),
            "--partitions" => partition_count = number(value()?, &name)? as u16,
            "--partition" => partitions.push(number(value()?, &name)? as u16),
            "--stream-id-base" => config.stream_id_base = number(value()?, &name)? as i32,
            "--session" | "--replay-session" => config.session = Some(value()?),
            "--from" => config.from = value()?.parse().map_err(|e| format!("--from: {e}"))?,
            "--out" => out = Some(value()?),
            "--books-out" => books_out = Some(value()?),
            "--replay-channel" => config.replay_channel = value()?,
            "--replay-stream-id" => config.replay_stream_id = number(value()?, &name)? as i32,
            "--archive-response-channel" => config.response_channel = value()?,
            "--control-stream-id" => config.control_stream_id = number(value()?, &name)? as i32,
            "--timeout-s" => config.timeout = Duration::from_secs(number(value()?, &name)?.max(1) as u64),
            "-h" | "--help" => {
                println!("see the header of subscribers/rust/examples/replay.rs");
                return Ok(());
            }
            other => return Err(format!("unknown option {other}")),
        }
        i += 1;
    }
    config.control_channel =
        control.ok_or("--archive-control-channel is required (the archive's --control-channel, with its host)")?;
    config.partitions = if partitions.is_empty() { (0..partition_count).collect() } else { partitions };

    let recorder = match &out {
        Some(path) => Some(MessageRecorder::create(std::path::Path::new(path)).map_err(|e| e.to_string())?),
        None => None,
    };
    let started = Instant::now();
    let mut replay = ArchiveReplay::connect(&config, Tee(OrderBooks::new(), Tee(Gaps::default(), recorder)))?;
    let result = replay.run_to_end();
    let (state, messages) = replay.delivered();
    for problem in replay.problems() {
        eprintln!("replay: {problem}");
    }
    let gaps = replay.listener().1 .0 .0;
    if let Some(recorder) = replay.listener().1 .1.as_mut() {
        recorder.flush().map_err(|e| e.to_string())?;
    }
    if let Some(path) = &books_out {
        let mut dump = String::new();
        replay.listener().0.dump(&mut dump);
        std::fs::write(path, dump).map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    println!(
        "replay: session={} from={} recordings={} state={state} messages={messages} gaps={gaps} in {:.1} s",
        replay.session(),
        config.from,
        replay.recordings_replayed(),
        started.elapsed().as_secs_f64()
    );
    result?;
    if gaps > 0 {
        std::process::exit(2);
    }
    Ok(())
}
