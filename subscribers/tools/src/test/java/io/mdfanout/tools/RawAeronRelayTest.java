package io.mdfanout.tools;

import io.mdfanout.feed.support.ItchBytes;
import io.mdfanout.feed.support.MoldPackets;
import io.mdfanout.testing.AllocationWindows;
import io.mdfanout.wire.ExitCodes;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * raw-aeron-relay: MoldUDP64 datagrams in, {@link RawAeronMessage}s out. Exact stamps and sequences from hand-made
 * packets and a fixed clock; then the command between a real multicast sender and {@code raw-aeron-sub} over real
 * Aeron.
 */
class RawAeronRelayTest
{
    private static final String SESSION = "SESSION001";
    private static final long DAY = LatencyRecorder.NANOS_PER_DAY;
    /** 2026-11-29 10:00:00.000001 UTC, in nanoseconds since the epoch. */
    private static final long NOW = 1_795_946_400_000_001_000L;
    private static final long TIME_OF_DAY = Math.floorMod(NOW, DAY);
    private static final int LENGTH = 48;
    private static final String CHANNEL = "aeron:udp?endpoint=224.0.1.7:40478|interface=127.0.0.1|mtu=8192";

    private final List<long[]> offers = new ArrayList<>();

    @Test
    void eachMessageCarriesTheSimulatorsStampAndItsSequence()
    {
        final RawAeronRelayCommand.PacketRelay relay = relay(LENGTH, false);
        onDatagram(relay, MoldPackets.packet(SESSION, 1,
            message(TIME_OF_DAY - 5_000), message(TIME_OF_DAY - 3_000), message(TIME_OF_DAY - 1_000)));

        assertEquals(3, offers.size(), "one offer a message without --batch");
        assertOffer(0, NOW - 5_000, 0);
        assertOffer(1, NOW - 3_000, 1);
        assertOffer(2, NOW - 1_000, 2);
        assertEquals(3, relay.messages());
        assertEquals(0, relay.missing());
    }

    @Test
    void aStampFromBeforeMidnightIsYesterdays()
    {
        final long justAfterMidnight = NOW - TIME_OF_DAY + 500;
        final RawAeronRelayCommand.PacketRelay relay =
            new RawAeronRelayCommand.PacketRelay(() -> justAfterMidnight, LENGTH, LENGTH, false, this::take);
        onDatagram(relay, MoldPackets.packet(SESSION, 1, message(DAY - 1_000)));

        assertOffer(0, justAfterMidnight - 1_500, 0);
    }

    @Test
    void batchedADatagramIsOneOfferUpToTheCapacity()
    {
        final RawAeronRelayCommand.PacketRelay relay = relay(2 * LENGTH, false);
        onDatagram(relay, MoldPackets.packet(SESSION, 1,
            message(TIME_OF_DAY - 5_000), message(TIME_OF_DAY - 3_000), message(TIME_OF_DAY - 1_000)));

        assertEquals(2, offers.size(), "two messages fill an offer, the third goes with the datagram's end");
        assertOffer(0, NOW - 5_000, 0, NOW - 3_000, 1);
        assertOffer(1, NOW - 1_000, 2);
    }

    @Test
    void stampReceiveTimeStampsEveryMessageWithTheDatagramsReceipt()
    {
        final RawAeronRelayCommand.PacketRelay relay = relay(LENGTH, true);
        onDatagram(relay, MoldPackets.packet(SESSION, 1, message(TIME_OF_DAY - 5_000), message(TIME_OF_DAY - 9)));

        assertOffer(0, NOW, 0);
        assertOffer(1, NOW, 1);
    }

    @Test
    void heartbeatsAreSkippedAGapIsCountedAndTheEndOfSessionEnds()
    {
        final RawAeronRelayCommand.PacketRelay relay = relay(LENGTH, false);
        onDatagram(relay, MoldPackets.packet(SESSION, 1, message(TIME_OF_DAY), message(TIME_OF_DAY)));
        onDatagram(relay, MoldPackets.heartbeat(SESSION, 3));
        onDatagram(relay, MoldPackets.packet(SESSION, 5, message(TIME_OF_DAY)));
        assertTrue(!relay.ended());
        onDatagram(relay, MoldPackets.endOfSession(SESSION, 6));

        assertEquals(3, offers.size());
        assertOffer(2, NOW, 4);
        assertEquals(2, relay.missing(), "sequences 3 and 4 never came");
        assertEquals(4, relay.datagrams());
        assertTrue(relay.ended());
    }

