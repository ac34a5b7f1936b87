package io.mdfanout.tools;

import io.mdfanout.sdk.MarketDataListener;

import java.io.PrintStream;
import java.util.HashSet;

/**
 * Test access to the {@code tail} tool's line formatting ({@link TailCommand.Printer}, package private) for
 * tests outside this package, such as the template walk.
 */
public final class TailPrinters
{
    private TailPrinters()
    {
    }

    /**
     * The listener {@code tail} prints with, without a symbol filter or a line limit.
     *
     * @param lines  where the message lines go (tail's stdout).
     * @param events where the recovery events go (tail's stderr).
     * @return the listener.
     */
    public static MarketDataListener printer(final PrintStream lines, final PrintStream events)
    {
        return new TailCommand.Printer(lines, new RecoveryEvents(events), new HashSet<>(), Long.MAX_VALUE);
    }
}
