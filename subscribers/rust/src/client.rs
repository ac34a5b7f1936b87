//! The live client (feature `aeron`): one Aeron subscription per partition's incremental stream, polled into a
//! [`PacketStreamDecoder`], through the Aeron C client (`rusteron-client`). The media driver is the host's (a Java
//! `mdfanout media-driver`, or any Aeron driver): the client attaches to its directory.
//!
//! Recovery (on by default, as in the Java SDK): a late join, a gap, a new publication or a silent stream makes the
//! partition stale; the client then subscribes to the partition's snapshot stream (without blocking the poll), hands
//! its messages to the decoder's recovery until a snapshot was applied, and closes that subscription again.

use std::ffi::CString;
use std::time::{Duration, Instant};

use rusteron_client::{Aeron, AeronAsyncAddSubscription, AeronContext, AeronSubscription, IntoCString};

use crate::counters::SubscriberCounters;
use crate::decoder::PacketStreamDecoder;
use crate::listener::{MarketDataListener, StaleReason};

/// The recovery buffer per partition unless configured (the Java SDK's default).
pub const DEFAULT_RECOVERY_BUFFER_BYTES: usize = 16 * 1024 * 1024;
/// The smallest recovery buffer accepted: it must hold the largest Aeron message.
pub const MIN_RECOVERY_BUFFER_BYTES: usize = 64 * 1024;
/// The largest recovery buffer accepted.
pub const MAX_RECOVERY_BUFFER_BYTES: usize = 1024 * 1024 * 1024;
/// The fanout's snapshot streams are at its stream id base plus this unless configured (Java's
/// `Partitioning.DEFAULT_SNAPSHOT_STREAM_ID_OFFSET`).
pub const DEFAULT_SNAPSHOT_STREAM_ID_OFFSET: i32 = 10_000;
/// A joined stream from which nothing, not even a heartbeat, arrived for this long is silent.
pub const DEFAULT_SILENT_TIMEOUT: Duration = Duration::from_secs(2);

/// Where the feed is and which of its partitions to receive.
#[derive(Clone, Debug)]
pub struct Config {
    /// The media driver's directory (`--aeron-dir` of the Java tools); None: Aeron's default.
    pub aeron_dir: Option<String>,
    /// The fanout's channel, e.g. `aeron:udp?endpoint=224.0.1.1:40456|interface=127.0.0.1`.
    pub channel: String,
    /// Stream id of partition 0; partition p is on `stream_id_base + p` (the fanout's `--stream-id-base`).
    pub stream_id_base: i32,
    /// The partitions to receive.
    pub partitions: Vec<u16>,
    /// How long to wait for each subscription to be registered with the driver.
    pub connect_timeout: Duration,
    /// Recover late joins, gaps and restarts from the snapshot streams; off: gaps are only reported.
    pub recovery: bool,
    /// The snapshot streams' channel; None: the incremental channel.
    pub snapshot_channel: Option<String>,
    /// Stream id of partition 0's snapshot stream; None: `stream_id_base` + [`DEFAULT_SNAPSHOT_STREAM_ID_OFFSET`].
    pub snapshot_stream_id_base: Option<i32>,
    /// What each partition may hold back while it recovers (made on its first recovery).
    pub recovery_buffer_bytes: usize,
    /// How long a joined stream may be silent before it is stale.
    pub silent_timeout: Duration,
}

impl Config {
    /// A configuration with the fanout's defaults for the rest (stream id base 1000, 5 s to register).
    pub fn new(channel: &str, partitions: Vec<u16>) -> Self {
        Self {
            aeron_dir: None,
            channel: channel.to_string(),
            stream_id_base: 1000,
            partitions,
            connect_timeout: Duration::from_secs(5),
            recovery: true,
            snapshot_channel: None,
            snapshot_stream_id_base: None,
            recovery_buffer_bytes: DEFAULT_RECOVERY_BUFFER_BYTES,
            silent_timeout: DEFAULT_SILENT_TIMEOUT,
        }
    }

    /// The snapshot stream id of a partition.
    pub fn snapshot_stream_id(&self, partition: u16) -> i32 {
        self.snapshot_stream_id_base.unwrap_or(self.stream_id_base + DEFAULT_SNAPSHOT_STREAM_ID_OFFSET) + partition as i32
    }

