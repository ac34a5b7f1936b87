package io.mdfanout.metrics;

import java.util.Locale;

/** How a value captured from a counter's label becomes a Prometheus label value. */
enum LabelValue
{
    /** As captured. */
    AS_IS,
    /** "late join" becomes "late_join". */
    SNAKE_CASE,
    /** An ITCH 5.0 message type character becomes its name, e.g. "A" becomes "add_order". */
    ITCH_TYPE;

    String apply(final String captured)
    {
        switch (this)
        {
            case SNAKE_CASE:
                return captured.trim().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_");
            case ITCH_TYPE:
                return itchTypeName(captured);
            default:
                return captured;
        }
    }

    static String itchTypeName(final String code)
    {
        switch (code)
        {
            case "S": return "system_event";
            case "R": return "stock_directory";
            case "H": return "stock_trading_action";
            case "Y": return "reg_sho_restriction";
            case "L": return "market_participant_position";
            case "V": return "mwcb_decline_level";
            case "W": return "mwcb_status";
            case "K": return "ipo_quoting_period_update";
            case "J": return "luld_auction_collar";
            case "h": return "operational_halt";
            case "A": return "add_order";
            case "F": return "add_order_mpid";
            case "E": return "order_executed";
            case "C": return "order_executed_with_price";
            case "X": return "order_cancel";
            case "D": return "order_delete";
            case "U": return "order_replace";
            case "P": return "trade";
            case "Q": return "cross_trade";
            case "B": return "broken_trade";
            case "I": return "noii";
            case "N": return "retail_price_improvement";
            case "O": return "direct_listing_price_discovery";
            default: return "code_" + (int)code.charAt(0);
        }
    }
}
