package io.mdfanout.feed.replay;

import io.mdfanout.feed.handler.ArbitrationCounters;
import io.mdfanout.feed.handler.FeedHandlerCounters;
import io.mdfanout.feed.handler.InMemoryCounters;
import io.mdfanout.feed.handler.LineArbiter;
import io.mdfanout.feed.normalize.ItchNormalizer;
import io.mdfanout.feed.normalize.NormalizerCounters;
import io.mdfanout.feed.support.ItchBytes;
import io.mdfanout.feed.support.MoldPackets;
import io.mdfanout.feed.support.RingWaitDeadline;
import io.mdfanout.feed.support.Rings;
import io.mdfanout.wire.WireFormat;
import org.agrona.concurrent.ringbuffer.RingBuffer;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;

/** A capture replay into one in-memory ring: the same chain as the command, readable by tests. */
final class CaptureFixture
{
    static final String SESSION = "REPLAY0001";

    final RingBuffer[] rings = Rings.inMemory(1, 1 << 20);
    final InMemoryCounters counters = new InMemoryCounters(256);
    final NormalizerCounters normalizerCounters = new NormalizerCounters(counters.countersManager(), "t", 1);
    final FeedHandlerCounters feedCounters = new FeedHandlerCounters(counters.countersManager(), "t");
    final CaptureCounters captureCounters = new CaptureCounters(counters.countersManager());
    final ItchNormalizer normalizer = new ItchNormalizer(rings, new RingWaitDeadline(), normalizerCounters);
    final LineArbiter arbiter = LineArbiter.singleLine(
        null, normalizer, feedCounters, new ArbitrationCounters(counters.countersManager(), "t"));
    final CaptureReplayer replayer;

    CaptureFixture(final boolean anyGroup, final int group, final int port, final ReplayPace pace)
    {
        replayer = new CaptureReplayer(
            new CaptureFrameDecoder(anyGroup, group, port, arbiter::onDatagram, captureCounters), captureCounters,
            pace);
    }

    CaptureFixture()
    {
        this(true, 0, CaptureFrameDecoder.ANY_PORT, ReplayPace.MAX);
    }

    /** The MoldUDP64 packet carrying {@code count} Order Delete messages from {@code sequence} on. */
    static byte[] moldPacket(final long sequence, final int count)
    {
        final byte[][] messages = new byte[count][];
        for (int i = 0; i < count; i++)
        {
            messages[i] = new ItchBytes(19, 'D', 1, 0, 1000 + sequence + i).u64(11, sequence + i).bytes();
        }
        return MoldPackets.packet(SESSION, sequence, messages);
    }

    ItchFileReplayer.Outcome replay(final Path dir, final byte[] capture, final boolean gzip) throws IOException
    {
        final Path file = dir.resolve(gzip ? "capture.gz" : "capture");
        if (gzip)
        {
            try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file)))
            {
                out.write(capture);
            }
        }
        else
        {
            Files.write(file, capture);
        }
        return replayer.replay(file);
    }

    /** Exchange sequences of the ring records in order; a GapNotice is written as its negated first missing. */
    List<Long> drainSequences()
    {
        final List<Long> sequences = new ArrayList<>();
        for (final Rings.Rec rec : Rings.drain(rings[0]))
        {
            final long sequence = WireFormat.exchangeSequence(rec.buffer(), 0);
            sequences.add(rec.templateId() == io.mdfanout.sbe.GapNoticeDecoder.TEMPLATE_ID ? -sequence : sequence);
        }
        return sequences;
    }

    static List<Long> range(final long from, final long to)
    {
        final List<Long> list = new ArrayList<>();
        for (long s = from; s <= to; s++)
        {
            list.add(s);
        }
        return list;
    }
}
