package io.mdfanout.feed.sim;

import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two real multicast lines on the loopback interface, received by plain DatagramChannels joined to both groups:
 * each line loses exactly the data packets its loss model picks, never a heartbeat or the end of session.
 */
class TwoLineSendTest
{
    private static final String GROUP_A = "239.255.47.1";
    private static final int PORT_A = 47001;
    private static final String GROUP_B = "239.255.47.3";
    private static final int PORT_B = 47003;

    @Test
    void eachLineLosesExactlyWhatItsModelSays() throws Exception
    {
        final List<byte[]> generated = new ArrayList<>();
        try (SimulatorCounters counters = SimulatorCounters.create();
            DatagramChannel receiverA = MulticastSenderTest.joinedReceiver(GROUP_A, PORT_A);
            DatagramChannel receiverB = MulticastSenderTest.joinedReceiver(GROUP_B, PORT_B);
            MulticastSender senderA = new MulticastSender(GROUP_A, PORT_A, "127.0.0.1", 0, 1400, counters);
            MulticastSender senderB = new MulticastSender(GROUP_B, PORT_B, "127.0.0.1", 0, 1400, counters))
        {
            final SimulatedLine lineA = new SimulatedLine(senderA, lossA(), counters.lineAPacketsSent(),
                counters.lineADataPacketsDropped());
            final SimulatedLine lineB = new SimulatedLine(senderB, lossB(), counters.lineBPacketsSent(),
                counters.lineBDataPacketsDropped());
            final MoldUdp64Packetizer packetizer = new MoldUdp64Packetizer("TWOLINES", 1400, 1_000_000L,
                SystemNanoClock.INSTANCE, new PacketDistributor((buffer, offset, length) ->
                {
                    final byte[] copy = new byte[length];
                    buffer.getBytes(offset, copy);
                    generated.add(copy);
                }, null, lineA, lineB), counters);
            final SessionGenerator generator = new SessionGenerator(8, new SessionConfig().symbols(10).messageCount(8_000));
            final ItchEvent event = new ItchEvent();
            int i = 0;
            while (generator.next(event))
            {
                packetizer.append(event);
                if (++i % 2_000 == 0)
                {
                    packetizer.flush();
                    Thread.sleep(2);
                    packetizer.heartbeatIfIdle();  // heartbeats are never lost
                }
            }
            packetizer.endOfSession();

            final List<byte[]> expectedA = survivors(generated, lossA());
            final List<byte[]> expectedB = survivors(generated, lossB());
            assertTrue(expectedA.size() < generated.size() && expectedB.size() < generated.size(), "both lose some");
            assertLineReceived(expectedA, MulticastSenderTest.receiveUntilEndOfSession(receiverA, 5_000), "A");
            assertLineReceived(expectedB, MulticastSenderTest.receiveUntilEndOfSession(receiverB, 5_000), "B");
            assertEquals(generated.size() - expectedA.size(), counters.lineADataPacketsDropped().get());
            assertEquals(generated.size() - expectedB.size(), counters.lineBDataPacketsDropped().get());
            assertEquals(expectedA.size(), counters.lineAPacketsSent().get());
            assertEquals(expectedB.size(), counters.lineBPacketsSent().get());
            assertEquals(0, counters.sendErrors().get());
        }
    }

