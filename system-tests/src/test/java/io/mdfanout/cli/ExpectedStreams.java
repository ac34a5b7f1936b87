package io.mdfanout.cli;

import io.mdfanout.feed.sim.ItchEvent;
import io.mdfanout.feed.sim.ReferenceBook;
import io.mdfanout.feed.sim.SessionConfig;
import io.mdfanout.feed.sim.SessionGenerator;
import io.mdfanout.sbe.GapNoticeEncoder;
import io.mdfanout.sbe.GapReason;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.wire.Partitioning;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The end-to-end tests' oracle: per partition, the exact bytes the chain must deliver, in stream
 * order, derived in the test JVM from the simulator's generator (same seed and options) through
 * {@link ExpectedNormalizer}, never from the chain's own code. An expected unrecovered gap (a range
 * of exchange sequences the feed handler must declare lost) replaces those messages by the
 * GapNotice every partition must then carry.
 */
final class ExpectedStreams
{
    private final int partitions;
    private final ExpandableArrayBuffer[] bytes;
    private final long[][] offsets;
    private final int[] counts;
    private final String books;

    private ExpectedStreams(final int partitions, final long messages)
    {
        this.partitions = partitions;
        bytes = new ExpandableArrayBuffer[partitions];
        offsets = new long[partitions][];
        counts = new int[partitions];
        for (int p = 0; p < partitions; p++)
        {
            bytes[p] = new ExpandableArrayBuffer(16 << 20);
            offsets[p] = new long[(int)messages + 2];
        }
        books = null;
    }

    private ExpectedStreams(final ExpectedStreams streams, final String books)
    {
        partitions = streams.partitions;
        bytes = streams.bytes;
        offsets = streams.offsets;
        counts = streams.counts;
        this.books = books;
    }

    /** The whole session, nothing lost. */
    static ExpectedStreams generate(final long seed, final int symbols, final long messages, final int partitions)
    {
        return generate(seed, symbols, messages, partitions, 0, -1);
    }

    /**
     * The session with exchange sequences {@code firstLost..lastLost} declared lost by the feed
     * handler: none of them delivered, a GapNotice for the range in every partition instead.
     */
    static ExpectedStreams generate(
        final long seed, final int symbols, final long messages, final int partitions,
        final long firstLost, final long lastLost)
    {
        final ExpectedStreams expected = new ExpectedStreams(partitions, messages);
        final SessionGenerator generator =
            new SessionGenerator(seed, new SessionConfig().symbols(symbols).messageCount(messages));
        final ItchEvent event = new ItchEvent();
        final ReferenceBook referenceBook = new ReferenceBook();
        final ExpectedNormalizer normalizer = new ExpectedNormalizer();
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[256]);
        final GapNoticeEncoder gapNotice = new GapNoticeEncoder();

