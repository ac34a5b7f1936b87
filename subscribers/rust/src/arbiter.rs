//! One partition's packets from the two sides of a pair, sequenced by the partition's chain of exchange sequences
//! (schema version 4, docs/WIRE.md), as the Java SDK's `ChainArbiter`: the first copy wins, a message one side lacks is
//! taken from the other, and a gap exists only when no side has a message within a bounded wait.
//!
//! With T the chain position delivered so far: a message links when the packet's chain before it (its
//! `previousExchangeSequence`, then each message before it in the packet) is at most T; it is new when its own chain
//! position is above T, and then delivered; at or below T it is a duplicate of what another side delivered (counted,
//! dropped, and compared byte for byte with the delivered one: a copy that differs takes its side out until the next
//! trading day). Messages of exchange sequence 0 (an exchange snapshot a side's feed handler loaded) are state, never
//! a link: dropped. A side whose next message does not link, or is a gap notice, is held (its packets copied, in order)
//! until the chain reaches it or the wait runs out; then the span is a gap or the notice is delivered. A side's
//! heartbeat above T says the side sent what never arrived here: the same wait, then a gap. Nothing allocates once
//! the hold buffers are made.

use crate::sbe;
use crate::wire;

/// The chain position nobody knows: previousExchangeSequence's null value (2^64-1, -1 as a signed 64-bit integer).
pub const UNKNOWN: i64 = -1;
/// Bytes of delivered messages kept per partition to compare the other side's copies with.
pub const HISTORY_BYTES: usize = 512 * 1024;
/// Messages kept at most per partition.
pub const HISTORY_ENTRIES: usize = 16 * 1024;
const LENGTH_PREFIX: usize = 4;
/// `walk`'s answer when a side's copy differed: the side is out, its packet dropped.
const MISMATCHED: i32 = -2;
const DONE: i32 = -1;
const GAP_NOTICE: u16 = sbe::gap_notice_codec::SBE_TEMPLATE_ID;
/// The offset of a gap notice's lastMissingSequence in its block: its chain position.
const GAP_NOTICE_CHAIN_OFFSET: usize = 20;

/// What the arbitration decides, in order.
pub(crate) trait ArbiterOutput {
    /// The partition joined at chain position `chain`; `session_start` when nothing came before.
    fn on_join(&mut self, side: usize, chain: i64, session_start: bool);
    /// Messages `[from_index, to_index)` of `packet` are the partition's next; `chain_after` is the chain after them.
    fn on_messages(&mut self, side: usize, packet: &[u8], from_index: usize, to_index: usize, chain_after: i64);
    /// No side had the span after `after_chain` up to `through_chain` within the wait.
    fn on_gap(&mut self, after_chain: i64, through_chain: i64);
    /// A side's copy of a delivered message differs from it: the side is out until the next trading day.
    fn on_mismatch(&mut self, side: usize, chain: i64);
    /// A side's messages that another side had delivered already.
    fn on_duplicates(&mut self, side: usize, count: usize);
}

fn u64_at(buffer: &[u8], at: usize) -> i64 {
    i64::from_le_bytes(buffer[at..at + 8].try_into().unwrap())
}

fn previous_of(packet: &[u8]) -> i64 {
    wire::packet_header(packet).previous_exchange_sequence() as i64
}

fn message_count_of(packet: &[u8]) -> usize {
    wire::packet_header(packet).message_count() as usize
}

/// Where message `index` of the packet starts (its SBE header).
fn message_position(packet: &[u8], index: usize) -> usize {
    let mut position = wire::HEADER_LENGTH + wire::header(packet, 0).0;
    for _ in 0..index {
        position += wire::HEADER_LENGTH + wire::header(packet, position).0;
    }
    position
}

/// The exchange sequence message `index` starts at (a gap notice: its first missing one).
fn message_start_of(packet: &[u8], index: usize) -> i64 {
    u64_at(packet, message_position(packet, index) + wire::HEADER_LENGTH)
}

