//! Replay from the archive (feature `archive`): a trading session recorded by `mdfanout archive` (Aeron Archive,
//! docs/ARCHIVE.md) replayed from a point into a [`MarketDataListener`], through the SDK's own
//! [`PacketStreamDecoder`] (so sequencing, gaps and the callbacks are those of a subscriber that ran since the
//! session's start), as the Java SDK's replay-only (`FeedSubscriber.Context.replayFrom` with `replayToLive(false)`,
//! the tools' `record --from ... --replay-only`).
//!
//! Per partition, the recordings of the chosen session (the one named, else the newest the archive holds: Java's
//! `ArchivedSessions`) on the partition's stream id (`stream_id_base + partition`, side A's alias: a single fanout's
//! or side A of a pair's) are replayed in order, each to the end of what the archive held when it started (a past
//! session's end, or the recorded position of one still being recorded). Everything from the session's first message
//! is delivered: the messages before the start point ([`StartPoint`]) with [`MessageContext::snapshot`] true (the
//! state at the start point: books need the resting orders; a [`crate::MessageRecorder`] skips them), the rest as
//! normal messages. A hole in the recordings (a stretch the archive did not record) is a stream gap
//! (`on_stream_gap`), as in Java's replay-only: nothing recovers it.
//!
//! Not done yet: merging into the live stream at the end of the replay (Java's `replayToLive`), and a pair's two
//! sides' recordings (side B's alias).
//!
//! ```no_run
//! use mdfanout::replay::{ArchiveReplay, ReplayConfig, StartPoint};
//! use mdfanout::OrderBooks;
//! let mut config = ReplayConfig::new("aeron:udp?endpoint=archive-host:8010", vec![0, 1]);
//! config.from = "seq:1000".parse::<StartPoint>().unwrap();
//! let mut replay = ArchiveReplay::connect(&config, OrderBooks::new()).unwrap();
//! replay.run_to_end().unwrap();
//! ```

use std::ffi::CString;
use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use rusteron_archive::{
    Aeron, AeronArchive, AeronArchiveAsyncConnect, AeronArchiveContext, AeronArchiveRecordingDescriptor,
    AeronArchiveReplayParams, AeronContext, AeronHeader, AeronSubscription, Handlers,
};

use crate::counters::SubscriberCounters;
use crate::decoder::PacketStreamDecoder;
use crate::listener::{MarketDataListener, MessageContext, StaleReason};
use crate::sbe;
use crate::wire;

/// Aeron Archive's control stream id, the archive's default (`--control-stream-id`).
pub const DEFAULT_CONTROL_STREAM_ID: i32 = 10;
/// Where the replays are sent unless configured: partition slot s on this stream id plus s (Java's
/// `FeedSubscriber.Context.DEFAULT_REPLAY_STREAM_ID`).
pub const DEFAULT_REPLAY_STREAM_ID: i32 = 20_000;
/// How the archive names a trading session in a recording's channel (Java's `ArchiveSessions`).
const ALIAS_PREFIX: &str = "alias=mdfanout-session-";
/// Between the session and the side in the alias of side B's recordings.
const SIDE_SUFFIX: &str = "~side-";
/// Aeron Archive's null position (a recording still being recorded has no stop position).
const NULL_POSITION: i64 = -1;

/// Where a replay starts delivering (Java's `ReplayStart`); what comes before it is delivered as the state at it
/// ([`MessageContext::snapshot`] true). Parsed from the tools' `--from` syntax: `start`, `seq:N` (stream sequence N of
/// every partition), `seq:P=N,P=N` (per partition, the others from the start), `ns:N` or `HH:MM:SS[.fraction]`
/// (exchange time, nanoseconds since midnight: the first message of each partition stamped at or after it).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum StartPoint {
    /// The beginning of the session: everything recorded is delivered as it came.
    #[default]
    Start,
    /// A stream sequence, on every partition (1 or more).
    Sequence(u64),
    /// A stream sequence per partition, `(partition, sequence)`; a partition not named starts at the beginning.
    Sequences(Vec<(u16, u64)>),
    /// An exchange time, nanoseconds since midnight of the trading day.
    ExchangeTime(u64),
}

impl StartPoint {
    /// Whether a message is at or past the start point (Java's `ReplayStart.reached`).
    pub fn reached(&self, partition: u16, stream_sequence: u64, exchange_timestamp: u64) -> bool {
        match self {
            StartPoint::Start => true,
            StartPoint::Sequence(sequence) => stream_sequence >= *sequence,
            StartPoint::Sequences(sequences) => {
                stream_sequence >= sequences.iter().find(|(p, _)| *p == partition).map_or(1, |(_, s)| *s)
            }
            StartPoint::ExchangeTime(nanos) => exchange_timestamp >= *nanos,
        }
    }
}

