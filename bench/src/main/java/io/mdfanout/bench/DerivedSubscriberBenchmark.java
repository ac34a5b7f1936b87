package io.mdfanout.bench;

import io.mdfanout.sbe.BarDecoder;
import io.mdfanout.sbe.BestBidOfferDecoder;
import io.mdfanout.sbe.BookDepthDecoder;
import io.mdfanout.sbe.TradePrintDecoder;
import io.mdfanout.sdk.LocalCounters;
import io.mdfanout.sdk.MarketDataListener;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.PacketStreamDecoder;
import io.mdfanout.sdk.SubscriberCounters;
import io.mdfanout.sdk.book.BookCounters;
import io.mdfanout.sdk.book.OrderBooks;
import io.mdfanout.wire.FeedStream;
import org.agrona.concurrent.UnsafeBuffer;
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

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;

/**
 * A subscriber's CPU per session on each stream (issue 40): the SDK's receive path without the transport
 * ({@link PacketStreamDecoder}: validation, stream sequencing, SBE decode, dispatch) over one session's packets of one
 * stream, on one thread. The packets are the fanout's own: set-up runs the bench session once through
 * {@link DerivedFanout} with all four derived streams and records every packet of every stream as its IPC subscriptions
 * read them (or reads them from the file {@value #SESSION_ENV} names, which {@link DerivedStreamBytes} wrote from such a
 * run, so that each fork does not publish the session again).
 * <p>
 * {@code stream}: {@code mbo} decodes the MBO stream into {@link OrderBooks} (what a subscriber must do to know the
 * best bid and offer from MBO, as {@code SdkBookBenchmark.decodeIntoBooks}); {@code bbo}, {@code mbp-10},
 * {@code trades} and {@code ohlcv} decode their stream into a listener that keeps what each message says per
 * instrument (prices and sizes of the top, of ten levels, the last print and volume, the last bar). One operation is
 * one session's packets of that stream; the score is the time per session, and the {@code cpuNanos} and {@code units}
 * counters ({@link ThreadCpu}) give the thread's CPU time per session, which a machine shared with other work does not
 * inflate. Before each pass (outside the measurement)
 * the packets' stream sequences are moved on, so each pass is a fresh, gap-free continuation of the streams; at the
 * end the run fails unless every message was delivered and no gap or malformed packet was seen.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = GeneratedSession.JVM_OPENS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class DerivedSubscriberBenchmark
{
    /** Names a file of the session's packets (DerivedStreamBytes writes it) to decode instead of recording them. */
    static final String SESSION_ENV = "MDFANOUT_DERIVED_SESSION";

    /** The stream subscribed to. */
    @Param({"mbo", "bbo", "mbp-10", "trades", "ohlcv"})
    public String stream;

    private DerivedFanout.RecordedStream packets;
    private PacketStreamDecoder decoder;
    private SubscriberCounters counters;
    private OrderBooks books;
    private Latest latest;
    private long passes;

    /** Record the fanout's packets of the stream and make the decoder. */
    @Setup
    public void setup()
    {
        final FeedStream feedStream = FeedStream.fromName(stream);
        final String session = System.getenv(SESSION_ENV);
        packets = null != session && !session.isEmpty() ? readSession(Paths.get(session), feedStream) :
            recordedSession(feedStream);
        if (0 == packets.messages)
        {
            throw new IllegalStateException("the fanout published no " + stream + " message");
        }
        final MarketDataListener listener;
        if (FeedStream.MBO == feedStream)
        {
            books = new OrderBooks(1 << 20, 64, new BookCounters(LocalCounters.create(BookCounters.COUNTER_COUNT), "bench"));
            listener = books;
        }
        else
        {
            latest = new Latest();
            listener = latest;
        }
        counters = new SubscriberCounters(LocalCounters.create(SubscriberCounters.COUNTER_COUNT), "bench");
        final int[] partitions = new int[DerivedFanout.PARTITIONS];
        for (int p = 0; p < partitions.length; p++)
        {
            partitions[p] = p;
        }
        decoder = new PacketStreamDecoder(
            partitions, listener, counters, (throwable) -> { throw new IllegalStateException(throwable); });
    }

    /**
     * The bench session through the fanout with every derived stream, each stream's packets recorded.
     *
     * @param stream the stream wanted.
     * @return its packets of one session.
     */
    static DerivedFanout.RecordedStream recordedSession(final FeedStream stream)
    {
        final DerivedFanout.Recording recording = new DerivedFanout.Recording();
        try (DerivedFanout fanout = new DerivedFanout(DerivedFanout.DERIVED, recording))
        {
            fanout.runPass();
            fanout.verify();
        }
        return recording.stream(stream);
    }

    /**
     * Write every stream's packets of a recorded session.
     *
     * @param recording the session.
     * @param file      where.
     * @throws IOException when it cannot be written.
     */
    static void writeSession(final DerivedFanout.Recording recording, final Path file) throws IOException
    {
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file))))
        {
            out.writeInt(DerivedFanout.STREAMS.length);
            for (final FeedStream stream : DerivedFanout.STREAMS)
            {
                recording.stream(stream).writeTo(out);
            }
        }
    }

    private static DerivedFanout.RecordedStream readSession(final Path file, final FeedStream stream)
    {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file))))
        {
            for (int i = 0, n = in.readInt(); i < n; i++)
            {
                final DerivedFanout.RecordedStream recorded = DerivedFanout.RecordedStream.readFrom(in);
                if (recorded.stream == stream)
                {
                    return recorded;
                }
            }
            throw new IllegalStateException(file + " has no " + stream.streamName() + " packets");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** Move the packets' stream sequences on by one pass. */
    @Setup(Level.Invocation)
    public void nextPass()
    {
        packets.moveOn(passes++);
    }

    /**
     * Decode one session's packets of the stream.
     *
     * @param cpu this thread's CPU time in the pass, and the sessions decoded.
     * @return what the listener holds, so that nothing is dead code.
     */
    @Benchmark
    public long decodeSession(final ThreadCpu cpu)
    {
        final long start = ThreadCpu.now();
        final long result = decodePass();
        cpu.cpuNanos += ThreadCpu.now() - start;
        cpu.units++;
        return result;
    }

    private long decodePass()
    {
        final DerivedFanout.RecordedStream packets = this.packets;
        final UnsafeBuffer buffer = packets.packets;
        final int[] partition = packets.partition;
        final int[] offset = packets.offset;
        final int[] length = packets.length;
        final PacketStreamDecoder decoder = this.decoder;
        for (int i = 0, n = packets.count(); i < n; i++)
        {
            decoder.onMessage(partition[i], 1, buffer, offset[i], length[i]);
        }
        return null != books ? books.orderCount() : latest.checksum;
    }

    /** Fail the run unless every message of every pass was delivered cleanly. */
    @TearDown
    public void verify()
    {
        if (0 != counters.gaps() || 0 != counters.malformed() || 0 != counters.duplicatePackets() ||
            0 != counters.listenerErrors() || counters.messages() != passes * packets.messages)
        {
            throw new IllegalStateException("the " + stream + " packets were not delivered cleanly: " + counters +
                " (expected " + passes * packets.messages + " messages)");
        }
    }

    /** A derived-stream subscriber's application: what each message says, kept per instrument. */
    static final class Latest implements MarketDataListener
    {
        private static final int INSTRUMENTS = 1 << 16;
        private static final int MASK = INSTRUMENTS - 1;
        private static final int LEVELS = 10;
        final long[] bidPrice = new long[INSTRUMENTS];
        final long[] bidShares = new long[INSTRUMENTS];
        final long[] askPrice = new long[INSTRUMENTS];
        final long[] askShares = new long[INSTRUMENTS];
        final long[] depth = new long[INSTRUMENTS * LEVELS * 4];
        final long[] lastPrice = new long[INSTRUMENTS];
        final long[] volume = new long[INSTRUMENTS];
        final long[] barClose = new long[INSTRUMENTS];
        final long[] barVolume = new long[INSTRUMENTS];
        long checksum;

        /** {@inheritDoc} */
        public void onBestBidOffer(final MessageContext context, final BestBidOfferDecoder message)
        {
            final int i = (int)message.instrumentId() & MASK;
            bidPrice[i] = message.bidPrice().mantissa();
            bidShares[i] = message.bidShares();
            askPrice[i] = message.askPrice().mantissa();
            askShares[i] = message.askShares();
            checksum += bidPrice[i];
        }

        /** {@inheritDoc} */
        public void onBookDepth(final MessageContext context, final BookDepthDecoder message)
        {
            final int base = ((int)message.instrumentId() & MASK) * LEVELS * 4;
            final int bids = message.bidLevels();
            final int asks = message.askLevels();
            for (int level = 0; level < LEVELS; level++)
            {
                final int at = base + level * 4;
                depth[at] = level < bids ? message.bidPrices(level) : 0;
                depth[at + 1] = level < bids ? message.bidShares(level) : 0;
                depth[at + 2] = level < asks ? message.askPrices(level) : 0;
                depth[at + 3] = level < asks ? message.askShares(level) : 0;
            }
            checksum += depth[base];
        }

        /** {@inheritDoc} */
        public void onTradePrint(final MessageContext context, final TradePrintDecoder message)
        {
            final int i = (int)message.instrumentId() & MASK;
            lastPrice[i] = message.price().mantissa();
            volume[i] += message.shares();
            checksum += lastPrice[i];
        }

        /** {@inheritDoc} */
        public void onBar(final MessageContext context, final BarDecoder message)
        {
            final int i = (int)message.instrumentId() & MASK;
            barClose[i] = message.closePrice().mantissa();
            barVolume[i] += message.volume();
            checksum += barClose[i];
        }
    }
}
