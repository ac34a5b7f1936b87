//! The mdfanout subscriber SDK for Rust: what a subscriber does with the wire messages of a feed's partition streams
//! (docs/WIRE.md), as the Java SDK does, and proven the same by the conformance suite (conformance/README.md).
//!
//! - [`sbe`]: the codecs, generated from the project's one schema at build time.
//! - [`PacketStreamDecoder`]: validation of each whole Aeron message, per-partition sequencing (join, gaps,
//!   duplicates, overlaps, a new publication, source liveness, a new trading day) and dispatch to a
//!   [`MarketDataListener`], for messages the caller already holds; with recovery on, a stale partition recovers from
//!   its snapshot stream's messages (the [`recovery`] module, as the Java SDK's `PartitionRecovery`).
//! - [`PairStreamDecoder`]: a feed's two sides arbitrated by the partition's chain of exchange sequences (the
//!   [`arbiter`] module, as the Java SDK's `ChainArbiter` and `PairSequencer`): the first copy wins, what one side
//!   lacks is taken from the other, a side that disagrees is refused loudly.
//! - `client::FeedSubscriber` (feature `aeron`): the live client, over the Aeron C client (`rusteron-client`).
//! - [`OrderBooks`]: price-level books built from the order messages, with the canonical dump every SDK writes.
//! - [`MessageRecorder`]: every delivered message to a file in the Java `record --out` format; [`Tee`] runs two
//!   listeners as one (books and a recorder).
//!
//! Nothing on the message path allocates once warm (every instrument's book made, the orders and levels within the
//! capacity): `tests/allocation.rs` counts with a global allocator.

pub mod arbiter;
pub mod books;
#[cfg(feature = "aeron")]
pub mod client;
pub mod conformance;
pub mod counters;
pub mod decoder;
pub mod listener;
pub mod pair;
pub mod recorder;
pub mod recovery;
#[cfg(feature = "archive")]
pub mod replay;
pub mod sbe;
pub mod wire;

pub use books::OrderBooks;
pub use counters::{MalformedReason, SideCounters, SubscriberCounters};
pub use decoder::PacketStreamDecoder;
pub use pair::PairStreamDecoder;
pub use listener::{MarketDataListener, MessageContext, StaleReason, Tee};
pub use recorder::MessageRecorder;
pub use recovery::RecoveryState;