impl fmt::Display for StartPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartPoint::Start => write!(f, "the beginning"),
            StartPoint::Sequence(s) => write!(f, "stream sequence {s}"),
            StartPoint::Sequences(s) => {
                let parts: Vec<String> = s.iter().map(|(p, n)| format!("{p}={n}")).collect();
                write!(f, "stream sequences {}", parts.join(","))
            }
            StartPoint::ExchangeTime(n) => write!(f, "exchange time {n}"),
        }
    }
}

impl FromStr for StartPoint {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "a start point must be start, seq:N, seq:P=N,P=N (N from 1), HH:MM:SS[.fraction] or ns:N \
                 (exchange time): {text:?}"
            )
        };
        let value = text.trim();
        if value == "start" {
            return Ok(StartPoint::Start);
        }
        if let Some(sequences) = value.strip_prefix("seq:") {
            let sequence = |s: &str| s.trim().parse::<u64>().ok().filter(|&n| n >= 1).ok_or_else(bad);
            if !sequences.contains('=') {
                return Ok(StartPoint::Sequence(sequence(sequences)?));
            }
            let mut by_partition: Vec<(u16, u64)> = Vec::new();
            for pair in sequences.split(',') {
                let (p, n) = pair.split_once('=').ok_or_else(bad)?;
                let p: u16 = p.trim().parse().map_err(|_| bad())?;
                let n = sequence(n)?;
                match by_partition.iter_mut().find(|(q, _)| *q == p) {
                    Some(entry) => entry.1 = n,
                    None => by_partition.push((p, n)),
                }
            }
            return Ok(StartPoint::Sequences(by_partition));
        }
        if let Some(nanos) = value.strip_prefix("ns:") {
            return nanos.trim().parse().map(StartPoint::ExchangeTime).map_err(|_| bad());
        }
        parse_time_of_day(value).map(StartPoint::ExchangeTime).ok_or_else(bad)
    }
}

/// `HH:MM[:SS[.fraction]]` (Java's `LocalTime.parse`) to nanoseconds since midnight.
fn parse_time_of_day(value: &str) -> Option<u64> {
    let mut parts = value.split(':');
    let two_digits = |s: &str, max: u64| -> Option<u64> {
        (s.len() == 2 && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok()).flatten().filter(|&v| v <= max)
    };
    let hours = two_digits(parts.next()?, 23)?;
    let minutes = two_digits(parts.next()?, 59)?;
    let (seconds, nanos) = match parts.next() {
        None => (0, 0),
        Some(s) => {
            let (whole, fraction) = match s.split_once('.') {
                Some((w, f)) => (w, Some(f)),
                None => (s, None),
            };
            let nanos = match fraction {
                None => 0,
                Some(f) if !f.is_empty() && f.len() <= 9 && f.bytes().all(|b| b.is_ascii_digit()) => {
                    f.parse::<u64>().ok()? * 10u64.pow(9 - f.len() as u32)
                }
                Some(_) => return None,
            };
            (two_digits(whole, 59)?, nanos)
        }
    };
    if parts.next().is_some() {
        return None;
    }
    Some(((hours * 60 + minutes) * 60 + seconds) * 1_000_000_000 + nanos)
}

/// Where the archive is, which session and partitions to replay, and from where.
#[derive(Clone, Debug)]
pub struct ReplayConfig {
    /// The media driver's directory (the archive sends the replays to this host's driver); None: Aeron's default.
    pub aeron_dir: Option<String>,
    /// The archive's control channel, with its host (the archive's `--control-channel`), e.g.
    /// `aeron:udp?endpoint=archive-host:8010`.
    pub control_channel: String,
    /// The archive's control stream id (`--control-stream-id`).
    pub control_stream_id: i32,
    /// Where the archive answers: an address of this host it reaches (port 0: any free port).
    pub response_channel: String,
    /// Where the archive sends the replays: an address of this host it reaches (port 0: any free port).
    pub replay_channel: String,
    /// Partition slot s is replayed on this stream id plus s.
    pub replay_stream_id: i32,
    /// The fanout's stream id base (`--stream-id-base`): partition p was recorded on `stream_id_base + p`.
    pub stream_id_base: i32,
    /// The partitions to replay.
    pub partitions: Vec<u16>,
    /// The trading session to replay (the archive's `--session`); None: the newest it holds.
    pub session: Option<String>,
    /// Where delivery starts; the messages before it are the state at it.
    pub from: StartPoint,
    /// How long connecting to the archive may take, and how long a replay may go without delivering.
    pub timeout: Duration,
}

impl ReplayConfig {
    /// The defaults of the Java tools (`record --from`): replies and replays on any free port of localhost, stream id
    /// base 1000, the newest session, from the start.
    pub fn new(control_channel: &str, partitions: Vec<u16>) -> Self {
        Self {
            aeron_dir: None,
            control_channel: control_channel.to_string(),
            control_stream_id: DEFAULT_CONTROL_STREAM_ID,
            response_channel: "aeron:udp?endpoint=localhost:0".to_string(),
            replay_channel: "aeron:udp?endpoint=localhost:0".to_string(),
            replay_stream_id: DEFAULT_REPLAY_STREAM_ID,
            stream_id_base: 1000,
            partitions,
            session: None,
            from: StartPoint::Start,
            timeout: Duration::from_secs(10),
        }
    }
}

