package io.mdfanout.testing;

import java.util.SplittableRandom;
import java.util.function.LongUnaryOperator;

/**
 * Order id sequences a feed produces, for the tests of the order indexes built on
 * {@code io.mdfanout.wire.OrderIdHash} (the fanout's state and the SDK's books).
 */
public final class OrderIdPatterns
{
    private OrderIdPatterns()
    {
    }

    /**
     * Rising ids with gaps of 1 to 7, as one partition of four sees the exchange's order numbers.
     *
     * @param seed for the steps.
     * @return the i-th id for each call, in call order (the argument is ignored).
     */
    public static LongUnaryOperator risingWithRandomSteps(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final long[] next = { 0 };
        return i ->
        {
            next[0] += 1 + random.nextInt(7);
            return next[0];
        };
    }
}
