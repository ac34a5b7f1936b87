//! The Python module `mdfanout._mdfanout`: the Rust SDK's core behind a small Python API (python/mdfanout).

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// Play a conformance case (the bytes of a `.mdfc` file) through the SDK: the canonical output
/// (conformance/README.md).
#[pyfunction]
fn conformance_run(case: &[u8]) -> PyResult<String> {
    mdfanout::conformance::run(case).map_err(PyValueError::new_err)
}

/// The records of a conformance case: its partition count and a list of (kind, partition, session_id, bytes).
#[pyfunction]
fn read_case<'py>(py: Python<'py>, case: &[u8]) -> PyResult<(u16, Vec<(u8, u16, i32, Bound<'py, PyBytes>)>)> {
    let case = mdfanout::conformance::read_case(case).map_err(PyValueError::new_err)?;
    let records =
        case.records.into_iter().map(|r| (r.kind, r.partition, r.session_id, PyBytes::new(py, &r.bytes))).collect();
    Ok((case.partitions, records))
}

/// The packet processing of the SDK without a transport, with books: hand it each whole wire message received on a
/// partition's stream; read the books' canonical dump and the counters.
#[pyclass(unsendable)]
struct Decoder {
    inner: mdfanout::PacketStreamDecoder<mdfanout::OrderBooks>,
}

#[pymethods]
impl Decoder {
    #[new]
    fn new(partitions: Vec<u16>) -> PyResult<Self> {
        if partitions.is_empty() {
            return Err(PyValueError::new_err("at least one partition"));
        }
        Ok(Self { inner: mdfanout::PacketStreamDecoder::new(&partitions, mdfanout::OrderBooks::new()) })
    }

    /// One whole message of the partition in `slot`, from the publication with Aeron session id `session_id`.
    fn on_message(&mut self, slot: usize, session_id: i32, message: &[u8]) -> PyResult<()> {
        if slot >= self.inner.partition_count() {
            return Err(PyValueError::new_err(format!("slot {slot} is not one of the decoder's partitions")));
        }
        self.inner.on_message(slot, session_id, message);
        Ok(())
    }

    /// The books' canonical dump.
    fn books(&mut self) -> String {
        let mut out = String::new();
        self.inner.listener().dump(&mut out);
        out
    }

    /// The counters, by name.
    fn counters(&self) -> std::collections::BTreeMap<&'static str, u64> {
        counters_map(self.inner.counters())
    }
}

fn counters_map(c: &mdfanout::SubscriberCounters) -> std::collections::BTreeMap<&'static str, u64> {
    [
        ("packets", c.packets),
        ("messages", c.messages),
        ("heartbeats", c.heartbeats),
        ("gaps", c.gaps),
        ("missing", c.missing_messages),
        ("duplicate_packets", c.duplicate_packets),
        ("duplicate_messages", c.duplicate_messages),
        ("malformed", c.malformed),
        ("old_session_packets", c.old_session_packets),
        ("filtered", c.filtered_messages),
        ("stale", c.stale_events),
        ("recovered", c.recoveries),
        ("new_days", c.new_days),
        ("snapshot_packets", c.snapshot_packets),
        ("snapshots_applied", c.snapshots_applied),
        ("snapshots_ignored", c.snapshots_ignored),
        ("snapshot_gaps", c.snapshot_gaps),
        ("malformed_snapshot_packets", c.malformed_snapshot_packets),
        ("recovery_attempts_abandoned", c.recovery_attempts_abandoned),
        ("recovery_buffer_overflows", c.recovery_buffer_overflows),
        ("subscription_errors", c.subscription_errors),
        ("silent_streams", c.silent_streams),
        ("side_a_messages", c.sides[0].messages),
        ("side_a_duplicates", c.sides[0].duplicates),
        ("side_a_refused", c.sides[0].refused),
        ("side_a_mismatches", c.sides[0].mismatches),
        ("side_b_messages", c.sides[1].messages),
        ("side_b_duplicates", c.sides[1].duplicates),
        ("side_b_refused", c.sides[1].refused),
        ("side_b_mismatches", c.sides[1].mismatches),
    ]
    .into_iter()
    .collect()
}

/// The live client: the feed's partitions over Aeron, through a media driver on this host, delivered as the canonical
/// lines of the conformance suite (one per callback: every field by name) and applied to order books. Polled from the
/// thread that made it.
#[pyclass(unsendable)]
struct Subscriber {
    inner: mdfanout::client::FeedSubscriber<LiveListener>,
}

