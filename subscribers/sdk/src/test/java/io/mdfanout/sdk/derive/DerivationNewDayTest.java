package io.mdfanout.sdk.derive;

import io.mdfanout.sbe.BarDecoder;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventDecoder;
import io.mdfanout.sbe.SystemEventEncoder;
import io.mdfanout.sbe.TradeDecoder;
import io.mdfanout.sbe.TradeEncoder;
import io.mdfanout.sdk.book.OrderBooks;
import io.mdfanout.wire.FeedStream;
import io.mdfanout.wire.WireFormat;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A new trading day restarts {@link Derivation}'s bars' clock (found while writing the DBN export of its bars): the new
 * day's exchange times (nanoseconds since its own midnight) are all before the previous day's, so a clock kept across
 * the day would close no bar until it passed the previous day's last interval, and put the new day's prints into a bar
 * that starts at the previous day's time. A fanout that runs across days (days that roll by themselves) needs it.
 */
class DerivationNewDayTest
{
    private static final long MINUTE = 60_000_000_000L;
    private static final long HOUR = 60 * MINUTE;

    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[WireFormat.MAX_STREAM_MESSAGE_LENGTH]);
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final List<long[]> bars = new ArrayList<>();
    private final Derivation derivation = new Derivation(new OrderBooks(), this::onDerived, FeedStream.BARS);
    private long sequence;

    @Test
    void theSecondDaysOneMinuteBarStartsAtItsOwnMinuteAndClosesAtTheNextOne()
    {
        trade(15 * HOUR + 59 * MINUTE + 30_000_000_000L, 100_000);
        endOfMessages(20 * HOUR);
        assertEquals(List.of(15 * HOUR + 59 * MINUTE), starts(), "day 1: one 1-minute bar, 15:59");

        derivation.onNewDay(0);
        bars.clear();
        sequence = 0;
        trade(9 * HOUR + 30 * MINUTE + 10_000_000_000L, 110_000);
        trade(9 * HOUR + 31 * MINUTE + 500_000_000L, 120_000);
        assertEquals(List.of(9 * HOUR + 30 * MINUTE), starts(),
            "day 2: the 09:30 bar, closed by the 09:31 message (today: none, the clock still at day 1's 20:00)");
    }

    /** The 1-minute bars' starts. */
    private List<Long> starts()
    {
        final List<Long> starts = new ArrayList<>();
        for (final long[] bar : bars)
        {
            if (60 == bar[1])
            {
                starts.add(bar[0]);
            }
        }
        return starts;
    }

    private void onDerived(final FeedStream stream, final DirectBuffer message, final int offset, final int length)
    {
        final MessageHeaderDecoder messageHeader = new MessageHeaderDecoder().wrap(message, offset);
        final BarDecoder bar = new BarDecoder().wrap(message, offset + WireFormat.HEADER_LENGTH,
            messageHeader.blockLength(), messageHeader.version());
        bars.add(new long[]{bar.barStart(), bar.intervalSeconds()});
    }

    private void trade(final long time, final long mantissa)
    {
        final TradeEncoder e = new TradeEncoder().wrapAndApplyHeader(buffer, 0, header);
        e.exchangeSequence(++sequence).exchangeTimestamp(time).instrumentId(1).orderId(0).matchNumber(sequence)
            .shares(100).side(Side.BUY);
        e.price().mantissa(mantissa);
        derivation.onRawMessage(null, buffer, 0, WireFormat.HEADER_LENGTH + TradeEncoder.BLOCK_LENGTH);
        derivation.onTrade(null, new TradeDecoder().wrap(
            buffer, WireFormat.HEADER_LENGTH, TradeEncoder.BLOCK_LENGTH, TradeEncoder.SCHEMA_VERSION));
    }

    private void endOfMessages(final long time)
    {
        new SystemEventEncoder().wrapAndApplyHeader(buffer, 0, header).exchangeSequence(++sequence)
            .exchangeTimestamp(time).instrumentId(0).eventCode(SystemEventCode.END_OF_MESSAGES);
        derivation.onRawMessage(null, buffer, 0, WireFormat.HEADER_LENGTH + SystemEventEncoder.BLOCK_LENGTH);
        derivation.onSystemEvent(null, new SystemEventDecoder().wrap(
            buffer, WireFormat.HEADER_LENGTH, SystemEventEncoder.BLOCK_LENGTH, SystemEventEncoder.SCHEMA_VERSION));
    }
}
