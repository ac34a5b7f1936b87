package io.mdfanout.feed.sim;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.status.AtomicCounter;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * One line of the exchange (A or B): sends every packet through its sender unless its {@link LossModel} loses it.
 * <p>
 * Only data packets (MoldUDP64 message count 1..0xFFFE) are numbered and offered to the loss model; heartbeats and
 * the end-of-session packet always go out, as a real line's loss is what the feed handler must recover, while
 * those packets are what tells it a line is alive. Single-threaded, allocation-free.
 */
public final class SimulatedLine implements PacketSink
{
    private final PacketSink sender;
    private final LossModel lossModel;
    private final AtomicCounter packetsSent;
    private final AtomicCounter dataPacketsDropped;

    /**
     * Creates a line.
     *
     * @param sender             where the packets the line does not lose go (its multicast sender).
     * @param lossModel          which data packets the line loses.
     * @param packetsSent        counts the packets handed to the sender.
     * @param dataPacketsDropped counts the data packets lost.
     */
    public SimulatedLine(
        final PacketSink sender,
        final LossModel lossModel,
        final AtomicCounter packetsSent,
        final AtomicCounter dataPacketsDropped)
    {
        this.sender = sender;
        this.lossModel = lossModel;
        this.packetsSent = packetsSent;
        this.dataPacketsDropped = dataPacketsDropped;
    }

    /**
     * Sends the packet, or loses it when it is a data packet the loss model picks.
     *
     * @param buffer holding the packet.
     * @param offset where it starts.
     * @param length its length.
     */
    public void onPacket(final DirectBuffer buffer, final int offset, final int length)
    {
        if (isDataPacket(buffer, offset, length) && lossModel.dropNext())
        {
            dataPacketsDropped.incrementRelease();
            return;
        }
        sender.onPacket(buffer, offset, length);
        packetsSent.incrementRelease();
    }

    /**
     * The line's loss model.
     *
     * @return the model.
     */
    public LossModel lossModel()
    {
        return lossModel;
    }

    /**
     * Whether a MoldUDP64 packet carries messages (not a heartbeat, not the end of session).
     *
     * @param buffer holding the packet.
     * @param offset where it starts.
     * @param length its length.
     * @return true for a data packet.
     */
    public static boolean isDataPacket(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < MoldUdp64Packetizer.HEADER_LENGTH)
        {
            return false;
        }
        final int count = buffer.getShort(offset + MoldUdp64Packetizer.COUNT_OFFSET, BIG_ENDIAN) & 0xFFFF;
        return MoldUdp64Packetizer.HEARTBEAT_COUNT != count && MoldUdp64Packetizer.END_OF_SESSION_COUNT != count;
    }
}
