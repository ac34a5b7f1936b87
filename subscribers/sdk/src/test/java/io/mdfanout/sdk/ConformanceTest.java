package io.mdfanout.sdk;

import io.mdfanout.sdk.book.BookCounters;
import io.mdfanout.sdk.book.OrderBooks;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Java SDK against the conformance suite (conformance/README.md): each case in conformance/cases is what
 * {@link ConformanceCases} writes, and playing it through the SDK's packet processing ({@link PacketStreamDecoder},
 * recovery off) gives exactly conformance/expected/CASE.txt, the output the Rust and Python SDKs must give too.
 * {@code -Dconformance.write=true} writes both from this build instead (then review the diff).
 */
class ConformanceTest
{
    private static final boolean WRITE = Boolean.getBoolean("conformance.write");

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
        // The suite must catch a decoder that reads one field wrong: here every price is read one tick off.
        final Path root = conformanceDirectory();
        return List.of(DynamicTest.dynamicTest("normal-flow with prices misread", () ->
        {
            final String wrong = run(ConformanceCases.all().get("normal-flow"), true);
            final String expected = Files.readString(root.resolve("expected").resolve("normal-flow.txt"));
            assertTrue(!expected.equals(wrong), "a misread price went unnoticed");
        }));
    }

    /** Play a case through the SDK's packet processing; the canonical output. */
    static String run(final byte[] caseFile)
    {
        return run(caseFile, false);
    }

    private static String run(final byte[] caseFile, final boolean misreadPrices)
    {
        final int[] partitionCount = new int[1];
        final List<ConformanceCases.Record> records = ConformanceCases.read(caseFile, partitionCount);
        final SubscriberCounters counters =
            new SubscriberCounters(LocalCounters.create(SubscriberCounters.COUNTER_COUNT), "conformance");
        final OrderBooks books =
            new OrderBooks(1024, 8, new BookCounters(LocalCounters.create(BookCounters.COUNTER_COUNT), "conformance"));
        final CanonicalListener listener = new CanonicalListener(books);
        final PacketStreamDecoder decoder = new PacketStreamDecoder(
            IntStream.range(0, partitionCount[0]).toArray(), listener, counters,
            (throwable) -> { throw new AssertionError(throwable); });
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64 * 1024]);
        for (final ConformanceCases.Record record : records)
        {
            buffer.putBytes(0, record.bytes());
            if (misreadPrices)
            {
                misreadPrices(buffer, record.bytes().length);
            }
            decoder.onMessage(record.partition(), record.sessionId(), buffer, 0, record.bytes().length);
        }
        return listener.finish(counters);
    }

    /** The deliberately wrong decoder: an AddOrder's price one tick higher than sent (what a wrong offset does). */
    private static void misreadPrices(final UnsafeBuffer buffer, final int length)
    {
        final io.mdfanout.sbe.MessageHeaderDecoder header = new io.mdfanout.sbe.MessageHeaderDecoder();
        header.wrap(buffer, 0);
        if (io.mdfanout.sbe.PacketHeaderDecoder.TEMPLATE_ID != header.templateId() || length < 8)
        {
            return;
        }
        int position = header.encodedLength() + header.blockLength();
        while (position + header.encodedLength() <= length)
        {
            header.wrap(buffer, position);
            if (io.mdfanout.sbe.AddOrderDecoder.TEMPLATE_ID == header.templateId())
            {
                final int price = position + header.encodedLength() + io.mdfanout.sbe.AddOrderDecoder.priceEncodingOffset();
                buffer.putLong(price, buffer.getLong(price, java.nio.ByteOrder.LITTLE_ENDIAN) + 1,
                    java.nio.ByteOrder.LITTLE_ENDIAN);
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
