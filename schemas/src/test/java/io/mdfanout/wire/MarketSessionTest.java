package io.mdfanout.wire;

import io.mdfanout.sbe.SystemEventCode;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MarketSessionTest
{
    private static MarketSession run(final String codes)
    {
        MarketSession state = MarketSession.UNKNOWN;
        for (int i = 0; i < codes.length(); i++)
        {
            state = state.onSystemEvent((byte)codes.charAt(i));
        }
        return state;
    }

    @Test
    void aTradingDayGoesThroughEveryStateInOrder()
    {
        final String day = "OSQMEC";
        final MarketSession[] expected = {
            MarketSession.PRE_SESSION, MarketSession.PRE_MARKET, MarketSession.OPEN, MarketSession.POST_MARKET,
            MarketSession.CLOSED, MarketSession.ENDED };
        MarketSession state = MarketSession.UNKNOWN;
        for (int i = 0; i < day.length(); i++)
        {
            state = state.onSystemEvent((byte)day.charAt(i));
            assertSame(expected[i], state, "after " + day.charAt(i));
        }
    }

    @Test
    void onlySystemHoursAreSystemHours()
    {
        final Set<MarketSession> hours = new HashSet<>();
        for (final MarketSession state : MarketSession.all())
        {
            if (state.isSystemHours())
            {
                hours.add(state);
            }
        }
        assertEquals(Set.of(MarketSession.PRE_MARKET, MarketSession.OPEN, MarketSession.POST_MARKET), hours);
        assertEquals("S", "" + (char)run("OS").eventCode());
        assertFalse(run("OSQME").isSystemHours());
        assertTrue(run("OSQM").isSystemHours());
    }

    @Test
    void theStateIsAFunctionOfTheLastEventAlone()
    {
        // A snapshot or a restarted fanout has only the last System Event: from any state, a code enters its own.
        for (final MarketSession from : MarketSession.all())
        {
            for (final MarketSession to : MarketSession.all())
            {
                if (MarketSession.UNKNOWN != to)
                {
                    assertSame(to, from.onSystemEvent(to.eventCode()), from + " then " + (char)to.eventCode());
                    assertSame(to, MarketSession.afterLastEvent(to.eventCode()));
                }
            }
        }
        // A missed Q (a declared gap) does not wedge the machine; a new session after C starts again at O.
        assertSame(MarketSession.POST_MARKET, run("OSM"));
        assertSame(MarketSession.PRE_SESSION, run("OSQMECO"));
    }

    @Test
    void otherCodesChangeNothing()
    {
        for (final byte code : new byte[]{ 0, ' ', 'A', 'X', 'q', (byte)0xFF })
        {
            for (final MarketSession state : MarketSession.all())
            {
                assertSame(state, state.onSystemEvent(code));
            }
            assertSame(MarketSession.UNKNOWN, MarketSession.afterLastEvent(code));
        }
    }

    @Test
    void everySchemaEventCodeEntersTheStateWhoseCodeItIs()
    {
        for (final SystemEventCode code : SystemEventCode.values())
        {
            if (SystemEventCode.NULL_VAL != code)
            {
                final MarketSession state = MarketSession.afterLastEvent(code.value());
                assertEquals(code.value(), state.eventCode(), code.name());
            }
        }
    }

    @Test
    void valuesAndLabelsAreStable()
    {
        final String[] labels = { "unknown", "pre_session", "pre_market", "open", "post_market", "closed", "ended" };
        final MarketSession[] all = MarketSession.all();
        assertEquals(labels.length, all.length);
        for (int value = 0; value < labels.length; value++)
        {
            assertEquals(value, all[value].value());
            assertEquals(labels[value], all[value].label());
            assertSame(all[value], MarketSession.get(value));
        }
        assertSame(MarketSession.UNKNOWN, MarketSession.get(-1));
        assertSame(MarketSession.UNKNOWN, MarketSession.get(labels.length));
    }
}
