package io.mdfanout.sdk;

import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.InstrumentDirectoryDecoder;
import io.mdfanout.sbe.OrderCancelDecoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import io.mdfanout.sbe.OrderExecutedDecoder;
import io.mdfanout.sbe.OrderExecutedWithPriceDecoder;
import io.mdfanout.sbe.OrderReplaceDecoder;
import io.mdfanout.sbe.SnapshotInstrumentDecoder;
import io.mdfanout.sbe.SnapshotOrderDecoder;
import io.mdfanout.sdk.book.BookCounters;
import io.mdfanout.sdk.book.OrderBooks;

import java.util.ArrayList;
import java.util.List;

/** Test listener: feeds an {@link OrderBooks} and records stream-state events as text (allocates; tests only). */
final class BookAndEventListener implements MarketDataListener
{
    final OrderBooks books = new OrderBooks(1024, 16, new BookCounters(LocalCounters.create(4), "test"));
    final List<String> events = new ArrayList<>();
    final List<Long> staleForNanos = new ArrayList<>();
    /** Each applied snapshot's end, as "partition snapshotId coveredFromInstrumentId lastStreamSequence". */
    final List<String> snapshotEnds = new ArrayList<>();
    long incrementalMessages;
    long snapshotMessages;

    public void onStale(final int partition, final StaleReason reason, final long streamSequence)
    {
        events.add("STALE " + partition + " " + reason + " " + streamSequence);
    }

    public void onRecovered(
        final int partition, final long snapshotId, final long lastStreamSequence, final long staleForNanos)
    {
        events.add("RECOVERED " + partition + " " + snapshotId + " " + lastStreamSequence);
        this.staleForNanos.add(staleForNanos);
    }

    public void onStreamSilent(final int partition, final long silentForNanos)
    {
        events.add("SILENT " + partition);
    }

    public void onStreamActive(final int partition)
    {
        events.add("ACTIVE " + partition);
    }

    public void onNewDay(final int partition)
    {
        events.add("NEW_DAY " + partition);
        books.onNewDay(partition);
    }

    public void onSnapshotBegin(final int partition, final long snapshotId, final long lastStreamSequence)
    {
        events.add("BEGIN " + partition + " " + snapshotId + " " + lastStreamSequence);
        books.onSnapshotBegin(partition, snapshotId, lastStreamSequence);
    }

    public void onSnapshotEnd(
        final int partition, final long snapshotId, final long coveredFromInstrumentId, final long lastStreamSequence)
    {
        snapshotEnds.add(partition + " " + snapshotId + " " + coveredFromInstrumentId + " " + lastStreamSequence);
    }

    public void onRawMessage(
        final MessageContext context, final org.agrona.DirectBuffer buffer, final int offset, final int length)
    {
        if (context.isSnapshot())
        {
            snapshotMessages++;
        }
        else
        {
            incrementalMessages++;
        }
    }

    public void onSnapshotInstrument(final MessageContext context, final SnapshotInstrumentDecoder message)
    {
        books.onSnapshotInstrument(context, message);
    }

    public void onSnapshotOrder(final MessageContext context, final SnapshotOrderDecoder message)
    {
        books.onSnapshotOrder(context, message);
    }

    public void onInstrumentDirectory(final MessageContext context, final InstrumentDirectoryDecoder message)
    {
        books.onInstrumentDirectory(context, message);
    }

    public void onAddOrder(final MessageContext context, final AddOrderDecoder message)
    {
        books.onAddOrder(context, message);
    }

    public void onAddOrderAttributed(final MessageContext context, final AddOrderAttributedDecoder message)
    {
        books.onAddOrderAttributed(context, message);
    }

    public void onOrderExecuted(final MessageContext context, final OrderExecutedDecoder message)
    {
        books.onOrderExecuted(context, message);
    }

    public void onOrderExecutedWithPrice(final MessageContext context, final OrderExecutedWithPriceDecoder message)
    {
        books.onOrderExecutedWithPrice(context, message);
    }

    public void onOrderCancel(final MessageContext context, final OrderCancelDecoder message)
    {
        books.onOrderCancel(context, message);
    }

    public void onOrderDelete(final MessageContext context, final OrderDeleteDecoder message)
    {
        books.onOrderDelete(context, message);
    }

    public void onOrderReplace(final MessageContext context, final OrderReplaceDecoder message)
    {
        books.onOrderReplace(context, message);
    }

    /** Books applied every event cleanly: nothing referenced an unknown order or re-added a live one. */
    boolean clean()
    {
        return 0 == books.counters().unknownOrderReferences() && 0 == books.counters().duplicateOrderIds();
    }
}
