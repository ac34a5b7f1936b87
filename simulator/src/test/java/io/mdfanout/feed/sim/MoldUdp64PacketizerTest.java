package io.mdfanout.feed.sim;

import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MoldUdp64PacketizerTest
{
    private final List<byte[]> packets = new ArrayList<>();
    private final CachedNanoClock clock = new CachedNanoClock();
    private final SimulatorCounters counters = SimulatorCounters.create();

    @AfterEach
    void tearDown()
    {
        counters.close();
    }

    @Test
    void packsMessagesUpToTheMaxSizeWithConsecutiveSequences()
    {
        final int maxPacketBytes = 200;
        final MoldUdp64Packetizer packetizer = packetizer(maxPacketBytes);
        final SessionGenerator generator = new SessionGenerator(9, new SessionConfig().symbols(20).messageCount(5_000));
        final ItchEvent event = new ItchEvent();
        final List<Integer> lengths = new ArrayList<>();
        while (generator.next(event))
        {
            packetizer.append(event);
            lengths.add(ItchEncoder.messageLength(event.type));
        }
        packetizer.flush();

        long expectedSequence = 1;
        int messageIndex = 0;
        for (final byte[] packet : packets)
        {
            final ByteBuffer view = ByteBuffer.wrap(packet).order(ByteOrder.BIG_ENDIAN);
            assertEquals("MDFTEST   ", new String(packet, 0, 10, StandardCharsets.US_ASCII));
            assertEquals(expectedSequence, view.getLong(10));
            final int count = view.getShort(18) & 0xFFFF;
            assertTrue(count > 0 && count < 0xFFFF);
            assertTrue(packet.length <= maxPacketBytes);
            int position = 20;
            for (int i = 0; i < count; i++)
            {
                final int length = view.getShort(position) & 0xFFFF;
                assertEquals(lengths.get(messageIndex++).intValue(), length);
                assertEquals(length, ItchEncoder.messageLength((char)packet[position + 2]));
                position += 2 + length;
            }
            assertEquals(packet.length, position, "no trailing bytes");
            // Full: the next message (if any) would not have fit.
            if (messageIndex < lengths.size())
            {
                assertTrue(position + 2 + lengths.get(messageIndex) > maxPacketBytes, "packet sent before full");
            }
            expectedSequence += count;
        }
        assertEquals(5_001, expectedSequence);
        assertEquals(5_000, messageIndex);
        assertEquals(5_001, packetizer.nextSequence());
        assertEquals(5_000, counters.messagesSent().get());
        assertEquals(packets.size(), counters.packetsSent().get());
    }

    @Test
    void flushSendsAPartialPacketAndNothingWhenEmpty()
    {
        final MoldUdp64Packetizer packetizer = packetizer(1400);
        assertEquals(0, packetizer.flush());
        assertTrue(packets.isEmpty());

        final ItchEvent event = new ItchEvent().reset();
        event.type = 'D';
        event.orderReferenceNumber = 5;
        packetizer.append(event);
        packetizer.append(event);
        assertEquals(2, packetizer.pendingMessages());
        assertEquals(2, packetizer.flush());
        assertEquals(1, packets.size());
        assertEquals(20 + 2 * (2 + 19), packets.get(0).length);
        assertEquals(2, count(packets.get(0)));
        assertEquals(1, sequence(packets.get(0)));
        assertEquals(3, packetizer.nextSequence());
    }

    @Test
    void heartbeatOnlyAfterTheIdleIntervalWithTheNextSequence()
    {
        final MoldUdp64Packetizer packetizer = packetizer(1400);
        final ItchEvent event = new ItchEvent().reset();
        event.type = 'S';
        event.eventCode = 'O';
        packetizer.append(event);
        packetizer.flush();
        packets.clear();

        clock.advance(999_000_000L);
        assertFalse(packetizer.heartbeatIfIdle());
        clock.advance(1_000_000L);
        assertTrue(packetizer.heartbeatIfIdle());
        assertEquals(1, packets.size());
        assertEquals(20, packets.get(0).length);
        assertEquals(0, count(packets.get(0)));
        assertEquals(2, sequence(packets.get(0)));
        assertFalse(packetizer.heartbeatIfIdle(), "the heartbeat itself restarts the idle interval");
        assertEquals(1, counters.heartbeatsSent().get());

        // Pending messages go out before a heartbeat, which then carries the sequence after them.
        packetizer.append(event);
        clock.advance(2_000_000_000L);
        assertTrue(packetizer.heartbeatIfIdle());
        assertEquals(3, packets.size());
        assertEquals(1, count(packets.get(1)));
        assertEquals(0, count(packets.get(2)));
        assertEquals(3, sequence(packets.get(2)));
    }

    @Test
    void endOfSessionFlushesThenSendsCountFfffOnce()
    {
        final MoldUdp64Packetizer packetizer = packetizer(1400);
        for (int i = 0; i < 3; i++)
        {
            packetizer.append(brokenTrade());
        }
        packetizer.endOfSession();
        packetizer.endOfSession();
        assertEquals(2, packets.size());
        assertEquals(3, count(packets.get(0)));
        assertEquals(0xFFFF, count(packets.get(1)));
        assertEquals(4, sequence(packets.get(1)));
        assertEquals(20, packets.get(1).length);
        assertTrue(packetizer.isEnded());
        clock.advance(10_000_000_000L);
        assertFalse(packetizer.heartbeatIfIdle(), "no heartbeats after the end of session");
    }

    @Test
    void endOfSessionIsRepeatedInPlaceOfHeartbeatsOnlyAfterTheEnd()
    {
        final MoldUdp64Packetizer packetizer = packetizer(1400);
        packetizer.append(brokenTrade());
        clock.advance(500_000_000L);
        assertFalse(packetizer.endOfSessionIfIdle(100_000_000L), "not before the end");
        packetizer.endOfSession();
        assertEquals(2, packets.size());

        clock.advance(99_000_000L);
        assertFalse(packetizer.endOfSessionIfIdle(100_000_000L));
        clock.advance(1_000_000L);
        assertTrue(packetizer.endOfSessionIfIdle(100_000_000L));
        assertFalse(packetizer.endOfSessionIfIdle(100_000_000L), "the repeat restarts the interval");
        assertEquals(3, packets.size());
        assertEquals(0xFFFF, count(packets.get(2)));
        assertEquals(2, sequence(packets.get(2)), "the same next sequence as the first end of session");
        assertEquals(20, packets.get(2).length);
    }

    @Test
    void rejectsBadSessionAndSizes()
    {
        assertThrows(IllegalArgumentException.class, () -> new MoldUdp64Packetizer(
            "ELEVENCHARS", 1400, 1, clock, (b, o, l) -> { }, counters));
        assertThrows(IllegalArgumentException.class, () -> new MoldUdp64Packetizer(
            "", 1400, 1, clock, (b, o, l) -> { }, counters));
        assertThrows(IllegalArgumentException.class, () -> new MoldUdp64Packetizer(
            "OK", 71, 1, clock, (b, o, l) -> { }, counters));
        assertThrows(IllegalArgumentException.class, () -> new MoldUdp64Packetizer(
            "OK", 70_000, 1, clock, (b, o, l) -> { }, counters));
    }

    @Test
    void smallestPacketHoldsOneLargestMessage()
    {
        final MoldUdp64Packetizer packetizer = packetizer(72);
        final ItchEvent event = new ItchEvent().reset();
        event.type = 'I';
        packetizer.append(event);
        packetizer.append(event);
        packetizer.flush();
        assertEquals(2, packets.size());
        assertEquals(72, packets.get(0).length);
        assertEquals(2, sequence(packets.get(1)));
    }

    private MoldUdp64Packetizer packetizer(final int maxPacketBytes)
    {
        return new MoldUdp64Packetizer("MDFTEST", maxPacketBytes, 1_000_000_000L, clock,
            (buffer, offset, length) ->
            {
                final byte[] copy = new byte[length];
                buffer.getBytes(offset, copy);
                packets.add(copy);
            },
            counters);
    }

    private static int count(final byte[] packet)
    {
        return ByteBuffer.wrap(packet).order(ByteOrder.BIG_ENDIAN).getShort(18) & 0xFFFF;
    }

    private static long sequence(final byte[] packet)
    {
        return ByteBuffer.wrap(packet).order(ByteOrder.BIG_ENDIAN).getLong(10);
    }

    /** A Broken Trade (19 bytes), as the end-of-session tests append. */
    private static ItchEvent brokenTrade()
    {
        final ItchEvent event = new ItchEvent().reset();
        event.type = 'B';
        event.matchNumber = 1;
        return event;
    }
}
