package io.mdfanout.feed.replay;

import io.mdfanout.feed.itch.ItchMessage;
import io.mdfanout.feed.itch.ItchMessageType;
import io.mdfanout.feed.normalize.ItchNormalizer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Replays a NASDAQ binary ITCH 5.0 file (records of a 2-byte big-endian length and a message;
 * gzip detected by its magic bytes) through an {@link ItchNormalizer}, stamping each message with
 * its 1-based record index as the exchange sequence.
 * <p>
 * A zero length prefix (some published samples write zero in every prefix) takes the length from
 * the message type. Bad messages are counted by the normalizer and skipped; a record cut short by
 * the end of the file, or a zero-length record of an unknown type (its end cannot be found), is
 * counted and ends the replay. An interrupt (shutdown) also ends it.
 * <p>
 * At the maximum pace, records reach the rings and the counters in batches of
 * {@value #RECORDS_PER_BATCH}, and whatever is left when the replay ends; at the original pace,
 * each record as it is due.
 * <p>
 * Frames the records with an {@link ItchRecordReader}, in one reusable buffer: no allocation per record.
 */
public final class ItchFileReplayer
{
    /**
     * Records normalized between two flushes at the maximum pace: a file has no datagrams, and one
     * flush per record (a release store per ring and five counter writes) cost as much as
     * normalizing the record. Paced at the original times, every record is flushed at once.
     */
    static final int RECORDS_PER_BATCH = 64;

    /** Why a replay ended. */
    public enum Outcome
    {
        /** The whole file was replayed. */
        COMPLETED,
        /** The last record (ITCH record, pcap record, pcapng block) was cut short by the end of the file. */
        TRUNCATED,
        /**
         * The framing was lost: an ITCH zero-length record of an unknown type, or a pcapng block whose
         * length is impossible.
         */
        UNFRAMEABLE,
        /** The thread was interrupted. */
        INTERRUPTED
    }

    private final ItchNormalizer normalizer;
    private final ReplayCounters counters;
    private final ReplayPace pace;
    /** Reused by every replay: its 1 MiB buffer is allocated once. */
    private final ItchRecordReader reader = new ItchRecordReader(InputStream.nullInputStream());

    private final OriginalPacer pacer = new OriginalPacer();

    /** Records and their bytes read since the last flush. */
    private int pendingRecords;
    private long pendingBytes;

    /**
     * Create a replayer.
     *
     * @param normalizer where messages go.
     * @param counters   framing counters.
     * @param pace       how fast.
     */
    public ItchFileReplayer(final ItchNormalizer normalizer, final ReplayCounters counters, final ReplayPace pace)
    {
        this.normalizer = normalizer;
        this.counters = counters;
        this.pace = pace;
    }

    /**
     * Replay a file, plain or gzipped, counting the file bytes read in {@link ReplayCounters#fileBytesRead()}.
     *
     * @param file the ITCH file.
     * @return why the replay ended.
     * @throws NoSuchFileException when the file does not exist.
     * @throws IOException         when it cannot be read.
     */
    public Outcome replay(final Path file) throws IOException
    {
        try (ReplayInput input = ReplayInput.open(file, counters.fileBytesRead()))
        {
            return replay(input.stream());
        }
    }

    /**
     * Replay records from a stream (already decompressed).
     *
     * @param in the records.
     * @return why the replay ended.
     * @throws IOException when the stream fails.
     */
    public Outcome replay(final InputStream in) throws IOException
    {
        pacer.reset();
        try
        {
            return replayRecords(in);
        }
        finally
        {
            flush();
        }
    }

    private Outcome replayRecords(final InputStream in) throws IOException
    {
        final int recordsPerBatch = ReplayPace.ORIGINAL == pace ? 1 : RECORDS_PER_BATCH;
        final ItchRecordReader reader = this.reader;
        reader.reset(in);
        final UnsafeBuffer buffer = reader.buffer();
        long index = 0;
        while (true)
        {
            if (Thread.currentThread().isInterrupted())
            {
                return Outcome.INTERRUPTED;
            }

            final ItchRecordReader.Status status = reader.next();
            if (ItchRecordReader.Status.RECORD != status)
            {
                return end(status);
            }

            final int offset = reader.offset();
            final int length = reader.length();
            index++;
            pendingRecords++;
            pendingBytes += length;
            if (ReplayPace.ORIGINAL == pace && length >= ItchMessageType.COMMON_HEADER_LENGTH)
            {
                pacer.awaitTime(ItchMessage.timestamp(buffer, offset));
            }
            normalizer.onMessage(buffer, offset, length, index);
            if (pendingRecords >= recordsPerBatch)
            {
                flush();
            }
        }
    }

    private Outcome end(final ItchRecordReader.Status status)
    {
        if (ItchRecordReader.Status.TRUNCATED == status)
        {
            counters.truncatedRecords().incrementRelease();
            return Outcome.TRUNCATED;
        }
        if (ItchRecordReader.Status.UNFRAMEABLE == status)
        {
            counters.unframeableRecords().incrementRelease();
            return Outcome.UNFRAMEABLE;
        }
        return Outcome.COMPLETED;
    }

    /** Publish the records normalized since the last flush to the rings, and their counts. */
    private void flush()
    {
        normalizer.flush();
        if (pendingRecords > 0)
        {
            counters.recordsRead().getAndAddRelease(pendingRecords);
            counters.bytesRead().getAndAddRelease(pendingBytes);
            pendingRecords = 0;
            pendingBytes = 0;
        }
    }
}
