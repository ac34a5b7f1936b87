//! The Rust client's recovery live, beside the Java SDK's recorder: simulator -> feed handler -> fanout (bin/mdfanout)
//! on loopback multicast, one Java media driver. A Rust subscriber from the start and Java's `record`; a second Rust
//! subscriber joins late (recovers from a snapshot); then the fanout is killed with -9 and started again (a new
//! publication: every subscriber recovers from its snapshots). At the end each Rust subscriber's books are Java's, and
//! its recording is Java's byte for byte where both delivered, with nothing skipped after its last recovery (checked
//! against Java's recording and each side's snapshot coverage; Java's against the oracle is the system tests' job).
#![cfg(feature = "aeron")]

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{
    by_partition, check_recovered_recording, records, root, simulator_progress, wait_for, Coverage, CoverageWriter, Processes,
    Watch,
};
use mdfanout::client::{Config, FeedSubscriber};
use mdfanout::{MessageRecorder, OrderBooks, Tee};

const PARTITIONS: u16 = 2;
const MESSAGES: u64 = 1_000_000;
const RATE: u64 = 100_000;
const CHANNEL: &str = "aeron:udp?endpoint=224.0.57.1:57456|interface=127.0.0.1";
const STREAM_ID_BASE: i32 = 5700;

type Listener = Tee<OrderBooks, Tee<Watch, Tee<CoverageWriter, MessageRecorder<fs::File>>>>;

/// What a Rust subscriber ended with.
struct Outcome {
    books: String,
    coverage: String,
    events: Vec<String>,
    messages: u64,
}

/// A Rust subscriber on a thread of its own (its client is made and polled there), until every partition's session
/// ended or the deadline passes.
fn subscriber(driver_dir: String, recording: PathBuf, started: Arc<AtomicBool>) -> std::thread::JoinHandle<Outcome> {
    std::thread::spawn(move || {
        let mut config = Config::new(CHANNEL, (0..PARTITIONS).collect());
        config.aeron_dir = Some(driver_dir);
        config.stream_id_base = STREAM_ID_BASE;
        let listener: Listener = Tee(
            OrderBooks::new(),
            Tee(
                Watch::new(PARTITIONS),
                Tee(CoverageWriter::default(), MessageRecorder::create(&recording).expect("a recording")),
            ),
        );
        let mut client = FeedSubscriber::connect(&config, listener).expect("the Rust client attaches");
        started.store(true, Ordering::Release);
        client.poll_until(Duration::from_secs(150), |l| l.1 .0.ended.iter().all(|&e| e));
        let messages = client.counters().messages;
        let listener = client.listener();
        listener.1 .1 .1.flush().expect("the recording written");
        let mut books = String::new();
        listener.0.dump(&mut books);
        Outcome {
            books,
            coverage: std::mem::take(&mut listener.1 .1 .0.out),
            events: std::mem::take(&mut listener.1 .0.events),
            messages,
        }
    })
}

