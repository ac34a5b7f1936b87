package io.mdfanout.feed.sim;

import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * A whole session's MoldUDP64 data packets, encoded before the first is sent, so that sending one costs a copy and a
 * system call and nothing per message: the benchmark's exchange ({@code simulator --pre-encode}) then outruns the
 * chain it feeds, where encoding and packing each message on the send path made the simulator the first thing to
 * saturate.
 * <p>
 * A {@link PacketSink} for a {@link MoldUdp64Packetizer} run over the session before sending. Packets are copied
 * into chunks of native memory ({@link #CHUNK_BYTES} each, outside the JVM's heap and direct-memory limits: a
 * session of tens of millions of messages is over a gigabyte); no packet straddles two chunks. {@link #close()}
 * frees them. Single-threaded.
 */
public final class PreEncodedSession implements PacketSink, AutoCloseable
{
    /** Native memory per chunk: 64 MiB. */
    public static final int CHUNK_BYTES = 64 * 1024 * 1024;

    private static final int INITIAL_PACKETS = 1024;

    private final List<UnsafeBuffer> chunks = new ArrayList<>();
    private UnsafeBuffer chunk;
    private int chunkPosition;
    /** Per packet: its chunk (high 32 bits) and offset (low 32 bits). */
    private long[] locations = new long[INITIAL_PACKETS];
    private int[] lengths = new int[INITIAL_PACKETS];
    private int packets;
    private long messages;
    private long bytes;

    /**
     * Keeps a copy of one data packet. A heartbeat or end-of-session packet (no message) is refused: what is sent
     * between data packets is the sender's to decide.
     *
     * @param buffer holding the packet.
     * @param offset where it starts.
     * @param length its length, at most {@link #CHUNK_BYTES}.
     */
    public void onPacket(final DirectBuffer buffer, final int offset, final int length)
    {
        final int count = buffer.getShort(offset + MoldUdp64Packetizer.COUNT_OFFSET, BIG_ENDIAN) & 0xFFFF;
        if (0 == count || MoldUdp64Packetizer.END_OF_SESSION_COUNT == count)
        {
            throw new IllegalArgumentException("only data packets are pre-encoded: message count " + count);
        }
        if (null == chunk || chunkPosition + length > CHUNK_BYTES)
        {
            chunk = new UnsafeBuffer(UnsafeApi.allocateMemory(CHUNK_BYTES), CHUNK_BYTES);
            chunks.add(chunk);
            chunkPosition = 0;
        }
        if (packets == lengths.length)
        {
            locations = Arrays.copyOf(locations, packets * 2);
            lengths = Arrays.copyOf(lengths, packets * 2);
        }
        chunk.putBytes(chunkPosition, buffer, offset, length);
        locations[packets] = ((long)(chunks.size() - 1) << 32) | chunkPosition;
        lengths[packets] = length;
        packets++;
        chunkPosition += length;
        messages += count;
        bytes += length;
    }

    /** @return the packets kept. */
    public int packets()
    {
        return packets;
    }

    /** @return the messages in them. */
    public long messages()
    {
        return messages;
    }

    /** @return their bytes, MoldUDP64 headers included. */
    public long bytes()
    {
        return bytes;
    }

    /**
     * @param index a packet, 0 to {@link #packets()} - 1.
     * @return the buffer that holds it.
     */
    public DirectBuffer buffer(final int index)
    {
        return chunks.get((int)(locations[index] >>> 32));
    }

    /**
     * @param index a packet.
     * @return where it starts in its {@link #buffer(int)}.
     */
    public int offset(final int index)
    {
        return (int)locations[index];
    }

    /**
     * @param index a packet.
     * @return its length.
     */
    public int length(final int index)
    {
        return lengths[index];
    }

    /**
     * @param index a packet.
     * @return the messages it holds.
     */
    public int messageCount(final int index)
    {
        return buffer(index).getShort(offset(index) + MoldUdp64Packetizer.COUNT_OFFSET, BIG_ENDIAN) & 0xFFFF;
    }

    /** Frees the native memory; the packets are gone. Idempotent. */
    public void close()
    {
        for (final UnsafeBuffer allocated : chunks)
        {
            UnsafeApi.freeMemory(allocated.addressOffset());
        }
        chunks.clear();
        chunk = null;
        packets = 0;
    }
}
