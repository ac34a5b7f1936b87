package io.mdfanout.feed.fuzz;

import io.mdfanout.feed.support.MoldPackets;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes {@link io.mdfanout.feed.handler.LineArbiter} (a single line, as replays run it) with arbitrary
 * datagrams and with mutations of a valid session's packets (bit flips, truncation, block length,
 * sequence, session and count corruption, duplicates, heartbeats, end of session). Properties: nothing
 * escapes or is caught as unexpected, every ring record is a valid normalized message, exchange
 * sequences never go back, counters agree with the rings, the heap does not grow; and malformed
 * datagrams between valid ones are counted and lose none of the valid data.
 */
class LineArbiterFuzzTest
{
    private static final int MAX_UDP_PAYLOAD = 65_507;
    private static final int SESSION_INPUTS = 100;

    private final FuzzChain chain = new FuzzChain();
    private final byte[] datagram = new byte[MAX_UDP_PAYLOAD + 64];
    private final UnsafeBuffer datagramBuffer = new UnsafeBuffer(datagram);

    @Property(tries = Fuzz.TRIES)
    void arbitraryAndMutatedPackets(@ForAll final long seed)
    {
        final int inputs = Fuzz.inputsPerTry(500_000);
        Fuzz.withoutHanging(inputs, () -> runSession(new SplittableRandom(seed), inputs));
    }

    /**
     * A sequence number no session reaches (2^63 and above: negative as a Java long), found by this fuzzer after
     * some thousand tries: taken as a session's start or a gap's bound it declared a gap from a negative
     * sequence whose notice never reached the rings. It is counted and skipped, and the session goes on.
     */
    @Example
    void aSequenceNumberNoSessionReachesIsCountedAndSkipped()
    {
        chain.newSession();
        final long gapsBefore = chain.feedCounters.gaps().get();
        final long invalidBefore = chain.feedCounters.invalidSequencePackets().get();
        final SplittableRandom random = new SplittableRandom(7);
        deliver(random, MoldPackets.packet(FuzzChain.SESSION, 1, new byte[][]{ Fuzz.randomValidMessage(random) }));
        chain.drainAndCheck();
        for (final long sequence : new long[]{ -281_474_976_710_466L, -1L, Long.MIN_VALUE, Long.MAX_VALUE })
        {
            deliver(random, MoldPackets.packet(FuzzChain.SESSION, sequence, new byte[][]{ Fuzz.randomValidMessage(random) }));
            deliver(random, MoldPackets.heartbeat(FuzzChain.SESSION, sequence));
            chain.drainAndCheck();
        }
        deliver(random, MoldPackets.packet(FuzzChain.SESSION, 2, new byte[][]{ Fuzz.randomValidMessage(random) }));
        chain.drainAndCheck();
        assertEquals(8, chain.feedCounters.invalidSequencePackets().get() - invalidBefore, "each counted");
        assertEquals(gapsBefore, chain.feedCounters.gaps().get(), "no gap declared from them");
        assertEquals(3, chain.arbiter.nextExpected(), "the session went on");
    }

    @Example
    void heapDoesNotGrowOverALongRun()
    {
        final SplittableRandom random = new SplittableRandom(11);
        runSession(random, 20_000); // warm up: classes, JIT, counters
        final long before = usedHeap();
        for (int i = 0; i < 20; i++)
        {
            runSession(random, 10_000);
        }
        final long after = usedHeap();
        assertTrue(after - before < 32L << 20, "heap grew by " + (after - before) + " bytes");

        // the inputs reached every branch that matters, so the properties above are not vacuous
        assertTrue(chain.normalizerCounters.messagesPublished().get() > 100_000,
            "messagesPublished " + chain.normalizerCounters.messagesPublished().get());
        assertTrue(chain.normalizerCounters.gapNoticesPublished().get() > 1000,
            "gapNoticesPublished " + chain.normalizerCounters.gapNoticesPublished().get());
        assertTrue(chain.normalizerCounters.invalidField().get() > 0,
            "invalidField " + chain.normalizerCounters.invalidField().get());
        assertTrue(chain.feedCounters.truncatedPackets().get() > 0,
            "truncatedPackets " + chain.feedCounters.truncatedPackets().get());
        assertTrue(chain.feedCounters.malformedBlocks().get() > 0,
            "malformedBlocks " + chain.feedCounters.malformedBlocks().get());
        assertTrue(chain.feedCounters.wrongSession().get() > 0, "wrongSession " + chain.feedCounters.wrongSession().get());
        assertTrue(chain.feedCounters.duplicatePackets().get() > 0,
            "duplicatePackets " + chain.feedCounters.duplicatePackets().get());
        assertTrue(chain.feedCounters.duplicateMessages().get() > 0,
            "duplicateMessages " + chain.feedCounters.duplicateMessages().get());
        assertTrue(chain.feedCounters.heartbeats().get() > 0, "heartbeats " + chain.feedCounters.heartbeats().get());
    }

