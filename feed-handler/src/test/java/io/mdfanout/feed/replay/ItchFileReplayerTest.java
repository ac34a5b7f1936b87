package io.mdfanout.feed.replay;

import io.mdfanout.feed.handler.InMemoryCounters;
import io.mdfanout.feed.normalize.ItchNormalizer;
import io.mdfanout.feed.normalize.NormalizerCounters;
import io.mdfanout.feed.support.ItchBytes;
import io.mdfanout.feed.support.RingWaitDeadline;
import io.mdfanout.feed.support.Rings;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.wire.ExitCodes;
import io.mdfanout.wire.PartitionRings;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Hand-written ITCH files (plain, gzip, zero length prefixes, bad records) replayed into rings. */
class ItchFileReplayerTest
{
    private static final int PARTITIONS = 2;
    private static final int H = MessageHeaderDecoder.ENCODED_LENGTH;

    @TempDir
    Path dir;

    private final RingBuffer[] rings = Rings.inMemory(PARTITIONS, 64 * 1024);
    private final InMemoryCounters counters = new InMemoryCounters(128);
    private final NormalizerCounters normalizerCounters =
        new NormalizerCounters(counters.countersManager(), "replay", PARTITIONS);
    private final ReplayCounters replayCounters = new ReplayCounters(counters.countersManager());

    private static final byte[] SYSTEM = new ItchBytes(12, 'S', 0, 0, 10).ch(11, 'O').bytes();
    private static final byte[] ADD = new ItchBytes(36, 'A', 1, 0, 20).u64(11, 9).ch(19, 'B').u32(20, 5)
        .alpha(24, 8, "AAPL").u32(32, 1234).bytes();
    private static final byte[] UNKNOWN = new ItchBytes(15, 'Z', 1, 0, 25).bytes();
    private static final byte[] DELETE = new ItchBytes(19, 'D', 3, 0, 30).u64(11, 9).bytes();

    private static void record(final OutputStream out, final byte[] message, final boolean zeroPrefix) throws IOException
    {
        final int length = zeroPrefix ? 0 : message.length;
        out.write(length >>> 8);
        out.write(length);
        out.write(message);
    }

