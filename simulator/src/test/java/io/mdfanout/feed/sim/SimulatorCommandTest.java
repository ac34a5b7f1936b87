package io.mdfanout.feed.sim;

import io.mdfanout.wire.ExitCodes;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SimulatorCommandTest
{
    @TempDir
    Path dir;

    @Test
    void coalescingSendsTheSameMessagesInFullerPackets() throws Exception
    {
        final String group = "239.255.44.11";
        final int port = 44011;
        try (DatagramChannel receiver = MulticastSenderTest.joinedReceiver(group, port))
        {
            // 300,000 msg/s held 2 ms at a time: 600 messages due at each send, so the packets leave full.
            final CompletableFuture<Integer> run = CompletableFuture.supplyAsync(() -> execute(
                "--group", group, "--port", String.valueOf(port), "--interface", "127.0.0.1", "--ttl", "0",
                "--session", "COALESCE", "--seed", "4", "--symbols", "5", "--messages", "3000", "--rate", "300000",
                "--coalesce-us", "2000", "--stats-interval-s", "0"));
            final List<byte[]> packets = MulticastSenderTest.receiveUntilEndOfSession(receiver, 10_000);
            assertEquals(0, run.get().intValue());
            assertArrayEquals(messageImage(4, 5, 3_000), reassemble(packets), "all 3000 messages, in sequence");
            final long dataPackets = packets.stream()
                .filter(p -> (ByteBuffer.wrap(p).getShort(18) & 0xFFFF) != 0xFFFF && ByteBuffer.wrap(p).getShort(18) != 0)
                .count();
            assertTrue(dataPackets <= 3_000 / 20, "packets of 20 messages or more on average: " + dataPackets);
        }
    }

    @Test
    void noSendWritesTheSessionOfTheSeedToAFile() throws Exception
    {
        final Path file = dir.resolve("s.itch");
        assertEquals(0, execute("--no-send", "--itch-file", file.toString(), "--messages", "2000", "--symbols", "5",
            "--seed", "9"));
        assertArrayEquals(fileImage(9, 5, 2_000), Files.readAllBytes(file));
    }

    @Test
    void sendsTheWholeSessionOverMulticastThenEndOfSession() throws Exception
    {
        final String group = "239.255.44.5";
        final int port = 44005;
        final Path file = dir.resolve("sent.itch.gz");
        try (DatagramChannel receiver = MulticastSenderTest.joinedReceiver(group, port))
        {
            final CompletableFuture<Integer> run = CompletableFuture.supplyAsync(() -> execute(
                "--group", group, "--port", String.valueOf(port), "--interface", "127.0.0.1", "--ttl", "0",
                "--session", "CMDTEST", "--seed", "4", "--symbols", "5", "--messages", "3000", "--rate", "0",
                "--stats-interval-s", "0", "--itch-file", file.toString()));
            final byte[] messages = reassemble(MulticastSenderTest.receiveUntilEndOfSession(receiver, 10_000));
            assertEquals(0, run.get().intValue());
            assertArrayEquals(messageImage(4, 5, 3_000), messages, "all 3000 messages, in sequence, then end of session");
            assertTrue(Files.size(file) > 0, "and recorded the session to the file");
        }
    }

    @Test
    void retransmissionServerAnswersAfterTheEndOfSessionDuringLinger() throws Exception
    {
        final String group = "239.255.47.9";
        final int port = 47009;
        final int retransmitPort = 47010;
        try (DatagramChannel receiver = MulticastSenderTest.joinedReceiver(group, port);
            DatagramChannel client = DatagramChannel.open())
        {
            client.bind(new java.net.InetSocketAddress("127.0.0.1", 0));
            final long start = System.nanoTime();
            final CompletableFuture<Integer> run = CompletableFuture.supplyAsync(() -> execute(
                "--group", group, "--port", String.valueOf(port), "--interface", "127.0.0.1", "--ttl", "0",
                "--session", "LINGER", "--seed", "12", "--symbols", "5", "--messages", "3000", "--rate", "0",
                "--stats-interval-s", "0", "--retransmit-port", String.valueOf(retransmitPort),
                "--retransmit-history-messages", "2500", "--linger-ms", "1500", "--loss-a", "0.5",
                "--retransmit-answer", "all"));
            final List<byte[]> live = MulticastSenderTest.receiveUntilEndOfSession(receiver, 10_000);
            assertEquals(0xFFFF, ByteBuffer.wrap(live.get(live.size() - 1)).getShort(18) & 0xFFFF, "session ended");

            // After the end: ask for messages 1000..1999 and get them, byte for byte, split over packets.
            final ByteBuffer request = ByteBuffer.allocate(20);
            request.put("LINGER    ".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).putLong(1000)
                .putShort((short)1000).flip();
            client.send(request, new java.net.InetSocketAddress("127.0.0.1", retransmitPort));
            final ByteArrayOutputStream messages = new ByteArrayOutputStream();
            final ByteBuffer reply = ByteBuffer.allocate(65_536);
            long expectedSequence = 1000;
            int packets = 0;
            client.socket().setSoTimeout(5_000);
            while (expectedSequence < 2000)
            {
                reply.clear();
                client.receive(reply);
                reply.flip();
                assertEquals(expectedSequence, reply.getLong(10));
                final int count = reply.getShort(18) & 0xFFFF;
                int position = 20;
                for (int i = 0; i < count; i++)
                {
                    final int length = reply.getShort(position) & 0xFFFF;
                    messages.write(reply.array(), position + 2, length);
                    position += 2 + length;
                }
                expectedSequence += count;
                packets++;
            }
            assertTrue(packets > 10, "split over packets of at most 1400 bytes: " + packets);
            assertArrayEquals(sessionMessages(12, 5, 3000, 1000, 1999), messages.toByteArray());

            assertEquals(0, run.get().intValue());
            assertTrue(System.nanoTime() - start >= 1_500_000_000L, "stayed up for --linger-ms");
        }
    }

    /**
     * A session written with --itch-file (gzip) and sent with --from-itch-file is the session the generator sends:
     * every message, in sequence, then the end of session; --messages sends only the first N.
     */
    @Test
    void sendsAnItchFileOverMulticastAsTheSessionItWasWrittenFrom() throws Exception
    {
        final Path file = dir.resolve("written.itch.gz");
        assertEquals(0, execute("--no-send", "--itch-file", file.toString(), "--messages", "3000", "--symbols", "5",
            "--seed", "4"));

        assertArrayEquals(messageImage(4, 5, 3_000), sendFile(file, "239.255.44.7", 44007));
        assertArrayEquals(sessionMessages(4, 5, 3_000, 1, 1_000), sendFile(file, "239.255.44.9", 44009,
            "--messages", "1000"));
    }

    /**
     * --pre-encode (the throughput benchmark's sender) sends the same session, from a file or generated, with a
     * warm-up, at a rate: every message in sequence over real multicast, then the end of session.
     */
    @Test
    void aPreEncodedSessionIsTheSameSessionSentWholePacketsAtATime() throws Exception
    {
        final Path file = dir.resolve("pre.itch");
        assertEquals(0, execute("--no-send", "--itch-file", file.toString(), "--messages", "30000", "--symbols", "5",
            "--seed", "4"));
        assertArrayEquals(messageImage(4, 5, 30_000), sendFile(file, "239.255.44.17", 44017, "--pre-encode"));
        assertArrayEquals(messageImage(4, 5, 30_000), sendFile(file, "239.255.44.19", 44019, "--pre-encode",
            "--rate", "200000", "--warmup-messages", "5000", "--warmup-rate", "100000"));
    }

    @Test
    void anItchFileThatEndsInsideARecordSendsWhatCameBeforeThenFailsWithExitCode1() throws Exception
    {
        final Path whole = dir.resolve("whole.itch");
        assertEquals(0, execute("--no-send", "--itch-file", whole.toString(), "--messages", "2000", "--symbols", "5",
            "--seed", "4"));
        final byte[] bytes = Files.readAllBytes(whole);
        // Cut inside the 1,501st record: 1,500 whole records, then part of one.
        int offset = 0;
        for (int i = 0; i < 1_500; i++)
        {
            offset += 2 + (((bytes[offset] & 0xFF) << 8) | (bytes[offset + 1] & 0xFF));
        }
        final Path cut = dir.resolve("cut.itch");
        Files.write(cut, java.util.Arrays.copyOf(bytes, offset + 5));

        final String group = "239.255.44.11";
        final int port = 44011;
        try (DatagramChannel receiver = MulticastSenderTest.joinedReceiver(group, port))
        {
            final CompletableFuture<Integer> run = CompletableFuture.supplyAsync(() -> execute(
                "--group", group, "--port", String.valueOf(port), "--interface", "127.0.0.1", "--ttl", "0",
                "--rate", "0", "--stats-interval-s", "0", "--from-itch-file", cut.toString()));
            final byte[] messages = reassemble(MulticastSenderTest.receiveUntilEndOfSession(receiver, 10_000));
            assertEquals(1, run.get().intValue());
            assertArrayEquals(sessionMessages(4, 5, 2_000, 1, 1_500), messages);
        }
    }

    @Test
    void anItchFileInputRefusesGeneratorOptionsCapturesAndMissingFiles() throws Exception
    {
        final Path file = dir.resolve("s.itch");
        assertEquals(0, execute("--no-send", "--itch-file", file.toString(), "--messages", "1000"));
        final Path pcap = dir.resolve("s.pcap");
        assertEquals(0, execute("--no-send", "--pcap-file", pcap.toString(), "--messages", "1000"));

        assertEquals(ExitCodes.CONFIG, execute("--from-itch-file", file.toString(), "--symbols", "5"));
        assertEquals(ExitCodes.CONFIG, execute("--from-itch-file", file.toString(), "--no-send", "--itch-file",
            dir.resolve("copy.itch").toString()));
        assertEquals(ExitCodes.CONFIG, execute("--from-itch-file", file.toString(), "--messages", "-1"));
        assertEquals(ExitCodes.CONFIG, execute("--from-itch-file", pcap.toString(), "--no-send", "--pcap-file",
            dir.resolve("x.pcap").toString()));
        assertEquals(ExitCodes.CONFIG, execute("--from-itch-file", dir.resolve("missing.itch").toString(), "--no-send",
            "--pcap-file", dir.resolve("y.pcap").toString()));
    }

    /** --no-send --from-itch-file --pcap-file: the capture of a file is the capture of the session it came from. */
    @Test
    void capturesAnItchFileAsTheSessionItWasWrittenFrom() throws Exception
    {
        final Path file = dir.resolve("s.itch");
        final Path generated = dir.resolve("generated.pcap");
        final Path fromFile = dir.resolve("from-file.pcap");
        assertEquals(0, execute("--no-send", "--itch-file", file.toString(), "--pcap-file", generated.toString(),
            "--messages", "5000", "--seed", "7"));
        assertEquals(0, execute("--no-send", "--from-itch-file", file.toString(), "--pcap-file", fromFile.toString()));
        assertEquals(pcapPayloads(generated), pcapPayloads(fromFile));
    }

    @Test
    void badConfigurationIsAOneLineErrorAndExitCodeConfig()
    {
        assertEquals(ExitCodes.CONFIG, execute("--symbols", "0"));
        assertEquals(ExitCodes.CONFIG, execute("--messages", "10"));
        assertEquals(ExitCodes.CONFIG, execute("--no-send"));
        assertEquals(ExitCodes.CONFIG, execute("--pre-encode", "--latency-timestamps", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--pre-encode", "--coalesce-us", "100", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--pre-encode", "--no-send", "--itch-file", dir.resolve("y").toString()));
        assertEquals(ExitCodes.CONFIG, execute("--pre-encode"));
        assertEquals(ExitCodes.CONFIG, execute("--no-send", "--itch-file", dir.resolve("x").toString()));
        assertEquals(ExitCodes.CONFIG, execute("--session", "ELEVENCHARS"));
        assertEquals(ExitCodes.CONFIG, execute("--interface", "192.0.2.123", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--group", "10.1.1.1", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG,
            execute("--burst-rate", "1000", "--burst-duration-ms", "2000", "--burst-every-ms", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--max-packet-bytes", "10", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--port-b", "47001", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--drop-b", "1:5", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--group-b", "239.1.1.1", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--group-b", "10.1.1.1", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--loss-a", "1.5", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--burst-probability-a", "0.1", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--drop-a", "0:5", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--drop-a", "five", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--retransmit-port", "70000", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--retransmit-history-messages", "0", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--linger-ms", "-1", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--warmup-messages", "1000", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--warmup-messages", "-1", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--warmup-rate", "-5", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG,
            execute("--warmup-messages", "10", "--warmup-rate", "0", "--rate", "0", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--coalesce-us", "-1", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--coalesce-us", "100001", "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--no-send", "--coalesce-us", "10", "--messages", "1000", "--itch-file",
            dir.resolve("c.itch").toString()));
        assertEquals(ExitCodes.CONFIG, execute("--retransmit-history-messages", "2000000000", "--retransmit-port", "47012",
            "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--retransmit-answer", "some", "--retransmit-port", "47012",
            "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--retransmit-rate", "-1", "--retransmit-port", "47012",
            "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--retransmit-drop-percent", "101", "--retransmit-port", "47012",
            "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--retransmit-silent-after", "-5", "--retransmit-port", "47012",
            "--messages", "1000"));
        assertEquals(ExitCodes.CONFIG, execute("--retransmit-answer", "all", "--messages", "1000"),
            "a server option without a server");
    }

    @Test
    void missingFileDirectoryIsAnIoError()
    {
        assertEquals(ExitCodes.CONFIG, execute("--no-send", "--itch-file", dir.resolve("no/such/dir/x.itch").toString(),
            "--messages", "1000"));
    }

    @Test
    void helpListsEveryOptionWithDefaults()
    {
        final StringWriter out = new StringWriter();
        final CommandLine commandLine = new CommandLine(new SimulatorCommand());
        commandLine.setOut(new PrintWriter(out));
        assertEquals(0, commandLine.execute("--help"));
        final String help = out.toString();
        for (final String option : new String[]{ "--group", "--port", "--interface", "--ttl", "--session", "--seed",
            "--symbols", "--messages", "--rate", "--burst-rate", "--burst-duration-ms", "--burst-every-ms",
            "--max-packet-bytes", "--start-delay-ms", "--itch-file", "--no-send", "--stats-interval-s", "--group-b",
            "--port-b", "--interface-b", "--loss-a", "--loss-b", "--burst-length-a", "--burst-length-b",
            "--burst-probability-a", "--burst-probability-b", "--drop-a", "--drop-b", "--loss-seed",
            "--retransmit-port", "--retransmit-history-messages", "--retransmit-answer", "--retransmit-rate",
            "--retransmit-drop-percent", "--retransmit-silent-after", "--linger-ms", "--pcap-file", "--warmup-messages",
            "--warmup-rate", "--from-itch-file", "--coalesce-us" })
        {
            assertTrue(help.contains(option), option);
        }
        assertTrue(help.contains("Default: 239.1.1.1"), help);
    }

    /** Send an ITCH file (and further options) at full speed; the messages received, in order. */
    private static byte[] sendFile(final Path file, final String group, final int port, final String... more)
        throws Exception
    {
        try (DatagramChannel receiver = MulticastSenderTest.joinedReceiver(group, port))
        {
            final List<String> args = new java.util.ArrayList<>(List.of("--group", group, "--port", String.valueOf(port),
                "--interface", "127.0.0.1", "--ttl", "0", "--session", "FILETEST",
                "--stats-interval-s", "0", "--from-itch-file", file.toString()));
            args.addAll(List.of(more));
            if (!args.contains("--rate"))
            {
                args.addAll(List.of("--rate", "0"));
            }
            final CompletableFuture<Integer> run = CompletableFuture.supplyAsync(() -> execute(args.toArray(new String[0])));
            final byte[] messages = reassemble(MulticastSenderTest.receiveUntilEndOfSession(receiver, 10_000));
            assertEquals(0, run.get().intValue());
            return messages;
        }
    }

    /** The messages of MoldUDP64 packets, concatenated, checking that the sequence numbers follow on. */
    private static byte[] reassemble(final List<byte[]> packets)
    {
        final ByteArrayOutputStream messages = new ByteArrayOutputStream();
        long expectedSequence = 1;
        for (final byte[] packet : packets)
        {
            final ByteBuffer view = ByteBuffer.wrap(packet).order(ByteOrder.BIG_ENDIAN);
            assertEquals(expectedSequence, view.getLong(10));
            final int count = view.getShort(18) & 0xFFFF;
            if (count == 0xFFFF || count == 0)
            {
                continue;
            }
            int position = 20;
            for (int i = 0; i < count; i++)
            {
                final int length = view.getShort(position) & 0xFFFF;
                messages.write(packet, position + 2, length);
                position += 2 + length;
            }
            expectedSequence += count;
        }
        final byte[] last = packets.get(packets.size() - 1);
        assertEquals(0xFFFF, ByteBuffer.wrap(last).order(ByteOrder.BIG_ENDIAN).getShort(18) & 0xFFFF, "end of session");
        return messages.toByteArray();
    }

    /** The packets of a classic pcap file without their capture times. */
    private static List<String> pcapPayloads(final Path pcap) throws Exception
    {
        final ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(pcap)).order(ByteOrder.LITTLE_ENDIAN);
        final List<String> payloads = new java.util.ArrayList<>();
        int position = 24;
        while (position < bytes.limit())
        {
            final int length = bytes.getInt(position + 8);
            final byte[] payload = new byte[length];
            bytes.get(position + 16, payload);
            payloads.add(java.util.HexFormat.of().formatHex(payload));
            position += 16 + length;
        }
        return payloads;
    }

    private static int execute(final String... args)
    {
        return new CommandLine(new SimulatorCommand()).execute(args);
    }

    /** The session as a NASDAQ binary ITCH file, built here with the generator and encoder. */
    private static byte[] fileImage(final long seed, final int symbols, final long count)
    {
        return image(seed, symbols, count, true);
    }

    private static byte[] messageImage(final long seed, final int symbols, final long count)
    {
        return image(seed, symbols, count, false);
    }

    /** Messages from..to (sequence numbers from 1) of the session, concatenated. */
    private static byte[] sessionMessages(
        final long seed, final int symbols, final long count, final long from, final long to)
    {
        final SessionGenerator generator =
            new SessionGenerator(seed, new SessionConfig().symbols(symbols).messageCount(count));
        final ItchEvent event = new ItchEvent();
        final byte[] bytes = new byte[64];
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (long sequence = 1; generator.next(event) && sequence <= to; sequence++)
        {
            final int length = ItchEncoder.encode(event, buffer, 0);
            if (sequence >= from)
            {
                out.write(bytes, 0, length);
            }
        }
        return out.toByteArray();
    }

    private static byte[] image(final long seed, final int symbols, final long count, final boolean lengthPrefix)
    {
        final SessionGenerator generator =
            new SessionGenerator(seed, new SessionConfig().symbols(symbols).messageCount(count));
        final ItchEvent event = new ItchEvent();
        final byte[] bytes = new byte[64];
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (generator.next(event))
        {
            final int length = ItchEncoder.encode(event, buffer, 2);
            if (lengthPrefix)
            {
                out.write(0);
                out.write(length);
                out.write(bytes, 2, length);
            }
            else
            {
                out.write(bytes, 2, length);
            }
        }
        return out.toByteArray();
    }
}
