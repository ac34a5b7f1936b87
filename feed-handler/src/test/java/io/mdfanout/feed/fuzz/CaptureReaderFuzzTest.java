package io.mdfanout.feed.fuzz;

import io.mdfanout.feed.replay.CaptureCounters;
import io.mdfanout.feed.replay.CaptureFiles;
import io.mdfanout.feed.replay.CaptureFrameDecoder;
import io.mdfanout.feed.replay.ItchFileReplayer;
import io.mdfanout.feed.replay.PcapNgReader;
import io.mdfanout.feed.replay.PcapReader;
import io.mdfanout.feed.replay.ReplayPace;
import io.mdfanout.feed.support.MoldPackets;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes the pcap and pcapng readers (and the frame decoder behind them) with corrupted captures:
 * valid captures of MoldUDP64 traffic over every supported link type, then bit flips, truncation,
 * length-field corruption and random bytes. Properties: the only exception is an IOException for a
 * capture whose file header is unreadable; a reading always ends with an outcome; every ring record
 * is valid and the line arbiter never hits an unexpected exception; the heap does not grow.
 */
class CaptureReaderFuzzTest
{
    private static final int GROUP = CaptureFiles.ip(239, 255, 48, 21);
    private static final int PORT = 48021;
    private static final int[] LINK_TYPES = {
        CaptureFiles.ETHERNET, CaptureFiles.SLL, CaptureFiles.SLL2, CaptureFiles.RAW, CaptureFiles.NULL};

    private final FuzzChain chain = new FuzzChain();
    private final CaptureCounters captureCounters = new CaptureCounters(chain.counters.countersManager());
    private final CaptureFrameDecoder decoder = new CaptureFrameDecoder(
        false, GROUP, PORT, (buffer, offset, length) -> chain.arbiter.onDatagram(buffer, offset, length),
        captureCounters);
    private final PcapReader pcapReader = new PcapReader(decoder, captureCounters, ReplayPace.MAX);
    private final PcapNgReader pcapNgReader = new PcapNgReader(decoder, captureCounters, ReplayPace.MAX);
    private long unreadable;

    @Property(tries = Fuzz.TRIES)
    void corruptedCaptures(@ForAll final long seed)
    {
        final int inputs = Fuzz.inputsPerTry(100_000);
        Fuzz.withoutHanging(inputs, () -> run(new SplittableRandom(seed), inputs));
    }

    /**
     * The frame decoder alone, on frames in buffers of exactly their length (Agrona's bounds checks
     * catch any read past the frame): a payload handed on lies inside the frame.
     */
    @Property(tries = Fuzz.TRIES)
    void corruptedFramesStayInsideTheirBounds(@ForAll final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final CaptureFrameDecoder boundsDecoder = new CaptureFrameDecoder(
            random.nextBoolean(), GROUP, random.nextBoolean() ? PORT : CaptureFrameDecoder.ANY_PORT, this::checkPayload,
            captureCounters);
        final int inputs = Fuzz.inputsPerTry(300_000);
        Fuzz.withoutHanging(inputs, () -> frames(random, boundsDecoder, inputs));
    }

    private void frames(final SplittableRandom random, final CaptureFrameDecoder boundsDecoder, final int inputs)
    {
        for (int i = 0; i < inputs; i++)
        {
            final int linkType = random.nextInt(20) == 0 ? random.nextInt(300) : LINK_TYPES[random.nextInt(LINK_TYPES.length)];
            final byte[] frame = Fuzz.mutate(random, frame(random, linkType, 1, 1));
            frameOffset = random.nextInt(4);
            frameLimit = frameOffset + frame.length;
            final byte[] exact = new byte[frameLimit];
            System.arraycopy(frame, 0, exact, frameOffset, frame.length);
            boundsDecoder.onFrame(linkType, new org.agrona.concurrent.UnsafeBuffer(exact), frameOffset, frame.length);
        }
    }

    private int frameOffset;
    private int frameLimit;

    private void checkPayload(final org.agrona.DirectBuffer buffer, final int offset, final int length)
    {
        assertTrue(offset >= frameOffset && length >= 0 && offset + length <= frameLimit,
            "payload [" + offset + ", " + (offset + length) + ") outside the frame [" + frameOffset + ", " + frameLimit + ")");
        buffer.getByte(offset + length - (length > 0 ? 1 : 0)); // touch the last byte
    }

