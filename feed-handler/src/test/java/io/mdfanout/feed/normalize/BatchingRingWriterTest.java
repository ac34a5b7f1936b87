package io.mdfanout.feed.normalize;

import org.agrona.BufferUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The batching writer against Agrona's own {@link OneToOneRingBuffer} reader, which is what the
 * fanout reads the rings with: every record arrives once, in order, with its type, length and
 * bytes, across wraps (exact fits and padding); nothing is visible before its batch is published;
 * a full ring publishes what it holds; and the same under a real consumer thread.
 */
class BatchingRingWriterTest
{
    private static final int CAPACITY = 4096;

    @Test
    void recordsAreInvisibleUntilPublishedThenReadInOrder()
    {
        final OneToOneRingBuffer ring = newRing(CAPACITY);
        final BatchingRingWriter writer = new BatchingRingWriter(ring);
        final Checker checker = new Checker();

        for (int i = 0; i < 5; i++)
        {
            write(writer, checker.nextToWrite++, 20 + i);
        }
        assertTrue(writer.hasUnpublished());
        assertEquals(0, ring.read(checker), "nothing is readable before publish");
        assertEquals(0, ring.producerPosition(), "the producer position counts published records only");

        writer.publish();
        assertFalse(writer.hasUnpublished());
        assertEquals(5, ring.read(checker));
        assertNull(checker.failure);
        assertEquals(5, checker.nextToRead);
        assertEquals(ring.producerPosition(), ring.consumerPosition());

        writer.publish(); // an empty batch publishes nothing
        assertEquals(0, ring.read(checker));
    }

    @Test
    void randomBatchesAndReadsAcrossManyWrapsArriveIntactAndInOrder()
    {
        final SplittableRandom random = new SplittableRandom(42);
        final OneToOneRingBuffer ring = newRing(CAPACITY);
        final BatchingRingWriter writer = new BatchingRingWriter(ring);
        final Checker checker = new Checker();
        int fullRings = 0;

        while (ring.producerPosition() < 200L * CAPACITY)
        {
            final int batch = 1 + random.nextInt(40);
            for (int i = 0; i < batch; i++)
            {
                // Lengths of every alignment, up to the largest record, so that wraps hit exact fits and padding.
                final int length = 12 + random.nextInt(random.nextInt(8) == 0 ? ring.maxMsgLength() - 11 : 120);
                if (!write(writer, checker.nextToWrite, length))
                {
                    fullRings++;
                    assertFalse(writer.hasUnpublished(), "a full ring publishes the batch so the reader can free space");
                    readAll(ring, checker);
                    assertTrue(write(writer, checker.nextToWrite, length), "a claim fits once the reader has read");
                }
                checker.nextToWrite++;
            }
            writer.publish();
            ring.read(checker, random.nextInt(1, 64));
        }
        readAll(ring, checker);

        assertNull(checker.failure);
        assertEquals(checker.nextToWrite, checker.nextToRead);
        assertEquals(ring.producerPosition(), ring.consumerPosition());
        assertTrue(fullRings > 0, "the ring filled at times, so the full-ring path ran");
    }

    @Test
    void aRecordThatExactlyFillsTheEndOfTheBufferNeedsNoPadding()
    {
        final OneToOneRingBuffer ring = newRing(CAPACITY);
        final BatchingRingWriter writer = new BatchingRingWriter(ring);
        final Checker checker = new Checker();

        writeAndReadUpToSixtyFourBytesBeforeTheEnd(ring, writer, checker);
        write(writer, checker.nextToWrite++, 56); // 64 bytes: fits the end exactly
        write(writer, checker.nextToWrite++, 56);
        writer.publish();

        assertEquals(CAPACITY + 64, ring.producerPosition(), "no padding record: the tail moved by two records only");
        assertEquals(1, ring.read(checker), "the reader stops at the end of the buffer");
        assertEquals(1, ring.read(checker), "and goes on at its start");
        assertNull(checker.failure);
    }

    @Test
    void aRecordThatDoesNotFitTheEndOfTheBufferGoesToItsStartBehindPadding()
    {
        final OneToOneRingBuffer ring = newRing(CAPACITY);
        final BatchingRingWriter writer = new BatchingRingWriter(ring);
        final Checker checker = new Checker();

        writeAndReadUpToSixtyFourBytesBeforeTheEnd(ring, writer, checker);
        write(writer, checker.nextToWrite++, 100); // 112 bytes do not fit the 64 left
        writer.publish();

        assertEquals(CAPACITY + 112, ring.producerPosition(), "64 bytes of padding, then the record at the start");
        assertEquals(0, ring.read(checker), "the padding is skipped, not delivered");
        assertEquals(1, ring.read(checker));
        assertNull(checker.failure);
        assertEquals(checker.nextToWrite, checker.nextToRead);
    }

