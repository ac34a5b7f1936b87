//! The Rust SDK's live client latency, as the Java `latency` tool's "from fanout send" figure measures it: for every
//! normalized message delivered live (not a snapshot's state, not a GapNotice), this host's wall clock at the
//! callback minus the packet's `sending_time` (the fanout's offer, nanoseconds since the epoch), after the first
//! `--warmup-messages` of them. Java's tool records each message, not each packet, so this does too: the three SDKs'
//! distributions weigh alike (bench/scripts/sdk-latency.sh compares them).
//!
//! Nothing is allocated on the poll path: the samples go into an array made before the first poll (`--capacity`, the
//! session's message count: a run that delivers more fails rather than grow it), sorted once at the end; the
//! percentiles are exact (Java's HdrHistogram keeps 3 significant digits, within 0.1% of these). When a poll finds
//! nothing the loop idles as the Java tools' `--idle-strategy park` does: 10 spins, then sleeps from 1 us doubling
//! up to `--idle-max-park-us` (100), never a yield.
//!
//! Prints the Java tool's summary line (`sdk_latency: from fanout send: latency count=.. p50=..us ..`) and writes
//! `--json-out` with the Java tool's keys (`from_fanout_send`: `count`, `p50_us` .. `max_us`, `mean_us`; `messages`,
//! `gaps`, `exit`), so one parser reads both. Stops at End of Messages on every partition. Exit codes as Java's:
//! 0 clean, 1 a bad option or no media driver, 2 data lost (a stream gap, a malformed packet, an exchange gap, more
//! messages than `--capacity`), 3 timeout.
//!
//!   cargo run --release --features aeron --example sdk_latency -- --aeron-dir DIR --channel CHANNEL
//!     [--stream-id-base 1000] [--partitions 4] [--warmup-messages 0] [--capacity 10000000] [--timeout-s 0]
//!     [--ready-file FILE] [--json-out FILE] [--idle-max-park-us 100] [--fragment-limit 64]

#[cfg(not(feature = "aeron"))]
fn main() {
    eprintln!("sdk_latency: needs the live client: cargo build --release --features aeron --example sdk_latency");
    std::process::exit(1);
}

#[cfg(feature = "aeron")]
fn main() {
    std::process::exit(live::main());
}

#[cfg(feature = "aeron")]
mod live {
    use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

    use mdfanout::client::{Config, FeedSubscriber};
    use mdfanout::sbe::system_event_codec::SystemEventDecoder;
    use mdfanout::{wire, MarketDataListener, MessageContext};

    /// A latency above this is recorded as this (Java's LatencyRecorder: one hour).
    const HIGHEST_TRACKABLE_NS: u64 = 3_600_000_000_000;
    const GAP_NOTICE_TEMPLATE_ID: u16 = 3;
    const SPINS: u32 = 10;
    const MIN_PARK_NS: u64 = 1_000;

    struct Options {
        aeron_dir: Option<String>,
        channel: String,
        stream_id_base: i32,
        partitions: u16,
        warmup: u64,
        capacity: usize,
        timeout: Option<Duration>,
        ready_file: Option<String>,
        json_out: Option<String>,
        max_park_ns: u64,
        fragment_limit: usize,
    }