    /// Check the configuration: a clear error for each wrong value.
    pub fn validate(&self) -> Result<(), String> {
        if self.partitions.is_empty() {
            return Err("at least one partition".into());
        }
        let mut seen = self.partitions.clone();
        seen.sort_unstable();
        if seen.windows(2).any(|w| w[0] == w[1]) {
            return Err(format!("partitions must be distinct: {:?}", self.partitions));
        }
        if self.recovery && !(MIN_RECOVERY_BUFFER_BYTES..=MAX_RECOVERY_BUFFER_BYTES).contains(&self.recovery_buffer_bytes)
        {
            return Err(format!(
                "recovery buffer must be {MIN_RECOVERY_BUFFER_BYTES}..{MAX_RECOVERY_BUFFER_BYTES} bytes: {}",
                self.recovery_buffer_bytes
            ));
        }
        if self.silent_timeout.is_zero() {
            return Err("silent timeout must be positive".into());
        }
        if let Some(channel) = &self.snapshot_channel {
            if !channel.starts_with("aeron:") {
                return Err(format!("snapshot channel is not an Aeron channel: {channel}"));
            }
        }
        Ok(())
    }
}

/// One partition's snapshot stream while it recovers: being added, then polled; closed once it is live again.
enum SnapshotSubscription {
    None,
    Adding(AeronAsyncAddSubscription),
    Ready(AeronSubscription),
}

/// What the client keeps per partition beside the decoder: liveness and the snapshot stream.
struct Slot {
    last_activity: Instant,
    silent: bool,
    snapshot_stream_id: i32,
    snapshot: SnapshotSubscription,
}

/// A subscriber of a feed's partitions, polled from the application's own thread.
pub struct FeedSubscriber<L: MarketDataListener> {
    subscriptions: Vec<AeronSubscription>,
    slots: Vec<Slot>,
    snapshot_channel: CString,
    silent_timeout: Duration,
    decoder: PacketStreamDecoder<L>,
    aeron: Aeron,
    _context: AeronContext,
}

impl<L: MarketDataListener> FeedSubscriber<L> {
    /// Attach to the media driver and subscribe to every partition's stream.
    pub fn connect(config: &Config, listener: L) -> Result<Self, String> {
        config.validate()?;
        let error = |what: &str, e: &dyn std::fmt::Display| format!("{what}: {e}");
        let context = AeronContext::new().map_err(|e| error("aeron context", &e))?;
        // The C client's default error handler exits the process (a driver that stops, a timeout): a subscriber must
        // never die of what it receives or of its driver, so errors are reported and the client goes on.
        context
            .set_error_handler(Some(|code: i32, message: &str| eprintln!("mdfanout client: aeron error {code}: {message}")))
            .map_err(|e| error("aeron error handler", &e))?;
        if let Some(dir) = &config.aeron_dir {
            context.set_dir(&dir.clone().into_c_string()).map_err(|e| error("aeron dir", &e))?;
        }
        // Aeron::new already looks for the driver (its CnC file, for the driver timeout): either step failing means no
        // media driver answers in that directory.
        let attach = |e: &dyn std::fmt::Display| {
            format!("cannot attach to the media driver in {}: {e}", config.aeron_dir.as_deref().unwrap_or("the default directory"))
        };
        let aeron = Aeron::new(&context).map_err(|e| attach(&e))?;
        aeron.start().map_err(|e| attach(&e))?;
        let channel = CString::new(config.channel.as_str()).map_err(|e| error("channel", &e))?;
        let mut subscriptions = Vec::with_capacity(config.partitions.len());
        for &partition in &config.partitions {
            let stream_id = config.stream_id_base + partition as i32;
            let subscription = aeron
                .async_add_subscription(&channel, stream_id, rusteron_client::Handlers::NONE, rusteron_client::Handlers::NONE)
                .map_err(|e| error("add subscription", &e))?
                .poll_blocking(config.connect_timeout)
                .map_err(|e| format!("subscription to {} stream {stream_id}: {e}", config.channel))?;
            subscriptions.push(subscription);
        }
        let decoder = if config.recovery {
            PacketStreamDecoder::with_recovery(&config.partitions, config.recovery_buffer_bytes, listener)
        } else {
            PacketStreamDecoder::new(&config.partitions, listener)
        };
        let snapshot_channel = CString::new(config.snapshot_channel.as_deref().unwrap_or(&config.channel))
            .map_err(|e| error("snapshot channel", &e))?;
        let now = Instant::now();
        let slots = config
            .partitions
            .iter()
            .map(|&p| Slot {
                last_activity: now,
                silent: false,
                snapshot_stream_id: config.snapshot_stream_id(p),
                snapshot: SnapshotSubscription::None,
            })
            .collect();
        Ok(Self {
            subscriptions,
            slots,
            snapshot_channel,
            silent_timeout: config.silent_timeout,
            decoder,
            aeron,
            _context: context,
        })
    }

