package io.mdfanout.wire;

import io.mdfanout.sbe.BarDecoder;
import io.mdfanout.sbe.BestBidOfferDecoder;
import io.mdfanout.sbe.BookDepthDecoder;
import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.BrokenTradeDecoder;
import io.mdfanout.sbe.CrossTradeDecoder;
import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sbe.HeartbeatDecoder;
import io.mdfanout.sbe.ImbalanceDecoder;
import io.mdfanout.sbe.InstrumentDirectoryDecoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.MwcbDeclineLevelDecoder;
import io.mdfanout.sbe.MwcbStatusDecoder;
import io.mdfanout.sbe.OperationalHaltDecoder;
import io.mdfanout.sbe.OrderCancelDecoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import io.mdfanout.sbe.OrderExecutedDecoder;
import io.mdfanout.sbe.OrderExecutedWithPriceDecoder;
import io.mdfanout.sbe.OrderReplaceDecoder;
import io.mdfanout.sbe.PacketHeaderDecoder;
import io.mdfanout.sbe.RegShoRestrictionDecoder;
import io.mdfanout.sbe.SnapshotBeginDecoder;
import io.mdfanout.sbe.SnapshotEndDecoder;
import io.mdfanout.sbe.SnapshotInstrumentDecoder;
import io.mdfanout.sbe.SnapshotOrderDecoder;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sbe.TradeDecoder;
import io.mdfanout.sbe.TradePrintDecoder;
import io.mdfanout.sbe.TradingStatusDecoder;
import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * Facts about the normalized wire format that every module relies on and the generated
 * codecs do not state on their own: the common prefix of normalized messages, message
 * lengths, and the block length each template had in the schema version this build knows.
 */
public final class WireFormat
{
    public static final int SCHEMA_ID = MessageHeaderDecoder.SCHEMA_ID;
    public static final int SCHEMA_VERSION = MessageHeaderDecoder.SCHEMA_VERSION;
    public static final int HEADER_LENGTH = MessageHeaderDecoder.ENCODED_LENGTH;
    public static final ByteOrder BYTE_ORDER = ByteOrder.LITTLE_ENDIAN;

    /** Offsets of the common prefix, relative to the start of a normalized message's block (after the header). */
    public static final int EXCHANGE_SEQUENCE_OFFSET = 0;
    public static final int EXCHANGE_TIMESTAMP_OFFSET = 8;
    public static final int INSTRUMENT_ID_OFFSET = 16;
    public static final int COMMON_PREFIX_LENGTH = 20;

    /** instrumentId of whole-market messages (system events, MWCB, partition-wide gap notices). */
    public static final long MARKET_WIDE_INSTRUMENT_ID = 0;

    /**
     * Block length of a Heartbeat of schema version 1, before version 2 appended the source's liveness
     * (lastExchangeTimestamp, sourceHeartbeatAge, sourceStatus): what a fanout of an older release sends.
     */
    public static final int HEARTBEAT_V1_BLOCK_LENGTH = HeartbeatDecoder.lastExchangeTimestampEncodingOffset();

    /**
     * Block length of a Heartbeat of schema versions 2 and 3, before version 4 appended what a subscriber of two sides
     * checks (lastExchangeSequence, partitionCount, exchangeSession).
     */
    public static final int HEARTBEAT_V3_BLOCK_LENGTH = HeartbeatDecoder.lastExchangeSequenceEncodingOffset();

    /**
     * Block length of a PacketHeader before schema version 4 appended the partition's chain (previousExchangeSequence):
     * what a fanout of an older release sends.
     */
    public static final int PACKET_HEADER_V3_BLOCK_LENGTH = PacketHeaderDecoder.previousExchangeSequenceEncodingOffset();

    /**
     * Block length of a SnapshotBegin before schema version 3 appended the state's unrecovered exchange gap
     * (unrecoveredFromSequence, unrecoveredToSequence): what a fanout of an older release sends.
     */
    public static final int SNAPSHOT_BEGIN_V2_BLOCK_LENGTH = SnapshotBeginDecoder.unrecoveredFromSequenceEncodingOffset();

