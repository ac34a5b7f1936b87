//! Replay from the archive (feature `archive`), live, beside the Java SDK: simulator -> feed handler -> fanout ->
//! `mdfanout archive` (bin/mdfanout) on loopback multicast records a session of 300,000 messages; then the session is
//! replayed, replay only, from its start and from a stream sequence ~40% in, by the Rust SDK (`replay::ArchiveReplay`)
//! and by Java's `record --from ... --replay-only`. Each partition's recording is Java's byte for byte and the books
//! are Java's; from the stream sequence, the messages before it were delivered as the state at it (none recorded,
//! every one applied: the books are those of the replay from the start). Then the errors: an unreachable archive, a
//! session it does not hold, a partition without recordings, a start point naming a partition not replayed.
#![cfg(feature = "archive")]

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{by_partition, records, root, wait_for, Processes};
use mdfanout::replay::{ArchiveReplay, ReplayConfig, StartPoint};
use mdfanout::{MarketDataListener, MessageContext, MessageRecorder, OrderBooks, Tee};

const PARTITIONS: u16 = 2;
const MESSAGES: u64 = 300_000;
const RATE: u64 = 100_000;
const CHANNEL: &str = "aeron:udp?endpoint=224.0.63.1:63456|interface=127.0.0.1|mtu=8192";
const STREAM_ID_BASE: i32 = 6300;
const CONTROL: &str = "aeron:udp?endpoint=localhost:63010";
const SESSION: &str = "rust-replay-1";

/// What a replay delivered besides the recording: gaps, and per partition the first sequence delivered as normal and
/// the messages delivered as the state before the start point.
#[derive(Default)]
struct Watch {
    gaps: Vec<String>,
    first_normal: Vec<Option<u64>>,
    snapshot_messages: Vec<u64>,
    last_snapshot_sequence: Vec<u64>,
}

impl MarketDataListener for Watch {
    fn on_raw_message(&mut self, context: &MessageContext, _message: &[u8]) {
        let p = context.partition as usize;
        if context.snapshot {
            assert!(self.first_normal[p].is_none(), "partition {p}: state delivered after the start point");
            self.snapshot_messages[p] += 1;
            self.last_snapshot_sequence[p] = context.stream_sequence;
        } else if self.first_normal[p].is_none() {
            self.first_normal[p] = Some(context.stream_sequence);
        }
    }

    fn on_stream_gap(&mut self, partition: u16, first: u64, last: u64) {
        self.gaps.push(format!("p={partition} {first}..{last}"));
    }
}

struct Outcome {
    books: String,
    watch: Watch,
    state: u64,
    messages: u64,
    seconds: f64,
}

fn config(driver_dir: &str, from: StartPoint) -> ReplayConfig {
    let mut config = ReplayConfig::new(CONTROL, (0..PARTITIONS).collect());
    config.aeron_dir = Some(driver_dir.to_string());
    config.stream_id_base = STREAM_ID_BASE;
    config.replay_stream_id = 6350; // not Java's default 20000 (its replays run beside, on the same driver)
    config.session = Some(SESSION.to_string());
    config.from = from;
    config.timeout = Duration::from_secs(30); // a loaded 2-core machine
    config
}

fn rust_replay(driver_dir: &str, from: StartPoint, recording: &Path) -> Outcome {
    let started = Instant::now();
    let watch = Watch {
        first_normal: vec![None; PARTITIONS as usize],
        snapshot_messages: vec![0; PARTITIONS as usize],
        last_snapshot_sequence: vec![0; PARTITIONS as usize],
        ..Default::default()
    };
    let listener = Tee(OrderBooks::new(), Tee(watch, MessageRecorder::create(recording).expect("a recording")));
    let mut replay = ArchiveReplay::connect(&config(driver_dir, from.clone()), listener).expect("the replay connects");
    assert_eq!(replay.session(), SESSION);
    replay.run_to_end().unwrap_or_else(|e| panic!("the replay from {from}: {e}"));
    assert!(replay.problems().is_empty(), "{:?}", replay.problems());
    let (state, messages) = replay.delivered();
    let listener = replay.listener();
    listener.1 .1.flush().expect("the recording written");
    let mut books = String::new();
    listener.0.dump(&mut books);
    let watch = std::mem::take(&mut listener.1 .0);
    Outcome { books, watch, state, messages, seconds: started.elapsed().as_secs_f64() }
}