/// The exchange sequence the packet's first message of the chain starts at; 0 when it has none.
fn first_chain_start(packet: &[u8]) -> i64 {
    let mut position = message_position(packet, 0);
    for _ in 0..message_count_of(packet) {
        let start = u64_at(packet, position + wire::HEADER_LENGTH);
        if 0 != start {
            return start;
        }
        position += wire::HEADER_LENGTH + wire::header(packet, position).0;
    }
    0
}

/// The chain position of the message whose header is at `position`.
pub(crate) fn chain_position(packet: &[u8], position: usize, template_id: u16) -> i64 {
    let offset = if GAP_NOTICE == template_id { GAP_NOTICE_CHAIN_OFFSET } else { 0 };
    u64_at(packet, position + wire::HEADER_LENGTH + offset)
}

/// The last messages a partition delivered, by chain position, so that each later copy from the other side can be
/// compared byte for byte with the one that won (Java's `DeliveredHistory`): a ring of bytes and a ring of entries,
/// sized once; a copy that arrives after its original left is not compared.
#[derive(Debug)]
struct DeliveredHistory {
    bytes: Vec<u8>,
    chains: Vec<i64>,
    positions: Vec<u64>,
    lengths: Vec<usize>,
    cursors: [u64; 2],
    head: u64,
    tail: u64,
    written: u64,
}

#[derive(PartialEq, Eq)]
enum Compared {
    Same,
    Different,
    Unknown,
}

impl DeliveredHistory {
    fn new(capacity_bytes: usize, entries: usize) -> Self {
        assert!(capacity_bytes.is_power_of_two() && entries.is_power_of_two());
        Self {
            bytes: vec![0; capacity_bytes],
            chains: vec![0; entries],
            positions: vec![0; entries],
            lengths: vec![0; entries],
            cursors: [0; 2],
            head: 0,
            tail: 0,
            written: 0,
        }
    }

    fn clear(&mut self) {
        self.head = 0;
        self.tail = 0;
        self.written = 0;
        self.cursors = [0; 2];
    }

    fn entry(&self, n: u64) -> usize {
        (n as usize) & (self.chains.len() - 1)
    }

    fn append(&mut self, chain: i64, message: &[u8]) {
        let capacity = self.bytes.len() as u64;
        let length = message.len() as u64;
        if length > capacity {
            return;
        }
        let mut index = self.written & (capacity - 1);
        if index + length > capacity {
            self.written += capacity - index; // messages are held whole: skip to the start of the ring
            index = 0;
        }
        self.bytes[index as usize..(index + length) as usize].copy_from_slice(message);
        let entry = self.entry(self.head);
        self.chains[entry] = chain;
        self.positions[entry] = self.written;
        self.lengths[entry] = message.len();
        self.written += length;
        self.head += 1;
        let oldest_byte = self.written.saturating_sub(capacity);
        let entries = self.chains.len() as u64;
        while self.tail < self.head
            && (self.tail + entries < self.head || self.positions[self.entry(self.tail)] < oldest_byte)
        {
            self.tail += 1;
        }
    }

    fn compare(&mut self, side: usize, chain: i64, copy: &[u8]) -> Compared {
        let oldest = self.tail;
        let mut entry = self.cursors[side].max(oldest);
        if entry > oldest && self.chains[self.entry(entry - 1)] >= chain {
            entry = self.search(oldest, chain); // the side went back (its fanout started again from its state)
        }
        while entry < self.head && self.chains[self.entry(entry)] < chain {
            entry += 1;
        }
        self.cursors[side] = entry;
        if entry >= self.head || self.chains[self.entry(entry)] != chain {
            return Compared::Unknown;
        }
        let at = self.entry(entry);
        if self.lengths[at] != copy.len() {
            return Compared::Different;
        }
        let index = (self.positions[at] & (self.bytes.len() as u64 - 1)) as usize;
        if self.bytes[index..index + copy.len()] == *copy {
            Compared::Same
        } else {
            Compared::Different
        }
    }

