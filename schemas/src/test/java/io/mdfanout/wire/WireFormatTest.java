package io.mdfanout.wire;

import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.AddOrderEncoder;
import io.mdfanout.sbe.BookDepthDecoder;
import io.mdfanout.sbe.HeartbeatDecoder;
import io.mdfanout.sbe.HeartbeatEncoder;
import io.mdfanout.sbe.ImbalanceDecoder;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.PacketHeaderDecoder;
import io.mdfanout.sbe.PacketHeaderEncoder;
import io.mdfanout.sbe.SnapshotBeginDecoder;
import io.mdfanout.sbe.SnapshotBeginEncoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SourceStatus;
import io.mdfanout.sbe.SystemEventDecoder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WireFormatTest
{
    @Test
    void commonPrefixIsReadableWithoutKnowingTheTemplate()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[128]);
        final AddOrderEncoder encoder = new AddOrderEncoder()
            .wrapAndApplyHeader(buffer, 4, new MessageHeaderEncoder());
        encoder.exchangeSequence(123456789L).exchangeTimestamp(34_200_000_000_001L).instrumentId(4_000_000_000L)
            .orderId(42).shares(100).side(Side.SELL).price().mantissa(1_234_500L);

        assertEquals(123456789L, WireFormat.exchangeSequence(buffer, 4));
        assertEquals(34_200_000_000_001L, WireFormat.exchangeTimestamp(buffer, 4));
        assertEquals(4_000_000_000L, WireFormat.instrumentId(buffer, 4));
        assertEquals(WireFormat.HEADER_LENGTH + AddOrderEncoder.BLOCK_LENGTH,
            WireFormat.messageLength(encoder.encodedLength() - 0));
    }

    @Test
    void knowsEveryTemplateAndTheLargestMessage()
    {
        assertEquals(WireFormat.HEADER_LENGTH + ImbalanceDecoder.BLOCK_LENGTH, WireFormat.MAX_MESSAGE_LENGTH);
        assertEquals(WireFormat.HEADER_LENGTH + BookDepthDecoder.BLOCK_LENGTH, WireFormat.MAX_STREAM_MESSAGE_LENGTH);
        assertTrue(ImbalanceDecoder.BLOCK_LENGTH < BookDepthDecoder.BLOCK_LENGTH, "the derived depth is the largest");
        assertFalse(WireFormat.isNormalizedMessage(BookDepthDecoder.TEMPLATE_ID), "derived: never in a ring");
        assertTrue(WireFormat.isDerivedMessage(BookDepthDecoder.TEMPLATE_ID));
        assertTrue(WireFormat.streamBlockLength(BookDepthDecoder.TEMPLATE_ID) > 0);
        assertTrue(WireFormat.isNormalizedMessage(SystemEventDecoder.TEMPLATE_ID));
        assertFalse(WireFormat.isNormalizedMessage(1));
        assertFalse(WireFormat.isNormalizedMessage(2));
        assertEquals(-1, WireFormat.knownBlockLength(9));
        assertEquals(-1, WireFormat.knownBlockLength(65535));
    }

    /** The one-load tables agree with the predicates and block lengths they stand for, for every id. */
    @Test
    void blockLengthTablesAgreeWithThePredicates()
    {
        for (int templateId = -1; templateId <= 70_000; templateId++)
        {
            final int normalized = WireFormat.normalizedBlockLength(templateId);
            assertEquals(WireFormat.isNormalizedMessage(templateId), normalized > 0, "normalized " + templateId);
            assertEquals(normalized > 0 ? WireFormat.knownBlockLength(templateId) : 0, normalized);
            final int snapshot = WireFormat.snapshotStreamBlockLength(templateId);
            assertEquals(WireFormat.isSnapshotStreamMessage(templateId), snapshot > 0, "snapshot " + templateId);
            assertEquals(snapshot > 0 ? WireFormat.knownBlockLength(templateId) : 0, snapshot);
            final int stream = WireFormat.streamBlockLength(templateId);
            assertEquals(WireFormat.isNormalizedMessage(templateId) || WireFormat.isDerivedMessage(templateId),
                stream > 0, "stream " + templateId);
            assertEquals(stream > 0 ? WireFormat.knownBlockLength(templateId) : 0, stream);
        }
    }

    /** The header word's fields are the header's fields, at their largest values too. */
    @Test
    void headerWordSplitsIntoTheHeadersFields()
    {
        assertEquals(Long.BYTES, WireFormat.HEADER_LENGTH, "one long holds the whole header");
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[3 + WireFormat.HEADER_LENGTH]);
        final MessageHeaderEncoder header = new MessageHeaderEncoder().wrap(buffer, 3);
        header.blockLength(65535).templateId(41).schemaId(65534).version(7);
        final long word = WireFormat.headerWord(buffer, 3);
        assertEquals(65535, WireFormat.blockLengthOf(word));
        assertEquals(41, WireFormat.templateIdOf(word));
        assertEquals(65534, WireFormat.schemaIdOf(word));
        assertEquals(7, WireFormat.versionOf(word));

        final long written = WireFormat.headerWordFor(41, 65535);
        assertEquals(65535, WireFormat.blockLengthOf(written));
        assertEquals(41, WireFormat.templateIdOf(written));
        assertEquals(WireFormat.SCHEMA_ID, WireFormat.schemaIdOf(written));
        assertEquals(WireFormat.SCHEMA_VERSION, WireFormat.versionOf(written));
    }

    /**
     * Schema version 2 appended the source's liveness to the Heartbeat: a version-1 heartbeat (an older
     * fanout) is still complete for this build, and its new fields read as null; a version-2 one must be whole.
     */
    /**
     * Schema version 3 appended the state's unrecovered exchange gap to the SnapshotBegin: a version-2 one (an
     * older fanout) is complete for this build and its new fields read as null; a version-3 one must be whole.
     */
    @Test
    void snapshotBeginGrewAtTheEndAndAVersionTwoOneStillReads()
    {
        assertEquals(8 + 8 + 4 + 8 + 8 + 4 + 2, WireFormat.SNAPSHOT_BEGIN_V2_BLOCK_LENGTH);
        assertEquals(WireFormat.SNAPSHOT_BEGIN_V2_BLOCK_LENGTH + 8 + 8, SnapshotBeginDecoder.BLOCK_LENGTH);
        assertEquals(WireFormat.SNAPSHOT_BEGIN_V2_BLOCK_LENGTH,
            WireFormat.minimumBlockLength(SnapshotBeginDecoder.TEMPLATE_ID, 2));
        assertEquals(SnapshotBeginDecoder.BLOCK_LENGTH, WireFormat.minimumBlockLength(SnapshotBeginDecoder.TEMPLATE_ID, 3));

        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[WireFormat.HEADER_LENGTH + SnapshotBeginDecoder.BLOCK_LENGTH]);
        new SnapshotBeginEncoder().wrap(buffer, WireFormat.HEADER_LENGTH).snapshotId(4).lastStreamSequence(99)
            .unrecoveredFromSequence(700).unrecoveredToSequence(799);
        final SnapshotBeginDecoder v2 = new SnapshotBeginDecoder()
            .wrap(buffer, WireFormat.HEADER_LENGTH, WireFormat.SNAPSHOT_BEGIN_V2_BLOCK_LENGTH, 2);
        assertEquals(99, v2.lastStreamSequence());
        assertEquals(SnapshotBeginDecoder.unrecoveredFromSequenceNullValue(), v2.unrecoveredFromSequence(),
            "a version-2 writer had no such field: its null value, whatever bytes follow its block");
        final SnapshotBeginDecoder v3 = new SnapshotBeginDecoder()
            .wrap(buffer, WireFormat.HEADER_LENGTH, SnapshotBeginDecoder.BLOCK_LENGTH, 3);
        assertEquals(700, v3.unrecoveredFromSequence());
        assertEquals(799, v3.unrecoveredToSequence());
    }

    @Test
    void heartbeatGrewAtTheEndAndAVersionOneHeartbeatStillReads()
    {
        assertEquals(5, WireFormat.SCHEMA_VERSION);
        assertEquals(8 + 8 + 2, WireFormat.HEARTBEAT_V1_BLOCK_LENGTH);
        assertEquals(WireFormat.HEARTBEAT_V1_BLOCK_LENGTH + 8 + 4 + 1, WireFormat.HEARTBEAT_V3_BLOCK_LENGTH);
        assertEquals(WireFormat.HEARTBEAT_V3_BLOCK_LENGTH + 8 + 2 + 10, HeartbeatDecoder.BLOCK_LENGTH);
        assertEquals(WireFormat.HEARTBEAT_V1_BLOCK_LENGTH, WireFormat.minimumBlockLength(HeartbeatDecoder.TEMPLATE_ID, 1));
        assertEquals(WireFormat.HEARTBEAT_V3_BLOCK_LENGTH, WireFormat.minimumBlockLength(HeartbeatDecoder.TEMPLATE_ID, 2));
        assertEquals(WireFormat.HEARTBEAT_V3_BLOCK_LENGTH, WireFormat.minimumBlockLength(HeartbeatDecoder.TEMPLATE_ID, 3));
        assertEquals(HeartbeatDecoder.BLOCK_LENGTH, WireFormat.minimumBlockLength(HeartbeatDecoder.TEMPLATE_ID, 4));
        assertEquals(AddOrderDecoder.BLOCK_LENGTH, WireFormat.minimumBlockLength(AddOrderDecoder.TEMPLATE_ID, 1));
        assertEquals(-1, WireFormat.minimumBlockLength(9, 1));

        // What a version-1 fanout sends: its header says version 1 and an 18-byte block, nothing after it.
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[WireFormat.HEADER_LENGTH + WireFormat.HEARTBEAT_V1_BLOCK_LENGTH]);
        final HeartbeatEncoder encoder = new HeartbeatEncoder().wrap(buffer, WireFormat.HEADER_LENGTH);
        encoder.nextStreamSequence(42).sendingTime(7).partitionId(3);
        new MessageHeaderEncoder().wrap(buffer, 0).blockLength(WireFormat.HEARTBEAT_V1_BLOCK_LENGTH)
            .templateId(HeartbeatDecoder.TEMPLATE_ID).schemaId(WireFormat.SCHEMA_ID).version(1);
        final long word = WireFormat.headerWord(buffer, 0);
        final HeartbeatDecoder decoder = new HeartbeatDecoder().wrap(
            buffer, WireFormat.HEADER_LENGTH, WireFormat.blockLengthOf(word), WireFormat.versionOf(word));
        assertEquals(42, decoder.nextStreamSequence());
        assertEquals(3, decoder.partitionId());
        assertEquals(SourceStatus.NULL_VAL, decoder.sourceStatus());
        assertEquals(HeartbeatDecoder.sourceHeartbeatAgeNullValue(), decoder.sourceHeartbeatAge());
        assertEquals(HeartbeatDecoder.lastExchangeTimestampNullValue(), decoder.lastExchangeTimestamp());
    }

    /**
     * Schema version 4 appended the partition's chain to the PacketHeader and the Heartbeat (issue 37): what a version-3
     * fanout sends is complete for this build, and the chain reads as unknown (its null value) from it.
     */
    @Test
    void packetHeaderGrewAtTheEndAndAVersionThreePacketStillReadsWithAnUnknownChain()
    {
        assertEquals(8 + 8 + 2 + 2, WireFormat.PACKET_HEADER_V3_BLOCK_LENGTH);
        assertEquals(WireFormat.PACKET_HEADER_V3_BLOCK_LENGTH + 8, PacketHeaderDecoder.BLOCK_LENGTH);
        assertEquals(WireFormat.PACKET_HEADER_V3_BLOCK_LENGTH, WireFormat.minimumBlockLength(PacketHeaderDecoder.TEMPLATE_ID, 3));
        assertEquals(PacketHeaderDecoder.BLOCK_LENGTH, WireFormat.minimumBlockLength(PacketHeaderDecoder.TEMPLATE_ID, 4));

        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[WireFormat.HEADER_LENGTH + PacketHeaderDecoder.BLOCK_LENGTH]);
        new PacketHeaderEncoder().wrap(buffer, WireFormat.HEADER_LENGTH).streamSequence(5).messageCount(2)
            .previousExchangeSequence(1234);
        final PacketHeaderDecoder v3 = new PacketHeaderDecoder()
            .wrap(buffer, WireFormat.HEADER_LENGTH, WireFormat.PACKET_HEADER_V3_BLOCK_LENGTH, 3);
        assertEquals(5, v3.streamSequence());
        assertEquals(PacketHeaderDecoder.previousExchangeSequenceNullValue(), v3.previousExchangeSequence(),
            "a version-3 writer had no chain: unknown, whatever bytes follow its block");
        final PacketHeaderDecoder v4 = new PacketHeaderDecoder()
            .wrap(buffer, WireFormat.HEADER_LENGTH, PacketHeaderDecoder.BLOCK_LENGTH, 4);
        assertEquals(1234, v4.previousExchangeSequence());

        final UnsafeBuffer heartbeat = new UnsafeBuffer(new byte[WireFormat.HEADER_LENGTH + HeartbeatDecoder.BLOCK_LENGTH]);
        new HeartbeatEncoder().wrap(heartbeat, WireFormat.HEADER_LENGTH).lastExchangeSequence(99).partitionCount(4)
            .exchangeSession("MDFSIM0001");
        final HeartbeatDecoder v3Heartbeat = new HeartbeatDecoder()
            .wrap(heartbeat, WireFormat.HEADER_LENGTH, WireFormat.HEARTBEAT_V3_BLOCK_LENGTH, 3);
        assertEquals(HeartbeatDecoder.lastExchangeSequenceNullValue(), v3Heartbeat.lastExchangeSequence());
        assertEquals(HeartbeatDecoder.partitionCountNullValue(), v3Heartbeat.partitionCount());
        final HeartbeatDecoder v4Heartbeat = new HeartbeatDecoder()
            .wrap(heartbeat, WireFormat.HEADER_LENGTH, HeartbeatDecoder.BLOCK_LENGTH, 4);
        assertEquals(99, v4Heartbeat.lastExchangeSequence());
        assertEquals(4, v4Heartbeat.partitionCount());
        assertEquals("MDFSIM0001", v4Heartbeat.exchangeSession());
    }

    @Test
    void marketWideMessagesAreRecognisedAndInstrumentsSpreadOverPartitions()
    {
        assertTrue(Partitioning.isMarketWide(0));
        assertEquals(3, Partitioning.partitionOf(7, 4));
        assertEquals(1003, Partitioning.streamId(1000, 3));
    }

    @Test
    void producerCreatesAndConsumerMapsTheSameRing(@TempDir final Path dir)
    {
        try (PartitionRings.MappedRing producer = PartitionRings.create(dir, 2, 64 * 1024);
            PartitionRings.MappedRing consumer = PartitionRings.map(dir, 2))
        {
            final UnsafeBuffer src = new UnsafeBuffer(new byte[16]);
            src.putLong(0, 77L);
            assertTrue(producer.ring().write(10, src, 0, 16));
            final long[] seen = new long[2];
            final int read = consumer.ring().read((typeId, buffer, index, length) ->
            {
                seen[0] = typeId;
                seen[1] = buffer.getLong(index);
            });
            assertEquals(1, read);
            assertEquals(10, seen[0]);
            assertEquals(77L, seen[1]);
        }
        assertThrows(IllegalStateException.class, () -> PartitionRings.map(dir, 9));
        assertThrows(IllegalArgumentException.class, () -> PartitionRings.fileLength(1000));
    }
}
