package io.mdfanout.sdk;

import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderDecoder;
import io.mdfanout.sbe.BarDecoder;
import io.mdfanout.sbe.BestBidOfferDecoder;
import io.mdfanout.sbe.BookDepthDecoder;
import io.mdfanout.sbe.BrokenTradeDecoder;
import io.mdfanout.sbe.CrossTradeDecoder;
import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sbe.ImbalanceDecoder;
import io.mdfanout.sbe.InstrumentDirectoryDecoder;
import io.mdfanout.sbe.MwcbDeclineLevelDecoder;
import io.mdfanout.sbe.MwcbStatusDecoder;
import io.mdfanout.sbe.OperationalHaltDecoder;
import io.mdfanout.sbe.OrderCancelDecoder;
import io.mdfanout.sbe.OrderDeleteDecoder;
import io.mdfanout.sbe.OrderExecutedDecoder;
import io.mdfanout.sbe.OrderExecutedWithPriceDecoder;
import io.mdfanout.sbe.OrderReplaceDecoder;
import io.mdfanout.sbe.RegShoRestrictionDecoder;
import io.mdfanout.sbe.SnapshotInstrumentDecoder;
import io.mdfanout.sbe.SnapshotOrderDecoder;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sbe.TradeDecoder;
import io.mdfanout.sbe.TradePrintDecoder;
import io.mdfanout.sbe.TradingStatusDecoder;
import org.agrona.DirectBuffer;

/**
 * Callbacks of a {@link FeedSubscriber}, all invoked on the thread that calls
 * {@link FeedSubscriber#poll(int)}. Every method has a no-op default so a listener implements
 * only what it needs.
 * <p>
 * The {@link MessageContext} and the decoders are flyweights reused for every message: they are
 * valid only during the callback. For each normalized message {@link #onRawMessage} is called
 * first, then the typed callback for its template.
 * <p>
 * Recovery: when a partition goes stale ({@link #onStale}) its incrementals are held back while a
 * snapshot is taken. The snapshot arrives as {@link #onSnapshotBegin} (clear the partition), the
 * state messages through their typed callbacks with {@link MessageContext#isSnapshot()} true, and
 * per instrument {@link #onSnapshotInstrument} (clear that instrument) then its
 * {@link #onSnapshotOrder}s. The held-back incrementals newer than the snapshot follow, then
 * {@link #onRecovered}. An abandoned attempt simply shows as a new {@link #onSnapshotBegin} later.
 */
public interface MarketDataListener
{
    /**
     * First packet or heartbeat seen on a partition stream (or the first from a new publisher
     * session, e.g. after a fanout restart): sequences start here, nothing before is reported
     * as missing.
     *
     * @param partition the partition.
     * @param streamSequence the first stream sequence that will be delivered.
     */
    default void onStreamJoined(final int partition, final long streamSequence)
    {
    }

    /**
     * The exchange ended the trading day on this partition (System Event End of Messages) and its stream starts
     * again at its first message: the next session, from nothing. Everything known of the partition (books, orders,
     * instruments) belongs to the ended day; the new day's messages follow from stream sequence 1 with nothing
     * missing (no stale, no snapshot). {@link #onStreamJoined} follows.
     *
     * @param partition the partition.
     */
    default void onNewDay(final int partition)
    {
    }

    /**
     * A partition that replayed from the archive ({@link FeedSubscriber.Context#replayFrom}) has caught up and
     * continues on the live stream: the replay and the live stream were merged with no gap and no duplicate, and
     * the next message delivered is the first one taken from the live stream.
     *
     * @param partition          the partition.
     * @param nextStreamSequence the stream sequence of the next message delivered (the first from the live stream).
     * @param replayedMessages   messages the partition delivered from the archive.
     */
    default void onReplayLive(final int partition, final long nextStreamSequence, final long replayedMessages)
    {
    }

