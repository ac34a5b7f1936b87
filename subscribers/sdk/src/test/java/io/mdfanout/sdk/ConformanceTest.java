package io.mdfanout.sdk;

import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.PacketHeaderDecoder;
import io.mdfanout.sbe.SnapshotOrderDecoder;
import io.mdfanout.sdk.book.BookCounters;
import io.mdfanout.sdk.book.OrderBooks;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The Java SDK against the conformance suite (conformance/README.md): each case in conformance/cases is what
 * {@link ConformanceCases} writes, and playing it through the SDK's packet processing ({@link PacketStreamDecoder},
 * with recovery from the snapshot streams or a pair's arbitration when the case says so) gives exactly
 * conformance/expected/CASE.txt, the output the Rust and Python SDKs must give too. {@code -Dconformance.write=true}
 * writes both from this build instead (then review the diff).
 */
class ConformanceTest
{
    private static final boolean WRITE = Boolean.getBoolean("conformance.write");
    /** No template's prices misread. */
    private static final int NO_TEMPLATE = -1;

    @TestFactory
    List<DynamicTest> everyCaseGivesItsExpectedOutput()
    {
        final Path root = conformanceDirectory();
        final List<DynamicTest> tests = new ArrayList<>();
        for (final Map.Entry<String, byte[]> entry : ConformanceCases.all().entrySet())
        {
            final String name = entry.getKey();
            tests.add(DynamicTest.dynamicTest(name, () ->
            {
                final Path casePath = root.resolve("cases").resolve(name + ".mdfc");
                final Path expectedPath = root.resolve("expected").resolve(name + ".txt");
                final String output = run(entry.getValue());
                if (WRITE)
                {
                    Files.createDirectories(casePath.getParent());
                    Files.createDirectories(expectedPath.getParent());
                    Files.write(casePath, entry.getValue());
                    Files.writeString(expectedPath, output, StandardCharsets.UTF_8);
                }
                assertArrayEquals(entry.getValue(), Files.readAllBytes(casePath),
                    name + ": the committed case is not what ConformanceCases writes (-Dconformance.write=true)");
                assertEquals(Files.readString(expectedPath, StandardCharsets.UTF_8), output, name);
            }));
        }
        tests.add(DynamicTest.dynamicTest("every committed case is one of ConformanceCases", () ->
        {
            try (var files = Files.list(root.resolve("cases")))
            {
                final List<String> committed = files.map((p) -> p.getFileName().toString().replace(".mdfc", "")).sorted()
                    .toList();
                assertEquals(ConformanceCases.all().keySet().stream().sorted().toList(), committed);
            }
        }));
        return tests;
    }

    @TestFactory
    List<DynamicTest> aMisreadFieldFailsTheCaseThatCarriesIt()
    {
        // The suite must catch a decoder that reads one field wrong: here every price of one template is read one tick
        // off, in an incremental stream, in a snapshot stream and on one side of a pair (its copies then differ from
        // the other side's). The right output, run(caseFile), is the one everyCaseGivesItsExpectedOutput holds to the
        // expected file (so this needs no file written first).
        return List.of(
            DynamicTest.dynamicTest("normal-flow with AddOrder prices misread", () ->
            {
                final byte[] caseFile = ConformanceCases.all().get("normal-flow");
                final String wrong = run(caseFile, AddOrderDecoder.TEMPLATE_ID, AddOrderDecoder.priceEncodingOffset());
                assertNotEquals(run(caseFile), wrong, "a misread price went unnoticed");
            }),
            DynamicTest.dynamicTest("late-join with SnapshotOrder prices misread", () ->
            {
                final byte[] caseFile = ConformanceCases.all().get("late-join");
                final String wrong =
                    run(caseFile, SnapshotOrderDecoder.TEMPLATE_ID, SnapshotOrderDecoder.priceEncodingOffset());
                assertNotEquals(run(caseFile), wrong, "a misread snapshot price went unnoticed");
            }),
            DynamicTest.dynamicTest("pair-arbitration with side A's AddOrder prices misread", () ->
            {
                final byte[] caseFile = ConformanceCases.all().get("pair-arbitration");
                final String wrong = run(caseFile, AddOrderDecoder.TEMPLATE_ID, AddOrderDecoder.priceEncodingOffset());
                assertNotEquals(run(caseFile), wrong, "a price misread on one side of a pair went unnoticed");
            }));
    }