    @Test
    void followsTheProducerPositionOfAnEarlierWriterOfTheSameRing()
    {
        final OneToOneRingBuffer ring = newRing(CAPACITY);
        final Checker checker = new Checker();
        final long number = checker.nextToWrite++;
        final int index = ring.tryClaim(typeOf(number), 24);
        fillRecord(ring.buffer(), index, number, 24);
        ring.commit(index);

        final BatchingRingWriter writer = new BatchingRingWriter(ring);
        write(writer, checker.nextToWrite++, 24);
        writer.publish();

        assertEquals(2, ring.read(checker));
        assertNull(checker.failure);
    }

    @Test
    void aShorterBatchEndsWhereItEndsAfterAWriterThatDiedMidBatch()
    {
        final OneToOneRingBuffer ring = newRing(CAPACITY);
        final Checker checker = new Checker();
        // A writer that dies after writing four records of a batch it never published: their headers,
        // lengths included, stay in the ring after the published tail (the first one's length is 0).
        final BatchingRingWriter dead = new BatchingRingWriter(ring);
        for (int i = 0; i < 4; i++)
        {
            write(dead, 900 + i, 32);
        }

        final BatchingRingWriter writer = new BatchingRingWriter(ring);
        write(writer, checker.nextToWrite++, 32);
        write(writer, checker.nextToWrite++, 32);
        writer.publish();

        assertEquals(2, ring.read(checker), "the reader stops after the new batch, not at the dead writer's records");
        assertNull(checker.failure);
        assertEquals(ring.producerPosition(), ring.consumerPosition());
        assertEquals(0, ring.read(checker));
    }

    @Test
    void rejectsClaimsOutsideTheRingsLimits()
    {
        final BatchingRingWriter writer = new BatchingRingWriter(newRing(CAPACITY));
        assertThrows(IllegalArgumentException.class, () -> writer.claim(0, 16));
        assertThrows(IllegalArgumentException.class, () -> writer.claim(1, -1));
        assertThrows(IllegalArgumentException.class, () -> writer.claim(1, writer.maxMsgLength() + 1));
        assertFalse(writer.hasUnpublished());
    }

    @Test
    void fillsUpToTheUnreadRecordsAndNoFurtherThenGoesOnOnceTheyAreRead()
    {
        final OneToOneRingBuffer ring = newRing(CAPACITY);
        final BatchingRingWriter writer = new BatchingRingWriter(ring);
        final Checker checker = new Checker();
        // Half a lap read, so that the unread records, not the end of the buffer, bound the claims:
        // 32-byte records (24 + header), each needing room for the zeroed header after it too.
        for (int i = 0; i < CAPACITY / 2 / 32; i++)
        {
            write(writer, checker.nextToWrite++, 24);
        }
        writer.publish();
        readAll(ring, checker);

        int written = 0;
        while (written <= CAPACITY / 32 && write(writer, checker.nextToWrite, 24)) // bounded: a bug must fail, not hang
        {
            checker.nextToWrite++;
            written++;
        }
        assertFalse(writer.hasUnpublished(), "the full ring published what it held");
        assertEquals((CAPACITY - 8) / 32, written, "every record that fits with the zeroed header after it");
        assertEquals(CAPACITY - 32, ring.producerPosition() - ring.consumerPosition(),
            "unread: all but 32 bytes, too few for another record and the header after it");

        readAll(ring, checker);
        assertTrue(write(writer, checker.nextToWrite++, 24), "room again once read");
        writer.publish();
        readAll(ring, checker);
        assertNull(checker.failure);
        assertEquals(checker.nextToWrite, checker.nextToRead);
    }

    @Test
    void refusesARingOnTheHeap()
    {
        // Its stores are by address alone, as into the off-heap rings (mapped files) the feed handler writes.
        final OneToOneRingBuffer heapRing = new OneToOneRingBuffer(
            new UnsafeBuffer(new byte[CAPACITY + RingBufferDescriptor.TRAILER_LENGTH]));
        final IllegalArgumentException refused =
            assertThrows(IllegalArgumentException.class, () -> new BatchingRingWriter(heapRing));
        assertTrue(refused.getMessage().contains("off heap"), refused.getMessage());
    }

