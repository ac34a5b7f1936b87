package io.mdfanout.fanout;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.mdfanout.wire.IdleStrategyType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A publication on the fanout's channel has its whole log allocated when it is added, so the message
 * path never takes the page faults of a sparse file; a channel that names its own choice keeps it.
 */
final class PublicationLogTest
{
    private static final int TERM_LENGTH = 1024 * 1024;

    @Test
    void aPublicationsLogIsWhollyAllocatedWhenItIsAdded(@TempDir final Path directory) throws Exception
    {
        final Path aeronDir = directory.resolve("aeron");
        final MediaDriver.Context context = DriverContexts.newContext(aeronDir.toString(), ThreadingMode.SHARED,
            TERM_LENGTH, Throwable::printStackTrace, IdleStrategyType.BACKOFF, TimeUnit.MICROSECONDS.toNanos(100));
        try (MediaDriver driver = MediaDriver.launchEmbedded(context);
            Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
            ExclusivePublication publication = aeron.addExclusivePublication(
                Fanout.publicationChannel("aeron:udp?endpoint=224.0.1.1:40499|interface=127.0.0.1", TERM_LENGTH), 1001))
        {
            assertEquals(TERM_LENGTH, publication.termBufferLength());
            final List<Path> logs;
            try (Stream<Path> files = Files.walk(Path.of(driver.aeronDirectoryName(), "publications")))
            {
                logs = files.filter((p) -> p.toString().endsWith(".logbuffer")).collect(Collectors.toList());
            }
            assertFalse(logs.isEmpty(), "no publication log under " + driver.aeronDirectoryName());
            for (final Path log : logs)
            {
                final long size = Files.size(log);
                assertTrue(size >= 3L * TERM_LENGTH, log + " is " + size + " bytes");
                assertEquals(size, allocatedBytes(log), log + ": bytes allocated on disk (a sparse file allocates on touch)");
            }
        }
    }

    @Test
    void aChannelThatNamesItsOwnSparsenessKeepsIt()
    {
        assertTrue(Fanout.publicationChannel("aeron:udp?endpoint=224.0.1.1:40499|sparse=true", TERM_LENGTH)
            .contains("sparse=true"));
        assertTrue(Fanout.publicationChannel("aeron:udp?endpoint=224.0.1.1:40499", TERM_LENGTH)
            .contains("sparse=false"));
    }

    /** st_blocks * 512, which Java does not expose: what `stat` reports as allocated. */
    private static long allocatedBytes(final Path file) throws IOException, InterruptedException
    {
        final Process stat = new ProcessBuilder("stat", "--format=%b %B", file.toString()).redirectErrorStream(true).start();
        final String out = new String(stat.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        assertEquals(0, stat.waitFor(), "stat: " + out);
        final String[] fields = out.split(" ");
        return Long.parseLong(fields[0]) * Long.parseLong(fields[1]);
    }
}