    /**
     * A partition replaying without the live stream ({@link FeedSubscriber.Context#replayToLive} false) delivered
     * the end of what the archive holds of its session: nothing more will come.
     *
     * @param partition          the partition.
     * @param nextStreamSequence the stream sequence after the last message delivered.
     */
    default void onReplayEnd(final int partition, final long nextStreamSequence)
    {
    }

    /**
     * Stream sequences were lost on a partition: the messages in the inclusive range were never
     * delivered. Delivery continues after the range.
     *
     * @param partition the partition.
     * @param firstMissing first missing stream sequence.
     * @param lastMissing last missing stream sequence (inclusive).
     */
    default void onStreamGap(final int partition, final long firstMissing, final long lastMissing)
    {
    }

    /**
     * A heartbeat from an idle partition stream.
     *
     * @param partition the partition.
     * @param nextStreamSequence the stream sequence the next message will carry.
     * @param sendingTime epoch nanoseconds when the fanout sent it.
     */
    default void onHeartbeat(final int partition, final long nextStreamSequence, final long sendingTime)
    {
    }

    /**
     * Every normalized message, before its typed callback: the complete SBE message (header
     * included) as received.
     *
     * @param context where the message came from.
     * @param buffer buffer holding the message.
     * @param offset offset of the message header in the buffer.
     * @param length length of the message, header included.
     */
    default void onRawMessage(final MessageContext context, final DirectBuffer buffer, final int offset, final int length)
    {
    }

    /**
     * GapNotice: exchange messages were lost upstream of the fanout.
     *
     * @param context where the message came from.
     * @param message the decoder wrapped at the message.
     */
    default void onGapNotice(final MessageContext context, final GapNoticeDecoder message)
    {
    }

    /**
     * SystemEvent (ITCH S).
     *
     * @param context where the message came from.
     * @param message the decoder wrapped at the message.
     */
    default void onSystemEvent(final MessageContext context, final SystemEventDecoder message)
    {
    }

    /**
     * InstrumentDirectory (ITCH R).
     *
     * @param context where the message came from.
     * @param message the decoder wrapped at the message.
     */
    default void onInstrumentDirectory(final MessageContext context, final InstrumentDirectoryDecoder message)
    {
    }

    /**
     * TradingStatus (ITCH H).
     *
     * @param context where the message came from.
     * @param message the decoder wrapped at the message.
     */
    default void onTradingStatus(final MessageContext context, final TradingStatusDecoder message)
    {
    }

    /**
     * RegShoRestriction (ITCH Y).
     *
     * @param context where the message came from.
     * @param message the decoder wrapped at the message.
     */
    default void onRegShoRestriction(final MessageContext context, final RegShoRestrictionDecoder message)
    {
    }

    /**
     * MwcbDeclineLevel (ITCH V).
     *
     * @param context where the message came from.
     * @param message the decoder wrapped at the message.
     */
    default void onMwcbDeclineLevel(final MessageContext context, final MwcbDeclineLevelDecoder message)
    {
    }

    /**
     * MwcbStatus (ITCH W).
     *
     * @param context where the message came from.
     * @param message the decoder wrapped at the message.
     */
    default void onMwcbStatus(final MessageContext context, final MwcbStatusDecoder message)
    {
    }

    /**
     * OperationalHalt (ITCH h).
     *
     * @param context where the message came from.
     * @param message the decoder wrapped at the message.
     */
    default void onOperationalHalt(final MessageContext context, final OperationalHaltDecoder message)
    {
    }

    /**
     * AddOrder (ITCH A).
     *
     * @param context where the message came from.
     * @param message the decoder wrapped at the message.
     */
    default void onAddOrder(final MessageContext context, final AddOrderDecoder message)
    {
    }

    /**
     * AddOrderAttributed (ITCH F).
     *
     * @param context where the message came from.
     * @param message the decoder wrapped at the message.
     */
    default void onAddOrderAttributed(final MessageContext context, final AddOrderAttributedDecoder message)
    {
    }

