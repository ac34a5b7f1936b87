//! The Rust client on a pair, beside the Java SDK's recorder: two complete chains (each its own feed handler on lines
//! A and B with the simulator's re-request server, its own rings and fanout, its own multicast group), one Java media
//! driver for the subscribers. Side A's fanout is killed with -9 a third of the way in and started again, side B's
//! later: each subscriber takes what one side lacks from the other, so the Rust subscriber is never stale, applies no
//! snapshot, its recording is byte for byte Java's (every message at its chain position, once) and its books Java's;
//! both sides delivered messages and both sent copies the other had delivered (each covered the other).
#![cfg(feature = "aeron")]

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{by_partition, root, simulator_progress, wait_for, Processes, Watch};
use mdfanout::client::{Config, FeedSubscriber};
use mdfanout::{MessageRecorder, OrderBooks, Tee};

const PARTITIONS: u16 = 2;
const MESSAGES: u64 = 300_000;
const RATE: u64 = 20_000;
const CHANNEL_A: &str = "aeron:udp?endpoint=224.0.58.1:58000|interface=127.0.0.1";
const CHANNEL_B: &str = "aeron:udp?endpoint=224.0.58.3:58200|interface=127.0.0.1";
const BASE_A: i32 = 5810;
const BASE_B: i32 = 5910;
const LINES: [&str; 10] = ["--group", "239.255.58.1", "--port", "58101", "--interface", "127.0.0.1", "--group-b",
    "239.255.58.3", "--port-b", "58103"];

fn side_args<'a>(ring_dir: &'a str, partitions: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["feed-handler", "--ring-dir", ring_dir, "--partitions", partitions, "--gap-wait-ms", "5",
        "--retransmit-server", "127.0.0.1:58150"];
    args.extend_from_slice(&LINES);
    args.extend_from_slice(extra);
    args
}

