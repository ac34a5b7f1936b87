package io.mdfanout.feed.fuzz;

import io.mdfanout.feed.replay.CaptureCounters;
import io.mdfanout.feed.replay.CaptureFiles;
import io.mdfanout.feed.replay.CaptureFrameDecoder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The inputs the fuzz tests failed on, minimal, kept as plain tests. */
class FuzzRegressionTest
{
    /**
     * Found by ItchNormalizerFuzzTest: after the ring wrapped, {@code RingBuffer.read} returned 0 having
     * only skipped the padding record, and a drain that stopped there missed the message just
     * published (the fuzz harness was wrong, not the normalizer; support.Rings.drain has the same
     * single-read pattern and must not be used where a ring wraps).
     */
    @Test
    void aRecordAfterTheRingWrapsIsDrained()
    {
        final FuzzChain chain = new FuzzChain();
        final byte[] executed = {69, 0, 2, 0, 2, 48, 76, -22, 12, 32, -61, 0, 0, 0, 0, 0, 0, 7, 118, 0, 0, 1, -112,
            0, 0, 0, 0, 0, 0, 11, -46};
        final UnsafeBuffer buffer = new UnsafeBuffer(executed);
        long published = 0;
        // enough messages to wrap partition 0's 1 MiB ring several times, draining after each
        for (int i = 1; i <= 60_000; i++)
        {
            chain.normalizer.onMessage(buffer, 0, executed.length, i);
            chain.normalizer.flush(); // each message its own datagram
            published++;
            assertEquals(1, chain.validator.drain(chain.rings), "message " + i);
        }
        chain.normalizer.flush();
        chain.drainAndCheck();
        assertEquals(published, chain.normalizerCounters.messagesPublished().get());
    }

    /**
     * Kept from the frame-decoder fuzz (a mutant without the total-length check read past the frame):
     * an IPv4 total length beyond the captured frame is malformed, never read.
     */
    @Test
    void ipTotalLengthPastTheFrameIsNotRead()
    {
        final CaptureCounters counters = new CaptureCounters(new io.mdfanout.feed.handler.InMemoryCounters(32)
            .countersManager());
        final int[] delivered = new int[1];
        final CaptureFrameDecoder decoder = new CaptureFrameDecoder(
            true, 0, CaptureFrameDecoder.ANY_PORT, (b, o, l) -> delivered[0]++, counters);
        final byte[] ip = CaptureFiles.ipv4Udp(CaptureFiles.ip(239, 255, 48, 1), 48001, new byte[1]);
        ip[3] = (byte)(ip.length + 1);
        final byte[] frame = Arrays.copyOf(ip, ip.length);
        decoder.onFrame(CaptureFiles.RAW, new UnsafeBuffer(frame), 0, frame.length);
        assertEquals(0, delivered[0]);
        assertEquals(1, counters.malformedRecords().get());
    }
}