    /**
     * Valid packets with malformed datagrams between them that carry no believable sequence (truncated,
     * random or of another session, a count beyond the blocks present, replays of packets already
     * delivered): each malformed one is counted as what it is and every valid message comes out once, in
     * order, with no gap.
     */
    @Property(tries = Fuzz.TRIES)
    void malformedDatagramsAreCountedAndLoseNoValidData(@ForAll final long seed)
    {
        final int inputs = Fuzz.inputsPerTry(200_000);
        Fuzz.withoutHanging(inputs, () -> runInterleaved(new SplittableRandom(seed), inputs));
    }

    private void runInterleaved(final SplittableRandom random, final int inputs)
    {
        chain.newSession();
        final long decodedBefore = chain.normalizerCounters.totalDecoded();
        final long truncatedBefore = chain.feedCounters.truncatedPackets().get();
        final long wrongSessionBefore = chain.feedCounters.wrongSession().get();
        final long malformedBefore = chain.feedCounters.malformedBlocks().get();
        final long gapsBefore = chain.feedCounters.gaps().get();
        long truncated = 0;
        long wrongSession = 0;
        long malformed = 0;
        long nextSequence = 1;
        byte[] previous = null;
        for (int i = 0; i < inputs; i++)
        {
            final int count = 1 + random.nextInt(8);
            final byte[][] messages = new byte[count][];
            for (int m = 0; m < count; m++)
            {
                messages[m] = Fuzz.randomValidMessage(random);
            }
            final byte[] valid = MoldPackets.packet(FuzzChain.SESSION, nextSequence, messages);
            switch (random.nextInt(5))
            {
                case 0:
                    deliver(random, Fuzz.randomBytes(random, random.nextInt(20)));
                    truncated++;
                    break;
                case 1:
                {
                    final byte[] other = random.nextBoolean() ? valid.clone() :
                        Fuzz.randomBytes(random, 20 + random.nextInt(200));
                    other[random.nextInt(10)] ^= (byte)(1 + random.nextInt(255));
                    if (isSession(other))
                    {
                        other[0] ^= 0x40; // the flip restored a random datagram's name by chance
                    }
                    deliver(random, other);
                    wrongSession++;
                    break;
                }
                case 2:
                {
                    final byte[] overCounted = valid.clone();
                    final int claimed = count + 1 + random.nextInt(100);
                    overCounted[18] = (byte)(claimed >>> 8);
                    overCounted[19] = (byte)claimed;
                    deliver(random, overCounted);
                    malformed++;
                    break;
                }
                case 3:
                    if (null != previous)
                    {
                        deliver(random, previous);
                    }
                    break;
                default:
                    break;
            }
            deliver(random, valid);
            previous = valid;
            nextSequence += count;
            chain.drainAndCheck();
        }

        assertEquals(nextSequence - 1, chain.normalizerCounters.totalDecoded() - decodedBefore, "every valid message");
        assertEquals(nextSequence, chain.arbiter.nextExpected());
        assertEquals(gapsBefore, chain.feedCounters.gaps().get(), "no gap");
        assertEquals(truncated, chain.feedCounters.truncatedPackets().get() - truncatedBefore, "truncated");
        assertEquals(wrongSession, chain.feedCounters.wrongSession().get() - wrongSessionBefore, "wrong session");
        assertEquals(malformed, chain.feedCounters.malformedBlocks().get() - malformedBefore, "malformed blocks");
    }

    private static boolean isSession(final byte[] datagram)
    {
        for (int i = 0; i < 10; i++)
        {
            if (datagram[i] != FuzzChain.SESSION.charAt(i))
            {
                return false;
            }
        }
        return true;
    }

