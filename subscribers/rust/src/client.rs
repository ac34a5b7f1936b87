//! The live client (feature `aeron`): one Aeron subscription per partition's incremental stream (two for a pair: one
//! per side), polled into a [`PacketStreamDecoder`] (a [`PairStreamDecoder`] for a pair), through the Aeron C client
//! (`rusteron-client`). The media driver is the host's (a Java `mdfanout media-driver`, or any Aeron driver): the
//! client attaches to its directory.
//!
//! Recovery (on by default, as in the Java SDK): a late join, a gap, a new publication or a silent stream makes the
//! partition stale; the client then subscribes to the partition's snapshot stream (each side's, for a pair), without
//! blocking the poll, hands its messages to the decoder's recovery until a snapshot was applied, and closes that
//! subscription again. A pair ([`Config::pair_channel`]): a message reaches the listener once, from the side that had
//! it first; one side's loss, restart or silence is no staleness.

use std::ffi::CString;
use std::time::{Duration, Instant};

use rusteron_client::{Aeron, AeronAsyncAddSubscription, AeronContext, AeronSubscription, IntoCString};

use crate::counters::SubscriberCounters;
use crate::decoder::PacketStreamDecoder;
use crate::listener::{MarketDataListener, StaleReason};
use crate::pair::{PairStreamDecoder, DEFAULT_ARBITRATION_WAIT_NS};

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
    /// A pair: side B's channel (side A's is `channel`); None for one fanout.
    pub pair_channel: Option<String>,
    /// Side B's stream id base; None: the same as side A's.
    pub pair_stream_id_base: Option<i32>,
    /// Side B's snapshot channel; None: side B's channel.
    pub pair_snapshot_channel: Option<String>,
    /// Side B's snapshot stream id base; None: its stream id base + [`DEFAULT_SNAPSHOT_STREAM_ID_OFFSET`].
    pub pair_snapshot_stream_id_base: Option<i32>,
    /// A pair: how long a message one side lacks waits for the other before it is a gap.
    pub arbitration_wait: Duration,
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
            pair_channel: None,
            pair_stream_id_base: None,
            pair_snapshot_channel: None,
            pair_snapshot_stream_id_base: None,
            arbitration_wait: Duration::from_nanos(DEFAULT_ARBITRATION_WAIT_NS as u64),
        }
    }

    /// The sides: 1 for one fanout, 2 for a pair.
    pub fn side_count(&self) -> usize {
        if self.pair_channel.is_some() {
            2
        } else {
            1
        }
    }

    /// A side's incremental channel and stream id base.
    fn side_stream(&self, side: usize) -> (&str, i32) {
        match side {
            0 => (&self.channel, self.stream_id_base),
            _ => (self.pair_channel.as_deref().unwrap_or(&self.channel), self.pair_stream_id_base.unwrap_or(self.stream_id_base)),
        }
    }

    /// A side's snapshot channel and the snapshot stream id of a partition.
    fn side_snapshot_stream(&self, side: usize, partition: u16) -> (&str, i32) {
        match side {
            0 => (self.snapshot_channel.as_deref().unwrap_or(&self.channel), self.snapshot_stream_id(partition)),
            _ => {
                let (channel, base) = self.side_stream(1);
                let snapshot_base = self.pair_snapshot_stream_id_base.unwrap_or(base + DEFAULT_SNAPSHOT_STREAM_ID_OFFSET);
                (self.pair_snapshot_channel.as_deref().unwrap_or(channel), snapshot_base + partition as i32)
            }
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
        for (name, channel) in [
            ("channel", Some(&self.channel)),
            ("snapshot channel", self.snapshot_channel.as_ref()),
            ("pair channel", self.pair_channel.as_ref()),
            ("pair snapshot channel", self.pair_snapshot_channel.as_ref()),
        ] {
            if let Some(channel) = channel.filter(|c| !c.starts_with("aeron:")) {
                return Err(format!("{name} is not an Aeron channel: {channel}"));
            }
        }
        if self.pair_channel.is_none()
            && (self.pair_stream_id_base.is_some()
                || self.pair_snapshot_channel.is_some()
                || self.pair_snapshot_stream_id_base.is_some())
        {
            return Err("side B's stream ids or snapshot channel without a pair channel".into());
        }
        if self.pair_channel.as_deref() == Some(self.channel.as_str())
            && self.pair_stream_id_base.unwrap_or(self.stream_id_base) == self.stream_id_base
        {
            return Err(format!(
                "a pair's sides on the same channel and stream ids ({}, {}): one side twice is no pair",
                self.channel, self.stream_id_base
            ));
        }
        if self.arbitration_wait > Duration::from_secs(60) {
            return Err(format!("arbitration wait must be at most 60 s: {:?}", self.arbitration_wait));
        }
        Ok(())
    }
}

