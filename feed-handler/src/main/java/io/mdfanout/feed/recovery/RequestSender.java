package io.mdfanout.feed.recovery;

import org.agrona.DirectBuffer;

/** Sends one retransmission request datagram to the re-request server. */
@FunctionalInterface
public interface RequestSender
{
    /**
     * Send the request.
     *
     * @param buffer holding the request.
     * @param offset of its first byte.
     * @param length of the request.
     * @return true when handed to the network; false when the send failed (it is retried on timeout).
     */
    boolean send(DirectBuffer buffer, int offset, int length);
}
