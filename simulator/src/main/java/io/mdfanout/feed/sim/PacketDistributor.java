package io.mdfanout.feed.sim;

import org.agrona.DirectBuffer;

/**
 * The packetizer's sink in the simulator: hands every generated packet, in this order, to the pcap capture and the
 * retransmission history and/or GLIMPSE state (they see the session as generated, before any loss), then to each
 * line, which may lose it.
 * Any of them may be absent. Single-threaded, allocation-free.
 */
public final class PacketDistributor implements PacketSink
{
    private static final PacketSink[] NO_LINES = new PacketSink[0];

    private final PacketSink capture;
    private final PacketSink history;
    private final PacketSink[] lines;

    /**
     * Creates the distributor.
     *
     * @param capture the pcap writer, or null.
     * @param history the retransmission history and/or the GLIMPSE state, or null.
     * @param lines   the lines (A, then B when configured); may be empty.
     */
    public PacketDistributor(final PacketSink capture, final PacketSink history, final PacketSink... lines)
    {
        this.capture = capture;
        this.history = history;
        this.lines = null == lines ? NO_LINES : lines.clone();
    }

    /**
     * Distributes one packet.
     *
     * @param buffer holding the packet.
     * @param offset where it starts.
     * @param length its length.
     */
    public void onPacket(final DirectBuffer buffer, final int offset, final int length)
    {
        if (null != capture)
        {
            capture.onPacket(buffer, offset, length);
        }
        if (null != history)
        {
            history.onPacket(buffer, offset, length);
        }
        for (final PacketSink line : lines)
        {
            line.onPacket(buffer, offset, length);
        }
    }
}
