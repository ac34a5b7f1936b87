package io.mdfanout.feed.sim;

import io.mdfanout.testing.AllocationWindows;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.nio.channels.DatagramChannel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The message path allocates nothing in steady state: generator + encoder + packetizer, the pacer, the
 * multicast send, and the pre-encoded session's sender.
 */
class AllocationTest
{
    private final SimulatorCounters counters = SimulatorCounters.create();
    private final ItchEvent event = new ItchEvent();
    private long packetBytes;

    @Test
    void generatorEncoderAndPacketizerAllocateNothing() throws Exception
    {
        final SessionGenerator generator = new SessionGenerator(3, new SessionConfig().symbols(200).messageCount(0));
        final MoldUdp64Packetizer packetizer = new MoldUdp64Packetizer("ALLOC", 1400, 1_000_000_000L,
            SystemNanoClock.INSTANCE, (buffer, offset, length) -> packetBytes += length, counters);
        final RatePacer pacer = RatePacer.steady(0, System.nanoTime());

        for (int i = 0; i < 20; i++)
        {
            run(generator, packetizer, pacer, 100_000);
        }
        final int windows = AllocationWindows.assertOneWindowAllocatesNothing(
            "over 2,000,000 messages", AllocationWindows.WINDOWS, () -> run(generator, packetizer, pacer, 2_000_000));
        assertEquals(2_000_000 + windows * 2_000_000L, counters.messagesSent().get() + packetizer.pendingMessages());
    }

    @Test
    @SuppressWarnings("try")  // the receiver only has to be joined, so the kernel delivers the packets somewhere
    void multicastSendAllocatesNothing() throws Exception
    {
        try (DatagramChannel receiver = MulticastSenderTest.joinedReceiver("239.255.44.3", 44003);
            MulticastSender sender = new MulticastSender("239.255.44.3", 44003, "127.0.0.1", 0, 1400, counters))
        {
            final SessionGenerator generator = new SessionGenerator(3, new SessionConfig().symbols(10).messageCount(0));
            final MoldUdp64Packetizer packetizer = new MoldUdp64Packetizer("ALLOC", 1400, 1_000_000_000L,
                SystemNanoClock.INSTANCE, sender, counters);
            final RatePacer pacer = RatePacer.steady(0, System.nanoTime());

            // Warm up, in several calls, until the JIT has settled: the first million or so messages see one-off
            // allocations from compilation and deoptimization, never again afterwards.
            for (int i = 0; i < 15; i++)
            {
                run(generator, packetizer, pacer, 100_000);
            }
            AllocationWindows.assertOneWindowAllocatesNothing(
                "sending 500,000 messages", AllocationWindows.WINDOWS, () -> run(generator, packetizer, pacer, 500_000));
            assertEquals(0, counters.sendErrors().get());
        }
    }

    @Test
    @SuppressWarnings("try")  // the receivers only have to be joined, so the kernel delivers the packets somewhere
    void twoLossyLinesWithRetransmissionHistoryAllocateNothing() throws Exception
    {
        try (DatagramChannel receiverA = MulticastSenderTest.joinedReceiver("239.255.47.41", 47041);
            DatagramChannel receiverB = MulticastSenderTest.joinedReceiver("239.255.47.43", 47043);
            MulticastSender senderA = new MulticastSender("239.255.47.41", 47041, "127.0.0.1", 0, 1400, counters);
            MulticastSender senderB = new MulticastSender("239.255.47.43", 47043, "127.0.0.1", 0, 1400, counters))
        {
            final LossModel lossA = new LossModel(1, 0.01, 5, 0.001, new long[]{ 100 }, new long[]{ 50 });
            final LossModel lossB = new LossModel(2, 0.02, 0, 0.0, new long[]{ 10_000 }, new long[]{ 10 });
            final PacketDistributor distributor = new PacketDistributor(null,
                new RetransmissionHistory(100_000, ItchEncoder.MAX_MESSAGE_LENGTH),
                new SimulatedLine(senderA, lossA, counters.lineAPacketsSent(), counters.lineADataPacketsDropped()),
                new SimulatedLine(senderB, lossB, counters.lineBPacketsSent(), counters.lineBDataPacketsDropped()));
            final SessionGenerator generator = new SessionGenerator(3, new SessionConfig().symbols(10).messageCount(0));
            final MoldUdp64Packetizer packetizer = new MoldUdp64Packetizer("ALLOC", 1400, 1_000_000_000L,
                SystemNanoClock.INSTANCE, distributor, counters);
            final RatePacer pacer = RatePacer.steady(0, System.nanoTime());

            for (int i = 0; i < 15; i++)
            {
                run(generator, packetizer, pacer, 100_000);
            }
            AllocationWindows.assertOneWindowAllocatesNothing("sending 500,000 messages on two lossy lines",
                AllocationWindows.WINDOWS, () -> run(generator, packetizer, pacer, 500_000));
            assertEquals(0, counters.sendErrors().get());
            assertTrue(counters.lineADataPacketsDropped().get() > 0 && counters.lineBDataPacketsDropped().get() > 0,
                "the loss models were active");
        }
    }

    @Test
    @SuppressWarnings("try")  // the receiver only has to be joined, so the kernel delivers the packets somewhere
    void preEncodedSendAllocatesNothing() throws Exception
    {
        try (DatagramChannel receiver = MulticastSenderTest.joinedReceiver("239.255.44.15", 44015);
            MulticastSender sender = new MulticastSender("239.255.44.15", 44015, "127.0.0.1", 0, 1400, counters);
            SimulatorCounters scratch = SimulatorCounters.create();
            PreEncodedSession session = new PreEncodedSession())
        {
            final SessionGenerator generator =
                new SessionGenerator(3, new SessionConfig().symbols(10).messageCount(3_000_000));
            final MoldUdp64Packetizer packer = new MoldUdp64Packetizer("ALLOC", 1400, 1_000_000_000L,
                SystemNanoClock.INSTANCE, session, scratch);
            while (generator.next(event))
            {
                packer.append(event);
            }
            packer.flush();
            final MoldUdp64Packetizer live = new MoldUdp64Packetizer("ALLOC", 1400, 1_000_000_000L,
                SystemNanoClock.INSTANCE, sender, counters);
            final PreEncodedSender preEncoded = new PreEncodedSender(session, live, sender,
                RatePacer.steady(0, System.nanoTime()), SystemNanoClock.INSTANCE);

            send(preEncoded, 1_500_000);
            AllocationWindows.assertOneWindowAllocatesNothing("sending 400,000 pre-encoded messages",
                AllocationWindows.WINDOWS, () -> send(preEncoded, 400_000));
            assertEquals(0, counters.sendErrors().get());
            assertTrue(!preEncoded.isDone(), "the windows sent from the session, not after its end");
        }
    }

    private static void send(final PreEncodedSender sender, final long messages)
    {
        final long until = sender.messages() + messages;
        while (sender.messages() < until)
        {
            sender.doWork();
        }
    }

    private void run(
        final SessionGenerator generator, final MoldUdp64Packetizer packetizer, final RatePacer pacer, final int messages)
    {
        for (int i = 0; i < messages; i++)
        {
            pacer.available(System.nanoTime());
            generator.next(event);
            packetizer.append(event);
            pacer.consume(1);
            if ((i & 63) == 0)
            {
                packetizer.flush();
                packetizer.heartbeatIfIdle();
            }
        }
    }
}
