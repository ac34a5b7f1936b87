package io.mdfanout.feed.sim;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static java.nio.ByteOrder.BIG_ENDIAN;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PreEncodedSenderTest
{
    private static final String SESSION = "PREENC0001";
    private static final int MESSAGES = 50_000;

    private final SimulatorCounters counters = SimulatorCounters.create();
    private final SimulatorCounters scratch = SimulatorCounters.create();
    private final CachedNanoClock clock = new CachedNanoClock();
    private final List<byte[]> sent = new ArrayList<>();
    private final PreEncodedSession session = new PreEncodedSession();

    @AfterEach
    void tearDown()
    {
        session.close();
        counters.close();
        scratch.close();
    }

    @Test
    void sendsTheVeryPacketsThePerMessageSimulatorSendsThenItsEndOfSession()
    {
        final List<byte[]> expected = new ArrayList<>();
        final MoldUdp64Packetizer reference = new MoldUdp64Packetizer(SESSION, 1400, 1_000_000_000L, clock,
            (buffer, offset, length) -> expected.add(copy(buffer, offset, length)), scratch);
        final SessionGenerator generator = new SessionGenerator(7, new SessionConfig().symbols(20).messageCount(MESSAGES));
        final ItchEvent event = new ItchEvent();
        while (generator.next(event))
        {
            reference.append(event);
        }
        reference.endOfSession();

        final PreEncodedSender sender = sender(0, RatePacer.steady(0, 0));
        while (!sender.isDone())
        {
            sender.doWork();
        }

        assertEquals(expected.size(), sent.size(), "packets");
        for (int i = 0; i < expected.size(); i++)
        {
            assertArrayEquals(expected.get(i), sent.get(i), "packet " + i);
        }
        assertEquals(MESSAGES, counters.messagesSent().get());
        assertEquals(sent.size(), counters.packetsSent().get(), "data packets and the end of session");
        assertEquals(0, sender.doWork(), "nothing after the end");
    }

    @Test
    void wholePacketsAtTheRateOnAverageAtMostAPacketAheadAndHeartbeatsCarryTheNextSequence()
    {
        final long rate = 100_000;
        final PreEncodedSender sender = sender(0, RatePacer.steady(rate, 0));
        long sentMessages = 0;
        for (long nowNs = 0; nowNs <= 200_000_000L; nowNs += 10_000)
        {
            clock.update(nowNs);
            sentMessages += sender.doWork();
            final long owed = rate * nowNs / 1_000_000_000L;
            assertTrue(sentMessages <= owed + maxMessagesPerPacket(), "at most a packet ahead at " + nowNs + " ns: " +
                sentMessages + " sent, " + owed + " due");
            assertTrue(sentMessages >= owed - maxMessagesPerPacket(), "at most a packet behind at " + nowNs + " ns: " +
                sentMessages + " sent, " + owed + " due");
        }
        assertEquals(20_000, sentMessages, maxMessagesPerPacket());
    }

    @Test
    void aLineWithNothingDueSendsHeartbeatsThatCarryTheSequenceAfterTheLastPacket()
    {
        final long warmup = 1_234;
        final PreEncodedSender sender = sender(warmup, RatePacer.steady(1, 0));
        sender.warmup(warmup, RatePacer.steady(0, 0));
        clock.update(1_000);
        assertEquals(warmup, sender.doWork());
        final int packets = sent.size();
        clock.update(1_000 + 500_000_000L);
        assertEquals(0, sender.doWork(), "half a message due at 1/s");
        assertEquals(packets + 1, sent.size(), "a heartbeat after the heartbeat interval");
        final byte[] heartbeat = sent.get(sent.size() - 1);
        assertEquals(MoldUdp64Packetizer.HEADER_LENGTH, heartbeat.length);
        assertEquals(warmup + 1, nextSequence(), "the sequence after the last data packet");
        assertEquals(1, counters.heartbeatsSent().get());
    }

    @Test
    void theWarmupEndsOnAPacketBoundaryAndTheMeasuredRateStartsWithNoCredit()
    {
        final long warmup = 1_234;
        final PreEncodedSender sender = sender(warmup, RatePacer.steady(1_000, 0));
        sender.warmup(warmup, RatePacer.steady(0, 0));
        clock.update(1_000);
        assertEquals(warmup, sender.doWork(), "the warm-up at its own (unlimited) rate, to its last message exactly");
        assertEquals(1_000, sender.measuredStartNs());
        assertEquals(0, sender.doWork(), "no credit at the start of the measured rate");
        clock.update(1_000 + 100_000_000L);
        final int measured = sender.doWork();
        assertTrue(measured > 0 && measured <= 10 + maxMessagesPerPacket(), "a tenth of a second at 1,000/s, the " +
            "credit capped at 10 ms: " + measured);
    }

    @Test
    void aPacketOfMoreMessagesThanThePacersCreditCapStillGoes()
    {
        // 10 messages/s: the pacer's credit never exceeds 1 message, packets hold tens.
        final PreEncodedSender sender = sender(0, RatePacer.steady(10, 0));
        long messages = 0;
        for (long nowNs = 0; nowNs <= 20_000_000_000L; nowNs += 1_000_000L)
        {
            clock.update(nowNs);
            messages += sender.doWork();
        }
        assertTrue(messages >= 200 - maxMessagesPerPacket() && messages <= 200 + maxMessagesPerPacket(),
            "20 s at 10/s: " + messages);
    }

    @Test
    void onlyDataPacketsArePreEncoded()
    {
        final MoldUdp64Packetizer packer = new MoldUdp64Packetizer(SESSION, 1400, 1_000_000_000L, clock, session,
            scratch);
        assertThrows(IllegalArgumentException.class, packer::endOfSession);
    }

    private PreEncodedSender sender(final long warmupBoundary, final RatePacer pacer)
    {
        final MoldUdp64Packetizer packer = new MoldUdp64Packetizer(SESSION, 1400, 1_000_000_000L, clock, session,
            scratch);
        final SessionGenerator generator = new SessionGenerator(7, new SessionConfig().symbols(20).messageCount(MESSAGES));
        final ItchEvent event = new ItchEvent();
        long packed = 0;
        while (generator.next(event))
        {
            packer.append(event);
            if (++packed == warmupBoundary)
            {
                packer.flush();
            }
        }
        packer.flush();
        assertEquals(MESSAGES, session.messages());
        final MoldUdp64Packetizer live = new MoldUdp64Packetizer(SESSION, 1400, 100_000_000L, clock,
            (buffer, offset, length) -> sent.add(copy(buffer, offset, length)), counters);
        return new PreEncodedSender(session, live, (buffer, offset, length) -> sent.add(copy(buffer, offset, length)),
            pacer, clock);
    }

    private int maxMessagesPerPacket()
    {
        int max = 0;
        for (int i = 0; i < session.packets(); i++)
        {
            max = Math.max(max, session.messageCount(i));
        }
        return max;
    }

    private long nextSequence()
    {
        final byte[] last = sent.get(sent.size() - 1);
        final UnsafeBuffer buffer = new UnsafeBuffer(last);
        return buffer.getLong(MoldUdp64Packetizer.SEQUENCE_OFFSET, BIG_ENDIAN) +
            (buffer.getShort(MoldUdp64Packetizer.COUNT_OFFSET, BIG_ENDIAN) & 0xFFFF);
    }

    private static byte[] copy(final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        return bytes;
    }
}