#[test]
fn a_pair_covers_each_sides_fanout_killed_with_minus_9_as_java_does() {
    assert!(root().join("cli/target/mdfanout.jar").exists(), "bin/mdfanout needs the Maven build (make build)");
    let work = std::env::temp_dir().join(format!("mdfanout-rust-pair-{}", std::process::id()));
    fs::create_dir_all(&work).unwrap();
    let pid = std::process::id();
    let driver_dir = format!("/dev/shm/mdfanout-rust-pair-driver-{pid}");
    let (rings_a, rings_b) = (format!("/dev/shm/mdfanout-rust-pair-rings-a-{pid}"), format!("/dev/shm/mdfanout-rust-pair-rings-b-{pid}"));
    let partitions = PARTITIONS.to_string();
    let (base_a, base_b) = (BASE_A.to_string(), BASE_B.to_string());
    let java = (work.join("java.bin"), work.join("java-books.txt"));
    let rust_recording = work.join("rust.bin");
    let mut processes = Processes(
        Vec::new(),
        vec![PathBuf::from(&driver_dir), PathBuf::from(&rings_a), PathBuf::from(&rings_b)],
    );

    processes.start("media-driver", &work, &["media-driver", "--aeron-dir", &driver_dir]);
    let deadline = Instant::now() + Duration::from_secs(30);
    while !Path::new(&driver_dir).join("cnc.dat").exists() {
        assert!(Instant::now() < deadline, "the media driver did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    processes.start("feed-handler-a", &work, &side_args(&rings_a, &partitions, &[]));
    processes.start("feed-handler-b", &work, &side_args(&rings_b, &partitions, &[]));
    let fanout = |rings: &'static str, channel: &'static str, base: &'static str| -> Vec<&'static str> {
        vec!["fanout", "--ring-dir", rings, "--partitions", "2", "--channel", channel, "--stream-id-base", base,
            "--term-length-bytes", "4194304", "--max-orders", "65536", "--snapshot-interval-ms", "1000"]
    };
    let (rings_a_static, rings_b_static): (&'static str, &'static str) =
        (Box::leak(rings_a.clone().into_boxed_str()), Box::leak(rings_b.clone().into_boxed_str()));
    let (base_a_static, base_b_static): (&'static str, &'static str) =
        (Box::leak(base_a.clone().into_boxed_str()), Box::leak(base_b.clone().into_boxed_str()));
    let fanout_a = fanout(rings_a_static, CHANNEL_A, base_a_static);
    let fanout_b = fanout(rings_b_static, CHANNEL_B, base_b_static);
    processes.start("fanout-a", &work, &fanout_a);
    processes.start("fanout-b", &work, &fanout_b);
    processes.start(
        "record",
        &work,
        &["record", "--aeron-dir", &driver_dir, "--channel", CHANNEL_A, "--stream-id-base", &base_a, "--pair-channel",
            CHANNEL_B, "--pair-stream-id-base", &base_b, "--partitions", &partitions, "--until-end-of-messages",
            "--timeout-s", "150", "--books-out", java.1.to_str().unwrap(), "--out", java.0.to_str().unwrap(),
            "--ready-file", work.join("record-ready").to_str().unwrap()],
    );

    let mut config = Config::new(CHANNEL_A, (0..PARTITIONS).collect());
    config.aeron_dir = Some(driver_dir.clone());
    config.stream_id_base = BASE_A;
    config.pair_channel = Some(CHANNEL_B.into());
    config.pair_stream_id_base = Some(BASE_B);
    let listener = Tee(
        OrderBooks::new(),
        Tee(Watch::new(PARTITIONS), MessageRecorder::create(&rust_recording).unwrap()),
    );
    let mut subscriber = FeedSubscriber::connect(&config, listener).expect("the Rust client attaches to both sides");
    for log in ["feed-handler-a", "feed-handler-b"] {
        assert!(wait_for(&work.join(format!("{log}.log")), "feed-handler: receiving line A", Duration::from_secs(60)));
    }
    for log in ["fanout-a", "fanout-b"] {
        assert!(wait_for(&work.join(format!("{log}.log")), "fanout: running", Duration::from_secs(60)), "{log}");
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    while !(subscriber.is_connected() && work.join("record-ready").exists()) {
        assert!(Instant::now() < deadline, "the subscribers did not connect to both sides");
        subscriber.poll(64);
        std::thread::sleep(Duration::from_millis(1));
    }
    let (messages, rate) = (MESSAGES.to_string(), RATE.to_string());
    processes.start_with_heap(
        "simulator",
        &work,
        &[&["simulator", "--stats-interval-s", "1"][..], &LINES[..], &["--symbols", "50", "--seed", "13", "--rate",
            &rate, "--messages", &messages, "--retransmit-port", "58150", "--linger-ms", "10000"][..]]
            .concat(),
        "512m",
    );

    // Side A's fanout killed with -9 a third of the way in, started again; side B's at two thirds. The client is
    // polled throughout: between the faults, while waiting for the simulator.
    let poll_while = |subscriber: &mut FeedSubscriber<_>, done: &mut dyn FnMut() -> bool, what: &str| {
        let deadline = Instant::now() + Duration::from_secs(120);
        while !done() {
            assert!(Instant::now() < deadline, "timed out: {what}");
            if 0 == subscriber.poll(64) {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
    };
    let simulator_log = work.join("simulator.log");
    for (fault, at, name, args) in [("side A", MESSAGES / 3, "fanout-a", &fanout_a), ("side B", MESSAGES * 2 / 3, "fanout-b", &fanout_b)] {
        poll_while(&mut subscriber, &mut || simulator_progress(&simulator_log) >= at, "the simulator's progress (simulator.log)");
        processes.kill9(name);
        let until = Instant::now() + Duration::from_millis(1_000);
        poll_while(&mut subscriber, &mut || Instant::now() >= until, "a second");
        let restarted = format!("{name}-restarted");
        processes.start(&restarted, &work, args);
        println!("{fault}'s fanout killed with -9 at {} messages, started again", simulator_progress(&simulator_log));
        let log = work.join(format!("{restarted}.log"));
        poll_while(&mut subscriber, &mut || fs::read_to_string(&log).unwrap_or_default().contains("fanout: running"), "the restart");
    }
    let ended = subscriber.poll_until(Duration::from_secs(120), |l| l.1 .0.ended.iter().all(|&e| e));
    assert!(ended, "the Rust client saw End of Messages on every partition (see {})", work.display());
    assert!(wait_for(&work.join("record.log"), "record: messages=", Duration::from_secs(60)), "Java's record did not end");

    let counters = subscriber.counters().clone();
    subscriber.listener().1 .1.flush().expect("the Rust recording");
    let mut rust_books = String::new();
    subscriber.listener().0.dump(&mut rust_books);
    let events = std::mem::take(&mut subscriber.listener().1 .0.events);
    let java_log = fs::read_to_string(work.join("record.log")).unwrap();
    println!("rust: {} messages, sides {:?}, events {events:?}", counters.messages, counters.sides);
    println!("java: {}", java_log.lines().filter(|l| l.contains("record: messages=")).collect::<Vec<_>>().join(""));

    // The faults were covered: never stale, no snapshot, no gap; each side delivered and each sent duplicates.
    assert!(events.is_empty(), "the Rust subscriber was never stale: {events:?}");
    assert_eq!((0, 0, 0), (counters.gaps, counters.snapshots_applied, counters.stale_events), "{counters:?}");
    for (name, side) in ["A", "B"].iter().zip(counters.sides.iter()) {
        assert!(side.messages > 0 && side.duplicates > 0, "side {name} delivered and was covered: {side:?}");
        assert_eq!((0, 0), (side.refused, side.mismatches), "side {name} agreed: {side:?}");
    }
    assert!(!java_log.contains("STALE "), "Java was never stale either");
    let java_books = fs::read_to_string(&java.1).unwrap();
    assert!(!java_books.is_empty());
    assert_eq!(java_books, rust_books, "the books, Java and Rust");
    let (java_partitions, rust_partitions) =
        (by_partition(&fs::read(&java.0).unwrap()), by_partition(&fs::read(&rust_recording).unwrap()));
    assert_eq!(PARTITIONS as usize, java_partitions.len());
    for (partition, java) in &java_partitions {
        assert!(Some(java) == rust_partitions.get(partition), "partition {partition}'s records differ (see {})", work.display());
    }
    drop(subscriber);
    drop(processes);
    let _ = fs::remove_dir_all(&work);
}