    @Test
    void commandWithDisjointOutagesOnTwoLinesCoversEveryMessage() throws Exception
    {
        final String groupA = "239.255.47.5";
        final int portA = 47005;
        final String groupB = "239.255.47.7";
        final int portB = 47007;
        try (DatagramChannel receiverA = MulticastSenderTest.joinedReceiver(groupA, portA);
            DatagramChannel receiverB = MulticastSenderTest.joinedReceiver(groupB, portB))
        {
            final CompletableFuture<Integer> run = CompletableFuture.supplyAsync(() ->
                new CommandLine(new SimulatorCommand()).execute(
                    "--group", groupA, "--port", String.valueOf(portA), "--group-b", groupB, "--port-b",
                    String.valueOf(portB), "--interface", "127.0.0.1", "--ttl", "0", "--session", "UNION",
                    "--seed", "3", "--symbols", "5", "--messages", "4000", "--rate", "0", "--stats-interval-s", "0",
                    "--drop-a", "3:10", "--drop-a", "40:5", "--drop-b", "20:15", "--drop-b", "1:1"));
            final List<byte[]> packetsA = MulticastSenderTest.receiveUntilEndOfSession(receiverA, 10_000);
            final List<byte[]> packetsB = MulticastSenderTest.receiveUntilEndOfSession(receiverB, 10_000);
            assertEquals(0, run.get().intValue());

            final BitSet onA = sequencesCovered(packetsA);
            final BitSet onB = sequencesCovered(packetsB);
            final BitSet union = (BitSet)onA.clone();
            union.or(onB);
            assertEquals(4_000, union.cardinality(), "every message on at least one line");
            assertEquals(4_000, union.nextClearBit(1) - 1, "messages 1..4000");
            assertTrue(onA.cardinality() < 4_000 && onB.cardinality() < 4_000, "each line lost some");

            // Number the session's data packets by their first sequence (the union has them all), then check that
            // each line lost exactly its outages.
            final java.util.TreeSet<Long> allFirsts = new java.util.TreeSet<>(firstSequences(packetsA));
            allFirsts.addAll(firstSequences(packetsB));
            final List<Long> numbered = new ArrayList<>(allFirsts);
            assertEquals(lostPackets(numbered, firstSequences(packetsA)), List.of(3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                40, 41, 42, 43, 44), "line A lost");
            assertEquals(lostPackets(numbered, firstSequences(packetsB)), List.of(1, 20, 21, 22, 23, 24, 25, 26, 27,
                28, 29, 30, 31, 32, 33, 34), "line B lost");
        }
    }

    private static LossModel lossA()
    {
        return new LossModel(101, 0.05, 3, 0.01, new long[0], new long[0]);
    }

    private static LossModel lossB()
    {
        return new LossModel(202, 0.02, 0, 0.0, new long[]{ 10 }, new long[]{ 8 });
    }

    /** The packets a line with this model sends: every non-data packet, and the data packets the model keeps. */
    private static List<byte[]> survivors(final List<byte[]> generated, final LossModel model)
    {
        final List<byte[]> kept = new ArrayList<>();
        for (final byte[] packet : generated)
        {
            final int count = ByteBuffer.wrap(packet).getShort(18) & 0xFFFF;
            if (0 == count || 0xFFFF == count || !model.dropNext())
            {
                kept.add(packet);
            }
        }
        return kept;
    }

    private static void assertLineReceived(final List<byte[]> expected, final List<byte[]> received, final String line)
    {
        assertEquals(expected.size(), received.size(), "packets on line " + line);
        for (int i = 0; i < expected.size(); i++)
        {
            assertArrayEquals(expected.get(i), received.get(i), "line " + line + " packet " + i);
        }
    }

    private static BitSet sequencesCovered(final List<byte[]> packets)
    {
        final BitSet sequences = new BitSet();
        for (final byte[] packet : packets)
        {
            final ByteBuffer view = ByteBuffer.wrap(packet).order(ByteOrder.BIG_ENDIAN);
            final int count = view.getShort(18) & 0xFFFF;
            if (0 != count && 0xFFFF != count)
            {
                final long first = view.getLong(10);
                sequences.set((int)first, (int)first + count);
            }
        }
        return sequences;
    }

    private static List<Long> firstSequences(final List<byte[]> packets)
    {
        final List<Long> firsts = new ArrayList<>();
        for (final byte[] packet : packets)
        {
            final int count = ByteBuffer.wrap(packet).getShort(18) & 0xFFFF;
            if (0 != count && 0xFFFF != count)
            {
                firsts.add(ByteBuffer.wrap(packet).getLong(10));
            }
        }
        return firsts;
    }

    /** The numbers (from 1) of the session's data packets that a line did not deliver. */
    private static List<Integer> lostPackets(final List<Long> numbered, final List<Long> delivered)
    {
        final List<Integer> lost = new ArrayList<>();
        for (int i = 0; i < numbered.size(); i++)
        {
            if (!delivered.contains(numbered.get(i)))
            {
                lost.add(i + 1);
            }
        }
        return lost;
    }
}