/// What the live client and a replay deliver to: the canonical lines and books, and the recording when one is asked
/// for.
type LiveListener = mdfanout::Tee<
    mdfanout::conformance::CanonicalListener,
    Option<mdfanout::MessageRecorder<std::fs::File>>,
>;

/// The listener, its recording's file made first (`OSError` when it cannot be).
fn live_listener(record_path: Option<std::path::PathBuf>) -> PyResult<LiveListener> {
    let recorder = match record_path {
        None => None,
        Some(path) => Some(mdfanout::MessageRecorder::create(&path).map_err(PyOSError::new_err)?),
    };
    Ok(mdfanout::Tee(mdfanout::conformance::CanonicalListener::default(), recorder))
}

fn books_dump(listener: &mut LiveListener) -> String {
    let mut out = String::new();
    listener.0.books.dump(&mut out);
    out
}

/// Write what the recording staged; the messages recorded so far (0 without one).
fn flush_recording(listener: &mut LiveListener) -> PyResult<u64> {
    match &mut listener.1 {
        None => Ok(0),
        Some(recorder) => {
            recorder.flush().map_err(PyOSError::new_err)?;
            Ok(recorder.records())
        }
    }
}

#[pymethods]
impl Subscriber {
    #[new]
    #[pyo3(signature = (channel, partitions, stream_id_base=1000, aeron_dir=None, connect_timeout_s=5.0, record_path=None,
        recovery=true, snapshot_channel=None, snapshot_stream_id_base=None,
        recovery_buffer_bytes=mdfanout::client::DEFAULT_RECOVERY_BUFFER_BYTES, silent_timeout_s=2.0, pair_channel=None,
        pair_stream_id_base=None, arbitration_wait_s=0.02))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        channel: &str,
        partitions: Vec<u16>,
        stream_id_base: i32,
        aeron_dir: Option<String>,
        connect_timeout_s: f64,
        record_path: Option<std::path::PathBuf>,
        recovery: bool,
        snapshot_channel: Option<String>,
        snapshot_stream_id_base: Option<i32>,
        recovery_buffer_bytes: usize,
        silent_timeout_s: f64,
        pair_channel: Option<String>,
        pair_stream_id_base: Option<i32>,
        arbitration_wait_s: f64,
    ) -> PyResult<Self> {
        if !(arbitration_wait_s >= 0.0 && arbitration_wait_s.is_finite()) {
            return Err(PyValueError::new_err(format!("arbitration_wait_s must not be negative: {arbitration_wait_s}")));
        }
        for (name, seconds) in [("connect_timeout_s", connect_timeout_s), ("silent_timeout_s", silent_timeout_s)] {
            if !(seconds > 0.0 && seconds.is_finite()) {
                return Err(PyValueError::new_err(format!("{name} must be positive: {seconds}")));
            }
        }
        let mut config = mdfanout::client::Config::new(channel, partitions);
        config.stream_id_base = stream_id_base;
        config.aeron_dir = aeron_dir;
        config.connect_timeout = std::time::Duration::from_secs_f64(connect_timeout_s);
        config.recovery = recovery;
        config.snapshot_channel = snapshot_channel;
        config.snapshot_stream_id_base = snapshot_stream_id_base;
        config.recovery_buffer_bytes = recovery_buffer_bytes;
        config.silent_timeout = std::time::Duration::from_secs_f64(silent_timeout_s);
        config.pair_channel = pair_channel;
        config.pair_stream_id_base = pair_stream_id_base;
        config.arbitration_wait = std::time::Duration::from_secs_f64(arbitration_wait_s);
        config.validate().map_err(PyValueError::new_err)?;
        let listener = live_listener(record_path)?;
        let inner = mdfanout::client::FeedSubscriber::connect(&config, listener)
            .map_err(pyo3::exceptions::PyConnectionError::new_err)?;
        Ok(Self { inner })
    }

    /// Poll every partition's stream, at most `fragment_limit` messages each, until something arrives or `timeout_s`
    /// passes (0: poll once); the canonical lines of what was delivered, in order.
    #[pyo3(signature = (fragment_limit=256, timeout_s=0.0))]
    fn poll(&mut self, fragment_limit: usize, timeout_s: f64) -> PyResult<Vec<String>> {
        if 0 == fragment_limit {
            return Err(PyValueError::new_err("fragment_limit must be at least 1"));
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs_f64(timeout_s.max(0.0));
        while 0 == self.inner.poll(fragment_limit) && self.inner.listener().0.out.is_empty() {
            if std::time::Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(std::time::Duration::from_micros(100));
        }
        let out = std::mem::take(&mut self.inner.listener().0.out);
        Ok(out.lines().map(str::to_owned).collect())
    }

    /// Whether every partition's subscription has a publisher's image.
    fn is_connected(&self) -> bool {
        self.inner.is_connected()
    }

    /// The books' canonical dump.
    fn books(&mut self) -> String {
        books_dump(self.inner.listener())
    }

    /// The counters, by name.
    fn counters(&self) -> std::collections::BTreeMap<&'static str, u64> {
        counters_map(self.inner.counters())
    }

    /// Write what the recording has staged to its file; the messages recorded so far (0 without a recording).
    fn flush_recording(&mut self) -> PyResult<u64> {
        flush_recording(self.inner.listener())
    }
}