    @Test
    void theCaseReaderRefusesWhatTheFormatRulesOut()
    {
        final int both = ConformanceCases.FLAG_RECOVERY | ConformanceCases.FLAG_PAIR;
        assertThrows(IllegalArgumentException.class, () -> ConformanceCases.read(header(1, both, 64 * 1024, 0).array()),
            "a pair with recovery");
        assertThrows(IllegalArgumentException.class, () -> ConformanceCases.read(
            record(header(1, 0, 0, -1), ConformanceCases.KIND_TIME, 0, 0, Long.BYTES)), "a time record outside a pair");
        assertThrows(IllegalArgumentException.class, () -> ConformanceCases.read(
            record(header(1, 0, 0, -1), ConformanceCases.KIND_INCREMENTAL, ConformanceCases.SIDE_B, 0, 0)),
            "side B outside a pair");
        final int pair = ConformanceCases.FLAG_PAIR;
        assertThrows(IllegalArgumentException.class, () -> ConformanceCases.read(
            record(header(1, pair, 0, 1_000), ConformanceCases.KIND_SNAPSHOT, 0, 0, 0)), "a snapshot record in a pair");
        assertThrows(IllegalArgumentException.class, () -> ConformanceCases.read(
            record(header(1, pair, 0, 1_000), ConformanceCases.KIND_TIME, 0, 0, 4)), "a time record of 4 bytes");
        assertThrows(IllegalArgumentException.class, () -> ConformanceCases.read(
            record(header(1, pair, 0, 1_000), ConformanceCases.KIND_TIME, ConformanceCases.SIDE_B, 0, Long.BYTES)),
            "a time record of side B");
        assertThrows(IllegalArgumentException.class, () -> ConformanceCases.read(
            record(header(1, pair, 0, 1_000), 4, 0, 0, 0)), "an unknown kind");
        final ConformanceCases.CaseFile read = ConformanceCases.read(
            record(header(2, pair, 0, 1_000), ConformanceCases.KIND_TIME, 0, 0, Long.BYTES));
        assertEquals(1_000, read.arbitrationWaitNs());
        assertEquals(1, read.records().size());
    }

    /** A case file's header; the arbitration wait written only when not negative. */
    private static ByteBuffer header(final int partitions, final int flags, final int recoveryBufferBytes, final long waitNs)
    {
        final ByteBuffer header = ByteBuffer.allocate(1024).order(ByteOrder.LITTLE_ENDIAN);
        header.put(ConformanceCases.MAGIC).putInt(partitions).putInt(flags).putInt(recoveryBufferBytes);
        if (waitNs >= 0)
        {
            header.putLong(waitNs);
        }
        return header;
    }

    /** The header and one record of {@code length} zero bytes: the file's bytes. */
    private static byte[] record(
        final ByteBuffer header, final int kind, final int side, final int partition, final int length)
    {
        header.put((byte)kind).put((byte)side).putShort((short)partition).putInt(0).putInt(length).put(new byte[length]);
        return Arrays.copyOf(header.array(), header.position());
    }

    /** Play a case through the SDK's packet processing; the canonical output. */
    static String run(final byte[] caseFile)
    {
        return run(caseFile, NO_TEMPLATE, 0);
    }