#[test]
fn a_late_joiner_and_a_fanout_killed_with_minus_9_recover_as_java_does() {
    assert!(root().join("cli/target/mdfanout.jar").exists(), "bin/mdfanout needs the Maven build (make build)");
    let work = std::env::temp_dir().join(format!("mdfanout-rust-recovery-{}", std::process::id()));
    fs::create_dir_all(&work).unwrap();
    let driver_dir = format!("/dev/shm/mdfanout-rust-recovery-driver-{}", std::process::id());
    let ring_dir = format!("/dev/shm/mdfanout-rust-recovery-rings-{}", std::process::id());
    let (partitions, stream_id_base) = (PARTITIONS.to_string(), STREAM_ID_BASE.to_string());
    let java = (work.join("java.bin"), work.join("java-books.txt"), work.join("java-coverage.txt"));
    let mut processes = Processes(Vec::new(), vec![PathBuf::from(&driver_dir), PathBuf::from(&ring_dir)]);

    processes.start("media-driver", &work, &["media-driver", "--aeron-dir", &driver_dir]);
    let deadline = Instant::now() + Duration::from_secs(30);
    while !Path::new(&driver_dir).join("cnc.dat").exists() {
        assert!(Instant::now() < deadline, "the media driver did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    processes.start(
        "feed-handler",
        &work,
        &["feed-handler", "--group", "239.255.57.1", "--port", "57100", "--interface", "127.0.0.1", "--ring-dir",
            &ring_dir, "--partitions", &partitions, "--ring-capacity-bytes", "67108864"],
    );
    let fanout_args = ["fanout", "--ring-dir", &ring_dir, "--partitions", &partitions, "--channel", CHANNEL,
        "--stream-id-base", &stream_id_base, "--term-length-bytes", "4194304", "--max-orders", "65536",
        "--snapshot-interval-ms", "1000"];
    processes.start("fanout", &work, &fanout_args);
    processes.start(
        "record",
        &work,
        &["record", "--aeron-dir", &driver_dir, "--channel", CHANNEL, "--stream-id-base", &stream_id_base,
            "--partitions", &partitions, "--until-end-of-messages", "--timeout-s", "150", "--books-out",
            java.1.to_str().unwrap(), "--out", java.0.to_str().unwrap(), "--coverage-out", java.2.to_str().unwrap(),
            "--ready-file", work.join("record-ready").to_str().unwrap()],
    );
    let first_started = Arc::new(AtomicBool::new(false));
    let first = subscriber(driver_dir.clone(), work.join("rust-first.bin"), first_started.clone());
    assert!(wait_for(&work.join("feed-handler.log"), "feed-handler: receiving line A", Duration::from_secs(60)));
    assert!(wait_for(&work.join("fanout.log"), "fanout: running", Duration::from_secs(60)));
    assert!(wait_for(&work.join("record-ready"), "", Duration::from_secs(60)), "Java's record is ready");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !first_started.load(Ordering::Acquire) {
        assert!(Instant::now() < deadline, "the first Rust subscriber did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(500)); // the subscriptions' images: joined at the stream's start
    let (messages, rate) = (MESSAGES.to_string(), RATE.to_string());
    processes.start(
        "simulator",
        &work,
        &["simulator", "--stats-interval-s", "1", "--group", "239.255.57.1", "--port", "57100", "--interface",
            "127.0.0.1", "--symbols", "50", "--seed", "11", "--rate", &rate, "--messages", &messages],
    );

    // A tenth of the way in (by the simulator's own count: a loaded machine starts its JVM late), the late joiner.
    let simulator_log = work.join("simulator.log");
    let until = |messages: u64, what: &str| {
        let deadline = Instant::now() + Duration::from_secs(120);
        while simulator_progress(&simulator_log) < messages {
            assert!(Instant::now() < deadline, "timed out waiting for {what} (simulator.log)");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    until(MESSAGES / 10, "a tenth of the session");
    let late = subscriber(driver_dir.clone(), work.join("rust-late.bin"), Arc::new(AtomicBool::new(false)));
    // Half way: the fanout killed with -9, and started again on its rings (a new publication, from its state).
    until(MESSAGES / 2, "half the session");
    processes.kill9("fanout");
    std::thread::sleep(Duration::from_millis(500));
    processes.start("fanout-restarted", &work, &fanout_args);

    let first = first.join().expect("the first Rust subscriber");
    let late = late.join().expect("the late Rust subscriber");
    assert!(wait_for(&work.join("record.log"), "record: messages=", Duration::from_secs(60)), "Java's record did not end");
    let java_log = fs::read_to_string(work.join("record.log")).unwrap();
    let java_books = fs::read_to_string(&java.1).unwrap();
    let java_records = records(&fs::read(&java.0).unwrap());
    let java_coverage = Coverage::read(&fs::read_to_string(&java.2).unwrap(), PARTITIONS as usize);
    println!("java: {} records; {}", java_records.len(), java_log.lines().filter(|l| l.starts_with("STALE") ||
        l.starts_with("RECOVERED")).collect::<Vec<_>>().join("; "));
    println!("rust, from the start: {} messages; {}", first.messages, first.events.join("; "));
    println!("rust, late: {} messages; {}", late.messages, late.events.join("; "));

    // The faults happened: the late joiner joined late, everyone saw the fanout go (a new publication, or silence
    // first) and recovered from a snapshot.
    for p in 0..PARTITIONS {
        let first_stale = late.events.iter().find(|e| e.starts_with(&format!("STALE p={p} ")));
        assert!(first_stale.is_some_and(|e| e.contains("reason=LATE_JOIN")), "partition {p} joined late: {:?}", late.events);
    }
    for (who, outcome) in [("the first Rust subscriber", &first), ("the late Rust subscriber", &late)] {
        for p in 0..PARTITIONS {
            assert!(outcome.events.iter().any(|e| e.starts_with(&format!("STALE p={p} reason=NEW_PUBLICATION"))
                || e.starts_with(&format!("STALE p={p} reason=SILENT"))), "{who}: partition {p} saw the fanout go");
            assert!(outcome.events.iter().any(|e| e.starts_with(&format!("RECOVERED p={p} snapshot="))
                && !e.starts_with(&format!("RECOVERED p={p} snapshot=0 "))), "{who}: partition {p} recovered");
        }
        // SOURCE_DOWN costs no data (the fanout says so while the exchange's lines are silent, after the session's
        // end, and while a starved feed handler's heartbeat is late on a loaded machine): as Java's RecoveryTest and
        // the Python client's test, what the subscriber must end without is a data-stale reason.
        let last_event = outcome.events.iter().filter(|e| !e.contains("reason=SOURCE_DOWN")).last().expect("events");
        assert!(last_event.starts_with("RECOVERED"), "{who} ends good: {:?}", outcome.events);
    }
    assert!(java_log.contains("reason=NEW_PUBLICATION") || java_log.contains("reason=SILENT"), "Java saw the fanout go");

    // The same state, and the same messages.
    assert!(!java_books.is_empty(), "Java's books are empty");
    assert_eq!(java_books, first.books, "the books, Java and the first Rust subscriber");
    assert_eq!(java_books, late.books, "the books, Java and the late Rust subscriber");
    for (who, outcome, recording) in
        [("first", &first, work.join("rust-first.bin")), ("late", &late, work.join("rust-late.bin"))]
    {
        let coverage = Coverage::read(&outcome.coverage, PARTITIONS as usize);
        let after = check_recovered_recording(
            who,
            &records(&fs::read(recording).unwrap()),
            &coverage,
            &java_records,
            &java_coverage,
        );
        println!("rust {who}: {after} messages after its last snapshot's coverage, each Java's byte for byte");
        // How much came after the recovery depends on how long the restart took (seconds on a loaded machine).
        assert!(after > 1_000, "{who}: the session went on after the recovery: {after}");
    }
    // The subscriber that followed from the start, as Java's did: when both applied the same snapshots (they go stale
    // at the same message and subscribe within moments, so they nearly always do) their recordings are one.
    let first_coverage = Coverage::read(&first.coverage, PARTITIONS as usize);
    if first_coverage == java_coverage {
        let (java, rust) = (by_partition(&fs::read(&java.0).unwrap()), by_partition(&fs::read(work.join("rust-first.bin")).unwrap()));
        for p in 0..PARTITIONS {
            assert!(java.get(&p) == rust.get(&p), "partition {p}: the same snapshots, the recordings differ");
        }
        println!("rust first: the same snapshots as Java's, each partition's recording byte for byte Java's");
    } else {
        println!("rust first: other snapshots than Java's ({first_coverage:?} against {java_coverage:?})");
    }
    drop(processes);
    let _ = fs::remove_dir_all(&work);
}