    /// Poll every partition's stream once, at most `fragment_limit` messages each, and move each recovery on: the
    /// work done (messages received, subscriptions changed).
    pub fn poll(&mut self, fragment_limit: usize) -> usize {
        let now = Instant::now();
        let mut work = 0;
        for slot in 0..self.subscriptions.len() {
            let decoder = &mut self.decoder;
            let polled = self.subscriptions[slot]
                .poll_fn(
                    |buffer, header| {
                        let session_id = header.get_values().map(|v| v.frame().session_id()).unwrap_or(0);
                        decoder.on_message(slot, session_id, buffer);
                    },
                    fragment_limit,
                )
                .unwrap_or(0) as usize;
            work += polled;
            self.check_liveness(slot, polled, now);
            work += self.recover(slot, fragment_limit);
        }
        work
    }

    /// Silence: a joined stream from which nothing arrived for the silent timeout is stale (its data may have been
    /// lost with the publisher), once per silence.
    fn check_liveness(&mut self, slot: usize, polled: usize, now: Instant) {
        let state = &mut self.slots[slot];
        if 0 != polled {
            state.last_activity = now;
            state.silent = false;
        } else if !state.silent && self.decoder.is_joined(slot) && now - state.last_activity >= self.silent_timeout {
            state.silent = true;
            self.decoder.mark_stale(slot, StaleReason::Silent);
        }
    }

    /// A recovering partition's snapshot stream: added without blocking the poll, polled into the decoder's recovery,
    /// closed once the partition is live again.
    fn recover(&mut self, slot: usize, fragment_limit: usize) -> usize {
        let recovering = self.decoder.is_recovering(slot);
        let state = &mut self.slots[slot];
        match (&state.snapshot, recovering) {
            (SnapshotSubscription::None, false) => 0,
            (SnapshotSubscription::None, true) => {
                match self.aeron.async_add_subscription(
                    &self.snapshot_channel,
                    state.snapshot_stream_id,
                    rusteron_client::Handlers::NONE,
                    rusteron_client::Handlers::NONE,
                ) {
                    Ok(adding) => state.snapshot = SnapshotSubscription::Adding(adding),
                    Err(e) => eprintln!("mdfanout client: snapshot stream {}: {e}", state.snapshot_stream_id),
                }
                1
            }
            (SnapshotSubscription::Adding(adding), _) => match adding.poll() {
                Ok(Some(subscription)) => {
                    state.snapshot = SnapshotSubscription::Ready(subscription);
                    1
                }
                Ok(None) => 0,
                Err(e) => {
                    // The driver refused it (e.g. a bad snapshot channel): counted, reported, tried again.
                    self.decoder.counters_mut().subscription_errors += 1;
                    eprintln!("mdfanout client: snapshot stream {}: {e}", state.snapshot_stream_id);
                    state.snapshot = SnapshotSubscription::None;
                    0
                }
            },
            (SnapshotSubscription::Ready(_), false) => {
                if let SnapshotSubscription::Ready(subscription) =
                    std::mem::replace(&mut state.snapshot, SnapshotSubscription::None)
                {
                    let _ = subscription.close();
                }
                1
            }
            (SnapshotSubscription::Ready(subscription), true) => {
                let decoder = &mut self.decoder;
                subscription
                    .poll_fn(
                        |buffer, header| {
                            let session_id = header.get_values().map(|v| v.frame().session_id()).unwrap_or(0);
                            decoder.on_snapshot_message(slot, session_id, buffer);
                        },
                        fragment_limit,
                    )
                    .unwrap_or(0) as usize
            }
        }
    }

    /// Whether every partition's subscription has a publisher's image.
    pub fn is_connected(&self) -> bool {
        self.subscriptions.iter().all(|s| s.is_connected())
    }

    /// Poll until `done` says so or the deadline passes: true when done.
    pub fn poll_until(&mut self, timeout: Duration, mut done: impl FnMut(&mut L) -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if 0 == self.poll(64) {
                if done(self.decoder.listener()) {
                    return true;
                }
                std::thread::sleep(Duration::from_micros(100));
            }
        }
        done(self.decoder.listener())
    }

    pub fn listener(&mut self) -> &mut L {
        self.decoder.listener()
    }

    pub fn counters(&self) -> &SubscriberCounters {
        self.decoder.counters()
    }

    /// Whether the partition in the slot is good: joined, not recovering, its source live.
    pub fn is_good(&self, slot: usize) -> bool {
        self.decoder.is_good(slot)
    }

    /// The decoder the client feeds (its recovery states, its expected sequences).
    pub fn decoder(&self) -> &PacketStreamDecoder<L> {
        &self.decoder
    }
}