    fn search(&self, from: u64, chain: i64) -> u64 {
        let (mut low, mut high) = (from, self.head);
        while low < high {
            let mid = (low + high) / 2;
            if self.chains[self.entry(mid)] < chain {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        low
    }
}

/// A side's packets waiting for the chain, copied in arrival order: `[u32 length][packet]...`.
#[derive(Debug)]
struct SideQueue {
    buffer: Vec<u8>,
    head: usize,
    tail: usize,
    count: usize,
    resume_index: usize,
    resume_link: i64,
    head_walked: bool,
    force: bool,
    held_since_ns: i64,
    missing_through: i64,
    missing_since_ns: i64,
}

impl SideQueue {
    fn new(capacity: usize) -> Self {
        Self {
            buffer: vec![0; capacity.max(64 * 1024)],
            head: 0,
            tail: 0,
            count: 0,
            resume_index: 0,
            resume_link: 0,
            head_walked: false,
            force: false,
            held_since_ns: 0,
            missing_through: UNKNOWN,
            missing_since_ns: 0,
        }
    }

    fn is_empty(&self) -> bool {
        0 == self.count
    }

    fn clear(&mut self) {
        self.head = 0;
        self.tail = 0;
        self.count = 0;
        self.resume_index = 0;
        self.head_walked = false;
        self.force = false;
        self.missing_through = UNKNOWN;
    }

    fn head_range(&self) -> (usize, usize) {
        let length = u32::from_le_bytes(self.buffer[self.head..self.head + 4].try_into().unwrap()) as usize;
        (self.head + LENGTH_PREFIX, self.head + LENGTH_PREFIX + length)
    }

    fn append(&mut self, packet: &[u8], now_ns: i64) -> bool {
        let needed = LENGTH_PREFIX + packet.len();
        if self.tail + needed > self.buffer.len() {
            if self.head > 0 {
                // compact: move what waits to the front
                self.buffer.copy_within(self.head..self.tail, 0);
                self.tail -= self.head;
                self.head = 0;
            }
            if self.tail + needed > self.buffer.len() {
                return false;
            }
        }
        self.buffer[self.tail..self.tail + 4].copy_from_slice(&(packet.len() as u32).to_le_bytes());
        self.buffer[self.tail + LENGTH_PREFIX..self.tail + needed].copy_from_slice(packet);
        self.tail += needed;
        self.count += 1;
        if 1 == self.count {
            self.held_since_ns = now_ns;
            self.head_walked = false;
            self.resume_index = 0;
        }
        true
    }

    fn remove_head(&mut self, now_ns: i64) {
        let (_, end) = self.head_range();
        self.head = end;
        self.count -= 1;
        if 0 == self.count {
            self.head = 0;
            self.tail = 0;
        } else {
            self.held_since_ns = now_ns; // the next packet waits from now
        }
        self.head_walked = false;
        self.resume_index = 0;
    }

    fn read_head_link(&mut self) {
        if !self.head_walked {
            let (start, end) = self.head_range();
            self.resume_index = 0;
            self.resume_link = previous_of(&self.buffer[start..end]);
            self.head_walked = true;
        }
    }

    /// The chain position the head of a non-empty queue waits after.
    fn blocked_from(&mut self) -> i64 {
        self.read_head_link();
        if UNKNOWN == self.resume_link {
            let (start, end) = self.head_range();
            message_start_of(&self.buffer[start..end], self.resume_index).wrapping_sub(1)
        } else {
            self.resume_link
        }
    }
}

/// What the walk changes, apart from the queues (so that a queue's bytes can be walked while it is borrowed).
#[derive(Debug)]
struct Core {
    side_count: usize,
    chain: i64,
    side_chain: [i64; 2],
    mismatched: [bool; 2],
    history: Option<DeliveredHistory>,
    resume_link: i64,
}

impl Core {
    /// Walk a packet's messages from `from_index`, the side's chain before them at `link`: deliver the new ones that
    /// link, drop duplicates and state messages, stop at the first that must wait. `force`: deliver the first new
    /// message even if it is a gap notice. Returns [`DONE`], [`MISMATCHED`], or the index of the message that waits
    /// (`resume_link` then holds the side's chain before it).
    #[allow(clippy::too_many_arguments)]
    fn walk(
        &mut self,
        side: usize,
        packet: &[u8],
        from_index: usize,
        link: i64,
        force: bool,
        output: &mut impl ArbiterOutput,
    ) -> i32 {
        let message_count = message_count_of(packet);
        let mut position = message_position(packet, from_index);
        let mut force_next = force;
        let mut before = link;
        let mut run_start: Option<usize> = None;
        let mut duplicates = 0;
        for i in from_index..message_count {
            let (block_length, template_id, _, _) = wire::header(packet, position);
            let message_length = wire::HEADER_LENGTH + block_length;
            let gap_notice = GAP_NOTICE == template_id;
            let start = u64_at(packet, position + wire::HEADER_LENGTH);
            let end = chain_position(packet, position, template_id);

            if !gap_notice && 0 == start {
                // an exchange snapshot's message: state, no link of the chain
                self.flush(side, packet, &mut run_start, i, output);
                duplicates += 1;
            } else if end <= self.chain {
                self.flush(side, packet, &mut run_start, i, output);
                let copy = &packet[position..position + message_length];
                if !gap_notice
                    && self.history.as_mut().is_some_and(|h| Compared::Different == h.compare(side, end, copy))
                {
                    if duplicates > 0 {
                        output.on_duplicates(side, duplicates);
                    }
                    self.mismatched[side] = true;
                    output.on_mismatch(side, end);
                    return MISMATCHED;
                }
                duplicates += 1;
                before = end;
            } else if (if UNKNOWN == before { start.wrapping_sub(1) } else { before }) <= self.chain
                && (!gap_notice || 1 == self.side_count || force_next)
            {
                force_next = false;
                if run_start.is_none() {
                    run_start = Some(i);
                }
                self.chain = end;
                before = end;
                if !gap_notice {
                    if let Some(history) = self.history.as_mut() {
                        history.append(end, &packet[position..position + message_length]);
                    }
                }
            } else {
                self.flush(side, packet, &mut run_start, i, output);
                if duplicates > 0 {
                    output.on_duplicates(side, duplicates);
                }
                self.resume_link = before;
                self.side_chain[side] = self.side_chain[side].max(before);
                return i as i32;
            }
            position += message_length;
        }
        self.flush(side, packet, &mut run_start, message_count, output);
        if duplicates > 0 {
            output.on_duplicates(side, duplicates);
        }
        self.side_chain[side] = self.side_chain[side].max(before);
        DONE
    }

    fn flush(
        &self,
        side: usize,
        packet: &[u8],
        run_start: &mut Option<usize>,
        end: usize,
        output: &mut impl ArbiterOutput,
    ) {
        if let Some(start) = run_start.take() {
            output.on_messages(side, packet, start, end, self.chain);
        }
    }
}

/// One partition's arbitration of its sides (1 or 2).
#[derive(Debug)]
pub(crate) struct ChainArbiter {
    core: Core,
    max_wait_ns: i64,
    queues: Vec<SideQueue>,
    joined: bool,
    pending_join_chain: i64,
    pending_join_side: usize,
    pending_join_since_ns: i64,
}

impl ChainArbiter {
    /// `max_wait_ns`: how long a side's unlinked packet, gap notice or missed span waits for the other (0 with one
    /// side); `hold_capacity_bytes`: per side, the most packet bytes held while waiting (a side that outgrows it ends
    /// its wait early).
    pub(crate) fn new(side_count: usize, max_wait_ns: i64, hold_capacity_bytes: usize) -> Self {
        assert!((1..=2).contains(&side_count), "sides: 1 or 2, not {side_count}");
        assert!(max_wait_ns >= 0, "the wait must not be negative: {max_wait_ns}");
        Self {
            core: Core {
                side_count,
                chain: UNKNOWN,
                side_chain: [UNKNOWN; 2],
                mismatched: [false; 2],
                history: (2 == side_count).then(|| DeliveredHistory::new(HISTORY_BYTES, HISTORY_ENTRIES)),
                resume_link: 0,
            },
            max_wait_ns: if 1 == side_count { 0 } else { max_wait_ns },
            queues: (0..side_count).map(|_| SideQueue::new(hold_capacity_bytes)).collect(),
            joined: false,
            pending_join_chain: UNKNOWN,
            pending_join_side: 0,
            pending_join_since_ns: 0,
        }
    }

    /// Forget everything: the exchange started a new session (its chain starts again from 0).
    pub(crate) fn reset(&mut self) {
        self.joined = false;
        self.core.chain = UNKNOWN;
        self.pending_join_chain = UNKNOWN;
        for side in 0..self.core.side_count {
            self.queues[side].clear();
            self.core.side_chain[side] = UNKNOWN;
            self.core.mismatched[side] = false;
        }
        if let Some(history) = self.core.history.as_mut() {
            history.clear();
        }
    }

    /// The chain position delivered so far; [`UNKNOWN`] before the partition joined.
    pub(crate) fn chain(&self) -> i64 {
        self.core.chain
    }

    /// The furthest chain position the side's packets or heartbeats reached.
    pub(crate) fn side_chain(&self, side: usize) -> i64 {
        self.core.side_chain[side]
    }

    /// Whether a side's packets or a side's missed span wait, or the join waits for a packet.
    pub(crate) fn is_waiting(&self) -> bool {
        if !self.joined {
            return UNKNOWN != self.pending_join_chain;
        }
        (0..self.core.side_count).any(|side| self.is_holding(side))
    }

    pub(crate) fn is_holding(&self, side: usize) -> bool {
        !self.queues[side].is_empty() || UNKNOWN != self.queues[side].missing_through
    }

    /// One validated incremental packet of schema version 4 or later from a side.
    pub(crate) fn on_packet(&mut self, side: usize, packet: &[u8], now_ns: i64, output: &mut impl ArbiterOutput) {
        if self.core.mismatched[side] {
            return;
        }
        if !self.queues[side].is_empty() {
            while !self.queues[side].append(packet, now_ns) {
                self.end_wait(side, output); // outgrew its hold: decide now, then keep this one
                self.drain(now_ns, output);
                if self.queues[side].is_empty() {
                    break;
                }
            }
            if !self.queues[side].is_empty() {
                return;
            }
        }
        if !self.joined {
            self.join(side, packet, output);
        }
        let held = self.core.walk(side, packet, 0, previous_of(packet), false, output);
        if held >= 0 {
            let queue = &mut self.queues[side];
            queue.append(packet, now_ns);
            queue.resume_index = held as usize;
            queue.resume_link = self.core.resume_link;
            queue.head_walked = true;
            if 0 == self.max_wait_ns {
                self.poll(now_ns, output); // one side: nobody else can fill it
            }
        } else {
            if MISMATCHED == held {
                self.queues[side].clear();
            }
            self.drain(now_ns, output); // the chain moved: another side's held packets may link now
        }
    }

    /// A side's heartbeat: where its chain stands. Above what was delivered, the side sent what never arrived here;
    /// before anything was delivered it joins the partition there.
    pub(crate) fn on_heartbeat(
        &mut self,
        side: usize,
        last_exchange_sequence: i64,
        now_ns: i64,
        output: &mut impl ArbiterOutput,
    ) {
        if UNKNOWN == last_exchange_sequence || self.core.mismatched[side] {
            return;
        }
        self.core.side_chain[side] = self.core.side_chain[side].max(last_exchange_sequence);
        if !self.joined {
            // A quiet partition joins on a heartbeat, unless a packet joins it within the wait.
            if UNKNOWN == self.pending_join_chain || last_exchange_sequence < self.pending_join_chain {
                if UNKNOWN == self.pending_join_chain {
                    self.pending_join_since_ns = now_ns;
                }
                self.pending_join_chain = last_exchange_sequence;
                self.pending_join_side = side;
            }
            self.poll(now_ns, output);
            return;
        }
        if last_exchange_sequence <= self.core.chain {
            return;
        }
        let queue = &mut self.queues[side];
        if queue.is_empty() && last_exchange_sequence > queue.missing_through {
            if UNKNOWN == queue.missing_through {
                queue.missing_since_ns = now_ns;
            }
            queue.missing_through = last_exchange_sequence;
        }
        self.poll(now_ns, output);
    }

    /// End the waits that ran out: the work done.
    pub(crate) fn poll(&mut self, now_ns: i64, output: &mut impl ArbiterOutput) -> usize {
        if !self.joined {
            if UNKNOWN != self.pending_join_chain && now_ns - self.pending_join_since_ns >= self.max_wait_ns {
                self.joined = true;
                self.core.chain = self.pending_join_chain;
                self.pending_join_chain = UNKNOWN;
                output.on_join(self.pending_join_side, self.core.chain, 0 == self.core.chain);
                return 1;
            }
            return 0;
        }
        let mut work = 0;
        for side in 0..self.core.side_count {
            if !self.queues[side].is_empty() {
                if now_ns - self.queues[side].held_since_ns >= self.max_wait_ns {
                    self.end_wait(side, output);
                    work += 1;
                }
            } else if UNKNOWN != self.queues[side].missing_through {
                let queue = &mut self.queues[side];
                if queue.missing_through <= self.core.chain {
                    queue.missing_through = UNKNOWN; // another side delivered it
                } else if now_ns - queue.missing_since_ns >= self.max_wait_ns {
                    let from = self.core.chain;
                    self.core.chain = queue.missing_through;
                    queue.missing_through = UNKNOWN;
                    output.on_gap(from, self.core.chain);
                    work += 1;
                }
            }
        }
        if work > 0 {
            self.drain(now_ns, output);
        }
        work
    }

    fn join(&mut self, side: usize, packet: &[u8], output: &mut impl ArbiterOutput) {
        self.joined = true;
        self.pending_join_chain = UNKNOWN;
        let previous = previous_of(packet);
        let session_start = 0 == previous;
        self.core.chain = if UNKNOWN != previous {
            previous
        } else {
            let start = first_chain_start(packet);
            (if 0 == start { 1 } else { start }) - 1 // only state messages: the chain starts before the first
        };
        output.on_join(side, self.core.chain, session_start);
    }

    /// The head of a side's queue waited long enough: a span before an unlinked message is a gap; a gap notice no
    /// other side filled goes out.
    fn end_wait(&mut self, side: usize, output: &mut impl ArbiterOutput) {
        let queue = &mut self.queues[side];
        if queue.is_empty() {
            return;
        }
        let blocked_from = queue.blocked_from();
        if blocked_from > self.core.chain {
            let from = self.core.chain;
            self.core.chain = blocked_from;
            output.on_gap(from, blocked_from);
        }
        self.queues[side].force = true; // its next message goes out even if it is a gap notice
    }

    /// Deliver what the queues' heads allow, again and again while the chain moves.
    fn drain(&mut self, now_ns: i64, output: &mut impl ArbiterOutput) {
        let mut progress = true;
        while progress {
            progress = false;
            for side in 0..self.core.side_count {
                if self.core.mismatched[side] {
                    self.queues[side].clear();
                }
                while !self.queues[side].is_empty() {
                    let queue = &mut self.queues[side];
                    queue.read_head_link();
                    let chain_before = self.core.chain;
                    let (start, end) = queue.head_range();
                    let held = self.core.walk(
                        side,
                        &queue.buffer[start..end],
                        queue.resume_index,
                        queue.resume_link,
                        queue.force,
                        output,
                    );
                    if held >= 0 {
                        if self.core.chain != chain_before || held as usize != queue.resume_index {
                            progress = true;
                            queue.force = false;
                        }
                        queue.resume_index = held as usize;
                        queue.resume_link = self.core.resume_link;
                        break;
                    }
                    if MISMATCHED == held {
                        queue.clear();
                        progress = true;
                        break;
                    }
                    queue.force = false;
                    queue.remove_head(now_ns);
                    progress = true;
                }
                let queue = &mut self.queues[side];
                if UNKNOWN != queue.missing_through && queue.missing_through <= self.core.chain {
                    queue.missing_through = UNKNOWN;
                }
            }
        }
    }
}