    /**
     * Largest normalized or snapshot message this schema version defines, header included: the longest ring record and
     * the longest state a fanout keeps.
     */
    public static final int MAX_MESSAGE_LENGTH;
    /** Largest message any stream's packet may carry, the derived streams' included (schema version 5), header included. */
    public static final int MAX_STREAM_MESSAGE_LENGTH;

    private static final int MAX_TEMPLATE_ID = 53;
    private static final int[] BLOCK_LENGTHS = new int[MAX_TEMPLATE_ID + 1];
    /** Block length of each template of the normalized feed, 0 for any other: validation in one load. */
    private static final int[] NORMALIZED_BLOCK_LENGTHS = new int[MAX_TEMPLATE_ID + 1];
    /** Block length of each template an incremental stream may carry (normalized or derived), 0 for any other. */
    private static final int[] STREAM_BLOCK_LENGTHS = new int[MAX_TEMPLATE_ID + 1];
    /** Block length of each template a snapshot stream may carry, 0 for any other. */
    private static final int[] SNAPSHOT_STREAM_BLOCK_LENGTHS = new int[MAX_TEMPLATE_ID + 1];

    static
    {
        BLOCK_LENGTHS[PacketHeaderDecoder.TEMPLATE_ID] = PacketHeaderDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[HeartbeatDecoder.TEMPLATE_ID] = HeartbeatDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[GapNoticeDecoder.TEMPLATE_ID] = GapNoticeDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[SystemEventDecoder.TEMPLATE_ID] = SystemEventDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[InstrumentDirectoryDecoder.TEMPLATE_ID] = InstrumentDirectoryDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[TradingStatusDecoder.TEMPLATE_ID] = TradingStatusDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[RegShoRestrictionDecoder.TEMPLATE_ID] = RegShoRestrictionDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[MwcbDeclineLevelDecoder.TEMPLATE_ID] = MwcbDeclineLevelDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[MwcbStatusDecoder.TEMPLATE_ID] = MwcbStatusDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[OperationalHaltDecoder.TEMPLATE_ID] = OperationalHaltDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[AddOrderDecoder.TEMPLATE_ID] = AddOrderDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[AddOrderAttributedDecoder.TEMPLATE_ID] = AddOrderAttributedDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[OrderExecutedDecoder.TEMPLATE_ID] = OrderExecutedDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[OrderExecutedWithPriceDecoder.TEMPLATE_ID] = OrderExecutedWithPriceDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[OrderCancelDecoder.TEMPLATE_ID] = OrderCancelDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[OrderDeleteDecoder.TEMPLATE_ID] = OrderDeleteDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[OrderReplaceDecoder.TEMPLATE_ID] = OrderReplaceDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[TradeDecoder.TEMPLATE_ID] = TradeDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[CrossTradeDecoder.TEMPLATE_ID] = CrossTradeDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[BrokenTradeDecoder.TEMPLATE_ID] = BrokenTradeDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[ImbalanceDecoder.TEMPLATE_ID] = ImbalanceDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[SnapshotBeginDecoder.TEMPLATE_ID] = SnapshotBeginDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[SnapshotInstrumentDecoder.TEMPLATE_ID] = SnapshotInstrumentDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[SnapshotOrderDecoder.TEMPLATE_ID] = SnapshotOrderDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[SnapshotEndDecoder.TEMPLATE_ID] = SnapshotEndDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[BestBidOfferDecoder.TEMPLATE_ID] = BestBidOfferDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[BookDepthDecoder.TEMPLATE_ID] = BookDepthDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[TradePrintDecoder.TEMPLATE_ID] = TradePrintDecoder.BLOCK_LENGTH;
        BLOCK_LENGTHS[BarDecoder.TEMPLATE_ID] = BarDecoder.BLOCK_LENGTH;

        int max = 0;
        int maxDerived = 0;
        for (int templateId = 0; templateId <= MAX_TEMPLATE_ID; templateId++)
        {
            NORMALIZED_BLOCK_LENGTHS[templateId] = isNormalizedMessage(templateId) ? BLOCK_LENGTHS[templateId] : 0;
            STREAM_BLOCK_LENGTHS[templateId] =
                isNormalizedMessage(templateId) || isDerivedMessage(templateId) ? BLOCK_LENGTHS[templateId] : 0;
            SNAPSHOT_STREAM_BLOCK_LENGTHS[templateId] =
                isSnapshotStreamMessage(templateId) ? BLOCK_LENGTHS[templateId] : 0;
            if (isNormalizedMessage(templateId) || isSnapshotMessage(templateId))
            {
                max = Math.max(max, BLOCK_LENGTHS[templateId]);
            }
            if (isDerivedMessage(templateId))
            {
                maxDerived = Math.max(maxDerived, BLOCK_LENGTHS[templateId]);
            }
        }
        MAX_MESSAGE_LENGTH = HEADER_LENGTH + max;
        MAX_STREAM_MESSAGE_LENGTH = HEADER_LENGTH + Math.max(max, maxDerived);
    }

