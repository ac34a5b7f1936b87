//! The Rust client live, beside the Java SDK's recorder: simulator -> feed handler -> fanout (bin/mdfanout, after a
//! Maven build) on loopback multicast, a standalone Java media driver both subscribers attach to; a whole session of
//! 1,000,000 messages (`MDFANOUT_LIVE_MESSAGES` changes it). The Rust recording (`MessageRecorder`) must be byte for
//! byte Java's `record --out`, the Rust books Java's `--books-out` dump, every message delivered, no gap.
#![cfg(feature = "aeron")]

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{by_partition, root, wait_for, Processes};

use mdfanout::client::{Config, FeedSubscriber};
use mdfanout::sbe::system_event_codec::SystemEventDecoder;
use mdfanout::{MarketDataListener, MessageContext, MessageRecorder, OrderBooks, Tee};

const PARTITIONS: u16 = 2;
const MESSAGES: u64 = 1_000_000;
const RATE: u64 = 200_000;
const CHANNEL: &str = "aeron:udp?endpoint=224.0.52.1:52456|interface=127.0.0.1";
const STREAM_ID_BASE: i32 = 5200;
/// Both subscribers share one media driver, so one image per stream, whose receiver window follows the slower of them
/// (docs/OPERATIONS.md, "Slow consumers"): 4 MiB terms give the driver's whole 2 MiB window (1 MiB terms: 512 KiB,
/// about 70 ms of this session's traffic per partition, for a stall of either process on a loaded machine).
const TERM_LENGTH: &str = "4194304";

/// Books, and whether each partition's session ended.
struct Recorder {
    books: OrderBooks,
    ended: Vec<bool>,
}

impl MarketDataListener for Recorder {
    fn on_system_event(&mut self, context: &MessageContext, message: SystemEventDecoder<'_>) {
        if message.event_code() as u8 == b'C' {
            self.ended[context.partition as usize] = true;
        }
    }
    fn on_add_order(&mut self, c: &MessageContext, m: mdfanout::sbe::add_order_codec::AddOrderDecoder<'_>) {
        self.books.on_add_order(c, m);
    }
    fn on_add_order_attributed(
        &mut self,
        c: &MessageContext,
        m: mdfanout::sbe::add_order_attributed_codec::AddOrderAttributedDecoder<'_>,
    ) {
        self.books.on_add_order_attributed(c, m);
    }
    fn on_order_executed(
        &mut self,
        c: &MessageContext,
        m: mdfanout::sbe::order_executed_codec::OrderExecutedDecoder<'_>,
    ) {
        self.books.on_order_executed(c, m);
    }
    fn on_order_executed_with_price(
        &mut self,
        c: &MessageContext,
        m: mdfanout::sbe::order_executed_with_price_codec::OrderExecutedWithPriceDecoder<'_>,
    ) {
        self.books.on_order_executed_with_price(c, m);
    }
    fn on_order_cancel(&mut self, c: &MessageContext, m: mdfanout::sbe::order_cancel_codec::OrderCancelDecoder<'_>) {
        self.books.on_order_cancel(c, m);
    }
    fn on_order_delete(&mut self, c: &MessageContext, m: mdfanout::sbe::order_delete_codec::OrderDeleteDecoder<'_>) {
        self.books.on_order_delete(c, m);
    }
    fn on_order_replace(
        &mut self,
        c: &MessageContext,
        m: mdfanout::sbe::order_replace_codec::OrderReplaceDecoder<'_>,
    ) {
        self.books.on_order_replace(c, m);
    }
}

