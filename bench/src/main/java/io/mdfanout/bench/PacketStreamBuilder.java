package io.mdfanout.bench;

import io.mdfanout.feed.handler.InMemoryCounters;
import io.mdfanout.feed.normalize.NormalizerCounters;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.PacketHeaderEncoder;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

/**
 * Set-up helper: packs the records of partition rings into the wire packets the fanout sends
 * (SBE header + PacketHeader, then whole records back to back; stream sequences consecutive from 1
 * per partition; each packet's previousExchangeSequence the partition's chain before it, from 0 at
 * the session's start; never more than the maximum payload), then interleaves the partitions' packets
 * round-robin, as a subscriber of every partition receives them. Allocates freely: set-up only.
 */
final class PacketStreamBuilder
{
    private static final int PACKET_HEADER_LENGTH = MessageHeaderEncoder.ENCODED_LENGTH + PacketHeaderEncoder.BLOCK_LENGTH;

    private final int partitionCount;
    private final int maxPayload;
    private final UnsafeBuffer[] perPartition;
    private final int[][] offsets;
    private final int[][] lengths;
    private final long[][] firstSequences;
    private final int[] counts;
    private final int[] bytes;
    private final long[] messages;
    /** Per partition: the chain (the last record's exchange sequence) so far, and each packet's before it. */
    private final long[] chain;
    private final long[][] previousChains;
    /** Per partition: where each record starts in its partition buffer, and each packet's first record. */
    private final int[][] recordOffsets;
    private final int[] recordCounts;
    private final int[][] firstRecords;
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final PacketHeaderEncoder packetHeaderEncoder = new PacketHeaderEncoder();

    private UnsafeBuffer packets;
    private int packetCount;
    private int[] packetOffsets;
    private int[] packetLengths;
    private int[] packetSlots;
    private long[] packetFirstSequences;
    private long[] packetPreviousChains;
    private boolean[] packetStartsPartition;
    private int[] exchangeSequenceOffsets;
    private int exchangeSequenceCount;

    private int partition;
    private int packetStart;
    private int packetMessages;

    /**
     * The bench session ({@link GeneratedSession}) normalized into rings by the feed handler's normalizer, then packed
     * as the fanout packs it, at most {@link SdkBookBenchmark#MAX_PAYLOAD} bytes a packet.
     *
     * @param partitions   partitions of the session.
     * @param ringCapacity each partition ring's capacity.
     * @param counters     the normalizer's counters (its ring records written, for a check by the caller).
     * @return the packed builder.
     */
    static PacketStreamBuilder ofBenchSession(final int partitions, final int ringCapacity, final NormalizerCounters counters)
    {
        final RingBuffer[] rings = GeneratedSession.normalizedIntoRings(partitions, ringCapacity, counters);
        final PacketStreamBuilder builder =
            new PacketStreamBuilder(partitions, SdkBookBenchmark.MAX_PAYLOAD, ringCapacity * partitions);
        builder.pack(rings);
        return builder;
    }

    /**
     * {@link #ofBenchSession(int, int, NormalizerCounters)} with counters of its own.
     *
     * @param partitions   partitions of the session.
     * @param ringCapacity each partition ring's capacity.
     * @return the packed builder.
     */
    static PacketStreamBuilder ofBenchSession(final int partitions, final int ringCapacity)
    {
        return ofBenchSession(partitions, ringCapacity,
            new NormalizerCounters(new InMemoryCounters(256).countersManager(), "bench", partitions));
    }

    PacketStreamBuilder(final int partitionCount, final int maxPayload, final int maxBytes)
    {
        this.partitionCount = partitionCount;
        this.maxPayload = maxPayload;
        perPartition = new UnsafeBuffer[partitionCount];
        offsets = new int[partitionCount][];
        lengths = new int[partitionCount][];
        firstSequences = new long[partitionCount][];
        counts = new int[partitionCount];
        bytes = new int[partitionCount];
        messages = new long[partitionCount];
        chain = new long[partitionCount];
        previousChains = new long[partitionCount][];
        recordOffsets = new int[partitionCount][];
        recordCounts = new int[partitionCount];
        firstRecords = new int[partitionCount][];
        for (int i = 0; i < partitionCount; i++)
        {
            perPartition[i] = new UnsafeBuffer(new byte[maxBytes / partitionCount * 2]);
            offsets[i] = new int[maxBytes / 1024];
            lengths[i] = new int[maxBytes / 1024];
            firstSequences[i] = new long[maxBytes / 1024];
            previousChains[i] = new long[maxBytes / 1024];
            firstRecords[i] = new int[maxBytes / 1024 + 1];
            recordOffsets[i] = new int[maxBytes / partitionCount / 8];
        }
    }

    void pack(final RingBuffer[] rings)
    {
        for (partition = 0; partition < partitionCount; partition++)
        {
            startPacket();
            rings[partition].read(this::onRecord, Integer.MAX_VALUE);
            endPacket();
        }
        interleave();
    }

