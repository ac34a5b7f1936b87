package io.mdfanout.bench;

import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the benchmark session ({@link GeneratedSession}) to a NASDAQ binary ITCH 5.0 file, so that
 * the native decoder peer (bench/peers/itchy-bench) decodes exactly the bytes
 * {@link ItchNormalizeBenchmark} normalizes: {@code java -cp ... io.mdfanout.bench.WriteSession FILE}.
 */
public final class WriteSession
{
    private WriteSession()
    {
    }

    /**
     * Write the session.
     *
     * @param args the output file.
     * @throws IOException if it cannot be written.
     */
    public static void main(final String[] args) throws IOException
    {
        if (args.length != 1)
        {
            System.err.println("usage: WriteSession FILE");
            System.exit(2);
        }
        final UnsafeBuffer session = GeneratedSession.framedItch();
        final byte[] bytes = new byte[session.capacity()];
        session.getBytes(0, bytes);
        Files.write(Path.of(args[0]), bytes);
        System.out.println("wrote " + GeneratedSession.MESSAGES + " messages, " + bytes.length + " bytes to " + args[0]);
    }
}