#[test]
fn a_session_replayed_from_the_archive_from_a_point_is_javas_byte_for_byte() {
    assert!(root().join("cli/target/mdfanout.jar").exists(), "bin/mdfanout needs the Maven build (make build)");
    let pid = std::process::id();
    let work = std::env::temp_dir().join(format!("mdfanout-rust-replay-{pid}"));
    let _ = fs::remove_dir_all(&work);
    fs::create_dir_all(&work).unwrap();
    let driver_dir = format!("/dev/shm/mdfanout-rust-replay-driver-{pid}");
    let archive_driver_dir = format!("/dev/shm/mdfanout-rust-replay-archive-{pid}");
    let ring_dir = format!("/dev/shm/mdfanout-rust-replay-rings-{pid}");
    let (partitions, stream_id_base) = (PARTITIONS.to_string(), STREAM_ID_BASE.to_string());
    let mut processes = Processes(
        Vec::new(),
        vec![PathBuf::from(&driver_dir), PathBuf::from(&archive_driver_dir), PathBuf::from(&ring_dir)],
    );

    // The chain, and the archive recording it.
    processes.start("media-driver", &work, &["media-driver", "--aeron-dir", &driver_dir]);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !Path::new(&driver_dir).join("cnc.dat").exists() {
        assert!(Instant::now() < deadline, "the media driver did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    let archive_dir = work.join("archive");
    processes.start(
        "archive",
        &work,
        &["archive", "--archive-dir", archive_dir.to_str().unwrap(), "--aeron-dir", &archive_driver_dir, "--channel",
            CHANNEL, "--stream-id-base", &stream_id_base, "--partitions", &partitions, "--control-channel", CONTROL,
            "--session", SESSION, "--min-free-bytes", "64m"],
    );
    processes.start(
        "feed-handler",
        &work,
        &["feed-handler", "--group", "239.255.63.1", "--port", "63100", "--interface", "127.0.0.1", "--ring-dir",
            &ring_dir, "--partitions", &partitions, "--ring-capacity-bytes", "67108864"],
    );
    let archive_log = work.join("archive.log");
    assert!(wait_for(&archive_log, "archive: running", Duration::from_secs(90)), "the archive did not start");
    assert!(wait_for(&work.join("feed-handler.log"), "feed-handler: receiving line A", Duration::from_secs(90)));
    processes.start(
        "fanout",
        &work,
        &["fanout", "--ring-dir", &ring_dir, "--partitions", &partitions, "--channel", CHANNEL, "--stream-id-base",
            &stream_id_base, "--term-length-bytes", "4194304", "--max-orders", "65536"],
    );
    assert!(wait_for(&work.join("fanout.log"), "fanout: running", Duration::from_secs(90)), "the fanout did not start");
    for p in 0..PARTITIONS {
        assert!(
            wait_for(&work.join("archive.log"), &format!("partition {p} recording"), Duration::from_secs(60)),
            "the archive records partition {p}"
        );
    }
    let (messages, rate) = (MESSAGES.to_string(), RATE.to_string());
    processes.start(
        "simulator",
        &work,
        &["simulator", "--group", "239.255.63.1", "--port", "63100", "--interface", "127.0.0.1", "--symbols", "50",
            "--seed", "63", "--rate", &rate, "--messages", &messages],
    );
    assert!(
        wait_for(&work.join("archive.log"), &format!("session {SESSION} ended"), Duration::from_secs(240)),
        "the archive did not see the session end: {}",
        fs::read_to_string(work.join("archive.log")).unwrap_or_default()
    );
    processes.stop("simulator");

    // Rust from the start: the whole session, and where each partition's 40% is.
    let from_start = rust_replay(&driver_dir, StartPoint::Start, &work.join("rust-start.bin"));
    let rust_start = fs::read(work.join("rust-start.bin")).unwrap();
    let start_records = records(&rust_start);
    let counts: Vec<u64> =
        (0..PARTITIONS).map(|p| start_records.iter().filter(|r| r.partition == p).count() as u64).collect();
    assert_eq!(counts.iter().sum::<u64>(), from_start.messages);
    assert_eq!(from_start.state, 0, "from the start nothing is state");
    assert!(from_start.watch.gaps.is_empty(), "gaps from the start: {:?}", from_start.watch.gaps);
    assert!(from_start.messages >= MESSAGES * 9 / 10, "the session's messages were replayed: {counts:?}");
    let n = counts.iter().min().unwrap() * 4 / 10;
    println!(
        "rust from the start: {} messages ({counts:?} per partition) in {:.1} s",
        from_start.messages, from_start.seconds
    );

    // Java's replays, from the start and from seq:N, while Rust replays from seq:N.
    let java = |name: &str, from: &str| {
        let args = ["record", "--aeron-dir", &driver_dir, "--channel", CHANNEL, "--stream-id-base", &stream_id_base,
            "--partitions", &partitions, "--from", from, "--replay-only", "--archive-control-channel", CONTROL,
            "--replay-session", SESSION, "--timeout-s", "300"];
        let out = work.join(format!("{name}.bin"));
        let books = work.join(format!("{name}-books.txt"));
        let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        all.extend(["--out", out.to_str().unwrap(), "--books-out", books.to_str().unwrap()].map(String::from));
        (all, out, books)
    };
    let from_seq = format!("seq:{n}");
    let (java_start_args, java_start_out, java_start_books) = java("java-start", "start");
    let (java_seq_args, java_seq_out, java_seq_books) = java("java-seq", &from_seq);
    processes.start("java-start", &work, &java_start_args.iter().map(String::as_str).collect::<Vec<_>>());
    processes.start("java-seq", &work, &java_seq_args.iter().map(String::as_str).collect::<Vec<_>>());

    let from_n = rust_replay(&driver_dir, StartPoint::Sequence(n), &work.join("rust-seq.bin"));
    println!(
        "rust from seq:{n}: {} messages as the state before it, {} from it on, in {:.1} s",
        from_n.state, from_n.messages, from_n.seconds
    );

    // Rust's own: from seq:N, everything before N was the state (applied to the books, not recorded), the rest is
    // the replay from the start's tail.
    assert!(from_n.watch.gaps.is_empty(), "gaps from seq:{n}: {:?}", from_n.watch.gaps);
    assert_eq!(from_n.state, (n - 1) * PARTITIONS as u64, "every message before seq:{n} was delivered as state");
    assert_eq!(from_n.state + from_n.messages, from_start.messages);
    for p in 0..PARTITIONS as usize {
        assert_eq!(from_n.watch.snapshot_messages[p], n - 1, "partition {p}: the state before seq:{n}");
        assert_eq!(from_n.watch.last_snapshot_sequence[p], n - 1, "partition {p}");
        assert_eq!(from_n.watch.first_normal[p], Some(n), "partition {p}: the first message delivered as normal");
    }
    let rust_seq = fs::read(work.join("rust-seq.bin")).unwrap();
    let seq_records = records(&rust_seq);
    assert!(seq_records.iter().all(|r| r.sequence >= n), "nothing before seq:{n} was recorded");
    let (start_parts, seq_parts) = (by_partition(&rust_start), by_partition(&rust_seq));
    for p in 0..PARTITIONS {
        let tail: Vec<u8> = records(&start_parts[&p])
            .iter()
            .filter(|r| r.sequence >= n)
            .flat_map(|r| {
                let mut b = (r.message.len() as i32).to_le_bytes().to_vec();
                b.extend_from_slice(&r.partition.to_le_bytes());
                b.extend_from_slice(&(r.sequence as i64).to_le_bytes());
                b.extend_from_slice(&r.message);
                b
            })
            .collect();
        assert!(tail == seq_parts[&p], "partition {p}: from seq:{n} is the replay from the start's tail");
    }
    assert!(!from_start.books.is_empty());
    assert_eq!(from_start.books, from_n.books, "the books from seq:{n} (the state applied) are those from the start");

    // Java's, byte for byte.
    for name in ["java-start", "java-seq"] {
        assert!(
            wait_for(&work.join(format!("{name}.log")), "record: messages=", Duration::from_secs(300)),
            "Java's {name} did not end: {}",
            fs::read_to_string(work.join(format!("{name}.log"))).unwrap_or_default()
        );
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    for (name, out) in [("java-start", &java_start_out), ("java-seq", &java_seq_out)] {
        // The file is complete once the process ended.
        while processes.0.iter_mut().any(|(n, c)| n == name && matches!(c.try_wait(), Ok(None))) {
            assert!(Instant::now() < deadline, "Java's {name} did not exit");
            std::thread::sleep(Duration::from_millis(100));
        }
        assert!(out.exists(), "Java's {name} wrote no recording");
    }
    for (who, rust, java_out, rust_books, java_books) in [
        ("from the start", &rust_start, &java_start_out, &from_start.books, &java_start_books),
        ("from seq:N", &rust_seq, &java_seq_out, &from_n.books, &java_seq_books),
    ] {
        let java = fs::read(java_out).unwrap();
        let (java_parts, rust_parts) = (by_partition(&java), by_partition(rust));
        for p in 0..PARTITIONS {
            let (j, r) = (java_parts.get(&p), rust_parts.get(&p));
            assert!(j.is_some_and(|j| !j.is_empty()), "{who}: Java recorded partition {p}");
            assert!(j == r, "{who}: partition {p}: Rust's recording ({} bytes) is not Java's ({} bytes)",
                r.map_or(0, |r| r.len()), j.map_or(0, |j| j.len()));
        }
        assert_eq!(&fs::read_to_string(java_books).unwrap(), rust_books, "{who}: the books, Java and Rust");
        println!("rust {who}: {} records, each partition byte for byte Java's, the books Java's", records(rust).len());
    }

    // An exchange time: the first message of each partition stamped at or after it starts the delivery.
    let stamp = |m: &[u8]| u64::from_le_bytes(m[8 + 8..8 + 16].try_into().unwrap());
    let p0 = records(&start_parts[&0]);
    let t = stamp(&p0[p0.len() / 2].message);
    let from_t = rust_replay(&driver_dir, StartPoint::ExchangeTime(t), &work.join("rust-ns.bin"));
    for p in 0..PARTITIONS {
        let expected = records(&start_parts[&p]).iter().find(|r| stamp(&r.message) >= t).map(|r| r.sequence);
        let first = from_t.watch.first_normal[p as usize];
        assert_eq!(first, expected, "partition {p}: the first message at or after ns:{t}");
    }
    assert_eq!(from_t.books, from_start.books, "the books from ns:{t}");
    println!("rust from ns:{t}: {} messages as state, {} from it on", from_t.state, from_t.messages);

    // Every bad input is a clear error.
    let error = |config: ReplayConfig| match ArchiveReplay::connect(&config, OrderBooks::new()) {
        Ok(_) => panic!("connected with {config:?}"),
        Err(e) => e,
    };
    let mut c = config(&driver_dir, StartPoint::Start);
    c.session = Some("no-such-session".into());
    let e = error(c);
    assert!(e.contains("no recording of session no-such-session") && e.contains(SESSION), "{e}");
    let mut c = config(&driver_dir, StartPoint::Start);
    c.partitions = vec![0, 7];
    let e = error(c);
    assert!(e.contains("partition 7") && e.contains("stream 6307"), "{e}");
    let mut c = config(&driver_dir, StartPoint::Sequences(vec![(3, 10)]));
    c.partitions = vec![0, 1];
    let e = error(c);
    assert!(e.contains("names partition 3"), "{e}");
    let mut c = config(&driver_dir, StartPoint::Start);
    c.control_channel = "aeron:udp?endpoint=localhost:63019".into();
    c.timeout = Duration::from_secs(3);
    let e = error(c);
    assert!(e.contains("cannot connect to the archive at aeron:udp?endpoint=localhost:63019"), "{e}");
    let mut c = config(&driver_dir, StartPoint::Start);
    c.aeron_dir = Some(format!("/dev/shm/mdfanout-rust-replay-no-driver-{pid}"));
    c.timeout = Duration::from_secs(3);
    let e = error(c);
    assert!(e.contains("media driver") || e.contains("Aeron"), "{e}");
    println!("errors: each bad input refused with its reason");

    drop(processes);
    let _ = fs::remove_dir_all(&work);
}
