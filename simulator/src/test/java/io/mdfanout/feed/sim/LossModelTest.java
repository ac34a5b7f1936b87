package io.mdfanout.feed.sim;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LossModelTest
{
    private static final long[] NONE = new long[0];

    @Test
    void followsTheDocumentedAlgorithmExactlyForASeed()
    {
        // An independent SplitMix64 and the documented rule: two draws per packet, burst first, then random loss.
        final long seed = 12345;
        final double loss = 0.03;
        final int burstLength = 4;
        final double burstProbability = 0.01;
        final LossModel model = new LossModel(seed, loss, burstLength, burstProbability, NONE, NONE);

        long state = seed;
        int burstRemaining = 0;
        int drops = 0;
        for (int packet = 1; packet <= 200_000; packet++)
        {
            state += 0x9E3779B97F4A7C15L;
            final double burstDraw = (mix(state) >>> 11) * 0x1.0p-53;
            state += 0x9E3779B97F4A7C15L;
            final double lossDraw = (mix(state) >>> 11) * 0x1.0p-53;
            final boolean expected;
            if (burstRemaining > 0)
            {
                burstRemaining--;
                expected = true;
            }
            else if (burstDraw < burstProbability)
            {
                burstRemaining = burstLength - 1;
                expected = true;
            }
            else
            {
                expected = lossDraw < loss;
            }
            drops += expected ? 1 : 0;
            assertEquals(expected, model.dropNext(), "packet " + packet);
        }
        assertEquals(drops, model.dropped());
        assertEquals(200_000, model.packets());
    }

    @Test
    void sameSeedSamePatternOtherSeedAnotherPattern()
    {
        assertArrayEquals(pattern(7, 0.1, 10_000), pattern(7, 0.1, 10_000));
        assertFalse(java.util.Arrays.equals(pattern(7, 0.1, 10_000), pattern(8, 0.1, 10_000)));
    }

    @Test
    void randomLossRateIsWithinTolerance()
    {
        final int packets = 1_000_000;
        for (final double fraction : new double[]{ 0.001, 0.01, 0.1, 0.5 })
        {
            final LossModel model = new LossModel(99, fraction, 0, 0.0, NONE, NONE);
            for (int i = 0; i < packets; i++)
            {
                model.dropNext();
            }
            // Binomial: 5 standard deviations.
            final double tolerance = 5 * Math.sqrt(packets * fraction * (1 - fraction));
            assertEquals(packets * fraction, model.dropped(), tolerance, "fraction " + fraction);
        }
        final LossModel all = new LossModel(1, 1.0, 0, 0.0, NONE, NONE);
        final LossModel nothing = new LossModel(1, 0.0, 0, 0.0, NONE, NONE);
        for (int i = 0; i < 1000; i++)
        {
            assertTrue(all.dropNext());
            assertFalse(nothing.dropNext());
        }
    }

    @Test
    void burstsLoseExactlyNConsecutivePacketsAtTheExpectedRate()
    {
        final int burstLength = 7;
        final double probability = 0.002;
        final int packets = 1_000_000;
        final LossModel model = new LossModel(5, 0.0, burstLength, probability, NONE, NONE);
        int run = 0;
        long runs = 0;
        for (int i = 0; i < packets; i++)
        {
            if (model.dropNext())
            {
                run++;
            }
            else if (run > 0)
            {
                // Bursts may follow each other directly, so a run is a whole number of bursts, never a part of one.
                assertEquals(0, run % burstLength, "run of " + run + " ending before packet " + (i + 1));
                runs++;
                run = 0;
            }
        }
        assertTrue(runs > 100, "bursts seen: " + runs);
        final long unfinishedBurst = (burstLength - run % burstLength) % burstLength;  // a burst cut by the end
        assertEquals(model.burstsStarted() * burstLength - unfinishedBurst, model.dropped());

        // Each decision point starts a burst (N packets lost) with Q, else passes one packet.
        final double expected = probability * burstLength / (probability * burstLength + 1 - probability);
        final double observed = model.dropped() / (double)packets;
        assertEquals(expected, observed, expected * 0.1, "burst loss rate");
    }

    @Test
    void outagesAreExactAndCombineWithOtherLoss()
    {
        final LossModel model = new LossModel(3, 0.0, 0, 0.0, new long[]{ 5, 20, 21 }, new long[]{ 3, 2, 4 });
        for (long packet = 1; packet <= 100; packet++)
        {
            final boolean expected = (packet >= 5 && packet <= 7) || (packet >= 20 && packet <= 24);
            assertEquals(expected, model.dropNext(), "packet " + packet);
        }
        assertEquals(8, model.dropped());

        // With random loss on, the outage packets are lost whatever the draws say, and the others follow the draws.
        final LossModel random = new LossModel(3, 0.2, 0, 0.0, NONE, NONE);
        final LossModel randomWithOutage = new LossModel(3, 0.2, 0, 0.0, new long[]{ 50 }, new long[]{ 10 });
        for (long packet = 1; packet <= 1000; packet++)
        {
            final boolean randomDrop = random.dropNext();
            final boolean drop = randomWithOutage.dropNext();
            assertEquals(randomDrop || (packet >= 50 && packet < 60), drop, "packet " + packet);
        }
    }

    @Test
    void losslessAndValidation()
    {
        final LossModel none = LossModel.none();
        assertTrue(none.isLossless());
        for (int i = 0; i < 1000; i++)
        {
            assertFalse(none.dropNext());
        }
        assertEquals(1000, none.packets());

        assertArrayEquals(new long[]{ 100, 20 }, LossModel.parseOutage("100:20"));
        for (final String bad : new String[]{ "100", ":20", "100:", "0:5", "5:0", "a:b", "-1:3", "" })
        {
            assertThrows(IllegalArgumentException.class, () -> LossModel.parseOutage(bad), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> new LossModel(1, 1.5, 0, 0.0, NONE, NONE));
        assertThrows(IllegalArgumentException.class, () -> new LossModel(1, Double.NaN, 0, 0.0, NONE, NONE));
        assertThrows(IllegalArgumentException.class, () -> new LossModel(1, 0.0, 0, 0.1, NONE, NONE));
        assertThrows(IllegalArgumentException.class, () -> new LossModel(1, 0.0, 3, -0.1, NONE, NONE));
        assertThrows(IllegalArgumentException.class, () -> new LossModel(1, 0.0, 0, 0.0, new long[]{ 1 }, NONE));
    }

    private static boolean[] pattern(final long seed, final double fraction, final int packets)
    {
        final LossModel model = new LossModel(seed, fraction, 3, 0.01, new long[]{ 100 }, new long[]{ 5 });
        final boolean[] pattern = new boolean[packets];
        for (int i = 0; i < packets; i++)
        {
            pattern[i] = model.dropNext();
        }
        return pattern;
    }

    private static long mix(final long value)
    {
        long z = value;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
