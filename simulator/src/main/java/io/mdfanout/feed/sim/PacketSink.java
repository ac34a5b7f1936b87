package io.mdfanout.feed.sim;

import org.agrona.DirectBuffer;

/**
 * Where the {@link MoldUdp64Packetizer} hands each finished MoldUDP64 packet: a socket, a test's collector.
 */
@FunctionalInterface
public interface PacketSink
{
    /**
     * Takes one complete packet. The bytes are only valid during the call.
     *
     * @param buffer holding the packet.
     * @param offset where the packet starts.
     * @param length its length in bytes.
     */
    void onPacket(DirectBuffer buffer, int offset, int length);
}
