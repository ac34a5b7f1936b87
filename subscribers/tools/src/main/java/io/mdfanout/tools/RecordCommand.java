package io.mdfanout.tools;

import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.StaleReason;
import io.mdfanout.sdk.SubscriberCounters;
import io.mdfanout.sdk.book.OrderBooks;
import io.mdfanout.wire.ExitCodes;
import org.agrona.DirectBuffer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code record}: writes every received normalized message to a binary file (see
 * {@link MessageRecorder}), optionally the canonical book dump at exit. Made for automated tests:
 * exit 0 when the books are good at the end, 4 (data loss) otherwise, 5 on timeout, 3 on bad configuration. With
 * recovery on (the default) "good" means no partition is stale at exit: gaps and malformed packets
 * happened, maybe, but each was repaired from a snapshot. With {@code --no-recovery} any gap or
 * malformed packet is data loss.
 * Snapshot content is applied to the books but never recorded; incrementals replayed after a
 * recovery are recorded. Recovery events are printed to stdout, one line each (see {@link RecoveryEvents}).
 */
@Command(name = "record", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = "Record every received message to a binary file (for automated tests).")
public final class RecordCommand implements Callable<Integer>
{
    @Mixin
    SubscriberOptions subscriberOptions;

    @Option(names = "--out", description = "File the records are written to (replaced). Without it nothing is " +
        "written: every message is still received, checked for gaps, dispatched and counted (a verifying or load " +
        "subscriber, as the benchmarks' publisher runs use).")
    Path out;

    @Mixin
    SessionRun sessionRun;


    @Option(names = "--books-out", description = "Write the canonical order-book dump to this file at exit.")
    Path booksOut;

    @Option(names = "--coverage-out", description = "Write what each snapshot applied covers to this text file " +
        "(replaced): per partition and snapshot, the stream sequence (in a pair: the chain position) each range " +
        "of instrument ids is covered through. The messages after that coverage are the ones a recovered subscriber " +
        "must deliver, every one.")
    Path coverageOut;


    PrintStream stdout = System.out;
    PrintStream stderr = System.err;

    /** {@inheritDoc} */
    public Integer call()
    {
        final int[] partitions;
        try
        {
            partitions = subscriberOptions.resolvePartitions();
            sessionRun.validate();
        }
        catch (final IllegalArgumentException ex)
        {
            stderr.println("record: " + ex.getMessage());
            return ExitCodes.CONFIG;
        }

        final OrderBooks books = null != booksOut ? new OrderBooks() : null;
        final ToolMetrics metrics = new ToolMetrics("record");
        final SubscriberCounters counters = metrics.counters();
        try (MessageRecorder recorder = null == out ? null : new MessageRecorder(out);
            PrintWriter coverage = null == coverageOut ? null : new PrintWriter(Files.newBufferedWriter(coverageOut)))
        {
            final EndOfMessagesTracker listener =
                new EndOfMessagesTracker(recorder, books, coverage, partitions, new RecoveryEvents(stdout));
            final int exitCode;
            final String stalePartitions;
            final String driverSummary;
            final long receivingNs;
            try (ToolSession session = ToolSession.open("record", subscriberOptions, metrics, partitions, listener, stderr))
            {
                exitCode = sessionRun.run(session, listener, subscriberOptions.recoveryEnabled());
                receivingNs = listener.firstMessageNs == 0 ? 0 : System.nanoTime() - listener.firstMessageNs;
                stalePartitions = stalePartitions(session.subscriber());
                driverSummary = session.media().driverSummary();
            }
            if (null != recorder)
            {
                recorder.flush();
            }
            if (null != books)
            {
                books.dump(booksOut);
            }
            stdout.println("record: messages=" + counters.messages() + " gaps=" + counters.gaps() +
                " missing=" + counters.missingMessages() + " duplicates=" + counters.duplicatePackets() +
                " malformed=" + counters.malformed() + " records=" + (null == recorder ? 0 : recorder.records()) +
                " stale=" + counters.staleEvents() + " exchangeGaps=" + counters.staleEvents(StaleReason.EXCHANGE_GAP) +
                " recoveries=" + counters.recoveries() +
                " abandoned=" + counters.recoveryAttemptsAbandoned() + " snapshotsApplied=" +
                counters.snapshotsApplied() + " bufferOverflows=" + counters.recoveryBufferOverflows() +
                " filtered=" + counters.filteredMessages() + " snapshotPackets=" + counters.snapshotPackets() +
                " snapshotsIgnored=" + counters.snapshotsIgnored() + " snapshotGaps=" + counters.snapshotGaps() +
                " malformedSnapshot=" + counters.malformedSnapshotPackets() + " stalePartitions=" +
                stalePartitions +
                " oldSession=" + counters.oldSessionPackets() + " silent=" + counters.silentStreams() +
                " replayed=" + counters.replayedMessages() + " replaySwitches=" + counters.replaySwitches() +
                " sideA=" + counters.sideMessages(0) + "/" + counters.sideDuplicates(0) + "/" + counters.sideRefused(0) +
                " sideB=" + counters.sideMessages(1) + "/" + counters.sideDuplicates(1) + "/" + counters.sideRefused(1) +
                String.format(java.util.Locale.ROOT, " receivingS=%.3f", receivingNs / 1e9) +
                (ExitCodes.TIMEOUT == exitCode ? " (timed out)" : ""));
            stdout.println("record: " + driverSummary);
            return exitCode;
        }
        catch (final RuntimeException | IOException ex)
        {
            stderr.println("record: " + ex.getMessage());
            return ExitCodes.of(ex);
        }
    }