/// One recording of a partition's stream.
#[derive(Clone, Debug)]
struct Recording {
    id: i64,
    start: i64,
    stop: i64,
    session_id: i32,
}

/// A recording being replayed.
struct Active {
    recording: Recording,
    /// The replay's Aeron session id (the replay image's).
    replay_session_id: i32,
    /// Where the replay ends: the recording's stop position, or what it had recorded when the replay started.
    end: i64,
    /// The position reached.
    position: i64,
    /// Whether its first packet or heartbeat was seen (a later recording: does it continue the stream?).
    seen_first: bool,
}

/// One partition's replay.
struct PartitionReplay {
    partition: u16,
    stream_id: i32,
    subscription: AeronSubscription,
    replay_stream_id: i32,
    /// The resolved replay channel (the subscription's, its port filled in).
    channel: CString,
    /// The recordings still to replay, oldest first.
    pending: Vec<Recording>,
    last_recording_id: i64,
    active: Option<Active>,
    /// The session id under which the replayed messages are handed to the decoder: the stream's, kept across its
    /// continuation recordings (a fanout restarted from its state) so that their sequences are checked as one stream.
    decoder_session_id: Option<i32>,
    last_progress: Instant,
    recordings_replayed: u32,
    ended: bool,
}

/// The replay of a session's partitions from a point into a listener, through a [`PacketStreamDecoder`] (recovery
/// off: a hole in the recordings is a reported gap). [`ArchiveReplay::poll`] drives it; [`ArchiveReplay::run_to_end`]
/// polls until every partition's recordings were replayed.
pub struct ArchiveReplay<L: MarketDataListener> {
    // Dropped first: the subscriptions and the archive client before the Aeron client they belong to.
    partitions: Vec<PartitionReplay>,
    archive: AeronArchive,
    decoder: PacketStreamDecoder<Primed<L>>,
    session: String,
    timeout: Duration,
    problems: Vec<String>,
    _aeron: Aeron,
    _context: AeronContext,
    _archive_context: AeronArchiveContext,
}

fn cstring(what: &str, value: &str) -> Result<CString, String> {
    CString::new(value).map_err(|_| format!("{what} holds a NUL byte: {value:?}"))
}

/// The trading session and side a recording's original channel names (Java's `ArchiveSessions`): None when it is
/// no session's.
fn session_of(original_channel: &str) -> Option<(String, i32)> {
    let start = original_channel.find(ALIAS_PREFIX)? + ALIAS_PREFIX.len();
    let rest = &original_channel[start..];
    let alias = &rest[..rest.find('|').unwrap_or(rest.len())];
    match alias.rfind(SIDE_SUFFIX) {
        None => Some((alias.to_string(), 0)),
        Some(at) => {
            let name = &alias.as_bytes()[at + SIDE_SUFFIX.len()..];
            let side = if name.len() == 1 && (b'B'..=b'Z').contains(&name[0]) { (name[0] - b'A') as i32 } else { -1 };
            Some((alias[..at].to_string(), side))
        }
    }
}

/// A recording, and the session and side its channel names (None: no session's).
type Listed = (Recording, Option<(String, i32)>);

/// Every recording of a stream after `after_recording_id`, with the session and side its channel names, oldest first.
fn list(archive: &AeronArchive, stream_id: i32, after_recording_id: i64) -> Result<Vec<Listed>, String> {
    let mut found = Vec::new();
    let mut count = 0;
    archive
        .list_recordings_for_uri_fn(
            &mut count,
            after_recording_id + 1,
            i32::MAX,
            c"",
            stream_id,
            |d: AeronArchiveRecordingDescriptor| {
                if d.stream_id() == stream_id {
                    found.push((
                        Recording {
                            id: d.recording_id(),
                            start: d.start_position(),
                            stop: d.stop_position(),
                            session_id: d.session_id(),
                        },
                        session_of(d.original_channel()),
                    ));
                }
            },
        )
        .map_err(|e| format!("the archive did not list the recordings of stream {stream_id}: {e}"))?;
    found.sort_by_key(|(r, _)| r.id);
    Ok(found)
}

/// The recordings of the session on a stream (side A's), after `after_recording_id`, oldest first.
fn session_recordings(
    archive: &AeronArchive,
    stream_id: i32,
    session: &str,
    after_recording_id: i64,
) -> Result<Vec<Recording>, String> {
    Ok(list(archive, stream_id, after_recording_id)?
        .into_iter()
        .filter(|(_, s)| s.as_ref().is_some_and(|(name, side)| name == session && *side == 0))
        .map(|(r, _)| r)
        .collect())
}

