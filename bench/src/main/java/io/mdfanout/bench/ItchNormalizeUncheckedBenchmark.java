package io.mdfanout.bench;

import org.openjdk.jmh.annotations.Fork;

/**
 * {@link ItchNormalizeBenchmark} with Agrona's buffer bounds checks off
 * ({@code -Dagrona.disable.bounds.checks=true}), the setting Aeron recommends for production once
 * the code is trusted. The normalizer checks every ITCH message's length against its type before
 * reading a field, and the MoldUDP64 processor checks every block against the datagram, so the
 * buffer's own checks repeat work already done; this variant shows what they cost.
 */
@Fork(value = 1, jvmArgsAppend = { GeneratedSession.JVM_OPENS, GeneratedSession.NO_BOUNDS_CHECKS })
public class ItchNormalizeUncheckedBenchmark extends ItchNormalizeBenchmark
{
}
