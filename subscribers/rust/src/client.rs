//! The live client (feature `aeron`): one Aeron subscription per partition's incremental stream, polled into a
//! [`PacketStreamDecoder`], through the Aeron C client (`rusteron-client`). The media driver is the host's (a Java
//! `mdfanout media-driver`, or any Aeron driver): the client attaches to its directory.
//!
//! Recovery is off for now: a gap is reported (`on_stream_gap`), never repaired from the snapshot streams.

use std::ffi::CString;
use std::time::{Duration, Instant};

use rusteron_client::{Aeron, AeronContext, AeronSubscription, IntoCString};

use crate::counters::SubscriberCounters;
use crate::decoder::PacketStreamDecoder;
use crate::listener::MarketDataListener;

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
        }
    }
}

/// A subscriber of a feed's partitions, polled from the application's own thread.
pub struct FeedSubscriber<L: MarketDataListener> {
    subscriptions: Vec<AeronSubscription>,
    decoder: PacketStreamDecoder<L>,
    _aeron: Aeron,
    _context: AeronContext,
}

impl<L: MarketDataListener> FeedSubscriber<L> {
    /// Attach to the media driver and subscribe to every partition's stream.
    pub fn connect(config: &Config, listener: L) -> Result<Self, String> {
        if config.partitions.is_empty() {
            return Err("at least one partition".into());
        }
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
        let decoder = PacketStreamDecoder::new(&config.partitions, listener);
        Ok(Self { subscriptions, decoder, _aeron: aeron, _context: context })
    }

    /// Poll every partition's stream once, at most `fragment_limit` messages each: the messages received.
    pub fn poll(&mut self, fragment_limit: usize) -> usize {
        let decoder = &mut self.decoder;
        let mut work = 0;
        for (slot, subscription) in self.subscriptions.iter().enumerate() {
            let polled = subscription.poll_fn(
                |buffer, header| {
                    let session_id = header.get_values().map(|v| v.frame().session_id()).unwrap_or(0);
                    decoder.on_message(slot, session_id, buffer);
                },
                fragment_limit,
            );
            work += polled.unwrap_or(0) as usize;
        }
        work
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
}