    fn parse(args: &[String]) -> Result<Options, String> {
        let mut o = Options {
            aeron_dir: None,
            channel: String::new(),
            stream_id_base: 1000,
            partitions: 4,
            warmup: 0,
            capacity: 10_000_000,
            timeout: None,
            ready_file: None,
            json_out: None,
            max_park_ns: 100_000,
            fragment_limit: 64,
        };
        let mut i = 0;
        while i < args.len() {
            let name = args[i].as_str();
            let value = args.get(i + 1).ok_or_else(|| format!("{name} needs a value"))?;
            let number =
                |what: &str| value.parse::<u64>().map_err(|_| format!("{what} must be a number, not '{value}'"));
            match name {
                "--aeron-dir" => o.aeron_dir = Some(value.clone()),
                "--channel" => o.channel = value.clone(),
                "--stream-id-base" => {
                    o.stream_id_base =
                        value.parse().map_err(|_| format!("--stream-id-base must be a number, not '{value}'"))?
                }
                "--partitions" => {
                    o.partitions =
                        number("--partitions")?.try_into().map_err(|_| "--partitions is too large".to_string())?
                }
                "--warmup-messages" => o.warmup = number("--warmup-messages")?,
                "--capacity" => o.capacity = number("--capacity")? as usize,
                "--timeout-s" => o.timeout = Some(Duration::from_secs(number("--timeout-s")?)).filter(|t| !t.is_zero()),
                "--ready-file" => o.ready_file = Some(value.clone()),
                "--json-out" => o.json_out = Some(value.clone()),
                "--idle-max-park-us" => o.max_park_ns = number("--idle-max-park-us")?.max(1) * 1_000,
                "--fragment-limit" => o.fragment_limit = number("--fragment-limit")? as usize,
                _ => return Err(format!("unknown option {name}")),
            }
            i += 2;
        }
        if !o.channel.starts_with("aeron:") {
            return Err(format!("--channel is not an Aeron channel: '{}'", o.channel));
        }
        if o.partitions == 0 || o.capacity == 0 || o.fragment_limit == 0 {
            return Err("--partitions, --capacity and --fragment-limit must be positive".into());
        }
        Ok(o)
    }

    /// The samples, made before the first poll; and End of Messages per partition.
    struct Latency {
        samples: Vec<u64>,
        seen: u64,
        warmup: u64,
        negative: u64,
        clamped: u64,
        overflowed: u64,
        ended: Vec<bool>,
    }

    fn now_epoch_ns() -> u64 {
        SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
    }

    impl MarketDataListener for Latency {
        fn on_raw_message(&mut self, context: &MessageContext, _message: &[u8]) {
            // As Java's LatencyListener: incremental normalized messages only, not a snapshot's, not a GapNotice.
            if context.snapshot
                || GAP_NOTICE_TEMPLATE_ID == context.template_id
                || wire::normalized_block_length(context.template_id).is_none()
            {
                return;
            }
            let now = now_epoch_ns();
            self.seen += 1;
            if self.seen <= self.warmup {
                return;
            }
            let latency = now as i64 - context.sending_time as i64;
            let value = if latency < 0 {
                self.negative += 1;
                0
            } else if latency as u64 > HIGHEST_TRACKABLE_NS {
                self.clamped += 1;
                HIGHEST_TRACKABLE_NS
            } else {
                latency as u64
            };
            if self.samples.len() < self.samples.capacity() {
                self.samples.push(value); // within the capacity made up front: no allocation
            } else {
                self.overflowed += 1;
            }
        }

        fn on_system_event(&mut self, context: &MessageContext, message: SystemEventDecoder<'_>) {
            if !context.snapshot && message.event_code() as u8 == b'C' {
                if let Some(ended) = self.ended.get_mut(context.partition as usize) {
                    *ended = true;
                }
            }
        }
    }

    /// The value at a percentile of sorted samples, as HdrHistogram's getValueAtPercentile counts (the smallest value
    /// with at least that share of the samples at or below it).
    fn percentile(sorted: &[u64], p: f64) -> u64 {
        if sorted.is_empty() {
            return 0;
        }
        let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
        sorted[rank.min(sorted.len()) - 1]
    }

