//! A recording of every delivered message of the incremental streams (not a snapshot's state, which the recovery
//! re-sends: as Java's `record --out`), in the Java SDK's `record --out` format, so that recordings from any SDK
//! compare byte for byte: per message `[i32 LE length][u16 LE partition][i64 LE stream sequence][the message, its SBE
//! header included]` (Java's `MessageRecorder`). Records are staged in a buffer made once and written in blocks of up
//! to 1 MiB: nothing allocates per message.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use crate::listener::{MarketDataListener, MessageContext};

/// Bytes before the message in each record.
pub const RECORD_HEADER_LENGTH: usize = 4 + 2 + 8;
const STAGING_LENGTH: usize = 1024 * 1024;

/// Writes each delivered message (its raw callback) to `out`. A write error stops the recording (later messages are
/// not written) and is kept: [`MessageRecorder::flush`] returns it.
#[derive(Debug)]
pub struct MessageRecorder<W: Write> {
    out: W,
    staging: Vec<u8>,
    records: u64,
    error: Option<io::Error>,
}

impl MessageRecorder<File> {
    /// Record into a new file (an existing one is replaced).
    pub fn create(path: &Path) -> io::Result<Self> {
        File::create(path)
            .map(Self::new)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot create record file {}: {e}", path.display())))
    }
}

impl<W: Write> MessageRecorder<W> {
    pub fn new(out: W) -> Self {
        Self { out, staging: Vec::with_capacity(STAGING_LENGTH), records: 0, error: None }
    }

    /// Records written so far (staged included).
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Write what is staged; the first write error, if any happened.
    pub fn flush(&mut self) -> io::Result<()> {
        if self.error.is_none() {
            let written = self.out.write_all(&self.staging).and_then(|_| self.out.flush());
            self.staging.clear();
            if let Err(e) = written {
                self.error = Some(e);
            }
        }
        match &self.error {
            None => Ok(()),
            Some(e) => Err(io::Error::new(e.kind(), format!("cannot write record file: {e}"))),
        }
    }
}

impl<W: Write> MarketDataListener for MessageRecorder<W> {
    fn on_raw_message(&mut self, context: &MessageContext, message: &[u8]) {
        if self.error.is_some() || context.snapshot {
            return;
        }
        if self.staging.len() + RECORD_HEADER_LENGTH + message.len() > STAGING_LENGTH {
            let _ = self.flush();
        }
        self.staging.extend_from_slice(&(message.len() as i32).to_le_bytes());
        self.staging.extend_from_slice(&context.partition.to_le_bytes());
        self.staging.extend_from_slice(&(context.stream_sequence as i64).to_le_bytes());
        self.staging.extend_from_slice(message);
        self.records += 1;
    }
}

impl<W: Write> Drop for MessageRecorder<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}
