//! What the live tests share: the chain's processes (bin/mdfanout), waiting for a log line, recordings and snapshot
//! coverage read back.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The processes of the test, stopped whatever happens, and the directories they used, removed.
pub struct Processes(pub Vec<(String, Child)>, pub Vec<PathBuf>);

impl Drop for Processes {
    fn drop(&mut self) {
        for (_, child) in &mut self.0 {
            let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        for (_, child) in &mut self.0 {
            while Instant::now() < deadline && matches!(child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        for dir in &self.1 {
            let _ = fs::remove_dir_all(dir);
        }
    }
}

impl Processes {
    /// Stop one of them (SIGTERM) and wait for it to end.
    pub fn stop(&mut self, name: &str) {
        for (n, child) in &mut self.0 {
            if n == name {
                let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
                let _ = child.wait();
            }
        }
    }

    pub fn start(&mut self, name: &str, work: &Path, args: &[&str]) {
        self.start_with_heap(name, work, args, "128m");
    }

    /// Start one with a heap of its own (a simulator with a re-request server keeps its history on the heap).
    pub fn start_with_heap(&mut self, name: &str, work: &Path, args: &[&str], heap: &str) {
        let log = fs::File::create(work.join(format!("{name}.log"))).unwrap();
        let child = Command::new(root().join("bin/mdfanout"))
            .args(args)
            .env("MDFANOUT_HEAP", heap)
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .stdin(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        self.0.push((name.to_string(), child));
    }
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

pub fn wait_for(file: &Path, text: &str, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if fs::read_to_string(file).map(|s| s.contains(text)).unwrap_or(false) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

/// A recording's records (`MessageRecorder`'s format) split by partition, each partition's in order.
pub fn by_partition(recording: &[u8]) -> BTreeMap<u16, Vec<u8>> {
    let mut partitions = BTreeMap::<u16, Vec<u8>>::new();
    let mut at = 0;
    while at < recording.len() {
        let length = i32::from_le_bytes(recording[at..at + 4].try_into().unwrap()) as usize;
        let partition = u16::from_le_bytes(recording[at + 4..at + 6].try_into().unwrap());
        let end = at + mdfanout::recorder::RECORD_HEADER_LENGTH + length;
        partitions.entry(partition).or_default().extend_from_slice(&recording[at..end]);
        at = end;
    }
    partitions
}


impl Processes {
    /// Kill one of them with -9 (no clean-up of its own) and reap it.
    pub fn kill9(&mut self, name: &str) {
        for (n, child) in &mut self.0 {
            if n == name {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

/// One record of a recording: its partition, stream sequence and message (SBE header included).
pub struct Record {
    pub partition: u16,
    pub sequence: u64,
    pub message: Vec<u8>,
}

/// A recording's records, in order.
pub fn records(recording: &[u8]) -> Vec<Record> {
    let mut records = Vec::new();
    let mut at = 0;
    while at < recording.len() {
        let length = i32::from_le_bytes(recording[at..at + 4].try_into().unwrap()) as usize;
        let partition = u16::from_le_bytes(recording[at + 4..at + 6].try_into().unwrap());
        let sequence = i64::from_le_bytes(recording[at + 6..at + 14].try_into().unwrap()) as u64;
        let start = at + mdfanout::recorder::RECORD_HEADER_LENGTH;
        records.push(Record { partition, sequence, message: recording[start..start + length].to_vec() });
        at = start + length;
    }
    records
}

/// What the last snapshot applied to a partition covers, read from the `record --coverage-out` format (Java's
/// `SnapshotCoverage` in system-tests): `(from instrument, to instrument, covered through)` ranges.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    pub snapshot_id: u64,
    ranges: Vec<(u64, u64, u64)>,
}

impl Coverage {
    /// Each partition's last complete snapshot (none: covers nothing).
    pub fn read(text: &str, partitions: usize) -> Vec<Coverage> {
        let mut applied = vec![Coverage::default(); partitions];
        let mut current: Vec<Option<Coverage>> = vec![None; partitions];
        for line in text.lines() {
            if let Some(p) = line.strip_prefix("newday partition=") {
                let p: usize = p.parse().unwrap();
                applied[p] = Coverage::default();
                current[p] = None;
                continue;
            }
            let mut words = line.split(' ');
            let kind = words.next().unwrap();
            let field = |name: &str| -> Option<u64> {
                line.split(' ').find_map(|w| w.strip_prefix(name).and_then(|v| v.strip_prefix('=')).map(|v| v.parse().unwrap()))
            };
            let p = field("partition").unwrap_or_else(|| panic!("a coverage line: {line}")) as usize;
            let id = field("snapshotId").unwrap();
            let last = field("last").unwrap();
            match kind {
                "begin" => current[p] = Some(Coverage { snapshot_id: id, ranges: vec![(0, 0, last)] }),
                "instrument" => {
                    if let Some(c) = current[p].as_mut().filter(|c| c.snapshot_id == id) {
                        c.ranges.push((field("from").unwrap(), field("to").unwrap(), last));
                    }
                }
                "end" => {
                    if let Some(mut c) = current[p].take().filter(|c| c.snapshot_id == id) {
                        c.ranges.push((field("from").unwrap(), u64::MAX, last));
                        applied[p] = c;
                    }
                }
                _ => panic!("a coverage line: {line}"),
            }
        }
        applied
    }

    /// The stream sequence the instrument's state is covered through (0: not covered).
    pub fn covered_through(&self, instrument: u64) -> u64 {
        self.ranges.iter().find(|r| instrument >= r.0 && instrument <= r.1).map_or(0, |r| r.2)
    }
}

/// Writes what each snapshot applied covers in the `record --coverage-out` format, as Java's `record` does.
#[derive(Default)]
pub struct CoverageWriter {
    pub out: String,
}

impl mdfanout::MarketDataListener for CoverageWriter {
    fn on_new_day(&mut self, partition: u16) {
        self.out.push_str(&format!("newday partition={partition}\n"));
    }

    fn on_snapshot_begin(&mut self, partition: u16, snapshot_id: u64, last: u64) {
        self.out.push_str(&format!("begin partition={partition} snapshotId={snapshot_id} last={last}\n"));
    }

    fn on_snapshot_instrument(
        &mut self,
        c: &mdfanout::MessageContext,
        m: mdfanout::sbe::snapshot_instrument_codec::SnapshotInstrumentDecoder<'_>,
    ) {
        self.out.push_str(&format!(
            "instrument partition={} snapshotId={} from={} to={} last={}\n",
            c.partition,
            m.snapshot_id(),
            m.covered_from_instrument_id(),
            m.instrument_id(),
            c.stream_sequence
        ));
    }

    fn on_snapshot_end(&mut self, partition: u16, snapshot_id: u64, from: u64, last: u64) {
        self.out.push_str(&format!("end partition={partition} snapshotId={snapshot_id} from={from} last={last}\n"));
    }
}

/// A recovered subscriber's recording against a reference one of the same feed (Java's `record`, itself checked
/// against the oracle by the system tests), each with the coverage of the last snapshot it applied per partition:
/// every message delivered is the reference's byte for byte, or one the reference's snapshot covered (it never
/// delivered it); per partition in stream order, none twice; and every message of the reference after this
/// subscriber's own coverage was delivered (none skipped after its recovery). Returns the messages compared.
pub fn check_recovered_recording(
    who: &str,
    recording: &[Record],
    coverage: &[Coverage],
    reference: &[Record],
    reference_coverage: &[Coverage],
) -> u64 {
    let instrument = |m: &[u8]| mdfanout::wire::instrument_id(m, 0) as u64;
    let mut by_sequence: Vec<BTreeMap<u64, &[u8]>> = vec![BTreeMap::new(); coverage.len()];
    for r in reference {
        by_sequence[r.partition as usize].insert(r.sequence, &r.message);
    }
    let mut last = vec![0u64; coverage.len()];
    let mut delivered: Vec<std::collections::HashSet<u64>> = vec![Default::default(); coverage.len()];
    for r in recording {
        let p = r.partition as usize;
        assert!(r.sequence > last[p], "{who}: partition {p} delivered {} after {} (duplicated or reordered)", r.sequence, last[p]);
        last[p] = r.sequence;
        delivered[p].insert(r.sequence);
        match by_sequence[p].get(&r.sequence) {
            Some(m) => assert!(*m == &r.message[..], "{who}: partition {p} sequence {} differs from Java's", r.sequence),
            None => assert!(
                r.sequence <= reference_coverage[p].covered_through(instrument(&r.message)),
                "{who}: partition {p} sequence {} was neither delivered nor covered by Java",
                r.sequence
            ),
        }
    }
    let mut after = 0;
    for r in reference {
        let p = r.partition as usize;
        if r.sequence > coverage[p].covered_through(instrument(&r.message)) {
            assert!(delivered[p].contains(&r.sequence), "{who}: partition {p} skipped sequence {} after its recovery", r.sequence);
            after += 1;
        }
    }
    after
}

/// The simulator's progress: the messages its last stats line says it sent (`simulator: messages=N`).
pub fn simulator_progress(log: &Path) -> u64 {
    let text = fs::read_to_string(log).unwrap_or_default();
    text.lines()
        .rev()
        .find_map(|line| {
            line.split("simulator: messages=").nth(1).and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|s| s.parse().ok())
        })
        .unwrap_or(0)
}

/// Whether each partition's session ended (End of Messages, live), and every stale or recovered event.
pub struct Watch {
    pub ended: Vec<bool>,
    pub events: Vec<String>,
}

impl Watch {
    pub fn new(partitions: u16) -> Self {
        Self { ended: vec![false; partitions as usize], events: Vec::new() }
    }
}

impl mdfanout::MarketDataListener for Watch {
    fn on_system_event(
        &mut self,
        context: &mdfanout::MessageContext,
        message: mdfanout::sbe::system_event_codec::SystemEventDecoder<'_>,
    ) {
        if message.event_code() as u8 == b'C' && !context.snapshot {
            self.ended[context.partition as usize] = true;
        }
    }

    fn on_stale(&mut self, partition: u16, reason: mdfanout::StaleReason, stream_sequence: u64) {
        self.events.push(format!("STALE p={partition} reason={} seq={stream_sequence}", reason.name()));
    }

    fn on_recovered(&mut self, partition: u16, snapshot_id: u64, last: u64) {
        self.events.push(format!("RECOVERED p={partition} snapshot={snapshot_id} last={last}"));
    }
}
