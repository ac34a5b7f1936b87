package io.mdfanout.sdk;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.mdfanout.sdk.book.BookCounters;
import io.mdfanout.sdk.book.OrderBooks;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The SDK's decode path from arbitrary bytes: what a {@link FeedSubscriber} does with every Aeron message it polls
 * from a partition's incremental and snapshot streams (validation, sequencing, gaps, recovery from a snapshot,
 * dispatch to typed callbacks) into order books, without Aeron. Properties: nothing throws out of it (malformed
 * messages are counted by reason), nothing is read outside an Aeron message (each is handed in a buffer of its own
 * length, Agrona's bounds checks on), the books never throw either, every input finishes (within 10 s), and what it
 * allocates is bounded (the recovery buffer and filter once, the books' growth with the orders).
 * <p>
 * An input is a series of Aeron messages, each a control byte, a 2-byte big-endian length and that many bytes (fewer
 * at the end of the input). The control byte: bit 0 the snapshot stream (else the incremental one), bit 1 the
 * second partition, bits 2-3 the publisher session id (0 to 3), bit 4 the poll loop marks the partition stale first
 * (silence). The first message's control byte also chooses, in bit 7, recovery off (as {@link PacketStreamDecoder}).
 * Regression mode (every test run) replays the committed inputs in
 * {@code src/test/resources/io/mdfanout/sdk/PacketDecodingFuzzTestInputs}; {@code make fuzz} fuzzes.
 */
class PacketDecodingFuzzTest
{
    private static final int[] PARTITIONS = {0, 1};
    /** Far more than any input of the fuzzer's size needs: a guard against loops, not a performance check. */
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** Allocated once per input at most: the recovery buffer and the snapshot filter of each partition. */
    private static final long FIXED_ALLOCATION_BYTES =
        PARTITIONS.length * (FeedSubscriber.Context.MIN_RECOVERY_BUFFER_BYTES + PartitionStream.FILTER_INSTRUMENTS * 8L);
    /** The books' growth (orders, levels, books) and the flyweights' per-callback work, per input byte at most. */
    private static final long ALLOCATION_BYTES_PER_INPUT_BYTE = 512;

    @FuzzTest
    void anyAeronMessagesAreDecodedOrCountedAsMalformed(final byte[] input)
    {
        // Twice, from scratch: the first run loads the classes of the paths the input takes (which allocates), the
        // second is measured, and must count what the first did. On a watched thread: a loop fails, not hangs.
        final Run first = assertTimeoutPreemptively(TIMEOUT, () -> new Run(input), "an input did not finish");
        final Run second = assertTimeoutPreemptively(TIMEOUT, () -> new Run(input), "an input did not finish");
        assertEquals(first.counters.malformed(), second.counters.malformed(), "decoding is deterministic");
        assertEquals(first.counters.messages(), second.counters.messages(), "decoding is deterministic");

        assertEquals(List.of(), second.errors, "the books threw on messages the SDK passed them");
        assertEquals(0, second.counters.listenerErrors());
        assertTrue(second.counters.packets() + second.counters.heartbeats() + second.counters.malformed() +
            second.counters.oldSessionPackets() + second.counters.snapshotPackets() <= second.messages,
            "every message is counted once");
        final long bound = FIXED_ALLOCATION_BYTES + ALLOCATION_BYTES_PER_INPUT_BYTE * input.length;
        assertTrue(second.allocated <= bound, "allocated " + second.allocated + " bytes for " + input.length +
            " input bytes");
    }

    /** One run of an input through a new subscriber's decode path into new books. */
    private static final class Run
    {
        final List<Throwable> errors = new ArrayList<>();
        final SubscriberCounters counters =
            new SubscriberCounters(LocalCounters.create(SubscriberCounters.COUNTER_COUNT), "fuzz");
        final long allocated;
        final int messages;

        Run(final byte[] input)
        {
            final OrderBooks books = new OrderBooks(16, 4, new BookCounters(LocalCounters.create(
                BookCounters.COUNTER_COUNT), "fuzz"));
            final PacketValidator validator = new PacketValidator();
            final boolean recovery = input.length == 0 || (input[0] & 0x80) == 0;
            final PartitionStream[] streams = new PartitionStream[PARTITIONS.length];
            for (int slot = 0; slot < PARTITIONS.length; slot++)
            {
                streams[slot] = new PartitionStream(PARTITIONS[slot]);
            }
            final MessageDispatcher dispatcher = new MessageDispatcher(books, counters, errors::add, streams);
            for (int slot = 0; slot < PARTITIONS.length; slot++)
            {
                if (recovery)
                {
                    // No Aeron: the snapshot stream's messages are handed in below, as its subscription polls them.
                    streams[slot].recovery = new PartitionRecovery(streams[slot], validator, dispatcher, counters,
                        null, "", 0, FeedSubscriber.Context.MIN_RECOVERY_BUFFER_BYTES);
                }
            }
            final StreamSequencer sequencer = new StreamSequencer(streams, validator, dispatcher, counters, null);
            // Each message in a buffer of its own length: a read past its end fails (Agrona's bounds checks), as it
            // would not in a term buffer where the next message follows.
            final List<UnsafeBuffer> messages = new ArrayList<>();
            final List<Integer> controls = new ArrayList<>();
            int position = 0;
            while (position + 3 <= input.length)
            {
                final int length = Math.min((input[position + 1] & 0xFF) << 8 | input[position + 2] & 0xFF,
                    input.length - position - 3);
                controls.add((int)input[position]);
                messages.add(new UnsafeBuffer(Arrays.copyOfRange(input, position + 3, position + 3 + length)));
                position += 3 + length;
            }

            final long allocatedBefore = allocatedBytes();
            long nowNs = 0;
            for (int i = 0; i < messages.size(); i++)
            {
                final int control = controls.get(i);
                final UnsafeBuffer message = messages.get(i);
                final int slot = (control >> 1) & 1;
                final int sessionId = (control >> 2) & 3;
                nowNs += 1_000_000;
                sequencer.now(nowNs);
                if ((control & 0x10) != 0)
                {
                    sequencer.markStale(slot, StaleReason.SILENT);
                }
                if ((control & 1) == 0)
                {
                    sequencer.onMessage(slot, sessionId, message, 0, message.capacity());
                }
                else if (recovery)
                {
                    streams[slot].recovery.onSnapshotMessage(sessionId, message, 0, message.capacity());
                }
            }
            this.messages = messages.size();
            allocated = allocatedBytes() - allocatedBefore;
        }
    }

    private static long allocatedBytes()
    {
        return ((com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }
}