    /**
     * The partitions still recovering or missing exchange messages for good, as {@code [2,3]}: what exit code 4 with
     * recovery on is about.
     */
    private static String stalePartitions(final FeedSubscriber subscriber)
    {
        final StringBuilder stale = new StringBuilder("[");
        for (final int partition : subscriber.partitions())
        {
            if (subscriber.isRecovering(partition) || subscriber.hasExchangeGap(partition))
            {
                stale.append(stale.length() > 1 ? "," : "").append(partition);
            }
        }
        return stale.append(']').toString();
    }

    /** Records, feeds the books, and watches for END_OF_MESSAGES on each partition. */
    private static final class EndOfMessagesTracker extends EndOfMessagesListener
    {
        private final MessageRecorder recorder;
        private final OrderBooks books;
        private final PrintWriter coverage;
        /** {@link System#nanoTime()} at the first message received (0: none yet): the summary's receivingS. */
        long firstMessageNs;

        EndOfMessagesTracker(
            final MessageRecorder recorder,
            final OrderBooks books,
            final PrintWriter coverage,
            final int[] partitions,
            final RecoveryEvents events)
        {
            super(partitions, events);
            this.recorder = recorder;
            this.books = books;
            this.coverage = coverage;
        }

        public void onRawMessage(
            final MessageContext context, final DirectBuffer buffer, final int offset, final int length)
        {
            if (0 == firstMessageNs)
            {
                firstMessageNs = System.nanoTime();
            }
            if (null != recorder && !context.isSnapshot() && !pastEnd(context, buffer, offset))
            {
                recorder.onRawMessage(context, buffer, offset, length);
            }
        }

        public void onNewDay(final int partition)
        {
            super.onNewDay(partition);
            if (null != coverage)
            {
                coverage.println("newday partition=" + partition);
            }
            if (null != books)
            {
                books.onNewDay(partition);
            }
        }

        public void onSnapshotBegin(final int partition, final long snapshotId, final long lastStreamSequence)
        {
            if (null != coverage)
            {
                coverage.println("begin partition=" + partition + " snapshotId=" + snapshotId + " last=" +
                    lastStreamSequence);
            }
            if (null != books)
            {
                books.onSnapshotBegin(partition, snapshotId, lastStreamSequence);
            }
        }

        public void onSnapshotInstrument(
            final MessageContext context, final io.mdfanout.sbe.SnapshotInstrumentDecoder message)
        {
            if (null != coverage)
            {
                // The sequence the SDK covers the instruments through (the context's): the snapshot's stream sequence
                // from one side, its chain position in a pair, in the same terms as begin and end.
                coverage.println("instrument partition=" + context.partition() + " snapshotId=" +
                    message.snapshotId() + " from=" + message.coveredFromInstrumentId() + " to=" +
                    message.instrumentId() + " last=" + context.streamSequence());
            }
            if (null != books)
            {
                books.onSnapshotInstrument(context, message);
            }
        }

        public void onSnapshotEnd(
            final int partition, final long snapshotId, final long coveredFromInstrumentId, final long lastStreamSequence)
        {
            if (null != coverage)
            {
                coverage.println("end partition=" + partition + " snapshotId=" + snapshotId + " from=" +
                    coveredFromInstrumentId + " last=" + lastStreamSequence);
                coverage.flush();
            }
        }

        public void onSnapshotOrder(final MessageContext context, final io.mdfanout.sbe.SnapshotOrderDecoder message)
        {
            if (null != books)
            {
                books.onSnapshotOrder(context, message);
            }
        }


        public void onInstrumentDirectory(
            final MessageContext context, final io.mdfanout.sbe.InstrumentDirectoryDecoder message)
        {
            if (null != books)
            {
                books.onInstrumentDirectory(context, message);
            }
        }

        public void onAddOrder(final MessageContext context, final io.mdfanout.sbe.AddOrderDecoder message)
        {
            if (null != books)
            {
                books.onAddOrder(context, message);
            }
        }

        public void onAddOrderAttributed(
            final MessageContext context, final io.mdfanout.sbe.AddOrderAttributedDecoder message)
        {
            if (null != books)
            {
                books.onAddOrderAttributed(context, message);
            }
        }

        public void onOrderExecuted(final MessageContext context, final io.mdfanout.sbe.OrderExecutedDecoder message)
        {
            if (null != books)
            {
                books.onOrderExecuted(context, message);
            }
        }

        public void onOrderExecutedWithPrice(
            final MessageContext context, final io.mdfanout.sbe.OrderExecutedWithPriceDecoder message)
        {
            if (null != books)
            {
                books.onOrderExecutedWithPrice(context, message);
            }
        }

        public void onOrderCancel(final MessageContext context, final io.mdfanout.sbe.OrderCancelDecoder message)
        {
            if (null != books)
            {
                books.onOrderCancel(context, message);
            }
        }

        public void onOrderDelete(final MessageContext context, final io.mdfanout.sbe.OrderDeleteDecoder message)
        {
            if (null != books)
            {
                books.onOrderDelete(context, message);
            }
        }

        public void onOrderReplace(final MessageContext context, final io.mdfanout.sbe.OrderReplaceDecoder message)
        {
            if (null != books)
            {
                books.onOrderReplace(context, message);
            }
        }
    }

    /**
     * Run from the command line (ad-hoc; the mdfanout CLI registers this command).
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new RecordCommand()).execute(args));
    }
}
