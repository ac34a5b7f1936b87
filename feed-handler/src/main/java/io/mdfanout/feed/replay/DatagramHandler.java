package io.mdfanout.feed.replay;

import org.agrona.DirectBuffer;

/**
 * Takes the UDP payloads found in a capture; in a replay this is a single-line
 * {@link io.mdfanout.feed.handler.LineArbiter#onDatagram(DirectBuffer, int, int)}.
 */
@FunctionalInterface
public interface DatagramHandler
{
    /**
     * One UDP payload; the bytes are only valid during the call.
     *
     * @param buffer holding the payload.
     * @param offset of its first byte.
     * @param length of the payload.
     */
    void onDatagram(DirectBuffer buffer, int offset, int length);
}
