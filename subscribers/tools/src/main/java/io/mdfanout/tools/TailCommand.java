package io.mdfanout.tools;

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
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sbe.TradeDecoder;
import io.mdfanout.sbe.TradePrintDecoder;
import io.mdfanout.sbe.TradingStatusDecoder;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.SymbolDirectory;
import io.mdfanout.sdk.book.InstrumentDirectory;
import io.mdfanout.wire.ExitCodes;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

/** {@code tail}: prints every decoded message, one human-readable line each. */
@Command(name = "tail", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = "Print every received message, one line each.")
public final class TailCommand implements Callable<Integer>
{
    @Mixin
    SubscriberOptions subscriberOptions;

    @Option(names = "--symbol", description = "Show only this symbol (repeatable): the feed's symbol directory says " +
        "which partitions carry the symbols, and only those are subscribed to.")
    List<String> symbols = new ArrayList<>();

    @Option(names = "--count", defaultValue = "0", description = "Stop after this many lines (0 = no limit).")
    long count;

    @Option(names = "--to",
        description = "Stop at this point of the session (exclusive): seq:N, seq:P=N,P=N, HH:MM:SS[.fraction] or ns:N " +
            "(exchange time).")
    String to;

    PrintStream stdout = System.out;
    PrintStream stderr = System.err;

    /** {@inheritDoc} */
    public Integer call()
    {
        final int[] partitions;
        try
        {
            partitions = subscriberOptions.resolvePartitions();
            if (count < 0)
            {
                throw new IllegalArgumentException("--count must not be negative: " + count);
            }
            if (null != to)
            {
                ReplayPoint.parse("--to", to);
            }
        }
        catch (final IllegalArgumentException ex)
        {
            stderr.println("tail: " + ex.getMessage());
            return ExitCodes.CONFIG;
        }

        final Printer printer = new Printer(
            stdout, new RecoveryEvents(stderr), new HashSet<>(symbols), 0 == count ? Long.MAX_VALUE : count);
        // The state before a --from point is replayed as snapshot content: the tail starts at the point.
        printer.skipSnapshots = subscriberOptions.replays();
        printer.to = null == to ? null : ReplayPoint.parse("--to", to);
        printer.partitions = partitions;
        try (ToolSession session = ToolSession.open(
            "tail", subscriberOptions, new ToolMetrics("tail"), partitions, printer, stderr, symbols))
        {
            printer.learn(session.selection());
            while (session.isRunning() && (0 == count || printer.lines < count) && !printer.allPastEnd() &&
                !session.subscriber().isReplayEnded())
            {
                session.pollOnce();
            }
            stdout.flush();
            if (session.subscriber().isReplayFailed())
            {
                // As record and export: a replay that could not give what was asked for is data loss.
                stderr.println("tail: the replay from " + subscriberOptions.replay.archiveControlChannel +
                    " failed (the reason is above)");
                return ExitCodes.DATA_LOSS;
            }
            return ExitCodes.OK;
        }
        catch (final RuntimeException ex)
        {
            stderr.println("tail: " + ex.getMessage());
            return ExitCodes.of(ex);
        }
    }

    /** Formats each message as one line; filters by symbol. */
    static final class Printer extends RecoveryReportingListener
    {
        private final PrintStream out;
        private final Set<String> symbols;
        private final long maxLines;
        private final InstrumentDirectory directory = new InstrumentDirectory();
        private final StringBuilder line = new StringBuilder(256);
        long lines;
        boolean skipSnapshots;
        io.mdfanout.sdk.ReplayStart to;
        int[] partitions;
        private int pastEndCount;
        private boolean[] pastEnd;

        boolean allPastEnd()
        {
            return null != to && null != partitions && pastEndCount == partitions.length;
        }

