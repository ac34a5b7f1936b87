package io.mdfanout.feed.replay;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ReplayProgressTest
{
    @Test
    void percentRateAndEta()
    {
        final ReplayProgress progress = new ReplayProgress(1000, 0);
        assertEquals("replay:  25.0% read, 500 msgs, 250 msg/s, ETA 0:06", progress.line(250, 500, 2_000_000_000L));
        // the rate is over the last interval; ETA from the average pace so far
        assertEquals("replay:  50.0% read, 600 msgs, 50 msg/s, ETA 0:04", progress.line(500, 600, 4_000_000_000L));
        assertEquals("replay: 100.0% read, 600 msgs, 0 msg/s, ETA 0:00", progress.line(1000, 600, 5_000_000_000L));
    }

    @Test
    void redrawOverwritesALongerLine()
    {
        final ReplayProgress progress = new ReplayProgress(0, 0);
        final String first = progress.redraw(0, 123_456_789, 1_000_000_000L);
        final String second = progress.redraw(0, 123_456_790, 61_000_000_000L);
        assertEquals('\r', first.charAt(0));
        assertEquals(first.length(), second.length(), second);
        assertEquals("replay:   0.0% read, 0 msgs, 0 msg/s, ETA --:--", new ReplayProgress(1000, 0).line(0, 0, 0));
    }
}