/// One side's snapshot stream of a partition while it recovers: being added, then polled; closed once it is live.
enum SnapshotSubscription {
    None,
    Adding(AeronAsyncAddSubscription),
    Ready(AeronSubscription),
}

/// One side's streams of one partition.
struct SideStreams {
    incremental: AeronSubscription,
    snapshot_channel: CString,
    snapshot_stream_id: i32,
    snapshot: SnapshotSubscription,
}

/// What the client keeps per partition beside the decoder: its sides' streams and its liveness.
struct Slot {
    sides: Vec<SideStreams>,
    last_activity: Instant,
    silent: bool,
}

/// One fanout's decoder, or a pair's.
enum Decoder<L: MarketDataListener> {
    One(PacketStreamDecoder<L>),
    Pair(PairStreamDecoder<L>),
}

impl<L: MarketDataListener> Decoder<L> {
    fn listener(&mut self) -> &mut L {
        match self {
            Decoder::One(d) => d.listener(),
            Decoder::Pair(d) => d.listener(),
        }
    }

    fn counters(&self) -> &SubscriberCounters {
        match self {
            Decoder::One(d) => d.counters(),
            Decoder::Pair(d) => d.counters(),
        }
    }

    fn counters_mut(&mut self) -> &mut SubscriberCounters {
        match self {
            Decoder::One(d) => d.counters_mut(),
            Decoder::Pair(d) => d.counters_mut(),
        }
    }

    fn has_exchange_gap(&self, slot: usize) -> bool {
        match self {
            Decoder::One(d) => d.has_exchange_gap(slot),
            Decoder::Pair(d) => d.has_exchange_gap(slot),
        }
    }

    fn is_recovering(&self, slot: usize) -> bool {
        match self {
            Decoder::One(d) => d.is_recovering(slot),
            Decoder::Pair(d) => d.is_recovering(slot),
        }
    }

    fn is_good(&self, slot: usize) -> bool {
        match self {
            Decoder::One(d) => d.is_good(slot),
            Decoder::Pair(d) => d.is_good(slot),
        }
    }

    fn on_message(&mut self, slot: usize, side: usize, session_id: i32, buffer: &[u8]) {
        match self {
            Decoder::One(d) => d.on_message(slot, session_id, buffer),
            Decoder::Pair(d) => d.on_message(slot, side, buffer),
        }
    }

    fn on_snapshot_message(&mut self, slot: usize, side: usize, session_id: i32, buffer: &[u8]) {
        match self {
            Decoder::One(d) => d.on_snapshot_message(slot, session_id, buffer),
            Decoder::Pair(d) => d.on_snapshot_message(slot, side, session_id, buffer),
        }
    }
}

/// A subscriber of a feed's partitions (of one fanout, or of a pair's two sides), polled from the application's own
/// thread.
pub struct FeedSubscriber<L: MarketDataListener> {
    slots: Vec<Slot>,
    silent_timeout: Duration,
    started: Instant,
    decoder: Decoder<L>,
    aeron: Aeron,
    _context: AeronContext,
}