        private boolean beyondEnd(final MessageContext context, final long streamSequence, final long timestamp)
        {
            if (null == to || !to.reached(context.partition(), streamSequence, timestamp))
            {
                return false;
            }
            if (null == pastEnd)
            {
                pastEnd = new boolean[partitions.length];
            }
            for (int slot = 0; slot < partitions.length; slot++)
            {
                if (partitions[slot] == context.partition() && !pastEnd[slot])
                {
                    pastEnd[slot] = true;
                    pastEndCount++;
                }
            }
            return true;
        }

        Printer(final PrintStream out, final RecoveryEvents events, final Set<String> symbols, final long maxLines)
        {
            super(events);
            this.out = out;
            this.symbols = symbols;
            this.maxLines = maxLines;
        }

        /** The symbols resolved from the feed's directory: known before any InstrumentDirectory (derived streams have none). */
        void learn(final SymbolDirectory.Selection selection)
        {
            if (null != selection)
            {
                final String[] names = selection.symbols();
                final long[] ids = selection.instrumentIds();
                for (int i = 0; i < names.length; i++)
                {
                    directory.put(ids[i], names[i]);
                }
            }
        }

        /** Start a line, or return null when the instrument is filtered out. */
        private StringBuilder begin(
            final String name, final MessageContext context, final long exchangeSequence, final long timestamp,
            final long instrumentId)
        {
            final String symbol = 0 == instrumentId ? null : directory.symbol(instrumentId);
            if (lines >= maxLines || (skipSnapshots && context.isSnapshot()) ||
                (!context.isSnapshot() && beyondEnd(context, context.streamSequence(), timestamp)))
            {
                return null;
            }
            if (!symbols.isEmpty() && (null == symbol || !symbols.contains(symbol)))
            {
                return null;
            }
            line.setLength(0);
            TextFormat.appendTime(line, timestamp).append(' ').append(name)
                .append(" p=").append(context.partition())
                .append(" seq=").append(context.streamSequence())
                .append(" xseq=").append(exchangeSequence)
                .append(" inst=").append(instrumentId);
            if (null != symbol)
            {
                line.append(' ').append(symbol);
            }
            return line;
        }

        private void end(final StringBuilder builder)
        {
            out.println(builder);
            lines++;
        }

        private static StringBuilder price(final StringBuilder b, final String name, final long mantissa)
        {
            return TextFormat.appendPrice(b.append(' ').append(name).append('='), mantissa, 4);
        }

        public void onStreamGap(final int partition, final long firstMissing, final long lastMissing)
        {
            if (symbols.isEmpty())
            {
                out.println("GAP p=" + partition + " missing " + firstMissing + ".." + lastMissing);
            }
        }

        public void onGapNotice(final MessageContext c, final GapNoticeDecoder m)
        {
            final StringBuilder b = begin("GapNotice", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                end(b.append(" lastMissing=").append(m.lastMissingSequence()).append(" reason=").append(m.reasonRaw()));
            }
        }

        public void onSystemEvent(final MessageContext c, final SystemEventDecoder m)
        {
            final StringBuilder b = begin("SystemEvent", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                end(b.append(" event=").append((char)m.eventCodeRaw()));
            }
        }

        public void onInstrumentDirectory(final MessageContext c, final InstrumentDirectoryDecoder m)
        {
            directory.onInstrumentDirectory(m);
            final StringBuilder b = begin(
                "InstrumentDirectory", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                end(b.append(" roundLot=").append(m.roundLotSize())
                    .append(" category=").append((char)m.marketCategory())
                    .append(" financialStatus=").append((char)m.financialStatusIndicator()));
            }
        }

        public void onTradingStatus(final MessageContext c, final TradingStatusDecoder m)
        {
            final StringBuilder b = begin("TradingStatus", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                end(b.append(" state=").append((char)m.tradingStateRaw()).append(" reason=").append(m.reason().trim()));
            }
        }

        public void onRegShoRestriction(final MessageContext c, final RegShoRestrictionDecoder m)
        {
            final StringBuilder b = begin(
                "RegShoRestriction", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                end(b.append(" action=").append((char)m.regShoAction()));
            }
        }

