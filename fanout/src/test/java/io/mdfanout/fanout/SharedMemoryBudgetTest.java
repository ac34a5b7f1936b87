package io.mdfanout.fanout;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The figures the fanout checks its /dev/shm room against, and the refusal it starts with when they do not fit. */
final class SharedMemoryBudgetTest
{
    private static final long MIB = 1024 * 1024;

    @TempDir
    Path dir;

    @Test
    void stateFilesCount96BytesPerOrderAndTheInstrumentEntries() throws Exception
    {
        // Measured on a running fanout: a 65,536-order partition state file is 29,110,272 bytes, 131,072 orders
        // 35,401,728 (96 bytes per order on top of 22 MiB of instrument entries), what the chart's sizing uses.
        assertEquals(29_110_272L, SharedMemoryBudget.stateBytes(1, 65_536, dir));
        assertEquals(2 * 35_401_728L, SharedMemoryBudget.stateBytes(2, 131_072, dir));
        try (RandomAccessFile file = new RandomAccessFile(dir.resolve("partition-0.state").toFile(), "rw"))
        {
            file.setLength(29_110_272L); // a restart: the file is there already
        }
        assertEquals(29_110_272L, SharedMemoryBudget.stateBytes(2, 65_536, dir), "only partition 1 is new");
    }

    @Test
    void anEmbeddedDriverNeedsItsCncFileAndThreeTermsPerPublication()
    {
        final long bytes = SharedMemoryBudget.embeddedDriverBytes(2, 1024 * 1024);
        // Aeron 1.51's defaults: 8 MiB of counter values and 32 MiB of their metadata, 4 MiB of error log, the
        // conductor and broadcast buffers, a 1 MiB loss report; then 2 publications x 2 partitions x 3 terms.
        assertTrue(bytes >= 46 * MIB + 12 * MIB && bytes <= 50 * MIB + 13 * MIB, bytes / MIB + " MiB");
    }

    @Test
    void tooLittleRoomIsRefusedWithTheFigures()
    {
        assertNull(SharedMemoryBudget.shortfall("state files 56 MiB", Path.of("/dev/shm"), 56 * MIB, 60 * MIB));
        assertEquals("/dev/shm has 40 MiB free but the fanout needs 104 MiB there (state files 56 MiB, embedded " +
            "media driver 48 MiB): give it more room (the chart's shmHeadroom, docker --shm-size) or lower " +
            "--max-orders, --term-length-bytes or --derived-term-length-bytes", SharedMemoryBudget.shortfall(
            "state files 56 MiB, embedded media driver 48 MiB", Path.of("/dev/shm"), 104 * MIB, 40 * MIB));
    }
}
