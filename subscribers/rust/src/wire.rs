//! The wire contract's constants and tables (docs/WIRE.md), as `io.mdfanout.wire.WireFormat` holds them in Java.

use crate::sbe;

/// Length of the SBE message header.
pub const HEADER_LENGTH: usize = sbe::message_header_codec::ENCODED_LENGTH;
/// The schema id every message carries.
pub const SCHEMA_ID: u16 = sbe::SBE_SCHEMA_ID;

/// Block length of a Heartbeat of schema version 1 (before the source's liveness).
pub const HEARTBEAT_V1_BLOCK_LENGTH: usize = 18;
/// Block length of a Heartbeat of schema versions 2 and 3 (before what a subscriber of two sides checks).
pub const HEARTBEAT_V3_BLOCK_LENGTH: usize = 31;
/// Block length of a PacketHeader before schema version 4 (before the partition's chain).
pub const PACKET_HEADER_V3_BLOCK_LENGTH: usize = 20;
/// Block length of a SnapshotBegin before schema version 3.
pub const SNAPSHOT_BEGIN_V2_BLOCK_LENGTH: usize = 42;

/// The schema's block length of a template this build knows, or None.
pub fn known_block_length(template_id: u16) -> Option<usize> {
    let length = match template_id {
        1 => sbe::packet_header_codec::SBE_BLOCK_LENGTH,
        2 => sbe::heartbeat_codec::SBE_BLOCK_LENGTH,
        40 => sbe::snapshot_begin_codec::SBE_BLOCK_LENGTH,
        41 => sbe::snapshot_instrument_codec::SBE_BLOCK_LENGTH,
        42 => sbe::snapshot_order_codec::SBE_BLOCK_LENGTH,
        43 => sbe::snapshot_end_codec::SBE_BLOCK_LENGTH,
        _ => return normalized_block_length(template_id),
    };
    Some(length as usize)
}

/// The schema's block length of a normalized message (what an incremental packet carries), or None.
pub fn normalized_block_length(template_id: u16) -> Option<usize> {
    let length = match template_id {
        3 => sbe::gap_notice_codec::SBE_BLOCK_LENGTH,
        10 => sbe::system_event_codec::SBE_BLOCK_LENGTH,
        11 => sbe::instrument_directory_codec::SBE_BLOCK_LENGTH,
        12 => sbe::trading_status_codec::SBE_BLOCK_LENGTH,
        13 => sbe::reg_sho_restriction_codec::SBE_BLOCK_LENGTH,
        14 => sbe::mwcb_decline_level_codec::SBE_BLOCK_LENGTH,
        15 => sbe::mwcb_status_codec::SBE_BLOCK_LENGTH,
        16 => sbe::operational_halt_codec::SBE_BLOCK_LENGTH,
        20 => sbe::add_order_codec::SBE_BLOCK_LENGTH,
        21 => sbe::add_order_attributed_codec::SBE_BLOCK_LENGTH,
        22 => sbe::order_executed_codec::SBE_BLOCK_LENGTH,
        23 => sbe::order_executed_with_price_codec::SBE_BLOCK_LENGTH,
        24 => sbe::order_cancel_codec::SBE_BLOCK_LENGTH,
        25 => sbe::order_delete_codec::SBE_BLOCK_LENGTH,
        26 => sbe::order_replace_codec::SBE_BLOCK_LENGTH,
        27 => sbe::trade_codec::SBE_BLOCK_LENGTH,
        28 => sbe::cross_trade_codec::SBE_BLOCK_LENGTH,
        29 => sbe::broken_trade_codec::SBE_BLOCK_LENGTH,
        30 => sbe::imbalance_codec::SBE_BLOCK_LENGTH,
        _ => return None,
    };
    Some(length as usize)
}

/// The schema's block length of a template a snapshot stream's packets carry (snapshot messages and the state
/// messages re-sent in a snapshot), or None.
pub fn snapshot_stream_block_length(template_id: u16) -> Option<usize> {
    match template_id {
        10..=16 | 40..=43 => known_block_length(template_id),
        _ => None,
    }
}

/// The shortest block accepted for a template written at a schema version: a message that grew in a later version
/// than its writer's is complete at its older length (WireFormat.minimumBlockLength).
pub fn minimum_block_length(template_id: u16, version: u16) -> Option<usize> {
    match template_id {
        2 if version < 2 => Some(HEARTBEAT_V1_BLOCK_LENGTH),
        2 if version < 4 => Some(HEARTBEAT_V3_BLOCK_LENGTH),
        1 if version < 4 => Some(PACKET_HEADER_V3_BLOCK_LENGTH),
        40 if version < 3 => Some(SNAPSHOT_BEGIN_V2_BLOCK_LENGTH),
        _ => known_block_length(template_id),
    }
}

/// The PacketHeader of the packet (a whole Aeron message) in `buffer`, wrapped at its version.
pub fn packet_header(buffer: &[u8]) -> sbe::packet_header_codec::PacketHeaderDecoder<'_> {
    let (block_length, _, _, version) = header(buffer, 0);
    sbe::packet_header_codec::PacketHeaderDecoder::default().wrap(
        sbe::ReadBuf::new(buffer),
        HEADER_LENGTH,
        block_length as u16,
        version,
    )
}

/// The SBE message header at `offset`: (block length, template id, schema id, version), little-endian.
pub fn header(buffer: &[u8], offset: usize) -> (usize, u16, u16, u16) {
    let u16_at = |i: usize| u16::from_le_bytes([buffer[offset + i], buffer[offset + i + 1]]);
    (u16_at(0) as usize, u16_at(2), u16_at(4), u16_at(6))
}

/// Offset of every normalized message's instrument id in its block (after its exchange sequence and timestamp).
pub const INSTRUMENT_ID_OFFSET: usize = 16;

/// The instrument id of the normalized message whose header starts at `offset`.
pub fn instrument_id(buffer: &[u8], offset: usize) -> u32 {
    let at = offset + HEADER_LENGTH + INSTRUMENT_ID_OFFSET;
    u32::from_le_bytes([buffer[at], buffer[at + 1], buffer[at + 2], buffer[at + 3]])
}