/// A replay of a session from the archive, from a point, replay only (the Rust SDK's `replay::ArchiveReplay`): what it
/// delivers as the canonical lines, books and counters, as the live `Subscriber`. Polled from the thread that made it.
#[pyclass(unsendable)]
struct Replay {
    inner: mdfanout::replay::ArchiveReplay<LiveListener>,
}

#[pymethods]
impl Replay {
    #[new]
    #[pyo3(signature = (control_channel, partitions, start="start", stream_id_base=1000, aeron_dir=None, session=None,
        replay_channel=None, response_channel=None, replay_stream_id=None, timeout_s=10.0, record_path=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        control_channel: &str,
        partitions: Vec<u16>,
        start: &str,
        stream_id_base: i32,
        aeron_dir: Option<String>,
        session: Option<String>,
        replay_channel: Option<String>,
        response_channel: Option<String>,
        replay_stream_id: Option<i32>,
        timeout_s: f64,
        record_path: Option<std::path::PathBuf>,
    ) -> PyResult<Self> {
        if !(timeout_s > 0.0 && timeout_s.is_finite()) {
            return Err(PyValueError::new_err(format!("timeout_s must be positive: {timeout_s}")));
        }
        let mut config = mdfanout::replay::ReplayConfig::new(control_channel, partitions);
        config.from = start.parse().map_err(PyValueError::new_err)?;
        config.stream_id_base = stream_id_base;
        config.aeron_dir = aeron_dir;
        config.session = session;
        if let Some(channel) = replay_channel {
            config.replay_channel = channel;
        }
        if let Some(channel) = response_channel {
            config.response_channel = channel;
        }
        if let Some(id) = replay_stream_id {
            config.replay_stream_id = id;
        }
        config.timeout = std::time::Duration::from_secs_f64(timeout_s);
        let listener = live_listener(record_path)?;
        let inner = mdfanout::replay::ArchiveReplay::connect(&config, listener)
            .map_err(pyo3::exceptions::PyConnectionError::new_err)?;
        Ok(Self { inner })
    }

    /// Replay what has arrived, at most `fragment_limit` Aeron messages per partition: the canonical lines of what was
    /// delivered, in order. A replay the archive stopped or refused raises `ConnectionError`.
    #[pyo3(signature = (fragment_limit=256))]
    fn poll(&mut self, fragment_limit: usize) -> PyResult<Vec<String>> {
        if 0 == fragment_limit {
            return Err(PyValueError::new_err("fragment_limit must be at least 1"));
        }
        self.inner.poll(fragment_limit).map_err(pyo3::exceptions::PyConnectionError::new_err)?;
        let out = std::mem::take(&mut self.inner.listener().0.out);
        Ok(out.lines().map(str::to_owned).collect())
    }

    /// Whether every partition's recordings were replayed.
    fn is_ended(&self) -> bool {
        self.inner.is_ended()
    }

    /// The session replayed.
    fn session(&self) -> String {
        self.inner.session().to_string()
    }

    /// What the archive could not give as it should (a recording that starts the stream again), said as it happened.
    fn problems(&self) -> Vec<String> {
        self.inner.problems().to_vec()
    }

    /// The books' canonical dump.
    fn books(&mut self) -> String {
        books_dump(self.inner.listener())
    }

    /// The counters, by name.
    fn counters(&self) -> std::collections::BTreeMap<&'static str, u64> {
        counters_map(self.inner.counters())
    }

    /// Write what the recording has staged to its file; the messages recorded so far (0 without a recording).
    fn flush_recording(&mut self) -> PyResult<u64> {
        flush_recording(self.inner.listener())
    }
}

#[pymodule]
fn _mdfanout(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(conformance_run, m)?)?;
    m.add_function(wrap_pyfunction!(read_case, m)?)?;
    m.add_class::<Decoder>()?;
    m.add_class::<Subscriber>()?;
    m.add_class::<Replay>()?;
    Ok(())
}