    private void deliver(final SplittableRandom random, final byte[] packet)
    {
        final int offset = random.nextInt(64);
        datagramBuffer.putBytes(offset, packet, 0, packet.length);
        chain.arbiter.onDatagram(datagramBuffer, offset, packet.length);
    }

    static long usedHeap()
    {
        final Runtime runtime = Runtime.getRuntime();
        for (int i = 0; i < 3; i++)
        {
            System.gc();
        }
        return runtime.totalMemory() - runtime.freeMemory();
    }

    private void runSession(final SplittableRandom random, final int inputs)
    {
        long nextSequence = 1;
        byte[] previous = MoldPackets.heartbeat(FuzzChain.SESSION, 1);
        for (int i = 0; i < inputs; i++)
        {
            if (i % SESSION_INPUTS == 0)
            {
                // a corrupted sequence number can move the session far ahead: start over regularly
                chain.newSession();
                nextSequence = 1;
            }
            final byte[] packet;
            final int choice = random.nextInt(100);
            if (choice < 10)
            {
                packet = Fuzz.randomBytes(random, random.nextInt(10) == 0 ? random.nextInt(MAX_UDP_PAYLOAD + 1) :
                    random.nextInt(64));
            }
            else if (choice < 15)
            {
                packet = previous; // duplicate (line B, retransmission)
            }
            else if (choice < 18)
            {
                packet = random.nextBoolean() ? MoldPackets.heartbeat(FuzzChain.SESSION, nextSequence + random.nextInt(3)) :
                    MoldPackets.endOfSession(FuzzChain.SESSION, nextSequence);
            }
            else
            {
                final int count = 1 + random.nextInt(random.nextInt(10) == 0 ? 200 : 8);
                final byte[][] messages = new byte[count][];
                for (int m = 0; m < count; m++)
                {
                    messages[m] = random.nextInt(20) == 0 ? Fuzz.mutate(random, Fuzz.randomValidMessage(random)) :
                        Fuzz.randomValidMessage(random);
                }
                final byte[] valid = MoldPackets.packet(FuzzChain.SESSION, nextSequence, messages);
                if (random.nextInt(10) < 3)
                {
                    nextSequence += count;
                    packet = valid;
                }
                else
                {
                    packet = mutatePacket(random, valid, nextSequence, count);
                    if (random.nextBoolean())
                    {
                        nextSequence += count; // the valid one was "lost": a gap follows
                    }
                }
            }
            previous = packet;
            final int length = Math.min(packet.length, MAX_UDP_PAYLOAD);
            // at a random offset in the receive buffer, as a socket might place it
            final int offset = random.nextInt(64);
            datagramBuffer.putBytes(offset, packet, 0, length);
            chain.arbiter.onDatagram(datagramBuffer, offset, length);
            chain.drainAndCheck();
        }
    }

    /** Structure-aware corruption of a valid packet. */
    private static byte[] mutatePacket(
        final SplittableRandom random, final byte[] valid, final long sequence, final int count)
    {
        final byte[] packet = valid.clone();
        switch (random.nextInt(7))
        {
            case 0: // sequence number
                putLong(packet, 10, random.nextBoolean() ? sequence + random.nextInt(-3, 4) : Fuzz.interestingLong(random));
                return packet;
            case 1: // session
                packet[random.nextInt(10)] = (byte)random.nextInt(256);
                return packet;
            case 2: // message count
            {
                final int newCount = random.nextBoolean() ? count + random.nextInt(-2, 3) : random.nextInt(65536);
                packet[18] = (byte)(newCount >>> 8);
                packet[19] = (byte)newCount;
                return packet;
            }
            case 3: // one block length
            {
                int offset = 20;
                final int target = random.nextInt(count);
                for (int i = 0; i < target; i++)
                {
                    offset += 2 + (((packet[offset] & 0xFF) << 8) | (packet[offset + 1] & 0xFF));
                }
                final int length = random.nextBoolean() ? random.nextInt(65536) : random.nextInt(60);
                packet[offset] = (byte)(length >>> 8);
                packet[offset + 1] = (byte)length;
                return packet;
            }
            default:
                return Fuzz.mutate(random, packet);
        }
    }

    private static void putLong(final byte[] bytes, final int offset, final long value)
    {
        for (int i = 0; i < 8; i++)
        {
            bytes[offset + i] = (byte)(value >>> (56 - 8 * i));
        }
    }
}
