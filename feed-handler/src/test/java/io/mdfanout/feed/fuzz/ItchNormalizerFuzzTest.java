package io.mdfanout.feed.fuzz;

import io.mdfanout.feed.itch.ItchMessageType;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes {@code ItchNormalizer.onMessage} with messages of every type (and unknown types), random
 * field bytes and lengths, and mutations of valid messages. The oracle per message: exactly one of
 * unknown type, invalid length or decoded is counted; a decoded message is published (one record,
 * or one per partition when market-wide), counted as an invalid field, or not in the schema (L, K,
 * J, N, O); every record is valid and carries the exchange sequence given, the ITCH timestamp and
 * the stock locate.
 */
class ItchNormalizerFuzzTest
{
    private static final byte[] NOT_PUBLISHED = {'L', 'K', 'J', 'N', 'O'};

    private final FuzzChain chain = new FuzzChain();
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);

    @Property(tries = Fuzz.TRIES)
    void everyTypeWithRandomFieldsAndLengths(@ForAll final long seed)
    {
        final int inputs = Fuzz.inputsPerTry(500_000);
        Fuzz.withoutHanging(inputs, () -> run(new SplittableRandom(seed), inputs));
    }

    @Example
    void heapDoesNotGrowAndEveryTypeIsReached()
    {
        final SplittableRandom random = new SplittableRandom(5);
        run(random, 50_000);
        final long before = LineArbiterFuzzTest.usedHeap();
        run(random, 200_000);
        final long after = LineArbiterFuzzTest.usedHeap();
        assertTrue(after - before < 32L << 20, "heap grew by " + (after - before) + " bytes");

        for (final byte type : ItchMessageType.ALL_TYPES)
        {
            assertTrue(chain.normalizerCounters.decoded(type).get() > 0, "decoded " + (char)type);
        }
        assertTrue(chain.normalizerCounters.unknownTypes().get() > 0);
        assertTrue(chain.normalizerCounters.invalidLength().get() > 0);
        assertTrue(chain.normalizerCounters.invalidField().get() > 0);
        assertTrue(chain.normalizerCounters.messagesPublished().get() > 50_000);
    }

    private byte[] input(final SplittableRandom random)
    {
        switch (random.nextInt(4))
        {
            case 0: // a valid message, as is
                return Fuzz.randomValidMessage(random);
            case 1: // a valid message, mutated
                return Fuzz.mutate(random, Fuzz.randomValidMessage(random));
            case 2: // a known type with random fields, around its length
            {
                final byte type = ItchMessageType.ALL_TYPES[random.nextInt(ItchMessageType.ALL_TYPES.length)];
                final int length = Math.max(0, ItchMessageType.specLength(type) + random.nextInt(-3, 6));
                final byte[] bytes = Fuzz.randomBytes(random, length);
                if (length > 0)
                {
                    bytes[0] = type;
                }
                return bytes;
            }
            default: // anything
                return Fuzz.randomBytes(random, random.nextInt(80));
        }
    }

    private void run(final SplittableRandom random, final int inputs)
    {
        for (int i = 0; i < inputs; i++)
        {
            final byte[] message = input(random);
            final long sequence = 1 + (random.nextLong() >>> 1);
            final int offset = random.nextInt(64);
            buffer.putBytes(offset, message);
            onMessage(message, offset, sequence);
        }
    }

    private void onMessage(final byte[] message, final int offset, final long sequence)
    {
        final long decodedBefore = chain.normalizerCounters.totalDecoded();
        final long unknownBefore = chain.normalizerCounters.unknownTypes().get();
        final long invalidLengthBefore = chain.normalizerCounters.invalidLength().get();
        final long invalidFieldBefore = chain.normalizerCounters.invalidField().get();
        final long publishedBefore = chain.normalizerCounters.messagesPublished().get();

        chain.validator.reset();
        chain.normalizer.onMessage(buffer, offset, message.length, sequence);
        chain.normalizer.flush();
        final long records = chain.validator.drain(chain.rings);
        chain.drainAndCheck();

        final long decoded = chain.normalizerCounters.totalDecoded() - decodedBefore;
        final long unknown = chain.normalizerCounters.unknownTypes().get() - unknownBefore;
        final long invalidLength = chain.normalizerCounters.invalidLength().get() - invalidLengthBefore;
        final long invalidField = chain.normalizerCounters.invalidField().get() - invalidFieldBefore;
        final long published = chain.normalizerCounters.messagesPublished().get() - publishedBefore;
        assertEquals(1, decoded + unknown + invalidLength, "exactly one outcome per message");
        assertTrue(invalidField + published <= decoded);

        if (1 == published)
        {
            final int locate = ((message[1] & 0xFF) << 8) | (message[2] & 0xFF);
            assertEquals(0 == locate ? FuzzChain.PARTITIONS : 1, records,
                () -> "records of one message " + java.util.Arrays.toString(message));
            assertEquals(sequence, chain.validator.lastExchangeSequence);
            assertEquals(locate, chain.validator.lastInstrumentId);
            long timestamp = 0;
            for (int i = 5; i < 11; i++)
            {
                timestamp = (timestamp << 8) | (message[i] & 0xFF);
            }
            assertEquals(timestamp, chain.validator.lastExchangeTimestamp);
        }
        else
        {
            assertEquals(0, records, "a message not published writes nothing");
            if (1 == decoded && 0 == invalidField)
            {
                assertTrue(isNotPublishedType(message[0]), "decoded, valid, not published: only L K J N O");
            }
        }
    }

    private static boolean isNotPublishedType(final byte type)
    {
        for (final byte t : NOT_PUBLISHED)
        {
            if (t == type)
            {
                return true;
            }
        }
        return false;
    }
}