impl<L: MarketDataListener> ArchiveReplay<L> {
    /// Connect to the archive (waiting up to the config's timeout), find the session's recordings of every partition
    /// and subscribe where the replays will arrive. Nothing is replayed before the first poll.
    ///
    /// Errors, each saying what: a bad config, the media driver or the archive not reachable, no session in the
    /// archive (or not the one named), a partition without recordings of it.
    pub fn connect(config: &ReplayConfig, listener: L) -> Result<Self, String> {
        if config.partitions.is_empty() {
            return Err("no partition to replay".to_string());
        }
        let mut sorted = config.partitions.clone();
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            return Err(format!("a partition is named twice: {:?}", config.partitions));
        }
        if let StartPoint::Sequences(sequences) = &config.from {
            if let Some((p, _)) = sequences.iter().find(|(p, _)| !config.partitions.contains(p)) {
                return Err(format!("the start point {} names partition {p}, which is not replayed", config.from));
            }
        }
        let context = AeronContext::new().map_err(|e| format!("cannot make an Aeron context: {e}"))?;
        if let Some(dir) = &config.aeron_dir {
            context
                .set_dir(&cstring("the Aeron directory", dir)?)
                .map_err(|e| format!("cannot set the Aeron directory: {e}"))?;
        }
        let aeron = Aeron::new(&context).map_err(|e| format!("cannot make the Aeron client: {e}"))?;
        aeron.start().map_err(|e| {
            format!(
                "cannot attach to the media driver (is one running on {}?): {e}",
                config.aeron_dir.as_deref().unwrap_or("Aeron's default directory")
            )
        })?;
        let archive_context = AeronArchiveContext::new().map_err(|e| format!("cannot make an archive context: {e}"))?;
        let archive_error = |e: rusteron_archive::AeronCError| format!("cannot configure the archive client: {e}");
        archive_context.set_aeron(&aeron).map_err(archive_error)?;
        archive_context
            .set_control_request_channel(&cstring("the archive's control channel", &config.control_channel)?)
            .map_err(archive_error)?;
        archive_context.set_control_request_stream_id(config.control_stream_id).map_err(archive_error)?;
        archive_context
            .set_control_response_channel(&cstring("the response channel", &config.response_channel)?)
            .map_err(archive_error)?;
        archive_context.set_message_timeout_ns(config.timeout.as_nanos() as u64).map_err(archive_error)?;
        let archive = AeronArchiveAsyncConnect::new_with_aeron(&archive_context, &aeron)
            .and_then(|connect| connect.poll_blocking(config.timeout))
            .map_err(|e| {
                format!(
                    "cannot connect to the archive at {} (control stream {}) within {:?}: {e}",
                    config.control_channel, config.control_stream_id, config.timeout
                )
            })?;

        let stream_id = |p: u16| config.stream_id_base + p as i32;
        // The session: the one named, else the newest the archive holds for the first partition's stream (Java's
        // ArchivedSessions.newest, asked once for the subscriber).
        let session = match &config.session {
            Some(session) => session.clone(),
            None => list(&archive, stream_id(config.partitions[0]), -1)?
                .into_iter()
                .filter_map(|(_, s)| s.map(|(name, _)| name))
                .next_back()
                .ok_or_else(|| {
                    format!(
                        "the archive at {} holds no session's recording of stream {} (partition {} of stream id \
                         base {})",
                        config.control_channel,
                        stream_id(config.partitions[0]),
                        config.partitions[0],
                        config.stream_id_base
                    )
                })?,
        };