    /**
     * Play a case, every price of template {@code misreadTemplateId} at {@code priceOffset} in its block read one tick
     * off ({@link #NO_TEMPLATE} for none) in the messages of side A (a single feed's are all side A's). A pair's case
     * is played with its time records as the decoder's clock: {@code doWork(0)} as soon as it is made, so that nothing
     * of the machine's clock reaches the output, then {@code doWork} at each.
     */
    private static String run(final byte[] caseFile, final int misreadTemplateId, final int priceOffset)
    {
        final ConformanceCases.CaseFile file = ConformanceCases.read(caseFile);
        final SubscriberCounters counters =
            new SubscriberCounters(LocalCounters.create(SubscriberCounters.COUNTER_COUNT), "conformance");
        final OrderBooks books =
            new OrderBooks(1024, 8, new BookCounters(LocalCounters.create(BookCounters.COUNTER_COUNT), "conformance"));
        final CanonicalListener listener = new CanonicalListener(books);
        final int[] partitions = IntStream.range(0, file.partitionCount()).toArray();
        final CanonicalListener.SideReports sides = file.pair() ? new CanonicalListener.SideReports() : null;
        final ErrorHandler errorHandler = null != sides ? sides : (throwable) -> { throw new AssertionError(throwable); };
        final PacketStreamDecoder decoder;
        if (file.pair())
        {
            decoder = PacketStreamDecoder.forPair(partitions, file.arbitrationWaitNs(), listener, counters, errorHandler);
            decoder.doWork(0); // the case's clock starts at 0, whatever the machine's when the decoder was made
        }
        else if (file.recovery())
        {
            decoder = PacketStreamDecoder.withRecovery(
                partitions, file.recoveryBufferBytes(), listener, counters, errorHandler);
        }
        else
        {
            decoder = new PacketStreamDecoder(partitions, listener, counters, errorHandler);
        }
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64 * 1024]);
        for (final ConformanceCases.Record record : file.records())
        {
            if (ConformanceCases.KIND_TIME == record.kind())
            {
                decoder.doWork(record.nanos());
                continue;
            }
            final int length = record.bytes().length;
            buffer.putBytes(0, record.bytes());
            if (NO_TEMPLATE != misreadTemplateId && ConformanceCases.SIDE_A == record.side())
            {
                misreadPrices(buffer, length, misreadTemplateId, priceOffset);
            }
            switch (record.kind())
            {
                case ConformanceCases.KIND_INCREMENTAL:
                    if (file.pair())
                    {
                        decoder.onSideMessage(record.partition(), record.side(), buffer, 0, length);
                    }
                    else
                    {
                        decoder.onMessage(record.partition(), record.sessionId(), buffer, 0, length);
                    }
                    break;
                case ConformanceCases.KIND_SNAPSHOT:
                    decoder.onSnapshotMessage(record.partition(), record.sessionId(), buffer, 0, length);
                    break;
                default:
                    throw new IllegalArgumentException("a record of unknown kind " + record.kind());
            }
        }
        return listener.finish(counters, file.recovery(), sides);
    }

    /** The deliberately wrong decoder: a template's price one tick higher than sent (what a wrong offset does). */
    private static void misreadPrices(
        final UnsafeBuffer buffer, final int length, final int templateId, final int priceOffset)
    {
        final MessageHeaderDecoder header = new MessageHeaderDecoder();
        header.wrap(buffer, 0);
        if (PacketHeaderDecoder.TEMPLATE_ID != header.templateId() || length < header.encodedLength())
        {
            return;
        }
        int position = header.encodedLength() + header.blockLength();
        while (position + header.encodedLength() <= length)
        {
            header.wrap(buffer, position);
            final int price = position + header.encodedLength() + priceOffset;
            if (templateId == header.templateId() && price + Long.BYTES <= length)
            {
                buffer.putLong(price, buffer.getLong(price, ByteOrder.LITTLE_ENDIAN) + 1, ByteOrder.LITTLE_ENDIAN);
            }
            position += header.encodedLength() + header.blockLength();
        }
    }

    /** The repository's conformance/ folder, found from the module directory the tests run in. */
    static Path conformanceDirectory()
    {
        Path dir = Paths.get("").toAbsolutePath();
        while (null != dir)
        {
            if (Files.isDirectory(dir.resolve("schemas")) && Files.exists(dir.resolve("Makefile")))
            {
                return dir.resolve("conformance");
            }
            dir = dir.getParent();
        }
        throw new UncheckedIOException(new IOException("no repository root above " + Paths.get("").toAbsolutePath()));
    }
}