    @Test
    void aConsumerThreadReadsEveryRecordInOrder() throws InterruptedException
    {
        final OneToOneRingBuffer ring = newRing(64 * 1024);
        final BatchingRingWriter writer = new BatchingRingWriter(ring);
        final long records = 2_000_000;
        final AtomicReference<String> consumerFailure = new AtomicReference<>();
        final Checker checker = new Checker();

        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        final Thread consumer = new Thread(() ->
        {
            while (checker.nextToRead < records && null == checker.failure && System.nanoTime() < deadline)
            {
                if (0 == ring.read(checker))
                {
                    Thread.onSpinWait();
                }
            }
            consumerFailure.set(checker.failure);
        }, "ring-consumer");
        consumer.start();

        final SplittableRandom random = new SplittableRandom(7);
        long written = 0;
        while (written < records && consumer.isAlive())
        {
            final int batch = 1 + random.nextInt(32);
            for (int i = 0; i < batch && written < records; i++)
            {
                final int length = 12 + random.nextInt(80);
                if (write(writer, written, length))
                {
                    written++;
                }
                else
                {
                    Thread.onSpinWait(); // full: the claim published the batch; the consumer makes room
                }
            }
            writer.publish();
        }
        consumer.join(TimeUnit.SECONDS.toMillis(70));

        assertFalse(consumer.isAlive(), "the consumer read everything");
        assertNull(consumerFailure.get());
        assertEquals(records, checker.nextToRead);
    }

    /** 63 records of 64 bytes (56 + header), published and read: the tail is 64 bytes before the end. */
    private static void writeAndReadUpToSixtyFourBytesBeforeTheEnd(
        final OneToOneRingBuffer ring, final BatchingRingWriter writer, final Checker checker)
    {
        for (int i = 0; i < 63; i++)
        {
            write(writer, checker.nextToWrite++, 56);
        }
        writer.publish();
        assertEquals(63, ring.read(checker));
        assertEquals(CAPACITY - 64, ring.producerPosition());
    }

    /** Read up to the producer position: a read stops at the end of the buffer, so it can take two. */
    private static void readAll(final OneToOneRingBuffer ring, final Checker checker)
    {
        while (ring.consumerPosition() < ring.producerPosition())
        {
            ring.read(checker);
        }
    }

    private static OneToOneRingBuffer newRing(final int capacity)
    {
        final int length = capacity + RingBufferDescriptor.TRAILER_LENGTH;
        return new OneToOneRingBuffer(new UnsafeBuffer(BufferUtil.allocateDirectAligned(length, 64)));
    }

    /**
     * Claim and fill a record: the record number as its first 8 bytes, its length as the next 4,
     * then bytes derived from the number, which also gives the type; false when the ring is full.
     */
    private static boolean write(final BatchingRingWriter writer, final long number, final int length)
    {
        final int index = writer.claim(typeOf(number), length);
        if (index == RingBuffer.INSUFFICIENT_CAPACITY)
        {
            return false;
        }
        fillRecord(writer.buffer(), index, number, length);
        return true;
    }

    private static void fillRecord(final AtomicBuffer buffer, final int index, final long number, final int length)
    {
        buffer.putLong(index, number);
        buffer.putInt(index + 8, length);
        for (int i = 12; i < length; i++)
        {
            buffer.putByte(index + i, fill(number, i));
        }
    }

    private static int typeOf(final long number)
    {
        return 1 + (int)(number % 1000);
    }

    private static byte fill(final long number, final int i)
    {
        return (byte)(number * 31 + i);
    }

    /** Checks each record against what {@link #write} put there; keeps the first failure. */
    private static final class Checker implements MessageHandler
    {
        long nextToWrite;
        volatile long nextToRead;
        String failure;

        public void onMessage(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
        {
            final long number = buffer.getLong(index);
            if (null != failure)
            {
                return;
            }
            if (number != nextToRead || msgTypeId != typeOf(number) || buffer.getInt(index + 8) != length)
            {
                failure = "expected record " + nextToRead + " got " + number + " of type " + msgTypeId +
                    " and length " + length + " (written " + buffer.getInt(index + 8) + ")";
                return;
            }
            for (int i = 12; i < length; i++)
            {
                if (buffer.getByte(index + i) != fill(number, i))
                {
                    failure = "record " + number + " byte " + i + " of " + length + " is wrong";
                    return;
                }
            }
            nextToRead = number + 1;
        }
    }
}
