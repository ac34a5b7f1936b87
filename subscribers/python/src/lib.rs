//! The Python module `mdfanout._mdfanout`: the Rust SDK's core behind a small Python API (python/mdfanout).

use pyo3::exceptions::PyValueError;
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
    let (partitions, records) = mdfanout::conformance::read_case(case).map_err(PyValueError::new_err)?;
    let records =
        records.into_iter().map(|r| (r.kind, r.partition, r.session_id, PyBytes::new(py, &r.bytes))).collect();
    Ok((partitions, records))
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
        let c = self.inner.counters();
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
        ]
        .into_iter()
        .collect()
    }
}

#[pymodule]
fn _mdfanout(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(conformance_run, m)?)?;
    m.add_function(wrap_pyfunction!(read_case, m)?)?;
    m.add_class::<Decoder>()?;
    Ok(())
}
