package io.mdfanout.sdk;

import io.mdfanout.sbe.AddOrderAttributedDecoder;
import io.mdfanout.sbe.AddOrderDecoder;
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
import io.mdfanout.sbe.TradingStatusDecoder;
import io.mdfanout.sdk.book.OrderBooks;
import org.agrona.ErrorHandler;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The conformance suite's canonical rendering of what a subscriber delivers (conformance/README.md): one line per
 * callback with every field the callback carries, read through the SDK's typed decoders (single bytes unsigned), a
 * message of a snapshot marked {@code snapshot=1}, each message and snapshot also applied to {@link OrderBooks}; the
 * Rust and Python SDKs print the same lines for the same case. Allocates: tests only.
 */
final class CanonicalListener implements MarketDataListener
{
    private final StringBuilder out = new StringBuilder();
    private final OrderBooks books;
    private final byte[] chars = new byte[16];

    CanonicalListener(final OrderBooks books)
    {
        this.books = books;
    }

    StringBuilder out()
    {
        return out;
    }

    public void onStreamJoined(final int partition, final long streamSequence)
    {
        out.append("JOINED p=").append(partition).append(" seq=").append(streamSequence).append('\n');
    }

    public void onNewDay(final int partition)
    {
        out.append("NEW_DAY p=").append(partition).append('\n');
        books.onNewDay(partition);
    }

    public void onStreamGap(final int partition, final long firstMissing, final long lastMissing)
    {
        out.append("GAP p=").append(partition).append(" first=").append(firstMissing).append(" last=")
            .append(lastMissing).append('\n');
    }

    public void onHeartbeat(final int partition, final long nextStreamSequence, final long sendingTime)
    {
        out.append("HEARTBEAT p=").append(partition).append(" next=").append(nextStreamSequence).append(" sent=")
            .append(sendingTime).append('\n');
    }

    public void onStale(final int partition, final StaleReason reason, final long streamSequence)
    {
        out.append("STALE p=").append(partition).append(" reason=").append(reason.name()).append(" seq=")
            .append(streamSequence).append('\n');
    }

    public void onRecovered(
        final int partition, final long snapshotId, final long lastStreamSequence, final long staleNanos)
    {
        // staleNanos is the clock's: not part of the canonical rendering.
        out.append("RECOVERED p=").append(partition).append(" snapshot=").append(snapshotId).append(" last=")
            .append(lastStreamSequence).append('\n');
    }

    public void onSnapshotBegin(final int partition, final long snapshotId, final long lastStreamSequence)
    {
        out.append("SNAPSHOT_BEGIN p=").append(partition).append(" id=").append(snapshotId).append(" last=")
            .append(lastStreamSequence).append('\n');
        books.onSnapshotBegin(partition, snapshotId, lastStreamSequence);
    }

    public void onSnapshotEnd(
        final int partition, final long snapshotId, final long coveredFromInstrumentId, final long lastStreamSequence)
    {
        out.append("SNAPSHOT_END p=").append(partition).append(" id=").append(snapshotId).append(" coveredFrom=")
            .append(coveredFromInstrumentId).append(" last=").append(lastStreamSequence).append('\n');
    }

    public void onSnapshotInstrument(final MessageContext context, final SnapshotInstrumentDecoder m)
    {
        common(context, "SnapshotInstrument", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId())
            .append(" snapshotId=").append(m.snapshotId())
            .append(" lastStreamSequence=").append(m.lastStreamSequence())
            .append(" coveredFromInstrumentId=").append(m.coveredFromInstrumentId())
            .append(" orderCount=").append(m.orderCount());
        end(context);
        books.onSnapshotInstrument(context, m);
    }

    public void onSnapshotOrder(final MessageContext context, final SnapshotOrderDecoder m)
    {
        common(context, "SnapshotOrder", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId())
            .append(" orderId=").append(m.orderId())
            .append(" price=").append(m.price().mantissa())
            .append(" shares=").append(m.shares())
            .append(" side=").append(m.sideRaw() & 0xFF);
        ascii(" attribution=", chars, m.getAttribution(chars, 0));
        end(context);
        books.onSnapshotOrder(context, m);
    }

    public void onGapNotice(final MessageContext context, final GapNoticeDecoder m)
    {
        common(context, "GapNotice", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId())
            .append(" lastMissingSequence=").append(m.lastMissingSequence())
            .append(" reason=").append(m.reasonRaw());
        end(context);
    }