impl<L: MarketDataListener> FeedSubscriber<L> {
    /// Attach to the media driver and subscribe to every partition's stream (each side's, for a pair).
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
        let now = Instant::now();
        let mut slots = Vec::with_capacity(config.partitions.len());
        for &partition in &config.partitions {
            let mut sides = Vec::with_capacity(config.side_count());
            for side in 0..config.side_count() {
                let (channel, base) = config.side_stream(side);
                let stream_id = base + partition as i32;
                let c_channel = CString::new(channel).map_err(|e| error("channel", &e))?;
                let incremental = aeron
                    .async_add_subscription(&c_channel, stream_id, rusteron_client::Handlers::NONE, rusteron_client::Handlers::NONE)
                    .map_err(|e| error("add subscription", &e))?
                    .poll_blocking(config.connect_timeout)
                    .map_err(|e| format!("subscription to {channel} stream {stream_id}: {e}"))?;
                let (snapshot_channel, snapshot_stream_id) = config.side_snapshot_stream(side, partition);
                sides.push(SideStreams {
                    incremental,
                    snapshot_channel: CString::new(snapshot_channel).map_err(|e| error("snapshot channel", &e))?,
                    snapshot_stream_id,
                    snapshot: SnapshotSubscription::None,
                });
            }
            slots.push(Slot { sides, last_activity: now, silent: false });
        }
        let decoder = match (config.side_count(), config.recovery) {
            (1, true) => Decoder::One(PacketStreamDecoder::with_recovery(&config.partitions, config.recovery_buffer_bytes, listener)),
            (1, false) => Decoder::One(PacketStreamDecoder::new(&config.partitions, listener)),
            (_, recovery) => {
                let wait = config.arbitration_wait.as_nanos() as i64;
                Decoder::Pair(if recovery {
                    PairStreamDecoder::with_recovery(&config.partitions, wait, config.recovery_buffer_bytes, listener)
                } else {
                    PairStreamDecoder::new(&config.partitions, wait, listener)
                })
            }
        };
        Ok(Self {
            slots,
            silent_timeout: config.silent_timeout,
            started: now,
            decoder,
            aeron,
            _context: context,
        })
    }

    /// Poll every partition's streams once, at most `fragment_limit` messages each, and move each recovery (and a
    /// pair's waits) on: the work done (messages received, subscriptions changed).
    pub fn poll(&mut self, fragment_limit: usize) -> usize {
        let now = Instant::now();
        let mut work = 0;
        for slot in 0..self.slots.len() {
            let mut polled = 0;
            for side in 0..self.slots[slot].sides.len() {
                let decoder = &mut self.decoder;
                polled += self.slots[slot].sides[side]
                    .incremental
                    .poll_fn(
                        |buffer, header| {
                            let session_id = header.get_values().map(|v| v.frame().session_id()).unwrap_or(0);
                            decoder.on_message(slot, side, session_id, buffer);
                        },
                        fragment_limit,
                    )
                    .unwrap_or(0) as usize;
            }
            work += polled;
            if let Decoder::One(_) = self.decoder {
                self.check_liveness(slot, polled, now);
            }
            for side in 0..self.slots[slot].sides.len() {
                work += self.recover(slot, side, fragment_limit);
            }
        }
        if let Decoder::Pair(pair) = &mut self.decoder {
            // the pair's waits, and each side's silence, on the time since the client started
            let now_ns = (now - self.started).as_nanos() as i64;
            pair.do_work(now_ns, self.silent_timeout.as_nanos() as i64);
        }
        work
    }

    /// Silence: a joined stream from which nothing arrived for the silent timeout is stale (its data may have been
    /// lost with the publisher), once per silence. (A pair watches each side's silence itself.)
    fn check_liveness(&mut self, slot: usize, polled: usize, now: Instant) {
        let Decoder::One(decoder) = &mut self.decoder else {
            return;
        };
        let state = &mut self.slots[slot];
        let partition = decoder.partition(slot);
        if 0 != polled {
            state.last_activity = now;
            if state.silent {
                state.silent = false;
                decoder.listener().on_stream_active(partition);
            }
        } else if !state.silent && decoder.is_joined(slot) && now - state.last_activity >= self.silent_timeout {
            state.silent = true;
            decoder.counters_mut().silent_streams += 1;
            decoder.listener().on_stream_silent(partition, (now - state.last_activity).as_nanos() as u64);
            decoder.mark_stale(slot, StaleReason::Silent);
        }
    }

    /// A recovering partition's snapshot stream of one side: added without blocking the poll, polled into the
    /// decoder's recovery, closed once the partition is live again.
    fn recover(&mut self, slot: usize, side: usize, fragment_limit: usize) -> usize {
        let recovering = self.decoder.is_recovering(slot);
        let state = &mut self.slots[slot].sides[side];
        match (&state.snapshot, recovering) {
            (SnapshotSubscription::None, false) => 0,
            (SnapshotSubscription::None, true) => {
                match self.aeron.async_add_subscription(
                    &state.snapshot_channel,
                    state.snapshot_stream_id,
                    rusteron_client::Handlers::NONE,
                    rusteron_client::Handlers::NONE,
                ) {
                    Ok(adding) => state.snapshot = SnapshotSubscription::Adding(adding),
                    Err(e) => {
                        self.decoder.counters_mut().subscription_errors += 1;
                        eprintln!("mdfanout client: snapshot stream {}: {e}", state.snapshot_stream_id);
                    }
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
                            decoder.on_snapshot_message(slot, side, session_id, buffer);
                        },
                        fragment_limit,
                    )
                    .unwrap_or(0) as usize
            }
        }
    }

    /// Whether every partition's subscription has a publisher's image (each side's, for a pair).
    pub fn is_connected(&self) -> bool {
        self.slots.iter().all(|slot| slot.sides.iter().all(|s| s.incremental.is_connected()))
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

    /// The counters (a pair's per side in `sides`).
    pub fn counters(&self) -> &SubscriberCounters {
        self.decoder.counters()
    }

    /// Whether an exchange gap was declared on the partition's current session (stale `EXCHANGE_GAP`).
    pub fn has_exchange_gap(&self, slot: usize) -> bool {
        self.decoder.has_exchange_gap(slot)
    }

    /// Whether the partition in the slot is good: joined, not recovering, its source live.
    pub fn is_good(&self, slot: usize) -> bool {
        self.decoder.is_good(slot)
    }

    /// Whether the partition in the slot recovers from a snapshot now.
    pub fn is_recovering(&self, slot: usize) -> bool {
        self.decoder.is_recovering(slot)
    }

    /// The pair's decoder (its sides' states), None for one fanout.
    pub fn pair(&self) -> Option<&PairStreamDecoder<L>> {
        match &self.decoder {
            Decoder::Pair(d) => Some(d),
            Decoder::One(_) => None,
        }
    }
}