    /**
     * OrderExecuted (ITCH E).
     *
     * @param context where the message came from.
     * @param message the decoder wrapped at the message.
     */
    default void onOrderExecuted(final MessageContext context, final OrderExecutedDecoder message)
    {
    }

    /**
     * OrderExecutedWithPrice (ITCH C).
     *
     * @param context where the message came from.
     * @param message the decoder wrapped at the message.
     */
    default void onOrderExecutedWithPrice(final MessageContext context, final OrderExecutedWithPriceDecoder message)
    {
    }

    /**
     * OrderCancel (ITCH X).
     *
     * @param context where the message came from.
     * @param message the decoder wrapped at the message.
     */
    default void onOrderCancel(final MessageContext context, final OrderCancelDecoder message)
    {
    }

    /**
     * OrderDelete (ITCH D).
     *
     * @param context where the message came from.
     * @param message the decoder wrapped at the message.
     */
    default void onOrderDelete(final MessageContext context, final OrderDeleteDecoder message)
    {
    }

    /**
     * OrderReplace (ITCH U).
     *
     * @param context where the message came from.
     * @param message the decoder wrapped at the message.
     */
    default void onOrderReplace(final MessageContext context, final OrderReplaceDecoder message)
    {
    }

    /**
     * Trade (ITCH P).
     *
     * @param context where the message came from.
     * @param message the decoder wrapped at the message.
     */
    default void onTrade(final MessageContext context, final TradeDecoder message)
    {
    }

    /**
     * CrossTrade (ITCH Q).
     *
     * @param context where the message came from.
     * @param message the decoder wrapped at the message.
     */
    default void onCrossTrade(final MessageContext context, final CrossTradeDecoder message)
    {
    }

    /**
     * BrokenTrade (ITCH B).
     *
     * @param context where the message came from.
     * @param message the decoder wrapped at the message.
     */
    default void onBrokenTrade(final MessageContext context, final BrokenTradeDecoder message)
    {
    }

    /**
     * Imbalance (ITCH I, NOII).
     *
     * @param context where the message came from.
     * @param message the decoder wrapped at the message.
     */
    default void onImbalance(final MessageContext context, final ImbalanceDecoder message)
    {
    }

    /**
     * Top of book (derived BBO stream, schema version 5): the best bid and offer of an instrument changed, in price,
     * shares or order count. On the stream's snapshot, the instrument's current top of book.
     *
     * @param context the message's stream sequence and packet.
     * @param message the flyweight, valid during the callback.
     */
    default void onBestBidOffer(final MessageContext context, final BestBidOfferDecoder message)
    {
    }

    /**
     * Ten levels a side (derived MBP-10 stream, schema version 5): a level within them changed.
     *
     * @param context the message's stream sequence and packet.
     * @param message the flyweight, valid during the callback.
     */
    default void onBookDepth(final MessageContext context, final BookDepthDecoder message)
    {
    }

    /**
     * One print (derived trades stream, schema version 5): an execution, a non-cross trade or a cross.
     *
     * @param context the message's stream sequence and packet.
     * @param message the flyweight, valid during the callback.
     */
    default void onTradePrint(final MessageContext context, final TradePrintDecoder message)
    {
    }

    /**
     * One OHLCV bar (derived bars stream, schema version 5), sent when the partition's exchange clock passed its end.
     *
     * @param context the message's stream sequence and packet.
     * @param message the flyweight, valid during the callback.
     */
    default void onBar(final MessageContext context, final BarDecoder message)
    {
    }

    /**
     * A partition's state can no longer be trusted: messages were or may have been missed, and
     * incrementals are held back until the partition recovers from a snapshot (when recovery is on);
     * or, with {@link StaleReason#SOURCE_DOWN}, the feed handler behind the fanout does not deliver, so
     * nothing new will come until it is live again (nothing is held back, no snapshot is needed).
     *
     * @param partition the partition.
     * @param reason why.
     * @param streamSequence the stream sequence at which it was detected (next expected or first received).
     */
    default void onStale(final int partition, final StaleReason reason, final long streamSequence)
    {
    }

