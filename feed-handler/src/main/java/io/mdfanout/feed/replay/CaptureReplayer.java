package io.mdfanout.feed.replay;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Replays a packet capture (pcap or pcapng, plain or gzipped) through a
 * {@link CaptureFrameDecoder}, so that every selected UDP payload reaches the MoldUDP64
 * {@link io.mdfanout.feed.handler.LineArbiter} exactly as live traffic would. Holds one reader of
 * each format; memory is constant whatever the size of the capture.
 */
public final class CaptureReplayer
{
    private final PcapReader pcapReader;
    private final PcapNgReader pcapNgReader;

    /**
     * Create a replayer.
     *
     * @param decoder  decodes, filters and delivers each frame.
     * @param counters record counters.
     * @param pace     max, or original to follow the capture timestamps.
     */
    public CaptureReplayer(final CaptureFrameDecoder decoder, final CaptureCounters counters, final ReplayPace pace)
    {
        pcapReader = new PcapReader(decoder, counters, pace);
        pcapNgReader = new PcapNgReader(decoder, counters, pace);
    }

    /**
     * Replay a capture file.
     *
     * @param file the capture.
     * @return why the replay ended.
     * @throws java.nio.file.NoSuchFileException when the file does not exist.
     * @throws IOException                       when it cannot be read or is not a capture.
     */
    public ItchFileReplayer.Outcome replay(final Path file) throws IOException
    {
        try (ReplayInput input = ReplayInput.open(file, null))
        {
            return replay(input);
        }
    }

    /**
     * Replay an opened capture.
     *
     * @param input the capture, its format already detected.
     * @return why the replay ended.
     * @throws IOException when it cannot be read or is not a capture.
     */
    public ItchFileReplayer.Outcome replay(final ReplayInput input) throws IOException
    {
        switch (input.format())
        {
            case PCAP:
                return pcapReader.read(input.stream());
            case PCAPNG:
                return pcapNgReader.read(input.stream());
            default:
                throw new IOException("not a pcap or pcapng capture");
        }
    }
}
