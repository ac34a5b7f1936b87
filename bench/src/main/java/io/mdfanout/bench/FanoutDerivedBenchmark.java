package io.mdfanout.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The fanout's cost per message with derived streams (issue 40): the publishing side of a 4-partition fanout
 * ({@link DerivedFanout}: ring, partition state, {@code PartitionPublisher}, and with derived streams the
 * {@code PartitionDerivation} that reads each MBO packet back into books and publishes BBO, MBP-10, trades and bars)
 * publishing the bench session over IPC publications of an embedded media driver, on one thread.
 * <p>
 * {@code streams}: {@code mbo} is the fanout of the MBO stream only, the baseline; {@code all} adds the four derived
 * streams; {@code bbo}, {@code mbp-10}, {@code trades}, {@code ohlcv} add one each. One operation is one slice of the
 * session (an eighth of each partition's records, {@link DerivedFanout#SLICES}: every record in the rings published,
 * every derived packet offered); the {@code messages} counter gives MBO messages per second, so 1e9 / that is the
 * fanout's nanoseconds per message, and a row's over {@code mbo}'s is the derived streams' cost as a ratio; the
 * {@code cpuNanos} and {@code units} counters ({@link ThreadCpu}) give the same in the thread's CPU time, which a machine
 * shared with other work does not inflate (bench/e2e/report_derived.py reports from them). Outside the
 * measurement, before each slice, every stream is read to its end by IPC subscriptions (no subscriber shares the
 * measured thread) and the next slice written into the rings; after each iteration the run fails unless everything
 * went out whole (no back pressure, nothing dropped or held back).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = GeneratedSession.JVM_OPENS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class FanoutDerivedBenchmark
{
    /** Derived streams besides MBO: none (mbo), all four (all), or one. */
    @Param({"mbo", "all", "bbo", "mbp-10", "trades", "ohlcv"})
    public String streams;

    private DerivedFanout fanout;
    private boolean filled;

    /** Start the driver, the fanout and its subscriptions; the first slice is written into the rings. */
    @Setup
    public void setup()
    {
        fanout = new DerivedFanout(DerivedFanout.derivedStreams(streams), null);
        fanout.fillRings();
        filled = true;
    }

    /** Read every stream to its end and write the next slice into the rings. */
    @Setup(Level.Invocation)
    public void nextPass()
    {
        if (!filled)
        {
            fanout.drainSubscribers();
            fanout.fillRings();
            filled = true;
        }
    }

    /**
     * Publish one slice: every partition's duty cycle until nothing is left to do.
     *
     * @param messages counts MBO messages published.
     * @param cpu      this thread's CPU time in the slice, and the slice's MBO messages.
     * @return work done, so that nothing is dead code.
     */
    @Benchmark
    public long publish(final SdkBookBenchmark.Messages messages, final ThreadCpu cpu)
    {
        final long start = ThreadCpu.now();
        final long work = fanout.publishAll();
        cpu.cpuNanos += ThreadCpu.now() - start;
        filled = false;
        messages.messages += fanout.messagesOfLastSlice();
        cpu.units += fanout.messagesOfLastSlice();
        return work;
    }

    /** Fail the run unless every pass went out whole. */
    @TearDown(Level.Iteration)
    public void verify()
    {
        fanout.verify();
    }

    /** Stop the fanout and the driver. */
    @TearDown
    public void close()
    {
        fanout.close();
    }
}