    @Example
    void heapDoesNotGrowAndTheCountersAreReached() throws IOException
    {
        final SplittableRandom random = new SplittableRandom(3);
        run(random, 5_000);
        final long before = LineArbiterFuzzTest.usedHeap();
        run(random, 20_000);
        final long after = LineArbiterFuzzTest.usedHeap();
        assertTrue(after - before < 32L << 20, "heap grew by " + (after - before) + " bytes");

        assertTrue(captureCounters.datagrams().get() > 10_000, "datagrams " + captureCounters.datagrams().get());
        assertTrue(captureCounters.malformedRecords().get() > 0);
        assertTrue(captureCounters.truncatedAtEnd().get() > 0);
        assertTrue(captureCounters.filteredOut().get() > 0);
        assertTrue(captureCounters.snappedRecords().get() > 0);
        assertTrue(unreadable > 0);
        assertTrue(chain.normalizerCounters.messagesPublished().get() > 10_000);
    }

    private void run(final SplittableRandom random, final int inputs) throws IOException
    {
        for (int i = 0; i < inputs; i++)
        {
            final boolean pcapng = random.nextBoolean();
            final byte[] valid = pcapng ? pcapng(random) : pcap(random);
            final byte[] capture = random.nextInt(10) == 0 ? valid : Fuzz.mutate(random, valid);
            chain.newSession();
            try
            {
                final ItchFileReplayer.Outcome outcome = pcapng ?
                    pcapNgReader.read(new ByteArrayInputStream(capture)) :
                    pcapReader.read(new ByteArrayInputStream(capture));
                assertNotNull(outcome);
            }
            catch (final IOException ex)
            {
                // only an unreadable file header may stop the reading with an exception
                assertTrue(ex.getMessage().startsWith("not a pcap"), ex.getMessage());
                unreadable++;
            }
            chain.drainAndCheck();
        }
    }

    private static byte[] frame(final SplittableRandom random, final int linkType, final long sequence, final int count)
    {
        final byte[][] messages = new byte[count][];
        for (int m = 0; m < count; m++)
        {
            messages[m] = Fuzz.randomValidMessage(random);
        }
        final int port = random.nextInt(10) == 0 ? PORT + 2 : PORT;
        final byte[] ip = CaptureFiles.ipv4Udp(GROUP, port, MoldPackets.packet(FuzzChain.SESSION, sequence, messages));
        switch (linkType)
        {
            case CaptureFiles.ETHERNET:
                return random.nextBoolean() ? CaptureFiles.ethernet(ip) : CaptureFiles.ethernet(ip, 0x8100);
            case CaptureFiles.SLL:
                return CaptureFiles.sll(ip);
            case CaptureFiles.SLL2:
                return CaptureFiles.sll2(ip);
            case CaptureFiles.NULL:
                return CaptureFiles.loopback(ip, ByteOrder.LITTLE_ENDIAN);
            default:
                return ip;
        }
    }

    private static byte[] pcap(final SplittableRandom random)
    {
        final int linkType = LINK_TYPES[random.nextInt(LINK_TYPES.length)];
        final CaptureFiles.Pcap pcap = new CaptureFiles.Pcap(
            random.nextBoolean() ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN, random.nextBoolean(), linkType);
        long sequence = 1;
        final int frames = 1 + random.nextInt(6);
        for (int f = 0; f < frames; f++)
        {
            final int count = 1 + random.nextInt(4);
            final byte[] frame = frame(random, linkType, sequence, count);
            if (random.nextInt(20) == 0)
            {
                pcap.record(f, frame, frame.length / 2, frame.length);
            }
            else
            {
                pcap.record(f, frame);
            }
            sequence += count;
        }
        return pcap.bytes();
    }

    private static byte[] pcapng(final SplittableRandom random)
    {
        final CaptureFiles.PcapNg pcapng = new CaptureFiles.PcapNg()
            .section(random.nextBoolean() ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
        final int interfaces = 1 + random.nextInt(3);
        final int[] linkTypes = new int[interfaces];
        for (int i = 0; i < interfaces; i++)
        {
            linkTypes[i] = LINK_TYPES[random.nextInt(LINK_TYPES.length)];
            pcapng.iface(linkTypes[i], random.nextBoolean() ? 0 : 65535, random.nextBoolean() ? -1 : random.nextInt(256));
        }
        long sequence = 1;
        final int frames = 1 + random.nextInt(6);
        for (int f = 0; f < frames; f++)
        {
            final int count = 1 + random.nextInt(4);
            final int iface = random.nextInt(interfaces);
            final byte[] frame = frame(random, linkTypes[iface], sequence, count);
            switch (random.nextInt(8))
            {
                case 0:
                    pcapng.spb(frame);
                    break;
                case 1:
                    pcapng.other(2 + random.nextInt(10), random.nextInt(40));
                    pcapng.epb(iface, f, frame);
                    break;
                case 2:
                    pcapng.epb(iface, f, frame, frame.length + 1);
                    break;
                default:
                    pcapng.epb(iface, f, frame);
                    break;
            }
            sequence += count;
        }
        return pcapng.bytes();
    }
}
