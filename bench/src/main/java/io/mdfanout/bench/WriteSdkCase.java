package io.mdfanout.bench;

import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the packets {@link SdkBookBenchmark} decodes (the benchmark session normalized into four partitions and packed
 * as the fanout packs them) as a conformance case file (conformance/README.md), so that the Rust and Python SDKs'
 * benchmarks decode exactly the same wire bytes as the Java SDK's: {@code java -cp ... io.mdfanout.bench.WriteSdkCase
 * FILE}. Every packet is a record of its partition's incremental stream, all from one publication.
 */
public final class WriteSdkCase
{
    private static final byte KIND_INCREMENTAL = 1;
    private static final int SESSION_ID = 1;
    private static final int RECORD_HEADER_LENGTH = 12;

    private WriteSdkCase()
    {
    }

    /**
     * @param args the case file to write.
     * @throws IOException when it cannot be written.
     */
    public static void main(final String[] args) throws IOException
    {
        if (1 != args.length)
        {
            System.err.println("usage: WriteSdkCase FILE");
            System.exit(2);
        }
        final int partitions = SdkBookBenchmark.PARTITIONS;
        final PacketStreamBuilder builder = PacketStreamBuilder.ofBenchSession(partitions, SdkBookBenchmark.RING_CAPACITY);

        final UnsafeBuffer packets = builder.packets();
        final int[] partitionOfSlot = builder.partitions();
        final ByteBuffer header = ByteBuffer.allocate(RECORD_HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        final Path file = Path.of(args[0]);
        try (OutputStream out = Files.newOutputStream(file))
        {
            out.write("MDFCONF2".getBytes(StandardCharsets.US_ASCII));
            // the partition count, then the flags and the recovery buffer's size: recovery off
            out.write(header.clear().putInt(partitions).putInt(0).putInt(0).array(), 0, 3 * Integer.BYTES);
            for (int i = 0; i < builder.packetCount(); i++)
            {
                final int length = builder.packetLengths()[i];
                header.clear().put(KIND_INCREMENTAL).put((byte)0).putShort((short)partitionOfSlot[builder.packetSlots()[i]])
                    .putInt(SESSION_ID).putInt(length);
                out.write(header.array());
                final byte[] bytes = new byte[length];
                packets.getBytes(builder.packetOffsets()[i], bytes);
                out.write(bytes);
            }
        }
        System.out.println("WriteSdkCase: " + builder.packetCount() + " packets, " + builder.messageCount() +
            " messages on " + partitions + " partitions: " + file);
    }
}