        long exchangeSequence = 0;
        long lastTimestamp = 0;
        while (generator.next(event))
        {
            exchangeSequence++;
            referenceBook.apply(event); // the exchange's book sees everything, lost on the way or not
            if (exchangeSequence >= firstLost && exchangeSequence <= lastLost)
            {
                if (exchangeSequence == lastLost)
                {
                    gapNotice.wrapAndApplyHeader(scratch, 0, new MessageHeaderEncoder())
                        .exchangeSequence(firstLost)
                        .exchangeTimestamp(lastTimestamp)
                        .instrumentId(0)
                        .lastMissingSequence(lastLost)
                        .reason(GapReason.UNRECOVERED);
                    final int length = MessageHeaderEncoder.ENCODED_LENGTH + gapNotice.encodedLength();
                    for (int p = 0; p < partitions; p++)
                    {
                        expected.append(p, scratch, length);
                    }
                }
                continue; // lost before the feed handler: neither in the books nor on the wire
            }

            lastTimestamp = event.timestamp;
            final int length = normalizer.encode(event, exchangeSequence, scratch);
            if (length == 0)
            {
                continue;
            }
            if (Partitioning.isMarketWide(event.stockLocate))
            {
                for (int p = 0; p < partitions; p++)
                {
                    expected.append(p, scratch, length);
                }
            }
            else
            {
                expected.append(Partitioning.partitionOf(event.stockLocate, partitions), scratch, length);
            }
        }
        assertEquals(messages, exchangeSequence, "generated session length");
        return new ExpectedStreams(expected, firstLost > 0 ? null : referenceBook.dump());
    }

    /** The canonical book dump the subscribers must end with, or null when messages were lost. */
    String books()
    {
        return books;
    }

    int totalMessages()
    {
        return Arrays.stream(counts).sum();
    }

    private void append(final int partition, final UnsafeBuffer message, final int length)
    {
        final int index = counts[partition];
        final int offset = (int)offsets[partition][index];
        bytes[partition].putBytes(offset, message, 0, length);
        offsets[partition][index + 1] = offset + length;
        counts[partition] = index + 1;
    }

    /** Every expected message exactly once, in order per partition, byte for byte; nothing else. */
    long verifyRecording(final Path file, final String who) throws IOException
    {
        final long[] first = new long[partitions];
        Arrays.fill(first, 1);
        return verifyRecordingFrom(file, who, first);
    }

    /**
     * A subscriber of a pair: every expected message exactly once, in order per partition, byte for byte, nothing
     * else; each recorded with its chain position (its exchange sequence; a gap notice's last missing one), the
     * identity the pair's sides share, instead of one side's stream sequence.
     *
     * @return the messages checked.
     */
    long verifyPairRecording(final Path file, final String who) throws IOException
    {
        final long[] next = new long[partitions];
        Arrays.fill(next, 1);
        long checked = 0;
        try (RecordFile records = new RecordFile(file))
        {
            while (records.next())
            {
                final int p = records.partition();
                final long index = next[p]++;
                assertOracleMessage(records, p, index, who);
                final long chainPosition = GapNoticeEncoder.TEMPLATE_ID == templateIdOf(records.message()) ?
                    lastMissingOf(records.message()) : exchangeSequenceOf(records.message());
                if (records.streamSequence() != chainPosition)
                {
                    fail(who + ": partition " + p + " message " + index + " recorded at " + records.streamSequence() +
                        ", its chain position is " + chainPosition);
                }
                checked++;
            }
        }
        for (int p = 0; p < partitions; p++)
        {
            assertEquals(counts[p], next[p] - 1, who + ": messages delivered on partition " + p);
        }
        return checked;
    }

    /** Receives the expected messages of a partition, in stream order. */
    @FunctionalInterface
    interface MessageConsumer
    {
        void accept(org.agrona.DirectBuffer buffer, int offset, int length);
    }

    /** Hand every expected message of the partition, in stream order, to the consumer. */
    void forEachMessage(final int partition, final MessageConsumer consumer)
    {
        for (int i = 0; i < counts[partition]; i++)
        {
            final int offset = (int)offsets[partition][i];
            consumer.accept(bytes[partition], offset, (int)offsets[partition][i + 1] - offset);
        }
    }

    int partitions()
    {
        return partitions;
    }

    /** @return the messages of each partition's stream. */
    long[] counts()
    {
        return Arrays.stream(counts).asLongStream().toArray();
    }

    /**
     * A subscriber that lived through trading days in a row: per partition, each day's stream (starting again at
     * stream sequence 1 on the next day) is every message of that day's oracle exactly once, in order, byte for
     * byte, and nothing else; every day is complete before the next one starts.
     *
     * @return messages verified per day.
     */
    static long[] verifyDays(final Path file, final String who, final ExpectedStreams... days) throws IOException
    {
        final int partitions = days[0].partitions;
        final int[] day = new int[partitions];
        final long[] nextSequence = new long[partitions];
        Arrays.fill(nextSequence, 1);
        final long[] perDay = new long[days.length];
        try (RecordFile records = new RecordFile(file))
        {
            while (records.next())
            {
                final int p = records.partition();
                final long sequence = records.streamSequence();
                if (1 == sequence && nextSequence[p] > 1)
                {
                    assertEquals(days[day[p]].counts[p], nextSequence[p] - 1,
                        who + ": partition " + p + " day " + (day[p] + 1) + " complete before the next day starts");
                    day[p]++;
                    if (day[p] >= days.length)
                    {
                        fail(who + ": partition " + p + " started a day more than the " + days.length + " run");
                    }
                    nextSequence[p] = 1;
                }
                if (sequence != nextSequence[p])
                {
                    fail(who + ": partition " + p + " day " + (day[p] + 1) + " delivered stream sequence " + sequence +
                        " where " + nextSequence[p] + " was due (lost, duplicated or reordered)");
                }
                days[day[p]].assertOracleMessage(records, p, sequence, who + " day " + (day[p] + 1));
                nextSequence[p]++;
                perDay[day[p]]++;
            }
        }
        for (int p = 0; p < partitions; p++)
        {
            assertEquals(days.length - 1, day[p], who + ": partition " + p + " delivered every day");
            assertEquals(days[days.length - 1].counts[p], nextSequence[p] - 1,
                who + ": partition " + p + " delivered the last day to its end");
        }
        System.out.println(who + ": " + days.length + " days verified byte for byte, per day " +
            Arrays.toString(perDay) + " messages");
        return perDay;
    }

    /**
     * A subscriber started from a point: per partition every expected message from {@code from[p]} on exactly once,
     * in order, byte for byte, up to the end of the session; nothing before the point and nothing else.
     */
    long verifyRecordingFrom(final Path file, final String who, final long[] from) throws IOException
    {
        final long[] nextSequence = from.clone();
        long total = 0;
        try (RecordFile records = new RecordFile(file))
        {
            while (records.next())
            {
                final int p = records.partition();
                final long sequence = records.streamSequence();
                if (sequence != nextSequence[p])
                {
                    fail(who + ": partition " + p + " delivered stream sequence " + sequence +
                        " where " + nextSequence[p] + " was due (lost, duplicated, reordered or before the start)");
                }
                assertOracleMessage(records, p, sequence, who);
                nextSequence[p]++;
                total++;
            }
        }
        for (int p = 0; p < partitions; p++)
        {
            assertEquals(counts[p], nextSequence[p] - 1, who + ": last message delivered on partition " + p);
        }
        System.out.println(who + ": " + total + " normalized messages verified byte for byte over " + partitions +
            " partitions from stream sequences " + Arrays.toString(from) + " to the end (per partition " +
            Arrays.toString(counts) + ")");
        return total;
    }

    /**
     * What an archive holds, replayed: every message it has equals the oracle's at its stream sequence, byte for
     * byte, in order, and per partition the stretches it lacks are returned as {@code [first, last]} ranges.
     */
    List<List<long[]>> missingRanges(final Path file, final String who) throws IOException
    {
        final long[] nextSequence = new long[partitions];
        Arrays.fill(nextSequence, 1);
        final List<List<long[]>> missing = new ArrayList<>();
        for (int p = 0; p < partitions; p++)
        {
            missing.add(new ArrayList<>());
        }
        try (RecordFile records = new RecordFile(file))
        {
            while (records.next())
            {
                final int p = records.partition();
                final long sequence = records.streamSequence();
                if (sequence < nextSequence[p])
                {
                    fail(who + ": partition " + p + " delivered stream sequence " + sequence + " again or out of order");
                }
                if (sequence > nextSequence[p])
                {
                    missing.get(p).add(new long[]{ nextSequence[p], sequence - 1 });
                }
                assertOracleMessage(records, p, sequence, who);
                nextSequence[p] = sequence + 1;
            }
        }
        for (int p = 0; p < partitions; p++)
        {
            if (nextSequence[p] <= counts[p])
            {
                missing.get(p).add(new long[]{ nextSequence[p], counts[p] });
            }
        }
        return missing;
    }

    /**
     * What a disturbed subscriber (late, lossy, paused, behind a restarted fanout) delivered: every message equals
     * the oracle's at its stream sequence, byte for byte, and per partition the sequences only rise. After the
     * partition's last applied snapshot, nothing is skipped: the snapshot says what it covers (per range of instrument
     * ids, the stream sequence it holds the state through: the {@code record} tool's {@code --coverage-out}, written
     * beside the recording as {@code <name>.coverage}), and every oracle message of an instrument after its coverage
     * must have been delivered, in order. A lost message, a lost prefix or an instrument with no deliveries at all
     * fails. A partition that never applied a snapshot must be whole.
     *
     * @return messages verified.
     */
    long verifyDisturbedRecording(final Path file, final String who) throws IOException
    {
        final long[] from = new long[partitions];
        Arrays.fill(from, 1);
        return verifyDisturbedRecording(file, who, from);
    }

    /**
     * {@link #verifyDisturbedRecording(Path, String)} for a subscriber that asked to start each partition at a stream
     * sequence ({@code --from seq:N}): a partition that never applied a snapshot must be whole from there.
     *
     * @return messages verified.
     */
    long verifyDisturbedRecording(final Path file, final String who, final long[] from) throws IOException
    {
        return verifyDisturbedRecording(file, who, from, false);
    }

    /**
     * {@link #verifyDisturbedRecording(Path, String)} for a subscriber of a pair, which records each message, and
     * reads each snapshot's coverage, at its chain position (its exchange sequence) instead of one side's stream
     * sequence: both are taken to the oracle's message numbers (a chain position is the number of the partition's
     * oracle messages at or below it), then checked as for one side.
     *
     * @return messages verified.
     */
    long verifyDisturbedPairRecording(final Path file, final String who) throws IOException
    {
        final long[] from = new long[partitions];
        Arrays.fill(from, 1);
        return verifyDisturbedRecording(file, who, from, true);
    }

    private long verifyDisturbedRecording(final Path file, final String who, final long[] from, final boolean pair)
        throws IOException
    {
        final long[][] chain = pair ? chainPositions() : null;
        final SnapshotCoverage[] coverage = SnapshotCoverage.read(coverageFile(file), partitions);
        if (pair)
        {
            for (int p = 0; p < partitions; p++)
            {
                final long[] positions = chain[p];
                coverage[p] = coverage[p].mapped(last -> oracleNumberAt(positions, last));
            }
        }
        final long[] lastSequence = new long[partitions];
        final List<Map<Long, List<Long>>> deliveredAfter = new ArrayList<>();
        for (int p = 0; p < partitions; p++)
        {
            deliveredAfter.add(new HashMap<>());
        }
        long total = 0;
        try (RecordFile records = new RecordFile(file))
        {
            while (records.next())
            {
                final int p = records.partition();
                final long sequence = pair ? oracleNumberAt(chain[p], records.streamSequence()) : records.streamSequence();
                if (sequence <= lastSequence[p])
                {
                    fail(who + ": partition " + p + " delivered stream sequence " + sequence + " after " +
                        lastSequence[p] + " (duplicated or reordered)");
                }
                assertOracleMessage(records, p, sequence, who);
                final int index = (int)(sequence - 1);
                final long instrument = instrumentOf(p, index);
                if (sequence > coverage[p].coveredThrough(instrument))
                {
                    deliveredAfter.get(p).computeIfAbsent(instrument, k -> new ArrayList<>()).add(sequence);
                }
                lastSequence[p] = sequence;
                total++;
            }
        }
        long checkedAfterRecovery = 0;
        for (int p = 0; p < partitions; p++)
        {
            checkedAfterRecovery += verifyCompleteAfterCoverage(
                p, (int)Math.max(0, from[p] - 1), 0, coverage[p], deliveredAfter.get(p), who);
        }
        final StringBuilder applied = new StringBuilder();
        for (int p = 0; p < partitions; p++)
        {
            applied.append(0 == p ? "" : ", ").append(coverage[p]);
        }
        System.out.println(who + ": " + total + " messages verified byte for byte, " + checkedAfterRecovery +
            " after the last snapshot's coverage with none skipped (" + applied + ")");
        return total;
    }

    /**
     * What a subscriber delivered across a feed handler that joined mid-session from the exchange's snapshot
     * (GLIMPSE): the rings' first generation, then a new one that starts with the snapshot's state (messages with
     * exchange sequence 0) and goes on with the exchange's messages from the snapshot's sequence. Stream sequences
     * start again in the new generation, so its messages are matched to the oracle by their exchange sequence.
     * Per partition: the first generation's stream is whole from stream sequence 1 and its messages are the oracle's,
     * in order, skipping only what its GapNotices declared lost (a gap re-requests could not fill); in the
     * new generation every delivered message with an exchange sequence is the oracle's message of that sequence,
     * byte for byte, at one fixed distance between its stream sequence and its place in the oracle (nothing lost or
     * inserted between two deliveries); and after the partition's last applied snapshot (which, the new generation
     * being a new publication, is the new generation's), every oracle message of each instrument is delivered, in
     * order. What the exchange sent while no feed handler ran is in neither: the snapshots hold its state (the
     * books, checked by the caller).
     *
     * @param snapshotNextSequence the exchange sequence the GLIMPSE snapshot continued at (its log line).
     * @return messages verified against the oracle.
     */
    long verifyAcrossGlimpseGeneration(final Path file, final String who, final long snapshotNextSequence)
        throws IOException
    {
        final SnapshotCoverage[] coverage = SnapshotCoverage.read(coverageFile(file), partitions);
        final long[] lastSequence = new long[partitions];
        final boolean[] newGeneration = new boolean[partitions];
        final long[] offset = new long[partitions];
        Arrays.fill(offset, Long.MIN_VALUE);
        final long[] firstGenerationMessages = new long[partitions];
        final long[] snapshotStateMessages = new long[partitions];
        final int[] lastIndex = new int[partitions];
        Arrays.fill(lastIndex, -1);
        final long[] gapNotices = new long[partitions];
        final List<List<long[]>> declared = new ArrayList<>();
        for (int p = 0; p < partitions; p++)
        {
            declared.add(new ArrayList<>());
        }
        final List<Map<Long, List<Long>>> deliveredAfter = new ArrayList<>();
        for (int p = 0; p < partitions; p++)
        {
            deliveredAfter.add(new HashMap<>());
        }
        long total = 0;
        try (RecordFile records = new RecordFile(file))
        {
            while (records.next())
            {
                final int p = records.partition();
                final long sequence = records.streamSequence();
                final long exchangeSequence = exchangeSequenceOf(records.message());
                if (!newGeneration[p] && sequence <= lastSequence[p])
                {
                    newGeneration[p] = true; // a new publication: its stream starts again
                    lastSequence[p] = 0;
                }
                if (!newGeneration[p])
                {
                    // The first generation: the stream whole (every stream sequence from 1), each message the
                    // oracle's at its exchange sequence, skipping only what a GapNotice declared lost.
                    if (sequence != lastSequence[p] + 1)
                    {
                        fail(who + ": partition " + p + " first generation: stream sequence " + sequence + " after " +
                            lastSequence[p]);
                    }
                    lastSequence[p] = sequence;
                    if (GapNoticeEncoder.TEMPLATE_ID == templateIdOf(records.message()))
                    {
                        declared.get(p).add(new long[]{ exchangeSequence, lastMissingOf(records.message()) });
                        gapNotices[p]++;
                        continue;
                    }
                    final int index = indexOfExchangeSequence(p, exchangeSequence);
                    if (index < 0)
                    {
                        fail(who + ": partition " + p + " stream sequence " + sequence + " carries exchange sequence " +
                            exchangeSequence + ", which the oracle's partition does not hold");
                    }
                    for (int skipped = lastIndex[p] + 1; skipped < index; skipped++)
                    {
                        if (!isDeclared(declared.get(p), exchangeSequenceAt(p, skipped)))
                        {
                            fail(who + ": partition " + p + " first generation: oracle message " + (skipped + 1) +
                                " (exchange sequence " + exchangeSequenceAt(p, skipped) + ") missing, and no " +
                                "GapNotice declared it lost");
                        }
                    }
                    lastIndex[p] = index;
                    assertOracleMessage(records, p, index + 1L, who);
                    firstGenerationMessages[p]++;
                    total++;
                    continue;
                }
                if (sequence <= lastSequence[p])
                {
                    fail(who + ": partition " + p + " delivered stream sequence " + sequence + " after " +
                        lastSequence[p] + " in the new generation (duplicated or reordered)");
                }
                lastSequence[p] = sequence;
                if (0 == exchangeSequence)
                {
                    if (offset[p] != Long.MIN_VALUE)
                    {
                        fail(who + ": partition " + p + " stream sequence " + sequence + ": a snapshot's state " +
                            "message after the exchange's messages had started in the new generation");
                    }
                    snapshotStateMessages[p]++;
                    continue;
                }
                final int index = indexOfExchangeSequence(p, exchangeSequence);
                if (index < 0)
                {
                    fail(who + ": partition " + p + " stream sequence " + sequence + " carries exchange sequence " +
                        exchangeSequence + ", which the oracle's partition does not hold");
                }
                if (exchangeSequence < snapshotNextSequence)
                {
                    fail(who + ": partition " + p + " exchange sequence " + exchangeSequence + " in the new " +
                        "generation, before the snapshot's " + snapshotNextSequence);
                }
                if (Long.MIN_VALUE == offset[p])
                {
                    offset[p] = sequence - (index + 1L);
                }
                else if (sequence - (index + 1L) != offset[p])
                {
                    fail(who + ": partition " + p + " stream sequence " + sequence + " is oracle message " +
                        (index + 1) + ", not " + (sequence - offset[p]) + ": the new generation lost or inserted " +
                        "messages");
                }
                assertOracleMessage(records, p, index + 1L, who);
                final long instrument = instrumentOf(p, index);
                if (sequence > coverage[p].coveredThrough(instrument))
                {
                    deliveredAfter.get(p).computeIfAbsent(instrument, k -> new ArrayList<>()).add(index + 1L);
                }
                total++;
            }
        }
        long checkedAfterRecovery = 0;
        for (int p = 0; p < partitions; p++)
        {
            assertTrue(newGeneration[p] && Long.MIN_VALUE != offset[p], who + ": partition " + p +
                " delivered the new generation's messages (first generation: " + firstGenerationMessages[p] +
                ", new generation seen " + newGeneration[p] + ", its state messages " + snapshotStateMessages[p] +
                ", last stream sequence " + lastSequence[p] + ")");
            checkedAfterRecovery += verifyCompleteAfterCoverage(p, indexOfExchangeSequenceAtOrAfter(
                p, snapshotNextSequence), offset[p], coverage[p], deliveredAfter.get(p), who);
        }
        System.out.println(who + ": " + total + " messages verified byte for byte across the GLIMPSE generation " +
            "(first generation " + Arrays.toString(firstGenerationMessages) + " with " + Arrays.toString(gapNotices) +
            " gap notices, snapshot state messages " +
            Arrays.toString(snapshotStateMessages) + "), " + checkedAfterRecovery + " after the last snapshot's " +
            "coverage with none skipped");
        return total;
    }

    /**
     * After a partition's last applied snapshot nothing is skipped: every oracle message of each instrument from
     * the oracle index {@code first} on whose stream sequence (its oracle number plus {@code streamOffset}) the
     * snapshot does not cover was delivered, in order ({@code deliveredAfter}: oracle numbers per instrument).
     *
     * @return the messages checked.
     */
    private long verifyCompleteAfterCoverage(
        final int p,
        final int first,
        final long streamOffset,
        final SnapshotCoverage coverage,
        final Map<Long, List<Long>> deliveredAfter,
        final String who)
    {
        final Map<Long, List<Long>> oracleAfter = new HashMap<>();
        for (int index = first; index < counts[p]; index++)
        {
            final long instrument = instrumentOf(p, index);
            if (index + 1L + streamOffset > coverage.coveredThrough(instrument))
            {
                oracleAfter.computeIfAbsent(instrument, k -> new ArrayList<>()).add(index + 1L);
            }
        }
        long checked = 0;
        for (final Map.Entry<Long, List<Long>> entry : oracleAfter.entrySet())
        {
            final List<Long> expected = entry.getValue();
            final List<Long> delivered = deliveredAfter.getOrDefault(entry.getKey(), List.of());
            if (!expected.equals(delivered))
            {
                fail(who + ": partition " + p + " instrument " + entry.getKey() + " after " + coverage +
                    " (oracle message numbers): delivered " + firstMismatch(expected, delivered) + " (" +
                    delivered.size() + " of " + expected.size() + "), not every oracle message after the " +
                    "snapshot's coverage");
            }
            checked += delivered.size();
        }
        return checked;
    }

    /** Per partition, the chain position (exchange sequence, a gap notice's last missing one) of each oracle message. */
    private long[][] chainPositions()
    {
        final long[][] chain = new long[partitions][];
        for (int p = 0; p < partitions; p++)
        {
            chain[p] = new long[counts[p]];
            for (int index = 0; index < counts[p]; index++)
            {
                final byte[] message = message(p, index);
                chain[p][index] = GapNoticeEncoder.TEMPLATE_ID == templateIdOf(message) ?
                    lastMissingOf(message) : exchangeSequenceOf(message);
            }
        }
        return chain;
    }

    private byte[] message(final int p, final int index)
    {
        final int start = (int)offsets[p][index];
        final byte[] message = new byte[(int)(offsets[p][index + 1] - start)];
        bytes[p].getBytes(start, message);
        return message;
    }

    /** How many of a partition's oracle messages lie at or below a chain position: its oracle message number. */
    private static long oracleNumberAt(final long[] chain, final long position)
    {
        final int found = Arrays.binarySearch(chain, position);
        return found >= 0 ? found + 1 : -(found + 1);
    }

    private static int templateIdOf(final byte[] message)
    {
        return io.mdfanout.wire.WireFormat.templateIdOf(io.mdfanout.wire.WireFormat.headerWord(new UnsafeBuffer(message), 0));
    }

    private static long lastMissingOf(final byte[] message)
    {
        return new UnsafeBuffer(message).getLong(io.mdfanout.wire.WireFormat.HEADER_LENGTH +
            io.mdfanout.sbe.GapNoticeDecoder.lastMissingSequenceEncodingOffset(), java.nio.ByteOrder.LITTLE_ENDIAN);
    }

    private static boolean isDeclared(final List<long[]> ranges, final long exchangeSequence)
    {
        for (final long[] range : ranges)
        {
            if (exchangeSequence >= range[0] && exchangeSequence <= range[1])
            {
                return true;
            }
        }
        return false;
    }

    private static long exchangeSequenceOf(final byte[] message)
    {
        return new UnsafeBuffer(message).getLong(
            io.mdfanout.wire.WireFormat.HEADER_LENGTH, java.nio.ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * @return the exchange sequence of a partition's message at stream sequence {@code streamSequence} of a fanout
     * that published the session from its start without a restart (1: the partition's first message).
     */
    long exchangeSequenceAtStreamSequence(final int partition, final long streamSequence)
    {
        return exchangeSequenceAt(partition, (int)(streamSequence - 1));
    }

    /** @return how many messages the partition has. */
    int partitionMessages(final int partition)
    {
        return counts[partition];
    }

    private long exchangeSequenceAt(final int partition, final int index)
    {
        return bytes[partition].getLong(
            (int)offsets[partition][index] + io.mdfanout.wire.WireFormat.HEADER_LENGTH, java.nio.ByteOrder.LITTLE_ENDIAN);
    }

    /** The oracle's index of a partition's message with that exchange sequence, or -1 (they rise with the index). */
    private int indexOfExchangeSequence(final int partition, final long exchangeSequence)
    {
        final int index = indexOfExchangeSequenceAtOrAfter(partition, exchangeSequence);
        return index < counts[partition] && exchangeSequenceAt(partition, index) == exchangeSequence ? index : -1;
    }

    private int indexOfExchangeSequenceAtOrAfter(final int partition, final long exchangeSequence)
    {
        int low = 0;
        int high = counts[partition];
        while (low < high)
        {
            final int mid = (low + high) >>> 1;
            if (exchangeSequenceAt(partition, mid) < exchangeSequence)
            {
                low = mid + 1;
            }
            else
            {
                high = mid;
            }
        }
        return low;
    }

    /** Where {@code record --coverage-out} was written for a recording: beside it, {@code .bin} as {@code .coverage}. */
    static Path coverageFile(final Path recording)
    {
        final String name = recording.getFileName().toString();
        return recording.resolveSibling(
            (name.endsWith(".bin") ? name.substring(0, name.length() - 4) : name) + ".coverage");
    }

    /** The record is the oracle's message at that stream sequence of that partition, byte for byte. */
    private void assertOracleMessage(final RecordFile records, final int p, final long sequence, final String who)
    {
        final int index = (int)(sequence - 1);
        if (index >= counts[p])
        {
            fail(who + ": partition " + p + " delivered more messages than expected");
        }
        final int start = (int)offsets[p][index];
        final int length = (int)(offsets[p][index + 1] - start);
        assertEquals(length, records.length(), () -> who + ": length of partition " + p + " message " + sequence +
            mismatch(records, p, start));
        for (int i = 0; i < length; i++)
        {
            if (bytes[p].getByte(start + i) != records.message()[i])
            {
                fail(who + ": partition " + p + " message " + sequence + " differs from the oracle at byte " + i +
                    mismatch(records, p, start));
            }
        }
    }

    /** What tells a wrong message from the oracle's: the template and both exchange sequences. */
    private String mismatch(final RecordFile records, final int p, final int start)
    {
        final int at = io.mdfanout.wire.WireFormat.HEADER_LENGTH + io.mdfanout.wire.WireFormat.EXCHANGE_SEQUENCE_OFFSET;
        return " (template " + (bytes[p].getShort(start + 2) & 0xFFFF) + ", the oracle's exchange sequence " +
            bytes[p].getLong(start + at, java.nio.ByteOrder.LITTLE_ENDIAN) + ", the one delivered " +
            (records.length() >= at + Long.BYTES ? new org.agrona.concurrent.UnsafeBuffer(records.message())
            .getLong(at, java.nio.ByteOrder.LITTLE_ENDIAN) : -1) + ", recorded at sequence " +
            records.streamSequence() + ")";
    }

    private long instrumentOf(final int partition, final int index)
    {
        return bytes[partition].getInt(
            (int)offsets[partition][index] + io.mdfanout.wire.WireFormat.HEADER_LENGTH +
            io.mdfanout.wire.WireFormat.INSTRUMENT_ID_OFFSET, java.nio.ByteOrder.LITTLE_ENDIAN) & 0xFFFF_FFFFL;
    }

    private static String firstMismatch(final List<Long> expected, final List<Long> delivered)
    {
        for (int i = 0; i < expected.size(); i++)
        {
            if (i >= delivered.size())
            {
                return "nothing where sequence " + expected.get(i) + " was due";
            }
            if (!expected.get(i).equals(delivered.get(i)))
            {
                return "sequence " + delivered.get(i) + " where " + expected.get(i) + " was due";
            }
        }
        return "sequence " + delivered.get(expected.size()) + " after the last one due";
    }

}