    private WireFormat()
    {
    }

    /**
     * Block length of a template in the schema version this build was generated from.
     *
     * @return the block length, or -1 when this build does not know the template.
     */
    public static int knownBlockLength(final int templateId)
    {
        return templateId >= 0 && templateId <= MAX_TEMPLATE_ID && BLOCK_LENGTHS[templateId] != 0 ?
            BLOCK_LENGTHS[templateId] : -1;
    }

    /**
     * The shortest block this build accepts for a template written at a schema version: the block length
     * of {@link #knownBlockLength(int)}, except for a message that grew in a later version than the writer's,
     * whose older block is complete for that writer (the fields it lacks read as their null values through a
     * decoder wrapped with the writer's version): the Heartbeat (versions 2 and 4), the SnapshotBegin (version 3) and the
     * PacketHeader (version 4).
     * An older block that claims the newer version is short, since the decoder would read the new fields past it.
     *
     * @param templateId the template.
     * @param version    the schema version in the message's header.
     * @return the shortest acceptable block length, or -1 when this build does not know the template.
     */
    public static int minimumBlockLength(final int templateId, final int version)
    {
        if (HeartbeatDecoder.TEMPLATE_ID == templateId && version < HeartbeatDecoder.lastExchangeSequenceSinceVersion())
        {
            return version < HeartbeatDecoder.sourceStatusSinceVersion() ? HEARTBEAT_V1_BLOCK_LENGTH : HEARTBEAT_V3_BLOCK_LENGTH;
        }
        if (PacketHeaderDecoder.TEMPLATE_ID == templateId && version < PacketHeaderDecoder.previousExchangeSequenceSinceVersion())
        {
            return PACKET_HEADER_V3_BLOCK_LENGTH;
        }
        if (SnapshotBeginDecoder.TEMPLATE_ID == templateId &&
            version < SnapshotBeginDecoder.unrecoveredFromSequenceSinceVersion())
        {
            return SNAPSHOT_BEGIN_V2_BLOCK_LENGTH;
        }
        return knownBlockLength(templateId);
    }

    /**
     * Where a normalized message's place in its partition's chain of exchange sequences is (schema version 4,
     * docs/WIRE.md): a gap notice's lastMissingSequence, any other message's exchangeSequence. A place of 0 is none:
     * an exchange snapshot's message, which leaves the chain where it is.
     *
     * @param templateId the message's template.
     * @return the offset of the field within the message's block.
     */
    public static int chainPositionOffset(final int templateId)
    {
        return GapNoticeDecoder.TEMPLATE_ID == templateId ?
            GapNoticeDecoder.lastMissingSequenceEncodingOffset() : EXCHANGE_SEQUENCE_OFFSET;
    }