    /**
     * A usable snapshot starts: clear every book and state of the partition, the snapshot rebuilds them.
     *
     * @param partition the partition.
     * @param snapshotId the snapshot's id within its fanout publication.
     * @param lastStreamSequence the stream sequence the market-wide state is consistent with.
     */
    default void onSnapshotBegin(final int partition, final long snapshotId, final long lastStreamSequence)
    {
    }

    /**
     * A snapshot is complete and applied: the buffered incrementals it does not cover follow, then the live stream.
     * What it covers, per instrument: instrument 0 (market-wide state) through {@link #onSnapshotBegin}'s
     * {@code lastStreamSequence}; each {@link #onSnapshotInstrument} covers instrument ids from its
     * {@code coveredFromInstrumentId()} to its {@code instrumentId()} through its context's
     * {@link MessageContext#streamSequence()} (the message's {@code lastStreamSequence()} from one side; in a pair, its
     * chain position, as every sequence a pair's subscriber is given);
     * the ids from {@code coveredFromInstrumentId} up through this {@code lastStreamSequence}. A message of an
     * instrument at or below its covering sequence is in the snapshot's state and is not delivered; every later one
     * is. A record of this (the {@code record} tool's {@code --coverage-out}) lets a check prove that nothing after
     * the coverage was skipped.
     *
     * @param partition               the partition.
     * @param snapshotId              the snapshot's id within its fanout publication.
     * @param coveredFromInstrumentId the first instrument id above the snapshot's last instrument.
     * @param lastStreamSequence      the stream sequence the instruments from {@code coveredFromInstrumentId} up are
     *                                covered through.
     */
    default void onSnapshotEnd(
        final int partition, final long snapshotId, final long coveredFromInstrumentId, final long lastStreamSequence)
    {
    }

    /**
     * One instrument of a snapshot: clear its book; {@code message.orderCount()} orders follow, after
     * its state messages. {@link MessageContext#streamSequence()} is the instrument's lastStreamSequence.
     *
     * @param context where the message came from ({@link MessageContext#isSnapshot()} true).
     * @param message the decoder wrapped at the message.
     */
    default void onSnapshotInstrument(final MessageContext context, final SnapshotInstrumentDecoder message)
    {
    }

    /**
     * One resting order of the instrument named by the preceding {@link #onSnapshotInstrument}.
     *
     * @param context where the message came from ({@link MessageContext#isSnapshot()} true).
     * @param message the decoder wrapped at the message.
     */
    default void onSnapshotOrder(final MessageContext context, final SnapshotOrderDecoder message)
    {
    }

    /**
     * The partition is good again: a complete snapshot was applied and the held-back incrementals
     * after it were delivered, or (snapshot id 0) a source outage ended on an intact stream; and its
     * source is live. Live delivery continues.
     *
     * @param partition the partition.
     * @param snapshotId the snapshot applied, or 0 when none was needed.
     * @param lastStreamSequence the snapshot's SnapshotBegin lastStreamSequence, or with snapshot id 0 the last
     *                           stream sequence delivered.
     * @param staleForNanos how long the partition was stale.
     */
    default void onRecovered(
        final int partition, final long snapshotId, final long lastStreamSequence, final long staleForNanos)
    {
    }

    /**
     * Nothing, not even a heartbeat, arrived on a joined stream for the silent timeout. Reported once
     * per silence.
     *
     * @param partition the partition.
     * @param silentForNanos time since the last packet or heartbeat.
     */
    default void onStreamSilent(final int partition, final long silentForNanos)
    {
    }

    /**
     * Data arrived again on a stream reported silent.
     *
     * @param partition the partition.
     */
    default void onStreamActive(final int partition)
    {
    }
}
