package io.mdfanout.cli;

import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The MoldUDP64 data packets of a classic little-endian pcap written by the simulator, read
 * independently of the replay code: for data packet number n (from 1, heartbeats and
 * end-of-session excluded), the sequence of its first message and its message count.
 */
final class CapturedPackets
{
    private static final int GLOBAL_HEADER = 24;
    private static final int RECORD_HEADER = 16;
    private static final int ETHERNET_IPV4_UDP = 14 + 20 + 8;

    private long[] firstSequence = new long[1 << 16];
    private int[] messageCount = new int[1 << 16];
    private int dataPackets;

    static CapturedPackets read(final Path pcap) throws IOException
    {
        final CapturedPackets packets = new CapturedPackets();
        final UnsafeBuffer file = new UnsafeBuffer(Files.readAllBytes(pcap));
        if (file.getInt(0, ByteOrder.LITTLE_ENDIAN) != 0xa1b2c3d4)
        {
            throw new IOException("not a little-endian microsecond pcap: " + pcap);
        }
        int position = GLOBAL_HEADER;
        while (position + RECORD_HEADER <= file.capacity())
        {
            final int capturedLength = file.getInt(position + 8, ByteOrder.LITTLE_ENDIAN);
            final int mold = position + RECORD_HEADER + ETHERNET_IPV4_UDP;
            final int count = file.getShort(mold + 18, ByteOrder.BIG_ENDIAN) & 0xFFFF;
            if (count != 0 && count != 0xFFFF)
            {
                packets.add(file.getLong(mold + 10, ByteOrder.BIG_ENDIAN), count);
            }
            position += RECORD_HEADER + capturedLength;
        }
        return packets;
    }

    private void add(final long sequence, final int count)
    {
        if (dataPackets == firstSequence.length)
        {
            firstSequence = java.util.Arrays.copyOf(firstSequence, dataPackets * 2);
            messageCount = java.util.Arrays.copyOf(messageCount, dataPackets * 2);
        }
        firstSequence[dataPackets] = sequence;
        messageCount[dataPackets] = count;
        dataPackets++;
    }

    int dataPackets()
    {
        return dataPackets;
    }

    /** Sequence of the first message of data packet {@code number} (from 1). */
    long firstSequence(final int number)
    {
        return firstSequence[number - 1];
    }

    /** Sequence of the last message of data packet {@code number} (from 1). */
    long lastSequence(final int number)
    {
        return firstSequence[number - 1] + messageCount[number - 1] - 1;
    }
}