    public void onSystemEvent(final MessageContext context, final SystemEventDecoder m)
    {
        common(context, "SystemEvent", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId())
            .append(" eventCode=").append(m.eventCodeRaw() & 0xFF);
        end(context);
    }

    public void onInstrumentDirectory(final MessageContext context, final InstrumentDirectoryDecoder m)
    {
        common(context, "InstrumentDirectory", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
        ascii(" symbol=", chars, m.getSymbol(chars, 0));
        out.append(" roundLotSize=").append(m.roundLotSize())
            .append(" etpLeverageFactor=").append(m.etpLeverageFactor())
            .append(" marketCategory=").append(m.marketCategory() & 0xFF)
            .append(" financialStatusIndicator=").append(m.financialStatusIndicator() & 0xFF)
            .append(" roundLotsOnly=").append(m.roundLotsOnly() & 0xFF)
            .append(" issueClassification=").append(m.issueClassification() & 0xFF);
        ascii(" issueSubType=", chars, m.getIssueSubType(chars, 0));
        out.append(" authenticity=").append(m.authenticity() & 0xFF)
            .append(" shortSaleThresholdIndicator=").append(m.shortSaleThresholdIndicator() & 0xFF)
            .append(" ipoFlag=").append(m.ipoFlag() & 0xFF)
            .append(" luldReferencePriceTier=").append(m.luldReferencePriceTier() & 0xFF)
            .append(" etpFlag=").append(m.etpFlag() & 0xFF)
            .append(" inverseIndicator=").append(m.inverseIndicator() & 0xFF);
        end(context);
        books.onInstrumentDirectory(context, m);
    }

    public void onTradingStatus(final MessageContext context, final TradingStatusDecoder m)
    {
        common(context, "TradingStatus", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId())
            .append(" tradingState=").append(m.tradingStateRaw() & 0xFF);
        ascii(" reason=", chars, m.getReason(chars, 0));
        end(context);
    }

    public void onRegShoRestriction(final MessageContext context, final RegShoRestrictionDecoder m)
    {
        common(context, "RegShoRestriction", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId())
            .append(" regShoAction=").append(m.regShoAction() & 0xFF);
        end(context);
    }

    public void onMwcbDeclineLevel(final MessageContext context, final MwcbDeclineLevelDecoder m)
    {
        common(context, "MwcbDeclineLevel", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId())
            .append(" level1=").append(m.level1().mantissa())
            .append(" level2=").append(m.level2().mantissa())
            .append(" level3=").append(m.level3().mantissa());
        end(context);
    }

    public void onMwcbStatus(final MessageContext context, final MwcbStatusDecoder m)
    {
        common(context, "MwcbStatus", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId())
            .append(" breachedLevel=").append(m.breachedLevel() & 0xFF);
        end(context);
    }

    public void onOperationalHalt(final MessageContext context, final OperationalHaltDecoder m)
    {
        common(context, "OperationalHalt", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId())
            .append(" marketCode=").append(m.marketCode() & 0xFF)
            .append(" haltAction=").append(m.haltAction() & 0xFF);
        end(context);
    }

    public void onAddOrder(final MessageContext context, final AddOrderDecoder m)
    {
        common(context, "AddOrder", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId())
            .append(" orderId=").append(m.orderId())
            .append(" price=").append(m.price().mantissa())
            .append(" shares=").append(m.shares())
            .append(" side=").append(m.sideRaw() & 0xFF);
        end(context);
        books.onAddOrder(context, m);
    }

    public void onAddOrderAttributed(final MessageContext context, final AddOrderAttributedDecoder m)
    {
        common(context, "AddOrderAttributed", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId())
            .append(" orderId=").append(m.orderId())
            .append(" price=").append(m.price().mantissa())
            .append(" shares=").append(m.shares())
            .append(" side=").append(m.sideRaw() & 0xFF);
        ascii(" attribution=", chars, m.getAttribution(chars, 0));
        end(context);
        books.onAddOrderAttributed(context, m);
    }

    public void onOrderExecuted(final MessageContext context, final OrderExecutedDecoder m)
    {
        common(context, "OrderExecuted", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId())
            .append(" orderId=").append(m.orderId())
            .append(" matchNumber=").append(m.matchNumber())
            .append(" executedShares=").append(m.executedShares());
        end(context);
        books.onOrderExecuted(context, m);
    }

    public void onOrderExecutedWithPrice(final MessageContext context, final OrderExecutedWithPriceDecoder m)
    {
        common(context, "OrderExecutedWithPrice", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId())
            .append(" orderId=").append(m.orderId())
            .append(" matchNumber=").append(m.matchNumber())
            .append(" executionPrice=").append(m.executionPrice().mantissa())
            .append(" executedShares=").append(m.executedShares())
            .append(" printable=").append(m.printable() & 0xFF);
        end(context);
        books.onOrderExecutedWithPrice(context, m);
    }

    public void onOrderCancel(final MessageContext context, final OrderCancelDecoder m)
    {
        common(context, "OrderCancel", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId())
            .append(" orderId=").append(m.orderId())
            .append(" cancelledShares=").append(m.cancelledShares());
        end(context);
        books.onOrderCancel(context, m);
    }

    public void onOrderDelete(final MessageContext context, final OrderDeleteDecoder m)
    {
        common(context, "OrderDelete", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId())
            .append(" orderId=").append(m.orderId());
        end(context);
        books.onOrderDelete(context, m);
    }

    public void onOrderReplace(final MessageContext context, final OrderReplaceDecoder m)
    {
        common(context, "OrderReplace", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId())
            .append(" originalOrderId=").append(m.originalOrderId())
            .append(" newOrderId=").append(m.newOrderId())
            .append(" price=").append(m.price().mantissa())
            .append(" shares=").append(m.shares());
        end(context);
        books.onOrderReplace(context, m);
    }

    public void onTrade(final MessageContext context, final TradeDecoder m)
    {
        common(context, "Trade", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId())
            .append(" orderId=").append(m.orderId())
            .append(" matchNumber=").append(m.matchNumber())
            .append(" price=").append(m.price().mantissa())
            .append(" shares=").append(m.shares())
            .append(" side=").append(m.sideRaw() & 0xFF);
        end(context);
    }

    public void onCrossTrade(final MessageContext context, final CrossTradeDecoder m)
    {
        common(context, "CrossTrade", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId())
            .append(" shares=").append(m.shares())
            .append(" matchNumber=").append(m.matchNumber())
            .append(" crossPrice=").append(m.crossPrice().mantissa())
            .append(" crossType=").append(m.crossType() & 0xFF);
        end(context);
    }

    public void onBrokenTrade(final MessageContext context, final BrokenTradeDecoder m)
    {
        common(context, "BrokenTrade", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId())
            .append(" matchNumber=").append(m.matchNumber());
        end(context);
    }

    public void onImbalance(final MessageContext context, final ImbalanceDecoder m)
    {
        common(context, "Imbalance", m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId())
            .append(" pairedShares=").append(m.pairedShares())
            .append(" imbalanceShares=").append(m.imbalanceShares())
            .append(" farPrice=").append(m.farPrice().mantissa())
            .append(" nearPrice=").append(m.nearPrice().mantissa())
            .append(" currentReferencePrice=").append(m.currentReferencePrice().mantissa())
            .append(" imbalanceDirection=").append(m.imbalanceDirection() & 0xFF)
            .append(" crossType=").append(m.crossType() & 0xFF)
            .append(" priceVariationIndicator=").append(m.priceVariationIndicator() & 0xFF);
        end(context);
    }

    /**
     * The end of a case: the counters every SDK keeps alike (those of the recovery when it ran), then the books'
     * canonical dump.
     */
    String finish(final SubscriberCounters counters, final boolean recovery)
    {
        return finish(counters, recovery, null);
    }

    /**
     * The end of a case: the counters every SDK keeps alike (those of the recovery when it ran, a pair's per side
     * when {@code sides} is not null), then the books' canonical dump.
     */
    String finish(final SubscriberCounters counters, final boolean recovery, final SideReports sides)
    {
        out.append("COUNTERS packets=").append(counters.packets())
            .append(" messages=").append(counters.messages())
            .append(" heartbeats=").append(counters.heartbeats())
            .append(" gaps=").append(counters.gaps())
            .append(" missing=").append(counters.missingMessages())
            .append(" duplicatePackets=").append(counters.duplicatePackets())
            .append(" duplicateMessages=").append(counters.duplicateMessages())
            .append(" malformed=").append(counters.malformed())
            .append(" oldSession=").append(counters.oldSessionPackets()).append('\n');
        for (final MalformedReason reason : MalformedReason.values())
        {
            if (0 != counters.malformed(reason))
            {
                out.append("MALFORMED ").append(reason.name()).append('=').append(counters.malformed(reason)).append('\n');
            }
        }
        if (recovery)
        {
            out.append("RECOVERY stale=").append(counters.staleEvents())
                .append(" recovered=").append(counters.recoveries())
                .append(" snapshotPackets=").append(counters.snapshotPackets())
                .append(" applied=").append(counters.snapshotsApplied())
                .append(" ignored=").append(counters.snapshotsIgnored())
                .append(" snapshotGaps=").append(counters.snapshotGaps())
                .append(" malformedSnapshots=").append(counters.malformedSnapshotPackets())
                .append(" abandoned=").append(counters.recoveryAttemptsAbandoned())
                .append(" filtered=").append(counters.filteredMessages())
                .append(" overflows=").append(counters.recoveryBufferOverflows()).append('\n');
        }
        if (null != sides)
        {
            out.append("SIDES");
            for (int side = 0; side < SideReports.SIDES; side++)
            {
                final String name = 0 == side ? " a." : " b.";
                out.append(name).append("messages=").append(counters.sideMessages(side))
                    .append(name).append("duplicates=").append(counters.sideDuplicates(side))
                    .append(name).append("refused=").append(counters.sideRefused(side))
                    .append(name).append("mismatches=").append(counters.sideMismatches(side))
                    .append(name).append("refusals=").append(sides.refusals[side])
                    .append(name).append("readmissions=").append(sides.readmissions[side]);
            }
            out.append('\n');
        }
        out.append("BOOKS\n");
        books.dump(out);
        return out.toString();
    }

    /**
     * A pair's error handler in the suite: what a pair reports of its sides goes to the error handler only, never to
     * the listener, and its words are Java's own; so each report is counted per side and by what it says (the side is
     * refused now, or taken again), and the counts are rendered ({@code SIDES}). Anything else (a listener's exception)
     * fails the case.
     */
    static final class SideReports implements ErrorHandler
    {
        static final int SIDES = 2;
        private static final Pattern REPORT = Pattern.compile("side ([AB]) of partition \\d+(.*)", Pattern.DOTALL);

        /** Per side: reports that it is refused (it disagrees, for a reason other than the one it was refused for). */
        final long[] refusals = new long[SIDES];
        /** Per side: reports that it is taken again (it agrees again, or a new trading day ends its mismatch). */
        final long[] readmissions = new long[SIDES];

        public void onError(final Throwable throwable)
        {
            final Matcher report = REPORT.matcher(String.valueOf(throwable.getMessage()));
            if (!(throwable instanceof IllegalStateException) || !report.matches())
            {
                throw new AssertionError(throwable);
            }
            final int side = report.group(1).charAt(0) - 'A';
            final String rest = report.group(2);
            if (rest.startsWith(" refused: "))
            {
                refusals[side]++;
            }
            else if (rest.startsWith(" agrees again") || rest.startsWith(": a new trading day"))
            {
                readmissions[side]++;
            }
            else
            {
                throw new AssertionError("a report of a pair's side the suite does not know: " + throwable.getMessage());
            }
        }
    }

    private StringBuilder common(
        final MessageContext context,
        final String name,
        final long exchangeSequence,
        final long exchangeTimestamp,
        final long instrumentId)
    {
        return out.append(name).append(" p=").append(context.partition())
            .append(" ss=").append(context.streamSequence())
            .append(" sent=").append(context.sendingTime())
            .append(" xs=").append(exchangeSequence)
            .append(" ts=").append(exchangeTimestamp)
            .append(" inst=").append(instrumentId);
    }

    /** The end of a message's line: a message of a snapshot says so. */
    private void end(final MessageContext context)
    {
        if (context.isSnapshot())
        {
            out.append(" snapshot=1");
        }
        out.append('\n');
    }

    /** A fixed-length character field, quoted, every byte outside printable ASCII (and " and \) as \xNN. */
    private void ascii(final String label, final byte[] bytes, final int length)
    {
        out.append(label).append('"');
        for (int i = 0; i < length; i++)
        {
            final int b = bytes[i] & 0xFF;
            if (b < 0x20 || b > 0x7E || b == '"' || b == '\\')
            {
                out.append("\\x").append(Character.forDigit(b >> 4, 16)).append(Character.forDigit(b & 0xF, 16));
            }
            else
            {
                out.append((char)b);
            }
        }
        out.append('"');
    }
}
