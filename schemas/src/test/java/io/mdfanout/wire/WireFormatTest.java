package io.mdfanout.wire;

import io.mdfanout.sbe.AddOrderEncoder;
import io.mdfanout.sbe.ImbalanceDecoder;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.Side;
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
        assertEquals(WireFormat.HEADER_LENGTH + AddOrderEncoder.BLOCK_LENGTH, WireFormat.messageLength(encoder.encodedLength() - 0));
    }

    @Test
    void knowsEveryTemplateAndTheLargestMessage()
    {
        assertEquals(WireFormat.HEADER_LENGTH + ImbalanceDecoder.BLOCK_LENGTH, WireFormat.MAX_MESSAGE_LENGTH);
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