    @Test
    void malformedDatagramsAreCountedAndWhatFollowsTheBadBlockIsNotRelayed()
    {
        final RawAeronRelayCommand.PacketRelay relay = relay(LENGTH, false);
        onDatagram(relay, new byte[10]);
        onDatagram(relay, MoldPackets.packetWithCount(SESSION, 1, 3, message(TIME_OF_DAY), message(TIME_OF_DAY)));
        onDatagram(relay, MoldPackets.packet(SESSION, 4, new byte[5], message(TIME_OF_DAY)));

        assertEquals(3, relay.malformed(), "too short, a block past the end, a message without a timestamp");
        assertEquals(2, offers.size(), "the two whole messages of the second datagram");
        assertOffer(1, NOW, 1);
    }

    @Test
    void relayingAllocatesNothing() throws Exception
    {
        final RawAeronRelayCommand.PacketRelay relay =
            new RawAeronRelayCommand.PacketRelay(() -> NOW, LENGTH, 20 * LENGTH, false, (buffer, length) -> { });
        final UnsafeBuffer packet = new UnsafeBuffer(MoldPackets.packet(SESSION, 1,
            message(TIME_OF_DAY), message(TIME_OF_DAY), message(TIME_OF_DAY), message(TIME_OF_DAY)));
        final Runnable many = () ->
        {
            for (int i = 0; i < 200_000; i++)
            {
                packet.putLong(10, 1 + 4L * i, ByteOrder.BIG_ENDIAN);
                relay.onDatagram(packet, 0, packet.capacity());
            }
        };
        for (int round = 0; round < 3; round++)
        {
            packet.putLong(10, 1, ByteOrder.BIG_ENDIAN);
            many.run();
        }
        AllocationWindows.assertOneWindowAllocatesNothing("relaying 800,000 messages", AllocationWindows.WINDOWS,
            many::run);
    }

