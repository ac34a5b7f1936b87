package io.mdfanout.feed.replay;

import java.io.IOException;
import java.io.InputStream;

/** Reads a packet capture from a stream and hands each frame to a {@link CaptureFrameDecoder}. */
public interface CaptureReader
{
    /** Largest captured frame accepted; bigger records are counted as malformed and skipped. */
    int MAX_FRAME_LENGTH = 262_144;

    /**
     * Read the whole capture.
     *
     * @param in the capture, already decompressed, positioned at its first byte.
     * @return why the reading ended.
     * @throws IOException when the stream fails or it does not start as a capture of this format.
     */
    ItchFileReplayer.Outcome read(InputStream in) throws IOException;
}