        public void onMwcbDeclineLevel(final MessageContext c, final MwcbDeclineLevelDecoder m)
        {
            final StringBuilder b = begin(
                "MwcbDeclineLevel", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                TextFormat.appendPrice(b.append(" level1="), m.level1().mantissa(), 8);
                TextFormat.appendPrice(b.append(" level2="), m.level2().mantissa(), 8);
                TextFormat.appendPrice(b.append(" level3="), m.level3().mantissa(), 8);
                end(b);
            }
        }

        public void onMwcbStatus(final MessageContext c, final MwcbStatusDecoder m)
        {
            final StringBuilder b = begin("MwcbStatus", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                end(b.append(" breachedLevel=").append((char)m.breachedLevel()));
            }
        }

        public void onOperationalHalt(final MessageContext c, final OperationalHaltDecoder m)
        {
            final StringBuilder b = begin(
                "OperationalHalt", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                end(b.append(" market=").append((char)m.marketCode()).append(" action=").append((char)m.haltAction()));
            }
        }

        public void onAddOrder(final MessageContext c, final AddOrderDecoder m)
        {
            final StringBuilder b = begin("AddOrder", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                b.append(" order=").append(m.orderId()).append(' ').append((char)m.sideRaw())
                    .append(' ').append(m.shares()).append(" @");
                end(TextFormat.appendPrice(b, m.price().mantissa(), 4));
            }
        }

        public void onAddOrderAttributed(final MessageContext c, final AddOrderAttributedDecoder m)
        {
            final StringBuilder b = begin(
                "AddOrderAttributed", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                b.append(" order=").append(m.orderId()).append(' ').append((char)m.sideRaw())
                    .append(' ').append(m.shares()).append(" @");
                TextFormat.appendPrice(b, m.price().mantissa(), 4);
                end(b.append(" mpid=").append(m.attribution().trim()));
            }
        }

        public void onOrderExecuted(final MessageContext c, final OrderExecutedDecoder m)
        {
            final StringBuilder b = begin("OrderExecuted", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                end(b.append(" order=").append(m.orderId()).append(" shares=").append(m.executedShares())
                    .append(" match=").append(m.matchNumber()));
            }
        }

        public void onOrderExecutedWithPrice(final MessageContext c, final OrderExecutedWithPriceDecoder m)
        {
            final StringBuilder b = begin(
                "OrderExecutedWithPrice", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                b.append(" order=").append(m.orderId()).append(" shares=").append(m.executedShares());
                price(b, "price", m.executionPrice().mantissa());
                end(b.append(" match=").append(m.matchNumber()).append(" printable=").append((char)m.printable()));
            }
        }

        public void onOrderCancel(final MessageContext c, final OrderCancelDecoder m)
        {
            final StringBuilder b = begin("OrderCancel", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                end(b.append(" order=").append(m.orderId()).append(" cancelled=").append(m.cancelledShares()));
            }
        }

        public void onOrderDelete(final MessageContext c, final OrderDeleteDecoder m)
        {
            final StringBuilder b = begin("OrderDelete", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                end(b.append(" order=").append(m.orderId()));
            }
        }

        public void onOrderReplace(final MessageContext c, final OrderReplaceDecoder m)
        {
            final StringBuilder b = begin("OrderReplace", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                b.append(" order=").append(m.originalOrderId()).append("->").append(m.newOrderId())
                    .append(' ').append(m.shares()).append(" @");
                end(TextFormat.appendPrice(b, m.price().mantissa(), 4));
            }
        }

        public void onTrade(final MessageContext c, final TradeDecoder m)
        {
            final StringBuilder b = begin("Trade", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                b.append(" order=").append(m.orderId()).append(' ').append((char)m.sideRaw())
                    .append(' ').append(m.shares()).append(" @");
                TextFormat.appendPrice(b, m.price().mantissa(), 4);
                end(b.append(" match=").append(m.matchNumber()));
            }
        }

