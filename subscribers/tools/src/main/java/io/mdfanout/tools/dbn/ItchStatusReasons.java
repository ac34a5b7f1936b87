package io.mdfanout.tools.dbn;

/**
 * Maps the four-character reason of an ITCH Stock Trading Action (H) to DBN's {@code StatusReason}. The codes are
 * Nasdaq's published halt and resumption codes; a code DBN has no reason for maps to 0 (none), so a reader still
 * sees the state change, only not why.
 */
final class ItchStatusReasons
{
    private ItchStatusReasons()
    {
    }

    /**
     * The DBN reason for an ITCH reason code.
     *
     * @param code the code, right-padded with spaces as ITCH sends it.
     * @return the StatusReason value, 0 when none fits.
     */
    static int reason(final String code)
    {
        return switch (code.trim())
        {
            case "T1" -> 30;                            // news pending
            case "T2" -> 31;                            // news released
            case "T3" -> 32;                            // news and resumption times
            case "C3" -> 33;                            // news not forthcoming
            case "T5", "T7", "LUDP", "LUDS" -> 50;      // limit up-limit down (volatility) pause
            case "T6" -> 3;                             // extraordinary market activity
            case "T8" -> 90;                            // ETF component conditions
            case "T12" -> 70;                           // additional information requested
            case "H4" -> 12;                            // non-compliance
            case "H9" -> 13;                            // filings not current
            case "H10" -> 14;                           // SEC trading suspension
            case "H11", "C11" -> 10;                    // regulatory concern, or halt ended by another regulator
            case "O1" -> 60;                            // operations halt
            case "IPO1", "IPOE", "R1" -> 15;            // new issue
            case "IPOQ", "R2" -> 16;                    // issue available
            case "R4", "C4" -> 17;                      // qualifications issues reviewed
            case "R9", "C9" -> 18;                      // filing requirements satisfied
            case "M1" -> 100;                           // corporate action
            case "M2" -> 130;                           // quotation not available
            case "MWC1" -> 120;                         // market-wide circuit breaker level 1
            case "MWC2" -> 121;
            case "MWC3" -> 122;
            case "MWC0" -> 123;                         // carried over from the previous day
            case "MWCQ" -> 124;                         // market-wide halt resumption
            default -> 0;
        };
    }
}