    pub fn main() -> i32 {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let options = match parse(&args) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("sdk_latency: {e}");
                return 1;
            }
        };
        let mut config = Config::new(&options.channel, (0..options.partitions).collect());
        config.aeron_dir = options.aeron_dir.clone();
        config.stream_id_base = options.stream_id_base;
        let listener = Latency {
            samples: Vec::with_capacity(options.capacity),
            seen: 0,
            warmup: options.warmup,
            negative: 0,
            clamped: 0,
            overflowed: 0,
            ended: vec![false; options.partitions as usize],
        };
        let mut subscriber = match FeedSubscriber::connect(&config, listener) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("sdk_latency: {e}");
                return 1;
            }
        };
        eprintln!(
            "sdk_latency: subscribed to {} partitions of {} (stream id base {}), idle park(spins={SPINS}, maxPark={}us)",
            options.partitions,
            options.channel,
            options.stream_id_base,
            options.max_park_ns / 1_000
        );

        let deadline = options.timeout.map(|t| Instant::now() + t);
        let mut ready = options.ready_file.is_none();
        let (mut idle_spins, mut park_ns) = (0u32, MIN_PARK_NS);
        let mut timed_out = false;
        loop {
            let work = subscriber.poll(options.fragment_limit);
            if !ready && subscriber.is_connected() {
                if let Some(file) = &options.ready_file {
                    if let Err(e) = std::fs::write(file, b"") {
                        eprintln!("sdk_latency: cannot write the ready file {file}: {e}");
                        return 1;
                    }
                }
                ready = true;
            }
            if subscriber.listener().ended.iter().all(|&e| e) {
                break;
            }
            if deadline.is_some_and(|d| Instant::now() > d) {
                timed_out = true;
                break;
            }
            // Idle as Agrona's BackoffIdleStrategy(10 spins, 0 yields, 1 us .. max park): the Java tools' `park`.
            if work > 0 {
                idle_spins = 0;
                park_ns = MIN_PARK_NS;
            } else if idle_spins < SPINS {
                idle_spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::sleep(Duration::from_nanos(park_ns));
                park_ns = (park_ns * 2).min(options.max_park_ns.max(MIN_PARK_NS));
            }
        }

        let counters = subscriber.counters().clone();
        let exchange_gap = (0..options.partitions as usize).any(|slot| subscriber.has_exchange_gap(slot));
        let latency = subscriber.listener();
        latency.samples.sort_unstable();
        let s = &latency.samples;
        let us = |ns: u64| ns as f64 / 1_000.0;
        let mean = if s.is_empty() { 0.0 } else { s.iter().map(|&v| v as f64).sum::<f64>() / s.len() as f64 / 1_000.0 };
        let points = [50.0, 90.0, 99.0, 99.9, 99.99].map(|p| us(percentile(s, p)));
        let max = us(s.last().copied().unwrap_or(0));
        let warmup_seen = latency.seen.min(latency.warmup);
        println!(
            "sdk_latency: from fanout send: latency count={} p50={:.1}us p90={:.1}us p99={:.1}us p99.9={:.1}us \
             p99.99={:.1}us max={:.1}us mean={:.1}us (warmup={} negative={} clamped={})",
            s.len(),
            points[0],
            points[1],
            points[2],
            points[3],
            points[4],
            max,
            mean,
            warmup_seen,
            latency.negative,
            latency.clamped
        );
        let exit = if timed_out {
            3
        } else if counters.gaps != 0 || counters.malformed != 0 || exchange_gap || latency.overflowed != 0 {
            2
        } else {
            0
        };
        println!(
            "sdk_latency: messages={} gaps={} missing={} malformed={} stale={} recoveries={} overflowed={}{}",
            counters.messages,
            counters.gaps,
            counters.missing_messages,
            counters.malformed,
            counters.stale_events,
            counters.recoveries,
            latency.overflowed,
            if timed_out { " (timed out)" } else { "" }
        );
        if latency.overflowed != 0 {
            eprintln!(
                "sdk_latency: {} messages beyond --capacity {} were not recorded",
                latency.overflowed, options.capacity
            );
        }
        if let Some(file) = &options.json_out {
            let names = ["p50", "p90", "p99", "p99_9", "p99_99"];
            let mut percentiles = format!("\"count\":{}", s.len());
            for (name, value) in names.iter().zip(points) {
                percentiles.push_str(&format!(",\"{name}_us\":{value:.3}"));
            }
            percentiles.push_str(&format!(",\"max_us\":{max:.3},\"mean_us\":{mean:.3}"));
            let json = format!(
                "{{\"system\":\"rust\",\"warmup\":{warmup_seen},\"negative\":{},\"clamped\":{},\"messages\":{},\"gaps\":{},\
                 \"missing\":{},\"recoveries\":{},\"exit\":{exit},\"from_fanout_send\":{{{percentiles}}}}}\n",
                latency.negative, latency.clamped, counters.messages, counters.gaps, counters.missing_messages, counters.recoveries
            );
            if let Err(e) = std::fs::write(file, json) {
                eprintln!("sdk_latency: cannot write {file}: {e}");
                return 1;
            }
        }
        exit
    }
}
