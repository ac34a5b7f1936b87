package io.mdfanout.metrics;

import io.mdfanout.wire.FeedStream;
import org.agrona.DirectBuffer;

import java.util.Locale;

/**
 * How a counter's key becomes Prometheus label values: the key layouts {@link io.mdfanout.wire.MdfanoutCounters}
 * documents for each kind of counter. The label text of a counter is for people only and is never parsed.
 */
enum CounterKey
{
    /** No key: no labels. */
    NONE(),
    /** The partition id, an int at offset 0. */
    PARTITION("partition"),
    /** The partition id, an int at offset 0, then the side of a pair (0 = A, 1 = B), an int at offset 4. */
    PARTITION_SIDE("partition", "side"),
    /** The partition id, an int at offset 0, then the stream (a {@link FeedStream}'s ordinal), an int at offset 4. */
    PARTITION_STREAM("partition", "stream"),
    /** The partition id and side as {@link #PARTITION_SIDE}, then the reason, an ASCII string at offset 8, in snake case. */
    PARTITION_SIDE_REASON("partition", "side", "reason"),
    /** The line index (0 = A, 1 = B, 2 = R), an int at offset 0. */
    LINE("line"),
    /** The ITCH message type character, an int at offset 0, as its name, e.g. "add_order". */
    ITCH_TYPE("type"),
    /** The subscriber's name, an ASCII string at offset 0. */
    SUBSCRIBER("subscriber"),
    /** The subscriber's name, an ASCII string at offset 0, then the reason, an ASCII string, in snake case. */
    SUBSCRIBER_REASON("subscriber", "reason"),
    /** The subscriber's name, an ASCII string at offset 0, then the side of a pair ("A" or "B"), an ASCII string. */
    SUBSCRIBER_SIDE("subscriber", "side");

    private static final String[] LINE_NAMES = { "A", "B", "R" };

    private final String[] labelNames;

    CounterKey(final String... labelNames)
    {
        this.labelNames = labelNames;
    }

    /** @return the Prometheus label names this key gives. */
    String[] labelNames()
    {
        return labelNames.clone();
    }

    /**
     * @param key the counter's key buffer (the key at offset 0).
     * @return the label values, in the order of {@link #labelNames()}.
     */
    String[] values(final DirectBuffer key)
    {
        switch (this)
        {
            case PARTITION:
                return new String[]{ Integer.toString(key.getInt(0)) };
            case PARTITION_SIDE:
                return new String[]{ Integer.toString(key.getInt(0)), sideName(key.getInt(Integer.BYTES)) };
            case PARTITION_STREAM:
                return new String[]{ Integer.toString(key.getInt(0)), streamName(key.getInt(Integer.BYTES)) };
            case PARTITION_SIDE_REASON:
                return new String[]{ Integer.toString(key.getInt(0)), sideName(key.getInt(Integer.BYTES)),
                    snakeCase(key.getStringAscii(2 * Integer.BYTES)) };
            case LINE:
            {
                final int line = key.getInt(0);
                final boolean known = line >= 0 && line < LINE_NAMES.length;
                return new String[]{ known ? LINE_NAMES[line] : Integer.toString(line) };
            }
            case ITCH_TYPE:
                return new String[]{ itchTypeName(key.getInt(0)) };
            case SUBSCRIBER:
                return new String[]{ key.getStringAscii(0) };
            case SUBSCRIBER_REASON:
            {
                final String subscriber = key.getStringAscii(0);
                final String reason = key.getStringAscii(Integer.BYTES + subscriber.length());
                return new String[]{ subscriber, snakeCase(reason) };
            }
            case SUBSCRIBER_SIDE:
            {
                final String subscriber = key.getStringAscii(0);
                return new String[]{ subscriber, key.getStringAscii(Integer.BYTES + subscriber.length()).trim() };
            }
            default:
                return new String[0];
        }
    }

    /** A FeedStream's ordinal as its name: 0 "mbo", 1 "bbo", ... */
    static String streamName(final int ordinal)
    {
        final FeedStream[] streams = FeedStream.values();
        return ordinal >= 0 && ordinal < streams.length ? streams[ordinal].streamName() : Integer.toString(ordinal);
    }

    /** 0 becomes "A", 1 "B". */
    static String sideName(final int side)
    {
        return side >= 0 && side < 26 ? String.valueOf((char)('A' + side)) : Integer.toString(side);
    }

    /** "late join" becomes "late_join". */
    static String snakeCase(final String text)
    {
        return text.trim().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_");
    }

    static String itchTypeName(final int code)
    {
        switch (code)
        {
            case 'S': return "system_event";
            case 'R': return "stock_directory";
            case 'H': return "stock_trading_action";
            case 'Y': return "reg_sho_restriction";
            case 'L': return "market_participant_position";
            case 'V': return "mwcb_decline_level";
            case 'W': return "mwcb_status";
            case 'K': return "ipo_quoting_period_update";
            case 'J': return "luld_auction_collar";
            case 'h': return "operational_halt";
            case 'A': return "add_order";
            case 'F': return "add_order_mpid";
            case 'E': return "order_executed";
            case 'C': return "order_executed_with_price";
            case 'X': return "order_cancel";
            case 'D': return "order_delete";
            case 'U': return "order_replace";
            case 'P': return "trade";
            case 'Q': return "cross_trade";
            case 'B': return "broken_trade";
            case 'I': return "noii";
            case 'N': return "retail_price_improvement";
            case 'O': return "direct_listing_price_discovery";
            default: return "code_" + code;
        }
    }
}
