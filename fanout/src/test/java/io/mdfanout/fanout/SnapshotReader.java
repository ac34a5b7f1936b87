package io.mdfanout.fanout;

import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.SnapshotBeginDecoder;
import io.mdfanout.sbe.SnapshotEndDecoder;
import io.mdfanout.sbe.SnapshotInstrumentDecoder;
import io.mdfanout.sbe.SnapshotOrderDecoder;
import io.mdfanout.wire.WireFormat;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reads complete snapshots out of the packets a snapshot stream delivered, checking the format on
 * the way (consecutive stream sequences, coverage ranges, counts), and rebuilds a partition's state
 * from a snapshot plus the incrementals after it, by the SDK's rule.
 */
final class SnapshotReader
{
    /** One complete snapshot. */
    static final class Snapshot
    {
        long snapshotId;
        long beginLastStreamSequence;
        int incrementalSessionId;
        int partitionId;
        long endLastStreamSequence;
        long endCoveredFrom;
        int packets;
        final TreeMap<Long, long[]> instruments = new TreeMap<>(); // id -> {lastStreamSequence, coveredFrom}
        final BookModel model = new BookModel();

        /** @return the L that covers an instrument (market-wide: L0). */
        long coveringSequence(final long instrumentId)
        {
            if (0 == instrumentId)
            {
                return beginLastStreamSequence;
            }
            final var entry = instruments.ceilingEntry(instrumentId);
            if (null != entry && entry.getValue()[1] <= instrumentId)
            {
                return entry.getValue()[0];
            }
            assertTrue(instrumentId >= endCoveredFrom, "instrument " + instrumentId + " covered by no range");
            return endLastStreamSequence;
        }

        /** @return number of different L values among the instruments (more than 1: spread over cycles). */
        long distinctInstrumentSequences()
        {
            return instruments.values().stream().mapToLong((v) -> v[0]).distinct().count();
        }
    }

    private SnapshotReader()
    {
    }

    /** Parse every complete snapshot in the packets of one publication (one session). */
    static List<Snapshot> read(final List<PacketCollector.Packet> packets, final int sessionId)
    {
        final List<Snapshot> snapshots = new ArrayList<>();
        final MessageHeaderDecoder header = new MessageHeaderDecoder();
        final SnapshotBeginDecoder begin = new SnapshotBeginDecoder();
        final SnapshotInstrumentDecoder instrument = new SnapshotInstrumentDecoder();
        final SnapshotOrderDecoder order = new SnapshotOrderDecoder();
        final SnapshotEndDecoder end = new SnapshotEndDecoder();
        Snapshot current = null;
        long expectedSequence = -1;
        long messages = 0;
        long instrumentCount = 0;
        long orderCount = 0;
        long ordersLeft = 0;
        long lastInstrument = 0;
        long ordersOfInstrument = 0;
        for (final PacketCollector.Packet packet : packets)
        {
            if (packet.sessionId() != sessionId)
            {
                continue;
            }
            if (expectedSequence >= 0)
            {
                assertEquals(expectedSequence, packet.streamSequence(), "snapshot stream sequence");
            }
            expectedSequence = packet.streamSequence() + packet.messages().size();
            if (null != current)
            {
                current.packets++;
            }
            for (final byte[] bytes : packet.messages())
            {
                final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
                header.wrap(buffer, 0);
                final int templateId = header.templateId();
                assertTrue(WireFormat.isSnapshotStreamMessage(templateId), "template " + templateId);
                switch (templateId)
                {
                    case SnapshotBeginDecoder.TEMPLATE_ID ->
                    {
                        begin.wrapAndApplyHeader(buffer, 0, header);
                        current = new Snapshot();
                        current.packets = 1;
                        current.snapshotId = begin.snapshotId();
                        current.beginLastStreamSequence = begin.lastStreamSequence();
                        current.incrementalSessionId = begin.incrementalSessionId();
                        current.partitionId = begin.partitionId();
                        messages = 0;
                        instrumentCount = 0;
                        orderCount = 0;
                        lastInstrument = 0;
                        ordersOfInstrument = 0;
                        ordersLeft = 0;
                    }
                    case SnapshotInstrumentDecoder.TEMPLATE_ID ->
                    {
                        instrument.wrapAndApplyHeader(buffer, 0, header);
                        if (null == current)
                        {
                            continue;
                        }
                        assertEquals(0, ordersLeft, "orders of the previous instrument");
                        assertEquals(lastInstrument + 1, instrument.coveredFromInstrumentId());
                        assertTrue(instrument.instrumentId() > lastInstrument);
                        assertEquals(current.snapshotId, instrument.snapshotId());
                        lastInstrument = instrument.instrumentId();
                        ordersLeft = instrument.orderCount();
                        ordersOfInstrument = 0;
                        current.instruments.put(instrument.instrumentId(),
                            new long[]{instrument.lastStreamSequence(), instrument.coveredFromInstrumentId()});
                        messages++;
                        instrumentCount++;
                    }
                    case SnapshotOrderDecoder.TEMPLATE_ID ->
                    {
                        order.wrapAndApplyHeader(buffer, 0, header);
                        if (null == current)
                        {
                            continue;
                        }
                        assertEquals(lastInstrument, order.instrumentId());
                        assertTrue(ordersLeft-- > 0, "more orders than announced");
                        current.model.applySnapshotOrder(order);
                        ordersOfInstrument++;
                        messages++;
                        orderCount++;
                    }
                    case SnapshotEndDecoder.TEMPLATE_ID ->
                    {
                        end.wrapAndApplyHeader(buffer, 0, header);
                        if (null == current)
                        {
                            continue;
                        }
                        assertEquals(0, ordersLeft);
                        assertEquals(current.snapshotId, end.snapshotId());
                        assertEquals(lastInstrument + 1, end.coveredFromInstrumentId());
                        assertEquals(instrumentCount, end.instrumentCount());
                        assertEquals(orderCount, end.orderCount());
                        assertEquals(messages, end.messageCount());
                        current.endLastStreamSequence = end.lastStreamSequence();
                        current.endCoveredFrom = end.coveredFromInstrumentId();
                        snapshots.add(current);
                        current = null;
                    }
                    default ->
                    {
                        if (null == current)
                        {
                            continue;
                        }
                        assertTrue(WireFormat.isStateMessage(templateId));
                        assertEquals(0, ordersOfInstrument, "state messages come before the orders");
                        ordersOfInstrument = 0;
                        current.model.putStateMessage(bytes);
                        messages++;
                    }
                }
            }
        }
        return snapshots;
    }

    /**
     * The SDK's rule: start from the snapshot, then deliver each incremental message only if its
     * stream sequence is above the L covering its instrument.
     */
    static BookModel rebuild(final Snapshot snapshot, final List<PacketCollector.Packet> incrementals, final int sessionId)
    {
        final BookModel model = snapshot.model;
        for (final PacketCollector.Packet packet : incrementals)
        {
            if (packet.sessionId() != sessionId)
            {
                continue;
            }
            long sequence = packet.streamSequence();
            for (final byte[] message : packet.messages())
            {
                if (sequence > snapshot.coveringSequence(model.instrumentOf(message)))
                {
                    model.apply(message);
                }
                sequence++;
            }
        }
        return model;
    }
}