        public void onCrossTrade(final MessageContext c, final CrossTradeDecoder m)
        {
            final StringBuilder b = begin("CrossTrade", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                b.append(' ').append(m.shares()).append(" @");
                TextFormat.appendPrice(b, m.crossPrice().mantissa(), 4);
                end(b.append(" match=").append(m.matchNumber()).append(" type=").append((char)m.crossType()));
            }
        }

        public void onBrokenTrade(final MessageContext c, final BrokenTradeDecoder m)
        {
            final StringBuilder b = begin("BrokenTrade", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                end(b.append(" match=").append(m.matchNumber()));
            }
        }

        public void onImbalance(final MessageContext c, final ImbalanceDecoder m)
        {
            final StringBuilder b = begin("Imbalance", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                b.append(" paired=").append(m.pairedShares()).append(" imbalance=").append(m.imbalanceShares())
                    .append(' ').append((char)m.imbalanceDirection());
                price(b, "far", m.farPrice().mantissa());
                price(b, "near", m.nearPrice().mantissa());
                price(b, "ref", m.currentReferencePrice().mantissa());
                end(b.append(" cross=").append((char)m.crossType()));
            }
        }

        public void onBestBidOffer(final MessageContext c, final BestBidOfferDecoder m)
        {
            final StringBuilder b = begin("BestBidOffer", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                b.append(" bid ");
                level(b, m.bidShares(), m.bidPrice().mantissa(), m.bidOrders());
                b.append(" ask ");
                level(b, m.askShares(), m.askPrice().mantissa(), m.askOrders());
                end(b);
            }
        }

        public void onBookDepth(final MessageContext c, final BookDepthDecoder m)
        {
            final StringBuilder b = begin("BookDepth", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                b.append(" bids");
                for (int level = 0; level < m.bidLevels(); level++)
                {
                    b.append(' ');
                    level(b, m.bidShares(level), m.bidPrices(level), m.bidOrders(level));
                }
                b.append(" asks");
                for (int level = 0; level < m.askLevels(); level++)
                {
                    b.append(' ');
                    level(b, m.askShares(level), m.askPrices(level), m.askOrders(level));
                }
                end(b);
            }
        }

        public void onTradePrint(final MessageContext c, final TradePrintDecoder m)
        {
            final StringBuilder b = begin("TradePrint", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                b.append(' ').append(m.shares()).append(" @");
                TextFormat.appendPrice(b, m.price().mantissa(), 4);
                end(b.append(" aggressor=").append((char)m.aggressorSideRaw()).append(" match=").append(m.matchNumber())
                    .append(" order=").append(m.orderId()).append(" source=").append((char)m.source()));
            }
        }

        public void onBar(final MessageContext c, final BarDecoder m)
        {
            final StringBuilder b = begin("Bar", c, m.exchangeSequence(), m.exchangeTimestamp(), m.instrumentId());
            if (null != b)
            {
                b.append(' ').append(m.intervalSeconds()).append("s start=").append(m.barStart()).append(" o=");
                TextFormat.appendPrice(b, m.openPrice().mantissa(), 4);
                b.append(" h=");
                TextFormat.appendPrice(b, m.highPrice().mantissa(), 4);
                b.append(" l=");
                TextFormat.appendPrice(b, m.lowPrice().mantissa(), 4);
                b.append(" c=");
                TextFormat.appendPrice(b, m.closePrice().mantissa(), 4);
                end(b.append(" v=").append(m.volume()).append(" n=").append(m.printCount())
                    .append(0 != m.partial() ? " partial" : ""));
            }
        }

        /** One price level: shares @ price (orders), or "-" for a side without it. */
        private static void level(final StringBuilder b, final long shares, final long price, final long orders)
        {
            if (Long.MIN_VALUE == price)
            {
                b.append('-');
                return;
            }
            b.append(shares).append(" @");
            TextFormat.appendPrice(b, price, 4);
            b.append(" (").append(orders).append(')');
        }
    }

    /**
     * Run from the command line (ad-hoc; the mdfanout CLI registers this command).
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new TailCommand()).execute(args));
    }
}