        let mut partitions = Vec::with_capacity(config.partitions.len());
        for (slot, &partition) in config.partitions.iter().enumerate() {
            let pending = session_recordings(&archive, stream_id(partition), &session, -1)?;
            if pending.is_empty() {
                let mut held: Vec<String> = list(&archive, stream_id(partition), -1)?
                    .into_iter()
                    .filter_map(|(_, s)| s.filter(|(_, side)| *side == 0).map(|(name, _)| name))
                    .collect();
                held.dedup();
                return Err(format!(
                    "the archive holds no recording of session {session} for partition {partition} (stream {}){}",
                    stream_id(partition),
                    if held.is_empty() {
                        String::from(": it holds none of that stream")
                    } else {
                        format!(": it holds sessions {}", held.join(", "))
                    }
                ));
            }
            let replay_stream_id = config.replay_stream_id + slot as i32;
            let subscription = aeron
                .async_add_subscription(
                    &cstring("the replay channel", &config.replay_channel)?,
                    replay_stream_id,
                    Handlers::NONE,
                    Handlers::NONE,
                )
                .and_then(|adding| adding.poll_blocking(config.timeout))
                .map_err(|e| {
                    format!(
                        "cannot subscribe to the replay channel {} stream {replay_stream_id}: {e}",
                        config.replay_channel
                    )
                })?;
            let channel = resolve(&subscription, &config.replay_channel, config.timeout)?;
            partitions.push(PartitionReplay {
                partition,
                stream_id: stream_id(partition),
                subscription,
                replay_stream_id,
                channel: cstring("the replay channel", &channel)?,
                last_recording_id: -1,
                pending,
                active: None,
                decoder_session_id: None,
                last_progress: Instant::now(),
                recordings_replayed: 0,
                ended: false,
            });
        }
        let primed = Primed::new(listener, config.from.clone(), &config.partitions);
        Ok(Self {
            partitions,
            archive,
            decoder: PacketStreamDecoder::new(&config.partitions, primed),
            session,
            timeout: config.timeout,
            problems: Vec::new(),
            _aeron: aeron,
            _context: context,
            _archive_context: archive_context,
        })
    }

    /// The trading session replayed.
    pub fn session(&self) -> &str {
        &self.session
    }

    pub fn listener(&mut self) -> &mut L {
        &mut self.decoder.listener().inner
    }

    pub fn counters(&self) -> &SubscriberCounters {
        self.decoder.counters()
    }

    /// Messages delivered so far as the state before the start point (snapshot), and from it on.
    pub fn delivered(&mut self) -> (u64, u64) {
        let primed = self.decoder.listener();
        (primed.primed, primed.delivered)
    }

    /// Whether every partition's recordings were replayed to their end.
    pub fn is_ended(&self) -> bool {
        self.partitions.iter().all(|p| p.ended)
    }

    /// Recordings replayed so far, over every partition.
    pub fn recordings_replayed(&self) -> u32 {
        self.partitions.iter().map(|p| p.recordings_replayed).sum()
    }

    /// What went wrong without stopping the replay (a later recording that starts the stream again: replayed as a
    /// new stream, the decoder joins it).
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// Replay what has arrived (up to `fragment_limit` Aeron messages per partition) and start each partition's next
    /// recording when one ends. Returns the messages handed to the decoder. An error (the archive refused or stopped
    /// a replay, a replay that delivered nothing for the timeout) ends the replay: the partition is ended.
    pub fn poll(&mut self, fragment_limit: usize) -> Result<usize, String> {
        let mut work = 0;
        for slot in 0..self.partitions.len() {
            if self.partitions[slot].ended {
                continue;
            }
            match self.poll_partition(slot, fragment_limit) {
                Ok(n) => {
                    work += n;
                    if self.partitions[slot].ended {
                        // Everything the recordings hold was delivered: said once, as Java's onReplayEnd.
                        let partition = self.partitions[slot].partition;
                        let next = self.decoder.expected_sequence(slot).unwrap_or(1);
                        self.decoder.listener().on_replay_end(partition, next);
                    }
                }
                Err(e) => {
                    let partition = &mut self.partitions[slot];
                    partition.ended = true;
                    if let Some(active) = partition.active.take() {
                        let _ = self.archive.stop_replay(active.replay_session_id as i64);
                    }
                    return Err(format!("replay of partition {}: {e}", partition.partition));
                }
            }
        }
        Ok(work)
    }

    /// Poll until every partition's recordings were replayed (or an error). Returns the messages delivered from the
    /// start point on (not those delivered as the state before it).
    pub fn run_to_end(&mut self) -> Result<u64, String> {
        while !self.is_ended() {
            if 0 == self.poll(256)? {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
        Ok(self.decoder.listener().delivered)
    }

    fn poll_partition(&mut self, slot: usize, fragment_limit: usize) -> Result<usize, String> {
        if self.partitions[slot].active.is_none() {
            return self.start_next(slot).map(|_| 1);
        }
        let Self { partitions, decoder, problems, archive, session, timeout, .. } = self;
        let partition = &mut partitions[slot];
        let PartitionReplay { subscription, active, decoder_session_id, last_progress, partition: number, .. } =
            partition;
        let active_replay = active.as_mut().expect("a replay");
        let mut handed = 0usize;
        let mut failure = None;
        subscription
            .poll_fn(
                |buffer: &[u8], header: AeronHeader| {
                    let session_id = header.get_values().map(|v| v.frame().session_id()).unwrap_or(0);
                    if session_id != active_replay.replay_session_id || active_replay.position >= active_replay.end {
                        return; // an earlier replay's last frames, or past the end asked for
                    }
                    active_replay.position = header.position();
                    if !active_replay.seen_first {
                        active_replay.seen_first = true;
                        match (*decoder_session_id, first_sequence(buffer)) {
                            (None, _) => {
                                // The session's stream from its start, as Java's replay joins it: a first recording
                                // that begins later is a gap, not a join in mid-stream.
                                *decoder_session_id = Some(active_replay.recording.session_id);
                                decoder.join_at(slot, active_replay.recording.session_id, 1);
                            }
                            (Some(_), Some(first)) => {
                                let expected = decoder.expected_sequence(slot).unwrap_or(1);
                                if first < expected {
                                    // A fanout that started again without its state begins a new stream: never taken
                                    // for the old one's continuation (its messages would be dropped as duplicates).
                                    problems.push(format!(
                                        "replay of partition {number}: recording {} starts the stream again at \
                                         stream sequence {first}, before {expected} where the replay stands (its \
                                         fanout started again without its state): replayed as a new stream, joined \
                                         at {first}",
                                        active_replay.recording.id
                                    ));
                                    *decoder_session_id = Some(active_replay.recording.session_id);
                                }
                            }
                            (Some(_), None) => {}
                        }
                    }
                    match *decoder_session_id {
                        Some(id) => decoder.on_message(slot, id, buffer),
                        None => failure = Some("no session id"),
                    }
                    handed += 1;
                },
                fragment_limit,
            )
            .map_err(|e| format!("polling the replay failed: {e}"))?;
        if let Some(f) = failure {
            return Err(f.to_string());
        }
        let now = Instant::now();
        if handed > 0 {
            *last_progress = now;
        }
        let active_replay = active.as_ref().expect("a replay");
        if active_replay.position >= active_replay.end {
            let id = active_replay.recording.id;
            partition.active = None;
            partition.last_recording_id = id;
            partition.recordings_replayed += 1;
            if partition.pending.is_empty() {
                // Recordings of the session that started since (a fanout restarted while this one replayed).
                partition.pending = session_recordings(archive, partition.stream_id, session, id)?;
                if partition.pending.is_empty() {
                    partition.ended = true;
                }
            }
        } else if handed == 0 && now.duration_since(*last_progress) > *timeout {
            return Err(format!(
                "the replay of recording {} stopped delivering at position {} of {} for {:?}",
                active_replay.recording.id, active_replay.position, active_replay.end, timeout
            ));
        }
        Ok(handed)
    }

    /// Start the partition's next recording's replay (an empty one is skipped).
    fn start_next(&mut self, slot: usize) -> Result<(), String> {
        let partition = &mut self.partitions[slot];
        if partition.pending.is_empty() {
            partition.ended = true;
            return Ok(());
        }
        let recording = partition.pending.remove(0);
        let end = if recording.stop != NULL_POSITION {
            recording.stop
        } else {
            // Still being recorded: what the archive holds now, then the end (replay only).
            let recorded = self.archive.get_recording_position(recording.id).map_err(|e| {
                format!("the archive did not give the recorded position of recording {}: {e}", recording.id)
            })?;
            if recorded != NULL_POSITION {
                recorded
            } else {
                self.archive.get_stop_position(recording.id).map_err(|e| {
                    format!("the archive did not give the stop position of recording {}: {e}", recording.id)
                })?
            }
        };
        if end <= recording.start {
            partition.last_recording_id = recording.id;
            partition.recordings_replayed += 1;
            if partition.pending.is_empty() {
                partition.pending =
                    session_recordings(&self.archive, partition.stream_id, &self.session, recording.id)?;
                partition.ended = partition.pending.is_empty();
            }
            return Ok(());
        }
        let params = AeronArchiveReplayParams::builder()
            .position(recording.start)
            .length(end - recording.start)
            .build()
            .map_err(|e| format!("cannot make the replay's parameters: {e}"))?;
        let replay_session_id = self
            .archive
            .start_replay(recording.id, &partition.channel, partition.replay_stream_id, &params)
            .map_err(|e| format!("the archive refused to replay recording {}: {e}", recording.id))?;
        partition.last_progress = Instant::now();
        partition.active = Some(Active {
            replay_session_id: replay_session_id as i32,
            position: recording.start,
            end,
            recording,
            seen_first: false,
        });
        Ok(())
    }
}

impl<L: MarketDataListener> Drop for ArchiveReplay<L> {
    fn drop(&mut self) {
        for partition in &mut self.partitions {
            if let Some(active) = partition.active.take() {
                let _ = self.archive.stop_replay(active.replay_session_id as i64);
            }
        }
    }
}

/// The subscription's channel with a wildcard port (0) filled in, as the archive must be told where to send.
fn resolve(subscription: &AeronSubscription, channel: &str, timeout: Duration) -> Result<String, String> {
    if !channel.contains(":0|") && !channel.ends_with(":0") {
        return Ok(channel.to_string());
    }
    let deadline = Instant::now() + timeout;
    loop {
        let mut resolved = String::with_capacity(1024);
        if let Ok(n) = subscription.try_resolve_channel_endpoint_port_into(&mut resolved) {
            if n > 0 && !resolved.is_empty() && resolved != channel {
                return Ok(resolved);
            }
        }
        if Instant::now() > deadline {
            return Err(format!("the replay channel's port ({channel}) was not resolved within {timeout:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The first stream sequence a packet or heartbeat says (a packet's first message's, a heartbeat's next), or None
/// for anything else (the decoder counts it as malformed).
fn first_sequence(buffer: &[u8]) -> Option<u64> {
    if buffer.len() < wire::HEADER_LENGTH {
        return None;
    }
    let (block_length, template_id, _, version) = wire::header(buffer, 0);
    if buffer.len() < wire::HEADER_LENGTH + wire::minimum_block_length(template_id, version)?.min(block_length) {
        return None;
    }
    let read = sbe::ReadBuf::new(buffer);
    match template_id {
        sbe::packet_header_codec::SBE_TEMPLATE_ID => Some(
            sbe::packet_header_codec::PacketHeaderDecoder::default()
                .wrap(read, wire::HEADER_LENGTH, block_length as u16, version)
                .stream_sequence(),
        ),
        sbe::heartbeat_codec::SBE_TEMPLATE_ID => Some(
            sbe::heartbeat_codec::HeartbeatDecoder::default()
                .wrap(read, wire::HEADER_LENGTH, block_length as u16, version)
                .next_stream_sequence(),
        ),
        _ => None,
    }
}

/// Offset of every normalized message's exchange timestamp in its block (after its exchange sequence).
const EXCHANGE_TIMESTAMP_OFFSET: usize = 8;

/// The listener behind the decoder: each message before the start point is delivered with `snapshot` true (the state
/// at the start point), as Java's `MessageDispatcher.prime`; the rest as it came. The raw callback, which precedes
/// each message's typed one, decides for both.
struct Primed<L> {
    inner: L,
    from: StartPoint,
    /// Per partition (indexed by partition number): whether the start point was reached.
    reached: Vec<bool>,
    /// The message being delivered is before the start point.
    priming: bool,
    primed: u64,
    delivered: u64,
}

impl<L> Primed<L> {
    fn new(inner: L, from: StartPoint, partitions: &[u16]) -> Self {
        let size = partitions.iter().map(|&p| p as usize + 1).max().unwrap_or(0);
        Self { inner, reached: vec![StartPoint::Start == from; size], from, priming: false, primed: 0, delivered: 0 }
    }

    fn context(&self, context: &MessageContext) -> MessageContext {
        MessageContext { snapshot: context.snapshot || self.priming, ..*context }
    }
}

macro_rules! forward_messages {
    ($($name:ident: $decoder:ty),* $(,)?) => {
        $(
            fn $name(&mut self, context: &MessageContext, message: $decoder) {
                let context = self.context(context);
                self.inner.$name(&context, message);
            }
        )*
    };
}

impl<L: MarketDataListener> MarketDataListener for Primed<L> {
    fn on_raw_message(&mut self, context: &MessageContext, message: &[u8]) {
        let p = context.partition as usize;
        self.priming = false;
        if !context.snapshot && !self.reached[p] {
            let at = wire::HEADER_LENGTH + EXCHANGE_TIMESTAMP_OFFSET;
            let exchange_timestamp =
                message.get(at..at + 8).map_or(0, |b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
            if self.from.reached(context.partition, context.stream_sequence, exchange_timestamp) {
                self.reached[p] = true;
            } else {
                self.priming = true;
            }
        }
        if self.priming {
            self.primed += 1;
        } else if !context.snapshot {
            self.delivered += 1;
        }
        let context = self.context(context);
        self.inner.on_raw_message(&context, message);
    }

    fn on_stream_joined(&mut self, partition: u16, stream_sequence: u64) {
        self.inner.on_stream_joined(partition, stream_sequence);
    }

    fn on_new_day(&mut self, partition: u16) {
        self.inner.on_new_day(partition);
    }

    fn on_stream_gap(&mut self, partition: u16, first_missing: u64, last_missing: u64) {
        self.inner.on_stream_gap(partition, first_missing, last_missing);
    }

    fn on_heartbeat(&mut self, partition: u16, next_stream_sequence: u64, sending_time: u64) {
        self.inner.on_heartbeat(partition, next_stream_sequence, sending_time);
    }

    fn on_stale(&mut self, partition: u16, reason: StaleReason, stream_sequence: u64) {
        self.inner.on_stale(partition, reason, stream_sequence);
    }

    fn on_recovered(&mut self, partition: u16, snapshot_id: u64, last_stream_sequence: u64) {
        self.inner.on_recovered(partition, snapshot_id, last_stream_sequence);
    }

    fn on_snapshot_begin(&mut self, partition: u16, snapshot_id: u64, last_stream_sequence: u64) {
        self.inner.on_snapshot_begin(partition, snapshot_id, last_stream_sequence);
    }

    fn on_stream_silent(&mut self, partition: u16, silent_for_nanos: u64) {
        self.inner.on_stream_silent(partition, silent_for_nanos);
    }

    fn on_stream_active(&mut self, partition: u16) {
        self.inner.on_stream_active(partition);
    }

    fn on_replay_end(&mut self, partition: u16, next_stream_sequence: u64) {
        self.inner.on_replay_end(partition, next_stream_sequence);
    }

    fn on_snapshot_end(
        &mut self,
        partition: u16,
        snapshot_id: u64,
        covered_from_instrument_id: u64,
        last_stream_sequence: u64,
    ) {
        self.inner.on_snapshot_end(partition, snapshot_id, covered_from_instrument_id, last_stream_sequence);
    }

    forward_messages! {
        on_snapshot_instrument: sbe::snapshot_instrument_codec::SnapshotInstrumentDecoder<'_>,
        on_snapshot_order: sbe::snapshot_order_codec::SnapshotOrderDecoder<'_>,
        on_gap_notice: sbe::gap_notice_codec::GapNoticeDecoder<'_>,
        on_system_event: sbe::system_event_codec::SystemEventDecoder<'_>,
        on_instrument_directory: sbe::instrument_directory_codec::InstrumentDirectoryDecoder<'_>,
        on_trading_status: sbe::trading_status_codec::TradingStatusDecoder<'_>,
        on_reg_sho_restriction: sbe::reg_sho_restriction_codec::RegShoRestrictionDecoder<'_>,
        on_mwcb_decline_level: sbe::mwcb_decline_level_codec::MwcbDeclineLevelDecoder<'_>,
        on_mwcb_status: sbe::mwcb_status_codec::MwcbStatusDecoder<'_>,
        on_operational_halt: sbe::operational_halt_codec::OperationalHaltDecoder<'_>,
        on_add_order: sbe::add_order_codec::AddOrderDecoder<'_>,
        on_add_order_attributed: sbe::add_order_attributed_codec::AddOrderAttributedDecoder<'_>,
        on_order_executed: sbe::order_executed_codec::OrderExecutedDecoder<'_>,
        on_order_executed_with_price: sbe::order_executed_with_price_codec::OrderExecutedWithPriceDecoder<'_>,
        on_order_cancel: sbe::order_cancel_codec::OrderCancelDecoder<'_>,
        on_order_delete: sbe::order_delete_codec::OrderDeleteDecoder<'_>,
        on_order_replace: sbe::order_replace_codec::OrderReplaceDecoder<'_>,
        on_trade: sbe::trade_codec::TradeDecoder<'_>,
        on_cross_trade: sbe::cross_trade_codec::CrossTradeDecoder<'_>,
        on_broken_trade: sbe::broken_trade_codec::BrokenTradeDecoder<'_>,
        on_imbalance: sbe::imbalance_codec::ImbalanceDecoder<'_>,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_points_parse_as_the_java_tools_do() {
        assert_eq!("start".parse::<StartPoint>().unwrap(), StartPoint::Start);
        assert_eq!("seq:42".parse::<StartPoint>().unwrap(), StartPoint::Sequence(42));
        assert_eq!("seq:0=5, 1=7".parse::<StartPoint>().unwrap(), StartPoint::Sequences(vec![(0, 5), (1, 7)]));
        assert_eq!("ns:123".parse::<StartPoint>().unwrap(), StartPoint::ExchangeTime(123));
        assert_eq!("09:30:00".parse::<StartPoint>().unwrap(), StartPoint::ExchangeTime(34_200_000_000_000));
        assert_eq!("09:30:00.5".parse::<StartPoint>().unwrap(), StartPoint::ExchangeTime(34_200_500_000_000));
        assert_eq!("09:30".parse::<StartPoint>().unwrap(), StartPoint::ExchangeTime(34_200_000_000_000));
        for bad in
            ["", "seq:0", "seq:-1", "seq:x", "seq:0=0", "seq:a=1", "ns:-5", "25:00:00", "9:30", "soon", "seq:1=2=3x"]
        {
            let e = bad.parse::<StartPoint>().unwrap_err();
            assert!(e.contains("start point must be"), "{bad}: {e}");
        }
    }

    #[test]
    fn the_start_point_is_reached_as_in_java() {
        assert!(StartPoint::Start.reached(3, 1, 0));
        assert!(!StartPoint::Sequence(10).reached(0, 9, u64::MAX));
        assert!(StartPoint::Sequence(10).reached(0, 10, 0));
        let per = StartPoint::Sequences(vec![(1, 5)]);
        assert!(per.reached(0, 1, 0) && !per.reached(1, 4, 0) && per.reached(1, 5, 0));
        assert!(
            !StartPoint::ExchangeTime(100).reached(0, 1_000, 99) && StartPoint::ExchangeTime(100).reached(0, 1, 100)
        );
    }

    #[test]
    fn sessions_are_read_from_the_recording_channels_alias() {
        let c = "aeron:udp?endpoint=224.0.1.1:40456|interface=127.0.0.1|alias=mdfanout-session-2026-11-30|mtu=8192";
        assert_eq!(session_of(c), Some(("2026-11-30".to_string(), 0)));
        assert_eq!(session_of("aeron:udp?alias=mdfanout-session-s1~side-B"), Some(("s1".to_string(), 1)));
        assert_eq!(session_of("aeron:udp?alias=mdfanout-session-s1~side-b"), Some(("s1".to_string(), -1)));
        assert_eq!(session_of("aeron:udp?endpoint=224.0.1.1:40456|alias=other"), None);
    }
}
