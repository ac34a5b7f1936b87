package io.mdfanout.feed.sim;

import io.mdfanout.testing.AllocationWindows;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reading the simulator's messages from a NASDAQ binary ITCH file: framing, limits, stamping, bad records. */
class ItchFileSourceTest
{
    @TempDir
    Path dir;

    private final SimulatorCounters counters = SimulatorCounters.create();
    private final List<byte[]> messages = new ArrayList<>();
    private final MoldUdp64Packetizer packetizer = new MoldUdp64Packetizer("SRCTEST", 1400, 1_000_000_000L,
        SystemNanoClock.INSTANCE, this::collect, counters);

    @Test
    void readsEveryRecordInOrderIncludingTheZeroLengthForm() throws Exception
    {
        final byte[] add = message('A', 36);
        final byte[] delete = message('D', 19);
        final byte[] system = message('S', 12);
        final ByteArrayOutputStream file = new ByteArrayOutputStream();
        record(file, add);
        file.write(new byte[]{ 0, 0 }); // length 0: the type byte that follows tells it (D: 19)
        file.write(delete);
        record(file, system);

        try (ItchFileSource source = open(file.toByteArray(), 0))
        {
            drain(source);
            assertEquals(3, source.emitted());
            assertNull(source.error());
        }
        assertArrayEquals(add, messages.get(0));
        assertArrayEquals(delete, messages.get(1));
        assertArrayEquals(system, messages.get(2));
    }

    @Test
    void stopsAtTheLimit() throws Exception
    {
        final ByteArrayOutputStream file = new ByteArrayOutputStream();
        for (int i = 0; i < 10; i++)
        {
            record(file, message('D', 19));
        }
        try (ItchFileSource source = open(file.toByteArray(), 4))
        {
            drain(source);
            assertEquals(4, source.emitted());
            assertNull(source.error());
        }
        assertEquals(4, messages.size());
    }

    @Test
    void latencyStampingReplacesTheTimestampAndNothingElse() throws Exception
    {
        final byte[] add = message('A', 36);
        final ByteArrayOutputStream file = new ByteArrayOutputStream();
        record(file, add);
        record(file, add);
        final long timestamp = 0x0000_1234_5678_9ABCL;
        try (ItchFileSource source = open(file.toByteArray(), 0))
        {
            assertTrue(source.appendNext(packetizer, timestamp));
            assertTrue(source.appendNext(packetizer, ItchFileSource.KEEP_TIMESTAMP));
            packetizer.flush();
        }
        final byte[] expected = add.clone();
        for (int i = 0; i < 6; i++)
        {
            expected[5 + i] = (byte)(timestamp >>> (40 - 8 * i));
        }
        assertArrayEquals(expected, messages.get(0));
        assertArrayEquals(add, messages.get(1), "the next message is read afresh, with its own timestamp");
    }

    @Test
    void aLengthNoItchMessageHasEndsTheSessionWithTheOffsetNamed() throws Exception
    {
        final ByteArrayOutputStream file = new ByteArrayOutputStream();
        record(file, message('D', 19));
        file.write(new byte[]{ 0x01, 0x00 }); // 256 bytes: not ITCH
        file.write(new byte[256]);
        record(file, message('D', 19));
        try (ItchFileSource source = open(file.toByteArray(), 0))
        {
            drain(source);
            assertEquals(1, source.emitted());
            assertTrue(source.error().contains("record at byte 21 has length 256"), source.error());
            assertFalse(source.appendNext(packetizer, ItchFileSource.KEEP_TIMESTAMP), "and stays ended");
        }
    }

    @Test
    void aTruncatedLastRecordEndsTheSessionAfterTheWholeOnes() throws Exception
    {
        final ByteArrayOutputStream file = new ByteArrayOutputStream();
        record(file, message('D', 19));
        record(file, message('D', 19));
        final byte[] bytes = Arrays.copyOf(file.toByteArray(), 21 + 10);
        try (ItchFileSource source = open(bytes, 0))
        {
            drain(source);
            assertEquals(1, source.emitted());
            assertTrue(source.error().contains("truncated record at byte 21"), source.error());
        }
    }

    @Test
    void aCaptureIsRefusedWithTheCommandThatReadsIt() throws Exception
    {
        final Path pcap = dir.resolve("capture.pcap");
        Files.write(pcap, new byte[]{ (byte)0xD4, (byte)0xC3, (byte)0xB2, (byte)0xA1, 2, 0, 4, 0 });
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> ItchFileSource.open(pcap, 0));
        assertTrue(ex.getMessage().contains("replay command"), ex.getMessage());
    }

    /** Reading from the file and packing allocate nothing per message, across chunk refills. */
    @Test
    void readingAllocatesNothing() throws Exception
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final byte[] add = message('A', 36);
        for (int i = 0; i < 1_200_000; i++)
        {
            record(out, add);
        }
        final MoldUdp64Packetizer counting = new MoldUdp64Packetizer("SRCTEST", 1400, 1_000_000_000L,
            SystemNanoClock.INSTANCE, (buffer, offset, length) -> { }, counters);
        try (ItchFileSource source = open(out.toByteArray(), 0))
        {
            for (int i = 0; i < 300_000; i++)
            {
                source.appendNext(counting, i);
            }
            AllocationWindows.assertOneWindowAllocatesNothing("reading 300,000 messages", AllocationWindows.WINDOWS,
                () ->
                {
                    for (int i = 0; i < 300_000; i++)
                    {
                        source.appendNext(counting, i);
                    }
                });
            assertNull(source.error());
        }
    }

    private ItchFileSource open(final byte[] bytes, final long limit) throws Exception
    {
        final Path file = Files.createTempFile(dir, "source", ".itch");
        Files.write(file, bytes);
        return ItchFileSource.open(file, limit);
    }

    private void drain(final ItchFileSource source)
    {
        while (source.appendNext(packetizer, ItchFileSource.KEEP_TIMESTAMP))
        {
            // each message goes into the packet
        }
        packetizer.flush();
    }

    private void collect(final DirectBuffer buffer, final int offset, final int length)
    {
        final int count = buffer.getShort(offset + MoldUdp64Packetizer.COUNT_OFFSET, java.nio.ByteOrder.BIG_ENDIAN) & 0xFFFF;
        int position = offset + MoldUdp64Packetizer.HEADER_LENGTH;
        for (int i = 0; i < count && count != MoldUdp64Packetizer.END_OF_SESSION_COUNT; i++)
        {
            final int messageLength = buffer.getShort(position, java.nio.ByteOrder.BIG_ENDIAN) & 0xFFFF;
            final byte[] message = new byte[messageLength];
            buffer.getBytes(position + 2, message);
            messages.add(message);
            position += 2 + messageLength;
        }
    }

    /** A message of a type and length with distinct bytes after the type. */
    private static byte[] message(final char type, final int length)
    {
        final byte[] message = new byte[length];
        message[0] = (byte)type;
        for (int i = 1; i < length; i++)
        {
            message[i] = (byte)(i * 7 + type);
        }
        return message;
    }

    private static void record(final ByteArrayOutputStream out, final byte[] message)
    {
        out.write(message.length >>> 8);
        out.write(message.length & 0xFF);
        out.write(message, 0, message.length);
    }
}