#[test]
fn a_whole_session_gives_the_java_sdks_books() {
    assert!(root().join("cli/target/mdfanout.jar").exists(), "bin/mdfanout needs the Maven build (make build)");
    let work = std::env::temp_dir().join(format!("mdfanout-rust-live-{}", std::process::id()));
    fs::create_dir_all(&work).unwrap();
    let driver_dir = format!("/dev/shm/mdfanout-rust-live-driver-{}", std::process::id());
    let ring_dir = format!("/dev/shm/mdfanout-rust-live-rings-{}", std::process::id());
    let partitions = PARTITIONS.to_string();
    let stream_id_base = STREAM_ID_BASE.to_string();
    let books_out = work.join("java-books.txt");
    let java_recording = work.join("java.bin");
    let rust_recording = work.join("rust.bin");
    let messages_wanted: u64 =
        std::env::var("MDFANOUT_LIVE_MESSAGES").ok().and_then(|s| s.parse().ok()).unwrap_or(MESSAGES);
    let mut processes = Processes(Vec::new(), vec![PathBuf::from(&driver_dir), PathBuf::from(&ring_dir)]);

    processes.start("media-driver", &work, &["media-driver", "--aeron-dir", &driver_dir]);
    assert!(
        wait_for(&work.join("media-driver.log"), "media-driver", Duration::from_secs(30))
            || Path::new(&driver_dir).join("cnc.dat").exists(),
        "the media driver did not start"
    );
    let cnc = Path::new(&driver_dir).join("cnc.dat");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !cnc.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    processes.start(
        "feed-handler",
        &work,
        &["feed-handler", "--group", "239.255.52.1", "--port", "52100", "--interface", "127.0.0.1", "--ring-dir",
            &ring_dir, "--partitions", &partitions, "--ring-capacity-bytes", "4194304"],
    );
    processes.start(
        "fanout",
        &work,
        &["fanout", "--ring-dir", &ring_dir, "--partitions", &partitions, "--channel", CHANNEL, "--stream-id-base",
            &stream_id_base, "--term-length-bytes", TERM_LENGTH, "--max-orders", "65536"],
    );
    processes.start(
        "record",
        &work,
        &["record", "--aeron-dir", &driver_dir, "--channel", CHANNEL, "--stream-id-base", &stream_id_base,
            "--partitions", &partitions, "--until-end-of-messages", "--timeout-s", "120", "--books-out",
            books_out.to_str().unwrap(), "--out", java_recording.to_str().unwrap(), "--ready-file", work.join("record-ready").to_str().unwrap()],
    );

    let mut config = Config::new(CHANNEL, (0..PARTITIONS).collect());
    config.aeron_dir = Some(driver_dir.clone());
    config.stream_id_base = STREAM_ID_BASE;
    let recorder = Tee(
        Recorder { books: OrderBooks::new(), ended: vec![false; PARTITIONS as usize] },
        MessageRecorder::create(&rust_recording).expect("the Rust recording's file"),
    );
    let mut subscriber = FeedSubscriber::connect(&config, recorder).expect("the Rust client attaches");

    assert!(wait_for(&work.join("feed-handler.log"), "feed-handler: receiving line A", Duration::from_secs(60)));
    assert!(wait_for(&work.join("fanout.log"), "fanout: running", Duration::from_secs(60)));
    let deadline = Instant::now() + Duration::from_secs(60);
    while !(subscriber.is_connected() && work.join("record-ready").exists()) {
        assert!(Instant::now() < deadline, "the subscribers did not connect to the fanout");
        subscriber.poll(64);
        std::thread::sleep(Duration::from_millis(1));
    }
    let messages = messages_wanted.to_string();
    let rate = RATE.to_string();
    processes.start(
        "simulator",
        &work,
        &["simulator", "--group", "239.255.52.1", "--port", "52100", "--interface", "127.0.0.1", "--symbols", "50",
            "--seed", "7", "--rate", &rate, "--messages", &messages],
    );

    let ended = subscriber.poll_until(Duration::from_secs(120), |r| r.0.ended.iter().all(|&e| e));
    assert!(ended, "the Rust client saw no End of Messages on every partition (see {})", work.display());
    assert!(wait_for(&work.join("record.log"), "record: messages=", Duration::from_secs(60)), "Java's record did not end");
    let java_log = fs::read_to_string(work.join("record.log")).unwrap();
    let java_messages: u64 = java_log
        .split("record: messages=")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .expect("Java's message count");

    let counters = subscriber.counters().clone();
    let mut rust_books = String::new();
    subscriber.listener().0.books.dump(&mut rust_books);
    subscriber.listener().1.flush().expect("the Rust recording written");
    let java_books = fs::read_to_string(&books_out).unwrap();
    assert_eq!(0, counters.gaps, "Rust gaps");
    assert!(java_log.contains(" gaps=0 "), "Java gaps: {java_log}");
    assert_eq!(java_messages, counters.messages, "messages delivered, Java and Rust");
    // Not every ITCH message is normalized (the feed handler drops the types the wire does not carry): most are.
    assert!(counters.messages > messages_wanted * 9 / 10, "the session's messages: {}", counters.messages);
    assert_eq!(counters.messages, subscriber.listener().1.records(), "a record a message");
    let (java_bytes, rust_bytes) = (fs::read(&java_recording).unwrap(), fs::read(&rust_recording).unwrap());
    assert!(!java_bytes.is_empty(), "Java's recording is empty");
    assert_eq!(java_bytes.len(), rust_bytes.len(), "the recordings' lengths (see {})", work.display());
    // Each partition's records byte for byte; how the partitions interleave is each poll loop's own.
    let (java_partitions, rust_partitions) = (by_partition(&java_bytes), by_partition(&rust_bytes));
    assert_eq!(PARTITIONS as usize, java_partitions.len());
    for (partition, java) in &java_partitions {
        assert!(Some(java) == rust_partitions.get(partition), "partition {partition}'s records differ (see {})",
            work.display());
    }
    assert!(!java_books.is_empty(), "Java's books are empty");
    assert_eq!(java_books, rust_books, "the books, Java and Rust");

    // The media driver stops under a live client (its host's driver restarted): the client reports it and goes on,
    // where the Aeron C client's default would end the process (exit 1; it did, once, in a fresh clone's make test).
    processes.stop("media-driver");
    assert!(!subscriber.poll_until(Duration::from_secs(3), |_| false), "polled on");
    drop(subscriber);
    drop(processes);
    let _ = fs::remove_dir_all(&work);
}