    private Path file(final String name, final boolean gzip, final boolean zeroPrefix, final byte[]... messages)
        throws IOException
    {
        final ByteArrayOutputStream plain = new ByteArrayOutputStream();
        for (final byte[] m : messages)
        {
            record(plain, m, zeroPrefix);
        }
        final Path path = dir.resolve(name);
        if (gzip)
        {
            try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(path)))
            {
                plain.writeTo(out);
            }
        }
        else
        {
            Files.write(path, plain.toByteArray());
        }
        return path;
    }

    private ItchFileReplayer.Outcome replay(final Path file) throws IOException
    {
        final ItchNormalizer normalizer = new ItchNormalizer(rings, new RingWaitDeadline(), normalizerCounters);
        return new ItchFileReplayer(normalizer, replayCounters, ReplayPace.MAX).replay(file);
    }

    private void assertStandardContent()
    {
        final List<Rings.Rec> p0 = Rings.drain(rings[0]);
        final List<Rings.Rec> p1 = Rings.drain(rings[1]);
        assertEquals(1, p0.size());
        assertEquals(SystemEventDecoder.TEMPLATE_ID, p0.get(0).typeId());
        assertEquals(3, p1.size());

        final SystemEventDecoder s = new SystemEventDecoder()
            .wrap(p1.get(0).buffer(), H, SystemEventDecoder.BLOCK_LENGTH, 0);
        assertEquals(1, s.exchangeSequence());
        assertEquals(10, s.exchangeTimestamp());

        final AddOrderDecoder a = new AddOrderDecoder().wrap(p1.get(1).buffer(), H, AddOrderDecoder.BLOCK_LENGTH, 0);
        assertEquals(2, a.exchangeSequence());
        assertEquals(20, a.exchangeTimestamp());
        assertEquals(1, a.instrumentId());
        assertEquals(9, a.orderId());
        assertEquals(1234, a.price().mantissa());

        final OrderDeleteDecoder d = new OrderDeleteDecoder()
            .wrap(p1.get(2).buffer(), H, OrderDeleteDecoder.BLOCK_LENGTH, 0);
        assertEquals(3, d.exchangeSequence(), "exchange sequence is the 1-based record index");
        assertEquals(3, d.instrumentId());
        assertEquals(30, d.exchangeTimestamp());
    }

    @Test
    void plainFile() throws IOException
    {
        assertEquals(ItchFileReplayer.Outcome.COMPLETED, replay(file("plain.itch", false, false, SYSTEM, ADD, DELETE)));
        assertStandardContent();
        assertEquals(3, replayCounters.recordsRead().get());
    }

    @Test
    void gzippedFile() throws IOException
    {
        assertEquals(ItchFileReplayer.Outcome.COMPLETED, replay(file("gz.itch.gz", true, false, SYSTEM, ADD, DELETE)));
        assertStandardContent();
    }

    @Test
    void zeroLengthPrefixesTakeTheLengthFromTheType() throws IOException
    {
        assertEquals(ItchFileReplayer.Outcome.COMPLETED, replay(file("zero.itch", true, true, SYSTEM, ADD, DELETE)));
        assertStandardContent();
    }

    @Test
    void unknownTypeWithLengthIsCountedAndSkipped() throws IOException
    {
        // index 3 is the unknown record; the delete is record 4
        assertEquals(ItchFileReplayer.Outcome.COMPLETED,
            replay(file("unknown.itch", false, false, SYSTEM, ADD, UNKNOWN, DELETE)));
        assertEquals(1, normalizerCounters.unknownTypes().get());
        final List<Rings.Rec> p1 = Rings.drain(rings[1]);
        assertEquals(3, p1.size());
        assertEquals(4, new OrderDeleteDecoder().wrap(p1.get(2).buffer(), H, OrderDeleteDecoder.BLOCK_LENGTH, 0)
            .exchangeSequence());
    }

    @Test
    void truncatedLastRecordIsCounted() throws IOException
    {
        final Path path = file("truncated.itch", false, false, SYSTEM, ADD, DELETE);
        final byte[] bytes = Files.readAllBytes(path);
        Files.write(path, java.util.Arrays.copyOf(bytes, bytes.length - 4));

        assertEquals(ItchFileReplayer.Outcome.TRUNCATED, replay(path));
        assertEquals(1, replayCounters.truncatedRecords().get());
        assertEquals(2, normalizerCounters.messagesPublished().get());
    }

    @Test
    void zeroPrefixWithUnknownTypeStopsTheReplay() throws IOException
    {
        assertEquals(ItchFileReplayer.Outcome.UNFRAMEABLE, replay(file("lost.itch", false, true, SYSTEM, UNKNOWN, ADD)));
        assertEquals(1, replayCounters.unframeableRecords().get());
        assertEquals(1, normalizerCounters.messagesPublished().get());
    }

    @Test
    void missingFileIsAClearError()
    {
        assertThrows(NoSuchFileException.class, () -> replay(dir.resolve("absent.itch")));
    }

    @Test
    void originalPaceWaitsForTheTimestamps() throws IOException
    {
        final byte[] later = new ItchBytes(19, 'D', 3, 0, 10 + 50_000_000L).u64(11, 9).bytes();
        final ItchNormalizer normalizer = new ItchNormalizer(rings, new RingWaitDeadline(), normalizerCounters);
        final long start = System.nanoTime();
        new ItchFileReplayer(normalizer, replayCounters, ReplayPace.ORIGINAL)
            .replay(file("paced.itch", false, false, SYSTEM, later));
        assertTrue(System.nanoTime() - start >= 50_000_000L, "second message waited 50 ms after the first");
        assertEquals(2, normalizerCounters.messagesPublished().get());
    }

    @Test
    void maxPaceReplaysAFileOfSeveralBatchesWhole() throws IOException
    {
        final int records = 3 * ItchFileReplayer.RECORDS_PER_BATCH + 5; // the last batch is partial
        final byte[][] messages = new byte[records][];
        for (int i = 0; i < records; i++)
        {
            messages[i] = new ItchBytes(19, 'D', 1, 0, 100 + i).u64(11, i).bytes();
        }

        assertEquals(ItchFileReplayer.Outcome.COMPLETED, replay(file("batches.itch", false, false, messages)));

        final List<Rings.Rec> p1 = Rings.drain(rings[1]);
        assertEquals(records, p1.size(), "every record reached the ring, the partial batch too");
        for (int i = 0; i < records; i++)
        {
            final OrderDeleteDecoder d = new OrderDeleteDecoder()
                .wrap(p1.get(i).buffer(), H, OrderDeleteDecoder.BLOCK_LENGTH, 0);
            assertEquals(i + 1, d.exchangeSequence());
            assertEquals(i, d.orderId());
        }
        assertEquals(records, replayCounters.recordsRead().get());
        assertEquals(records * 19L, replayCounters.bytesRead().get());
        assertEquals(records, normalizerCounters.messagesPublished().get());
    }

    @Test
    void originalPacePublishesEachRecordBeforeWaitingForTheNext() throws Exception
    {
        final byte[] later = new ItchBytes(19, 'D', 3, 0, 10 + 1_000_000_000L).u64(11, 9).bytes();
        final Path paced = file("paced-visible.itch", false, false, SYSTEM, later);
        final ItchNormalizer normalizer = new ItchNormalizer(rings, new RingWaitDeadline(), normalizerCounters);
        final Thread replay = new Thread(() ->
        {
            try
            {
                new ItchFileReplayer(normalizer, replayCounters, ReplayPace.ORIGINAL).replay(paced);
            }
            catch (final IOException ex)
            {
                throw new IllegalStateException(ex);
            }
        });
        replay.start();

        final long deadline = System.nanoTime() + 900_000_000L;
        while (0 == rings[0].producerPosition() && System.nanoTime() < deadline)
        {
            Thread.sleep(1);
        }
        final boolean firstVisible = rings[0].producerPosition() > 0;
        final boolean stillWaiting = replay.isAlive();
        replay.join(10_000);

        assertTrue(firstVisible, "the first record is in the ring while the replay waits for the second");
        assertTrue(stillWaiting, "the second record is due a second later");
        assertEquals(1, Rings.drain(rings[0]).size());
        assertEquals(2, Rings.drain(rings[1]).size());
    }

    @Test
    void commandReplaysIntoRingFilesAndRejectsBadConfig() throws IOException
    {
        final Path file = file("cmd.itch.gz", true, false, SYSTEM, ADD, DELETE);
        final Path ringDir = dir.resolve("rings");
        final int exit = new CommandLine(new ReplayCommand()).execute(
            "--file", file.toString(), "--ring-dir", ringDir.toString(), "--partitions", "2",
            "--ring-capacity-bytes", "65536", "--stats-interval-s", "0");
        assertEquals(0, exit);

        final PartitionRings.MappedRing ring1 = PartitionRings.map(ringDir, 1);
        try
        {
            assertEquals(3, Rings.drain(ring1.ring()).size());
        }
        finally
        {
            ring1.close();
        }

        assertEquals(ExitCodes.CONFIG, new CommandLine(new ReplayCommand()).execute(
            "--file", file.toString(), "--ring-dir", ringDir.toString(), "--ring-capacity-bytes", "1000"));
        assertEquals(ExitCodes.CONFIG, new CommandLine(new ReplayCommand()).execute(
            "--file", dir.resolve("absent").toString(), "--ring-dir", ringDir.toString()));
        assertEquals(ExitCodes.CONFIG, new CommandLine(new ReplayCommand()).execute(
            "--file", file.toString(), "--ring-dir", ringDir.toString(), "--pace", "slow"));
    }
}