    private void onRecord(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        if (bytes[partition] - packetStart + length > maxPayload)
        {
            endPacket();
            startPacket();
        }
        perPartition[partition].putBytes(bytes[partition], buffer, index, length);
        recordOffsets[partition][recordCounts[partition]++] = bytes[partition];
        bytes[partition] += length;
        packetMessages++;
    }

    private void startPacket()
    {
        packetStart = bytes[partition];
        packetMessages = 0;
        bytes[partition] += PACKET_HEADER_LENGTH;
    }

    private void endPacket()
    {
        if (0 == packetMessages)
        {
            bytes[partition] = packetStart;
            return;
        }
        final long firstSequence = messages[partition] + 1;
        packetHeaderEncoder.wrapAndApplyHeader(perPartition[partition], packetStart, headerEncoder)
            .streamSequence(firstSequence)
            .sendingTime(0)
            .partitionId(partition)
            .messageCount(packetMessages)
            .previousExchangeSequence(chain[partition]);
        final int n = counts[partition]++;
        offsets[partition][n] = packetStart;
        lengths[partition][n] = bytes[partition] - packetStart;
        firstSequences[partition][n] = firstSequence;
        previousChains[partition][n] = chain[partition];
        firstRecords[partition][n + 1] = recordCounts[partition];
        messages[partition] += packetMessages;
        // Every record of the generated session is an exchange message: its exchange sequence moves the chain.
        chain[partition] = perPartition[partition].getLong(
            recordOffsets[partition][recordCounts[partition] - 1] + MessageHeaderEncoder.ENCODED_LENGTH, LITTLE_ENDIAN);
    }

    private void interleave()
    {
        int totalBytes = 0;
        for (int i = 0; i < partitionCount; i++)
        {
            packetCount += counts[i];
            totalBytes += bytes[i];
        }
        packets = new UnsafeBuffer(new byte[totalBytes]);
        packetOffsets = new int[packetCount];
        packetLengths = new int[packetCount];
        packetSlots = new int[packetCount];
        packetFirstSequences = new long[packetCount];
        packetPreviousChains = new long[packetCount];
        packetStartsPartition = new boolean[packetCount];
        int records = 0;
        for (int i = 0; i < partitionCount; i++)
        {
            records += recordCounts[i];
        }
        exchangeSequenceOffsets = new int[records];

        int out = 0;
        int position = 0;
        for (int round = 0; out < packetCount; round++)
        {
            for (int slot = 0; slot < partitionCount; slot++)
            {
                if (round < counts[slot])
                {
                    final int length = lengths[slot][round];
                    packets.putBytes(position, perPartition[slot], offsets[slot][round], length);
                    packetOffsets[out] = position;
                    packetLengths[out] = length;
                    packetSlots[out] = slot;
                    packetFirstSequences[out] = firstSequences[slot][round];
                    packetPreviousChains[out] = previousChains[slot][round];
                    packetStartsPartition[out] = 0 == round;
                    for (int r = firstRecords[slot][round]; r < firstRecords[slot][round + 1]; r++)
                    {
                        exchangeSequenceOffsets[exchangeSequenceCount++] =
                            position + recordOffsets[slot][r] - offsets[slot][round] + MessageHeaderEncoder.ENCODED_LENGTH;
                    }
                    position += length;
                    out++;
                }
            }
        }
    }

    int[] partitions()
    {
        final int[] partitions = new int[partitionCount];
        for (int i = 0; i < partitionCount; i++)
        {
            partitions[i] = i;
        }
        return partitions;
    }

    UnsafeBuffer packets()
    {
        return packets;
    }

    int packetCount()
    {
        return packetCount;
    }

    int[] packetOffsets()
    {
        return packetOffsets;
    }

    int[] packetLengths()
    {
        return packetLengths;
    }

    int[] packetSlots()
    {
        return packetSlots;
    }

    long[] packetFirstSequences()
    {
        return packetFirstSequences;
    }

    /** @return per packet, its partition's chain before it (its previousExchangeSequence). */
    long[] packetPreviousChains()
    {
        return packetPreviousChains;
    }

    /** @return per packet, whether it is its partition's first. */
    boolean[] packetStartsPartition()
    {
        return packetStartsPartition;
    }

    /** @return where each message's exchange sequence lies in {@link #packets()}. */
    int[] exchangeSequenceOffsets()
    {
        return java.util.Arrays.copyOf(exchangeSequenceOffsets, exchangeSequenceCount);
    }

    /** @return per partition, its chain at the session's end (its last message's exchange sequence). */
    long[] lastChains()
    {
        return chain.clone();
    }

    long[] messagesPerPartition()
    {
        return messages.clone();
    }

    long messageCount()
    {
        long total = 0;
        for (final long m : messages)
        {
            total += m;
        }
        return total;
    }
}
