package io.mdfanout.feed.fuzz;

import io.mdfanout.feed.sim.ItchEncoder;
import io.mdfanout.feed.sim.ItchEvent;
import io.mdfanout.feed.sim.SessionConfig;
import io.mdfanout.feed.sim.SessionGenerator;
import org.agrona.concurrent.UnsafeBuffer;

import org.junit.jupiter.api.function.Executable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Shared inputs and knobs of the fuzz tests.
 * <p>
 * {@code -Dfuzz.tries=N} sets the number of inputs of each fuzz property (default: enough for more
 * than a million inputs over the fuzz tests in {@code make test}, in seconds); jqwik's seed and
 * shrinking apply to the per-try seed, and a failure names it.
 */
final class Fuzz
{
    /** jqwik tries per fuzz property; each try runs {@link #inputsPerTry(int)} inputs from its seed. */
    static final int TRIES = 500;

    /** Valid ITCH messages of every body type, from the simulator, to mutate. */
    static final byte[][] VALID_MESSAGES = validMessages();

    private Fuzz()
    {
    }

    /**
     * Inputs each jqwik try runs.
     *
     * @param defaultTotal the total number of inputs of the property when fuzz.tries is not set.
     */
    static int inputsPerTry(final int defaultTotal)
    {
        final long total = Long.getLong("fuzz.tries", defaultTotal);
        return (int)Math.max(1, Math.min(Integer.MAX_VALUE, total / TRIES));
    }

    /**
     * Run one try's inputs on a watched thread: a hang (work not bounded by the input) fails the try
     * instead of stalling the build. The bound is minutes-generous, a guard, not a performance check.
     *
     * @param inputs the inputs the try runs, to scale the bound.
     * @param run    the try.
     */
    static void withoutHanging(final int inputs, final Executable run)
    {
        assertTimeoutPreemptively(Duration.ofMillis(Math.max(120_000L, inputs * 10L)), run,
            "an input did not finish: work must be bounded by the input");
    }

    private static byte[][] validMessages()
    {
        final SessionConfig config = new SessionConfig().symbols(20).messageCount(20_000);
        for (final char type : "ADUEXFIPCNQHBYLhKJOW".toCharArray())
        {
            config.weight(type, 1000);
        }
        final SessionGenerator generator = new SessionGenerator(7, config);
        final ItchEvent event = new ItchEvent();
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[ItchEncoder.MAX_MESSAGE_LENGTH]);
        final List<byte[]> messages = new ArrayList<>();
        while (generator.next(event))
        {
            final int length = ItchEncoder.encode(event, buffer, 0);
            messages.add(Arrays.copyOf(buffer.byteArray(), length));
        }
        return messages.toArray(new byte[0][]);
    }

    static byte[] randomValidMessage(final SplittableRandom random)
    {
        return VALID_MESSAGES[random.nextInt(VALID_MESSAGES.length)];
    }

    static byte[] randomBytes(final SplittableRandom random, final int length)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)random.nextInt(256);
        }
        return bytes;
    }

    /** An interesting long: small, near a power of two, extreme or random. */
    static long interestingLong(final SplittableRandom random)
    {
        switch (random.nextInt(6))
        {
            case 0:
                return random.nextInt(4);
            case 1:
                return Long.MAX_VALUE - random.nextInt(4);
            case 2:
                return Long.MIN_VALUE + random.nextInt(4);
            case 3:
                return -1 - random.nextInt(4);
            case 4:
                return (1L << random.nextInt(63)) + random.nextInt(3) - 1;
            default:
                return random.nextLong();
        }
    }

    /**
     * Mutate bytes in place or into a new array: bit flips, random bytes, truncation, extension,
     * 16-bit field corruption at a random offset.
     */
    static byte[] mutate(final SplittableRandom random, final byte[] input)
    {
        byte[] bytes = input.clone();
        final int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations; m++)
        {
            switch (random.nextInt(6))
            {
                case 0:
                    if (bytes.length > 0)
                    {
                        bytes[random.nextInt(bytes.length)] ^= (byte)(1 << random.nextInt(8));
                    }
                    break;
                case 1:
                    if (bytes.length > 0)
                    {
                        bytes[random.nextInt(bytes.length)] = (byte)random.nextInt(256);
                    }
                    break;
                case 2:
                    bytes = Arrays.copyOf(bytes, random.nextInt(bytes.length + 1));
                    break;
                case 3:
                    bytes = Arrays.copyOf(bytes, bytes.length + 1 + random.nextInt(16));
                    break;
                case 4:
                    if (bytes.length >= 2)
                    {
                        final int at = random.nextInt(bytes.length - 1);
                        final int value = random.nextBoolean() ? random.nextInt(65536) : (random.nextBoolean() ? 0 : 0xFFFF);
                        bytes[at] = (byte)(value >>> 8);
                        bytes[at + 1] = (byte)value;
                    }
                    break;
                default:
                    if (bytes.length >= 4)
                    {
                        final int at = random.nextInt(bytes.length - 3);
                        final int value = random.nextBoolean() ? random.nextInt() : -1 - random.nextInt(4);
                        bytes[at] = (byte)(value >>> 24);
                        bytes[at + 1] = (byte)(value >>> 16);
                        bytes[at + 2] = (byte)(value >>> 8);
                        bytes[at + 3] = (byte)value;
                    }
                    break;
            }
        }
        return bytes;
    }
}
