package io.mdfanout.feed.replay;

import io.mdfanout.feed.support.Rings;
import io.mdfanout.wire.ExitCodes;
import io.mdfanout.wire.PartitionRings;
import io.mdfanout.wire.WireFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.mdfanout.feed.replay.CaptureFiles.ip;
import static io.mdfanout.feed.replay.CaptureFiles.ipv4Udp;
import static io.mdfanout.feed.replay.CaptureFixture.moldPacket;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The replay command on captures: format detection, --group/--port, summary, progress line, bad options. */
class ReplayCommandCaptureTest
{
    private static final int GROUP = ip(239, 255, 48, 13);
    private static final int PORT = 48013;

    @TempDir
    Path dir;

    private Path capture() throws IOException
    {
        final Path file = dir.resolve("feed.pcap");
        Files.write(file, new CaptureFiles.Pcap(ByteOrder.LITTLE_ENDIAN, false, CaptureFiles.ETHERNET)
            .record(1, CaptureFiles.ethernet(ipv4Udp(GROUP, PORT, moldPacket(1, 3))))
            .record(2, CaptureFiles.ethernet(ipv4Udp(GROUP, PORT + 2, moldPacket(1, 3))))
            .record(3, CaptureFiles.ethernet(ipv4Udp(GROUP, PORT, moldPacket(4, 2))))
            .bytes());
        return file;
    }

    private static List<Long> ringSequences(final Path ringDir) throws IOException
    {
        final PartitionRings.MappedRing ring = PartitionRings.map(ringDir, 0);
        try
        {
            final List<Long> sequences = new ArrayList<>();
            for (final Rings.Rec rec : Rings.drain(ring.ring()))
            {
                sequences.add(WireFormat.exchangeSequence(rec.buffer(), 0));
            }
            return sequences;
        }
        finally
        {
            ring.close();
        }
    }

    private static int execute(final ByteArrayOutputStream err, final String... args)
    {
        final PrintStream original = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try
        {
            return new CommandLine(new ReplayCommand()).execute(args);
        }
        finally
        {
            System.setErr(original);
        }
    }

    @Test
    void capturesAreDetectedAndFiltered() throws IOException
    {
        final Path file = capture();
        final Path ringDir = dir.resolve("rings");
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(0, execute(err, "--file", file.toString(), "--ring-dir", ringDir.toString(), "--partitions", "1",
            "--ring-capacity-bytes", "65536", "--group", "239.255.48.13", "--port", "" + PORT,
            "--stats-interval-s", "0", "--progress", "off"));
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), ringSequences(ringDir));
        final String output = err.toString(StandardCharsets.UTF_8);
        assertTrue(output.contains("PCAP COMPLETED"), output);
        assertTrue(output.contains("filteredOut=1"), output);
        assertTrue(output.contains("5 messages"), output);
    }

    @Test
    void progressLineIsDrawnInPlace() throws IOException
    {
        final Path file = capture();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(0, execute(err, "--file", file.toString(), "--ring-dir", dir.resolve("r").toString(),
            "--partitions", "1", "--ring-capacity-bytes", "65536", "--progress", "on"));
        final String output = err.toString(StandardCharsets.UTF_8);
        assertTrue(output.contains("\rreplay: 100.0% read, 5 msgs"), output);
        assertTrue(output.contains("ETA"), output);
    }

    @Test
    void wrongCaptureOptionsAreOneLineErrors() throws IOException
    {
        final Path file = capture();
        final String ringDir = dir.resolve("rings").toString();
        for (final String[] bad : new String[][] {
            {"--group", "239.255.48"}, {"--group", "239.255.48.300"}, {"--group", "host.example"},
            {"--port", "70000"}, {"--session", "WAY-TOO-LONG-SESSION"}, {"--progress", "sometimes"}})
        {
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            final List<String> args = new ArrayList<>(List.of("--file", file.toString(), "--ring-dir", ringDir));
            args.addAll(List.of(bad));
            assertEquals(ExitCodes.CONFIG, execute(err, args.toArray(new String[0])), String.join(" ", bad));
            final String output = err.toString(StandardCharsets.UTF_8);
            assertTrue(output.startsWith("replay: error: ") && output.trim().lines().count() == 1, output);
        }
    }

    @Test
    void captureOptionsOnAnItchFileAreNoted() throws IOException
    {
        final Path itch = dir.resolve("feed.itch");
        Files.write(itch, new byte[] {0, 12, 'S', 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 'O',
            0, 12, 'S', 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 'C'});
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(0, execute(err, "--file", itch.toString(), "--ring-dir", dir.resolve("rings").toString(),
            "--partitions", "1", "--ring-capacity-bytes", "65536", "--port", "48013", "--progress", "off"));
        final String output = err.toString(StandardCharsets.UTF_8);
        assertTrue(output.contains("apply to captures only"), output);
        assertTrue(output.contains("ITCH COMPLETED, 2 messages"), output);
    }

    @Test
    void aCorruptCaptureHeaderIsAnErrorNotAStackTrace() throws IOException
    {
        final Path file = dir.resolve("bad.pcapng");
        Files.write(file, new byte[] {0x0A, 0x0D, 0x0D, 0x0A, 1, 2});
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(1, execute(err, "--file", file.toString(), "--ring-dir", dir.resolve("rings").toString(),
            "--progress", "off", "--stats-interval-s", "0"));
        final String output = err.toString(StandardCharsets.UTF_8);
        assertTrue(output.contains("replay: error: ") && output.contains("pcapng"), output);
        assertTrue(!output.contains("\tat "), output);
    }
}