    /**
     * The schema's block length of a template of the normalized feed, as {@link #knownBlockLength(int)},
     * or 0 when it is not one ({@link #isNormalizedMessage(int)} false): both checks in one table load.
     */
    public static int normalizedBlockLength(final int templateId)
    {
        return templateId >= 0 && templateId <= MAX_TEMPLATE_ID ? NORMALIZED_BLOCK_LENGTHS[templateId] : 0;
    }

    /**
     * The schema's block length of a template an incremental stream's packets may carry, or 0 when it is none: a
     * message of the normalized feed (the MBO stream) or a derived one (the derived streams, schema version 5).
     */
    public static int streamBlockLength(final int templateId)
    {
        return templateId >= 0 && templateId <= MAX_TEMPLATE_ID ? STREAM_BLOCK_LENGTHS[templateId] : 0;
    }

    /**
     * The schema's block length of a template a snapshot stream may carry, or 0 when it is not one
     * ({@link #isSnapshotStreamMessage(int)} false).
     */
    public static int snapshotStreamBlockLength(final int templateId)
    {
        return templateId >= 0 && templateId <= MAX_TEMPLATE_ID ? SNAPSHOT_STREAM_BLOCK_LENGTHS[templateId] : 0;
    }

    /**
     * The SBE message header at {@code offset} as the one little-endian long it is on the wire
     * (blockLength, templateId, schemaId, version: two bytes each): one bounds-checked read instead of
     * four; take the fields apart with {@link #blockLengthOf(long)} and its siblings.
     */
    public static long headerWord(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset, BYTE_ORDER);
    }

    /**
     * The SBE message header of a template of this schema and version as the one long that
     * {@link #headerWord(DirectBuffer, int)} reads: a writer stores it with one little-endian store.
     */
    public static long headerWordFor(final int templateId, final int blockLength)
    {
        return (blockLength & 0xFFFFL) << (MessageHeaderDecoder.blockLengthEncodingOffset() * 8) |
            (templateId & 0xFFFFL) << (MessageHeaderDecoder.templateIdEncodingOffset() * 8) |
            (SCHEMA_ID & 0xFFFFL) << (MessageHeaderDecoder.schemaIdEncodingOffset() * 8) |
            (SCHEMA_VERSION & 0xFFFFL) << (MessageHeaderDecoder.versionEncodingOffset() * 8);
    }

    /** The blockLength of a {@link #headerWord}. */
    public static int blockLengthOf(final long headerWord)
    {
        return (int)(headerWord >>> (MessageHeaderDecoder.blockLengthEncodingOffset() * 8)) & 0xFFFF;
    }

    /** The templateId of a {@link #headerWord}. */
    public static int templateIdOf(final long headerWord)
    {
        return (int)(headerWord >>> (MessageHeaderDecoder.templateIdEncodingOffset() * 8)) & 0xFFFF;
    }

    /** The schemaId of a {@link #headerWord}. */
    public static int schemaIdOf(final long headerWord)
    {
        return (int)(headerWord >>> (MessageHeaderDecoder.schemaIdEncodingOffset() * 8)) & 0xFFFF;
    }

    /** The version of a {@link #headerWord}. */
    public static int versionOf(final long headerWord)
    {
        return (int)(headerWord >>> (MessageHeaderDecoder.versionEncodingOffset() * 8)) & 0xFFFF;
    }

    /**
     * True for the templates of the normalized feed: they travel in ring buffers and in the packets
     * of incremental streams (everything but PacketHeader, Heartbeat and the snapshot messages).
     */
    public static boolean isNormalizedMessage(final int templateId)
    {
        return templateId == GapNoticeDecoder.TEMPLATE_ID ||
            (templateId >= SystemEventDecoder.TEMPLATE_ID && templateId < SnapshotBeginDecoder.TEMPLATE_ID &&
            knownBlockLength(templateId) > 0);
    }

    /** True for SnapshotBegin, SnapshotInstrument, SnapshotOrder and SnapshotEnd: snapshot streams only. */
    public static boolean isSnapshotMessage(final int templateId)
    {
        return templateId >= SnapshotBeginDecoder.TEMPLATE_ID && templateId <= SnapshotEndDecoder.TEMPLATE_ID;
    }

    /**
     * True for the normalized messages that are state rather than events, re-sent verbatim inside a
     * snapshot: the last SystemEvent, MwcbDeclineLevel and MwcbStatus of the market and the last
     * InstrumentDirectory, TradingStatus, RegShoRestriction and OperationalHalt of each instrument.
     */
    public static boolean isStateMessage(final int templateId)
    {
        return templateId >= SystemEventDecoder.TEMPLATE_ID && templateId <= OperationalHaltDecoder.TEMPLATE_ID;
    }

    /**
     * True for the messages of the derived streams (schema version 5: BestBidOffer, BookDepth, TradePrint, Bar): the
     * fanout derives them from the normalized feed; they never travel in a ring.
     */
    public static boolean isDerivedMessage(final int templateId)
    {
        return templateId >= BestBidOfferDecoder.TEMPLATE_ID && templateId <= BarDecoder.TEMPLATE_ID;
    }

    /**
     * True for the templates a snapshot stream's packets may carry: snapshot messages, state messages, and the
     * derived messages a derived stream's snapshot re-sends as its instruments' state.
     */
    public static boolean isSnapshotStreamMessage(final int templateId)
    {
        return isSnapshotMessage(templateId) || isStateMessage(templateId) || isDerivedMessage(templateId);
    }

    /**
     * The rule for a ring record to go on the wire: it is exactly one complete normalized message of our
     * schema (record type = template id, header consistent with the record's length, block no shorter
     * than the schema's), no longer than {@code maxLength}. Anything else would corrupt a packet for
     * every subscriber, so publishers count and skip it.
     *
     * @param msgTypeId the ring record's type id.
     * @param buffer    holding the record.
     * @param index     of the record's first byte (the SBE message header).
     * @param length    of the record.
     * @param maxLength the longest message that fits the publisher's packet.
     * @return true when the record may be published.
     */
    public static boolean isPublishableRecord(
        final int msgTypeId, final DirectBuffer buffer, final int index, final int length, final int maxLength)
    {
        if (!isNormalizedMessage(msgTypeId) || length < HEADER_LENGTH)
        {
            return false;
        }
        final int blockLength = buffer.getShort(index + MessageHeaderDecoder.blockLengthEncodingOffset(), BYTE_ORDER) &
            0xFFFF;
        final int templateId = buffer.getShort(index + MessageHeaderDecoder.templateIdEncodingOffset(), BYTE_ORDER) &
            0xFFFF;
        final int schemaId = buffer.getShort(index + MessageHeaderDecoder.schemaIdEncodingOffset(), BYTE_ORDER) & 0xFFFF;
        return templateId == msgTypeId &&
            schemaId == SCHEMA_ID &&
            length == messageLength(blockLength) &&
            blockLength >= knownBlockLength(msgTypeId) &&
            length <= maxLength;
    }

    /** Encoded length of a message (header included) given the blockLength from its header. */
    public static int messageLength(final int blockLength)
    {
        return HEADER_LENGTH + blockLength;
    }

    /** Read the instrument id of a normalized message whose header starts at {@code offset}. */
    public static long instrumentId(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + HEADER_LENGTH + INSTRUMENT_ID_OFFSET, BYTE_ORDER) & 0xFFFF_FFFFL;
    }

    /** Read the exchange sequence of a normalized message whose header starts at {@code offset}. */
    public static long exchangeSequence(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + HEADER_LENGTH + EXCHANGE_SEQUENCE_OFFSET, BYTE_ORDER);
    }

    /** Read the exchange timestamp of a normalized message whose header starts at {@code offset}. */
    public static long exchangeTimestamp(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + HEADER_LENGTH + EXCHANGE_TIMESTAMP_OFFSET, BYTE_ORDER);
    }
}