    /**
     * The command between a multicast sender on loopback and raw-aeron-sub over real Aeron: every message of 2,000
     * datagrams arrives, batched and split again, each measured, and the end of the session (one datagram more) ends
     * both.
     */
    @Test
    void everyDatagramsMessagesArriveOverAeron(@TempDir final Path dir) throws Exception
    {
        final int datagrams = 2_000;
        final int perDatagram = 5;
        final long messages = (long)datagrams * perDatagram;
        final Path subReady = dir.resolve("sub-ready");
        final Path relayReady = dir.resolve("relay-ready");
        final Path json = dir.resolve("sub.json");
        final CompletableFuture<Integer> sub = CompletableFuture.supplyAsync(() -> new CommandLine(
            new RawAeronSubCommand()).execute("--channel", CHANNEL, "--stream-id", "81", "--messages",
            Long.toString(messages), "--message-length", Integer.toString(LENGTH), "--timeout-s", "60",
            "--ready-file", subReady.toString(), "--json-out", json.toString()));
        final RawAeronRelayCommand relayCommand = new RawAeronRelayCommand();
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        relayCommand.stdout = new PrintStream(out, true, StandardCharsets.UTF_8);
        final CompletableFuture<Integer> relay = CompletableFuture.supplyAsync(() -> new CommandLine(relayCommand)
            .execute("--group", "239.1.7.81", "--port", "26481", "--channel", CHANNEL, "--stream-id", "81",
                "--batch", "--timeout-s", "60", "--ready-file", relayReady.toString()));
        awaitFile(relayReady, relay);

        final InetAddress group = InetAddress.getByName("239.1.7.81");
        try (DatagramChannel sender = DatagramChannel.open(StandardProtocolFamily.INET))
        {
            sender.setOption(StandardSocketOptions.IP_MULTICAST_IF,
                NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress()));
            sender.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, true);
            final InetSocketAddress target = new InetSocketAddress(group, 26481);
            for (int d = 0; d < datagrams; d++)
            {
                final byte[][] batch = new byte[perDatagram][];
                for (int m = 0; m < perDatagram; m++)
                {
                    batch[m] = message(Math.floorMod(System.currentTimeMillis() * 1_000_000L, DAY));
                }
                sender.send(ByteBuffer.wrap(MoldPackets.packet(SESSION, 1 + (long)d * perDatagram, batch)), target);
                if (d % 50 == 49)
                {
                    Thread.sleep(1); // well within the socket's buffer: this test is about the relay, not loss
                }
            }
            sender.send(ByteBuffer.wrap(MoldPackets.endOfSession(SESSION, 1 + messages)), target);
        }

        assertEquals(ExitCodes.OK, relay.get(60, TimeUnit.SECONDS).intValue(), out.toString(StandardCharsets.UTF_8));
        assertEquals(ExitCodes.OK, sub.get(60, TimeUnit.SECONDS).intValue());
        final String done = out.toString(StandardCharsets.UTF_8);
        assertTrue(done.contains("datagrams=" + (datagrams + 1) + " messages=" + messages + " missing=0 malformed=0 "), done);
        final String report = Files.readString(json);
        assertTrue(report.contains("\"count\":" + messages + ","), report);
        assertTrue(report.contains("\"messages\":" + messages + ",\"missing\":0,\"exit\":0"), report);
    }

    @Test
    void badOptionsAreOneLineErrors()
    {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final RawAeronRelayCommand relay = new RawAeronRelayCommand();
        relay.stderr = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertEquals(ExitCodes.CONFIG, new CommandLine(relay).execute("--group", "10.0.0.1"));
        assertEquals(ExitCodes.CONFIG, new CommandLine(relay).execute("--message-length", "8"));
        assertEquals("raw-aeron-relay: --group is not a multicast address: 10.0.0.1\n" +
            "raw-aeron-relay: need 1 <= --port <= 65535, --message-length >= 16, --connect-timeout-s > 0, " +
            "--timeout-s >= 0, --receive-buffer-bytes > 0 and an Aeron --channel (" + RawAeronMessage.DEFAULT_CHANNEL +
            ")\n", err.toString(StandardCharsets.UTF_8));
    }

    private RawAeronRelayCommand.PacketRelay relay(final int capacity, final boolean stampReceiveTime)
    {
        return new RawAeronRelayCommand.PacketRelay(() -> NOW, LENGTH, capacity, stampReceiveTime, this::take);
    }

    /** Keeps each offer as (stamp, sequence) pairs. */
    private void take(final DirectBuffer buffer, final int length)
    {
        final long[] pairs = new long[length / LENGTH * 2];
        for (int i = 0; i < pairs.length / 2; i++)
        {
            pairs[2 * i] = buffer.getLong(i * LENGTH + RawAeronMessage.SCHEDULED_TIME_OFFSET, ByteOrder.LITTLE_ENDIAN);
            pairs[2 * i + 1] = buffer.getLong(i * LENGTH + RawAeronMessage.SEQUENCE_OFFSET, ByteOrder.LITTLE_ENDIAN);
        }
        offers.add(pairs);
    }

    private void assertOffer(final int index, final long... stampsAndSequences)
    {
        assertEquals(Arrays.toString(stampsAndSequences), Arrays.toString(offers.get(index)));
    }

    private static void onDatagram(final RawAeronRelayCommand.PacketRelay relay, final byte[] datagram)
    {
        relay.onDatagram(new UnsafeBuffer(datagram), 0, datagram.length);
    }

    /** An ITCH Order Delete ('D', 19 bytes) stamped with a time of day. */
    private static byte[] message(final long timeOfDayNs)
    {
        return new ItchBytes(19, 'D', 1, 0, timeOfDayNs).u64(11, 42).bytes();
    }

    private static void awaitFile(final Path file, final CompletableFuture<Integer> command) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(file))
        {
            assertTrue(!command.isDone(), "exited before it was ready: " + (command.isDone() ? command.get() : ""));
            assertTrue(System.nanoTime() < deadline, "not ready within 60 s");
            Thread.sleep(20);
        }
    }
}
